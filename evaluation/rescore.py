"""`python -m evaluation.rescore`: moved to `evaluation.sweeps.rescore`."""

import sys

from evaluation.sweeps.rescore import main

if __name__ == "__main__":
    sys.exit(main())
