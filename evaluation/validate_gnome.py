"""`python -m evaluation.validate_gnome`: moved to `evaluation.games.validate_gnome`."""

from evaluation.games.validate_gnome import main

if __name__ == "__main__":
    raise SystemExit(main())
