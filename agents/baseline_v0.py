"""`baseline_v0`: our first reading of the SAIL-ON "simple baseline agent", from the
papers' description (before issue 15 made `baseline` follow GNOME-p3's
`background_agent_v3_1` decision by decision). Kept because it is fast, trades from its
own pre-roll under the standard rules, and some tables of docs/results/agents.md were measured against it.

Its rules (from the agent the SAIL-ON evaluators used, as described in the papers and
the issue), with the Go salary `S` read from the public bank rules (200 by default):

- Buy when cash after the purchase is still >= S, or when the purchase completes a set
  it can pay for.
- Auction: below list price, raise halfway toward the price if the new bid is below its
  cash; at or above list price only for a set-completing property, by a quarter of the
  gap between the bid and its cash; otherwise drop out.
- Jail: leave by card (preferred) or fine when its cash is >= S.
- Out of turn: build on the set street with the best rent gain per building cost as
  long as it can pay for the building; unmortgage while cash stays >= S.
- Trade answers: accept when it gains more sets than it loses; when equal, accept
  only if cash after the trade is >= S, or >= S/2 with a positive net value (prices plus
  cash); reject offers that ask for something for nothing, include mortgaged
  properties, or ask for more cash than it has.
- Own turn (pre-roll), offers to several players at once, streets only: with cash < S
  it sells lone streets to players they would give a set (1.5 x price, at least half the
  buyer's cash); otherwise, per partner, it swaps a lone street of its own for a lone
  street of the partner's that completes its set (plus cash both ways), or buys such a
  street for 1.125 x price keeping cash > S/2, or sells a lone street as above.
- Debt: give up at once when even selling everything cannot pay; else mortgage the
  cheapest first (when the bank buys properties and mortgages alone cannot pay, sell
  lone properties first, as SAIL-ON did), then sell buildings, then mortgage or sell
  the properties of its sets.

Choices forced by our phase structure or made for speed: building and unmortgaging
happen in the out-of-turn phase (as in SAIL-ON), trades in the agent's own pre-roll
phase; an offer is not repeated until `retry_turns` of its own turns have passed or
ownership changed (SAIL-ON repeated refused offers every turn, which only costs time);
a swap never exchanges two streets of one group; and it does not mortgage to afford a
set-completing purchase (SAIL-ON tried that only when a single mortgage covered the
whole price, which almost never happens).
"""

from __future__ import annotations

from operator import itemgetter

from openmono import actions as A
from openmono import legal
from openmono.observation import Observation

from agents.policy_helpers import (NEVER, best_build, build_candidates, buildable_sets,
                                    completes_set, conclude_until, empty_view,
                                    liquidation_value, ownership, raise_cash_action,
                                    sets_change, tables)
from agents.base import PhaseAgent

CONCLUDE = A.CONCLUDE


class BaselineV0Agent(PhaseAgent):
    name = "baseline_v0"
    fixed_answers = {"post_roll": CONCLUDE}  # it never acts after its roll (see `act`)

    def __init__(self, retry_turns: int = 4) -> None:
        super().__init__()
        self.retry_turns = retry_turns
        self._reset()

    def _reset(self) -> None:
        self._owner_key: tuple | None = None
        self._rules_key = None
        self._mine: tuple[int, ...] = ()
        self._sets: list[int] = []
        self._plan: list[A.OfferTrade] = []
        self._plan_turn = -1
        self._rejected: dict[tuple, int] = {}  # offer signature -> turn it was refused
        self._my_turns = 0
        self._cand_key: tuple | None = None
        self._cands: tuple[list, list] = ([], [])
        self._mort_key: tuple | None = None
        self._has_mortgaged = False
        self._unmortgage_min = 0
        self._build_gate = NEVER
        self._unmortgage_gate = NEVER
        self._gate = NEVER
        self._idle = CONCLUDE
        self._gate_mortgaged: tuple | None = None
        self._counts: list[list[int]] = []
        self._build_key: tuple | None = None
        self._build_mort: tuple | None = None
        self._build_state: tuple | None = None
        self._set_view = empty_view
        self._build_cands: list = []
        self._build_min = 0

    def begin_game(self, seat: int, observation: Observation) -> None:
        super().begin_game(seat, observation)
        self._reset()  # the ownership facts are built at the first decision that needs them

    # --- cached facts about ownership (recomputed only when the owner tuple changes) ----
    def _refresh(self, obs: Observation) -> None:
        rules = obs.rules
        owner = obs.owner
        me = obs.seat
        counts, held = ownership(rules, owner, len(obs.cash))
        self._owner_key = owner
        self._counts = counts
        self._rejected.clear()  # ownership changed: old refusals may no longer hold
        if rules is self._rules_key and held[me] == self._mine:
            return  # others' holdings changed, not mine: the rest still holds
        self._rules_key = rules
        mine = self._mine = held[me]
        sets = self._sets = buildable_sets(rules, counts, me)
        # Cash below which nothing can be built or unmortgaged (cheap gates).
        cheapest = tables(rules).cheapest_house
        self._build_gate = min(map(cheapest.__getitem__, sets), default=NEVER)
        streets = [sq for g in sets for sq in rules.group_members[g]]
        self._unmortgage_gate = rules.bank.go_salary + min(
            map(rules.unmortgage_cost.__getitem__, mine), default=NEVER)
        self._gate_mortgaged = None  # `act` sets `_gate` at its next out-of-turn answer
        self._mort_key = None
        self._build_key = None
        self._build_state = None
        self._set_view = itemgetter(*streets) if streets else empty_view

    # --- dispatch ----------------------------------------------------------------------------
    def act(self, obs: Observation) -> A.Action:
        phase = obs.phase
        if phase == "out_of_turn":
            # Most out-of-turn answers: nothing has changed hands and cash is below
            # every gate (see `_out_of_turn`).
            if obs.owner is self._owner_key and obs.rules is self._rules_key:
                mortgaged = obs.mortgaged
                if mortgaged is not self._gate_mortgaged:
                    # Nothing to unmortgage while none of mine is mortgaged.
                    self._gate_mortgaged = mortgaged
                    self._gate = (min(self._build_gate, self._unmortgage_gate)
                                  if any(map(mortgaged.__getitem__, self._mine))
                                  else self._build_gate)
                    self._idle = conclude_until(self._gate)
                if obs.cash[obs.seat] < self._gate:
                    # The gate depends only on my properties and the rules, so the
                    # engine may answer for me until my cash reaches it.
                    return self._idle
            return self._out_of_turn(obs)
        return self._answer_of[phase](self, obs)  # (= self.dispatch(obs), one call fewer)

    # (post_roll: the phase default, Conclude, as `fixed_answers` declares)
    phase_methods = {"pre_roll": "_pre_roll", "out_of_turn": "_out_of_turn", "buy": "_buy",
                     "bid": "_bid", "trade_response": "_answer", "debt": "_debt"}

    # --- buying and auctions ------------------------------------------------------------------
    def _buy(self, obs: Observation) -> A.Action:
        rules = obs.rules
        sq = obs.square
        price = rules.price[sq]
        cash = obs.cash[obs.seat]
        if cash - price >= rules.bank.go_salary:
            return A.BUY
        if price <= cash and completes_set(rules, obs.owner, obs.seat, sq):
            return A.BUY
        return A.DECLINE

    def _bid(self, obs: Observation) -> A.Action:
        rules = obs.rules
        sq = obs.square
        price = rules.price[sq]
        high = obs.high_bid
        cash = obs.cash[obs.seat]
        if high < price:
            bid = high + max(1, (price - high) // 2)
            return A.Bid(bid) if bid < cash else A.DROP_OUT
        if high < cash and completes_set(rules, obs.owner, obs.seat, sq):
            return A.Bid(min(cash, high + max(1, (cash - high) // 4)))
        return A.DROP_OUT

    # --- management -----------------------------------------------------------------------------
    def _out_of_turn(self, obs: Observation) -> A.Action:
        if obs.owner is not self._owner_key or obs.rules is not self._rules_key:
            self._refresh(obs)
        me = obs.seat
        cash = obs.cash[me]
        if cash < self._build_gate and cash < self._unmortgage_gate:
            return conclude_until(min(self._build_gate, self._unmortgage_gate))
        rules = obs.rules
        # `until`: the cash below which this answer stays Conclude while my properties
        # do not change (a standing order for the engine); `cash` itself when the
        # answer depends on more than that (the bank's building stock).
        until = self._build_gate
        if cash >= self._build_gate:
            level = obs.level
            if self._build_key is not level or self._build_mort is not obs.mortgaged:
                self._build_key = level
                self._build_mort = obs.mortgaged
                # Recompute only when a street of my sets changed, not anyone's.
                view = self._set_view
                state = (view(level), view(obs.mortgaged))
                if state != self._build_state:
                    self._build_state = state
                    self._update_build_candidates(obs)
            until = self._build_min  # NEVER when nothing can be built
            if cash >= self._build_min:
                sq = best_build(rules, obs, me, self._sets, candidates=self._build_cands)
                if sq >= 0:
                    return A.BUILD[sq]
                until = cash  # short of bank stock: ask again next time
        if cash >= self._unmortgage_gate:
            mortgaged = obs.mortgaged
            if mortgaged is not self._mort_key:
                self._mort_key = mortgaged
                cost = rules.unmortgage_cost
                low = NEVER
                for sq in self._mine:
                    if mortgaged[sq] and cost[sq] < low:
                        low = cost[sq]
                self._has_mortgaged = low < NEVER
                self._unmortgage_min = low if low < NEVER else 0
            floor = rules.bank.go_salary
            if self._has_mortgaged:
                if cash - self._unmortgage_min >= floor:
                    for sq in self._mine:
                        if mortgaged[sq] and cash - rules.unmortgage_cost[sq] >= floor:
                            return A.UNMORTGAGE[sq]
                until = min(until, self._unmortgage_min + floor)
        elif self._unmortgage_gate < until:
            until = self._unmortgage_gate
        return conclude_until(until) if until > cash else CONCLUDE

    def _update_build_candidates(self, obs: Observation) -> None:
        self._build_cands = build_candidates(obs.rules, obs, obs.seat, self._sets)
        low = NEVER
        for _, c, _ in self._build_cands:
            if c < low:
                low = c
        self._build_min = low

    def _pre_roll(self, obs: Observation) -> A.Action:
        me = obs.seat
        rules = obs.rules
        if obs.in_jail[me] and obs.cash[me] >= rules.bank.go_salary:
            if obs.jail_cards[me]:
                return A.USE_JAIL_CARD
            if obs.cash[me] >= rules.bank.jail_fine:
                return A.PAY_JAIL_FINE
        if obs.turn != self._plan_turn:
            self._plan_turn = obs.turn
            self._my_turns += 1
            if obs.owner is not self._owner_key or obs.rules is not self._rules_key:
                self._refresh(obs)
            self._plan = self._trade_plan(obs, self._trade_candidates(obs)) if self._mine else []
        while self._plan and obs.offers_made < rules.bank.max_trade_offers_per_phase:
            offer = self._plan.pop(0)
            if legal.check_offer(rules, obs, me, offer) is None:
                self._rejected[_signature(offer)] = self._my_turns
                return offer
        return CONCLUDE

    # --- trades ----------------------------------------------------------------------------------
    def _trade_candidates(self, obs: Observation) -> tuple[list, list]:
        """Trades that make sense by ownership alone, cached per owner tuple:
        (my lone street, partner it completes a set for) and (partner, their lone
        street that completes mine). Mortgages are filtered by the caller."""
        if obs.owner is not self._owner_key or obs.rules is not self._rules_key:
            self._refresh(obs)
        if self._cand_key is obs.owner:
            return self._cands
        self._cands = _table_candidates(obs.rules, obs.owner, self._counts)[obs.seat]
        self._cand_key = obs.owner
        return self._cands

    def _trade_plan(self, obs: Observation, cands: tuple[list, list]) -> list[A.OfferTrade]:
        sell_cands, want_cands = cands
        if not sell_cands and not want_cands:
            return []
        mortgaged = obs.mortgaged
        rules = obs.rules
        cash = obs.cash
        me = obs.seat
        price = rules.price
        # Partner -> [(ask, my lone street)], best ask first.
        sells: dict[int, list[tuple[int, int]]] = {}
        for sq, p in sell_cands:
            if mortgaged[sq]:
                continue
            ask = price[sq] * 3 // 2
            if ask < cash[p] // 2:
                ask = cash[p] // 2
            elif ask > cash[p]:
                continue
            sells.setdefault(p, []).append((ask, sq))
        for lst in sells.values():
            lst.sort(key=lambda t: (-t[0], t[1]))
        half_salary = rules.bank.go_salary // 2
        offers: list[A.OfferTrade] = []
        if cash[me] < rules.bank.go_salary:
            for p, lst in sorted(sells.items(), key=lambda kv: -kv[1][0][0]):
                ask, sq = lst[0]
                offers.append(A.OfferTrade(p, give=(sq,), get_cash=ask))
            return self._fresh(offers)
        # Partner -> (pay, their lone street completing my set) with the lowest pay.
        wants: dict[int, tuple[int, int]] = {}
        for p, sq in want_cands:
            if mortgaged[sq]:
                continue
            pay = price[sq] * 3 // 4
            if pay > cash[me]:
                continue
            if p not in wants or pay < wants[p][0]:
                wants[p] = (pay, sq)
        group_of = rules.group_of
        for p in range(len(cash)):
            if p in wants:
                pay, get_sq = wants[p]
                # Swap for a lone street of another group (a same-group swap is void).
                swap = next((t for t in sells.get(p, ())
                             if group_of[t[1]] != group_of[get_sq]), None)
                if swap is not None:
                    ask, give_sq = swap
                    net = pay - ask
                    offers.append(A.OfferTrade(p, give=(give_sq,), get=(get_sq,),
                                               give_cash=max(net, 0), get_cash=max(-net, 0)))
                    continue
                premium = pay * 3 // 2  # 1.125 x price
                if cash[me] - premium > half_salary:
                    offers.append(A.OfferTrade(p, get=(get_sq,), give_cash=premium))
            elif p in sells:
                ask, give_sq = sells[p][0]
                offers.append(A.OfferTrade(p, give=(give_sq,), get_cash=ask))
        return self._fresh(offers)

    def _fresh(self, offers: list[A.OfferTrade]) -> list[A.OfferTrade]:
        """Drop offers refused recently (within `retry_turns` of my turns)."""
        if not self._rejected:
            return offers
        now = self._my_turns
        out = []
        for o in offers:
            t = self._rejected.get(_signature(o))
            if t is None or now - t >= self.retry_turns:
                out.append(o)
        return out

    def _answer(self, obs: Observation) -> A.Action:
        rules = obs.rules
        offer = obs.offer
        me = obs.seat
        cash = obs.cash[me]
        mortgaged = obs.mortgaged
        receive = offer.give
        give = offer.get
        if not receive and offer.give_cash <= 0 and not offer.give_jail_cards:
            return A.REJECT  # something for nothing
        cash_out = offer.get_cash - offer.give_cash
        if cash_out > cash:
            return A.REJECT
        for sq in receive:
            if mortgaged[sq]:
                return A.REJECT
        for sq in give:
            if mortgaged[sq]:
                return A.REJECT
        price = rules.price
        fine = rules.bank.jail_fine
        net = (sum(price[sq] for sq in receive) + offer.give_cash
               + fine * offer.give_jail_cards) - (
            sum(price[sq] for sq in give) + offer.get_cash + fine * offer.get_jail_cards)
        created, lost = sets_change(rules, obs.owner, me, receive, give)
        if lost > created or cash_out >= cash:
            return A.REJECT
        if created > lost:
            return A.ACCEPT
        after = cash - cash_out
        salary = rules.bank.go_salary
        if after < salary / 2 or (after < salary and net <= 0):
            return A.REJECT
        return A.ACCEPT

    # --- debt ------------------------------------------------------------------------------------
    def _debt(self, obs: Observation) -> A.Action:
        rules = obs.rules
        me = obs.seat
        if obs.owner is not self._owner_key or obs.rules is not self._rules_key:
            self._refresh(obs)
        if obs.cash[me] + liquidation_value(rules, obs, me, self._mine) < obs.owed:
            return CONCLUDE  # hopeless: selling everything would not pay the debt
        action = raise_cash_action(rules, obs, me, obs.owed - obs.cash[me], mine=self._mine)
        return CONCLUDE if action is None else action


_CANDIDATES: list = [None, None, None]  # owner tuple, rules, candidates per seat


def _table_candidates(rules, owner: tuple[int, ...], counts: list[list[int]]) -> list[tuple]:
    """Per seat, its trade candidates by ownership alone: (sells, wants), where sells
    are (my lone street, a partner it completes a set for) and wants are (partner, the
    partner's lone street that completes my set), both in street order.

    Worked out for every seat at once and kept for the current owner tuple, which all
    the agents at a table share. Seats out of the game own nothing: they never qualify.
    """
    cache = _CANDIDATES
    if cache[0] is owner and cache[1] is rules and len(cache[2]) == len(counts):
        return cache[2]
    players = len(counts)
    seats = range(players)
    sells: list[list[tuple[int, int]]] = [[] for _ in seats]
    wants: list[list[tuple[int, int]]] = [[] for _ in seats]
    by_group = list(zip(*counts))  # by_group[g][p] = counts[p][g]
    for g, n, streets in tables(rules).street_groups:
        column = by_group[g]
        short = n - 1
        if short not in column:
            continue  # no seat is one street short of this set
        for sq in streets:
            o = owner[sq]
            if o < 0 or column[o] != 1:
                continue
            for p in seats:  # o's lone street would complete p's set
                if column[p] == short and p != o:
                    sells[o].append((sq, p))
                    wants[p].append((o, sq))
    out = []
    for p in seats:
        if len(sells[p]) > 1:
            sells[p].sort()
        if len(wants[p]) > 1:
            wants[p].sort(key=_second)
        out.append((sells[p], wants[p]))
    cache[0], cache[1], cache[2] = owner, rules, out
    return out


def _second(pair: tuple[int, int]) -> int:
    return pair[1]


def _signature(offer: A.OfferTrade) -> tuple:
    return (offer.to, offer.give, offer.get)
