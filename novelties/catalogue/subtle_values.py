"""Subtle attribute novelties: small changes to one value, one card, one die face, one
building level or one rent step.

Each changes a single number (or a small probability) that matters only in a narrow
situation: a card drawn once in a while, the rent of the third house, the rent for
owning all four railroads, the dice thrown in jail. Hard presets change the least used
value by the least amount and do not print the change.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field

from openmono.hooks import Hooks
from openmono.schema import Die, GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams, replace
from novelties.catalogue._common import Groups, map_squares, scale, select_groups, \
    swap_money_in_text


def _rng(game: Any, key: str) -> random.Random:
    """A per-game random stream for a hook, derived from the game seed (reproducible, and
    separate from the engine's dice stream, so common random numbers still hold)."""
    return game.plugin_state(key, lambda: random.Random(f"{key}:{game.seed}"))


def _owned_in_group(game: Any, sq: int) -> int:
    rules, owner = game.rules, game.state.owner
    o = owner[sq]
    return sum(1 for m in rules.group_members[rules.group_of[sq]] if owner[m] == o)


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


# --- one card ------------------------------------------------------------------------------
class _Card(NoveltyParams):
    deck: str
    card: str  # the start of the card's text
    amount: int = Field(ge=0, le=100_000)
    update_text: bool = False


class CardAmount(Novelty):
    """One card pays or charges another amount, seen only when it is drawn: a small error in
    the cash an agent expects from the decks."""

    name = "card_amount"
    category = "attribute"
    description = ("One card's amount changes (decks are hidden: only its draws show it); hard "
                   "turns the $10 beauty-contest prize into $15 and keeps the old text.")
    Params = _Card
    presets = {"easy": {"deck": "chance", "card": "Bank pays you dividend", "amount": 150,
                        "update_text": True},
               "medium": {"deck": "community_chest", "card": "Doctor's fee", "amount": 100},
               "hard": {"deck": "community_chest", "card": "You have won second prize",
                        "amount": 15}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The deck with the first card whose text starts with `card` paying `amount` (its
        text updated only with `update_text`)."""
        decks = {d.name: d for d in schema.decks}
        if params.deck not in decks:
            raise ValueError(f"unknown deck {params.deck!r}; decks: {', '.join(decks)}")
        deck = decks[params.deck]
        hits = [j for j, c in enumerate(deck.cards) if c.text.startswith(params.card)]
        if not hits:
            raise ValueError(f"no card of {params.deck} starts with {params.card!r}")
        j = hits[0]
        card = deck.cards[j]
        if not card.amount or card.amount == params.amount:
            raise ValueError(f"card {card.text!r} has amount {card.amount}: choose a money "
                             "card and a new amount")
        text = (swap_money_in_text(card.text, card.amount, params.amount)
                if params.update_text else card.text)
        new = replace(card, amount=params.amount, text=text)
        cards = deck.cards[:j] + (new,) + deck.cards[j + 1:]
        return replace(schema, decks=tuple(replace(d, cards=cards) if d.name == deck.name
                                           else d for d in schema.decks))


# --- one building level ------------------------------------------------------------------------
class _Level(NoveltyParams):
    level: int = Field(ge=0, le=10)  # 0: unimproved
    factor: float = Field(gt=0, le=10)
    groups: Groups = "all"
    printed: bool = True


class LevelRent(Novelty):
    """The rent at one building level changes: whether it pays to build to that level (or
    stop short of it) on those streets is not what the printed table says."""

    name = "level_rent"
    category = "attribute"
    description = ("Street rent at one building `level` times `factor`; hard triples the "
                   "4th-house rent of light blue only, unprinted (seen only at that level).")
    Params = _Level
    presets = {"easy": {"level": 5, "factor": 1.25},
               "medium": {"level": 3, "factor": 1.15, "groups": ["light_blue"],
                          "printed": False},
               "hard": {"level": 4, "factor": 3.0, "groups": ["light_blue"],
                        "printed": False}}

    def apply(self, schema: GameSchema, params: Any) -> Applied | GameSchema:
        """The rent at the level scaled on the chosen streets, printed or (with
        `printed=False`) charged by a rent hook behind the old board."""
        lv, f = params.level, params.factor
        groups = set(select_groups(schema, params.groups, streets_only=True))
        targets = [s for s in schema.squares if s.kind == "street" and s.group in groups
                   and len(s.rent) > lv]
        if not targets:
            raise ValueError(f"no street of the chosen groups has a rent at level {lv}")

        def bumped(rent: tuple[int, ...]) -> tuple[int, ...]:
            return rent[:lv] + (scale(rent[lv], f),) + rent[lv + 1:]

        names = frozenset(s.name for s in targets)
        if params.printed:
            return map_squares(schema, lambda i, s: replace(s, rent=bumped(s.rent))
                               if s.name in names else s)

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            if game.state.level[sq] == lv and game.rules.names[sq] in names:
                return int(amount * f)
            return amount

        declared = tuple(HookChange(
            f"square:{s.name}", f"rent at level {lv} (charged)",
            f"charged x{f} at level {lv} while the board shows the old rent", False,
            list(s.rent), list(bumped(s.rent))) for s in targets)
        return Applied(schema, Hooks(rent=rent), declared)


# --- railroads and utilities: one rent step ------------------------------------------------
class _Steps(NoveltyParams):
    counts: list[int] = Field(min_length=1)  # how many railroads owned: 1..4
    factor: float = Field(gt=0, le=10)
    printed: bool = True


class RailroadRents(Novelty):
    """The rent for owning a given number of railroads changes: gathering railroads is worth
    more (or less) than an agent valuing them by the printed rents expects."""

    name = "railroad_rents"
    category = "attribute"
    description = ("Railroad rent for owning the given numbers of railroads times `factor`; "
                   "hard adds 20% for all four only, unprinted (one owner must hold them all).")
    Params = _Steps
    presets = {"easy": {"counts": [1, 2, 3, 4], "factor": 1.5},
               "medium": {"counts": [3, 4], "factor": 1.5, "printed": False},
               "hard": {"counts": [4], "factor": 1.2, "printed": False}}

    def apply(self, schema: GameSchema, params: Any) -> Applied | GameSchema:
        """The railroad rents for the chosen counts scaled, printed or (with
        `printed=False`) charged by a rent hook behind the old board."""
        rails = [s for s in schema.squares if s.kind == "railroad"]
        if not rails:
            raise ValueError("the board has no railroad")
        size = len(rails[0].rent)
        bad = [c for c in params.counts if not 1 <= c <= size]
        if bad:
            raise ValueError(f"count {bad[0]} is not in 1..{size}")
        idx, f = {c - 1 for c in params.counts}, params.factor

        def bumped(rent: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(scale(v, f) if k in idx else v for k, v in enumerate(rent))

        names = frozenset(s.name for s in rails)
        if params.printed:
            return map_squares(schema, lambda i, s: replace(s, rent=bumped(s.rent))
                               if s.name in names else s)

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            if game.rules.names[sq] not in names:
                return amount
            k = min(_owned_in_group(game, sq), len(game.rules.rent[sq])) - 1
            if k not in idx:
                return amount
            old = game.rules.rent[sq][k]
            new = scale(old, f)
            return new if amount == old else int(amount * new / old) if old else amount

        declared = tuple(HookChange(
            f"square:{s.name}", "rent by railroads owned (charged)",
            f"charged x{f} for {sorted(params.counts)} railroads owned; the board shows the "
            "old rent", False, list(s.rent), list(bumped(s.rent))) for s in rails)
        return Applied(schema, Hooks(rent=rent), declared)


class _Utility(NoveltyParams):
    one: int = Field(ge=0, le=100)  # dice multiplier with one utility owned
    both: int = Field(ge=0, le=100)  # with both
    printed: bool = True


class UtilityMultiplier(Novelty):
    """The utilities' dice multipliers change: a utility, and the pair, earn other rents
    than the board says, which shows only once someone lands after a roll."""

    name = "utility_multiplier"
    category = "attribute"
    description = ("The utilities' dice multipliers become `one` / `both`; hard raises only the "
                   "both-utilities multiplier to 12, unprinted (one owner must hold both).")
    Params = _Utility
    presets = {"easy": {"one": 5, "both": 12},
               "medium": {"one": 5, "both": 10, "printed": False},
               "hard": {"one": 4, "both": 12, "printed": False}}

    def apply(self, schema: GameSchema, params: Any) -> Applied | GameSchema:
        """The utilities' multipliers replaced, printed or (with `printed=False`) charged by
        a rent hook behind the old board."""
        utils = [s for s in schema.squares if s.kind == "utility"]
        if not utils:
            raise ValueError("the board has no utility")
        new_table = (params.one, params.both)
        if all(tuple(s.rent[:2]) == new_table for s in utils):
            raise ValueError("the multipliers are already as requested")
        names = frozenset(s.name for s in utils)

        def bumped(rent: tuple[int, ...]) -> tuple[int, ...]:
            return new_table + tuple(rent[2:])

        if params.printed:
            return map_squares(schema, lambda i, s: replace(s, rent=bumped(s.rent))
                               if s.name in names else s)

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            if game.rules.names[sq] not in names:
                return amount
            moved = next((e for e in reversed(game.turn_events())
                          if e.kind == "moved" and e.seat == payer), None)
            throw = next((e for e in reversed(game.turn_events())
                          if e.kind == "dice_rolled" and e.seat == payer), None)
            if moved is None or moved.reason != "dice" or throw is None:
                return amount  # reached by a card: the card's own multiplier rules
            k = min(_owned_in_group(game, sq), 2) - 1
            table = game.rules.rent[sq]
            if k >= len(table) or amount != table[k] * sum(throw.dice):
                return amount
            return new_table[k] * sum(throw.dice)

        declared = tuple(HookChange(
            f"square:{s.name}", "dice multiplier (charged)",
            "charged the new multipliers while the board shows the old ones", False,
            list(s.rent), list(bumped(s.rent))) for s in utils)
        return Applied(schema, Hooks(rent=rent), declared)


# --- one price -------------------------------------------------------------------------------
class _Price(NoveltyParams):
    square: str
    price: int = Field(ge=1, le=100_000)


class OnePrice(Novelty):
    """One property's price changes: an agent budgeting by the printed price over- or
    underpays for it, and its mortgage value moves with it."""

    name = "one_price"
    category = "attribute"
    description = ("One property's price (and with it its mortgage value) changes; medium "
                   "raises Mediterranean Avenue from 60 to 70; hard raises Boardwalk to 500, "
                   "seen only when Boardwalk is bought, auctioned or mortgaged.")
    Params = _Price
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"square": "Illinois Avenue", "price": 260},
               "medium": {"square": "Mediterranean Avenue", "price": 70},
               "hard": {"square": "Boardwalk", "price": 500}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the property's new price."""
        i = schema.index_of(params.square)
        sq = schema.squares[i]
        if not sq.is_property:
            raise ValueError(f"{sq.name!r} is not a property")
        if sq.price == params.price:
            raise ValueError(f"{sq.name!r} already costs {params.price}")
        return map_squares(schema, lambda k, s: replace(s, price=params.price) if k == i
                           else s)


# --- dice -----------------------------------------------------------------------------------
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
