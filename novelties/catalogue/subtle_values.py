"""Forwards the plugins once here to their homes by what they change, for one release
(`novelties.catalogue.subtle_values:ClassName` paths still load)."""

from __future__ import annotations

from novelties.catalogue.cards import CardAmount  # noqa: F401
from novelties.catalogue.dice import (  # noqa: F401
    BrokenDouble, JailDice, RethrownSevens, ShiftedFace, StickyDoubles)
from novelties.catalogue.money import OnePrice  # noqa: F401
from novelties.catalogue.rents import LevelRent, RailroadRents, UtilityMultiplier  # noqa: F401
