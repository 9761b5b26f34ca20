"""`python -m evaluation.tournament`: moved to `evaluation.games.tournament`."""

from evaluation.games.tournament import main

if __name__ == "__main__":
    raise SystemExit(main())
