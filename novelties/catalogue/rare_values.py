"""Forwards the plugins once here to their homes by what they change, for one release
(`novelties.catalogue.rare_values:ClassName` paths still load)."""

from __future__ import annotations

from novelties.catalogue.cards import RepairCosts  # noqa: F401
from novelties.catalogue.endings import CashCap, TurnLimit  # noqa: F401
