"""`python -m evaluation.check`: moved to `evaluation.games.check`."""

from evaluation.games.check import main

if __name__ == "__main__":
    raise SystemExit(main())
