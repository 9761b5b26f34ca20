"""`python -m evaluation.report_cost`: moved to `evaluation.games.report_cost`."""

import sys

from evaluation.games.report_cost import main

if __name__ == "__main__":
    sys.exit(main())
