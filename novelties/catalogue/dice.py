"""Dice novelties. The dice are hidden (`HIDDEN_FIELDS`): agents learn them only from
the rolls they see. Biased weights, one shifted face and throws changed with a small
probability (doubles made or broken, sevens thrown again, the jailed player's throw)
are attribute changes; different dice are class changes.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field, field_validator

from openmono.hooks import Hooks
from openmono.schema import Die, GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams, replace
from novelties.catalogue._common import Dice, select_dice


D6 = (1, 2, 3, 4, 5, 6)


class _Weights(NoveltyParams):
    dice: Dice = "all"
    face: int = 6
    weight: float = Field(gt=0, le=50)


class DiceWeights(Novelty):
    """Loaded dice favour one face, seen only in the rolls: the distribution of moves (and
    so of landings and doubles) shifts slightly, which only a statistical test over many
    rolls reveals."""

    name = "dice_weights"
    category = "attribute"
    description = ("Hidden biased dice: `face` comes up `weight` times as often; easy is one die "
                   "showing 6 four times as often, hard a 10% bias on both (needs many rolls).")
    Params = _Weights
    presets = {"easy": {"dice": [0], "face": 6, "weight": 4.0},
               "medium": {"face": 4, "weight": 1.3},
               "hard": {"face": 4, "weight": 1.1}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The chosen dice with `face` weighted `weight` times the others."""
        chosen = set(select_dice(schema, params.dice))
        dice = []
        for i, d in enumerate(schema.dice):
            if i in chosen:
                if params.face not in d.faces:
                    raise ValueError(f"die {i} has no face {params.face}")
                base = d.weights or (1.0,) * len(d.faces)
                d = replace(d, weights=tuple(w * params.weight if f == params.face else w
                                             for f, w in zip(d.faces, base)))
            dice.append(d)
        return replace(schema, dice=tuple(dice))


class _Extra(NoveltyParams):
    count: int = Field(1, ge=1, le=3)
    faces: tuple[int, ...] = D6


class ExtraDie(Novelty):
    """More dice: moves get longer and doubles (all dice equal) rarer, so landing odds, the
    doubles route out of jail and the jail risk of a double streak all change."""

    name = "extra_die"
    category = "class"
    description = ("Dice are added (doubles then mean all dice equal); hard adds two d6: moves "
                   "double in length and doubles become rare.")
    Params = _Extra
    presets = {"easy": {"count": 1}, "medium": {"count": 1, "faces": (1, 2, 3, 4)},
               "hard": {"count": 2}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The dice with `count` more dice of `faces`."""
        return replace(schema, dice=schema.dice + (Die(faces=params.faces),) * params.count)


class _Single(NoveltyParams):
    faces: tuple[int, ...]


class FewerDice(Novelty):
    """One die replaces the pair: moves are shorter or differently spread and doubles are
    gone, so leaving jail by a roll is impossible and landing odds change."""

    name = "fewer_dice"
    category = "class"
    description = ("A single die replaces the dice (no doubles: jail is left by fine or card); "
                   "hard rolls one plain d6, halving the speed of the game.")
    Params = _Single
    presets = {"easy": {"faces": tuple(range(1, 13))}, "medium": {"faces": tuple(range(1, 9))},
               "hard": {"faces": D6}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The dice replaced by a single die of `faces`."""
        if len(schema.dice) < 2:
            raise ValueError("there is only one die already")
        return replace(schema, dice=(Die(faces=params.faces),))


class _Odd(NoveltyParams):
    dice: Dice = "all"
    faces: tuple[int, ...] = (1, 3, 5, 1, 3, 5)

    @field_validator("faces")
    @classmethod
    def _odd(cls, faces: tuple[int, ...]) -> tuple[int, ...]:
        if not faces or any(f % 2 == 0 for f in faces):
            raise ValueError("every face must be odd")
        return faces


class OddFaces(Novelty):
    """Dice with odd faces only: with both dice odd every total is even, so half the squares
    cannot be reached by a roll and the landing odds an agent values squares by are
    wrong."""

    name = "odd_faces"
    category = "class"
    description = ("Dice with odd faces only; with both dice odd every total is even (half the "
                   "squares can no longer be reached by a roll); easy also adds faces 7-11, "
                   "hard makes only the first die odd.")
    Params = _Odd
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"faces": (1, 3, 5, 7, 9, 11)}, "medium": {}, "hard": {"dice": [0]}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The chosen dice replaced by dice of odd `faces`."""
        chosen = set(select_dice(schema, params.dice))
        return replace(schema, dice=tuple(Die(faces=params.faces) if i in chosen else d
                                          for i, d in enumerate(schema.dice)))


class _Sides(NoveltyParams):
    dice: Dice = "all"
    sides: int = Field(ge=2, le=30)


class MoreSides(Novelty):
    """Dice with more faces: moves get longer and doubles rarer, so a lap goes faster and
    landing odds and the doubles route out of jail change."""

    name = "more_sides"
    category = "class"
    description = ("Dice get `sides` faces (1..sides); hard rolls two d12: moves are twice as "
                   "long and doubles half as frequent.")
    Params = _Sides
    presets = {"easy": {"dice": [0], "sides": 8}, "medium": {"sides": 8},
               "hard": {"sides": 12}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The chosen dice replaced by dice numbered 1 to `sides`."""
        chosen = set(select_dice(schema, params.dice))
        die = Die(faces=tuple(range(1, params.sides + 1)))
        return replace(schema, dice=tuple(die if i in chosen else d
                                          for i, d in enumerate(schema.dice)))


# --- helpers for throws ---------------------------------------------------------------
def _rng(game: Any, key: str) -> random.Random:
    """A per-game random stream for a hook, derived from the game seed (reproducible, and
    separate from the engine's dice stream, so common random numbers still hold)."""
    return game.plugin_state(key, lambda: random.Random(f"{key}:{game.seed}"))


def _doubles_chance(dice: tuple[Die, ...]) -> float:
    """The chance that all dice show one value (the schema's faces and weights)."""
    if len(dice) < 2:
        return 0.0
    probs = []
    for d in dice:
        w = d.weights or (1.0,) * len(d.faces)
        total = sum(w)
        p: dict[int, float] = {}
        for f, x in zip(d.faces, w):
            p[f] = p.get(f, 0.0) + x / total
        probs.append(p)
    out = 0.0
    for v in probs[0]:
        term = 1.0
        for p in probs:
            term *= p.get(v, 0.0)
        out += term
    return round(out, 6)


def _last_throw(game: Any, seat: int) -> tuple[int, ...] | None:
    """The dice `seat` threw last in the turn in progress (None: no throw yet)."""
    for e in reversed(game.turn_events()):
        if e.kind == "dice_rolled" and e.seat == seat:
            return e.dice
    return None


def _is_double(dice: tuple[int, ...] | None) -> bool:
    return dice is not None and len(dice) > 1 and min(dice) == max(dice)


# --- one face, one throw --------------------------------------------------------------
class _Face(NoveltyParams):
    die: int = Field(0, ge=0)
    old: int
    new: int


class ShiftedFace(Novelty):
    """One face of a die shows another number: totals shift now and then, a small change in
    landing odds that only a statistical test over many rolls reveals."""

    name = "shifted_face"
    category = "attribute"
    description = ("One face of one die shows another number (hidden dice); hard turns the 3 "
                   "of the first die into a 4: totals shift by one now and then.")
    Params = _Face
    presets = {"easy": {"old": 1, "new": 6}, "medium": {"die": 1, "old": 2, "new": 5},
               "hard": {"old": 3, "new": 4}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The die with face `old` replaced by `new`."""
        if params.die >= len(schema.dice):
            raise ValueError(f"no die {params.die}; the schema has {len(schema.dice)} dice")
        die = schema.dice[params.die]
        if params.old not in die.faces or params.old == params.new:
            raise ValueError(f"die {params.die} has no face {params.old} to change "
                             f"(faces {die.faces})")
        k = die.faces.index(params.old)
        new = replace(die, faces=die.faces[:k] + (params.new,) + die.faces[k + 1:])
        return replace(schema, dice=tuple(new if i == params.die else d
                                          for i, d in enumerate(schema.dice)))


class _Sticky(NoveltyParams):
    chance: float = Field(gt=0, le=1)


class StickyDoubles(Novelty):
    """Doubles come up more often than the dice say: more extra rolls and more trips to jail
    for three doubles, a small shift only many rolls reveal."""

    name = "sticky_doubles"
    category = "attribute"
    description = ("A throw that is not a double becomes one with probability `chance` (hidden "
                   "dice); hard uses 2%: doubles come up 18.3% of the time instead of 16.7%.")
    Params = _Sticky
    presets = {"easy": {"chance": 0.3}, "medium": {"chance": 0.05}, "hard": {"chance": 0.02}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A dice hook turning non-doubles into doubles, from a per-game stream apart from
        the engine's dice (common random numbers hold)."""
        if len(schema.dice) < 2:
            raise ValueError("with one die there are no doubles")
        c = params.chance

        def dice_roll(game: Any, seat: int, dice: tuple[int, ...]) -> tuple[int, ...]:
            if min(dice) != max(dice) and _rng(game, "sticky_doubles").random() < c:
                return (dice[0],) * len(dice)
            return dice

        old = _doubles_chance(schema.dice)
        return Applied(schema, Hooks(dice_roll=dice_roll), (HookChange(
            "dice", "doubles rate", "throws become doubles more often", False,
            old, round(old + (1 - old) * c, 6)),))


class _Broken(NoveltyParams):
    face: int = Field(ge=2, le=100)
    chance: float = Field(gt=0, le=1)


class BrokenDouble(Novelty):
    """A double of one face is sometimes broken into a non-double: fewer extra rolls and
    fewer doubles out of jail, seen in a small share of throws."""

    name = "broken_double"
    category = "attribute"
    description = ("A throw of a double `face` becomes `face` and the next lower face with "
                   "probability `chance` (hidden dice); hard breaks a quarter of the double "
                   "sixes, one throw in 144.")
    Params = _Broken
    presets = {"easy": {"face": 6, "chance": 1.0}, "medium": {"face": 6, "chance": 0.5},
               "hard": {"face": 6, "chance": 0.25}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A dice hook breaking the double, from a per-game stream apart from the engine's
        dice."""
        if len(schema.dice) != 2:
            raise ValueError("broken_double needs exactly two dice")
        face, c = params.face, params.chance
        if not all(face in d.faces and face - 1 in d.faces for d in schema.dice):
            raise ValueError(f"both dice need faces {face} and {face - 1}")

        def dice_roll(game: Any, seat: int, dice: tuple[int, ...]) -> tuple[int, ...]:
            if dice == (face, face) and _rng(game, "broken_double").random() < c:
                return (face, face - 1)
            return dice

        return Applied(schema, Hooks(dice_roll=dice_roll), (HookChange(
            "dice", f"double {face}s", f"a double {face} becomes {face} and {face - 1} "
            f"with probability {c}", False, 1.0, round(1 - c, 6)),))


class RethrownSevens(Novelty):
    """A throw of 7 is sometimes thrown again: the commonest total comes up less often, a
    slight shift in landing odds that only many rolls reveal."""

    name = "rethrown_sevens"
    category = "attribute"
    description = ("A throw summing to 7 is thrown again, once, with probability `chance` "
                   "(hidden dice); hard re-throws 15% of them, so sevens come up 14.6% of the "
                   "time instead of 16.7%.")
    Params = _Sticky
    presets = {"easy": {"chance": 1.0}, "medium": {"chance": 0.3}, "hard": {"chance": 0.15}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A dice hook throwing a 7 again, from a per-game stream apart from the engine's
        dice."""
        c = params.chance

        def dice_roll(game: Any, seat: int, dice: tuple[int, ...]) -> tuple[int, ...]:
            if sum(dice) != 7:
                return dice
            rng = _rng(game, "rethrown_sevens")
            if rng.random() >= c:
                return dice
            return tuple(rng.choice(faces) if cum is None else
                         rng.choices(faces, cum_weights=cum)[0]
                         for faces, cum in game.rules.dice)

        return Applied(schema, Hooks(dice_roll=dice_roll), (HookChange(
            "dice", "sevens", f"a throw of 7 is thrown again with probability {c}", False,
            1.0, round(1 - c, 6)),))


class _JailDice(NoveltyParams):
    chance: float = Field(ge=0, le=1)


class JailDice(Novelty):
    """A jailed player's chance of throwing a double changes: leaving jail by the dice is
    likelier (or hopeless), so the choice between paying the fine and waiting is off."""

    name = "jail_dice"
    category = "attribute"
    description = ("A jailed player's throw is a double with probability `chance` instead of "
                   "1/6; hard makes it 1/4, seen only in the few throws made from jail.")
    Params = _JailDice
    presets = {"easy": {"chance": 0.5}, "medium": {"chance": 0.0}, "hard": {"chance": 0.25}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A dice hook setting a jailed player's chance of a double, from a per-game stream
        apart from the engine's dice."""
        if len(schema.dice) != 2:
            raise ValueError("jail_dice needs exactly two dice")
        c = params.chance
        faces = schema.dice[1].faces

        def dice_roll(game: Any, seat: int, dice: tuple[int, ...]) -> tuple[int, ...]:
            if not game.state.in_jail[seat]:
                return dice
            if _rng(game, "jail_dice").random() < c:
                return (dice[0], dice[0])
            if dice[0] != dice[1]:
                return dice
            others = [f for f in faces if f != dice[0]]
            return (dice[0], others[(dice[0] - 1) % len(others)]) if others else dice

        return Applied(schema, Hooks(dice_roll=dice_roll), (HookChange(
            "dice", "doubles in jail", "throws from jail are doubles with a new chance", False,
            _doubles_chance(schema.dice), c),))
