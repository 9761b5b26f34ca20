"""Standing orders: "conclude for me while my cash stays below X and nothing I watch
changes" (`openmono.actions.Conclude(until_cash=..., watch=...)`).

The turn loop answers a seat's management phase without asking it while its order
`holds`; an order that no longer holds is dropped and the seat is asked again. What an
order watches is one of the state's own versions (`GameState.holdings_version[seat]`
for `watch="mine"`, `GameState.board_version[0]` for `watch="board"`), so it lapses by
itself when a watched property changes; `watch="cash"` watches `UNCHANGING`, which
never changes (only the cash limit, or a rule change, ends the order).

Examples:
    >>> versions = [0, 0]
    >>> order = StandingOrder(until_cash=500, versions=versions, index=1)
    >>> order.holds(499), order.holds(500)
    (True, False)
    >>> versions[1] += 1  # a watched property changed
    >>> order.holds(0)
    False
    >>> LASTING.holds(10 ** 9)
    True
"""

from __future__ import annotations

from typing import Sequence

from openmono.actions import NO_CASH_LIMIT


class StandingOrder:
    """One seat's order for one phase: a cash limit and the version it was given at."""

    __slots__ = ("until_cash", "versions", "index", "version")

    def __init__(self, until_cash: int, versions: Sequence[int], index: int) -> None:
        self.until_cash = until_cash
        self.versions = versions  # the state's list of versions (read, never written)
        self.index = index
        self.version = versions[index]  # what it was when the order was given

    def holds(self, cash: int) -> bool:
        """True while the seat's `cash` is below the limit and nothing watched changed."""
        return cash < self.until_cash and self.versions[self.index] == self.version

    def __repr__(self) -> str:
        return f"StandingOrder(until_cash={self.until_cash}, index={self.index})"


UNCHANGING = (0,)  # the versions of `watch="cash"`: nothing watched ever changes
# An order that never lapses: a fixed Conclude answer (`Game.drive`).
LASTING = StandingOrder(NO_CASH_LIMIT, UNCHANGING, 0)
