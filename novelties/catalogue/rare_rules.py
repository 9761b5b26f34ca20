"""Class novelties whose rule fires only in a situation most games never reach.

A salary cut for players grown rich beyond a cash level, and a permit fee for hotels on
a few colour groups: neither is announced, and in most baseline games nobody is rich
enough or builds a hotel there, so even an observer who knows both worlds needs many
games to see them. Hard presets pick the rarest trigger, with an amount large enough to
change the games it reaches.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openmono.hooks import Hooks
from openmono.schema import GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams
from novelties.catalogue._common import (Groups, first_of_kind, hotels_held, levy, select_groups,
                                         street_names)


class _RichSalary(NoveltyParams):
    threshold: int = Field(ge=0, le=100_000)
    factor: float = Field(ge=0, lt=1)


class RichSalary(Novelty):
    """Go pays a rich player less: hoarding cash stops paying, so an agent that sits on a
    cash pile rather than investing it loses income it counts on."""

    name = "rich_salary"
    category = "class"
    description = ("A player holding more than `threshold` cash when it passes Go collects "
                   "only `factor` of the salary; hard pays nothing above 2500, a level few "
                   "players reach.")
    Params = _RichSalary
    presets = {"easy": {"threshold": 1500, "factor": 0.0},
               "medium": {"threshold": 2000, "factor": 0.5},
               "hard": {"threshold": 2500, "factor": 0.0}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A Go-salary hook cutting the salary of a player above the threshold; unannounced."""
        t, f = params.threshold, params.factor

        def passing_go(game: Any, seat: int, amount: int) -> int:
            return int(amount * f) if game.state.cash[seat] > t else amount

        go = first_of_kind(schema, "go").name
        return Applied(schema, Hooks(passing_go=passing_go), (HookChange(
            f"square:{go}", "salary above a cash level",
            f"a player holding more than {t} collects x{f} of the salary", False,
            1.0, {"threshold": t, "factor": f}),))


class _RailroadSalary(NoveltyParams):
    count: int = Field(ge=1, le=4)
    bonus: int = Field(ge=1, le=5000)


class RailroadSalary(Novelty):
    """Go pays more to a player holding railroads: railroads are worth more than their
    rents, so an agent valuing them by rent alone undervalues them in trades and
    auctions."""

    name = "railroad_salary"
    category = "class"
    description = ("A player holding `count` or more railroads collects `bonus` more when it "
                   "passes Go; hard pays 50 more to a player holding all four, which few "
                   "games see.")
    Params = _RailroadSalary
    presets = {"easy": {"count": 1, "bonus": 50}, "medium": {"count": 3, "bonus": 50},
               "hard": {"count": 4, "bonus": 50}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A Go-salary hook adding the bonus for a player holding enough railroads;
        unannounced."""
        need, bonus = params.count, params.bonus

        def passing_go(game: Any, seat: int, amount: int) -> int:
            rules, owner = game.rules, game.state.owner
            held = sum(1 for sq in rules.properties
                       if owner[sq] == seat and rules.kind_names[sq] == "railroad")
            return amount + bonus if held >= need else amount

        go = first_of_kind(schema, "go").name
        return Applied(schema, Hooks(passing_go=passing_go), (HookChange(
            f"square:{go}", "salary with railroads",
            f"a player holding {need} or more railroads collects {bonus} more", False,
            0, {"count": need, "bonus": bonus}),))


class _Permit(NoveltyParams):
    groups: Groups = "all"
    fee: int = Field(ge=1, le=5000)


class HotelPermit(Novelty):
    """A hotel on some colour groups costs an extra fee: the step from four houses to a
    hotel there is dearer than the board says, which a builder learns only by paying."""

    name = "hotel_permit"
    category = "class"
    description = ("Building a hotel on the chosen colour groups costs an extra `fee` (paid "
                   "at the end of the turn); hard charges 25 on green only, where few games "
                   "see a hotel.")
    Params = _Permit
    presets = {"easy": {"fee": 100}, "medium": {"groups": ["yellow"], "fee": 25},
               "hard": {"groups": ["green"], "fee": 25}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook charging the fee for each hotel built on the chosen groups
        that turn; unannounced."""
        groups = select_groups(schema, params.groups, streets_only=True)
        if not groups:
            raise ValueError("no colour group of streets to charge for")
        names = street_names(schema, groups)
        fee, hotel = params.fee, schema.bank.max_houses + 1

        def end_of_turn(game: Any, seat: int) -> Any:
            owed: dict[int, int] = {}
            for e in game.turn_events():
                if (e.kind == "building_changed" and e.reason == "built" and e.level == hotel
                        and game.rules.names[e.square] in names):
                    owed[e.seat] = owed.get(e.seat, 0) + fee
            return levy(game, owed, "hotel_permit") if owed else None

        return Applied(schema, Hooks(end_of_turn=end_of_turn), tuple(HookChange(
            f"group:{g}", "hotel permit", f"building a hotel on {g} costs an extra fee",
            False, 0, fee) for g in groups))


class _Upkeep(NoveltyParams):
    hotels: int = Field(ge=1, le=40)
    fee: int = Field(ge=1, le=5000)


class HotelUpkeep(Novelty):
    """Holding hotels costs a fee every turn: past a point hotels cost more than they earn,
    so an agent that always builds to a hotel pays for it."""

    name = "hotel_upkeep"
    category = "class"
    description = ("A player holding `hotels` or more hotels pays `fee` at the end of each of "
                   "its turns; easy charges 300 from the first hotel, so hotels cost more than "
                   "they earn; hard charges 1500 from the ninth hotel, which only a player "
                   "who has taken over the board builds.")
    Params = _Upkeep
    presets = {"easy": {"hotels": 1, "fee": 300}, "medium": {"hotels": 2, "fee": 500},
               "hard": {"hotels": 9, "fee": 1500}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook charging the upkeep to a player holding enough hotels;
        unannounced."""
        need, fee = params.hotels, params.fee

        def end_of_turn(game: Any, seat: int) -> Any:
            if hotels_held(game, seat) < need:
                return None
            return levy(game, {seat: fee}, "hotel_upkeep")

        return Applied(schema, Hooks(end_of_turn=end_of_turn), (HookChange(
            "rule:end_of_turn", "hotel upkeep",
            f"a player holding {need} or more hotels pays {fee} each turn", False, 0,
            {"hotels": need, "fee": fee}),))
