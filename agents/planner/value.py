"""The planner's state value V(s) = M_assets + R_s + R_l + M_monopoly (planner paper).

For the agent g1 (`me`) and its active opponents G - g1:

- **M_assets**: the value of g1's properties that are not mortgaged: list price plus
  the cost of their buildings (level x house cost; a hotel level counts as the houses
  it replaced plus itself, as the engine charges it).
- **R_s**: over the next k = `k_turns` turns, expected rent g1 collects from every
  opponent landing on g1's properties minus expected rent g1 pays landing on theirs,
  at current ownership and development: sum_k sum_g [sum_{p in P(g1)} Pr(g,p,k) r(p)
  - sum_{p in P(g)} Pr(g1,p,k) r(p)]. Pr is the expected number of moves ending on p
  in turn k (`landing.visit_probabilities`: the intermediate stops of a doubles turn
  and card moves pay rent too), from each player's square or jail state.
- **R_l**: the same for k = `k_loops` full loops with landing uniform over the board:
  in a loop a player makes n / E[roll] moves, so it lands on each square 1 / E[roll]
  times; R_l = k / E[roll] * sum_g [sum_{P(g1)} r(p) - sum_{P(g)} r(p)].
- **M_monopoly**: with the funds after k loops, F = cash + k x Go salary + R_l, for each
  group c where g1 owns at least one member, R_c is the combined rent of c if g1 spent F
  buying the members it lacks (at list price, plus unmortgaging its own mortgaged ones)
  and then building evenly as far as the rest of F goes; 0 when F cannot buy the group.
  R^s_c = R_c / 2^(set size - owned) and M_monopoly = max_c R^s_c.

**Rule charges** (`charges`, class rules the schema cannot write: upkeep, a building
tax, a build fee) are subtracted: what g1's buildings will cost over the turns of R_s and
R_l, and on its expected tax landings. None unless the planner believes such a rule.

r(p) is the rent the engine would charge now: 0 when mortgaged; an unimproved street
of a set charges double; a utility's rent uses the expected dice total (the worst case
uses the largest). Every constant (prices, rents, house costs, mortgage values, set
sizes, Go salary, dice, board) comes from the *believed* schema the tables were built
from, never from the real game.

`Evaluator` evaluates V and the safety terms (see `pruning`) for one decision: the
players' positions are fixed for the decision, so the per-square landing weights are
summed once and each candidate state costs a few small loops over the groups.
"""

from __future__ import annotations

from bisect import bisect_right
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from openmono.compiled import STREET, UTILITY, compile_rules
from openmono.schema import GameSchema
from openmono.state import buildings_held

from agents.planner.charges import NO_CHARGES, Charges
from agents.planner.landing import landing_model, roll_distribution, visit_probabilities

K_TURNS = 5  # the paper's k for R_s
K_LOOPS = 5  # the paper's k for R_l and M_monopoly


class Terms(NamedTuple):
    """V(s) broken down, plus the safety inputs of the two pruning conditions."""

    value: float
    assets: float
    r_short: float
    r_long: float
    monopoly: float
    cash: int
    r_next: float  # expected cash change from rent over the next round
    r_owed: float  # expected rent income over the next round
    worth: float  # mortgage value of unmortgaged properties + building sell-back value
    r_worst: float  # the largest rent g1 could be charged in its next turn


class Tables:
    """Everything V needs from one believed schema, built once (see `tables_for`)."""

    def __init__(self, schema: GameSchema, k_turns: int = K_TURNS, k_loops: int = K_LOOPS,
                 stay_in_jail: bool = True, charges: Charges = NO_CHARGES) -> None:
        rules = compile_rules(schema)
        model = landing_model(schema, stay_in_jail)
        n = rules.n
        self.schema = schema
        self.rules = rules
        self.n = n
        self.jail = model.jail
        self.max_jail = model.max_jail
        self.k_turns = k_turns
        self.k_loops = k_loops
        size = model.size
        visits = np.zeros((size, n))
        first = np.zeros((size, n))
        if k_turns > 0:
            for s in range(size):
                if s < n:
                    v = visit_probabilities(schema, s, k_turns, stay_in_jail=stay_in_jail)
                else:
                    v = visit_probabilities(schema, model.jail, k_turns, jail_turns=s - n,
                                            stay_in_jail=stay_in_jail)
                visits[s] = v.sum(axis=0)
                first[s] = v[0]
        else:
            for s in range(size):
                start, jt = (s, None) if s < n else (model.jail, s - n)
                first[s] = visit_probabilities(schema, start, 1, jail_turns=jt,
                                               stay_in_jail=stay_in_jail)[0]
        self.visits = visits  # chain state x square: expected moves ending there, k turns
        self.visits1 = first  # the same for the next turn only
        rolls = roll_distribution(schema)
        self.mean_roll = float(sum(t * (a + b) for t, (a, b) in rolls.items()))
        self.max_roll = max(rolls) if rolls else 0
        # Uniform long run: each square is landed on 1 / E[roll] times per loop.
        self.loop_landings = k_loops / self.mean_roll if self.mean_roll > 0 else 0.0
        self.go_income = k_loops * schema.bank.go_salary
        self.expected_mult = tuple(
            self.mean_roll if k == UTILITY else 1.0 for k in rules.kind)
        self.worst_mult = tuple(float(self.max_roll) if k == UTILITY else 1.0 for k in rules.kind)
        self.groups = tuple(g for g, m in enumerate(rules.group_members) if m)
        # a group's members' entries of a state list, as one tuple (a cache key)
        self.pick = {g: _picker(rules.group_members[g]) for g in self.groups}
        self.asset_value = tuple(
            rules.price[sq] if rules.is_property[sq] else 0 for sq in range(n))
        # Rule charges on buildings (`charges`): over the horizon of R_s and R_l, g1 plays
        # k turns plus the turns of k loops, and lands on each tax square 1 / E[roll]
        # times a loop.
        self.charges = charges
        self.charge_turns = k_turns + (k_loops * n / self.mean_roll if self.mean_roll else 0)
        self.taxes = tuple(sq for sq in range(n) if schema.squares[sq].kind == "tax")
        self.tax_loop = self.loop_landings * len(self.taxes)
        self._ladders: dict[tuple, tuple[list[int], list[float]]] = {}

    # --- players' chain states ----------------------------------------------------------
    def chain_state(self, st, seat: int) -> int:
        """The landing-model state a seat's next turn starts from."""
        if st.in_jail[seat]:
            return self.n + min(max(st.jail_turns[seat], 0), self.max_jail - 1)
        return st.position[seat] % self.n

    # --- rents ----------------------------------------------------------------------------
    def rent(self, sq: int, count: int, level: int, mult: tuple[float, ...] | None = None) -> float:
        """Rent of `sq` at `level` when its owner holds `count` members of its group."""
        rules = self.rules
        table = rules.rent[sq]
        if rules.kind[sq] == STREET:
            if level:
                return table[min(level, len(table) - 1)]
            g = rules.group_of[sq]
            return table[0] * 2 if count >= rules.group_need[g] else table[0]
        if count <= 0:
            return 0.0
        return table[min(count, len(table)) - 1] * (mult or self.expected_mult)[sq]

    def ladder(self, g: int, pattern: tuple) -> tuple[list[int], list[float]]:
        """(cumulative cost, combined rent) steps for completing and developing group g.

        `pattern` is (mine, level, mortgaged) per member. Step 0 buys the missing members
        and unmortgages g1's own; each further step adds one building, evenly, cheapest
        street first on ties. Cached: it depends on the group's pattern only.
        """
        key = (g, pattern)
        hit = self._ladders.get(key)
        if hit is not None:
            return hit
        rules = self.rules
        members = rules.group_members[g]
        cost = 0
        levels = []
        for m, (mine, lv, mort) in zip(members, pattern):
            if not mine:
                cost += rules.price[m]
                levels.append(0)
            else:
                if mort:
                    cost += rules.unmortgage_cost[m]
                levels.append(lv)
        count = len(members)
        rents = [self.rent(m, count, lv) for m, lv in zip(members, levels)]
        costs_out = [cost]
        rents_out = [float(sum(rents))]
        if rules.group_buildable[g]:
            top = rules.max_level
            order = sorted(range(len(members)), key=lambda i: (rules.house_cost[members[i]], i))
            while True:
                low = min(levels)
                if low >= top:
                    break
                i = next(i for i in order if levels[i] == low)
                m = members[i]
                levels[i] += 1
                cost += rules.house_cost[m] + self.charges.fee_for(levels[i])
                rents[i] = self.rent(m, count, levels[i])
                costs_out.append(cost)
                rents_out.append(float(sum(rents)))
        out = (costs_out, rents_out)
        if len(self._ladders) > 50_000:
            self._ladders.clear()
        self._ladders[key] = out
        return out

    def potential(self, g: int, pattern: tuple, funds: float) -> float:
        """R_c: the combined rent of group g reachable with `funds` (0 if unaffordable)."""
        costs, rents = self.ladder(g, pattern)
        if funds < costs[0]:
            return 0.0
        return rents[bisect_right(costs, funds) - 1]


_TABLES: dict[tuple, tuple[GameSchema, Tables]] = {}
_EMPTY = ()  # a group nobody owns adds nothing


def _picker(members: tuple[int, ...]):
    """The members' entries of a per-square list, as a tuple (one C call)."""
    if len(members) == 1:
        m = members[0]
        return lambda values: (values[m],)
    return itemgetter(*members)


def tables_for(schema: GameSchema, k_turns: int = K_TURNS, k_loops: int = K_LOOPS,
               stay_in_jail: bool = True, charges: Charges = NO_CHARGES) -> Tables:
    """The (cached) tables of a believed schema (and rule charges)."""
    key = (id(schema), k_turns, k_loops, stay_in_jail, charges)
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is schema:
        return hit[1]
    tables = Tables(schema, k_turns, k_loops, stay_in_jail, charges)
    if len(_TABLES) > 32:
        _TABLES.clear()
    _TABLES[key] = (schema, tables)
    return tables


class Evaluator:
    """V(s) and the safety terms for candidate states of one decision.

    The landing weights depend only on where the players are, which no candidate move
    changes (except leaving jail: `with_my_state`), so they are summed here once:
    `w_in[sq]` = expected opponent landings on sq over k turns, `w_out[sq]` = g1's own.
    """

    def __init__(self, tables: Tables, st, me: int, worst_min_prob: float = 0.0,
                 my_state: int | None = None) -> None:
        self.t = tables
        self.me = me
        self.worst_min_prob = worst_min_prob
        opp = [g for g in range(len(st.cash)) if g != me and st.active[g]]
        self.n_opp = len(opp)
        states = [tables.chain_state(st, g) for g in opp]
        n = tables.n
        if states:
            self.w_in = tables.visits[states].sum(axis=0).tolist()
            self.w1_in = tables.visits1[states].sum(axis=0).tolist()
        else:
            self.w_in = [0.0] * n
            self.w1_in = [0.0] * n
        self._active: list[bool] = list(st.active)
        self._groups: dict[tuple, tuple] = {}  # per group state: its addends (`_group`)
        self._set_mine(tables.chain_state(st, me) if my_state is None else my_state)

    def _set_mine(self, s: int) -> None:
        t = self.t
        self.my_state = s
        self.w_out = t.visits[s].tolist()
        row = t.visits1[s]
        self.w1_out = row.tolist()
        self.reach = (row > self.worst_min_prob).tolist()
        # g1's expected landings on tax squares over the horizon (for a building tax)
        self.tax_landings = sum(self.w_out[sq] for sq in t.taxes) + t.tax_loop

    def with_my_state(self, s: int) -> Evaluator:
        """The same decision with g1's next turn starting from chain state `s`."""
        new = Evaluator.__new__(Evaluator)
        new.__dict__.update(self.__dict__)
        new._groups = {}  # (the addends use g1's landing weights, which change)
        new._set_mine(s)
        return new

    def terms(self, st) -> Terms:
        """V and the safety terms of a candidate state for the deciding seat: what pruning
        and the argmax compare."""
        t = self.t
        rules = t.rules
        owner, level, mort = st.owner, st.level, st.mortgaged
        if st.active != self._active:  # (a group's entry assumes who is still playing)
            self._active = list(st.active)
            self._groups.clear()
        cache = self._groups
        pick = t.pick
        assets = rs = mine_sum = other_sum = r1_in = r1_out = worth = worst = 0.0
        mono: list[tuple[int, tuple, int]] = []
        for g in t.groups:
            get = pick[g]
            key = (g, get(owner), get(level), get(mort))
            e = cache.get(key)
            if e is None:
                e = cache[key] = self._group(g, owner, level, mort, st.active)
            if e is _EMPTY:
                continue
            # Added one member at a time, in the order of the uncached loop, so that V
            # is the same float (a tie between moves breaks the same way).
            a_assets, a_worth, a_rs, a_mine, a_r1_in, a_other, a_r1_out, w, entry = e
            for x in a_assets:
                assets += x
            for x in a_worth:
                worth += x
            for x in a_rs:
                rs += x
            for x in a_mine:
                mine_sum += x
            for x in a_r1_in:
                r1_in += x
            for x in a_other:
                other_sum += x
            for x in a_r1_out:
                r1_out += x
            if w > worst:
                worst = w
            if entry is not None:
                mono.append(entry)
        me = self.me
        cash = st.cash[me]
        r_long = t.loop_landings * (self.n_opp * mine_sum - other_sum)
        funds = cash + t.go_income + r_long
        monopoly = 0.0
        for g, pattern, missing in mono:
            v = t.potential(g, pattern, funds) / (1 << missing)
            if v > monopoly:
                monopoly = v
        value = assets + rs + r_long + monopoly
        r_next = r1_in - r1_out
        charges = t.charges
        if charges:  # (counted only then: the loop above is the planner's hot path)
            houses, hotels = buildings_held(rules, owner, level, me)
            turn = charges.per_turn(houses, hotels)
            value -= (t.charge_turns * turn
                      + self.tax_landings * charges.per_tax_landing(houses, hotels))
            r_next -= turn
        return Terms(value, assets, rs, r_long, monopoly, cash, r_next, r1_in, worth, worst)

    def _group(self, g: int, owner, level, mort, active) -> tuple:
        """Group g's addends to each sum of `terms`, member by member, and its
        M_monopoly entry: cached per decision, since a candidate move changes one or two
        groups and leaves the rest as they were."""
        t = self.t
        rules = t.rules
        me = self.me
        members = rules.group_members[g]
        counts: dict[int, int] = {}
        for m in members:
            o = owner[m]
            if o >= 0:
                counts[o] = counts.get(o, 0) + 1
        if not counts:
            return _EMPTY
        price, house_cost = rules.price, rules.house_cost
        mortgage, refund = rules.mortgage, rules.building_refund
        w_in, w_out, reach = self.w_in, self.w_out, self.reach
        w1_in, w1_out = self.w1_in, self.w1_out
        rent, worst_mult = t.rent, t.worst_mult
        a_assets, a_worth, a_rs, a_mine = [], [], [], []
        a_r1_in, a_other, a_r1_out = [], [], []
        worst = 0.0
        my = counts.get(me, 0)
        for m in members:
            o = owner[m]
            if o < 0 or mort[m]:
                continue
            lv = level[m]
            if o == me:
                r = rent(m, my, lv)
                a_assets.append(price[m] + lv * house_cost[m])
                a_worth.append(mortgage[m] + lv * refund[m])
                a_rs.append(w_in[m] * r)
                a_r1_in.append(w1_in[m] * r)
                a_mine.append(r)
            elif active[o]:
                r = rent(m, counts[o], lv)
                a_rs.append(-(w_out[m] * r))  # (x + -y == x - y exactly)
                a_r1_out.append(w1_out[m] * r)
                a_other.append(r)
                if reach[m]:
                    rw = r if worst_mult[m] == 1.0 else rent(m, counts[o], lv, worst_mult)
                    if rw > worst:
                        worst = rw
        entry = None
        if my:
            pattern = tuple((owner[m] == me, level[m], mort[m]) for m in members)
            entry = (g, pattern, max(rules.group_need[g] - my, 0))
        return (a_assets, a_worth, a_rs, a_mine, a_r1_in, a_other, a_r1_out, worst, entry)

    def value(self, st) -> float:
        """V of a candidate state (the planner's score of a move's outcome)."""
        return self.terms(st).value
