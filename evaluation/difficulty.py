"""`python -m evaluation.difficulty`: moved to `evaluation.sweeps.difficulty`."""

import sys

from evaluation.sweeps.difficulty import main

if __name__ == "__main__":
    sys.exit(main())
