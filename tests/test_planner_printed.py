"""The planner believes the printed values its payments contradict
(`agents.planner.detection.printed`): prices, mortgages, house costs and bank rules
seen paid otherwise under `effects` enter the schema it plays by."""

from __future__ import annotations

import pytest

import openmono
from agents.baseline import BaselineAgent
from agents.planner.agent import PlannerAgent
from agents.planner.detection.printed import PrintedValues
from novelties.observability import shown_schema
from novelties.registry import apply_novelty
from openmono.compiled import compile_rules
from openmono.play import play_game

STANDARD = openmono.standard_schema()


def _play(name: str | None, difficulty: str, games: int, seed: int,
          **params) -> tuple[PlannerAgent, object]:
    agent = PlannerAgent()
    schema, hooks, shown = STANDARD, None, None
    if name is not None:
        applied = apply_novelty(name, STANDARD, difficulty, **params)
        schema, hooks, shown = applied.schema, applied.hooks, shown_schema(STANDARD,
                                                                             applied.schema)
    for g in range(games):
        play_game(schema, [agent] + [BaselineAgent() for _ in range(3)], seed=seed + g,
                  shown=shown, informed=(1, 2, 3), **({"hooks": hooks} if hooks else {}))
    return agent, schema


def test_prices_seen_paid_on_several_groups_are_believed_everywhere():
    """property_prices easy: every price x1.2. Purchases show it on many squares of
    several groups, so the factor is believed on every property, seen or not."""
    agent, truth = _play("property_prices", "easy", 3, seed=7_000)
    believed, real = compile_rules(agent.detector.believed_schema), compile_rules(truth)
    assert [believed.price[sq] for sq in real.properties] == \
        [real.price[sq] for sq in real.properties]


def test_mortgages_that_raise_little_are_believed():
    """mortgage_value: a mortgage raises a tenth of the price, not half; mortgages paid
    out by the bank show it, and the planner's liquidity is counted with it."""
    agent, truth = _play("mortgage_value", "hard", 6, seed=7_100)
    believed, real = compile_rules(agent.detector.believed_schema), compile_rules(truth)
    seen = [sq for sq in real.properties if believed.mortgage[sq] != compile_rules(
        STANDARD).mortgage[sq]]
    assert seen, "no mortgage was believed changed"
    assert all(believed.mortgage[sq] == real.mortgage[sq] for sq in seen)


def test_a_jail_fine_paid_otherwise_is_believed():
    agent, truth = _play("jail_fine", "medium", 4, seed=7_200)
    assert agent.detector.believed_schema.bank.jail_fine == truth.bank.jail_fine != STANDARD.bank.jail_fine


@pytest.mark.parametrize("name, difficulty", [(None, ""), ("group_reassign", "easy"),
                                              ("rent_hike", "medium")])
def test_nothing_is_believed_where_no_printed_value_changed(name, difficulty):
    agent, _ = _play(name, difficulty, 4, seed=7_300)
    checker = agent.detector.checker(PrintedValues)
    assert checker.values == {} and checker.bank == {}
    assert all(a == b for a, b in zip(compile_rules(agent.detector.believed_schema).price,
                                      compile_rules(STANDARD).price))


def test_a_square_seen_unchanged_after_a_change_keeps_the_factor_to_the_seen():
    """One price seen changed and another seen as printed afterwards: no extrapolation,
    only the square seen changed is believed changed."""
    agent = PlannerAgent()
    checker = agent.detector.checker(PrintedValues)
    det = agent.detector
    R = det.R
    a, b = R.properties[0], R.properties[-1]
    det.clock = 1
    checker.on_payment((0, -1, 2 * R.price[a], "buy", a))
    det.clock = 2
    checker.on_payment((0, -1, R.price[b], "buy", b))
    assert checker.square_beliefs("price") == {a: 2 * R.price[a]}


def test_new_mortgage_values_are_not_taken_for_new_interest():
    """property_prices hard halves prices and with them the mortgages: an unmortgage at
    the new mortgage plus the old interest is no change of interest (it was read against
    the printed mortgage, believed a negative rate and made unmortgages it thought cheap
    be refused)."""
    agent, truth = _play("property_prices", "hard", 4, seed=7_000)
    assert ("bank", "mortgage_interest") not in agent.detector.changes
    real = compile_rules(truth)
    believed = compile_rules(agent.detector.believed_schema)
    assert all(believed.unmortgage_cost[sq] >= real.unmortgage_cost[sq]
               for sq in real.properties if believed.price[sq] == real.price[sq])


def test_rents_that_change_only_when_built_up_are_believed_per_level():
    """rent_collapse hard: the dear groups' rents from the second house on fall to a
    fiftieth while their unimproved and one-house rents stay. Rents paid on built-up
    streets are read apart from the unimproved ones, and level by level, so the planner
    believes each, not one factor flickering between them."""
    from agents.planner.detection.factors import ChargeFactors

    agent, truth = _play("rent_collapse", "hard", 8, seed=7_400)
    factors = agent.detector.checker(ChargeFactors)
    assert factors.built_mult, "no built-up rent was believed changed"
    believed = {s.name: s.rent for s in agent.detector.believed_schema.squares}
    real = compile_rules(truth)
    collapsed = [s.name for s in truth.squares if s.group in ("red", "yellow", "green",
                                                               "dark_blue")]
    assert {real.names[sq] for sq in factors.level_mult} == set(collapsed)
    for name in collapsed:
        want = next(s.rent for s in truth.squares if s.name == name)
        assert believed[name][:2] == want[:2]  # the unimproved and one-house rents stand
        # built up: the paid amounts are whole dollars, so the factor is known to a
        # dollar or so on the cheapest level
        assert all(abs(b - w) <= max(1, 0.15 * w) for b, w in zip(believed[name][1:],
                                                                     want[1:]))
