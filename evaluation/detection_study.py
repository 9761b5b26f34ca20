"""`python -m evaluation.detection_study`: moved to `evaluation.sweeps.detection_study`."""

import sys

from evaluation.sweeps.detection_study import main

if __name__ == "__main__":
    sys.exit(main())
