"""`python -m evaluation.results`: moved to `evaluation.sweeps.results`."""

import sys

from evaluation.sweeps.results import main

if __name__ == "__main__":
    sys.exit(main())
