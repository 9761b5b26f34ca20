"""`python -m evaluation.replay`: moved to `evaluation.reports.replay`."""

import sys

from evaluation.reports.replay import main

if __name__ == "__main__":
    sys.exit(main())
