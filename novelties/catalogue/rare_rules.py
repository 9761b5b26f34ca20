"""Forwards the plugins once here to their homes by what they change, for one release
(`novelties.catalogue.rare_rules:ClassName` paths still load)."""

from __future__ import annotations

from novelties.catalogue.buildings import HotelPermit, HotelUpkeep  # noqa: F401
from novelties.catalogue.payments import RailroadSalary, RichSalary  # noqa: F401
