"""`python -m evaluation.bench`: moved to `evaluation.games.bench`."""

from evaluation.games.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
