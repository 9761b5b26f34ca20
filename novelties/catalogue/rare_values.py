"""Attribute novelties whose new value matters only in a situation most games never reach.

`cash_cap` sets a bank rule the standard game leaves off (GNOME's cash cap): a player
whose cash passes the cap ends the game, the highest net worth winning. Baseline players
spend what they earn, so few games ever see a cash pile that large; the hard preset
picks the level fewest games reach. When it fires the game ends at once, so the change
is rare to see but large when seen.

`turn_limit` moves the bank's turn limit (1,000 turns in the standard game), after which
the highest net worth wins. Under `effects` agents are still shown the old limit; only a
game that lasts long enough shows the new one, and the hard preset picks a length few
games reach. It can only shorten a game, so where it fires it matters.

`repair_costs` changes what the street-repairs cards charge; a charge per hotel shows
only when a player holding a hotel draws the card.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openmono.schema import GameSchema

from novelties.base import Novelty, NoveltyParams, replace
from novelties.catalogue._common import BankValue, swap_money_in_text


class _Limit(NoveltyParams):
    value: int = Field(ge=1, le=100_000)


class TurnLimit(BankValue):
    """The game ends at another turn limit, the highest net worth winning: a short game
    rewards net worth over a slow squeeze to bankruptcy, so long-term plans pay less than
    an agent expects."""

    name = "turn_limit"
    description = ("The game ends after `value` turns instead of 1,000 (the highest net worth "
                   "wins); hard ends it after turn 200, which about one baseline game in 30 "
                   "reaches.")
    field = "turn_limit"
    Params = _Limit
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"value": 80}, "medium": {"value": 150}, "hard": {"value": 200}}


class _Cap(NoveltyParams):
    value: int = Field(ge=0, le=1_000_000)


class CashCap(BankValue):
    """The game ends once a player's cash passes a cap, the highest net worth winning: a
    rich leader can end the game on its terms, and a plan of building up cash first is
    cut short."""

    name = "cash_cap"
    description = ("The game ends after a turn in which a player's cash exceeds `value` (the "
                   "highest net worth wins); hard caps at 3000, a pile few players ever hold.")
    field = "cash_cap"
    Params = _Cap
    presets = {"easy": {"value": 2000}, "medium": {"value": 2500}, "hard": {"value": 3000}}


# --- street repairs: what a hotel costs ------------------------------------------------------
class _Repairs(NoveltyParams):
    deck: str | None = None  # None: every repairs card
    house: int | None = Field(default=None, ge=0, le=5000)  # None: unchanged
    hotel: int | None = Field(default=None, ge=0, le=5000)
    update_text: bool = False


class RepairCosts(Novelty):
    """The repairs cards charge other amounts per house and hotel: the risk of holding
    buildings, which an agent weighs in how far it builds, is not the printed one."""

    name = "repair_costs"
    category = "attribute"
    description = ("The repairs cards charge other amounts per house and per hotel (decks are "
                   "hidden: only a draw shows it); hard raises Community Chest's charge per "
                   "hotel from 115 to 150 and keeps the old text, seen only when a player "
                   "holding a hotel draws it.")
    Params = _Repairs
    presets = {"easy": {"house": 50, "hotel": 150, "update_text": True},
               "medium": {"deck": "community_chest", "house": 50},
               "hard": {"deck": "community_chest", "hotel": 150}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The decks with the repairs cards' charges changed (texts only with
        `update_text`); a change that changes nothing is refused."""
        names = [d.name for d in schema.decks]
        if params.deck is not None and params.deck not in names:
            raise ValueError(f"unknown deck {params.deck!r}; decks: {', '.join(names)}")
        if params.house is None and params.hotel is None:
            raise ValueError("set house or hotel (the new charge per house or per hotel)")
        decks, changed = [], 0
        for d in schema.decks:
            cards = []
            for c in d.cards:
                if c.kind == "repairs" and params.deck in (None, d.name):
                    house = c.per_house if params.house is None else params.house
                    hotel = c.per_hotel if params.hotel is None else params.hotel
                    text = c.text
                    if params.update_text:
                        text = swap_money_in_text(swap_money_in_text(
                            text, c.per_hotel, hotel), c.per_house, house)
                    if (house, hotel) != (c.per_house, c.per_hotel):
                        changed += 1
                    c = replace(c, per_house=house, per_hotel=hotel, text=text)
                cards.append(c)
            decks.append(replace(d, cards=tuple(cards)))
        if not changed:
            raise ValueError("no repairs card changes: its charges are already these")
        return replace(schema, decks=tuple(decks))
