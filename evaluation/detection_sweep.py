"""`python -m evaluation.detection_sweep`: moved to `evaluation.sweeps.detection_sweep`."""

import sys

from evaluation.sweeps.detection_sweep import main

if __name__ == "__main__":
    sys.exit(main())
