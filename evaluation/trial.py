"""`python -m evaluation.trial`: moved to `evaluation.trials.trial`."""

import sys

from evaluation.trials.trial import cli

if __name__ == "__main__":
    sys.exit(cli(sys.argv[1:]))
