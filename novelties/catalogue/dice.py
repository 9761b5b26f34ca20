"""Dice novelties. The dice are hidden (`HIDDEN_FIELDS`): agents learn them only from
the rolls they see. Biased weights are an attribute change; different dice are class
changes."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from openmono.schema import Die, GameSchema

from novelties.base import Novelty, NoveltyParams, replace
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
