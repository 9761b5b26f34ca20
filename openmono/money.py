"""Money under the engine's rules: payments, charges that open a debt phase, the debt
phase itself, forced liquidation and bankruptcy (a part of `openmono.engine.Game`).

Every cash movement is a `Payment` event and a `GameState.pay`; `charge` is what a
plugin uses (`yield from`): a payer short of cash raises it in a debt phase, then goes
bankrupt to its creditor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generator

from openmono import actions as A
from openmono import events as E
from openmono import legal
from openmono.decision import Decision
from openmono.events import BANK
from openmono.flow import GameOver, Request, new_tuple
from openmono.state import NOBODY

if TYPE_CHECKING:
    from openmono.parts import GameParts  # the `self` of the parts (annotations only)

# Debt actions that always remove something: they never use up a phase's action cap.
_LIQUIDATING = frozenset((A.SellBuilding, A.Mortgage, A.SellProperty))


class Money:
    """The money rules of `Game` (mixed in; they use the game's state, rules and events)."""

    def _pay(self: GameParts, payer: int, payee: int, amount: int, reason: str,
             sq: int = -1) -> None:
        """Move cash that is known to be there (callers check first)."""
        if amount <= 0:
            return
        self.state.pay(payer, payee, amount)
        self.events.append(new_tuple(E.Payment, (payer, payee, amount, reason, sq)))

    def charge(self: GameParts, payer: int, payee: int, amount: int, reason: str,
               sq: int = -1) -> Generator[Request, Any, bool]:
        """Make `payer` pay; a shortfall opens a debt phase, then bankruptcy.

        Returns True when paid. Plugins use this from their handlers with `yield from`.
        """
        return self._charge(payer, payee, amount, reason, sq)

    def pay_from_bank(self: GameParts, seat: int, amount: int, reason: str, sq: int = -1) -> None:
        """The bank pays `seat`, past its reserve if it has one (`BankRules.bank_cash`).
        For plugin effects and repairs."""
        self._pay(BANK, seat, amount, reason, sq)

    def _charge(self: GameParts, payer: int, payee: int, amount: int, reason: str,
                sq: int = -1) -> Generator[Request, Any, bool]:
        if amount <= 0:
            return True
        st = self.state
        if payer == BANK:
            self._pay(BANK, payee, amount, reason, sq)
            return True
        if st.cash[payer] < amount and self.rules.bank.debt != "negative_cash":
            yield from self._raise_cash(payer, amount, payee)
            if st.cash[payer] < amount:
                yield from self._bankrupt(payer, payee)
                return False
        if payee != BANK and not st.active[payee]:
            payee = BANK
        self._pay(payer, payee, amount, reason, sq)
        return True

    def _raise_cash(self: GameParts, seat: int, amount: int,
                    creditor: int) -> Generator[Request, Any, None]:
        """The debt phase. Selling buildings, mortgaging and selling property to the
        bank do not count against `max_actions_per_phase` (each removes something, so
        they end by themselves); when the other actions use the cap up, the engine
        liquidates for a player who can pay (`_force_liquidation`). A Conclude while
        short is the player's own declaration of bankruptcy."""
        st = self.state
        d = Decision("debt", owed=amount, creditor=creditor)
        limit = self.rules.bank.debt_action_limit
        budget = self.rules.bank.max_actions_per_phase if limit is None else limit
        while st.cash[seat] < amount:
            if budget <= 0:
                if limit is None:
                    self._force_liquidation(seat, amount)
                return
            action = yield seat, d
            action = self._validate(seat, d, action)
            t = type(action)
            if t is A.Conclude:
                return
            if t not in _LIQUIDATING or limit is not None:
                budget -= 1
            yield from self._execute(seat, action, d)
            if not st.active[seat]:
                return

    def liquidation_value(self: GameParts, seat: int) -> int:
        """Cash `seat` could raise from the bank now: every building sold, every
        unmortgaged property mortgaged (or sold, when the bank pays more for it)."""
        rules = self.rules
        st = self.state
        refund = rules.property_refund
        total = 0
        for sq in rules.properties:
            if st.owner[sq] != seat:
                continue
            total += st.level[sq] * rules.building_refund[sq]
            if not st.mortgaged[sq]:
                m = rules.mortgage[sq]
                total += m if refund is None or refund[sq] <= m else refund[sq]
        return total

    def _force_liquidation(self: GameParts, seat: int, amount: int) -> None:
        """Raise `amount` for a player whose debt phase ran out of actions, if its
        assets cover it: buildings first (evenly, the most expensive group first),
        then mortgages (or sales to the bank when it pays more), in board order."""
        st = self.state
        rules = self.rules
        if st.cash[seat] + self.liquidation_value(seat) < amount:
            return
        while st.cash[seat] < amount:
            built = [sq for sq in rules.streets if st.owner[sq] == seat and st.level[sq]
                     and legal.check_sell_building(rules, st, seat, sq) is None]
            if not built:
                break
            sq = max(built, key=lambda s: (rules.house_cost[s], st.level[s], -s))
            self._sell_building(seat, sq, "forced")
        refund = rules.property_refund
        for sq in rules.properties:
            if st.cash[seat] >= amount:
                return
            if st.owner[sq] != seat or st.mortgaged[sq]:
                continue
            if refund is not None and refund[sq] > rules.mortgage[sq]:
                self._pay(BANK, seat, refund[sq], "sell_property", sq)
                self._transfer_property(sq, seat, NOBODY, "sold_to_bank")
            else:
                st.set_mortgaged(sq, True)
                self._pay(BANK, seat, rules.mortgage[sq], "mortgage", sq)
                self.events.append(new_tuple(E.MortgageChanged, (seat, sq, True)))

    def _bankrupt(self: GameParts, seat: int, creditor: int) -> Generator[Request, Any, None]:
        st = self.state
        rules = self.rules
        if creditor != BANK and not st.active[creditor]:
            creditor = BANK
        self.events.append(E.Bankrupt(seat, creditor))
        st.retire(seat)  # out of the game, and out of jail
        self.pending_offers[seat] = None
        self.bankrupt_order.append(seat)
        if rules.bank.debt == "negative_cash":
            # GNOME: the creditor was paid in full; buildings go back to the bank's stock
            # unpaid and the debt dies with the player.
            for sq in rules.streets:
                lv = st.level[sq]
                if st.owner[sq] == seat and lv:
                    if lv == rules.hotel_level:
                        st.set_stock(st.houses_left, st.hotels_left + 1)
                    else:
                        st.set_stock(st.houses_left + lv, st.hotels_left)
                    st.set_level(sq, 0)
                    self.events.append(new_tuple(E.BuildingChanged, (seat, sq, 0, "bankruptcy")))
            if st.cash[seat] < 0:
                st.set_cash(seat, 0)
        # Buildings go back to the bank for their sell-back value.
        for sq in rules.streets:
            while st.owner[sq] == seat and st.level[sq]:
                self._sell_building(seat, sq, "bankruptcy")
        if st.cash[seat] > 0:
            self._pay(seat, creditor, st.cash[seat], "bankruptcy")
        mine = [sq for sq in rules.properties if st.owner[sq] == seat]
        while st.jail_cards[seat]:
            if creditor == BANK:
                deck, card = st.give_up_jail_card(seat)
                st.put_back(deck, card)
                self.events.append(
                    new_tuple(E.JailCardMoved, (seat, BANK, rules.deck_names[deck])))
            else:
                self._move_jail_card(seat, creditor)
        alive = [s for s in range(self.players) if st.active[s]]
        if creditor == BANK:
            for sq in mine:
                if st.mortgaged[sq]:
                    st.set_mortgaged(sq, False)
                    self.events.append(new_tuple(E.MortgageChanged, (seat, sq, False)))
                self._transfer_property(sq, seat, NOBODY, "bankruptcy")
        else:
            fee = legal.trade_fees(rules, st, tuple(mine))
            received = [sq for sq in mine if st.mortgaged[sq]]
            for sq in mine:
                self._transfer_property(sq, seat, creditor, "bankruptcy")
        if len(alive) <= 1:
            self._finish(alive[0] if alive else seat, "bankruptcy")
            raise GameOver
        if creditor == BANK:
            if rules.bank.bankruptcy_auction:
                for sq in mine:
                    yield from self._auction(sq, seat)
        elif fee:
            if rules.bank.mortgaged_transfer == "choose":
                yield from self._receive_mortgaged(creditor, received, legal_fee=True)
            else:
                yield from self._charge(creditor, BANK, fee, "mortgage_transfer_fee")

    def _settle_negative_cash(self: GameParts, seat: int) -> Generator[Request, Any, None]:
        """`debt="negative_cash"`: at the end of its own turn a player below $0 raises
        cash (a debt phase owing $0 more than nothing) or goes bankrupt to the bank."""
        yield from self._raise_cash(seat, 0, BANK)
        if self.state.cash[seat] < 0:
            yield from self._bankrupt(seat, BANK)
