"""`fp_a`, `fp_b`, `fp_c`: the fixed-policy agents of the hybrid-DRL paper (section VI-B).

The paper ran on GNOME-p3, whose background agent (`background_agent_v3_1`, our
`baseline`) already makes the moves VI-B describes for all three agents; the paper's
hybrid rules (section V-B) are that agent's rules word for word. So each FP agent is
`baseline` plus only what VI-B adds: a priority per property, and what an agent does
for a property of high priority (a "property of interest"). Every rule below quotes
its VI-B sentence; everything not listed is `baseline`, decision for decision (each of
its rules names its GNOME function in agents/baseline.py). The rule table with sources
is in docs/drl.md.

Priorities (VI-B, "FP-A gives equal priority to all the properties, FP-B and FP-C give
a high priority to the four railroad properties. Additionally, FP-B places a high
priority on the high rent locations: Park Place and Boardwalk and assigns a low
priority to utility locations. On the other hand, FP-C places high priority on
properties in the orange color group ... or in the sky-blue color group"): HIGH, EQUAL
or LOW per square. With every property equal, FP-A has no property of interest and
so plays as `baseline` (the plainest reading: "equal priority" singles nothing out).

What a property of interest gets (VI-B: "An agent tries to buy or trade properties of
interest more aggressively, sometimes at the risk of having a low cash balance. It may
also end up selling a lower priority property to generate cash for a property of
interest."; the paper gives no amounts, so the plainest reading reuses the treatment
GNOME already gives its most wanted property, one that completes a set):

1. Buy: whenever it can pay the price, without GNOME's S cash cushion (as GNOME's
   `make_buy_property_decision` buys a set-completing property).
2. Auction: bid above the list price, as GNOME's `make_bid` does for a set-completing
   property (a quarter of the way to its cash, while the bid is below its cash).
3. Trade: ask for another player's lone property of interest (VI-B: properties of
   "low value (for example, a solitary property)" to their owner), with GNOME's
   request price and curation (`identify_property_trade_wanted_from_player`,
   `curate_trade_offer_multiple_players`), after the requests that complete a set
   (VI-B: "the highest priority in acquiring a monopoly").
4. Raise cash: short of the price, sell to the bank one property of lower priority
   (outside its monopolies) whose refund covers the shortfall, the lowest priority
   then the cheapest first; where the rules do not let the bank buy property (the
   standard rules), mortgage one instead (the plainest reading of "selling" in that
   engine; GNOME's own fallback, `make_post_roll_move`, also mortgages first).
5. Never offered: a property of interest is not of "low value ... to the agent
   itself", so it is left out of the sell and exchange offers GNOME makes
   (`identify_property_trade_offer_to_player`).

Favourites are found by group and square kind names in the public rules, so a renamed
board simply has no favourites (and the agent plays as `baseline`).
"""

from __future__ import annotations

from openmono import actions as A
from openmono import legal
from openmono.observation import Observation

from agents.baseline import (BaselineAgent, buy_requests, completes_set, curate_offers,
                             full_sets, is_lone, sell_offers)

HIGH = 1
EQUAL = 0
LOW = -1


class FixedPolicyAgent(BaselineAgent):
    """`baseline` plus a priority table (subclasses name the favourites)."""

    name = "fp"
    high_groups: tuple[str, ...] = ()
    high_kinds: tuple[str, ...] = ()
    low_kinds: tuple[str, ...] = ()

    def __init__(self) -> None:
        super().__init__()
        self._rules_key = None
        self.priority: tuple[int, ...] = ()

    # --- VI-B: the priority of each property ----------------------------------------------
    def priorities(self, rules) -> tuple[int, ...]:
        """HIGH, EQUAL or LOW per square, from the group and kind names of the rules."""
        out = []
        for sq in range(rules.n):
            kind = rules.kind_names[sq]
            g = rules.group_of[sq]
            group = rules.group_names[g] if g >= 0 else ""
            if kind in self.low_kinds:
                out.append(LOW)
            elif kind in self.high_kinds or group in self.high_groups:
                out.append(HIGH)
            else:
                out.append(EQUAL)
        return tuple(out)

    def _priority(self, rules) -> tuple[int, ...]:
        if rules is not self._rules_key:
            self._rules_key = rules
            self.priority = self.priorities(rules)
        return self.priority

    def _of_interest(self, obs: Observation, sq: int) -> bool:
        return self._priority(obs.rules)[sq] == HIGH

    # --- rules 1 and 2: buy and bid for a property of interest as for a set ---------------
    def _worth_stretching(self, obs: Observation, sq: int) -> bool:
        # VI-B "buy ... properties of interest more aggressively, sometimes at the risk of
        # having a low cash balance": GNOME's make_buy_property_decision and make_bid
        # treatment of a set-completing property, given to a property of interest too.
        return super()._worth_stretching(obs, sq) or self._of_interest(obs, sq)

    # --- rule 4: raise cash for a property of interest ----------------------------------
    def _buy(self, obs: Observation) -> A.Action:
        sq = obs.square
        rules = obs.rules
        me = obs.seat
        if (self._buys(obs) or not self._of_interest(obs, sq)
                or completes_set(rules, obs.owner, me, sq)):
            return super()._buy(obs)  # baseline (make_post_roll_move, its own fallback)
        # VI-B "It may also end up selling a lower priority property to generate cash
        # for a property of interest."
        action = self._raise_for(obs, sq, rules.price[sq] - obs.cash[me])
        return action if action is not None else A.DECLINE

    def _raise_for(self, obs: Observation, target: int, short: int) -> A.Action | None:
        """One sale (else, where the bank buys no property, one mortgage) of a property
        of lower priority than `target`, outside its monopolies, that covers `short`:
        lowest priority, then least value, then name (as GNOME's
        `identify_potential_sale` / `identify_potential_mortgage` pick the cheapest
        that covers the amount)."""
        rules = obs.rules
        me = obs.seat
        prio = self._priority(rules)
        owner, mortgaged = obs.owner, obs.mortgaged
        mine_full = full_sets(rules, owner, me)
        lower = [s for s in rules.properties
                 if owner[s] == me and not mortgaged[s] and prio[s] < prio[target]
                 and rules.group_of[s] not in mine_full]
        refund = rules.property_refund
        if refund is not None:
            sales = [s for s in lower if refund[s] >= short
                     and legal.check_sell_property(rules, obs, me, s) is None]
            if sales:
                best = min(sales, key=lambda s: (prio[s], refund[s], rules.names[s]))
                return A.SELL_PROPERTY[best]
            return None
        mortgages = [s for s in lower if rules.mortgage[s] >= short
                     and legal.check_mortgage(rules, obs, me, s) is None]
        if mortgages:
            best = min(mortgages, key=lambda s: (prio[s], rules.mortgage[s], rules.names[s]))
            return A.MORTGAGE[best]
        return None

    # --- rules 3 and 5: trade offers ---------------------------------------------------
    def _curate(self, obs: Observation) -> list[A.OfferTrade]:
        # VI-B "one-way (buy/sell) or two-way (exchange) trades with or without cash
        # ... simultaneously to multiple players": GNOME's
        # curate_trade_offer_multiple_players, with these candidates.
        rules = obs.rules
        me = obs.seat
        prio = self._priority(rules)
        # VI-B "offer properties that hold a low value (for example, a solitary
        # property) to the agent itself but may be of value (gives the other player a
        # monopoly) to the other player": GNOME's identify_property_trade_offer_to_player,
        # without its properties of interest (not of low value to it).
        offers = [o for o in sell_offers(rules, obs, me) if prio[o[1]] != HIGH]
        # VI-B "the highest priority in acquiring a monopoly": the set-completing
        # requests (identify_property_trade_wanted_from_player) come first; then VI-B
        # "trade properties of interest more aggressively": the others' lone properties
        # of interest, at the same request price.
        requests = buy_requests(rules, obs, me) + self._interest_requests(obs, prio)
        return curate_offers(rules, obs, me, offers, requests)

    def _interest_requests(self, obs: Observation, prio: tuple[int, ...]) -> list:
        """(0.75 x price, square, owner) for other players' lone, unmortgaged properties
        of interest that do not complete my set (those are GNOME's requests already),
        cheapest first (partners in seat order, squares by name, for ties), skipping what
        costs more than my cash (as `identify_property_trade_wanted_from_player`)."""
        rules = obs.rules
        me = obs.seat
        owner, mortgaged = obs.owner, obs.mortgaged
        cash = obs.cash[me]
        out = []
        for p in range(len(obs.cash)):
            if p == me or not obs.active[p]:
                continue
            mine = [s for s in rules.properties if owner[s] == p and prio[s] == HIGH
                    and not mortgaged[s] and is_lone(rules, owner, p, s)
                    and not (rules.is_street[s] and completes_set(rules, owner, me, s))]
            for s in sorted(mine, key=rules.names.__getitem__):
                price = rules.price[s] * 0.75
                if price <= cash:
                    out.append((price, s, p))
        out.sort(key=lambda t: t[0])
        return out


class FPA(FixedPolicyAgent):
    """FP-A: every property has the same priority (so no property of interest)."""

    name = "fp_a"


class FPB(FixedPolicyAgent):
    """FP-B: the railroads, Park Place and Boardwalk high; utilities low."""

    name = "fp_b"
    high_groups = ("dark_blue",)  # VI-B "Park Place and Boardwalk"
    high_kinds = ("railroad",)  # VI-B "the four railroad properties"
    low_kinds = ("utility",)  # VI-B "a low priority to utility locations"


class FPC(FixedPolicyAgent):
    """FP-C: the railroads, the orange and the sky-blue (light-blue) groups high."""

    name = "fp_c"
    high_groups = ("orange", "light_blue")  # VI-B "orange color group", "sky-blue color group"
    high_kinds = ("railroad",)  # VI-B "FP-B and FP-C give a high priority to the four railroad"
