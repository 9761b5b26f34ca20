"""Forwards the plugins once here to their homes by what they change, for one release
(`novelties.catalogue.rare_view:ClassName` paths still load)."""

from __future__ import annotations

from novelties.catalogue.observation import CappedOpponentCash, RoundedRichCash  # noqa: F401
from novelties.catalogue.observation_events import (  # noqa: F401
    CappedOpponentRents, LateHiddenCards, LateHiddenTrades)
from novelties.catalogue.observation_holdings import (  # noqa: F401
    HiddenHotels, HiddenJailCardPair, HiddenRailroadSet)
