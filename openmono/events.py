"""Typed events the engine emits; agents see them as a player at the table would.

Every movement of cash is one `Payment` (payer/payee are seats, or BANK), so the books
can be checked from the event stream alone. Events are NamedTuples: cheap to build,
immutable, and they serialise with `event_to_json`. Each class has a stable `kind`
(a class attribute, so building an event stores only its fields).
"""

from __future__ import annotations

from typing import Any, NamedTuple

BANK = -1


class DiceRolled(NamedTuple):
    """A seat threw the dice (the faces, in order)."""
    seat: int
    dice: tuple[int, ...]
    kind = "dice_rolled"  # a class attribute, not a field: cheap to build


class Moved(NamedTuple):
    """A seat's token moved from `start` to `end` (by the dice, a card or to jail)."""
    seat: int
    start: int
    end: int
    reason: str  # "dice", "card", "jail"
    kind = "moved"  # a class attribute, not a field: cheap to build


class Payment(NamedTuple):
    """Cash moved from payer to payee. `reason` says why; `square` is -1 when none."""

    payer: int
    payee: int
    amount: int
    reason: str
    square: int = -1
    kind = "payment"  # a class attribute, not a field: cheap to build


class CardDrawn(NamedTuple):
    """A seat drew card number `card` of `deck`; `text` is what it says."""
    seat: int
    deck: str
    card: int
    text: str
    kind = "card_drawn"  # a class attribute, not a field: cheap to build


class PropertyTransferred(NamedTuple):
    """Ownership changed: bought, won at auction, traded, or taken in bankruptcy."""

    square: int
    from_seat: int
    to_seat: int
    reason: str
    kind = "property_transferred"  # a class attribute, not a field: cheap to build


class BuildingChanged(NamedTuple):
    """A street's buildings changed: its new `level` (houses; `max_houses + 1` is a hotel)."""
    seat: int
    square: int
    level: int  # the new level: 0..max_houses, max_houses + 1 = hotel
    reason: str  # "built", "sold", "bankruptcy"
    kind = "building_changed"  # a class attribute, not a field: cheap to build


class MortgageChanged(NamedTuple):
    """A property was mortgaged or lifted."""
    seat: int
    square: int
    mortgaged: bool
    kind = "mortgage_changed"  # a class attribute, not a field: cheap to build


class AuctionStarted(NamedTuple):
    """A property declined by the player who landed on it goes to auction."""
    square: int
    kind = "auction_started"  # a class attribute, not a field: cheap to build


class AuctionEnded(NamedTuple):
    """An auction's result: the winner (`BANK` when unsold) and the price."""
    square: int
    winner: int  # BANK when unsold
    price: int
    kind = "auction_ended"  # a class attribute, not a field: cheap to build


class BidMade(NamedTuple):
    """A bid in an auction."""
    seat: int
    square: int
    amount: int
    kind = "bid_made"  # a class attribute, not a field: cheap to build


class TradeOffered(NamedTuple):
    """A trade offer (`TradeTerms`) from `from_seat`."""
    offer: Any  # the OfferTrade action
    from_seat: int
    kind = "trade_offered"  # a class attribute, not a field: cheap to build


class TradeAnswered(NamedTuple):
    """A trade offer's answer."""
    offer: Any
    from_seat: int
    accepted: bool
    kind = "trade_answered"  # a class attribute, not a field: cheap to build


class JailCardMoved(NamedTuple):
    """A get-out-of-jail card changed hands (`to_seat` is `BANK` when it goes back to its deck)."""
    seat: int
    to_seat: int  # BANK when returned to its deck
    deck: str
    kind = "jail_card_moved"  # a class attribute, not a field: cheap to build


class Jailed(NamedTuple):
    """A seat was sent to jail, and why."""
    seat: int
    reason: str  # "go_to_jail", "card", "doubles"
    kind = "jailed"  # a class attribute, not a field: cheap to build


class Released(NamedTuple):
    """A seat left jail, and how."""
    seat: int
    how: str  # "fine", "card", "doubles", "forced_fine"
    kind = "released"  # a class attribute, not a field: cheap to build


class Bankrupt(NamedTuple):
    """A seat went bankrupt to `creditor` (a seat, or `BANK`)."""
    seat: int
    creditor: int
    kind = "bankrupt"  # a class attribute, not a field: cheap to build


class Fault(NamedTuple):
    """A seat's action was refused (illegal, too slow, or its agent failed): the phase's
    default action was played instead. `reason` says why.
    """
    seat: int
    phase: str
    reason: str
    kind = "fault"  # a class attribute, not a field: cheap to build


class TurnStarted(NamedTuple):
    """A seat's turn began (`turn` counts turns from 0)."""
    seat: int
    turn: int
    kind = "turn_started"  # a class attribute, not a field: cheap to build


class GameOver(NamedTuple):
    """The game ended: the winner, how (`bankruptcy`, `turn_limit` or a plugin's rule)
    and after how many turns."""
    winner: int
    reason: str  # "bankruptcy" or "turn_limit"
    turns: int
    kind = "game_over"  # a class attribute, not a field: cheap to build


def event_to_json(event: NamedTuple) -> dict[str, Any]:
    """An event as a JSON-ready dict with its `kind` (what logs and remote agents read)."""
    out = {"kind": getattr(event, "kind", type(event).__name__)}
    out.update(event._asdict())
    for key, value in out.items():
        if hasattr(value, "to_json"):
            out[key] = value.to_json()
        elif isinstance(value, tuple):
            out[key] = list(value)
    return out
