"""Attribute novelties whose new value matters only in a situation most games never reach.

`cash_cap` sets a bank rule the standard game leaves off (GNOME's cash cap): a player
whose cash passes the cap ends the game, the highest net worth winning. Baseline players
spend what they earn, so few games ever see a cash pile that large; the hard preset
picks the level fewest games reach. When it fires the game ends at once, so the change
is rare to see but large when seen.
"""

from __future__ import annotations

from pydantic import Field

from novelties.base import NoveltyParams
from novelties.catalogue._common import BankValue


class _Cap(NoveltyParams):
    value: int = Field(ge=0, le=1_000_000)


class CashCap(BankValue):
    name = "cash_cap"
    description = ("The game ends after a turn in which a player's cash exceeds `value` (the "
                   "highest net worth wins); hard caps at 3000, a pile few players ever hold.")
    field = "cash_cap"
    Params = _Cap
    presets = {"easy": {"value": 2000}, "medium": {"value": 2500}, "hard": {"value": 3000}}
