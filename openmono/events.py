"""Typed events the engine emits; agents see them as a player at the table would.

Every movement of cash is one `Payment` (payer/payee are seats, or BANK), so the books
can be checked from the event stream alone. Events are NamedTuples: cheap to build,
immutable, and they serialise with `event_to_json`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

BANK = -1


class DiceRolled(NamedTuple):
    seat: int
    dice: tuple[int, ...]
    kind: str = "dice_rolled"


class Moved(NamedTuple):
    seat: int
    start: int
    end: int
    reason: str  # "dice", "card", "jail"
    kind: str = "moved"


class Payment(NamedTuple):
    """Cash moved from payer to payee. `reason` says why; `square` is -1 when none."""

    payer: int
    payee: int
    amount: int
    reason: str
    square: int = -1
    kind: str = "payment"


class CardDrawn(NamedTuple):
    seat: int
    deck: str
    card: int
    text: str
    kind: str = "card_drawn"


class PropertyTransferred(NamedTuple):
    """Ownership changed: bought, won at auction, traded, or taken in bankruptcy."""

    square: int
    from_seat: int
    to_seat: int
    reason: str
    kind: str = "property_transferred"


class BuildingChanged(NamedTuple):
    seat: int
    square: int
    level: int  # the new level: 0..max_houses, max_houses + 1 = hotel
    reason: str  # "built", "sold", "bankruptcy"
    kind: str = "building_changed"


class MortgageChanged(NamedTuple):
    seat: int
    square: int
    mortgaged: bool
    kind: str = "mortgage_changed"


class AuctionStarted(NamedTuple):
    square: int
    kind: str = "auction_started"


class AuctionEnded(NamedTuple):
    square: int
    winner: int  # BANK when unsold
    price: int
    kind: str = "auction_ended"


class BidMade(NamedTuple):
    seat: int
    square: int
    amount: int
    kind: str = "bid_made"


class TradeOffered(NamedTuple):
    offer: Any  # the OfferTrade action
    from_seat: int
    kind: str = "trade_offered"


class TradeAnswered(NamedTuple):
    offer: Any
    from_seat: int
    accepted: bool
    kind: str = "trade_answered"


class JailCardMoved(NamedTuple):
    seat: int
    to_seat: int  # BANK when returned to its deck
    deck: str
    kind: str = "jail_card_moved"


class Jailed(NamedTuple):
    seat: int
    reason: str  # "go_to_jail", "card", "doubles"
    kind: str = "jailed"


class Released(NamedTuple):
    seat: int
    how: str  # "fine", "card", "doubles", "forced_fine"
    kind: str = "released"


class Bankrupt(NamedTuple):
    seat: int
    creditor: int
    kind: str = "bankrupt"


class Fault(NamedTuple):
    seat: int
    phase: str
    reason: str
    kind: str = "fault"


class TurnStarted(NamedTuple):
    seat: int
    turn: int
    kind: str = "turn_started"


class GameOver(NamedTuple):
    winner: int
    reason: str  # "bankruptcy" or "turn_limit"
    turns: int
    kind: str = "game_over"


def event_to_json(event: NamedTuple) -> dict[str, Any]:
    out = event._asdict()
    for key, value in out.items():
        if hasattr(value, "to_json"):
            out[key] = value.to_json()
        elif isinstance(value, tuple):
            out[key] = list(value)
    return out
