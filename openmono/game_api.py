"""The game as a plugin's rule hooks and kind handlers see it: a narrow, documented door.

A hook or handler receives a `GameAPI`, never the `Game`: it may read the rules and the
state, charge and pay through the engine's own money rules (a shortfall opens a debt
phase), move and land players, emit events and keep per-game plugin state. Nothing else
of the engine is reachable through it, so a plugin cannot depend on engine internals
(`tests/test_layers.py` also fails on any private engine attribute used in `novelties/`).

Examples:
    >>> import openmono
    >>> from openmono.engine import Game
    >>> game = Game(openmono.standard_schema(), players=4, seed=3)
    >>> api = game.api
    >>> api.state.cash
    (1500, 1500, 1500, 1500)
    >>> api.pay(0, 100, "bonus")
    >>> api.state.cash[0], api.turn_events()[-1].reason
    (1600, 'bonus')
    >>> api.plugin_state("pot", lambda: [0])[0] += 5
    >>> api.plugin_state("pot", list)
    [5]
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Generator, Protocol, cast

from openmono.compiled import Rules
from openmono.events import TurnStarted
from openmono.schema import GameSchema
from openmono.state import GameState, net_worth


class PluginHost(Protocol):
    """The part of a running game this door opens onto (`openmono.engine.Game` is one;
    naming it here rather than importing it keeps the engine the only importer)."""

    rules: Rules
    state: GameState
    players: int
    seed: int
    events: list
    shown: GameSchema | None

    def charge(self, payer: int, payee: int, amount: int, reason: str,
               sq: int = -1) -> Generator[Any, Any, bool]:
        """See `GameAPI.charge`."""

    def pay_from_bank(self, seat: int, amount: int, reason: str, sq: int = -1) -> None:
        """See `GameAPI.pay`."""

    def move_to(self, p: int, target: int,
                collect_go: bool = True) -> Generator[Any, Any, None]:
        """See `GameAPI.move_to`."""

    def land(self, p: int, sq: int, dice_total: int = 0) -> Generator[Any, Any, None]:
        """See `GameAPI.land`."""


class StateView:
    """The public state of a running game, read-only: every field is a fresh tuple."""

    __slots__ = ("_state",)

    def __init__(self, state: Any) -> None:
        self._state = state

    @property
    def players(self) -> int:
        """How many seats the game has."""
        return self._state.players

    @property
    def turn(self) -> int:
        """The turn in progress (from 0)."""
        return self._state.turn

    @property
    def current(self) -> int:
        """Whose turn it is."""
        return self._state.current

    @property
    def cash(self) -> tuple[int, ...]:
        """Cash per seat."""
        return tuple(self._state.cash)

    @property
    def position(self) -> tuple[int, ...]:
        """Board index per seat."""
        return tuple(self._state.position)

    @property
    def in_jail(self) -> tuple[bool, ...]:
        """Whether each seat is in jail."""
        return tuple(self._state.in_jail)

    @property
    def jail_turns(self) -> tuple[int, ...]:
        """Turns each seat has spent in jail so far."""
        return tuple(self._state.jail_turns)

    @property
    def jail_cards(self) -> tuple[int, ...]:
        """Get-out-of-jail cards held, per seat."""
        return tuple(map(len, self._state.jail_cards))

    @property
    def active(self) -> tuple[bool, ...]:
        """Whether each seat is still playing (not bankrupt)."""
        return tuple(self._state.active)

    @property
    def owner(self) -> tuple[int, ...]:
        """Owner per square (a seat, or -1 for the bank / unownable)."""
        return tuple(self._state.owner)

    @property
    def level(self) -> tuple[int, ...]:
        """Buildings per square (houses; `max_houses + 1` is a hotel)."""
        return tuple(self._state.level)

    @property
    def mortgaged(self) -> tuple[bool, ...]:
        """Whether each square is mortgaged."""
        return tuple(self._state.mortgaged)

    @property
    def houses_left(self) -> int:
        """Houses left in the bank."""
        return self._state.houses_left

    @property
    def hotels_left(self) -> int:
        """Hotels left in the bank."""
        return self._state.hotels_left


class GameAPI:
    """What a plugin may do with a running game (one per game, see `Game.api`).

    It holds its game weakly: the game owns it, and a strong reference back would make
    a cycle that leaves every finished game to the cyclic collector (see
    `openmono.play`). Used after its game is gone, it raises ReferenceError.
    """

    __slots__ = ("_game", "_store", "_view")

    def __init__(self, game: PluginHost) -> None:
        self._game = cast(PluginHost, weakref.proxy(game))
        self._store: dict[str, Any] = {}
        self._view = StateView(game.state)

    # --- reading ---------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        """The compiled rules in force (engine-side: hidden parts included). Read only."""
        return self._game.rules

    @property
    def state(self) -> StateView:
        """A read-only view of the state (tuples)."""
        return self._view

    @property
    def players(self) -> int:
        """How many seats the game has."""
        return self._game.players

    @property
    def seed(self) -> int:
        """The game's seed (for a plugin's own random stream)."""
        return self._game.seed

    def net_worth(self, seat: int) -> int:
        """Cash + properties at price (mortgaged: minus the mortgage) + buildings at cost."""
        return net_worth(self._game.rules, self._game.state, seat)

    def turn_events(self) -> tuple:
        """The events of the turn in progress (since the last `TurnStarted`)."""
        evs = self._game.events
        for k in range(len(evs) - 1, -1, -1):
            if type(evs[k]) is TurnStarted:
                return tuple(evs[k + 1:])
        return tuple(evs)

    # --- acting ----------------------------------------------------------------------
    def charge(self, payer: int, payee: int, amount: int, reason: str,
               square: int = -1) -> Generator[Any, Any, bool]:
        """Make `payer` pay (`payee` a seat or `openmono.events.BANK`); use with
        `yield from`: a shortfall opens a debt phase, then bankruptcy. True when paid.
        (When the rules are not announced, the reason reads `rule_charge`.)"""
        if self._game.shown is not None:
            reason = "rule_charge"
        return self._game.charge(payer, payee, amount, reason, square)

    def pay(self, seat: int, amount: int, reason: str, square: int = -1) -> None:
        """The bank pays `seat` (it never runs short); a `Payment` keeps the books.
        (When the rules are not announced, the reason reads `rule_payout`.)"""
        if self._game.shown is not None:
            reason = "rule_payout"
        self._game.pay_from_bank(seat, amount, reason, square)

    def move_to(self, seat: int, target: int,
                collect_go: bool = True) -> Generator[Any, Any, None]:
        """Move `seat` forward to `target` and land there; use with `yield from`."""
        return self._game.move_to(seat, target, collect_go)

    def land(self, seat: int, square: int, dice_total: int = 0) -> Generator[Any, Any, None]:
        """The landing effect of `square` for `seat`, without moving; use with
        `yield from`. `dice_total` prices utility rent (0: the dice are thrown)."""
        return self._game.land(seat, square, dice_total)

    def emit(self, event: Any) -> None:
        """Record an event (a NamedTuple of plain values with a `kind`) for every agent."""
        if not isinstance(event, tuple) or not isinstance(getattr(event, "kind", None), str):
            raise TypeError("an event is a NamedTuple of plain values with a `kind`")
        self._game.events.append(event)

    def plugin_state(self, key: str, factory: Callable[[], Any]) -> Any:
        """Per-game storage for a plugin (loans, a jackpot, ...): made by `factory` once."""
        store = self._store
        if key not in store:
            store[key] = factory()
        return store[key]
