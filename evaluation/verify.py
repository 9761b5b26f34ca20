"""`python -m evaluation.verify`: moved to `evaluation.reports.verify`."""

import sys

from evaluation.reports.verify import main

if __name__ == "__main__":
    sys.exit(main())
