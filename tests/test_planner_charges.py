"""Rule charges on buildings (`agents.planner.charges`): class rules the schema cannot
write (upkeep, a building tax, a build fee) that the planner can be told, or learn from
the charges it sees, and that turn its plan away from what they tax."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import openmono
from agents.baseline import BaselineAgent
from agents.planner.agent import PlannerAgent
from agents.planner.charges import NO_CHARGES, Charges, charges_from
from agents.planner.detection.holdings import HoldingCharges
from agents.planner.simulate import SimState
from agents.planner.value import Evaluator, tables_for
from novelties.observability import shown_schema
from novelties.registry import apply_novelty
from openmono.engine import Game
from openmono.play import play_game

STANDARD = openmono.standard_schema()


def _declared(name: str, difficulty: str, **params) -> list[tuple]:
    applied = apply_novelty(name, STANDARD, difficulty, params)
    return [(c.entity, c.attribute, c.new) for c in applied.declared]


def test_the_declared_rules_are_read_as_charges():
    assert charges_from(_declared("hotel_upkeep", "easy", hotels=2, fee=300)).upkeep == ((2, 300),)
    fee = charges_from(_declared("third_house_fee", "hard", fee=70))
    assert fee.build_fee == ((3, 70),) and fee.fee_for(3) == 70 and fee.fee_for(2) == 0
    hidden = charges_from(_declared("building_tax", "hard"))
    assert (hidden.tax_per_house, hidden.tax_per_hotel) == (150, 600)
    shown = apply_novelty("building_tax", STANDARD, "easy")  # announced: on the board
    told = charges_from([], shown.schema)
    assert (told.tax_per_house, told.tax_per_hotel) == (200, 800)


def test_rules_it_cannot_express_are_left_out():
    assert charges_from(_declared("doubles_fee", "easy")) == NO_CHARGES
    assert not NO_CHARGES


@given(houses=st.integers(0, 12), hotels=st.integers(0, 8))
def test_upkeep_is_due_from_the_threshold_on(houses: int, hotels: int):
    c = Charges(upkeep=((2, 300),), per_house_turn=1.5)
    assert c.per_turn(houses, hotels) == 1.5 * houses + (300 if hotels >= 2 else 0)


def _state_with(level: int) -> SimState:
    """Seat 0 holds the orange set at `level`; the others hold nothing."""
    obs_owner = [-1] * 40
    levels = [0] * 40
    for sq in (16, 18, 19):
        obs_owner[sq], levels[sq] = 0, level
    return SimState([1500] * 4, obs_owner, levels, [False] * 40, 32, 12, [0, 10, 20, 30],
                    [False] * 4, [0] * 4, [0] * 4, [True] * 4)


def test_upkeep_on_hotels_makes_the_planner_prefer_houses():
    """Without the rule a set of hotels is worth more than one of four houses; with an
    upkeep of 300 a turn for holding a hotel, less."""
    free = tables_for(STANDARD)
    taxed = tables_for(STANDARD, charges=Charges(upkeep=((1, 300),)))
    houses, hotels = _state_with(4), _state_with(5)
    assert Evaluator(free, hotels, 0).value(hotels) > Evaluator(free, houses, 0).value(houses)
    assert Evaluator(taxed, hotels, 0).value(hotels) < Evaluator(taxed, houses, 0).value(houses)
    # no building, no charge
    bare = _state_with(0)
    assert Evaluator(taxed, bare, 0).value(bare) == Evaluator(free, bare, 0).value(bare)


def test_a_building_tax_costs_by_the_expected_tax_landings():
    c = Charges(tax_per_house=100)
    t = tables_for(STANDARD, charges=c)
    s = _state_with(2)
    ev = Evaluator(t, s, 0)
    base = Evaluator(tables_for(STANDARD), s, 0).value(s)
    assert ev.value(s) == pytest.approx(base - ev.tax_landings * 100 * 6)
    assert ev.tax_landings > 0


# --- learning the charges from payments -------------------------------------------------
class _Det:
    rule_beliefs: tuple = ()
    version = 0
    checkers: tuple = ()


def _fit(samples) -> tuple:
    checker = HoldingCharges(_Det())
    checker.samples = list(samples)
    return checker.fit()


def test_a_constant_charge_while_holding_hotels_is_an_upkeep():
    assert _fit([(0, 1, (), 300), (4, 2, (), 300), (3, 1, (5,), 300)]) == (
        ("rule:end_of_turn", "hotel upkeep", {"hotels": 1, "fee": 300}),)


def test_a_charge_per_build_to_one_level_is_a_build_fee():
    assert _fit([(3, 0, (1, 1), 800), (5, 0, (1, 2, 2), 400), (6, 0, (1,), 400)]) == (
        ("rule:end_of_turn", "fee for house 1", 400),)


def test_charges_growing_with_buildings_are_fitted_per_building():
    (rule,) = _fit([(h, t, (), 20 * h + 90 * t) for h, t in ((2, 0), (4, 1), (1, 3), (6, 2))])
    assert rule[:2] == ("rule:end_of_turn", "charge per building")
    assert rule[2] == {"house": 20.0, "hotel": 90.0}


def test_two_charges_are_not_enough_to_believe_a_rule():
    assert _fit([(0, 1, (), 300), (2, 1, (), 300)]) == ()


def test_charges_that_do_not_follow_holdings_are_not_believed():
    """A fee for throwing doubles, say: paid by players holding nothing, or in amounts
    that no rate per building explains."""
    assert _fit([(0, 0, (), 50), (3, 1, (), 50), (2, 0, (), 50)]) == ()
    assert _fit([(2, 0, (), 50), (4, 0, (), 50), (1, 2, (), 50), (6, 1, (), 50)]) == ()


def _play(agent: PlannerAgent, name: str, difficulty: str, games: int, seed: int, **params):
    applied = apply_novelty(name, STANDARD, difficulty, params)
    shown = shown_schema(STANDARD, applied.schema)
    for g in range(games):
        play_game(applied.schema, [agent] + [BaselineAgent() for _ in range(3)],
                  seed=seed + g, shown=shown, informed=(1, 2, 3), hooks=applied.hooks)


def test_the_adaptive_planner_learns_an_upkeep_it_pays():
    """hotel_upkeep, 300 a turn from the first hotel: once the planner has paid it, it
    believes it (and values hotels by it); the blind planner believes nothing."""
    agent, blind = PlannerAgent(), PlannerAgent(adapt=False)
    _play(agent, "hotel_upkeep", "easy", 6, seed=4_000, hotels=1, fee=300)
    _play(blind, "hotel_upkeep", "easy", 2, seed=4_000, hotels=1, fee=300)
    assert agent.charges.upkeep == ((1, 300),)
    assert blind.charges == NO_CHARGES


def test_a_told_planner_builds_no_hotel_under_a_ruinous_upkeep():
    """Told that a hotel costs 2000 a turn, the planner never builds one."""
    applied = apply_novelty("hotel_upkeep", STANDARD, "easy", {"hotels": 1, "fee": 2000})
    agent = PlannerAgent(adapt=False)
    agent.tell_rules(applied.schema, [(c.entity, c.attribute, c.new) for c in applied.declared])
    built = []
    for g in range(4):
        game = Game(applied.schema, players=4, seed=4_100 + g, hooks=applied.hooks,
                    informed=frozenset((1, 2, 3)))
        play_game(applied.schema, [agent] + [BaselineAgent() for _ in range(3)],
                  seats=[0, 1, 2, 3], game=game)
        built += [e.level for e in game.events
                  if e.kind == "building_changed" and e.seat == 0 and e.reason == "built"]
    assert built and max(built) < 5  # it builds, but never a hotel
