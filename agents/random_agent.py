"""`random`: uniform over the legal actions, with sensible bids and occasional trades.

It is the floor every other agent must beat and the engine's fuzzer: it reaches every
phase and every action kind, including trades the other side may accept.
"""

from __future__ import annotations

from openmono import actions as A
from openmono.observation import Observation

from agents.base import Agent


class RandomAgent(Agent):
    name = "random"

    def __init__(self, trade_rate: float = 0.05) -> None:
        super().__init__()
        self.trade_rate = trade_rate

    def act(self, obs: Observation) -> A.Action:
        rng = self.rng
        if obs.phase == "bid":
            return self._bid(obs)
        if self.trade_rate and obs.can_offer_trade and rng.random() < self.trade_rate:
            offer = self._random_offer(obs)
            if offer is not None:
                return offer
        return rng.choice(obs.legal_actions())

    def _bid(self, obs: Observation) -> A.Action:
        """Bid a little above the high bid, rarely beyond the list price."""
        price = obs.rules.price[obs.square]
        cash = obs.cash[obs.seat]
        ceiling = min(cash, int(price * self.rng.uniform(0.3, 1.3)))
        if ceiling <= obs.high_bid:
            return A.DROP_OUT
        step = max(1, (ceiling - obs.high_bid) // 3)
        return A.Bid(min(ceiling, obs.high_bid + self.rng.randint(1, step)))

    def _random_offer(self, obs: Observation) -> A.OfferTrade | None:
        rng = self.rng
        me = obs.seat
        others = [s for s in range(len(obs.cash)) if s != me and obs.active[s]]
        if not others:
            return None
        to = rng.choice(others)
        mine = [sq for sq in obs.rules.properties if obs.owner[sq] == me]
        theirs = [sq for sq in obs.rules.properties if obs.owner[sq] == to]
        give = (rng.choice(mine),) if mine and rng.random() < 0.7 else ()
        get = (rng.choice(theirs),) if theirs and rng.random() < 0.7 else ()
        # (cash may be negative: in debt under the gnome rules)
        give_cash = rng.randint(0, max(0, obs.cash[me]) // 4) if rng.random() < 0.5 else 0
        get_cash = rng.randint(0, max(0, obs.cash[to]) // 4) if rng.random() < 0.3 else 0
        offer = A.OfferTrade(to, give, get, give_cash, get_cash)
        return offer if obs.is_legal(offer) else None
