"""Attribute novelties on buildings: how many per street, and the bank's stock."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openmono.schema import GameSchema

from novelties.base import Novelty, NoveltyParams, replace
from novelties.catalogue._common import set_bank


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
