"""openmono: a complete, fast Monopoly rules engine on a validated, mutable schema."""

from openmono.actions import (AcceptTrade, Action, Bid, Build, Buy, Conclude, Decline, DropOut,
                              Mortgage, OfferTrade, PayJailFine, RejectTrade, SellBuilding,
                              SellProperty, Unmortgage, UseJailCard)
from openmono.compiled import Rules, compile_rules
from openmono.engine import Game
from openmono.hooks import Hooks
from openmono.observation import Observation
from openmono.play import GameResult, play_game, replay
from openmono.schema import (GameSchema, SchemaError, gnome_schema, load_schema, rules_schema,
                             standard_schema)
from openmono.state import GameState

__all__ = [
    "AcceptTrade", "Action", "Bid", "Build", "Buy", "Conclude", "Decline", "DropOut", "Game",
    "GameResult", "GameSchema", "GameState", "Hooks", "Mortgage", "Observation", "OfferTrade",
    "PayJailFine", "RejectTrade", "Rules", "SchemaError", "SellBuilding", "SellProperty",
    "Unmortgage", "UseJailCard", "compile_rules", "gnome_schema", "load_schema", "play_game",
    "replay", "rules_schema", "standard_schema",
]
