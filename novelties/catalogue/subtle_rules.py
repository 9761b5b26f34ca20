"""Forwards the plugins once here to their homes by what they change, for one release
(`novelties.catalogue.subtle_rules:ClassName` paths still load)."""

from __future__ import annotations

from novelties.catalogue.buildings import ThirdHouseFee  # noqa: F401
from novelties.catalogue.cards import CardFee  # noqa: F401
from novelties.catalogue.payments import (  # noqa: F401
    AuctionPremium, DoublesFee, JailUpkeep, LateSalary, PoorRelief)
from novelties.catalogue.rents import (  # noqa: F401
    DoublesRent, FirstLapGrace, LateRent, RentLevy, RichRent)
from novelties.catalogue.squares import LuckySquare  # noqa: F401
