"""Representation novelties on the board's layout: the order of its squares, its
size, where the jail is.

All of them are public schema changes (agents see the new board), except that what an
agent has learnt about the old board no longer holds. The smallest, `square_nudge`, swaps one
square with its neighbour.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import Field

from openmono.kinds import register_square_kind
from openmono.schema import GameSchema, Square

from novelties.base import Novelty, NoveltyParams, replace


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


class _Nudge(NoveltyParams):
    square: str
    step: Literal[-1, 1] = 1


class SquareNudge(Novelty):
    """One square swaps places with its neighbour: a one-step shift that moves which squares
    a roll, a card or a release from jail reaches."""

    name = "square_nudge"
    category = "representation"
    description = ("One square swaps places with its neighbour; hard swaps the last Chance "
                   "square with Short Line, one step on the same side.")
    Params = _Nudge
    presets = {"easy": {"square": "Boardwalk", "step": -1},
               "medium": {"square": "Reading Railroad", "step": -1},
               "hard": {"square": "Chance 3", "step": -1}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the square and its neighbour swapped; Go and the jail stay where
        they are."""
        i = schema.index_of(params.square)
        j = (i + params.step) % len(schema.squares)
        kinds = {schema.squares[i].kind, schema.squares[j].kind}
        if kinds & {"go", "jail"}:
            raise ValueError("Go and the jail stay where they are: choose another square")
        order = list(range(len(schema.squares)))
        order[i], order[j] = j, i
        return _reorder(schema, order)


# --- board size -----------------------------------------------------------------------
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


_MOVED = {"GroupShuffle": "groups", "GroupReassign": "groups", "MonopolySize": "groups",
          "GroupMerge": "groups", "RenamedProperties": "names", "RenamedGroups": "names"}


def __getattr__(name: str) -> Any:
    """The plugins once here, where an old `novelties.catalogue.board:ClassName` path
    finds them for one release: colour groups are in `groups.py`, names in `names.py`."""
    if name in _MOVED:
        import importlib

        return getattr(importlib.import_module(f"novelties.catalogue.{_MOVED[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
