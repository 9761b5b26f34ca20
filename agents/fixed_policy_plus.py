"""`fp_plus_a`, `fp_plus_b`, `fp_plus_c`: a harder opponent set built on the priorities of
the hybrid-DRL paper's fixed policies (section VI-B), with additions the paper never
describes. The paper's own agents are `fp_a`, `fp_b`, `fp_c` (`agents/fixed_policy.py`).

One skeleton, three priority tables. All three put the highest priority on completing
sets and improving them; they buy, sell and exchange properties, with or without cash,
offering trades to several players at once, and they offer properties that are worth
little to themselves (a lone property) but valuable to the partner (it gives the
partner a set). They differ in the priority (a weight per square) they give each
property:

- `fp_plus_a`: every property the same (weight 1).
- `fp_plus_b`: the four railroads and the dark-blue pair (Park Place, Boardwalk) high,
  utilities low.
- `fp_plus_c`: the orange and light-blue ("sky-blue") groups high, and the railroads.

Favourites are bought, bid for and traded for more aggressively, down to a low cash
floor, and the agent mortgages its lowest-priority lone properties to pay for one.
Buy when cash stays `reserve` above the price; accept a trade that adds sets, and one
that keeps the number of sets when its (priority-weighted) net value is positive.

The additions beyond the paper, each one constructor switch (default on; off for an
ablation, docs/drl.md):

- `answer_premium`: when answering, subtract half the price of what it gives whenever
  the offerer would complete a set (and accept a set-for-set trade only at a
  non-negative value when the offerer gains more sets); off: the paper's answer rule.
- `bid_premium`: bid up to 2 x price for a set-completing property, 1.5 x to block an
  opponent's set, 1.3 x for a favourite; off: never above the list price.
- `block`: buy (down to the favourite floor) and bid to stop an opponent completing a
  set; off: no blocking.
- `jail_stay`: stay in jail once three quarters of the properties are owned and an
  opponent has a buildable set; off: leave whenever it can pay.
- `tuned_reserves`: cash floors chosen by measurement against `baseline` (keep 150
  after an ordinary purchase, 40 after a favourite); off: the $200 of the paper's buy
  rule (section V-B) and no floor for favourites.
- `retry_wait`: a refused offer is not repeated for 4 of its own turns; off: the next
  turn.
- `weighted_builds`: the priority weight scales the choice of what to build; off:
  the best rent gain per dollar alone.

`gnome_answers=True` (default off; not an addition, a comparison) answers trade offers
with GNOME's rule, as `baseline` and `fp_a`, `fp_b`, `fp_c` do.

Favourites are found by group and square kind names in the public rules, so a renamed
board simply has no favourites.
"""

from __future__ import annotations

from openmono import actions as A
from openmono import legal
from openmono.observation import Observation

from agents.policy_helpers import (NEVER, best_build, bid_up_to, build_candidates, buildable_sets,
                                    conclude_until, liquidation_value, ownership,
                                    raise_cash_action, sets_change)
from agents.base import PhaseAgent
from agents.baseline import accept as gnome_accept

CONCLUDE = A.CONCLUDE
HIGH = 2.0
LOW = 0.4
PAPER_RESERVE = 200  # section V-B: buy "if the agent has $200 more than the property price"


class FixedPolicyPlusAgent(PhaseAgent):
    """The shared skeleton; subclasses set the favourites."""

    name = "fp_plus"
    favourite_groups: tuple[str, ...] = ()
    favourite_kinds: tuple[str, ...] = ()
    avoided_kinds: tuple[str, ...] = ()

    # Cash floors (kept after a purchase, bid, building or trade).
    reserve = 150  # ordinary properties (the hybrid agents' buy rule uses 200)
    build_reserve = 0  # build with every spare dollar (measured best against baseline)
    favourite_floor = 40  # favourites and set-completing properties
    retry_turns = 4  # a refused offer is not repeated for this many own turns

    def __init__(self, *, answer_premium: bool = True, bid_premium: bool = True,
                 block: bool = True, jail_stay: bool = True, tuned_reserves: bool = True,
                 retry_wait: bool = True, weighted_builds: bool = True,
                 gnome_answers: bool = False) -> None:
        super().__init__()
        self.gnome_answers = gnome_answers
        self.answer_premium = answer_premium
        self.bid_premium = bid_premium
        self.block = block
        self.jail_stay = jail_stay
        self.weighted_builds = weighted_builds
        if not tuned_reserves:
            self.reserve = PAPER_RESERVE
            self.favourite_floor = 0
        if not retry_wait:
            self.retry_turns = 1
        self.weight: tuple[float, ...] = ()
        self._reset()

    def _reset(self) -> None:
        self._rules_key = None
        self._owner_key = None
        self._counts: list[list[int]] = []
        self._mine: tuple[int, ...] = ()
        self._sets: list[int] = []
        self._build_key = None
        self._build_mort = None
        self._build_cands: list = []
        self._build_min = 0
        self._mort_key = None
        self._lifts: list = []
        self._lift_min = 0
        self._plan: list[A.OfferTrade] = []
        self._plan_turn = -1
        self._my_turns = 0
        self._offered: dict[tuple, int] = {}
        self._cand_key = None
        self._cands: tuple[dict, dict] = ({}, {})

    def begin_game(self, seat: int, observation: Observation) -> None:
        super().begin_game(seat, observation)
        self._reset()
        self._refresh(observation)

    # --- priorities and caches ------------------------------------------------------------
    def priorities(self, rules) -> tuple[float, ...]:
        """Weight per square: HIGH for favourites, LOW for avoided kinds, else 1."""
        fav_groups = {i for i, g in enumerate(rules.group_names) if g in self.favourite_groups}
        out = []
        for sq in range(rules.n):
            kind = rules.kind_names[sq]
            if kind in self.avoided_kinds:
                out.append(LOW)
            elif kind in self.favourite_kinds or rules.group_of[sq] in fav_groups:
                out.append(HIGH)
            else:
                out.append(1.0)
        return tuple(out)

    def _refresh(self, obs: Observation) -> None:
        rules = obs.rules
        owner = obs.owner
        me = obs.seat
        if rules is not self._rules_key:
            self.weight = self.priorities(rules)
        self._rules_key = rules
        self._owner_key = owner
        counts, held = ownership(rules, owner, len(obs.cash))
        self._counts = counts
        self._mine = held[me]
        self._sets = buildable_sets(rules, counts, me)
        self._build_key = None
        self._mort_key = None
        self._offered.clear()

    def _value(self, rules, obs: Observation, sq: int) -> float:
        """What a property is worth to this agent: priority-weighted price, less the cost
        of lifting its mortgage."""
        v = rules.price[sq] * self.weight[sq]
        if obs.mortgaged[sq]:
            v -= rules.unmortgage_cost[sq]
        return v

    def _completes(self, rules, seat: int, sq: int) -> bool:
        g = rules.group_of[sq]
        return g >= 0 and self._counts[seat][g] + 1 == rules.group_need[g]

    def _blocks(self, rules, obs: Observation, sq: int) -> bool:
        """Owning `sq` stops an opponent from completing its set (switch `block`)."""
        g = rules.group_of[sq]
        if g < 0 or not self.block:
            return False
        need = rules.group_need[g]
        me = obs.seat
        for p, row in enumerate(self._counts):
            if p != me and obs.active[p] and row[g] + 1 == need:
                return True
        return False

    # --- dispatch ------------------------------------------------------------------------------
    phase_methods = {"pre_roll": "_pre_roll", "out_of_turn": "_manage",
                     "post_roll": "_manage", "buy": "_buy", "bid": "_bid",
                     "trade_response": "_answer", "debt": "_debt"}

    def act(self, obs: Observation) -> A.Action:
        if obs.owner is not self._owner_key or obs.rules is not self._rules_key:
            self._refresh(obs)
        return self.dispatch(obs)

    # --- buying ----------------------------------------------------------------------------------
    def _floor_for(self, rules, obs: Observation, sq: int) -> int | None:
        """The cash this agent keeps after paying for `sq`; None = not wanted at all."""
        w = self.weight[sq]
        if self._completes(rules, obs.seat, sq) or w > 1:
            return self.favourite_floor
        if self._blocks(rules, obs, sq):
            return self.favourite_floor
        if w < 1:
            return 2 * self.reserve + 100
        return self.reserve

    def _buy(self, obs: Observation) -> A.Action:
        rules = obs.rules
        sq = obs.square
        me = obs.seat
        price = rules.price[sq]
        cash = obs.cash[me]
        completes = self._completes(rules, me, sq)
        floor = 0 if completes else self._floor_for(rules, obs, sq)
        if cash - price >= floor:
            return A.BUY
        if completes or self.weight[sq] > 1:
            # Worth raising cash for: mortgage a lower-priority lone property.
            spare = self._spare_mortgages(rules, obs, sq)
            if spare and cash + sum(rules.mortgage[s] for s in spare) - price >= floor:
                return A.MORTGAGE[spare[0]]
        return A.DECLINE

    def _spare_mortgages(self, rules, obs: Observation, target: int) -> list[int]:
        """Unmortgaged properties of lower priority than `target`, outside any set and
        outside the target's group, lowest value first."""
        me = obs.seat
        g_target = rules.group_of[target]
        w_target = self.weight[target]
        completing = self._completes(rules, me, target)
        out = []
        for sq in self._mine:
            g = rules.group_of[sq]
            if g == g_target or g in self._sets or obs.mortgaged[sq]:
                continue
            if self.weight[sq] >= w_target and not completing:
                continue
            if legal.check_mortgage(rules, obs, me, sq) is None:
                out.append(sq)
        out.sort(key=lambda s: self._value(rules, obs, s))
        return out

    def _bid(self, obs: Observation) -> A.Action:
        rules = obs.rules
        sq = obs.square
        me = obs.seat
        price = rules.price[sq]
        cash = obs.cash[me]
        w = self.weight[sq]
        premium = self.bid_premium  # off: never above the list price
        if self._completes(rules, me, sq):
            limit = min(cash - 20, 2 * price if premium else price)
        elif self._blocks(rules, obs, sq):
            limit = min(cash - self.favourite_floor, price * 3 // 2 if premium else price)
        elif w > 1:
            limit = min(cash - self.favourite_floor, price * 13 // 10 if premium else price)
        elif w < 1:
            limit = min(cash - 2 * self.reserve, price // 2)
        else:
            limit = min(cash - self.reserve, price)
        return bid_up_to(obs.high_bid, limit, max(1, price // 10))

    # --- management ------------------------------------------------------------------------------
    def _pre_roll(self, obs: Observation) -> A.Action:
        me = obs.seat
        rules = obs.rules
        if obs.in_jail[me] and self._leave_jail(rules, obs):
            if obs.jail_cards[me]:
                return A.USE_JAIL_CARD
            return A.PAY_JAIL_FINE
        action = self._manage(obs)
        if type(action) is not A.Conclude:
            return action
        if obs.turn != self._plan_turn:
            self._plan_turn = obs.turn
            self._my_turns += 1
            self._plan = self._trade_plan(obs) if self._mine else []
        while self._plan and obs.offers_made < rules.bank.max_trade_offers_per_phase:
            offer = self._plan.pop(0)
            if legal.check_offer(rules, obs, me, offer) is None:
                self._offered[(offer.to, offer.give, offer.get)] = self._my_turns
                return offer
        return CONCLUDE

    def _leave_jail(self, rules, obs: Observation) -> bool:
        """Early on, get out and buy; once opponents own sets, sit in jail safely."""
        me = obs.seat
        cash = obs.cash[me]
        if not obs.jail_cards[me] and cash < rules.bank.jail_fine + self.reserve:
            return False
        if not self.jail_stay:
            return True
        owner = obs.owner
        unowned = sum(1 for sq in rules.properties if owner[sq] < 0)
        if unowned * 4 >= len(rules.properties):
            return True
        need = rules.group_need
        for p, row in enumerate(self._counts):
            if p != me and obs.active[p]:
                for g, n in enumerate(row):
                    if n >= need[g] and rules.group_buildable[g]:
                        return False
        return True

    def _manage(self, obs: Observation) -> A.Action:
        """Lift mortgages on sets, build, then lift other mortgages; else conclude."""
        rules = obs.rules
        me = obs.seat
        cash = obs.cash[me]
        mortgaged = obs.mortgaged
        if mortgaged is not self._mort_key:
            # Our mortgaged properties, best to lift first: (key, square, cash floor).
            self._mort_key = mortgaged
            lifts = []
            for sq in self._mine:
                if mortgaged[sq]:
                    in_set = rules.group_of[sq] in self._sets
                    floor = self.build_reserve if in_set else 2 * self.reserve
                    lifts.append(((in_set, self.weight[sq], rules.price[sq]), sq,
                                  floor + rules.unmortgage_cost[sq]))
            lifts.sort(reverse=True)
            self._lifts = lifts
            self._lift_min = min((t[2] for t in lifts), default=0)
        unmortgage_later = -1
        if self._lifts and cash >= self._lift_min:
            for (in_set, _, _), sq, need in self._lifts:
                if cash >= need:
                    if in_set:
                        return A.UNMORTGAGE[sq]
                    unmortgage_later = sq
                    break
        # `until`: the cash below which this answer stays Conclude while my properties
        # do not change (a standing order for the engine); `cash` itself when it
        # depends on more than that (the bank's building stock).
        until = self._lift_min if self._lifts else NEVER
        if self._sets:
            if self._build_key is not obs.level or self._build_mort is not mortgaged:
                self._build_key = obs.level
                self._build_mort = mortgaged
                self._build_cands = build_candidates(rules, obs, me, self._sets)
                self._build_min = min((c for _, c, _ in self._build_cands), default=NEVER)
            if cash - self.build_reserve >= self._build_min:
                sq = best_build(rules, obs, me, self._sets, reserve=self.build_reserve,
                                weight=self.weight if self.weighted_builds else None,
                                candidates=self._build_cands)
                if sq >= 0:
                    return A.BUILD[sq]
                until = cash  # short of bank stock: ask again next time
            elif self._build_min + self.build_reserve < until:
                until = self._build_min + self.build_reserve
        if unmortgage_later >= 0:
            return A.UNMORTGAGE[unmortgage_later]
        return conclude_until(until) if until > cash else CONCLUDE

    # --- trades ----------------------------------------------------------------------------------
    def _trade_candidates(self, obs: Observation) -> tuple[dict, dict]:
        """By ownership alone (cached per owner tuple): per partner, the properties we
        want from them, best first, and our lone non-favourites that complete their set,
        cheapest first. Mortgages are filtered by the caller."""
        if self._cand_key is obs.owner:
            return self._cands
        rules = obs.rules
        owner = obs.owner
        me = obs.seat
        counts = self._counts
        mine = counts[me]
        need = rules.group_need
        group_of = rules.group_of
        price = rules.price
        weight = self.weight
        active = obs.active
        wants: dict[int, list[tuple[tuple, int]]] = {}
        gives: dict[int, list[int]] = {}
        for sq in rules.properties:
            g = group_of[sq]
            if g < 0:
                continue
            o = owner[sq]
            n = need[g]
            if o == me:
                if mine[g] == 1 and n > 1 and weight[sq] <= 1:
                    for p, row in enumerate(counts):
                        if p != me and active[p] and row[g] + 1 == n:
                            gives.setdefault(p, []).append(sq)
            elif o >= 0 and active[o]:
                if mine[g] + 1 == n:
                    key = (2, weight[sq], price[sq])
                elif weight[sq] > 1 and counts[o][g] == 1 and mine[g] >= 1:
                    key = (1, weight[sq], price[sq])
                else:
                    continue
                wants.setdefault(o, []).append((key, sq))
        for lst in wants.values():
            lst.sort(reverse=True)
        for lst in gives.values():
            lst.sort(key=price.__getitem__)
        self._cand_key = obs.owner
        self._cands = (wants, gives)
        return self._cands

    def _trade_plan(self, obs: Observation) -> list[A.OfferTrade]:
        """At most one offer per partner: swap a lone property that gives the partner a
        set for one that completes ours (or that we favour), else buy it for cash at a
        premium; when short of cash, sell a lone property to a partner it completes."""
        wants, gives = self._trade_candidates(obs)
        cash = obs.cash
        me = obs.seat
        my_cash = cash[me]
        if not wants and not (gives and my_cash < self.reserve):
            return []
        rules = obs.rules
        mortgaged = obs.mortgaged
        group_of = rules.group_of
        price = rules.price
        floor = self.favourite_floor
        offers: list[A.OfferTrade] = []
        for p in range(len(cash)):
            if p == me or not obs.active[p]:
                continue
            want = next(((key, sq) for key, sq in wants.get(p, ()) if not mortgaged[sq]), None)
            my_gives = [x for x in gives.get(p, ()) if not mortgaged[x]]
            if want is not None:
                (tier, _, _), sq = want
                give = next((x for x in my_gives if group_of[x] != group_of[sq]), None)
                if give is not None:
                    extra = max(0, price[sq] - price[give])
                    if my_cash - extra < floor:
                        extra = 0
                    offer = A.OfferTrade(p, give=(give,), get=(sq,), give_cash=extra)
                else:
                    premium = price[sq] * (3 if tier == 2 else 5) // (2 if tier == 2 else 4)
                    pay = min(premium, my_cash - floor)
                    if pay < price[sq]:
                        continue
                    offer = A.OfferTrade(p, get=(sq,), give_cash=pay)
            elif my_gives and my_cash < self.reserve:
                give = my_gives[0]
                ask = max(price[give] * 3 // 2, cash[p] // 2)
                if ask >= cash[p]:
                    continue
                offer = A.OfferTrade(p, give=(give,), get_cash=ask)
            else:
                continue
            last = self._offered.get((offer.to, offer.give, offer.get))
            if last is None or self._my_turns - last >= self.retry_turns:
                offers.append(offer)
        return offers

    def _answer(self, obs: Observation) -> A.Action:
        """Accept when it adds sets; when the number of sets stays, accept a positive
        priority-weighted net value, with a premium if the offerer gets a set."""
        rules = obs.rules
        offer = obs.offer
        me = obs.seat
        if self.gnome_answers:
            return A.ACCEPT if gnome_accept(rules, obs, me, offer) else A.REJECT
        cash = obs.cash[me]
        receive = offer.give
        give = offer.get
        fees = legal.trade_fees(rules, obs, receive)
        cash_out = offer.get_cash - offer.give_cash + fees
        if cash_out > cash:
            return A.REJECT
        created, lost = sets_change(rules, obs.owner, me, receive, give)
        if lost > created:
            return A.REJECT
        fine = rules.bank.jail_fine
        value = (sum(self._value(rules, obs, sq) for sq in receive)
                 - sum(self._value(rules, obs, sq) for sq in give)
                 - cash_out + fine * (offer.give_jail_cards - offer.get_jail_cards))
        if not self.answer_premium:  # the paper's rule (section V-B)
            if created > lost:
                return A.ACCEPT
            return A.ACCEPT if value > 0 and cash - cash_out >= self.favourite_floor else A.REJECT
        theirs, _ = sets_change(rules, obs.owner, obs.offerer, give, receive)
        if created > lost:
            return A.ACCEPT if theirs <= created - lost or value >= 0 else A.REJECT
        if theirs:
            value -= sum(rules.price[sq] for sq in give) / 2
        if value > 0 and cash - cash_out >= self.favourite_floor:
            return A.ACCEPT
        return A.REJECT

    # --- debt ------------------------------------------------------------------------------------
    def _debt(self, obs: Observation) -> A.Action:
        rules = obs.rules
        me = obs.seat
        if obs.cash[me] + liquidation_value(rules, obs, me, self._mine) < obs.owed:
            return CONCLUDE
        sets = self._sets

        def order(sq: int) -> tuple:
            return (rules.group_of[sq] in sets, self.weight[sq], rules.mortgage[sq])

        action = raise_cash_action(rules, obs, me, obs.owed - obs.cash[me], order_key=order,
                                   mine=self._mine)
        return CONCLUDE if action is None else action


class FPPlusA(FixedPolicyPlusAgent):
    """fp_plus_a: every property has the same priority."""

    name = "fp_plus_a"


class FPPlusB(FixedPolicyPlusAgent):
    """fp_plus_b: railroads and Park Place/Boardwalk first, utilities last."""

    name = "fp_plus_b"
    favourite_groups = ("dark_blue",)
    favourite_kinds = ("railroad",)
    avoided_kinds = ("utility",)


class FPPlusC(FixedPolicyPlusAgent):
    """fp_plus_c: the orange and sky-blue groups first, and the railroads."""

    name = "fp_plus_c"
    favourite_groups = ("orange", "light_blue")
    favourite_kinds = ("railroad",)
