"""Attribute novelties on money: rents, prices, costs, taxes and the bank's numbers.
`one_price` changes the price of one property only.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openmono.schema import GameSchema

from novelties.base import Novelty, NoveltyParams, replace
from novelties.catalogue._common import BankValue, ScaleSquares, map_squares, set_bank


_OUTER = ["orange", "red", "yellow", "green"]


class RentHike(ScaleSquares):
    """Rents rise, on the board or only in what is charged: landing on a rival's square
    costs more than an agent keeping a cash floor by the printed rents allows for."""

    name = "rent_hike"
    description = ("Rents multiplied by `factor` on all or some groups; medium triples every "
                   "rent while the board still shows the old rents (only payments reveal it); "
                   "hard doubles the rents of the outer groups only.")
    field = "rent"
    hook = "rent"
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {
        "easy": {"factor": 1.5, "groups": "all"},
        "medium": {"factor": 3.0, "groups": "all", "printed": False},
        "hard": {"factor": 2.0, "groups": _OUTER},
    }


class PropertyPrices(ScaleSquares):
    """Property prices change (mortgage values follow): what an agent can afford to buy, and
    whether a square is worth its price, are off."""

    name = "property_prices"
    description = ("Property prices multiplied by `factor` (mortgage values follow); hard "
                   "halves every price, so the board sells out at once and cash runs differently.")
    field = "price"
    presets = {
        "easy": {"factor": 1.2, "groups": "all"},
        "medium": {"factor": 1.6, "groups": _OUTER},
        "hard": {"factor": 0.5, "groups": "all"},
    }


class HouseCosts(ScaleSquares):
    """Houses and hotels cost more to build: the return on building falls, so sets worth
    developing under the printed costs may not be."""

    name = "house_costs"
    description = ("House and hotel costs multiplied by `factor` on some groups; easy makes "
                   "building 2.5x dearer everywhere, which changes which sets are worth it; "
                   "hard adds 25% on the two cheapest groups only.")
    field = "house_cost"
    kinds = ("street",)
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {
        "easy": {"factor": 2.5, "groups": "all"},
        "medium": {"factor": 1.5, "groups": "all"},
        "hard": {"factor": 1.25, "groups": ["brown", "light_blue"]},
    }


class _TaxScale(NoveltyParams):
    factor: float = Field(gt=0, le=20)
    printed: bool = True


class TaxAmounts(ScaleSquares):
    """Tax squares charge more, on the board or only in what is charged: a cost an agent's
    cash reserve is sized for grows."""

    name = "tax_amounts"
    description = ("Tax squares charge `factor` times their amount; hard triples them while "
                   "the board shows the old amounts (only the tax payments reveal it).")
    Params = _TaxScale
    field = "tax"
    kinds = ("tax",)
    hook = "tax"
    presets = {
        "easy": {"factor": 1.5},
        "medium": {"factor": 2.0},
        "hard": {"factor": 3.0, "printed": False},
    }


class _Money(NoveltyParams):
    value: int = Field(ge=0, le=100_000)


class GoSalary(BankValue):
    """The Go salary changes: the steady income an agent counts on to rebuild cash between
    rents grows, shrinks or disappears."""

    name = "go_salary"
    description = ("The salary for passing Go becomes `value`; hard pays nothing, so income "
                   "comes only from rents and cards.")
    field = "go_salary"
    Params = _Money
    presets = {"easy": {"value": 300}, "medium": {"value": 100}, "hard": {"value": 0}}


class StartingCash(BankValue):
    """Players start with other cash: what is affordable early (buying, auctions, building)
    and how fast the first rents bankrupt someone change."""

    name = "starting_cash"
    description = ("Each player starts with `value`; hard starts with 500, so early purchases "
                   "and the first rents decide the game.")
    field = "starting_cash"
    Params = _Money
    presets = {"easy": {"value": 2000}, "medium": {"value": 1000}, "hard": {"value": 500}}


class JailFine(BankValue):
    """The fine to leave jail changes: whether paying out at once beats waiting for a double
    (or using a card) is not what an agent learnt."""

    name = "jail_fine"
    description = ("The fine to leave jail becomes `value`; hard makes it 500, so waiting out "
                   "the jail turns or holding a card becomes the only sane choice.")
    field = "jail_fine"
    Params = _Money
    presets = {"easy": {"value": 100}, "medium": {"value": 200}, "hard": {"value": 500}}


class _Rate(NoveltyParams):
    value: float = Field(ge=0, le=5)


class MortgageInterest(BankValue):
    """The interest to lift a mortgage changes: a mortgage stops being cheap short-term
    credit, so raising cash by mortgaging costs more than an agent plans."""

    name = "mortgage_interest"
    description = ("Interest to lift a mortgage (and on mortgaged trades) becomes `value`; "
                   "hard charges 100%, which makes a mortgage nearly a sale.")
    field = "mortgage_interest"
    Params = _Rate
    presets = {"easy": {"value": 0.2}, "medium": {"value": 0.5}, "hard": {"value": 1.0}}


class _Fraction(NoveltyParams):
    fraction: float = Field(gt=0, le=1)


class MortgageValues(Novelty):
    """A mortgage raises another share of the price: the cash a player in debt can raise by
    mortgaging, and so how safe an agent's position is, are off."""

    name = "mortgage_value"
    category = "attribute"
    description = ("A mortgage raises `fraction` of the price instead of half; hard gives only "
                   "10%, so mortgaging barely helps a player in debt.")
    Params = _Fraction
    presets = {"easy": {"fraction": 0.6}, "medium": {"fraction": 0.3},
               "hard": {"fraction": 0.1}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """Every property's mortgage value set to `fraction` of its price."""
        return map_squares(schema, lambda i, s: replace(
            s, mortgage=int(s.price * params.fraction)) if s.is_property else s)


class _SellBack(NoveltyParams):
    building: float = Field(ge=0, le=1)
    property: float | None = Field(None, ge=0, le=1)


class SellBack(Novelty):
    """Buildings (and properties) sell back to the bank at another share of their cost:
    building is harder to undo, so building deep is riskier than an agent plans."""

    name = "sellback"
    category = "attribute"
    description = ("Buildings sell back at `building` of their cost (and, if set, the bank buys "
                   "property at `property` of its price); hard refunds nothing for buildings.")
    Params = _SellBack
    presets = {"easy": {"building": 0.75}, "medium": {"building": 0.25},
               "hard": {"building": 0.0, "property": 0.5}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The bank's sell-back fractions for buildings and (if set) properties."""
        return set_bank(schema, building_sellback=params.building,
                        property_sellback=params.property)


class _Turns(NoveltyParams):
    value: int = Field(ge=1, le=20)


class JailTurns(BankValue):
    """A jailed player is held for another number of failed rolls: jail lasts longer or
    shorter, which changes whether jail is a haven late in the game."""

    name = "jail_turns"
    description = ("A jailed player must pay after `value` failed rolls instead of 3; hard "
                   "keeps players in jail for 6 turns (a safe haven late in the game).")
    field = "max_jail_turns"
    Params = _Turns
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"value": 1}, "medium": {"value": 2}, "hard": {"value": 6}}


class _Doubles(NoveltyParams):
    roll_again: bool = True
    to_jail: int = Field(3, ge=0, le=10)


class DoublesRule(Novelty):
    """What doubles do changes (rolling again, going to jail): an agent's sense of how far a
    turn can carry it, and of the jail risk of doubles, is off."""

    name = "doubles_rule"
    category = "attribute"
    description = ("Changes what doubles do (roll again; how many send you to jail); easy "
                   "jails a player on the first double, hard on the second (seen only then).")
    Params = _Doubles
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"to_jail": 1}, "medium": {"roll_again": False, "to_jail": 0},
               "hard": {"to_jail": 2}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The bank's doubles rules: whether a double rolls again, and how many send a
        player to jail."""
        return set_bank(schema, doubles_roll_again=params.roll_again,
                        doubles_to_jail=params.to_jail)


class _Collapse(NoveltyParams):
    groups: list[str] = Field(min_length=1)
    factor: float = Field(gt=0, lt=1)
    from_level: int = Field(0, ge=0, le=5)


class RentCollapse(Novelty):
    """Rents that fall so far that the old plan is wrong, not merely taxed: a set in a
    collapsed group, and every house built there, earns almost nothing, while the
    groups left alone are worth what they were. A player valuing sets by the printed
    rents trades for, and builds on, the wrong ones."""

    name = "rent_collapse"
    category = "attribute"
    description = ("Street rents of the chosen groups fall to `factor` of the printed rent "
                   "(at least 1) from building level `from_level` on; easy collapses the houses "
                   "and hotels of the five dearest colour groups, medium of the four dearest, "
                   "hard only from the second house on, seen once someone lands on a street "
                   "built that far.")
    Params = _Collapse
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {
        "easy": {"groups": ["orange", "red", "yellow", "green", "dark_blue"],
                 "factor": 0.02, "from_level": 1},
        "medium": {"groups": ["red", "yellow", "green", "dark_blue"], "factor": 0.02,
                   "from_level": 1},
        "hard": {"groups": ["red", "yellow", "green", "dark_blue"], "factor": 0.02,
                 "from_level": 2},
    }

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        from novelties.catalogue._common import select_groups

        groups = set(select_groups(schema, params.groups, streets_only=True))
        lv, f = params.from_level, params.factor
        targets = {s.name for s in schema.squares
                   if s.kind == "street" and s.group in groups and len(s.rent) > lv}
        if not targets:
            raise ValueError(f"no street of the chosen groups has a rent at level {lv}")

        def collapsed(rent: tuple[int, ...]) -> tuple[int, ...]:
            # (at least 1: a rent is still paid, so the change shows as a payment)
            return rent[:lv] + tuple(max(1, int(r * f)) for r in rent[lv:])

        return map_squares(schema, lambda i, s: replace(s, rent=collapsed(s.rent))
                           if s.name in targets else s)


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
