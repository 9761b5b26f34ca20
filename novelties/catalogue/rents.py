"""Novelties on rent: the rent at one building level, for a number of railroads, the
utilities' multipliers (attribute changes), and new rules on what rent is due (class
changes): more from a rich payer or right after a double, a levy on what owners collect,
more late in the game, less on a player's first lap.

Each changes rent only in a narrow situation; none of the rules is announced on the
board, and hard presets change the least used value or pick the rarest trigger (an
exact rule is seen the first time it fires, whatever its amount).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openmono.hooks import Hooks
from openmono.schema import GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams, replace
from novelties.catalogue._common import Groups, levy, map_squares, scale, select_groups
from novelties.catalogue.dice import _is_double, _last_throw


def _owned_in_group(game: Any, sq: int) -> int:
    rules, owner = game.rules, game.state.owner
    o = owner[sq]
    return sum(1 for m in rules.group_members[rules.group_of[sq]] if owner[m] == o)


# --- one building level ---------------------------------------------------------------
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


# --- railroads and utilities: one rent step -------------------------------------------
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


# --- rules on what rent is due --------------------------------------------------------
class _Surcharge(NoveltyParams):
    threshold: int = Field(ge=0, le=100_000)
    surcharge: float = Field(gt=0, le=5)


class RichRent(Novelty):
    """A rich payer pays more rent: holding a big cash pile is riskier than an agent
    hoarding cash expects."""

    name = "rich_rent"
    category = "class"
    description = ("A payer holding more than `threshold` cash pays `surcharge` more rent; hard "
                   "doubles the rent above 2500, a level few players reach.")
    Params = _Surcharge
    presets = {"easy": {"threshold": 1000, "surcharge": 0.5},
               "medium": {"threshold": 1500, "surcharge": 0.25},
               "hard": {"threshold": 2500, "surcharge": 1.0}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A rent hook adding the surcharge for a payer above the threshold; unannounced."""
        t, f = params.threshold, 1 + params.surcharge

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            return int(amount * f) if game.state.cash[payer] > t else amount

        return Applied(schema, Hooks(rent=rent), (HookChange(
            "rule:rent", "surcharge above a cash level",
            f"payers holding more than {t} pay {params.surcharge:.0%} more rent", False,
            None, {"threshold": t, "surcharge": params.surcharge}),))


class _DoublesRent(NoveltyParams):
    factor: float = Field(ge=0, le=10)


class DoublesRent(Novelty):
    """Rent due right after a double is scaled: the cost of landing depends on how the roll
    came, which an agent valuing squares by printed rent cannot know."""

    name = "doubles_rent"
    category = "class"
    description = ("Rent due right after a double is thrown is multiplied by `factor`; hard "
                   "charges 20% more, a small change on one landing in six.")
    Params = _DoublesRent
    presets = {"easy": {"factor": 2.0}, "medium": {"factor": 0.5}, "hard": {"factor": 1.2}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A rent hook scaling the rent when the payer's last throw was a double;
        unannounced."""
        f = params.factor
        if f == 1:
            raise ValueError("factor 1 changes nothing")

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            return int(amount * f) if _is_double(_last_throw(game, payer)) else amount

        return Applied(schema, Hooks(rent=rent), (HookChange(
            "rule:rent", "after a double", f"rent after a double is x{f}", False, 1.0, f),))


class _Levy(NoveltyParams):
    rate: float = Field(gt=0, le=1)


class RentLevy(Novelty):
    """Owners pay the bank a share of the rents they collect: rent income is worth less, so
    a set is worth less than its printed rents."""

    name = "rent_levy"
    category = "class"
    description = ("Owners pay the bank `rate` of every rent they collect, at the end of the "
                   "turn; hard levies 5%, a tax on one kind of payment only.")
    Params = _Levy
    presets = {"easy": {"rate": 0.2}, "medium": {"rate": 0.1}, "hard": {"rate": 0.05}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook charging owners their share of the rents collected that turn;
        unannounced."""
        rate = params.rate

        def end_of_turn(game: Any, seat: int) -> Any:
            owed: dict[int, int] = {}
            for e in game.turn_events():
                if e.kind == "payment" and e.reason == "rent" and e.payee >= 0:
                    owed[e.payee] = owed.get(e.payee, 0) + int(e.amount * rate)
            if not any(owed.values()):
                return None
            return levy(game, owed, "rent_levy")

        return Applied(schema, Hooks(end_of_turn=end_of_turn), (HookChange(
            "rule:rent", "levy on rent income", f"owners pay {rate:.0%} of rents collected",
            False, 0, rate),))


class _Late(NoveltyParams):
    after_turn: int = Field(ge=1, le=100_000)
    factor: float = Field(ge=0, le=10)


class LateRent(Novelty):
    """Rents change late in the game: a long game turns more (or less) costly to survive
    than an agent planning on printed rents expects."""

    name = "late_rent"
    category = "class"
    description = ("From turn `after_turn` on (counted over all players) rents are multiplied "
                   "by `factor`; hard doubles them after turn 200, which only long games reach.")
    Params = _Late
    presets = {"easy": {"after_turn": 50, "factor": 1.5},
               "medium": {"after_turn": 150, "factor": 1.1},
               "hard": {"after_turn": 200, "factor": 2.0}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A rent hook scaling rents from the turn on; unannounced."""
        t, f = params.after_turn, params.factor

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            return int(amount * f) if game.state.turn >= t else amount

        return Applied(schema, Hooks(rent=rent), (HookChange(
            "rule:rent", "late-game rent", f"from turn {t} rents are x{f}", False,
            1.0, {"after_turn": t, "factor": f}),))


class _Grace(NoveltyParams):
    factor: float = Field(ge=0, lt=1)


class FirstLapGrace(Novelty):
    """Rent is cut until the payer has passed Go: early landings cost less, so buying early
    pays less than the board says."""

    name = "first_lap_grace"
    category = "class"
    description = ("A player who has not yet passed Go (since the rule came in) pays only "
                   "`factor` of the rent; hard takes 20% off, on the first lap only.")
    Params = _Grace
    presets = {"easy": {"factor": 0.0}, "medium": {"factor": 0.5}, "hard": {"factor": 0.8}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """Rent and Go-salary hooks: a payer not yet recorded passing Go pays the reduced
        rent; unannounced."""
        f = params.factor

        def passing_go(game: Any, seat: int, amount: int) -> int:
            game.plugin_state("first_lap_grace", set).add(seat)
            return amount

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            done = game.plugin_state("first_lap_grace", set)
            return amount if payer in done else int(amount * f)

        return Applied(schema, Hooks(passing_go=passing_go, rent=rent), (HookChange(
            "rule:rent", "first-lap grace", f"rent is x{f} until the payer passes Go", False,
            1.0, f),))
