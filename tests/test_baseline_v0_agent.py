"""The `baseline` agent (SAIL-ON simple baseline) on constructed positions.

Each test builds a position with `helpers.make_game`, asks the agent for one decision
through a real `Observation`, and checks the rule of the agent's specification that
the position isolates. A few whole games check it never plays an illegal action.
"""

from __future__ import annotations

from helpers import make_game, sq, with_bank
from hypothesis import given, settings
from hypothesis import strategies as st

import openmono
from openmono import actions as A
from openmono.engine import Decision
from agents.policy_helpers import ownership, sets_change
from agents.baseline_v0 import BaselineV0Agent as BaselineAgent

STD = openmono.standard_schema()


def observe(game, seat, phase, offers_made=0, **ctx):
    """A real observation of `game` for `seat` at a decision of `phase`."""
    d = Decision(phase, **ctx)
    d.offers_made = offers_made
    if hasattr(game, "invalidate_observations"):
        game.invalidate_observations()
    return game.observe(seat, d)


def decide(game, seat, phase, agent=None, **ctx):
    agent = agent or BaselineAgent()
    agent.begin_game(seat, observe(game, seat, "begin_game"))
    obs = observe(game, seat, phase, **ctx)
    action = agent.act(obs)
    assert obs.is_legal(action), (action, obs.why_illegal(action))
    return action


# --- buying -----------------------------------------------------------------------------------
def test_buys_when_cash_stays_at_go_salary():
    g = make_game(cash={0: 380})  # St. James Place costs 180: 200 left
    assert decide(g, 0, "buy", square=sq("St. James Place")) == A.BUY


def test_declines_purchase_leaving_less_than_go_salary():
    g = make_game(cash={0: 379})
    assert decide(g, 0, "buy", square=sq("St. James Place")) == A.DECLINE


def test_buys_below_go_salary_when_it_completes_a_set():
    g = make_game(cash={0: 250}, owner={"Tennessee Avenue": 0, "New York Avenue": 0})
    assert decide(g, 0, "buy", square=sq("St. James Place")) == A.BUY


def test_declines_set_completing_purchase_it_cannot_pay():
    g = make_game(cash={0: 179}, owner={"Tennessee Avenue": 0, "New York Avenue": 0})
    assert decide(g, 0, "buy", square=sq("St. James Place")) == A.DECLINE


def test_railroads_complete_a_set_too():
    rails = ["Reading Railroad", "Pennsylvania Railroad", "B. & O. Railroad"]
    g = make_game(cash={0: 210}, owner={r: 0 for r in rails})
    assert decide(g, 0, "buy", square=sq("Short Line")) == A.BUY


# --- auctions ---------------------------------------------------------------------------------
def test_bids_halfway_toward_list_price():
    g = make_game(cash={0: 1500})
    sj = sq("St. James Place")
    assert decide(g, 0, "bid", square=sj, high_bid=0) == A.Bid(90)
    assert decide(g, 0, "bid", square=sj, high_bid=100) == A.Bid(140)
    assert decide(g, 0, "bid", square=sj, high_bid=179) == A.Bid(180)


def test_drops_out_at_list_price_without_a_set():
    g = make_game(cash={0: 1500})
    assert decide(g, 0, "bid", square=sq("St. James Place"), high_bid=180) == A.DROP_OUT


def test_drops_out_when_the_bid_would_reach_its_cash():
    g = make_game(cash={0: 90})
    assert decide(g, 0, "bid", square=sq("St. James Place"), high_bid=0) == A.DROP_OUT


def test_bids_a_quarter_of_the_gap_to_its_cash_above_price_for_a_set():
    g = make_game(cash={0: 1000}, owner={"Tennessee Avenue": 0, "New York Avenue": 0})
    assert decide(g, 0, "bid", square=sq("St. James Place"), high_bid=200) == A.Bid(400)


# --- jail ---------------------------------------------------------------------------------------
def test_leaves_jail_by_card_first():
    g = make_game(cash={0: 300}, in_jail={0: 0}, jail_cards={0: ["chance"]})
    assert decide(g, 0, "pre_roll") == A.USE_JAIL_CARD


def test_pays_the_fine_when_it_has_the_go_salary():
    g = make_game(cash={0: 200}, in_jail={0: 0})
    assert decide(g, 0, "pre_roll") == A.PAY_JAIL_FINE


def test_stays_in_jail_when_poor():
    g = make_game(cash={0: 199}, in_jail={0: 0}, jail_cards={0: ["chance"]})
    assert decide(g, 0, "pre_roll") == A.CONCLUDE


# --- building and mortgages (out of turn) ----------------------------------------------------
def test_builds_the_best_rent_gain_per_cost_down_to_its_last_dollar():
    # Light blue: Connecticut's first house adds 40-16=24 per $50, the others 30-12=18.
    owner = {"Oriental Avenue": 0, "Vermont Avenue": 0, "Connecticut Avenue": 0}
    g = make_game(cash={0: 50}, owner=owner)
    assert decide(g, 0, "out_of_turn") == A.Build(sq("Connecticut Avenue"))


def test_builds_evenly_and_prefers_the_bigger_gain():
    owner = {"Oriental Avenue": 0, "Vermont Avenue": 0, "Connecticut Avenue": 0,
             "Mediterranean Avenue": 0, "Baltic Avenue": 0}
    level = {"Oriental Avenue": 1, "Vermont Avenue": 1, "Connecticut Avenue": 2}
    g = make_game(cash={0: 500}, owner=owner, level=level)
    # Light blue second houses: +60 per $50; Baltic's first house: 20-8 = +12.
    assert decide(g, 0, "out_of_turn") == A.Build(sq("Oriental Avenue"))


def test_does_not_build_in_its_own_pre_roll():
    owner = {"Oriental Avenue": 0, "Vermont Avenue": 0, "Connecticut Avenue": 0}
    g = make_game(cash={0: 500}, owner=owner)
    assert decide(g, 0, "pre_roll") == A.CONCLUDE


def test_unmortgages_only_while_cash_stays_at_go_salary():
    g = make_game(cash={0: 255}, owner={"Oriental Avenue": 0}, mortgaged=["Oriental Avenue"])
    assert decide(g, 0, "out_of_turn") == A.Unmortgage(sq("Oriental Avenue"))  # 255-55
    g = make_game(cash={0: 254}, owner={"Oriental Avenue": 0}, mortgaged=["Oriental Avenue"])
    # Concludes, and tells the engine it will until its cash reaches 255 (or its
    # properties change): the standing order is exact.
    assert decide(g, 0, "out_of_turn") == A.Conclude(until_cash=255)


# --- answering trades ---------------------------------------------------------------------------
def answer(offer, cash=1500, owner=None, mortgaged=()):
    g = make_game(players=4, cash={1: cash}, owner=owner or {}, mortgaged=mortgaged)
    return decide(g, 1, "trade_response", offer=offer, offerer=0)


def test_accepts_a_trade_that_gives_it_a_set():
    owner = {"Tennessee Avenue": 1, "New York Avenue": 1, "St. James Place": 0}
    offer = A.OfferTrade(1, give=(sq("St. James Place"),), get_cash=150)
    assert answer(offer, cash=160, owner=owner) == A.ACCEPT


def test_rejects_a_trade_that_costs_it_a_set():
    owner = {"Tennessee Avenue": 1, "New York Avenue": 1, "St. James Place": 1}
    offer = A.OfferTrade(1, get=(sq("St. James Place"),), give_cash=1000)
    assert answer(offer, owner=owner) == A.REJECT


def test_equal_sets_accepts_while_cash_stays_at_go_salary_even_at_a_loss():
    owner = {"Boardwalk": 1}
    offer = A.OfferTrade(1, get=(sq("Boardwalk"),), give_cash=10)
    assert answer(offer, cash=300, owner=owner) == A.ACCEPT


def test_equal_sets_rules_on_cash_left():
    owner = {"Boardwalk": 0}
    # Net value 400 - 350 = +50; cash left 120: accepted (>= 100 with a positive net).
    assert answer(A.OfferTrade(1, give=(sq("Boardwalk"),), get_cash=350), cash=470,
                  owner=owner) == A.ACCEPT
    # Net value 400 - 450 < 0 and cash left 150 < 200: rejected.
    assert answer(A.OfferTrade(1, give=(sq("Boardwalk"),), get_cash=450), cash=600,
                  owner=owner) == A.REJECT
    # Positive net but cash left 90 < 100: rejected.
    assert answer(A.OfferTrade(1, give=(sq("Boardwalk"),), get_cash=350), cash=440,
                  owner=owner) == A.REJECT


def test_rejects_mortgaged_properties_and_free_lunches():
    owner = {"Boardwalk": 0, "Park Place": 1}
    mort = A.OfferTrade(1, give=(sq("Boardwalk"),), get_cash=1)
    assert answer(mort, owner=owner, mortgaged=["Boardwalk"]) == A.REJECT
    ask_mort = A.OfferTrade(1, get=(sq("Park Place"),), give_cash=500)
    assert answer(ask_mort, owner=owner, mortgaged=["Park Place"]) == A.REJECT
    free = A.OfferTrade(1, get=(sq("Park Place"),))
    assert answer(free, owner=owner) == A.REJECT


def test_rejects_asking_more_cash_than_it_has():
    owner = {"Tennessee Avenue": 1, "New York Avenue": 1, "St. James Place": 0}
    offer = A.OfferTrade(1, give=(sq("St. James Place"),), get_cash=300)
    assert answer(offer, cash=299, owner=owner) == A.REJECT


# --- offering trades (own pre-roll) ----------------------------------------------------------
def offers(game, seat=0, agent=None, limit=10):
    """Every action the agent takes in one pre-roll phase, offers counted as made."""
    agent = agent or BaselineAgent()
    agent.begin_game(seat, observe(game, seat, "begin_game"))
    out = []
    for made in range(limit):
        obs = observe(game, seat, "pre_roll", offers_made=made)
        action = agent.act(obs)
        assert obs.is_legal(action), (action, obs.why_illegal(action))
        out.append(action)
        if action == A.CONCLUDE:
            return out, agent
    raise AssertionError(f"no conclusion after {limit} actions: {out}")


def test_short_of_cash_sells_lone_streets_to_several_players_at_once():
    owner = {"St. James Place": 0, "Tennessee Avenue": 1, "New York Avenue": 1,
             "Baltic Avenue": 0, "Mediterranean Avenue": 2}
    g = make_game(players=4, cash={0: 150, 1: 1000, 2: 100}, owner=owner)
    acts, _ = offers(g)
    assert acts == [
        A.OfferTrade(1, give=(sq("St. James Place"),), get_cash=500),  # half their cash
        A.OfferTrade(2, give=(sq("Baltic Avenue"),), get_cash=90),  # 1.5 x 60
        A.CONCLUDE,
    ]


def test_swaps_a_lone_street_for_one_that_completes_its_set():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1,
             "Oriental Avenue": 0, "Vermont Avenue": 1, "Connecticut Avenue": 1}
    g = make_game(players=4, cash={0: 1000, 1: 300}, owner=owner)
    acts, _ = offers(g)
    # Pays 0.75 x 180 = 135 for St. James, asks 1.5 x 100 = 150 for Oriental: gets 15.
    assert acts == [A.OfferTrade(1, give=(sq("Oriental Avenue"),), get=(sq("St. James Place"),),
                                 get_cash=15), A.CONCLUDE]


def test_never_swaps_within_one_group():
    owner = {"Baltic Avenue": 0, "Mediterranean Avenue": 1}
    g = make_game(players=4, cash={0: 1000, 1: 300}, owner=owner)
    acts, _ = offers(g)
    assert acts == [A.OfferTrade(1, get=(sq("Mediterranean Avenue"),), give_cash=67),
                    A.CONCLUDE]


def test_buys_a_set_completing_street_at_a_premium_keeping_cash_above_half_salary():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1}
    g = make_game(players=4, cash={0: 1000}, owner=owner)
    acts, _ = offers(g)
    assert acts == [A.OfferTrade(1, get=(sq("St. James Place"),), give_cash=202), A.CONCLUDE]
    g = make_game(players=4, cash={0: 300}, owner=owner)
    assert offers(g)[0] == [A.CONCLUDE]  # 300 - 202 = 98: not > 100


def test_offers_only_streets_and_not_twice_in_a_turn():
    rails = ["Reading Railroad", "Pennsylvania Railroad", "B. & O. Railroad"]
    owner = {r: 0 for r in rails}
    owner["Short Line"] = 1
    g = make_game(players=4, cash={0: 1000}, owner=owner)
    assert offers(g)[0] == [A.CONCLUDE]
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1}
    g = make_game(players=4, cash={0: 1000}, owner=owner)
    acts, agent = offers(g)
    assert len(acts) == 2
    obs = observe(g, 0, "pre_roll", offers_made=0)  # same turn, asked again
    assert agent.act(obs) == A.CONCLUDE


# --- debt ----------------------------------------------------------------------------------------
def test_debt_mortgages_cheapest_first():
    owner = {"Boardwalk": 0, "Mediterranean Avenue": 0, "Reading Railroad": 0}
    g = make_game(cash={0: 10}, owner=owner)
    assert decide(g, 0, "debt", owed=100) == A.Mortgage(sq("Mediterranean Avenue"))


def test_debt_sells_buildings_after_mortgages():
    owner = {"Mediterranean Avenue": 0, "Baltic Avenue": 0, "Reading Railroad": 0}
    level = {"Mediterranean Avenue": 1, "Baltic Avenue": 2}
    g = make_game(cash={0: 0}, owner=owner, level=level, mortgaged=["Reading Railroad"])
    assert decide(g, 0, "debt", owed=40) == A.SellBuilding(sq("Baltic Avenue"))


def test_debt_gives_up_at_once_when_hopeless():
    g = make_game(cash={0: 10}, owner={"Boardwalk": 0})
    assert decide(g, 0, "debt", owed=1000) == A.CONCLUDE


def test_debt_with_bank_sales_sells_lone_properties_when_mortgages_fall_short():
    schema = with_bank(STD, property_sellback=0.6)
    owner = {"Boardwalk": 0, "Mediterranean Avenue": 0, "Baltic Avenue": 0,
             "Oriental Avenue": 0}
    # Mortgages raise 200+30+30+50 = 310: enough for 300, so the cheapest is mortgaged.
    g = make_game(schema=schema, cash={0: 0}, owner=owner)
    assert decide(g, 0, "debt", owed=300) == A.Mortgage(sq("Mediterranean Avenue"))
    # Not enough for 330: sell the lone property with the lowest refund (Oriental, 60;
    # the brown streets are a set, Boardwalk refunds 240).
    g = make_game(schema=schema, cash={0: 0}, owner=owner)
    assert decide(g, 0, "debt", owed=330) == A.SellProperty(sq("Oriental Avenue"))


# --- shared helpers ----------------------------------------------------------------------------
RULES = openmono.compile_rules(STD)


@settings(max_examples=60, deadline=None)
@given(owner=st.lists(st.integers(-1, 3), min_size=len(RULES.properties),
                      max_size=len(RULES.properties)),
       data=st.data())
def test_sets_change_matches_a_recount(owner, data):
    full = [-1] * RULES.n
    for sq_, o in zip(RULES.properties, owner):
        full[sq_] = o
    full = tuple(full)
    mine = [s for s in RULES.properties if full[s] == 0]
    theirs = [s for s in RULES.properties if full[s] not in (0,)]
    gains = data.draw(st.lists(st.sampled_from(theirs), unique=True) if theirs else st.just([]))
    losses = data.draw(st.lists(st.sampled_from(mine), unique=True) if mine else st.just([]))
    after = list(full)
    for s in gains:
        after[s] = 0
    for s in losses:
        after[s] = 1
    before_sets = {g for g, n in enumerate(ownership(RULES, full, 4)[0][0])
                   if n >= RULES.group_need[g]}
    after_sets = {g for g, n in enumerate(ownership(RULES, tuple(after), 4)[0][0])
                  if n >= RULES.group_need[g]}
    assert sets_change(RULES, full, 0, gains, losses) == (
        len(after_sets - before_sets), len(before_sets - after_sets))


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
    agents = [BaselineAgent(), BaselineAgent(), BaselineAgent(), BaselineAgent()]
    result = openmono.play_game(schema, agents, seed=seed)
    assert result.stats["faults"] == 0
    assert sum(result.agent_faults) == 0


def test_four_baselines_trade_auction_and_bankrupt():
    agents = [BaselineAgent() for _ in range(4)]
    results = [openmono.play_game(STD, agents, seed=s) for s in range(20)]
    assert sum(r.stats["trades"] for r in results) > 0
    assert sum(r.stats["auctions"] for r in results) > 0
    assert sum(r.end_reason == "bankruptcy" for r in results) >= 15
    assert len({r.winner for r in results}) > 1


def _plain_candidates(rules, owner, players):
    """The trade candidates as first written: per street group, the seats' counts of
    its members, every lone street against every seat one short (what
    `agents.baseline_v0._table_candidates` must equal)."""
    sells = [[] for _ in range(players)]
    wants = [[] for _ in range(players)]
    for g, members in enumerate(rules.group_members):
        need = rules.group_need[g]
        streets = [m for m in members if rules.is_street[m]]
        if not streets or need < 2:
            continue
        column = [sum(1 for m in members if owner[m] == p) for p in range(players)]
        for s in streets:
            o = owner[s]
            if o < 0 or column[o] != 1:
                continue
            for p in range(players):
                if p != o and column[p] == need - 1:
                    sells[o].append((s, p))
                    wants[p].append((o, s))
    return [(sorted(sells[p]), sorted(wants[p], key=lambda t: t[1])) for p in range(players)]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_trade_candidates_equal_a_seat_by_seat_count(data) -> None:
    """Lone streets that would complete another seat's set, on any ownership and table
    size, with the per-group memo warm from earlier boards."""
    from agents import baseline_v0 as V

    players = data.draw(st.integers(2, 4))
    rules = openmono.Game(STD, players=players).public
    owner = [-1] * rules.n
    for s in rules.properties:
        owner[s] = data.draw(st.integers(-1, players - 1))
    owner = tuple(owner)
    counts, _ = ownership(rules, owner, players)
    V._CANDIDATES[:] = [None, None, None]
    assert V._table_candidates(rules, owner, counts) == _plain_candidates(rules, owner, players)
