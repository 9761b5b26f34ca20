"""`python -m evaluation.impact`: moved to `evaluation.sweeps.impact`."""

import sys

from evaluation.sweeps.impact import main

if __name__ == "__main__":
    sys.exit(main())
