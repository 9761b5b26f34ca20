"""The planner's decisions on constructed positions of the standard game."""

from __future__ import annotations

import inspect
import json

import pytest
from helpers import make_game

import openmono
from agents.planner.agent import PlannerAgent
from agents.planner.pruning import allowed
from agents.planner.simulate import buy
from agents.registry import make_agent
from agents.baseline import BaselineAgent
from openmono import actions as A
from openmono.engine import Decision
from openmono.hooks import Hooks
from openmono.play import play_game

STD = openmono.standard_schema()
IDX = {s.name: i for i, s in enumerate(STD.squares)}
ORANGE = ("St. James Place", "Tennessee Avenue", "New York Avenue")


def decide(phase: str, seat: int = 0, agent: PlannerAgent | None = None, players: int = 4,
           **position) -> tuple[PlannerAgent, A.Action, object]:
    """The planner's answer at one decision of a constructed position."""
    context = {k: position.pop(k) for k in ("square", "high_bid", "high_bidder", "owed",
                                             "creditor", "offer", "offerer") if k in position}
    game = make_game(players=players, **position)
    agent = agent or PlannerAgent()
    obs = game.observe(seat, Decision("begin_game"))
    agent.begin_game(seat, obs)
    obs = game.observe(seat, Decision(phase, **context))
    return agent, agent.act(obs), obs


def test_buys_the_property_that_completes_a_set() -> None:
    _, action, _ = decide("buy", square=IDX["Baltic Avenue"],
                          owner={"Mediterranean Avenue": 0})
    assert action == A.BUY


def test_refuses_a_purchase_that_breaks_the_cash_floor() -> None:
    boardwalk = IDX["Boardwalk"]
    _, action, _ = decide("buy", square=boardwalk, cash={0: 420})
    assert action == A.DECLINE  # 20 left is under cash_min
    _, action, _ = decide("buy", square=boardwalk, cash={0: 600})
    assert action == A.BUY
    _, action, _ = decide("buy", square=boardwalk, cash={0: 600},
                          agent=PlannerAgent(cash_min=300))
    assert action == A.DECLINE


def test_builds_on_its_monopoly_when_safe() -> None:
    owner = {name: 0 for name in ORANGE}
    _, action, _ = decide("out_of_turn", owner=owner, cash={0: 1500})
    assert isinstance(action, A.Build) and STD.squares[action.square].name in ORANGE
    # 160 cash: a 100 house would leave 60, under cash_min (100) even with the
    # expected rent income of the next round.
    _, action, _ = decide("out_of_turn", owner=owner, cash={0: 160})
    assert action == A.CONCLUDE


def test_does_not_build_into_a_worst_case_rent_it_cannot_cover() -> None:
    # Opponent hotels on the dark blues, reachable from Short Line: condition 2 fails.
    owner = {name: 0 for name in ORANGE} | {"Park Place": 1, "Boardwalk": 1}
    level = {"Park Place": 5, "Boardwalk": 5}
    agent, action, _ = decide("out_of_turn", owner=owner, level=level, cash={0: 1500},
                              position={0: "Short Line"})
    assert action == A.CONCLUDE
    _, action, _ = decide("out_of_turn", owner=owner, level=level, cash={0: 1500},
                          position={0: "Short Line"}, agent=PlannerAgent(mortgage_scale=5.0))
    assert isinstance(action, A.Build)


def test_finances_a_build_by_mortgaging_lone_properties_when_asked() -> None:
    owner = {name: 0 for name in ORANGE} | {"Reading Railroad": 0, "Short Line": 0}
    level = {name: 2 for name in ORANGE}
    # 120 cash: a third house alone would leave 20 (+55 expected rent), under the floor
    # (100); a railroad mortgage (100) makes it safe, and the third house's rent
    # outweighs the railroad's price and rent in V.
    _, action, _ = decide("pre_roll", owner=owner, level=level, cash={0: 120})
    assert action == A.CONCLUDE  # one-step look-ahead alone sees no safe build
    _, action, _ = decide("pre_roll", owner=owner, level=level, cash={0: 120},
                          agent=PlannerAgent(finance_builds=True))
    assert isinstance(action, A.Mortgage)
    assert STD.squares[action.square].kind == "railroad"


def test_bids_up_to_but_not_above_its_limit() -> None:
    boardwalk = IDX["Boardwalk"]
    agent, action, obs = decide("bid", square=boardwalk, high_bid=0, cash={0: 1000})
    assert isinstance(action, A.Bid) and action.amount == 20  # 5% of the list price
    limit = agent._bid_limit
    # The limit is the last price at which buying beats not buying and stays safe:
    # here the cash floor binds (cash - x + R_next >= cash_min).
    t, st, ev, base = agent._setup(obs)

    def good(x: int) -> bool:
        after = ev.terms(buy(st, 0, boardwalk, x))
        return after.value > base.value and allowed(base, after, agent.cash_min,
                                                     agent.mortgage_scale)

    assert good(limit) and not good(limit + 1)
    after = ev.terms(buy(st, 0, boardwalk, limit))
    assert limit == int(1000 - agent.cash_min + after.r_next)
    _, action, _ = decide("bid", agent=agent, square=boardwalk, high_bid=limit - 1,
                          cash={0: 1000})
    assert action == A.Bid(limit)
    _, action, _ = decide("bid", agent=agent, square=boardwalk, high_bid=limit,
                          cash={0: 1000})
    assert action == A.DROP_OUT


def test_jail_compares_a_free_turn_with_a_turn_in_jail() -> None:
    rules = openmono.compile_rules(STD)
    # The opponents own everything and have built: a free turn pays more rent. Stay.
    owner = {sq: 1 + (rules.group_of[sq] % 3) for sq in rules.properties}
    level = {sq: 3 for sq in rules.streets}
    _, action, _ = decide("pre_roll", in_jail={0: 0}, cash={0: 1500}, owner=owner,
                          level=level)
    assert action == A.CONCLUDE
    # An empty board: leaving changes no rent term, V ties, so it keeps the fine...
    _, action, _ = decide("pre_roll", in_jail={0: 0}, cash={0: 1500})
    assert action == A.CONCLUDE
    # ...unless told to leave early while most properties are unowned.
    early = PlannerAgent(jail_leave_unowned=0.25)
    _, action, _ = decide("pre_roll", in_jail={0: 0}, cash={0: 1500}, agent=early)
    assert action == A.PAY_JAIL_FINE
    _, action, _ = decide("pre_roll", in_jail={0: 0}, cash={0: 1500},
                          jail_cards={0: ["chance"]},
                          agent=PlannerAgent(jail_leave_unowned=0.25))
    assert action == A.USE_JAIL_CARD  # the card costs nothing, the fine costs 50
    _, action, _ = decide("pre_roll", in_jail={0: 0}, cash={0: 120}, agent=early)
    assert action == A.CONCLUDE  # paying would break the cash floor


def test_debt_raises_cash_with_the_smallest_loss_of_value() -> None:
    owner = {name: 0 for name in ORANGE} | {"Mediterranean Avenue": 0}
    level = {name: 3 for name in ORANGE}
    _, action, _ = decide("debt", owner=owner, level=level, cash={0: 0}, owed=25, creditor=1)
    assert action == A.Mortgage(IDX["Mediterranean Avenue"])  # not the orange houses
    _, action, _ = decide("debt", owner=owner, level=level, cash={0: 0}, owed=5000,
                          creditor=1)
    assert action == A.CONCLUDE  # hopeless: give up at once


def test_accepts_a_set_completing_offer_and_refuses_to_hand_over_a_set() -> None:
    owner = {"St. James Place": 0, "Tennessee Avenue": 0, "New York Avenue": 1,
             "Oriental Avenue": 0, "Vermont Avenue": 1, "Connecticut Avenue": 1}
    good = A.OfferTrade(0, give=(IDX["New York Avenue"],), give_cash=0, get_cash=200)
    _, action, _ = decide("trade_response", owner=owner, offer=good, offerer=1)
    assert action == A.ACCEPT
    bad = A.OfferTrade(0, get=(IDX["Oriental Avenue"],), give_cash=500)
    _, action, _ = decide("trade_response", owner=owner, offer=bad, offerer=1)
    assert action == A.REJECT  # it would give seat 1 the light blues


def test_offers_to_complete_a_set_and_raises_after_a_refusal() -> None:
    owner = {"St. James Place": 0, "Tennessee Avenue": 0, "New York Avenue": 2}
    new_york = IDX["New York Avenue"]
    game = make_game(players=4, owner=owner)
    agent = PlannerAgent()
    agent.begin_game(0, game.observe(0, Decision("begin_game")))
    d = Decision("pre_roll")
    first = agent.act(game.observe(0, d))
    assert first == A.OfferTrade(2, get=(new_york,), give_cash=20)  # 10% of 200
    d.offers_made = 1  # refused: ownership unchanged at the next decision
    second = agent.act(game.observe(0, d))
    assert second == A.OfferTrade(2, get=(new_york,), give_cash=120)  # + 50% of 200
    d.offers_made = 2
    third = agent.act(game.observe(0, d))
    assert third == A.OfferTrade(2, get=(new_york,), give_cash=220)
    d.offers_made = 3
    assert agent.act(game.observe(0, d)) == A.CONCLUDE  # at most 3 offers a turn


def test_valuation_reads_the_believed_rules() -> None:
    # Believing Boardwalk costs 1450 makes buying it (at 400 in the real game) unsafe.
    # (adapt=False: with adaptation the detector's beliefs, read from the board, win.)
    squares = tuple(s.model_copy(update={"price": 1450}) if s.name == "Boardwalk" else s
                    for s in STD.squares)
    agent = PlannerAgent(adapt=False)
    agent.set_believed_schema(STD.model_copy(update={"squares": squares}))
    _, action, _ = decide("buy", square=IDX["Boardwalk"], cash={0: 1500}, agent=agent)
    assert action == A.DECLINE
    _, action, _ = decide("buy", square=IDX["Boardwalk"], cash={0: 1500})
    assert action == A.BUY


def test_options_are_json_and_registered() -> None:
    defaults = {k: p.default for k, p in inspect.signature(PlannerAgent).parameters.items()}
    assert defaults["adapt"] is True
    json.dumps(defaults)
    agent = make_agent("planner", cash_min=50, adapt=False)
    assert isinstance(agent, PlannerAgent) and agent.cash_min == 50 and not agent.adapt
    assert agent.name == "planner"


@pytest.mark.parametrize("seed", [0, 1])
def test_plays_whole_games_without_faults(seed: int) -> None:
    agents = [PlannerAgent(), BaselineAgent(), BaselineAgent(), BaselineAgent()]
    result = play_game(STD, agents, seed=seed)
    assert result.agent_faults[0] == 0
    assert result.stats["faults"] == 0
    assert agents[0].errors == 0  # no decision fell back to the phase default


def test_respects_a_rule_hook_it_does_not_know() -> None:
    # A building moratorium (a hook reading the turn) must not make it build illegally.
    hooks = Hooks(building_allowed=lambda rules, view, seat, sq: "moratorium"
                  if view.turn < 10_000 else None)
    agents = [PlannerAgent(), BaselineAgent(), BaselineAgent(), BaselineAgent()]
    result = play_game(STD, agents, seed=3, hooks=hooks)
    assert result.stats["faults"] == 0 and agents[0].errors == 0


def test_detector_feeds_reports_and_beliefs() -> None:
    """Wired in: a visible rent change is reported after a game, and with `adapt` the
    agent values the game by the new rents; without it, by the standard ones."""
    rents = tuple(s.model_copy(update={"rent": tuple(3 * r for r in s.rent)})
                  if s.kind == "street" else s for s in STD.squares)
    novel = STD.model_copy(update={"squares": rents})
    for adapt in (True, False):
        agent = PlannerAgent(adapt=adapt)
        agents = [agent, BaselineAgent(), BaselineAgent(), BaselineAgent()]
        play_game(novel, agents, seed=3)
        report = agent.novelty_report()
        assert report.detected and report.confidence > 0.5
        assert any(c.attribute == "rent" for c in report.changes)
        believed_rent = agent.believed.squares[IDX["Boardwalk"]].rent[0]
        assert believed_rent == (150 if adapt else 50)
