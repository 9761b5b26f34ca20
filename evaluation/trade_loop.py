"""`python -m evaluation.trade_loop`: see `evaluation.games.trade_loop`."""

from evaluation.games.trade_loop import main

if __name__ == "__main__":
    raise SystemExit(main())
