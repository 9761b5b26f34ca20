"""Actions: small frozen dataclasses with a stable `kind`.

An agent answers every decision with one of these. The engine checks it against the
rules (`openmono.legal.check`) and never executes an illegal one. Plugins add action
kinds with `register_action_kind`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable, ClassVar, NamedTuple


_FIELDS: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return names


@dataclass(frozen=True, slots=True)
class Action:
    """Base of every action: a frozen value with a stable `kind` (its name in logs and
    in the remote protocol). Agents return one of `Observation.legal_actions()`.
    """
    kind: ClassVar[str] = "action"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON: its `kind` and its fields."""
        # (Not `asdict`: it deep-copies, and remote agents get every legal action as JSON.)
        out: dict[str, Any] = {"kind": self.kind}
        for name in _field_names(type(self)):
            out[name] = getattr(self, name)
        return out


@dataclass(frozen=True, slots=True)
class Conclude(Action):
    """End this decision phase (pre-roll, out-of-turn, post-roll; in debt: give up).

    With `until_cash` it is also a standing order for this phase (pre-roll,
    out-of-turn or post-roll): "conclude for me, without asking, while my cash stays
    below `until_cash` and nothing I watch changes". `watch="mine"` (the default)
    watches my own properties (owner, buildings, mortgage), `watch="board"` every
    property, `watch="cash"` nothing but the cash limit; rule changes end every order,
    a pre-roll in jail is always asked, and so, under rules with out-of-turn calls
    (`out_of_turn_calls`, GNOME's), are the calls of the player whose turn it is
    (which ends its out-of-turn order).
    `NO_CASH_LIMIT` means "whatever my cash". Most management answers are "nothing to
    do until I can afford something", and the engine then skips those decisions (their
    events reach the agent with its next observation). Only declare what `act` would
    really answer: the games must be the same with and without the order.
    """

    until_cash: int | None = None
    watch: str = "mine"
    kind: ClassVar[str] = "conclude"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON; a standing order adds `until_cash` and `watch`."""
        if self.until_cash is None:
            return {"kind": self.kind}
        return {"kind": self.kind, "until_cash": self.until_cash, "watch": self.watch}


NO_CASH_LIMIT = 1 << 62  # an `until_cash` no player reaches
STANDING_WATCH = ("mine", "board", "cash")


@dataclass(frozen=True, slots=True)
class Buy(Action):
    """Buy the property landed on at its price."""
    kind: ClassVar[str] = "buy"


@dataclass(frozen=True, slots=True)
class Decline(Action):
    """Do not buy the property landed on (it goes to auction if the rules say so)."""

    kind: ClassVar[str] = "decline"


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """Bid `amount` in the auction in progress."""
    amount: int
    kind: ClassVar[str] = "bid"


@dataclass(frozen=True, slots=True)
class DropOut(Action):
    """Leave the auction for good."""

    kind: ClassVar[str] = "drop_out"


@dataclass(frozen=True, slots=True)
class PayJailFine(Action):
    """Pay the fine to leave jail before rolling."""
    kind: ClassVar[str] = "pay_jail_fine"


@dataclass(frozen=True, slots=True)
class UseJailCard(Action):
    """Use a get-out-of-jail card."""
    kind: ClassVar[str] = "use_jail_card"


@dataclass(frozen=True, slots=True)
class Build(Action):
    """Add one building level (a house, or the hotel) to a street."""

    square: int
    kind: ClassVar[str] = "build"


@dataclass(frozen=True, slots=True)
class SellBuilding(Action):
    """Sell one building level back to the bank."""

    square: int
    kind: ClassVar[str] = "sell_building"


@dataclass(frozen=True, slots=True)
class Mortgage(Action):
    """Mortgage `square` (the bank pays its mortgage value)."""
    square: int
    kind: ClassVar[str] = "mortgage"


@dataclass(frozen=True, slots=True)
class Unmortgage(Action):
    """Lift the mortgage on `square` (its mortgage value plus interest)."""
    square: int
    kind: ClassVar[str] = "unmortgage"


@dataclass(frozen=True, slots=True)
class SellProperty(Action):
    """Sell an unimproved property to the bank (only when the rules allow it)."""

    square: int
    kind: ClassVar[str] = "sell_property"


@dataclass(frozen=True, slots=True)
class OfferTrade(Action):
    """Offer `to` a trade; they answer at once with AcceptTrade or RejectTrade."""

    to: int
    give: tuple[int, ...] = ()
    get: tuple[int, ...] = ()
    give_cash: int = 0
    get_cash: int = 0
    give_jail_cards: int = 0
    get_jail_cards: int = 0
    kind: ClassVar[str] = "offer_trade"

    def terms(self) -> TradeTerms:
        """The offer as the immutable `TradeTerms` the engine executes and agents see."""
        return TradeTerms(self.to, tuple(self.give), tuple(self.get), self.give_cash,
                          self.get_cash, self.give_jail_cards, self.get_jail_cards)


class TradeTerms(NamedTuple):
    """An offer's terms as an immutable value: what the receiver and the events show.

    The engine executes these terms, never the agent's own `OfferTrade` object, so
    nobody can change a trade by writing into an action after handing it over.
    """

    to: int
    give: tuple[int, ...] = ()
    get: tuple[int, ...] = ()
    give_cash: int = 0
    get_cash: int = 0
    give_jail_cards: int = 0
    get_jail_cards: int = 0
    kind = "offer_trade"

    def to_json(self) -> dict[str, Any]:
        """The terms as JSON (kind `trade`)."""
        return {"kind": self.kind, **self._asdict()}

    def as_offer(self) -> OfferTrade:
        """The `OfferTrade` action with these terms."""
        return OfferTrade(*self)


@dataclass(frozen=True, slots=True)
class AcceptTrade(Action):
    """Accept the trade offered to you."""
    kind: ClassVar[str] = "accept_trade"


@dataclass(frozen=True, slots=True)
class RejectTrade(Action):
    """Reject the trade offered to you."""
    kind: ClassVar[str] = "reject_trade"


CONCLUDE = Conclude()
BUY = Buy()
DECLINE = Decline()
DROP_OUT = DropOut()
PAY_JAIL_FINE = PayJailFine()
USE_JAIL_CARD = UseJailCard()
ACCEPT = AcceptTrade()
REJECT = RejectTrade()

class PerSquare(dict):
    """`BUILD[sq] == Build(sq)`, built once per square: agents answer with these
    thousands of times a game, and building a frozen dataclass costs more than a lookup."""

    def __init__(self, cls: type[Action]) -> None:
        super().__init__()
        self.cls = cls

    def __missing__(self, square: int) -> Action:
        action = self[square] = self.cls(square)  # type: ignore[call-arg]
        return action


BUILD = PerSquare(Build)
SELL_BUILDING = PerSquare(SellBuilding)
MORTGAGE = PerSquare(Mortgage)
UNMORTGAGE = PerSquare(Unmortgage)
SELL_PROPERTY = PerSquare(SellProperty)

ACTION_KINDS: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (Conclude, Buy, Decline, Bid, DropOut, PayJailFine, UseJailCard, Build,
                SellBuilding, Mortgage, Unmortgage, SellProperty, OfferTrade, AcceptTrade,
                RejectTrade)
}
CORE_ACTION_KINDS = frozenset(ACTION_KINDS)

# Plugin actions: kind -> (phases, check(rules, view, seat, action) -> reason|None,
#                           apply(game, seat, action) -> None or generator), where
# `check` runs engine-side with the compiled rules and the state, and `game` is an
# `openmono.game_api.GameAPI`. Agents learn the outcome from `Observation.plugin_actions`.
PLUGIN_ACTIONS: dict[str, tuple[frozenset[str], Callable[..., Any], Callable[..., Any]]] = {}


def register_action_kind(
    cls: type[Action],
    phases: tuple[str, ...],
    check: Callable[..., str | None],
    apply: Callable[..., Any],
) -> None:
    """Add an action kind usable in `phases`, with its legality check and its effect."""
    if cls.kind in CORE_ACTION_KINDS:
        raise ValueError(f"{cls.kind!r} is a core action kind and cannot be replaced")
    ACTION_KINDS[cls.kind] = cls
    PLUGIN_ACTIONS[cls.kind] = (frozenset(phases), check, apply)


def action_from_json(data: dict[str, Any]) -> Action:
    """Rebuild an action from `Action.to_json()` output (used by logs and replays)."""
    data = dict(data)
    kind = data.pop("kind", None)
    cls = ACTION_KINDS.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(
            f"unknown action kind {kind!r}; known kinds: {', '.join(sorted(ACTION_KINDS))}"
        )
    names = {f.name for f in fields(cls)}
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in names}
    return cls(**kwargs)
