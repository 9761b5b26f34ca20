"""`python -m evaluation.paper_tables`: moved to `evaluation.games.paper_tables`."""

from evaluation.games.paper_tables import main

if __name__ == "__main__":
    raise SystemExit(main())
