"""`python -m evaluation.kill_loop`: moved to `evaluation.games.kill_loop`."""

from evaluation.games.kill_loop import main

if __name__ == "__main__":
    raise SystemExit(main())
