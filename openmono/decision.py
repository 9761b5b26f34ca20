"""What the engine asks a seat: one decision and its context.

The game yields `(seat, Decision)` at every decision; the observation copies the
decision's context fields (`openmono.observation.CONTEXT_FIELDS`), held in that order
in `Decision.context` (checked against the fields read by name at import).

Examples:
    >>> d = Decision("bid", square=3, high_bid=40)
    >>> dict(zip(CONTEXT_FIELDS, d.context))["high_bid"]
    40
    >>> d.count_offer(); dict(zip(CONTEXT_FIELDS, d.context))["offers_made"]
    1
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from openmono.observation import CONTEXT_FIELDS

_NO_REFUSALS: frozenset[int] = frozenset()
_context_of = attrgetter(*CONTEXT_FIELDS)  # every context field, read by name


class Decision:
    """The context of one decision (an Observation copies these fields by name).

    The fields are fixed at construction, but for `offers_made`, which changes through
    `count_offer` only, and for `refused` and `plugin_actions`, which the engine fills in
    only when a plugin adds to legality (`openmono.observe`).
    """

    __slots__ = ("phase", "square", "high_bid", "high_bidder", "owed", "creditor", "offer",
                 "offerer", "offers_made", "refused", "plugin_actions", "shared", "context")

    def __init__(self, phase: str, square: int = -1, high_bid: int = 0,
                 high_bidder: int = -1, owed: int = 0, creditor: int = -1,
                 offer: Any = None, offerer: int = -1) -> None:
        self.phase = phase
        self.square = square
        self.high_bid = high_bid
        self.high_bidder = high_bidder
        self.owed = owed
        self.creditor = creditor
        self.offer = offer
        self.offerer = offerer
        self.offers_made = 0
        self.refused = _NO_REFUSALS
        self.plugin_actions: tuple = ()
        self.shared = False
        # The context fields' values in `CONTEXT_FIELDS` order (written out: reading
        # them by name through `_context_of` costs a generic attribute lookup each; the
        # check below this class holds the two to the same order).
        self.context: tuple = (square, high_bid, high_bidder, owed, creditor, offer, offerer,
                               0, _NO_REFUSALS, ())

    def count_offer(self) -> None:
        """One more trade offer made in this phase."""
        self.offers_made += 1
        self.context = _context_of(self)


_probe = Decision("probe", 1, 2, 3, 4, 5, "offer", 7)
if _probe.context != _context_of(_probe):  # `__init__`'s display must follow CONTEXT_FIELDS
    raise ImportError("Decision.context is not in CONTEXT_FIELDS order")  # pragma: no cover
del _probe


def shared(phase: str, square: int = -1) -> Decision:
    """A decision asked again and again (pre-roll, a purchase): never mutated, so
    `Game._manage` copies it before counting trade offers."""
    d = Decision(phase, square)
    d.shared = True
    return d


class DecisionTimeout(BaseException):
    """Raised inside an in-process agent's `act` that ran past its time budget (by the
    harness's watchdog, `evaluation.harness.hook_watch`); the game driver answers with the phase
    default and counts a fault. A BaseException, so that an agent's own `except
    Exception` does not swallow it."""


class AgentFault:
    """Sent into the game instead of an action when the agent raised or ran too long."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason
