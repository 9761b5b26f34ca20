"""Properties and buildings under the engine's rules: buying or auctioning what a
player lands on, building and selling buildings (the housing shortage's auction, the
even breakdown of a hotel), property transfers (a part of `openmono.engine.Game`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generator

from openmono import actions as A
from openmono import events as E
from openmono import legal
from openmono.decision import Decision, shared
from openmono.events import BANK
from openmono.flow import Request, new_tuple
from openmono.state import NOBODY, after_build, after_sell_building, hotel_breakdown

if TYPE_CHECKING:
    from openmono.parts import GameParts  # the `self` of the parts (annotations only)

_BUY: dict[int, Decision] = {}  # per square: its buy decision, built once


class Holdings:
    """The property and building rules of `Game` (mixed in)."""

    def _is_hotel(self: GameParts, sq: int) -> bool:
        return self.state.level[sq] + 1 == self.rules.hotel_level

    def _can_build(self: GameParts, q: int, hotel: bool) -> list[int]:
        """The streets where `q` could build a house (or a hotel) now."""
        st = self.state
        rules = self.rules
        return [s for s in rules.streets if st.owner[s] == q and self._is_hotel(s) == hotel
                and legal.check_build(rules, st, q, s) is None]

    def _bidders(self: GameParts, seat: int, sq: int) -> list[int]:
        """The other players a building shortage makes `seat`'s building compete with:
        when the bank has fewer of the kind than the players able to build one now
        (official: such buildings are auctioned), else none."""
        st = self.state
        hotel = self._is_hotel(sq)
        stock = st.hotels_left if hotel else st.houses_left
        if stock >= self.players:
            return []
        able = [q for q in self._after[seat] if st.active[q] and self._can_build(q, hotel)]
        return able if stock < 1 + len(able) else []

    def _building_auction(self: GameParts, seat: int, sq: int) -> Generator[Request, Any, None]:
        """Auction one building among the players able to build one: `seat`'s request
        stands as a bid at the bank's price; the others, then everyone outbid, may raise
        (English, in seat order) or drop out for good. The winner pays its bid."""
        st = self.state
        rules = self.rules
        hotel = self._is_hotel(sq)
        high, high_bidder = rules.house_cost[sq], seat
        bidders = [seat] + self._bidders(seat, sq)
        asks = 0
        while len(bidders) > 1 and asks < 2000:
            raised = False
            for q in list(bidders):
                if q == high_bidder:
                    continue
                if st.cash[q] <= high:
                    bidders.remove(q)
                    continue
                asks += 1
                d = Decision("building_bid", square=sq, high_bid=high, high_bidder=high_bidder)
                action = self._validate(q, d, (yield q, d))
                if type(action) is A.Bid:
                    high, high_bidder, raised = action.amount, q, True
                else:
                    bidders.remove(q)
            if not raised:
                break
        where = sq
        if high_bidder != seat:
            d = Decision("place_building", square=sq, high_bid=high)
            action = self._validate(high_bidder, d, (yield high_bidder, d))
            where = -1
            if type(action) is A.Build and self._is_hotel(action.square) == hotel:
                where = action.square
            else:
                streets = self._can_build(high_bidder, hotel)
                where = streets[0] if streets else -1
        if where < 0 or st.cash[high_bidder] < high:
            return
        self._build(high_bidder, where, None if high_bidder == seat and high == rules.house_cost[sq]
                    else high)  # no one raised: an ordinary purchase

    def _build(self: GameParts, seat: int, sq: int, price: int | None = None) -> None:
        st = self.state
        rules = self.rules
        lv, houses_left, hotels_left = after_build(
            rules, st.level[sq], st.houses_left, st.hotels_left)
        st.set_stock(houses_left, hotels_left)
        if price is None:
            self._pay(seat, BANK, rules.house_cost[sq], "build", sq)
        else:
            self._pay(seat, BANK, price, "building_auction", sq)
        st.set_level(sq, lv)
        self.events.append(new_tuple(E.BuildingChanged, (seat, sq, lv, "built")))

    def _sell_building(self: GameParts, seat: int, sq: int, reason: str) -> None:
        """Sell one level. A hotel the bank cannot replace by houses is never broken
        down unevenly: the group comes down together (`state.hotel_breakdown`)."""
        st = self.state
        rules = self.rules
        lv = st.level[sq]
        if lv == rules.hotel_level and rules.bank.hotel_sale == "whole":
            st.set_level(sq, 0)
            st.set_stock(st.houses_left, st.hotels_left + 1)
            self._pay(BANK, seat, lv * rules.building_refund[sq], "sell_building", sq)
            self.events.append(new_tuple(E.BuildingChanged, (seat, sq, 0, reason)))
            return
        if (lv == rules.hotel_level and rules.bank.even_build
                and st.houses_left < rules.hotel_level - 1):
            streets = [m for m in rules.group_members[rules.group_of[sq]]
                       if st.owner[m] == seat and rules.is_street[m]]
            levels, houses_left, hotels_left = hotel_breakdown(
                rules, [st.level[m] for m in streets], streets.index(sq),
                st.houses_left, st.hotels_left)
            st.set_stock(houses_left, hotels_left)
            for m, new in zip(streets, levels):
                old = st.level[m]
                if new != old:
                    st.set_level(m, new)
                    self._pay(BANK, seat, (old - new) * rules.building_refund[m],
                              "sell_building", m)
                    self.events.append(new_tuple(E.BuildingChanged, (seat, m, new, reason)))
            return
        new, removed, houses_left, hotels_left = after_sell_building(
            rules, lv, st.houses_left, st.hotels_left)
        st.set_stock(houses_left, hotels_left)
        st.set_level(sq, new)
        self._pay(BANK, seat, removed * rules.building_refund[sq], "sell_building", sq)
        self.events.append(new_tuple(E.BuildingChanged, (seat, sq, new, reason)))

    def _transfer_property(self: GameParts, sq: int, src: int, dst: int, reason: str) -> None:
        self.state.set_owner(sq, dst)
        self.events.append(new_tuple(E.PropertyTransferred, (sq, src, dst, reason)))

    def _offer_purchase(self: GameParts, p: int, sq: int) -> Generator[Request, Any, None]:
        rules = self.rules
        d = _BUY.get(sq)
        if d is None:
            d = _BUY[sq] = shared("buy", sq)  # no trades while buying: never mutated
        for _ in range(rules.bank.max_actions_per_phase):
            action = yield p, d
            action = self._validate(p, d, action)
            t = type(action)
            if t is A.Buy:
                self._pay(p, BANK, rules.price[sq], "buy", sq)
                self._transfer_property(sq, NOBODY, p, "bought")
                return
            if t is A.Decline:
                break
            yield from self._execute(p, action, d)
        if rules.bank.auction_on_decline:
            yield from self._auction(sq, p)

    def _auction(self: GameParts, sq: int, start: int) -> Generator[Request, Any, None]:
        """Auction `sq` to the bank's highest bidder; every solvent player may bid."""
        st = self.state
        self.auctions += 1
        self.events.append(new_tuple(E.AuctionStarted, (sq,)))
        order = [(start + k) % self.players for k in range(1, self.players + 1)]
        bidders = [q for q in order if st.active[q]]
        high, high_bidder = 0, BANK
        if self.rules.bank.auction == "sealed":
            for q in bidders:
                d = Decision("bid", square=sq, high_bid=0)
                action = self._validate(q, d, (yield q, d))
                if type(action) is A.Bid:
                    self.events.append(new_tuple(E.BidMade, (q, sq, action.amount)))
                    if action.amount > high:
                        high, high_bidder = action.amount, q
        else:
            asks = 0
            while bidders and not (len(bidders) == 1 and bidders[0] == high_bidder):
                for q in list(bidders):
                    if q == high_bidder:
                        continue
                    if len(bidders) == 1 and high_bidder != BANK:
                        break
                    if st.cash[q] <= high or asks > 2000:
                        bidders.remove(q)
                        continue
                    asks += 1
                    d = Decision("bid", square=sq, high_bid=high, high_bidder=high_bidder)
                    action = self._validate(q, d, (yield q, d))
                    if type(action) is A.Bid:
                        high, high_bidder = action.amount, q
                        self.events.append(new_tuple(E.BidMade, (q, sq, high)))
                    else:
                        bidders.remove(q)
                if asks > 2000:
                    break
        if high_bidder != BANK and st.cash[high_bidder] >= high:
            self._pay(high_bidder, BANK, high, "auction", sq)
            self._transfer_property(sq, NOBODY, high_bidder, "auction")
            self.events.append(new_tuple(E.AuctionEnded, (sq, high_bidder, high)))
        else:
            self.events.append(new_tuple(E.AuctionEnded, (sq, BANK, 0)))
