"""openmono: a complete, fast Monopoly rules engine on a validated, frozen schema.

A game between four agents that buy whatever they can afford:

Examples:
    >>> import openmono
    >>> class Buyer:
    ...     def act(self, obs):
    ...         legal = obs.legal_actions()
    ...         return next((a for a in legal if a.kind == "buy"), legal[0])
    >>> result = openmono.play_game(openmono.standard_schema(), [Buyer() for _ in range(4)], seed=7)
    >>> result.end_reason in ("bankruptcy", "turn_limit"), 0 <= result.winner < 4
    (True, True)

    The schema is data: change it, and the game changes with it.

    >>> schema = openmono.standard_schema()
    >>> schema.bank.go_salary, len(schema.squares)
    (200, 40)
    >>> bank = schema.bank.model_copy(update={"go_salary": 400})
    >>> richer = schema.model_copy(update={"bank": bank})
    >>> openmono.compile_rules(richer).bank.go_salary
    400
"""

from importlib.metadata import PackageNotFoundError, version

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

try:  # pyproject.toml is the one place the version is written; this reads it back.
    __version__ = version("openmono")
except PackageNotFoundError:  # a source tree on sys.path that was never installed
    __version__ = "0+unknown"

__all__ = [
    "AcceptTrade", "Action", "Bid", "Build", "Buy", "Conclude", "Decline", "DropOut", "Game",
    "GameResult", "GameSchema", "GameState", "Hooks", "Mortgage", "Observation", "OfferTrade",
    "PayJailFine", "RejectTrade", "Rules", "SchemaError", "SellBuilding", "SellProperty",
    "Unmortgage", "UseJailCard", "compile_rules", "gnome_schema", "load_schema", "play_game",
    "replay", "rules_schema", "standard_schema",
]
