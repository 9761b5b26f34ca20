"""Forwards the plugins once here to their homes by what they change, for one release
(`novelties.catalogue.subtle_board:ClassName` paths still load)."""

from __future__ import annotations

from novelties.catalogue.board import SquareNudge  # noqa: F401
from novelties.catalogue.groups import GroupSplit  # noqa: F401
from novelties.catalogue.names import (  # noqa: F401
    RenamedDeck, RenamedProperty, RewordedCards, reword)
from novelties.catalogue.observation_holdings import (  # noqa: F401
    HiddenJailCards, HiddenOpponentJail)
