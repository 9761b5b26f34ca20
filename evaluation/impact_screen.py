"""`python -m evaluation.impact_screen`: moved to `evaluation.sweeps.impact_screen`."""

import sys

from evaluation.sweeps.impact_screen import main

if __name__ == "__main__":
    sys.exit(main())
