"""`python -m evaluation.compare`: moved to `evaluation.reports.compare`."""

from evaluation.reports.compare import main

if __name__ == "__main__":
    raise SystemExit(main())
