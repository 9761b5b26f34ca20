"""`python -m evaluation.selfplay`: moved to `evaluation.games.selfplay`."""

from evaluation.games.selfplay import main

if __name__ == "__main__":
    raise SystemExit(main())
