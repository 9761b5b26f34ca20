"""Representation novelties on the board: order, groups, set sizes, names and size.

All of them are public schema changes (agents see the new board), except that what an
agent has learnt about the old board no longer holds.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field, field_validator

from openmono.kinds import register_square_kind
from openmono.schema import GameSchema, Square

from novelties.base import Novelty, NoveltyParams, replace
from novelties.catalogue._common import Groups, select_groups

NEW_NAMES = (
    "Alder Row", "Birch Lane", "Cedar Court", "Dove Street", "Elm Terrace", "Fern Walk",
    "Granite Way", "Harbor Road", "Iris Close", "Juniper Drive", "Kestrel Avenue",
    "Linden Square", "Maple Crescent", "Nettle Lane", "Oak Parade", "Pine Hill",
    "Quarry Road", "Rowan Gardens", "Sable Street", "Thistle Row", "Upland Avenue",
    "Violet Mews", "Willow Bank", "Yarrow Place", "Zephyr Court", "North Line", "South Line",
    "East Line", "West Line", "Power Station", "Reservoir",
)
NEW_LABELS = (
    ("copper", "#b87333"), ("sky", "#87ceeb"), ("rose", "#ff66cc"), ("amber", "#ffbf00"),
    ("scarlet", "#ff2400"), ("lemon", "#fff44f"), ("emerald", "#50c878"), ("navy", "#000080"),
    ("lines", "#444444"), ("services", "#999999"), ("slate", "#708090"), ("plum", "#8e4585"),
)


def _reorder(schema: GameSchema, order: list[int]) -> GameSchema:
    """New board where position i holds the old square order[i]."""
    if order == list(range(len(order))):
        raise ValueError("the new order equals the old one")
    return replace(schema, squares=tuple(schema.squares[k] for k in order))


class _Shuffle(NoveltyParams):
    swaps: int | None = Field(ge=1)  # None: a full shuffle
    keep: list[str] = ["Go"]
    seed: int = 0


class BoardShuffle(Novelty):
    """Squares move to new positions: every distance an agent learnt (which squares a roll
    from jail reaches, where cards send it) is wrong, while prices and rents stay with
    the squares."""

    name = "board_shuffle"
    category = "representation"
    description = ("Squares change places (Go stays); easy swaps two pairs, hard shuffles the "
                   "whole board so no learnt position or distance holds.")
    Params = _Shuffle
    presets = {"easy": {"swaps": 2}, "medium": {"swaps": 8}, "hard": {"swaps": None}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board reordered by `seed` (a few swaps, or a full shuffle that moves every
        square not kept)."""
        names = [s.name for s in schema.squares]
        missing = [k for k in params.keep if k not in names]
        if missing:
            raise ValueError(f"cannot keep unknown square(s) {missing}")
        rng = random.Random(params.seed)
        movable = [i for i, s in enumerate(names) if s not in params.keep]
        order = list(range(len(names)))
        if params.swaps is None:
            perm = movable[:]
            while perm == movable:
                rng.shuffle(perm)
            for a, b in zip(movable, perm):
                order[a] = b
        else:
            for _ in range(params.swaps):
                a, b = rng.sample(movable, 2)
                order[a], order[b] = order[b], order[a]
        return _reorder(schema, order)


class _Within(NoveltyParams):
    groups: Groups = "all"
    seed: int = 0


class GroupShuffle(Novelty):
    """Members of a group trade places within the group's spots: the group's footprint
    stays, but which street lies where (and so which is landed on most) changes."""

    name = "group_shuffle"
    category = "representation"
    description = ("Members of a group swap positions among the group's squares; hard "
                   "does it for every group (railroads and utilities too).")
    Params = _Within
    presets = {"easy": {"groups": ["dark_blue"]},
               "medium": {"groups": ["light_blue", "orange", "red", "green"]},
               "hard": {"groups": "all"}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with each chosen group's members permuted among their own positions (a
        permutation that moves at least one)."""
        rng = random.Random(params.seed)
        order = list(range(len(schema.squares)))
        for g in select_groups(schema, params.groups):
            spots = schema.group_members(g)
            if len(spots) < 2:
                continue
            perm = spots[:]
            rng.shuffle(perm)
            if perm == spots:
                perm = perm[1:] + perm[:1]
            for a, b in zip(spots, perm):
                order[a] = b
        return _reorder(schema, order)


class _Reassign(NoveltyParams):
    swaps: int = Field(ge=1, le=20)
    seed: int = 0


class GroupReassign(Novelty):
    """Streets change colour groups, keeping their price and rent: the sets worth
    completing, and the trades that complete them, are no longer the printed ones."""

    name = "group_reassign"
    category = "representation"
    description = ("Pairs of streets swap colour groups (prices and rents stay with the "
                   "street); easy swaps six pairs (most sets are new), hard two pairs.")
    Params = _Reassign
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"swaps": 6}, "medium": {"swaps": 3}, "hard": {"swaps": 2}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with `swaps` random pairs of streets from different groups exchanging
        groups."""
        rng = random.Random(params.seed)
        groups = [s.group for s in schema.squares]
        streets = [i for i, s in enumerate(schema.squares) if s.kind == "street"]
        for _ in range(params.swaps):
            a = rng.choice(streets)
            others = [b for b in streets if groups[b] != groups[a]]
            if not others:
                raise ValueError("all streets are in one group")
            b = rng.choice(others)
            groups[a], groups[b] = groups[b], groups[a]
        return replace(schema, squares=tuple(
            replace(s, group=groups[i]) if groups[i] != s.group else s
            for i, s in enumerate(schema.squares)))


class _SetSize(NoveltyParams):
    groups: Groups = "all"
    change: int = Field(-1, ge=-5, le=5)


class MonopolySize(Novelty):
    """Fewer (or more) streets of a group make a set: building can start earlier (or later)
    than an agent waiting for the whole group expects, and single streets become
    set-makers worth bidding for."""

    name = "monopoly_size"
    category = "representation"
    description = ("How many streets of a group make a set changes by `change`; easy lets a "
                   "single street of the two-street groups (and two of three) be a set; hard "
                   "changes only orange and red.")
    Params = _SetSize
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"groups": "all"},
               "medium": {"groups": ["light_blue", "pink", "orange", "red", "yellow", "green"]},
               "hard": {"groups": ["orange", "red"]}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The groups with their set size moved by `change`, kept between one street and the
        whole group."""
        chosen = set(select_groups(schema, params.groups, streets_only=True))
        new_groups = []
        for g in schema.groups:
            if g.name in chosen:
                members = len(schema.group_members(g.name))
                need = g.monopoly_size or members
                size = max(1, min(members, need + params.change))
                if size != need:
                    g = replace(g, monopoly_size=size)
            new_groups.append(g)
        return replace(schema, groups=tuple(new_groups))


class _Merge(NoveltyParams):
    merges: list[list[str]]

    @field_validator("merges")
    @classmethod
    def _pairs(cls, merges: list[list[str]]) -> list[list[str]]:
        if not merges or any(len(m) < 2 for m in merges):
            raise ValueError("each merge needs at least two groups")
        return merges


class GroupMerge(Novelty):
    """Colour groups merge into bigger sets: monopolies get rarer and dearer to complete, so
    an agent trading for the old small sets never gets to build."""

    name = "group_merge"
    category = "representation"
    description = ("Colour groups merge into bigger sets (named after the first); easy makes "
                   "two sets of five streets (monopolies become rare), medium also merges red "
                   "with yellow, hard merges the two cheap groups only.")
    Params = _Merge
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"merges": [["brown", "light_blue"], ["green", "dark_blue"]]},
               "medium": {"merges": [["brown", "light_blue"], ["red", "yellow"]]},
               "hard": {"merges": [["brown", "light_blue"]]}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with each merge's groups folded into its first; a group merged twice is
        refused."""
        into: dict[str, str] = {}
        for merge in params.merges:
            select_groups(schema, merge)
            for g in merge[1:]:
                if g in into or g in [m[0] for m in params.merges]:
                    raise ValueError(f"group {g!r} is merged twice")
                into[g] = merge[0]
        squares = tuple(replace(s, group=into[s.group]) if s.group in into else s
                        for s in schema.squares)
        groups = tuple(g for g in schema.groups if g.name not in into)
        return replace(schema, squares=squares, groups=groups)


def _rename_squares(schema: GameSchema, renames: dict[str, str]) -> GameSchema:
    squares = tuple(replace(s, name=renames[s.name]) if s.name in renames else s
                    for s in schema.squares)
    decks = []
    for d in schema.decks:
        cards = []
        for c in d.cards:
            if c.square in renames:
                c = replace(c, square=renames[c.square],
                            text=c.text.replace(c.square, renames[c.square]))
            cards.append(c)
        decks.append(replace(d, cards=tuple(cards)))
    return replace(schema, squares=squares, decks=tuple(decks))


class _Rename(NoveltyParams):
    count: int | None = Field(ge=1)  # None: every property
    seed: int = 0


class RenamedProperties(Novelty):
    """Properties get new names, cards following: nothing about play changes, but whatever
    an agent keyed on names (learnt values, a plan for "Boardwalk") must be relearnt."""

    name = "renamed_properties"
    category = "representation"
    description = ("Properties get new names (cards follow); easy renames all of them, so "
                   "anything keyed on names must be relearnt from positions and prices; hard "
                   "renames three.")
    Params = _Rename
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"count": None}, "medium": {"count": 10}, "hard": {"count": 3}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the chosen properties renamed from a stock of new names, and cards
        naming them rewritten."""
        rng = random.Random(params.seed)
        props = [s.name for s in schema.squares if s.is_property]
        chosen = props if params.count is None else rng.sample(props, min(params.count,
                                                                          len(props)))
        taken = {s.name for s in schema.squares}
        fresh = [n for n in NEW_NAMES if n not in taken]
        rng.shuffle(fresh)
        k = 0
        while len(fresh) < len(chosen):
            k += 1
            fresh.extend(f"{n} {k + 1}" for n in NEW_NAMES if f"{n} {k + 1}" not in taken)
        return _rename_squares(schema, dict(zip(chosen, fresh)))


class _Relabel(NoveltyParams):
    count: int | None = Field(ge=1)
    seed: int = 0


class RenamedGroups(Novelty):
    """Colour groups get new names and colours: a strategy that favours a colour by name no
    longer finds it, though every set plays as before."""

    name = "renamed_groups"
    category = "representation"
    description = ("Colour groups get new names and colours; hard relabels every group, so a "
                   "strategy that favours 'orange' no longer finds it.")
    Params = _Relabel
    presets = {"easy": {"count": 2}, "medium": {"count": 5}, "hard": {"count": None}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the chosen groups relabelled from a stock of new names and
        colours."""
        rng = random.Random(params.seed)
        names = [g.name for g in schema.groups]
        chosen = names if params.count is None else rng.sample(names, min(params.count,
                                                                          len(names)))
        labels = [lab for lab in NEW_LABELS if lab[0] not in names]
        if len(labels) < len(chosen):
            raise ValueError(f"only {len(labels)} new labels for {len(chosen)} groups")
        new = dict(zip(chosen, labels))
        groups = tuple(replace(g, name=new[g.name][0], color=new[g.name][1])
                       if g.name in new else g for g in schema.groups)
        squares = tuple(replace(s, group=new[s.group][0]) if s.group in new else s
                        for s in schema.squares)
        return replace(schema, squares=squares, groups=groups)


class _Reverse(NoveltyParams):
    span: int | None = Field(ge=2)  # None: every square after Go


class BoardReverse(Novelty):
    """The squares after Go run in reverse order: the cheap streets come late in a lap, so
    the landing odds of each group change."""

    name = "board_reverse"
    category = "representation"
    description = ("The squares after Go are laid out in reverse order over `span` positions; "
                   "hard reverses the whole board (cheap streets come last).")
    Params = _Reverse
    presets = {"easy": {"span": 9}, "medium": {"span": 19}, "hard": {"span": None}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the `span` squares after Go in reverse order."""
        n = len(schema.squares)
        span = n - 1 if params.span is None else min(params.span, n - 1)
        order = [0, *range(span, 0, -1), *range(span + 1, n)]
        return _reorder(schema, order)


# --- board size ------------------------------------------------------------------------------
def _stretch_land(game: Any, seat: int, sq: int) -> Any:
    """Landing on a stretch square is landing on the square it extends."""
    rules = game.rules
    target = rules.names.index(rules.schema.squares[sq].params["of"])
    total = 0
    evs = game.turn_events()
    for ev in reversed(evs):
        if ev.kind == "moved" and ev.seat == seat:
            if ev.reason == "dice":
                for ev2 in reversed(evs):
                    if ev2.kind == "dice_rolled" and ev2.seat == seat:
                        total = sum(ev2.dice)
                        break
            break
    return game.land(seat, target, total)


class _Stretch(NoveltyParams):
    squares: list[str]
    copies: int = Field(1, ge=1, le=5)


class BoardStretch(Novelty):
    """A square spans several positions, landing on any part being landing on it: the board
    grows and the stretched squares are landed on more often."""

    name = "board_stretch"
    category = "representation"
    description = ("Squares stretch over several positions (landing on any part is landing on "
                   "the square), so the board grows; hard stretches four squares over 3 "
                   "positions each.")
    Params = _Stretch
    presets = {"easy": {"squares": ["Boardwalk"]},
               "medium": {"squares": ["Boardwalk", "Illinois Avenue", "Reading Railroad"]},
               "hard": {"squares": ["Boardwalk", "Illinois Avenue", "New York Avenue",
                                    "Go To Jail"], "copies": 2}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with `copies` stretch squares after each chosen square, landing on
        which is landing on it."""
        register_square_kind("stretch", _stretch_land)
        names = {s.name for s in schema.squares}
        for name in params.squares:
            if name not in names:
                raise ValueError(f"no square named {name!r}")
        out: list[Square] = []
        for s in schema.squares:
            out.append(s)
            if s.name in params.squares:
                out.extend(Square(name=f"{s.name} ({k + 2})", kind="stretch",
                                  params={"of": s.name}) for k in range(params.copies))
        return replace(schema, squares=tuple(out))


class _Extend(NoveltyParams):
    count: int = Field(ge=1, le=40)


class BoardExtend(Novelty):
    """Empty squares are inserted: laps get longer, Go pays less often and rents come round
    more slowly, so cash is tighter than an agent counting 40 squares expects."""

    name = "board_extend"
    category = "representation"
    description = ("Empty 'Vacant Lot' squares are inserted evenly, so laps are longer and Go "
                   "pays less often; hard adds 12 squares (a 52-square board).")
    Params = _Extend
    presets = {"easy": {"count": 2}, "medium": {"count": 6}, "hard": {"count": 12}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with `count` vacant lots spread evenly round it."""
        n = len(schema.squares)
        every = n / (params.count + 1)
        cuts = {int(round(every * (k + 1))) for k in range(params.count)}
        out: list[Square] = []
        k = 0
        for i, s in enumerate(schema.squares):
            if i in cuts:
                k += 1
                out.append(Square(name=f"Vacant Lot {k}", kind="free_parking"))
            out.append(s)
        while k < params.count:  # rounding collisions: append the rest before Go's lap end
            k += 1
            out.append(Square(name=f"Vacant Lot {k}", kind="free_parking"))
        return replace(schema, squares=tuple(out))


class _Jail(NoveltyParams):
    swap_with: str


class JailRelocated(Novelty):
    """The jail swaps places with another square: where a released player starts, and so the
    squares most landed on after jail, move with it."""

    name = "jail_relocated"
    category = "representation"
    description = ("The jail swaps places with another square; hard puts it two squares before "
                   "Go, so released players pass Go at once and the old jail corner is a tax.")
    Params = _Jail
    presets = {"easy": {"swap_with": "Free Parking"}, "medium": {"swap_with": "Kentucky Avenue"},
               "hard": {"swap_with": "Luxury Tax"}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the jail and the chosen square swapped."""
        jail = next(i for i, s in enumerate(schema.squares) if s.kind == "jail")
        other = schema.index_of(params.swap_with)
        if other == jail:
            raise ValueError("the jail cannot swap with itself")
        order = list(range(len(schema.squares)))
        order[jail], order[other] = other, jail
        return _reorder(schema, order)

