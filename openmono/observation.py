"""What an agent sees at a decision: a sealed value built from the public game.

An `Observation` is a NamedTuple, and everything reachable from it is immutable data
(tuples, frozensets, read-only mappings, strings and numbers, NamedTuples): it holds no
engine object, no callable, no hook, no RNG and no hidden rule (dice, deck contents and
order), so an agent can neither read what a player at the table could not, nor change
the game by writing into what it was handed. The public rules are built by allow-list
(`PUBLIC_RULES_FIELDS`): a new attribute of the compiled rules stays hidden until it is
listed there. `tests/test_sealed_observation.py` walks every observation of many games
and fails on anything else.

Legality: `legal_actions()` and `why_illegal()` answer from the public rules and the
public state, with the same `openmono.legal` code the engine uses. What a plugin adds to
legality (a building condition, a new action kind) is answered engine-side for each
decision and carried as data (`refused`, `plugin_actions`), never as the plugin's code;
a refusal names no hidden parameter.

Examples:
    >>> import openmono
    >>> from openmono.engine import Game
    >>> game = Game(openmono.standard_schema(), players=4, seed=1)
    >>> seat, decision = next(game.run())
    >>> obs = game.observe(seat, decision)
    >>> obs.phase, obs.cash
    ('pre_roll', (1500, 1500, 1500, 1500))
    >>> [a.kind for a in obs.legal_actions()]
    ['conclude']
    >>> obs.rules.bank.jail_fine = 1  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    AttributeError: can't set attribute
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any, NamedTuple

from openmono import legal
from openmono.compiled import Rules
from openmono.events import event_to_json
from openmono.schema import BankRules

def freeze(value: Any) -> Any:
    """An immutable copy of plain data; fails on anything that is not plain data."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, (dict, MappingProxyType)):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze(v) for v in value)
    raise TypeError(f"not plain data, cannot be shown to agents: {type(value).__name__}")


# The bank rules as agents see them: a NamedTuple with the fields of `BankRules`.
PublicBank = NamedTuple("PublicBank", [(name, Any) for name in BankRules.model_fields])
PublicBank.__doc__ = ("The bank rules (`openmono.schema.BankRules`), one field each, as "
                      "agents see them.")


class PublicRules(NamedTuple):
    """The rules an agent may see: allow-listed, immutable, shared by every seat.

    Every field but the last two is copied from the compiled `Rules` attribute of the
    same name (`PUBLIC_RULES_FIELDS`); anything not listed here - dice, decks, hooks,
    the schema, engine shortcuts - stays engine-side.
    """

    n: int
    names: tuple[str, ...]
    kind_names: tuple[str, ...]
    kind: tuple[int, ...]
    is_property: tuple[bool, ...]
    is_street: tuple[bool, ...]
    properties: tuple[int, ...]
    streets: tuple[int, ...]
    price: tuple[int, ...]
    rent: tuple[tuple[int, ...], ...]
    house_cost: tuple[int, ...]
    mortgage: tuple[int, ...]
    unmortgage_cost: tuple[int, ...]
    transfer_fee: tuple[int, ...]
    building_refund: tuple[int, ...]
    property_refund: tuple[int, ...] | None
    tax: tuple[int, ...]
    group_names: tuple[str, ...]
    group_of: tuple[int, ...]
    group_members: tuple[tuple[int, ...], ...]
    group_need: tuple[int, ...]
    group_buildable: tuple[bool, ...]
    max_level: int
    hotel_level: int
    max_houses: int
    jail: int
    go: int
    deck_names: tuple[str, ...]
    deck_of: tuple[int, ...]
    nearest: Any  # read-only mapping: square kind -> per-square nearest square ahead
    bank: PublicBank
    public_json: str  # the public part of the schema, as JSON text

    # Engine-side legality is not part of the public rules (see the module docstring).
    building_allowed = None
    plugin_checks = False

    @property
    def public_schema(self) -> dict[str, Any]:
        """The public part of the schema as plain JSON data (a fresh copy each time)."""
        return json.loads(self.public_json)


# The compiled-rules attributes an agent may see: all fields but `bank` and `public_json`.
PUBLIC_RULES_FIELDS = PublicRules._fields[:-2]


def make_public_rules(rules: Rules) -> PublicRules:
    """Build the public rules from compiled rules, by allow-list only."""
    values = [freeze(getattr(rules, name)) for name in PUBLIC_RULES_FIELDS]
    bank = PublicBank(*(freeze(getattr(rules.schema.bank, f)) for f in PublicBank._fields))
    public_json = json.dumps(rules.schema.public_dict(), sort_keys=True)
    return PublicRules(*values, bank, public_json)


_PUBLIC: dict[int, tuple[Rules, PublicRules]] = {}


def public_rules(rules: Rules) -> PublicRules:
    """`make_public_rules` with an identity cache (the same compiled rules, one value)."""
    hit = _PUBLIC.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    pub = make_public_rules(rules)
    if len(_PUBLIC) > 64:
        _PUBLIC.clear()
    _PUBLIC[id(rules)] = (rules, pub)
    return pub


class Observation(NamedTuple):
    """Everything an agent is shown at one decision: a sealed value (immutable plain
    data all the way down). Fields: the public rules, who decides and in which phase,
    the per-player and per-square state as tuples indexed by seat and square, the events
    since the seat's last decision, and the decision's context (square, high bid,
    amount owed, offer, ...). `legal_actions()` lists what the seat may do.
    """
    rules: PublicRules
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
    bank_cash: int | None  # the bank's cash; None: it never runs short (`BankRules.bank_cash`)
    events: tuple  # events since this seat's previous decision
    square: int = -1  # buy / bid: the property concerned
    high_bid: int = 0  # bid: the highest bid so far
    high_bidder: int = -1
    owed: int = 0  # debt: the amount to be paid
    creditor: int = -1  # debt: who is owed (-1 = bank)
    offer: Any = None  # trade_response: the offer's terms (`openmono.actions.TradeTerms`)
    offerer: int = -1
    offers_made: int = 0  # trade offers this seat made in this phase
    refused: frozenset = frozenset()  # streets where a plugin's rule forbids building now
    plugin_actions: tuple = ()  # parameter-free plugin actions legal now

    def legal_actions(self) -> list:
        """Every legal parameter-free action (plus the minimum bid in an auction)."""
        out = legal.legal_actions(self.rules, self, self.seat, self)
        if self.refused:
            out = [a for a in out if not (a.kind == "build" and a.square in self.refused)]
        if self.plugin_actions:
            out.extend(legal.fresh(a) for a in self.plugin_actions)
        return out

    def is_legal(self, action: Any) -> bool:
        """Whether `action` is legal now (`why_illegal` says why not)."""
        return self.why_illegal(action) is None

    def why_illegal(self, action: Any) -> str | None:
        """Why the engine would refuse `action` now (None: it would accept it)."""
        kind = getattr(action, "kind", None)
        if kind in legal.A.PLUGIN_ACTIONS:
            if action in self.plugin_actions:
                return None
            return f"{kind} is not legal now"
        if kind == "build" and action.square in self.refused:
            why = legal.check(self.rules, self, self.seat, self, action)
            return why if why is not None else legal.PLUGIN_REFUSAL
        return legal.check(self.rules, self, self.seat, self, action)

    @property
    def can_offer_trade(self) -> bool:
        """Whether the seat may offer a trade in this phase."""
        return legal.can_offer_trade(self.rules, self, self.seat, self)

    @property
    def my_cash(self) -> int:
        """The deciding seat's cash."""
        return self.cash[self.seat]

    def to_json(self, with_rules: bool = True) -> dict[str, Any]:
        """Plain JSON data (what an agent in another process would receive; the remote
        protocol sends `rules` and `deck_names` apart, only when they change)."""
        out = self._asdict()
        if with_rules:
            out["rules"] = self.rules.public_schema
            out["deck_names"] = list(self.rules.deck_names)  # the deck order (public too)
        else:
            del out["rules"]
        out["events"] = [event_to_json(e) for e in self.events]
        out["offer"] = None if self.offer is None else self.offer.to_json()
        out["refused"] = sorted(self.refused)
        out["plugin_actions"] = [a.to_json() for a in self.plugin_actions]
        out["legal_actions"] = [a.to_json() for a in self.legal_actions()]
        for k, v in out.items():
            if isinstance(v, tuple):
                out[k] = list(v)
        return out


# The Observation's fields in the groups `openmono.observe` builds them from, by name:
# who and when, the per-player lists (`GameState.players_view`), the board and bank
# (`GameState`), the events, and the decision's context (`Decision.context`).
HEAD_FIELDS = ("rules", "seat", "phase", "turn", "current")
PLAYER_FIELDS = ("cash", "position", "in_jail", "jail_turns", "jail_cards", "active")
BOARD_FIELDS = ("owner", "level", "mortgaged", "houses_left", "hotels_left", "bank_cash")
CONTEXT_FIELDS = ("square", "high_bid", "high_bidder", "owed", "creditor", "offer", "offerer",
                  "offers_made", "refused", "plugin_actions")
if Observation._fields != HEAD_FIELDS + PLAYER_FIELDS + BOARD_FIELDS + ("events",) + CONTEXT_FIELDS:
    raise ImportError("the Observation's fields and their groups disagree")  # pragma: no cover
