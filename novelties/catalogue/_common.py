"""Small helpers shared by the built-in plugins (and usable by third-party ones).

Most attribute novelties are "set a bank field" or "scale a field on some squares";
`BankValue` and `ScaleSquares` make each of those a few lines.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, ClassVar, Iterable, Literal, Union

from pydantic import Field

from openmono.events import BANK
from openmono.observation import PublicRules, freeze
from openmono.schema import GameSchema, Square

from novelties.base import Applied, HookChange, Novelty, NoveltyParams, replace

Groups = Union[Literal["all"], list[str]]
Dice = Union[Literal["all"], list[int]]


def select_groups(schema: GameSchema, groups: Groups, streets_only: bool = False) -> list[str]:
    """Group names from "all" or a list; unknown names fail with the valid ones."""
    names = [g.name for g in schema.groups]
    if streets_only:
        names = [g for g in names
                 if any(s.group == g for s in schema.squares)
                 and all(s.kind == "street" for s in schema.squares if s.group == g)]
    if groups == "all":
        return names
    unknown = [g for g in groups if g not in names]
    if unknown:
        raise ValueError(f"unknown group(s) {', '.join(map(repr, unknown))}; "
                         f"groups: {', '.join(names)}")
    return list(groups)


def street_names(schema: GameSchema, groups: Iterable[str]) -> frozenset[str]:
    """The names of the streets in `groups` (names survive a board reordered later)."""
    chosen = set(groups)
    return frozenset(s.name for s in schema.squares if s.kind == "street" and s.group in chosen)


def levy(game: Any, owed: dict[int, int], reason: str) -> Any:
    """Charge each seat what it owes to the bank (a turn's rule charges, in seat order)."""
    for seat in sorted(owed):
        if owed[seat] and game.state.active[seat]:
            yield from game.charge(seat, BANK, owed[seat], reason)


def hotels_held(game: Any, seat: int) -> int:
    """How many hotels `seat` holds (0 under rules without hotels)."""
    rules, st = game.rules, game.state
    top = rules.hotel_level
    if top <= 0:
        return 0
    return sum(1 for sq in rules.streets if st.owner[sq] == seat and st.level[sq] >= top)


def select_dice(schema: GameSchema, dice: Dice) -> list[int]:
    """Die indices from "all" or a list; a die the schema lacks fails with how many it has."""
    if dice == "all":
        return list(range(len(schema.dice)))
    bad = [d for d in dice if not 0 <= d < len(schema.dice)]
    if bad:
        raise ValueError(f"no die {bad[0]}; the schema has {len(schema.dice)} dice")
    return list(dice)


def scale(value: int, factor: float) -> int:
    """A money amount times `factor`, rounded and never negative, so a scaled rent or price
    is still a valid amount."""
    return max(0, int(round(value * factor)))


def set_bank(schema: GameSchema, **fields: Any) -> GameSchema:
    """The schema with some bank fields changed: the one-line shape of a bank-rule novelty."""
    return replace(schema, bank=replace(schema.bank, **fields))


def map_squares(schema: GameSchema, fn: Callable[[int, Square], Square]) -> GameSchema:
    """The schema with `fn(index, square)` applied to every square: a per-square edit in one
    line."""
    return replace(schema, squares=tuple(fn(i, s) for i, s in enumerate(schema.squares)))


def with_square_params(schema: GameSchema, name: str, **params: Any) -> GameSchema:
    """Write a rule's parameters into a square's public `params` (announcing the rule)."""
    i = schema.index_of(name)
    sq = schema.squares[i]
    new = replace(sq, params={**sq.params, **params})
    return replace(schema, squares=schema.squares[:i] + (new,) + schema.squares[i + 1:])


def first_of_kind(schema: GameSchema, kind: str) -> Square:
    """The first square of a kind (the jail, a tax square): where a rule naming "the" square
    of that kind applies."""
    for s in schema.squares:
        if s.kind == kind:
            return s
    raise ValueError(f"the board has no {kind} square")


def swap_money_in_text(text: str, old: int, new: int) -> str:
    """Replace "$old" by "$new" in a card text (whole numbers only)."""
    return re.sub(rf"\${old}(?!\d)", f"${new}", text)


# --- for observation transforms -----------------------------------------------------------
def derive_public(pub: PublicRules, **changes: Any) -> PublicRules:
    """The agent-visible rules with some fields changed (`public_schema` is given as
    plain JSON data); still a sealed value."""
    schema = changes.pop("public_schema", None)
    if schema is not None:
        changes["public_json"] = json.dumps(schema, sort_keys=True)
    return pub._replace(**{k: freeze(v) for k, v in changes.items()})


def pick(rng: random.Random, items: Iterable[Any], k: int) -> list[Any]:
    """Up to `k` of `items` drawn with `rng`: a seeded choice of squares or cards to change."""
    items = list(items)
    return rng.sample(items, min(k, len(items)))


# --- generic plugin shapes ----------------------------------------------------------------
class BankValue(Novelty):
    """Set one bank field to `value` (subclasses give `field` and a typed Params)."""

    category = "attribute"
    field: ClassVar[str] = ""

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The bank with the new value; the value it already has is refused (a novelty must
        change something)."""
        if getattr(schema.bank, self.field) == params.value:
            raise ValueError(f"{self.field} is already {params.value}: nothing would change")
        return set_bank(schema, **{self.field: params.value})


class ScaleParams(NoveltyParams):
    """The parameters of a `ScaleSquares` novelty: the factor, the groups it touches, and
    whether the board prints the new numbers."""

    factor: float = Field(gt=0, le=20)
    groups: Groups = "all"
    printed: bool = True


class ScaleSquares(Novelty):
    """Multiply a numeric square field (or rent table) on the squares of some groups.

    With `printed=False` (hook-capable fields only: rent and tax) the board keeps the
    old numbers and a rule hook charges the new ones: a hidden change.
    """

    category = "attribute"
    Params = ScaleParams
    field: ClassVar[str] = ""
    kinds: ClassVar[tuple[str, ...]] = ("street", "railroad", "utility")
    hook: ClassVar[str | None] = None  # "rent" or "tax": what a hidden change hooks

    def targets(self, schema: GameSchema, params: Any) -> list[Square]:
        """The squares the change applies to: those of the chosen groups and the plugin's
        square kinds."""
        if not hasattr(params, "groups"):
            return [s for s in schema.squares if s.kind in self.kinds]
        groups = set(select_groups(schema, params.groups))
        return [s for s in schema.squares if s.kind in self.kinds and s.group in groups]

    def apply(self, schema: GameSchema, params: Any) -> Applied | GameSchema:
        """The board with the scaled numbers printed, or with `printed=False` the old board
        and a hook charging the new ones (declared, as the board no longer tells)."""
        targets = {s.name for s in self.targets(schema, params)}
        if not targets:
            raise ValueError("no square matches the chosen groups")
        f = params.factor

        def scaled(sq: Square) -> Square:
            value = getattr(sq, self.field)
            if isinstance(value, tuple):
                return replace(sq, **{self.field: tuple(scale(v, f) for v in value)})
            return replace(sq, **{self.field: scale(value, f)})

        if params.printed or self.hook is None:
            return map_squares(schema, lambda i, s: scaled(s) if s.name in targets else s)
        declared = tuple(
            HookChange(f"square:{s.name}", f"{self.field} (charged)",
                       f"charged x{f} while the board shows the old value", False,
                       _json(getattr(s, self.field)), _json(getattr(scaled(s), self.field)))
            for s in schema.squares if s.name in targets)
        names = frozenset(targets)

        def hook(game: Any, seat: int, sq: int, amount: int) -> int:
            return int(amount * f) if game.rules.names[sq] in names else amount

        from openmono.hooks import Hooks

        return Applied(schema, Hooks(**{self.hook: hook}), declared)  # board unchanged


def _json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
