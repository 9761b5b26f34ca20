"""A schema flattened into tuples and ints, built once per schema.

The engine and the legality checks read only this, never the pydantic models, so the
hot loop touches plain Python data. `Rules` is immutable by convention (tuples only)
and is shared between the engine and every observation.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from itertools import accumulate

from openmono.hooks import NO_HOOKS, Hooks
from openmono.schema import PROPERTY_KINDS, GameSchema

# Square kind codes for the core kinds; plugin kinds get codes from PLUGIN upward.
GO, STREET, RAILROAD, UTILITY, TAX, CARD, JAIL, GO_TO_JAIL, FREE_PARKING = range(9)
PLUGIN = 100
_CORE_CODES = {
    "go": GO,
    "street": STREET,
    "railroad": RAILROAD,
    "utility": UTILITY,
    "tax": TAX,
    "card": CARD,
    "jail": JAIL,
    "go_to_jail": GO_TO_JAIL,
    "free_parking": FREE_PARKING,
}


class CompiledCard:
    """A card with its target resolved to a square index."""

    __slots__ = ("index", "text", "kind", "square", "target_kind", "amount", "per_house",
                 "per_hotel", "collect_go", "rent_multiplier", "dice_multiplier", "params")

    def __init__(self, index: int, card, square: int) -> None:
        self.index = index
        self.text = card.text
        self.kind = card.kind
        self.square = square
        self.target_kind = card.target_kind
        self.amount = card.amount
        self.per_house = card.per_house
        self.per_hotel = card.per_hotel
        self.collect_go = card.collect_go
        self.rent_multiplier = card.rent_multiplier
        self.dice_multiplier = card.dice_multiplier
        self.params = dict(card.params)


class Rules:
    """Everything the engine needs from a schema, as flat tuples.

    Engine-side only: it holds the hidden parts (dice, decks) and the plugins' hooks.
    Agents get `openmono.observation.PublicRules`, built from it by allow-list.
    """

    plugin_checks = True  # legality may run plugin code (see `openmono.legal`)

    def __init__(self, schema: GameSchema, hooks: Hooks = NO_HOOKS) -> None:
        self.schema = schema
        self.hooks = hooks
        self.building_allowed = hooks.building_allowed
        sq = schema.squares
        n = len(sq)
        self.n = n
        self.names = tuple(s.name for s in sq)
        self.kind_names = tuple(s.kind for s in sq)
        plugin_codes: dict[str, int] = {}
        codes = []
        for s in sq:
            code = _CORE_CODES.get(s.kind)
            if code is None:
                code = plugin_codes.setdefault(s.kind, PLUGIN + len(plugin_codes))
            codes.append(code)
        self.kind = tuple(codes)
        self.is_property = tuple(s.kind in PROPERTY_KINDS for s in sq)
        self.is_street = tuple(s.kind == "street" for s in sq)
        self.properties = tuple(i for i in range(n) if self.is_property[i])
        self.streets = tuple(i for i in range(n) if self.is_street[i])
        self.price = tuple(s.price for s in sq)
        self.rent = tuple(tuple(s.rent) for s in sq)
        self.house_cost = tuple(s.house_cost for s in sq)
        self.mortgage = tuple(s.mortgage_value if s.kind in PROPERTY_KINDS else 0 for s in sq)
        b = schema.bank
        self.bank = BankTable(b)
        # Unmortgage costs principal plus interest, rounded up to a whole dollar.
        self.unmortgage_cost = tuple(
            m + math.ceil(round(m * b.mortgage_interest, 6)) for m in self.mortgage
        )
        self.transfer_fee = tuple(math.ceil(round(m * b.mortgage_interest, 6)) for m in self.mortgage)
        self.building_refund = tuple(int(c * b.building_sellback) for c in self.house_cost)
        self.property_refund = (
            None
            if b.property_sellback is None
            else tuple(int(p * b.property_sellback) for p in self.price)
        )
        self.tax = tuple(s.tax for s in sq)
        # Squares where ending a move does nothing unless a property is owned by someone
        # else (go, jail, free parking, properties): the engine skips the landing code
        # there. A landing hook makes every square eventful.
        self.quiet = tuple(
            hooks.landing is None and c in (GO, JAIL, FREE_PARKING, STREET, RAILROAD, UTILITY)
            for c in codes)

        group_names = [g.name for g in schema.groups]
        self.group_names = tuple(group_names)
        gidx = {g: i for i, g in enumerate(group_names)}
        self.group_of = tuple(gidx[s.group] if s.group is not None else -1 for s in sq)
        members = [[] for _ in group_names]
        for i, s in enumerate(sq):
            if s.group is not None:
                members[gidx[s.group]].append(i)
        self.group_members = tuple(tuple(m) for m in members)
        self.group_need = tuple(
            g.monopoly_size if g.monopoly_size is not None else len(members[i])
            for i, g in enumerate(schema.groups)
        )
        # A group is buildable when it holds streets only.
        self.group_buildable = tuple(
            bool(m) and all(self.is_street[i] for i in m) for m in members
        )

        self.max_level = b.max_houses + (1 if b.hotels else 0)
        self.hotel_level = b.max_houses + 1 if b.hotels else -1
        self.max_houses = b.max_houses

        jails = [i for i in range(n) if sq[i].kind == "jail"]
        self.jail = jails[0]
        gos = [i for i in range(n) if sq[i].kind == "go"]
        self.go = gos[0] if gos else 0

        # Dice: (faces, cumulative weights or None) per die.
        self.dice = tuple(
            (tuple(d.faces), None if d.weights is None else tuple(accumulate(d.weights)))
            for d in schema.dice
        )
        self.fair_dice = all(w is None for _, w in self.dice)
        if self.fair_dice and len(self.dice) == 2:
            self.roll = _fair_pair(self.dice[0][0], self.dice[1][0])  # type: ignore[method-assign]

        # Decks, with card targets resolved to indices.
        self.deck_names = tuple(d.name for d in schema.decks)
        deck_index = {d: i for i, d in enumerate(self.deck_names)}
        name_index = {s.name: i for i, s in enumerate(sq)}
        self.decks = tuple(
            tuple(
                CompiledCard(j, c, name_index[c.square] if c.square else -1)
                for j, c in enumerate(_expand(d.cards))
            )
            for d in schema.decks
        )
        self.deck_of = tuple(deck_index[s.deck] if s.kind == "card" else -1 for s in sq)

        # nearest[kind][i]: the first square of that kind strictly ahead of i; with
        # `BankRules.nearest_card` = "closest" (GNOME's `_calculate_board_distance`), the
        # one of least |index difference|, ties to the lower index.
        self.nearest: dict[str, tuple[int, ...]] = {}
        closest = b.nearest_card == "closest"
        for kind_name in set(self.kind_names):
            spots = [i for i in range(n) if self.kind_names[i] == kind_name]
            self.nearest[kind_name] = tuple(
                min(spots, key=(lambda j, i=i: (abs(j - i), j)) if closest
                    else (lambda j, i=i: (j - i - 1) % n)) for i in range(n)
            )

    def roll(self, rng: random.Random) -> tuple[int, ...]:
        """Roll every die with a `random.Random` stream."""
        out = []
        r = rng.random
        for faces, cum in self.dice:
            if cum is None:
                out.append(faces[int(r() * len(faces))])
            else:
                out.append(faces[min(bisect_right(cum, r() * cum[-1]), len(faces) - 1)])
        return tuple(out)


class BankTable:
    """The bank rules (`schema.bank`) as plain attributes: the engine and the agents
    read them at every turn, and a pydantic model's attribute read costs about twice a
    plain object's."""

    def __init__(self, bank) -> None:
        for name, value in bank:
            setattr(self, name, value)

    def __repr__(self) -> str:
        return f"BankTable({vars(self)})"


def _fair_pair(f0: tuple[int, ...], f1: tuple[int, ...]):
    """The common case, two fair dice, without the general loop (same random draws)."""
    n0, n1 = len(f0), len(f1)

    def roll(rng: random.Random) -> tuple[int, ...]:
        r = rng.random
        return (f0[int(r() * n0)], f1[int(r() * n1)])

    return roll


def _expand(cards):
    """Unfold `count` so a deck is a plain list of physical cards."""
    out = []
    for c in cards:
        out.extend([c] * c.count)
    return out


_CACHE: dict[tuple[int, int], tuple[GameSchema, Hooks, Rules]] = {}


def compile_rules(schema: GameSchema, hooks: Hooks = NO_HOOKS) -> Rules:
    """Compile (with a small identity cache: the same schema and hooks compile once)."""
    key = (id(schema), id(hooks))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is schema and hit[1] is hooks:
        return hit[2]
    rules = Rules(schema, hooks)
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[key] = (schema, hooks, rules)
    return rules
