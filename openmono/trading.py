"""Trades under the engine's rules: an offer, its answer (at once or at the receiver's
next phase), its execution with the mortgage transfer fees, and get-out-of-jail cards
changing hands (a part of `openmono.engine.Game`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generator

from openmono import actions as A
from openmono import events as E
from openmono import legal
from openmono.decision import Decision
from openmono.events import BANK
from openmono.flow import Request, new_tuple

if TYPE_CHECKING:
    from openmono.parts import GameParts  # the `self` of the parts (annotations only)


class Trading:
    """The trade rules of `Game` (mixed in)."""

    def _trade(self: GameParts, seat: int, action: A.OfferTrade) -> Generator[Request, Any, None]:
        # The engine keeps and executes an immutable copy of the terms: the events and
        # the receiver see the same value, and nobody can change it afterwards.
        offer = action.terms()
        to = offer.to
        if self.rules.bank.trade_answer == "next_turn":
            if self.pending_offers[to] is not None:  # one outstanding offer per player
                self.events.append(new_tuple(E.TradeAnswered, (offer, seat, False)))
                return
            self.events.append(new_tuple(E.TradeOffered, (offer, seat)))
            self.pending_offers[to] = (seat, offer)
            return
        self.events.append(new_tuple(E.TradeOffered, (offer, seat)))
        yield from self._answer(seat, offer)

    def _answer_pending(self: GameParts, to: int) -> Generator[Request, Any, None]:
        """The receiver's answer to the offer that waited for its phase."""
        seat, offer = self.pending_offers[to]
        self.pending_offers[to] = None
        if not self.state.active[seat]:
            self.events.append(new_tuple(E.TradeAnswered, (offer, seat, False)))
            return
        yield from self._answer(seat, offer)

    def _answer(self: GameParts, seat: int, offer: A.OfferTrade) -> Generator[Request, Any, None]:
        to = offer.to
        d = Decision("trade_response", offer=offer, offerer=seat)
        answer = yield to, d
        answer = self._validate(to, d, answer)
        accepted = type(answer) is A.AcceptTrade
        if accepted and legal.check_accept(self.rules, self.state, to, seat, offer) is not None:
            accepted = False  # the receiver cannot pay its side: the trade fails
        self.events.append(new_tuple(E.TradeAnswered, (offer, seat, accepted)))
        if accepted:
            if self.rules.bank.mortgaged_transfer == "choose" and (
                    legal.trade_fees(self.rules, self.state, offer.give + offer.get)):
                lift_to = [sq for sq in offer.give if self.state.mortgaged[sq]]
                lift_seat = [sq for sq in offer.get if self.state.mortgaged[sq]]
                self._execute_trade(seat, offer, fees=False)
                yield from self._receive_mortgaged(to, lift_to, legal_fee=False)
                yield from self._receive_mortgaged(seat, lift_seat, legal_fee=False)
            else:
                self._execute_trade(seat, offer)

    def _receive_mortgaged(self: GameParts, seat: int, squares: list[int],
                           legal_fee: bool) -> Generator[Request, Any, None]:
        """Official rule for a mortgaged property received: per property, the new owner
        lifts the mortgage at once (mortgage + interest) or pays the interest now. With
        `legal_fee` the interest may open a debt phase (bankruptcy); after a trade the
        receiver's cash was checked when it accepted."""
        st = self.state
        rules = self.rules
        for sq in squares:
            if not st.active[seat] or st.owner[sq] != seat or not st.mortgaged[sq]:
                continue
            d = Decision("lift_mortgage", square=sq)
            action = self._validate(seat, d, (yield seat, d))
            if type(action) is A.Unmortgage:
                self._pay(seat, BANK, rules.unmortgage_cost[sq], "unmortgage", sq)
                st.set_mortgaged(sq, False)
                self.events.append(new_tuple(E.MortgageChanged, (seat, sq, False)))
            elif legal_fee:
                yield from self._charge(seat, BANK, rules.transfer_fee[sq],
                                        "mortgage_transfer_fee", sq)
            else:
                self._pay(seat, BANK, rules.transfer_fee[sq], "mortgage_transfer_fee", sq)

    def _execute_trade(self: GameParts, seat: int, offer: A.OfferTrade, fees: bool = True) -> None:
        st = self.state
        rules = self.rules
        to = offer.to
        fees_to = legal.trade_fees(rules, st, offer.give) if fees else 0
        fees_seat = legal.trade_fees(rules, st, offer.get) if fees else 0
        if offer.give_cash:
            self._pay(seat, to, offer.give_cash, "trade")
        if offer.get_cash:
            self._pay(to, seat, offer.get_cash, "trade")
        for sq in offer.give:
            self._transfer_property(sq, seat, to, "trade")
        for sq in offer.get:
            self._transfer_property(sq, to, seat, "trade")
        if fees_to:
            self._pay(to, BANK, fees_to, "mortgage_transfer_fee")
        if fees_seat:
            self._pay(seat, BANK, fees_seat, "mortgage_transfer_fee")
        for _ in range(offer.give_jail_cards):
            self._move_jail_card(seat, to)
        for _ in range(offer.get_jail_cards):
            self._move_jail_card(to, seat)
        self.trades += 1

    def _move_jail_card(self: GameParts, src: int, dst: int) -> None:
        card = self.state.give_up_jail_card(src)
        self.state.hold_jail_card(dst, card)
        self.events.append(new_tuple(E.JailCardMoved, (src, dst, self.rules.deck_names[card[0]])))
