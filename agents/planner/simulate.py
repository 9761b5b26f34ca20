"""A small mutable copy of the public state, for one-step look-ahead.

The observation is immutable and shared with the engine, so the planner copies the
few facts a move changes (cash, owner, level, mortgaged, bank stock, jail status) into
plain lists and applies candidate moves to copies of that. A `SimState` has the
attribute names of an observation, so `openmono.legal` checks run on it unchanged.

Cash effects use the rules passed in — the planner passes its *believed* compiled
rules, so a move is valued as the agent believes it will cost.
"""

from __future__ import annotations

from openmono import actions as A
from openmono.state import after_build, after_sell_building


class SimState:
    """The public state a move changes, in plain lists with an observation's attribute
    names: cheap to copy for each candidate move, and checked by `openmono.legal` as it
    is."""

    __slots__ = ("cash", "owner", "level", "mortgaged", "houses_left", "hotels_left",
                 "position", "in_jail", "jail_turns", "jail_cards", "active", "turn", "current")

    def __init__(self, cash: list[int], owner: list[int], level: list[int],
                 mortgaged: list[bool], houses_left: int, hotels_left: int,
                 position: list[int], in_jail: list[bool], jail_turns: list[int],
                 jail_cards: list[int], active: list[bool], turn: int = 0,
                 current: int = 0) -> None:
        self.cash = cash
        self.owner = owner
        self.level = level
        self.mortgaged = mortgaged
        self.houses_left = houses_left
        self.hotels_left = hotels_left
        self.position = position
        self.in_jail = in_jail
        self.jail_turns = jail_turns
        self.jail_cards = jail_cards
        self.active = active
        self.turn = turn  # rule hooks may read these (e.g. a building moratorium)
        self.current = current

    @classmethod
    def from_obs(cls, obs) -> SimState:
        """A copy of what an observation shows, for one decision's candidate moves."""
        return cls(list(obs.cash), list(obs.owner), list(obs.level), list(obs.mortgaged),
                   obs.houses_left, obs.hotels_left, list(obs.position), list(obs.in_jail),
                   list(obs.jail_turns), list(obs.jail_cards), list(obs.active), obs.turn,
                   obs.current)

    def copy(self) -> SimState:
        """Copy what moves change; positions and the active flags are shared (moves
        that change them — leaving jail — replace the lists they touch)."""
        new = SimState.__new__(SimState)
        new.cash = self.cash[:]
        new.owner = self.owner[:]
        new.level = self.level[:]
        new.mortgaged = self.mortgaged[:]
        new.houses_left = self.houses_left
        new.hotels_left = self.hotels_left
        new.position = self.position
        new.in_jail = self.in_jail
        new.jail_turns = self.jail_turns
        new.jail_cards = self.jail_cards
        new.active = self.active
        new.turn = self.turn
        new.current = self.current
        return new


def apply(rules, st: SimState, seat: int, action: A.Action) -> SimState:
    """A copy of `st` after `seat` takes management or jail `action` (assumed legal).
    Purchases go through `buy`, trades through `trade`."""
    new = st.copy()
    t = type(action)
    if t is A.Build:
        sq = action.square
        new.level[sq], new.houses_left, new.hotels_left = after_build(
            rules, new.level[sq], new.houses_left, new.hotels_left)
        new.cash[seat] -= rules.house_cost[sq]
    elif t is A.SellBuilding:
        sq = action.square
        new.level[sq], removed, new.houses_left, new.hotels_left = after_sell_building(
            rules, new.level[sq], new.houses_left, new.hotels_left)
        new.cash[seat] += removed * rules.building_refund[sq]
    elif t is A.Mortgage:
        new.mortgaged[action.square] = True
        new.cash[seat] += rules.mortgage[action.square]
    elif t is A.Unmortgage:
        new.mortgaged[action.square] = False
        new.cash[seat] -= rules.unmortgage_cost[action.square]
    elif t is A.SellProperty:
        sq = action.square
        refund = rules.property_refund
        new.cash[seat] += refund[sq] if refund is not None else 0
        new.owner[sq] = -1
    elif t is A.PayJailFine:
        new.cash[seat] -= rules.bank.jail_fine
        _release(new, seat)
    elif t is A.UseJailCard:
        new.jail_cards = new.jail_cards[:]
        new.jail_cards[seat] -= 1
        _release(new, seat)
    elif t is A.OfferTrade:
        return trade(rules, st, seat, action)
    return new


def buy(st: SimState, seat: int, sq: int, price: int) -> SimState:
    """A copy of `st` after `seat` buys `sq` for `price` (from the bank or at auction)."""
    new = st.copy()
    new.owner[sq] = seat
    new.cash[seat] -= price
    return new


def trade(rules, st: SimState, offerer: int, offer: A.OfferTrade) -> SimState:
    """A copy of `st` after the trade executes (mortgage transfer fees included)."""
    new = st.copy()
    to = offer.to
    cash = new.cash
    fee = rules.transfer_fee
    for sq in offer.give:
        if new.mortgaged[sq]:
            cash[to] -= fee[sq]
        new.owner[sq] = to
    for sq in offer.get:
        if new.mortgaged[sq]:
            cash[offerer] -= fee[sq]
        new.owner[sq] = offerer
    cash[offerer] += offer.get_cash - offer.give_cash
    cash[to] += offer.give_cash - offer.get_cash
    if offer.give_jail_cards or offer.get_jail_cards:
        cards = new.jail_cards = new.jail_cards[:]
        moved = offer.give_jail_cards - offer.get_jail_cards
        cards[offerer] -= moved
        cards[to] += moved
    return new


def _release(st: SimState, seat: int) -> None:
    st.in_jail = st.in_jail[:]
    st.in_jail[seat] = False
    st.jail_turns = st.jail_turns[:]
    st.jail_turns[seat] = 0
