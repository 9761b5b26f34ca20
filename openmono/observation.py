"""What an agent sees at a decision: a read-only view of the public game.

An `Observation` is a NamedTuple: immutable, cheap to build (the per-square tuples are
shared with the state, never copied), and it serialises to JSON. It holds no RNG, no
hidden rule (dice, deck contents and order) and nothing that leads back into the engine.
`legal_actions()` is computed lazily from the observation itself, with the same
`openmono.legal` code the engine uses to accept or refuse an action.
"""

from __future__ import annotations

import json

from types import MappingProxyType
from typing import Any, NamedTuple

from openmono import legal
from openmono.compiled import Rules
from openmono.events import event_to_json

_HIDDEN_RULE_ATTRS = ("dice", "fair_dice", "decks", "schema")


class _LegalityHooks:
    __slots__ = ("building_allowed",)

    def __init__(self, building_allowed: Any) -> None:
        self.building_allowed = building_allowed


class PublicRules:
    """The compiled rules an agent may see: everything but dice and deck contents."""

    def __init__(self, rules: Rules) -> None:
        d = {k: v for k, v in vars(rules).items() if k not in _HIDDEN_RULE_ATTRS}
        # Legality needs the extra building condition a plugin may install, but nothing
        # else of the hooks: agents must not find a novelty's parameters in them.
        d["hooks"] = _LegalityHooks(rules.hooks.building_allowed)
        # Kept as JSON text so no agent can change what the others are shown.
        d["_public_json"] = json.dumps(rules.schema.public_dict(), sort_keys=True)
        d["deck_sizes"] = None  # deck composition is hidden
        d["nearest"] = MappingProxyType(dict(rules.nearest))  # the engine's dict: no writes
        object.__setattr__(self, "__dict__", d)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the rules an agent sees are read-only")

    @property
    def public_schema(self) -> dict[str, Any]:
        """The public part of the schema as plain JSON data (a fresh copy each time)."""
        return json.loads(self._public_json)


_PUBLIC: dict[int, tuple[Rules, PublicRules]] = {}


def public_rules(rules: Rules) -> PublicRules:
    hit = _PUBLIC.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    pub = PublicRules(rules)
    if len(_PUBLIC) > 64:
        _PUBLIC.clear()
    _PUBLIC[id(rules)] = (rules, pub)
    return pub


class Observation(NamedTuple):
    rules: Any  # PublicRules
    seat: int  # who decides
    phase: str  # pre_roll, out_of_turn, post_roll, buy, bid, trade_response, debt
    turn: int
    current: int  # whose turn it is
    cash: tuple[int, ...]
    position: tuple[int, ...]
    in_jail: tuple[bool, ...]
    jail_turns: tuple[int, ...]
    jail_cards: tuple[int, ...]  # count per seat
    active: tuple[bool, ...]
    owner: tuple[int, ...]  # per square; -1 = bank / not ownable
    level: tuple[int, ...]  # buildings per square; max_houses + 1 = hotel
    mortgaged: tuple[bool, ...]
    houses_left: int
    hotels_left: int
    events: tuple  # events since this seat's previous decision
    square: int = -1  # buy / bid: the property concerned
    high_bid: int = 0  # bid: the highest bid so far
    high_bidder: int = -1
    owed: int = 0  # debt: the amount to be paid
    creditor: int = -1  # debt: who is owed (-1 = bank)
    offer: Any = None  # trade_response: the OfferTrade
    offerer: int = -1
    offers_made: int = 0  # trade offers this seat made in this phase

    def legal_actions(self) -> list:
        return legal.legal_actions(self.rules, self, self.seat, self)

    def is_legal(self, action: Any) -> bool:
        return legal.check(self.rules, self, self.seat, self, action) is None

    def why_illegal(self, action: Any) -> str | None:
        return legal.check(self.rules, self, self.seat, self, action)

    @property
    def can_offer_trade(self) -> bool:
        return legal.can_offer_trade(self.rules, self, self.seat, self)

    @property
    def my_cash(self) -> int:
        return self.cash[self.seat]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (what an agent in another process would receive)."""
        out = self._asdict()
        out["rules"] = self.rules.public_schema
        out["events"] = [event_to_json(e) for e in self.events]
        out["offer"] = None if self.offer is None else self.offer.to_json()
        out["legal_actions"] = [a.to_json() for a in self.legal_actions()]
        for k, v in out.items():
            if isinstance(v, tuple):
                out[k] = list(v)
        return out
