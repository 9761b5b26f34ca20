"""Novelties on buildings: how many per street, the bank's stock, and what building
costs beyond the price.

`third_house_fee` charges for building up to a given house, `hotel_permit` for a hotel
on a few colour groups, `hotel_upkeep` a player holding many hotels; none is announced,
and their hard presets pick the rarest trigger (few games ever see such a hotel).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openmono.hooks import Hooks
from openmono.schema import GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams, replace
from novelties.catalogue._common import (Groups, hotels_held, levy, select_groups, set_bank,
                                         street_names)


class _Limit(NoveltyParams):
    max_houses: int = Field(ge=1, le=8)
    hotels: bool = True


def rent_table(old: tuple[int, ...], old_houses: int, old_hotel: bool,
               houses: int, hotel: bool) -> tuple[int, ...]:
    """A street's rents for a new building limit, from its old table.

    Known house levels keep their rent; extra house levels continue the last step; a
    hotel keeps its old rent (and stays above the top house level).
    """
    base, house_rents = old[0], list(old[1:1 + old_houses])
    hotel_rent = old[1 + old_houses] if old_hotel else None
    while len(house_rents) < houses:
        last = house_rents[-1] if house_rents else base
        prev = house_rents[-2] if len(house_rents) > 1 else base
        house_rents.append(last + max(1, last - prev))
    house_rents = house_rents[:houses]
    out = [base, *house_rents]
    if hotel:
        top = house_rents[-1]
        out.append(max(hotel_rent or 0, top + max(1, top // 4)))
    return tuple(out)


class BuildingLimit(Novelty):
    """A street takes a different number of houses, with or without a hotel: the top rents
    an agent builds towards move or vanish, and so does what a set is worth developing."""

    name = "building_limit"
    category = "attribute"
    description = ("Changes how many houses a street takes and whether hotels exist (rent "
                   "tables follow); easy allows two houses and no hotel, so top rents vanish; "
                   "hard allows a fifth house, seen only on a set built that far.")
    Params = _Limit
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"max_houses": 2, "hotels": False}, "medium": {"max_houses": 3},
               "hard": {"max_houses": 5}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The new building limit with every street's rent table extended or cut to it
        (`rent_table`)."""
        b = schema.bank
        if (b.max_houses, b.hotels) == (params.max_houses, params.hotels):
            raise ValueError("the building limit is already as requested")
        squares = tuple(
            replace(s, rent=rent_table(s.rent, b.max_houses, b.hotels, params.max_houses,
                                       params.hotels)) if s.kind == "street" else s
            for s in schema.squares)
        bank = replace(b, max_houses=params.max_houses, hotels=params.hotels)
        return replace(schema, squares=squares, bank=bank)


class _Stock(NoveltyParams):
    houses: int = Field(ge=0, le=200)
    hotels: int = Field(ge=0, le=100)


class BuildingStock(Novelty):
    """The bank holds fewer houses and hotels: a shortage lets whoever builds first lock the
    others out, so building early (and holding houses rather than hotels) matters more
    than the standard stock suggests."""

    name = "building_stock"
    category = "attribute"
    description = ("The bank holds `houses` houses and `hotels` hotels; hard leaves 6 and 2, "
                   "so the housing shortage decides who can develop.")
    Params = _Stock
    presets = {"easy": {"houses": 20, "hotels": 8}, "medium": {"houses": 12, "hotels": 4},
               "hard": {"houses": 6, "hotels": 2}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The bank with the new house and hotel stock."""
        return set_bank(schema, house_stock=params.houses, hotel_stock=params.hotels)


# --- charges for building -------------------------------------------------------------
class _ThirdHouse(NoveltyParams):
    fee: int = Field(ge=1, le=5000)
    level: int = Field(3, ge=1, le=10)


class ThirdHouseFee(Novelty):
    """Building a given house on a street costs an extra fee: building up to that level is
    dearer than the house cost says, which changes how far it pays to build."""

    name = "third_house_fee"
    category = "class"
    description = ("Building up to the `level`-th house on a street costs an extra `fee` "
                   "(paid at the end of the turn); easy charges 400 for every first house, hard "
                   "300 for the 3rd house only.")
    Params = _ThirdHouse
    presets = {"easy": {"fee": 400, "level": 1}, "medium": {"fee": 300, "level": 2},
               "hard": {"fee": 300}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook charging for each house built to the level that turn;
        unannounced."""
        if params.level > schema.bank.max_houses:
            raise ValueError(f"level {params.level} is above the {schema.bank.max_houses} "
                             "houses a street may hold")
        fee, level = params.fee, params.level

        def end_of_turn(game: Any, seat: int) -> Any:
            owed: dict[int, int] = {}
            for e in game.turn_events():
                if e.kind == "building_changed" and e.reason == "built" and e.level == level:
                    owed[e.seat] = owed.get(e.seat, 0) + fee
            return levy(game, owed, "house_fee") if owed else None

        return Applied(schema, Hooks(end_of_turn=end_of_turn), (HookChange(
            "rule:end_of_turn", f"fee for house {level}",
            f"building the house number {level} on a street costs an extra fee", False,
            0, fee),))


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
