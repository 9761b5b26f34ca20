"""Charges a rule levies on what a player holds: the planner's beliefs about class rules
its schema cannot write down.

A class novelty adds a rule rather than changing a number, so the believed schema, from
which V is computed, has no place for it. Three kinds of new rule charge a player for
what it builds, and so change which plan is right:

- *upkeep*: at the end of each of its turns a player holding at least h hotels pays a
  fee (or, learnt from payments, about so much per house and per hotel held);
- *a building tax*: a tax square also charges per house and per hotel the payer owns;
- *a build fee*: building the house that brings a street to level L costs an extra fee.

`V` subtracts what the charges will cost over the planner's horizon (the k turns of
R_s plus the turns of the k loops of R_l), and a build pays its fee at once, so a rule
that makes hotels a burden turns the plan away from hotels.

The rules are read from `(entity, attribute, value)` triples in the ground-truth naming
of `novelties.base.HookChange` (`rule:HOOK`, ...): what a plugin declares (an agent
told the rules) or what the planner's detector characterised (`NoveltyChange`), and from
the parameters a tax square prints when the rule is announced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from openmono.schema import GameSchema

UPKEEP = ("rule:end_of_turn", "hotel upkeep")
HOLDING = ("rule:end_of_turn", "charge per building")  # learnt: {"house": x, "hotel": y}
TAX = ("rule:tax", "per building")
BUILD_FEE = "fee for house "  # + level, under "rule:end_of_turn"


@dataclass(frozen=True)
class Charges:
    """The rule charges the planner believes in (none by default: the printed rules)."""

    upkeep: tuple[tuple[int, int], ...] = ()  # (hotels held at least, fee per own turn)
    per_house_turn: float = 0.0  # charged per house held, per own turn (learnt)
    per_hotel_turn: float = 0.0
    tax_per_house: int = 0  # charged on a tax square per house the payer owns
    tax_per_hotel: int = 0
    build_fee: tuple[tuple[int, int], ...] = ()  # (level built to, extra fee)

    def __bool__(self) -> bool:
        return bool(self.upkeep or self.per_house_turn or self.per_hotel_turn
                    or self.tax_per_house or self.tax_per_hotel or self.build_fee)

    def per_turn(self, houses: int, hotels: int) -> float:
        """What one own turn costs a player holding these buildings."""
        out = self.per_house_turn * houses + self.per_hotel_turn * hotels
        for need, fee in self.upkeep:
            if hotels >= need:
                out += fee
        return out

    def per_tax_landing(self, houses: int, hotels: int) -> float:
        """What a tax landing costs on top of the printed tax for a player holding these
        buildings (a believed building tax)."""
        return self.tax_per_house * houses + self.tax_per_hotel * hotels

    def fee_for(self, level: int) -> int:
        """The extra fee for building a street up to `level`."""
        return sum(fee for lv, fee in self.build_fee if lv == level)


NO_CHARGES = Charges()


def charges_from(changes: Iterable[tuple[str, str, Any]],
                 schema: GameSchema | None = None) -> Charges:
    """The charges a list of rule changes describes (those it cannot express are left
    out), plus a building tax the tax squares of `schema` print."""
    upkeep: list[tuple[int, int]] = []
    house = hotel = 0.0
    tax_house = tax_hotel = 0
    fees: list[tuple[int, int]] = []
    for entity, attribute, new in changes:
        if (entity, attribute) == UPKEEP and isinstance(new, dict):
            upkeep.append((int(new.get("hotels", 1)), int(new.get("fee", 0))))
        elif (entity, attribute) == HOLDING and isinstance(new, dict):
            house, hotel = float(new.get("house", 0)), float(new.get("hotel", 0))
        elif (entity, attribute) == TAX and isinstance(new, dict):
            tax_house, tax_hotel = int(new.get("per_house", 0)), int(new.get("per_hotel", 0))
        elif (entity == "rule:end_of_turn" and attribute.startswith(BUILD_FEE)
              and isinstance(new, (int, float))):
            level = attribute[len(BUILD_FEE):]
            if level.isdigit():
                fees.append((int(level), int(new)))
    if schema is not None and not (tax_house or tax_hotel):
        for sq in schema.squares:
            if sq.kind == "tax" and ("per_house" in sq.params or "per_hotel" in sq.params):
                tax_house = int(sq.params.get("per_house", 0))
                tax_hotel = int(sq.params.get("per_hotel", 0))
                break
    return Charges(tuple(upkeep), house, hotel, tax_house, tax_hotel, tuple(fees))
