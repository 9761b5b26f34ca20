"""The planner's V(s) terms and pruning conditions on hand-built states.

Most checks use a tiny deterministic board: one die with the single face 1, so every
turn moves exactly one square and every landing probability is 0 or 1, and each term
of V can be computed by hand. A property test then compares the fast evaluator with a
slow, literal transcription of the paper's formulas on random standard-game states.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import openmono
from agents.planner import pruning
from agents.planner.landing import visit_probabilities
from agents.planner.simulate import SimState
from agents.planner.value import Evaluator, Terms, tables_for
from openmono.engine import rent_of
from openmono.schema import BankRules, Die, GameSchema, Group, Square

STD = openmono.standard_schema()


def _tiny(go_salary: int = 200) -> GameSchema:
    """0 go, 1 A, 2 B (streets, one group), 3 jail, 4-5 railroads, 6 utility, 7 parking."""
    street = dict(kind="street", group="g", house_cost=50)
    squares = (
        Square(name="Go", kind="go"),
        Square(name="A", price=100, rent=(10, 50, 150, 300, 400, 500), **street),
        Square(name="B", price=120, rent=(12, 60, 180, 350, 450, 600), **street),
        Square(name="Jail", kind="jail"),
        Square(name="R1", kind="railroad", group="rr", price=200, rent=(25, 50)),
        Square(name="R2", kind="railroad", group="rr", price=200, rent=(25, 50)),
        Square(name="U", kind="utility", group="ut", price=150, rent=(4, 10)),
        Square(name="Parking", kind="free_parking"),
    )
    return GameSchema(name="tiny", squares=squares,
                      groups=(Group(name="g"), Group(name="rr"), Group(name="ut")),
                      dice=(Die(faces=(1,)),), bank=BankRules(go_salary=go_salary))


TINY = _tiny()
TINY_NO_SALARY = _tiny(go_salary=0)


def _state(n: int, players: int = 2, cash: int = 1000, owner: dict[int, int] | None = None,
           level: dict[int, int] | None = None, mortgaged: tuple[int, ...] = (),
           position: list[int] | None = None, jail: dict[int, int] | None = None) -> SimState:
    own = [-1] * n
    for sq, seat in (owner or {}).items():
        own[sq] = seat
    lv = [0] * n
    for sq, v in (level or {}).items():
        lv[sq] = v
    in_jail = [False] * players
    jail_turns = [0] * players
    for seat, turns in (jail or {}).items():
        in_jail[seat] = True
        jail_turns[seat] = turns
    return SimState([cash] * players, own, lv, [sq in mortgaged for sq in range(n)], 32, 12,
                    list(position or [0] * players), in_jail, jail_turns, [0] * players,
                    [True] * players)


def test_every_term_by_hand_on_the_tiny_board() -> None:
    t = tables_for(TINY)
    assert t.mean_roll == 1.0 and t.loop_landings == 5.0  # 5 loops, each square once a loop
    st = _state(8, owner={1: 0, 4: 1})  # me: A (no set, rent 10); opponent: R1 (rent 25)
    terms = Evaluator(t, st, 0).terms(st)
    # Both start on Go: in 5 turns the opponent lands on 1..5 once each, and so do I.
    assert terms.assets == 100
    assert terms.r_short == pytest.approx(10 - 25)
    assert terms.r_long == pytest.approx(5 * (1 * 10 - 25))
    # F = 1000 + 5 * 200 - 75 covers buying B (120) and two hotels (10 x 50): the set's
    # hotel rents 500 + 600, halved because one member is missing.
    assert terms.monopoly == pytest.approx((500 + 600) / 2)
    assert terms.value == pytest.approx(100 - 15 - 75 + 550)


def test_monopoly_term_builds_as_far_as_the_funds_go() -> None:
    t = tables_for(TINY_NO_SALARY)
    st = _state(8, cash=300, owner={1: 0, 4: 1})
    terms = Evaluator(t, st, 0).terms(st)
    # F = 300 - 75 = 225: buy B for 120, then two houses (A first, then B) for 100.
    assert terms.monopoly == pytest.approx((50 + 60) / 2)
    poor = _state(8, cash=190, owner={1: 0, 4: 1})
    # F = 115 cannot even buy B: no potential.
    assert Evaluator(t, poor, 0).terms(poor).monopoly == 0.0


def test_monopoly_term_of_a_complete_developed_set_and_mortgages() -> None:
    t = tables_for(TINY_NO_SALARY)
    alone = _state(8, cash=100, owner={1: 0, 2: 0}, level={1: 1, 2: 1})
    alone.active = [True, False]  # no opponent: no rent terms, F = cash
    terms = Evaluator(t, alone, 0).terms(alone)
    # Nothing to buy; 100 builds two more houses: levels 2 and 2.
    assert terms.monopoly == pytest.approx(150 + 180)
    assert terms.assets == 100 + 120 + 50 + 50
    st = _state(8, cash=100, owner={1: 0, 2: 0}, level={1: 1, 2: 1})
    terms = Evaluator(t, st, 0).terms(st)
    # One opponent: R_l = 5 x (50 + 60) = 550, F = 650 reaches both hotels.
    assert terms.r_long == pytest.approx(550)
    assert terms.monopoly == pytest.approx(500 + 600)
    mort = _state(8, cash=100, owner={1: 0, 2: 0}, mortgaged=(2,))
    terms = Evaluator(t, mort, 0).terms(mort)
    # B mortgaged: not an asset, no rent; A still charges the doubled set rent (20).
    # F = 100 + 5 x 20 = 200: unmortgage B (60 + 6), then two houses (A, B) for 100.
    assert terms.assets == 100
    assert terms.r_long == pytest.approx(5 * 20)
    assert terms.monopoly == pytest.approx(50 + 60)
    mort.active = [True, False]
    # Alone: F = 100 only unmortgages B (66); the set's unimproved rents 2 x (10 + 12).
    assert Evaluator(t, mort, 0).terms(mort).monopoly == pytest.approx(2 * 10 + 2 * 12)


def test_short_term_rent_follows_each_players_position_and_jail() -> None:
    t = tables_for(TINY)
    # Three players; me on square 3, opponent 1 on 7, opponent 2 in jail after 2 failed
    # attempts (max 3: the next turn it pays and moves one square, to 4).
    st = _state(8, players=3, owner={4: 0, 5: 0, 2: 1}, position=[3, 7, 3], jail={2: 2})
    terms = Evaluator(t, st, 0).terms(st)
    # My railroads (2 of 2: rent 50 each). Opponent 1 visits 0,1,2,3,4: R1 once.
    # Opponent 2 visits 4,5,6,7,0: R1 and R2 once. I visit 4,5,6,7,0: never B.
    assert terms.r_short == pytest.approx(50 * 1 + 50 * 2)
    # Next round: opponent 1 lands on 0, opponent 2 on 4 (50); I land on 4 (mine).
    assert terms.r_next == pytest.approx(50)
    assert terms.r_owed == pytest.approx(50)
    assert terms.r_worst == 0


def test_utility_rent_uses_the_expected_and_the_largest_roll() -> None:
    t = tables_for(TINY)
    st = _state(8, owner={6: 1}, position=[5, 0])
    terms = Evaluator(t, st, 0).terms(st)
    # Rent 4 x dice; the die always shows 1. I land on 6 next turn.
    assert terms.r_next == pytest.approx(-4)
    assert terms.r_worst == pytest.approx(4)
    assert terms.r_long == pytest.approx(-5 * 4)


def test_worst_case_rent_counts_only_reachable_squares() -> None:
    t = tables_for(TINY)
    st = _state(8, owner={1: 1, 2: 1}, level={1: 5, 2: 5}, position=[3, 0])
    terms = Evaluator(t, st, 0).terms(st)
    assert terms.r_worst == 0  # from 3 I reach only 4
    near = _state(8, owner={1: 1, 2: 1}, level={1: 5, 2: 5}, position=[1, 0])
    assert Evaluator(t, near, 0).terms(near).r_worst == 600  # B's hotel


def test_bankrupt_opponents_are_ignored() -> None:
    t = tables_for(TINY)
    st = _state(8, owner={1: 0})
    st.active = [True, False]
    terms = Evaluator(t, st, 0).terms(st)
    assert terms.r_short == 0 and terms.r_long == 0


def _terms(cash: int, r_next: float = 0.0, r_owed: float = 0.0, worth: float = 0.0,
           r_worst: float = 0.0) -> Terms:
    return Terms(0.0, 0.0, 0.0, 0.0, 0.0, cash, r_next, r_owed, worth, r_worst)


def test_condition_one_is_a_cash_floor_after_expected_rent() -> None:
    assert pruning.condition1(_terms(300, r_next=-60), 150) == pytest.approx(90)
    assert pruning.condition1(_terms(200, r_next=-60), 150) == pytest.approx(-10)
    assert pruning.is_safe(_terms(300, r_next=-60), 150, 0.5)
    assert not pruning.is_safe(_terms(200, r_next=-60), 150, 0.5)


def test_condition_two_covers_the_worst_rent() -> None:
    # 300 cash + 40 expected income + 0.5 x 400 mortgage value against a 540 rent.
    assert pruning.condition2(_terms(300, r_owed=40, worth=400, r_worst=540), 0.5) == 0
    assert not pruning.is_safe(_terms(300, r_owed=40, worth=400, r_worst=540), 0, 0.5)
    assert pruning.is_safe(_terms(300, r_owed=40, worth=400, r_worst=539), 0, 0.5)
    assert pruning.is_safe(_terms(300, r_owed=40, worth=400, r_worst=699), 0, 0.9)


def test_pruning_keeps_moves_back_to_safety() -> None:
    before = _terms(100, r_worst=500)
    assert not pruning.allowed(before, _terms(50, r_worst=500), 150, 0.5)  # spends: pruned
    assert pruning.allowed(before, _terms(160, r_worst=500), 150, 0.5)  # raises cash
    assert pruning.allowed(_terms(600), _terms(400), 150, 0.5)  # safe after: fine


# --- the fast evaluator against a literal transcription of the paper ----------------
K = 5


def _reference(schema: GameSchema, st: SimState, me: int) -> float:
    """V(s) computed the slow way, straight from the paper's definitions."""
    rules = openmono.compile_rules(schema)
    owner, level, mort = tuple(st.owner), tuple(st.level), st.mortgaged
    jail = rules.jail

    def visits(seat: int):
        if st.in_jail[seat]:
            v = visit_probabilities(schema, jail, K, jail_turns=st.jail_turns[seat])
        else:
            v = visit_probabilities(schema, st.position[seat], K)
        return v

    from agents.planner.landing import roll_distribution
    mean = sum(t * (a + b) for t, (a, b) in roll_distribution(schema).items())

    def r(p: int) -> float:
        if owner[p] < 0 or mort[p]:
            return 0.0
        return float(rent_of(rules, owner, level, p, mean))

    mine = [p for p in rules.properties if owner[p] == me]
    opps = [g for g in range(len(st.cash)) if g != me and st.active[g]]
    assets = sum(rules.price[p] + level[p] * rules.house_cost[p] for p in mine if not mort[p])
    rs = 0.0
    rl = 0.0
    for g in opps:
        theirs = [p for p in rules.properties if owner[p] == g]
        vg, vme = visits(g), visits(me)
        for k in range(K):
            rs += sum(vg[k, p] * r(p) for p in mine) - sum(vme[k, p] * r(p) for p in theirs)
        rl += K / mean * (sum(r(p) for p in mine) - sum(r(p) for p in theirs))
    funds = st.cash[me] + K * schema.bank.go_salary + rl
    best = 0.0
    for g, members in enumerate(rules.group_members):
        have = [m for m in members if owner[m] == me]
        if not have:
            continue
        cost = sum(rules.price[m] for m in members if owner[m] != me)
        cost += sum(rules.unmortgage_cost[m] for m in have if mort[m])
        if funds < cost:
            continue
        full = tuple(me if m in members else o for m, o in enumerate(owner))
        lv = list(level)
        for m in members:
            if owner[m] != me:
                lv[m] = 0
        left = funds - cost
        while rules.group_buildable[g]:
            low = min(lv[m] for m in members)
            if low >= rules.max_level:
                break
            m = min((m for m in members if lv[m] == low), key=lambda m: (rules.house_cost[m], m))
            if left < rules.house_cost[m]:
                break
            left -= rules.house_cost[m]
            lv[m] += 1
        rc = sum(rent_of(rules, full, tuple(lv), m, mean) for m in members)
        best = max(best, rc / 2 ** max(rules.group_need[g] - len(have), 0))
    return assets + rs + rl + best


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_fast_value_matches_the_paper_formulas(data) -> None:
    rules = openmono.compile_rules(STD)
    n = rules.n
    owners = data.draw(st.lists(st.integers(-1, 3), min_size=len(rules.properties),
                                max_size=len(rules.properties)))
    own = [-1] * n
    for p, o in zip(rules.properties, owners):
        own[p] = o
    lv = [0] * n
    mort = [False] * n
    for p in rules.properties:
        g = rules.group_of[p]
        members = rules.group_members[g]
        if rules.group_buildable[g] and own[p] >= 0 and all(own[m] == own[p] for m in members):
            lv[p] = data.draw(st.integers(0, rules.max_level))
        elif own[p] >= 0:
            mort[p] = data.draw(st.booleans())
    pos = data.draw(st.lists(st.integers(0, n - 1), min_size=4, max_size=4))
    in_jail = data.draw(st.lists(st.booleans(), min_size=4, max_size=4))
    jt = data.draw(st.lists(st.integers(0, 2), min_size=4, max_size=4))
    cash = data.draw(st.lists(st.integers(0, 3000), min_size=4, max_size=4))
    active = [True, True, True, data.draw(st.booleans())]
    where = [rules.jail if j else p for p, j in zip(pos, in_jail)]
    sim = SimState(cash, own, lv, mort, 32, 12, where, in_jail, jt, [0] * 4, active)
    me = data.draw(st.integers(0, 2))
    fast = Evaluator(tables_for(STD), sim, me).terms(sim)
    slow = _reference(STD, sim, me)
    assert math.isclose(fast.value, slow, rel_tol=1e-9, abs_tol=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_an_evaluator_reused_over_a_decision_gives_the_fresh_terms_exactly(data) -> None:
    """`Evaluator` caches each group's addends for the candidates of one decision; a
    candidate that changes a few squares (or knocks a seat out) must get the very floats
    a fresh evaluator computes, or ties between moves would break differently."""
    rules = openmono.compile_rules(STD)
    n = rules.n
    props = list(rules.properties)
    own = [data.draw(st.integers(-1, 3)) if sq in props else -1 for sq in range(n)]
    lv, mort = [0] * n, [False] * n
    pos = data.draw(st.lists(st.integers(0, n - 1), min_size=4, max_size=4))
    base = SimState([1500] * 4, own, lv, mort, 32, 12, pos, [False] * 4, [0] * 4, [0] * 4,
                    [True] * 4)
    me = data.draw(st.integers(0, 3))
    ev = Evaluator(tables_for(STD), base, me)
    for _ in range(data.draw(st.integers(1, 8))):
        cand = base.copy()
        for _ in range(data.draw(st.integers(1, 3))):
            sq = data.draw(st.sampled_from(props))
            what = data.draw(st.sampled_from(["owner", "level", "mortgage", "cash"]))
            if what == "owner":
                cand.owner[sq] = data.draw(st.integers(-1, 3))
            elif what == "level":
                cand.level[sq] = data.draw(st.integers(0, rules.max_level))
            elif what == "mortgage":
                cand.mortgaged[sq] = not cand.mortgaged[sq]
            else:
                cand.cash[me] = data.draw(st.integers(0, 5000))
        if data.draw(st.booleans()):
            cand.active = [seat == me or data.draw(st.booleans()) for seat in range(4)]
        fresh = Evaluator(tables_for(STD), base, me)  # same landing weights, empty cache
        assert ev.terms(cand) == fresh.terms(cand)
