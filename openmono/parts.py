"""What the parts of `Game` use of each other through `self`: one typed protocol.

`openmono.engine.Game` is the order of play plus four parts mixed in: money
(`openmono.money.Money`), holdings (`openmono.holdings.Holdings`), trades
(`openmono.trading.Trading`) and moves (`openmono.moves.Moves`). Their methods call each
other and back into the engine through `self`; each of those methods annotates `self` as
`GameParts`, so that a reader (and a type checker: a protocol as a mixin's self-type) can
follow a `self.` call to the module that defines it. Below, every attribute and method a
part uses, grouped by where it lives. Annotations only: nothing here runs in a game.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Generator, Protocol

if TYPE_CHECKING:
    from openmono import actions as A
    from openmono.compiled import Rules
    from openmono.decision import Decision
    from openmono.flow import Request
    from openmono.game_api import GameAPI
    from openmono.hooks import Hooks
    from openmono.state import GameState

__all__ = ["GameParts"]


class GameParts(Protocol):
    """The `self` of `Game`'s parts: the game's data and the methods they call."""

    # --- data, set in `Game.__init__` (openmono.engine) -------------------------------
    rules: Rules
    state: GameState
    hooks: Hooks
    api: GameAPI
    events: list[Any]
    players: int
    seeds: dict[str, int]
    dice_rng: random.Random
    _after: list[tuple[int, ...]]
    pending_offers: list[tuple[int, A.OfferTrade] | None]
    bankrupt_order: list[int]
    trades: int
    auctions: int

    # --- the order of play and the decision point (openmono.engine.Game) ---------------
    def _validate(self, seat: int, d: Decision, action: Any) -> A.Action: ...
    def _execute(self, seat: int, action: A.Action,
                 d: Decision) -> Generator[Request, Any, None]: ...
    def _finish(self, winner: int, reason: str) -> None: ...

    # --- money (openmono.money.Money) ------------------------------------------------
    def _pay(self, payer: int, payee: int, amount: int, reason: str, sq: int = -1) -> None: ...
    def _charge(self, payer: int, payee: int, amount: int, reason: str,
                sq: int = -1) -> Generator[Request, Any, bool]: ...
    def _raise_cash(self, seat: int, amount: int,
                    creditor: int) -> Generator[Request, Any, None]: ...
    def liquidation_value(self, seat: int) -> int:
        """Cash `seat` could raise from the bank now (`Money.liquidation_value`)."""
    def _force_liquidation(self, seat: int, amount: int) -> None: ...
    def _bankrupt(self, seat: int, creditor: int) -> Generator[Request, Any, None]: ...

    # --- holdings (openmono.holdings.Holdings) ---------------------------------------
    def _is_hotel(self, sq: int) -> bool: ...
    def _can_build(self, q: int, hotel: bool) -> list[int]: ...
    def _bidders(self, seat: int, sq: int) -> list[int]: ...
    def _build(self, seat: int, sq: int, price: int | None = None) -> None: ...
    def _sell_building(self, seat: int, sq: int, reason: str) -> None: ...
    def _transfer_property(self, sq: int, src: int, dst: int, reason: str) -> None: ...
    def _offer_purchase(self, p: int, sq: int) -> Generator[Request, Any, None]: ...
    def _auction(self, sq: int, start: int) -> Generator[Request, Any, None]: ...

    # --- trades (openmono.trading.Trading) -------------------------------------------
    def _answer(self, seat: int, offer: A.OfferTrade) -> Generator[Request, Any, None]: ...
    def _receive_mortgaged(self, seat: int, squares: list[int],
                           legal_fee: bool) -> Generator[Request, Any, None]: ...
    def _execute_trade(self, seat: int, offer: A.OfferTrade, fees: bool = True) -> None: ...
    def _move_jail_card(self, src: int, dst: int) -> None: ...

    # --- moves (openmono.moves.Moves) ------------------------------------------------
    def _move(self, p: int, steps: int, reason: str, collect_go: bool) -> int: ...
    def _advance(self, p: int, steps: int, dice_total: int, reason: str,
                 collect_go: bool = True, rent_multiplier: float = 1.0,
                 dice_multiplier: int | None = None) -> Generator[Request, Any, None]: ...
    def _land(self, p: int, sq: int, dice_total: int, rent_multiplier: float = 1.0,
              dice_multiplier: int | None = None) -> Generator[Request, Any, None]: ...
    def rent(self, sq: int, dice_total: int) -> int:
        """The rent the owner of `sq` charges now (`Moves.rent`)."""
    def _draw(self, p: int, deck: int) -> Generator[Request, Any, None]: ...
    def _card_rng(self, deck: int) -> random.Random: ...
    def _jail(self, p: int, reason: str) -> None: ...
