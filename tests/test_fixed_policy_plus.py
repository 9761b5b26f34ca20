"""`fp_plus_a`, `fp_plus_b`, `fp_plus_c` (the harder opponent set) on constructed positions.

Each test isolates one rule of the shared skeleton or one priority difference between
the three agents, asking for a single decision through a real `Observation`.
"""

from __future__ import annotations

import pytest
from helpers import make_game, sq, with_bank
from hypothesis import given, settings
from hypothesis import strategies as st

import openmono
from openmono import actions as A
from openmono.engine import Decision
from agents.fixed_policy_plus import FPPlusA, FPPlusB, FPPlusC, HIGH, LOW
from agents.random_agent import RandomAgent

STD = openmono.standard_schema()
ORANGE = ("St. James Place", "Tennessee Avenue", "New York Avenue")


def observe(game, seat, phase, offers_made=0, **ctx):
    d = Decision(phase, **ctx)
    d.offers_made = offers_made
    if hasattr(game, "invalidate_observations"):
        game.invalidate_observations()
    return game.observe(seat, d)


def decide(cls, game, seat, phase, **ctx):
    agent = cls()
    agent.begin_game(seat, observe(game, seat, "begin_game"))
    obs = observe(game, seat, phase, **ctx)
    action = agent.act(obs)
    assert obs.is_legal(action), (action, obs.why_illegal(action))
    return action


def pre_roll_actions(cls, game, seat=0, limit=10):
    agent = cls()
    agent.begin_game(seat, observe(game, seat, "begin_game"))
    out = []
    for made in range(limit):
        obs = observe(game, seat, "pre_roll", offers_made=made)
        action = agent.act(obs)
        assert obs.is_legal(action), (action, obs.why_illegal(action))
        out.append(action)
        if action == A.CONCLUDE:
            return out
    raise AssertionError(f"no conclusion after {limit} actions: {out}")


# --- priorities ---------------------------------------------------------------------------------
def test_priority_tables_follow_the_paper():
    rules = openmono.compile_rules(STD)
    a, b, c = FPPlusA().priorities(rules), FPPlusB().priorities(rules), FPPlusC().priorities(rules)
    props = rules.properties
    assert {a[s] for s in props} == {1.0}
    rails = [s for s in props if rules.kind_names[s] == "railroad"]
    utils = [s for s in props if rules.kind_names[s] == "utility"]
    assert all(b[s] == HIGH for s in rails + [sq("Park Place"), sq("Boardwalk")])
    assert all(b[s] == LOW for s in utils)
    light_blue = [sq(n) for n in ("Oriental Avenue", "Vermont Avenue", "Connecticut Avenue")]
    assert all(c[s] == HIGH for s in light_blue + [sq(n) for n in ORANGE] + rails)
    assert c[sq("Boardwalk")] == 1.0 and b[sq("New York Avenue")] == 1.0


# --- buying --------------------------------------------------------------------------------------
def test_all_buy_a_set_completing_property_down_to_their_last_dollar():
    for cls in (FPPlusA, FPPlusB, FPPlusC):
        g = make_game(cash={0: 180}, owner={"Tennessee Avenue": 0, "New York Avenue": 0})
        assert decide(cls, g, 0, "buy", square=sq("St. James Place")) == A.BUY


def test_favourites_are_bought_with_low_cash_others_are_not():
    g = make_game(cash={0: 260})  # a railroad costs 200: 60 left
    rr = sq("Reading Railroad")
    assert decide(FPPlusB, g, 0, "buy", square=rr) == A.BUY
    assert decide(FPPlusC, g, 0, "buy", square=rr) == A.BUY
    assert decide(FPPlusA, g, 0, "buy", square=rr) == A.DECLINE


def test_fp_plus_b_avoids_utilities():
    g = make_game(cash={0: 500})
    ec = sq("Electric Company")
    assert decide(FPPlusA, g, 0, "buy", square=ec) == A.BUY
    assert decide(FPPlusB, g, 0, "buy", square=ec) == A.DECLINE


def test_buys_to_block_an_opponent_set():
    g = make_game(players=4, cash={0: 250}, owner={"Park Place": 1})
    assert decide(FPPlusA, g, 0, "buy", square=sq("Boardwalk")) == A.DECLINE  # 400 > 250
    g = make_game(players=4, cash={0: 250}, owner={"Tennessee Avenue": 1, "New York Avenue": 1})
    assert decide(FPPlusA, g, 0, "buy", square=sq("St. James Place")) == A.BUY  # 70 left


def test_mortgages_a_low_priority_property_to_pay_for_a_favourite():
    owner = {"Mediterranean Avenue": 0, "St. Charles Place": 0}
    g = make_game(cash={0: 150}, owner=owner)
    # 150 + 30 + 70 - 200 = 50 >= the favourite floor: mortgage the cheapest first.
    assert decide(FPPlusB, g, 0, "buy", square=sq("Reading Railroad")) == A.Mortgage(
        sq("Mediterranean Avenue"))
    assert decide(FPPlusA, g, 0, "buy", square=sq("Reading Railroad")) == A.DECLINE


# --- auctions ------------------------------------------------------------------------------------
def test_fp_plus_c_bids_above_list_price_for_an_orange_property_it_needs():
    g = make_game(cash={0: 1000}, owner={"Tennessee Avenue": 0, "New York Avenue": 0})
    action = decide(FPPlusC, g, 0, "bid", square=sq("St. James Place"), high_bid=180)
    assert isinstance(action, A.Bid) and action.amount > 180


def test_fp_plus_c_bids_above_list_for_orange_even_without_a_set_but_fp_a_stops():
    g = make_game(cash={0: 1000})
    action = decide(FPPlusC, g, 0, "bid", square=sq("St. James Place"), high_bid=180)
    assert isinstance(action, A.Bid) and 180 < action.amount <= 234  # 1.3 x price
    assert decide(FPPlusC, g, 0, "bid", square=sq("St. James Place"), high_bid=234) == A.DROP_OUT
    assert decide(FPPlusA, g, 0, "bid", square=sq("St. James Place"), high_bid=180) == A.DROP_OUT


def test_bids_step_toward_its_limit_and_never_above_cash():
    g = make_game(cash={0: 300})
    sj = sq("St. James Place")
    assert decide(FPPlusA, g, 0, "bid", square=sj, high_bid=0) == A.Bid(18)
    assert decide(FPPlusA, g, 0, "bid", square=sj, high_bid=140) == A.Bid(150)  # cash - 150
    assert decide(FPPlusA, g, 0, "bid", square=sj, high_bid=150) == A.DROP_OUT


# --- managing: build, unmortgage, jail -----------------------------------------------------------
def test_builds_on_its_sets_in_every_phase_with_every_spare_dollar():
    owner = {"Oriental Avenue": 0, "Vermont Avenue": 0, "Connecticut Avenue": 0}
    for phase in ("pre_roll", "post_roll", "out_of_turn"):
        g = make_game(cash={0: 50}, owner=owner)
        assert decide(FPPlusA, g, 0, phase) == A.Build(sq("Connecticut Avenue"))
    g = make_game(cash={0: 49}, owner=owner)
    # Concludes, with the exact standing order "until my cash reaches 50".
    assert decide(FPPlusA, g, 0, "post_roll") == A.Conclude(until_cash=50)


def test_favourites_weigh_on_what_to_build_first():
    owner = {n: 0 for n in ORANGE + ("Park Place", "Boardwalk")}
    g = make_game(cash={0: 1000}, owner=owner)
    # First houses, rent gain per dollar: Park Place (175-70)/200 = 0.525 is best,
    # New York (80-32)/100 = 0.48 best in orange; fp_c doubles its orange favourites.
    assert decide(FPPlusA, g, 0, "out_of_turn") == A.Build(sq("Park Place"))
    assert decide(FPPlusB, g, 0, "out_of_turn") == A.Build(sq("Park Place"))
    assert decide(FPPlusC, g, 0, "out_of_turn") == A.Build(sq("New York Avenue"))


def test_lifts_a_mortgage_on_a_set_before_building():
    owner = {"Oriental Avenue": 0, "Vermont Avenue": 0, "Connecticut Avenue": 0}
    g = make_game(cash={0: 400}, owner=owner, mortgaged=["Vermont Avenue"])
    assert decide(FPPlusA, g, 0, "out_of_turn") == A.Unmortgage(sq("Vermont Avenue"))


def test_leaves_jail_early_but_sits_tight_once_opponents_have_sets():
    g = make_game(players=4, cash={0: 500}, in_jail={0: 0})
    assert decide(FPPlusA, g, 0, "pre_roll") == A.PAY_JAIL_FINE
    owner = {s: (1 if i < 10 else 2) for i, s in enumerate(
        openmono.compile_rules(STD).properties)}
    owner.update({sq(n): 3 for n in ORANGE})
    g = make_game(players=4, cash={0: 500}, in_jail={0: 0}, owner=owner)
    assert decide(FPPlusA, g, 0, "pre_roll") == A.CONCLUDE


# --- trades --------------------------------------------------------------------------------------
def test_offers_to_several_players_at_once_to_complete_sets():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1,
             "Vermont Avenue": 0, "Connecticut Avenue": 0, "Oriental Avenue": 2}
    g = make_game(players=4, cash={0: 1000, 1: 500, 2: 500}, owner=owner)
    acts = pre_roll_actions(FPPlusA, g)
    assert acts == [
        A.OfferTrade(1, get=(sq("St. James Place"),), give_cash=270),  # 1.5 x 180
        A.OfferTrade(2, get=(sq("Oriental Avenue"),), give_cash=150),
        A.CONCLUDE,
    ]


def test_offers_a_lone_property_that_gives_the_partner_a_set_in_exchange():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1,
             "Mediterranean Avenue": 0, "Baltic Avenue": 1}
    g = make_game(players=4, cash={0: 1000, 1: 500}, owner=owner)
    acts = pre_roll_actions(FPPlusA, g)
    assert acts == [A.OfferTrade(1, give=(sq("Mediterranean Avenue"),),
                                 get=(sq("St. James Place"),), give_cash=120), A.CONCLUDE]


def test_fp_plus_b_trades_for_a_railroad_it_favours():
    owner = {"Reading Railroad": 0, "Short Line": 1}
    g = make_game(players=4, cash={0: 1000, 1: 500}, owner=owner)
    assert pre_roll_actions(FPPlusB, g) == [A.OfferTrade(1, get=(sq("Short Line"),), give_cash=250),
                                        A.CONCLUDE]
    assert pre_roll_actions(FPPlusA, g) == [A.CONCLUDE]


def test_does_not_repeat_an_offer_in_the_same_turn():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1}
    g = make_game(players=4, cash={0: 1000, 1: 500}, owner=owner)
    agent = FPPlusA()
    agent.begin_game(0, observe(g, 0, "begin_game"))
    first = agent.act(observe(g, 0, "pre_roll"))
    assert isinstance(first, A.OfferTrade)
    assert agent.act(observe(g, 0, "pre_roll", offers_made=1)) == A.CONCLUDE
    assert agent.act(observe(g, 0, "pre_roll", offers_made=0)) == A.CONCLUDE


def answer(cls, offer, cash=1500, owner=None, mortgaged=()):
    g = make_game(players=4, cash={1: cash}, owner=owner or {}, mortgaged=mortgaged)
    return decide(cls, g, 1, "trade_response", offer=offer, offerer=0)


def test_accepts_a_trade_that_adds_a_set():
    owner = {"Tennessee Avenue": 1, "New York Avenue": 1, "St. James Place": 0}
    offer = A.OfferTrade(1, give=(sq("St. James Place"),), get_cash=250)
    assert answer(FPPlusA, offer, owner=owner) == A.ACCEPT


def test_rejects_losing_a_set_and_unprofitable_trades():
    owner = {"Tennessee Avenue": 1, "New York Avenue": 1, "St. James Place": 1}
    lose = A.OfferTrade(1, get=(sq("St. James Place"),), give_cash=500)
    assert answer(FPPlusA, lose, owner=owner) == A.REJECT
    cheap = A.OfferTrade(1, get=(sq("Boardwalk"),), give_cash=300)
    assert answer(FPPlusA, cheap, owner={"Boardwalk": 1}) == A.REJECT
    fair = A.OfferTrade(1, get=(sq("Boardwalk"),), give_cash=450)
    assert answer(FPPlusA, fair, owner={"Boardwalk": 1}) == A.ACCEPT


def test_wants_a_premium_to_hand_over_a_set():
    owner = {"Park Place": 0, "Boardwalk": 1}
    at_price = A.OfferTrade(1, get=(sq("Boardwalk"),), give_cash=450)
    assert answer(FPPlusA, at_price, owner=owner) == A.REJECT  # 450 - 400 < 200 premium
    premium = A.OfferTrade(1, get=(sq("Boardwalk"),), give_cash=650)
    assert answer(FPPlusA, premium, owner=owner) == A.ACCEPT


def test_values_favourites_higher_when_trading():
    offer = A.OfferTrade(1, get=(sq("Reading Railroad"),), give_cash=300)
    owner = {"Reading Railroad": 1}
    assert answer(FPPlusA, offer, owner=owner) == A.ACCEPT
    assert answer(FPPlusB, offer, owner=owner) == A.REJECT


# --- debt ----------------------------------------------------------------------------------------
def test_debt_mortgages_lowest_priority_first():
    owner = {"Electric Company": 0, "Reading Railroad": 0, "Mediterranean Avenue": 0}
    g = make_game(cash={0: 0}, owner=owner)
    assert decide(FPPlusA, g, 0, "debt", owed=20) == A.Mortgage(sq("Mediterranean Avenue"))
    assert decide(FPPlusB, g, 0, "debt", owed=20) == A.Mortgage(sq("Electric Company"))


def test_debt_keeps_sets_for_last_and_gives_up_when_hopeless():
    owner = {"Mediterranean Avenue": 0, "Baltic Avenue": 0, "Oriental Avenue": 0}
    g = make_game(cash={0: 0}, owner=owner)
    assert decide(FPPlusA, g, 0, "debt", owed=20) == A.Mortgage(sq("Oriental Avenue"))
    assert decide(FPPlusA, g, 0, "debt", owed=500) == A.CONCLUDE


# --- whole games ---------------------------------------------------------------------------------
VARIANTS = [
    {},
    {"property_sellback": 0.5},
    {"even_build": False, "max_houses": 3, "hotels": False},
    {"auction": "sealed", "trade_mortgaged": False},
    {"go_salary": 100, "starting_cash": 800},
]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), variant=st.sampled_from(VARIANTS))
def test_plays_whole_games_without_illegal_actions(seed, variant):
    schema = with_bank(STD, turn_limit=300, **variant)
    result = openmono.play_game(schema, [FPPlusA(), FPPlusB(), FPPlusC(), RandomAgent()], seed=seed)
    assert result.stats["faults"] == 0


@pytest.mark.parametrize("cls", [FPPlusA, FPPlusB, FPPlusC])
def test_beats_three_random_agents(cls):
    agent = cls()
    field = [agent, RandomAgent(), RandomAgent(), RandomAgent()]
    wins = sum(openmono.play_game(STD, field, seed=s).winner == 0 for s in range(10))
    assert wins >= 8


# --- the rename and the switches -----------------------------------------------------------
def test_same_games_as_the_agents_named_fp_a_fp_b_fp_c_before():
    """Winner, turns and accepted trades of seeds 0-11 as played by `fp_a, fp_b, fp_c,
    baseline` at commit 004f549 (before the rename), all switches on."""
    from agents.baseline import BaselineAgent
    from agents.registry import make_agent

    before = [(1, 290, 7), (2, 126, 4), (0, 182, 3), (2, 112, 6), (2, 155, 6), (0, 107, 5),
              (2, 146, 5), (0, 108, 4), (1, 257, 6), (1, 143, 5), (2, 114, 6), (1, 198, 6)]
    now = []
    for s in range(12):
        field = [make_agent("fp_plus_a"), make_agent("fp_plus_b"), make_agent("fp_plus_c"),
                 BaselineAgent()]
        r = openmono.play_game(STD, field, seed=s)
        now.append((r.winner, r.turns, r.stats.get("trades", 0)))
    assert now == before


def switched(cls, **off):
    return lambda: cls(**off)


def test_switch_answer_premium():
    owner = {"Park Place": 0, "Boardwalk": 1}
    at_price = A.OfferTrade(1, get=(sq("Boardwalk"),), give_cash=450)
    assert answer(FPPlusA, at_price, owner=owner) == A.REJECT
    assert answer(switched(FPPlusA, answer_premium=False), at_price, owner=owner) == A.ACCEPT


def test_switch_bid_premium():
    g = make_game(cash={0: 1000}, owner={"Tennessee Avenue": 0, "New York Avenue": 0})
    sj = sq("St. James Place")  # completes the orange set: up to 2 x 180 with the premium
    assert isinstance(decide(FPPlusA, g, 0, "bid", square=sj, high_bid=180), A.Bid)
    off = switched(FPPlusA, bid_premium=False)
    assert decide(off, g, 0, "bid", square=sj, high_bid=180) == A.DROP_OUT
    assert decide(off, g, 0, "bid", square=sj, high_bid=100) == A.Bid(118)  # below list: bids
    g = make_game(cash={0: 1000})  # a favourite: 1.3 x price with the premium
    assert isinstance(decide(FPPlusC, g, 0, "bid", square=sj, high_bid=180), A.Bid)
    assert decide(switched(FPPlusC, bid_premium=False), g, 0, "bid", square=sj,
                  high_bid=180) == A.DROP_OUT


def test_switch_block():
    g = make_game(players=4, cash={0: 250}, owner={"Tennessee Avenue": 1, "New York Avenue": 1})
    sj = sq("St. James Place")
    assert decide(FPPlusA, g, 0, "buy", square=sj) == A.BUY  # 70 left: blocks a set
    assert decide(switched(FPPlusA, block=False), g, 0, "buy", square=sj) == A.DECLINE
    g = make_game(players=4, cash={0: 1000}, owner={"Tennessee Avenue": 1, "New York Avenue": 1})
    assert isinstance(decide(FPPlusA, g, 0, "bid", square=sj, high_bid=180), A.Bid)
    assert decide(switched(FPPlusA, block=False), g, 0, "bid", square=sj,
                  high_bid=180) == A.DROP_OUT


def test_switch_jail_stay():
    owner = {s: (1 if i < 10 else 2) for i, s in enumerate(
        openmono.compile_rules(STD).properties)}
    owner.update({sq(n): 3 for n in ORANGE})
    g = make_game(players=4, cash={0: 500}, in_jail={0: 0}, owner=owner)
    assert decide(FPPlusA, g, 0, "pre_roll") == A.CONCLUDE
    assert decide(switched(FPPlusA, jail_stay=False), g, 0, "pre_roll") == A.PAY_JAIL_FINE


def test_switch_tuned_reserves():
    g = make_game(cash={0: 340})  # St. James 180: 160 left, above 150, below 200
    sj = sq("St. James Place")
    assert decide(FPPlusA, g, 0, "buy", square=sj) == A.BUY
    assert decide(switched(FPPlusA, tuned_reserves=False), g, 0, "buy", square=sj) == A.DECLINE
    g = make_game(cash={0: 220})  # a favourite railroad: 20 left, below the floor of 40
    rr = sq("Reading Railroad")
    assert decide(FPPlusB, g, 0, "buy", square=rr) == A.DECLINE
    assert decide(switched(FPPlusB, tuned_reserves=False), g, 0, "buy", square=rr) == A.BUY


def test_switch_retry_wait():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1}
    g = make_game(players=4, cash={0: 1000, 1: 500}, owner=owner)
    for kwargs, again in (({}, False), ({"retry_wait": False}, True)):
        agent = FPPlusA(**kwargs)
        agent.begin_game(0, observe(g, 0, "begin_game"))
        first = agent.act(observe(g, 0, "pre_roll"))
        assert isinstance(first, A.OfferTrade)
        g.state.turn += 4  # its next turn, the offer refused
        assert (agent.act(observe(g, 0, "pre_roll")) == first) is again


def test_switch_weighted_builds():
    owner = {n: 0 for n in ORANGE + ("Park Place", "Boardwalk")}
    g = make_game(cash={0: 1000}, owner=owner)
    assert decide(FPPlusC, g, 0, "out_of_turn") == A.Build(sq("New York Avenue"))
    assert decide(switched(FPPlusC, weighted_builds=False), g, 0,
                  "out_of_turn") == A.Build(sq("Park Place"))


SWITCHES = ("answer_premium", "bid_premium", "block", "jail_stay", "tuned_reserves",
            "retry_wait", "weighted_builds")


def test_switches_are_agent_options():
    from agents.registry import make_agent, option_names

    for name in ("fp_plus_a", "fp_plus_b", "fp_plus_c"):
        assert option_names(name) == [*SWITCHES, "gnome_answers"]
    assert make_agent("fp_plus_c", block=False).block is False


def test_gnome_answers_option_answers_as_baseline():
    """GNOME's rule sells a lone property for $1 while $200 stays; the own rule does not."""
    offer = A.OfferTrade(1, get=(sq("Boardwalk"),), give_cash=1)
    owner = {"Boardwalk": 1}
    assert answer(FPPlusA, offer, owner=owner) == A.REJECT
    assert answer(switched(FPPlusA, gnome_answers=True), offer, owner=owner) == A.ACCEPT


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), off=st.sets(st.sampled_from(SWITCHES), min_size=1))
def test_plays_whole_games_with_switches_off(seed, off):
    kw = {k: False for k in off}
    schema = with_bank(STD, turn_limit=300)
    field = [FPPlusA(**kw), FPPlusB(**kw), FPPlusC(**kw), RandomAgent()]
    assert openmono.play_game(schema, field, seed=seed).stats["faults"] == 0
