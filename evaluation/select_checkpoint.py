"""`python -m evaluation.select_checkpoint`: moved to `evaluation.games.select_checkpoint`."""

from evaluation.games.select_checkpoint import main

if __name__ == "__main__":
    raise SystemExit(main())
