"""`baseline` = GNOME-p3's background_agent_v3_1, one test per decision rule, each named
after the GNOME function it reproduces (module background_agent_v3_1 unless noted;
`helpers` = agent_helper_functions). Positions are built with `helpers.make_game` and
the agent answers one real observation.
"""

from __future__ import annotations

from helpers import make_game, sq, with_bank
from hypothesis import given, settings
from hypothesis import strategies as st

import openmono
from openmono import actions as A
from openmono import events as E
from openmono.engine import Decision
from agents.baseline import (BaselineAgent, best_improvement, completes_set, curate_offers,
                             unmortgage_limit)

STD = openmono.standard_schema()
GNOME = openmono.gnome_schema()
ORANGE = ("St. James Place", "Tennessee Avenue", "New York Avenue")


def observe(game, seat, phase, offers_made=0, **ctx):
    d = Decision(phase, **ctx)
    d.offers_made = offers_made
    game.invalidate_observations()
    return game.observe(seat, d)


def decide(game, seat, phase, agent=None, **ctx):
    agent = agent or BaselineAgent()
    agent.begin_game(seat, observe(game, seat, "begin_game"))
    obs = observe(game, seat, phase, **ctx)
    action = agent.act(obs)
    assert obs.is_legal(action), (action, obs.why_illegal(action))
    return action


# --- make_pre_roll_move ---------------------------------------------------------------------
def test_make_pre_roll_move_leaves_jail_with_card_first_when_cash_reaches_go_salary():
    g = make_game(cash={0: 200}, in_jail={0: 0}, jail_cards={0: ["chance"]})
    assert decide(g, 0, "pre_roll") == A.USE_JAIL_CARD
    g = make_game(cash={0: 200}, in_jail={0: 0})
    assert decide(g, 0, "pre_roll") == A.PAY_JAIL_FINE
    g = make_game(cash={0: 199}, in_jail={0: 0}, jail_cards={0: ["chance"]})
    assert decide(g, 0, "pre_roll") == A.CONCLUDE


# --- make_buy_property_decision ---------------------------------------------------------------
def test_make_buy_property_decision_buys_when_go_salary_remains_or_it_completes_a_set():
    assert decide(make_game(cash={0: 380}), 0, "buy", square=16) == A.BUY
    assert decide(make_game(cash={0: 379}), 0, "buy", square=16) == A.DECLINE
    g = make_game(cash={0: 180}, owner={"Tennessee Avenue": 0, "New York Avenue": 0})
    assert decide(g, 0, "buy", square=16) == A.BUY
    g = make_game(cash={0: 179}, owner={"Tennessee Avenue": 0, "New York Avenue": 0})
    assert decide(g, 0, "buy", square=16) == A.DECLINE


def test_make_post_roll_move_mortgages_to_afford_a_set_completing_property():
    """make_post_roll_move: when it cannot afford a property that completes a set, it
    mortgages the cheapest property that is not lone (helpers.is_property_lone) whose
    mortgage covers the price (helpers.identify_potential_mortgage), then buys. Our
    engine asks to buy at landing, where cash may be raised, so it does this there."""
    owner = {"Mediterranean Avenue": 0, "Reading Railroad": 0, "Pennsylvania Railroad": 0,
             "Oriental Avenue": 0}  # Oriental is lone: never mortgaged for this
    for schema in (STD, GNOME):
        g = make_game(3, schema=schema, cash={0: 50}, owner=owner)
        assert decide(g, 0, "buy", square=3) == A.Mortgage(sq("Pennsylvania Railroad"))
        g = make_game(3, schema=schema, cash={0: 150}, owner=owner,
                      mortgaged=["Pennsylvania Railroad"])
        assert decide(g, 0, "buy", square=3) == A.BUY
    # no property both not lone and with a mortgage of at least the price: decline
    g = make_game(3, cash={0: 50}, owner={"Mediterranean Avenue": 0, "Oriental Avenue": 0})
    assert decide(g, 0, "buy", square=3) == A.DECLINE
    # not set-completing: decline
    g = make_game(3, cash={0: 50}, owner=owner)
    assert decide(g, 0, "buy", square=8) == A.DECLINE


def test_will_property_complete_set_counts_the_fourth_railroad_and_second_utility():
    """helpers.will_property_complete_set."""
    g = make_game(owner={5: 0, 15: 0, 25: 0, 12: 0})
    rules = g.rules
    assert completes_set(rules, g.state.owner, 0, 35)
    assert completes_set(rules, g.state.owner, 0, 28)
    assert not completes_set(rules, g.state.owner, 1, 35)


# --- make_bid --------------------------------------------------------------------------------
def test_make_bid_goes_half_way_to_the_price_below_it():
    g = make_game(cash={0: 1500})
    assert decide(g, 0, "bid", square=16, high_bid=0) == A.Bid(90)
    assert decide(g, 0, "bid", square=16, high_bid=100) == A.Bid(140)
    g = make_game(cash={0: 140})  # half way (140) is not below its cash
    assert decide(g, 0, "bid", square=16, high_bid=100) == A.DROP_OUT


def test_make_bid_above_the_price_only_for_a_set_a_quarter_toward_its_cash():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0}
    g = make_game(cash={0: 1000}, owner=owner)
    assert decide(g, 0, "bid", square=16, high_bid=200) == A.Bid(400)
    g = make_game(cash={0: 1000})
    assert decide(g, 0, "bid", square=16, high_bid=200) == A.DROP_OUT


# --- make_out_of_turn_move: accept_trade_offer ------------------------------------------------
def answer(offer, offerer=1, **kw):
    g = make_game(3, **kw)
    g.state.current = 2  # not its turn (see the pre-roll test below)
    return decide(g, 0, "trade_response", offer=offer, offerer=offerer)


def test_accept_rejects_offers_that_give_nothing_or_ask_more_cash_than_it_has():
    assert answer(A.OfferTrade(to=0, get_cash=10)) == A.REJECT
    assert answer(A.OfferTrade(to=0, give=(6,), get_cash=1600),
                  owner={"Oriental Avenue": 1}) == A.REJECT


def test_accept_rejects_mortgaged_properties():
    assert answer(A.OfferTrade(to=0, give=(6,), get_cash=10), owner={"Oriental Avenue": 1},
                  mortgaged=["Oriental Avenue"]) == A.REJECT


def test_accept_a_set_gained_when_it_can_pay():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1}
    offer = A.OfferTrade(to=0, give=(16,), get_cash=1499)
    assert answer(offer, owner=owner) == A.ACCEPT
    assert answer(A.OfferTrade(to=0, give=(16,), get_cash=1500), owner=owner) == A.REJECT


def test_accept_rejects_losing_a_set_it_does_not_replace():
    owner = {**{n: 0 for n in ORANGE}, "Oriental Avenue": 1}
    offer = A.OfferTrade(to=0, give=(6,), get=(16,), give_cash=500)
    assert answer(offer, owner=owner) == A.REJECT


def test_accept_with_no_set_change_needs_cash_and_worth():
    """Cash after >= S/2 and, below S, a positive worth (prices + cash)."""
    owner = {"Oriental Avenue": 1}
    assert answer(A.OfferTrade(to=0, give=(6,), get_cash=100), owner=owner,
                  cash={0: 300}) == A.ACCEPT  # 200 left
    assert answer(A.OfferTrade(to=0, give=(6,), get_cash=100), owner=owner,
                  cash={0: 299}) == A.REJECT  # 199 left and worth 0
    assert answer(A.OfferTrade(to=0, give=(6,), get_cash=99), owner=owner,
                  cash={0: 299}) == A.ACCEPT  # 200 left
    assert answer(A.OfferTrade(to=0, give=(6,), get_cash=90), owner=owner,
                  cash={0: 280}) == A.ACCEPT  # 190 left, worth +10
    assert answer(A.OfferTrade(to=0, give=(6,), get_cash=90), owner=owner,
                  cash={0: 189}) == A.REJECT  # 99 left: below S/2


def test_accept_never_counts_a_railroad_as_a_set_lost():
    owner = {5: 0, 15: 0, 25: 0, 35: 0, "Oriental Avenue": 1}
    offer = A.OfferTrade(to=0, give=(6,), get=(5,), get_cash=0)
    assert answer(offer, owner=owner) == A.ACCEPT  # worth -100 but no set change, cash 1500


# --- helpers.identify_improvement_opportunity; free_mortgage -----------------------------------
def not_my_turn(g):
    g.state.current = 2
    return g


def test_identify_improvement_opportunity_picks_largest_rent_gain_minus_cost():
    owner = {**{n: 0 for n in ORANGE}, "Park Place": 0, "Boardwalk": 0}
    g = make_game(3, owner=owner, cash={0: 1000})
    # unimproved: St. James/Tennessee 70-28-100 = -58, New York 80-32-100 = -52,
    # Park Place 175-70-200 = -95, Boardwalk 200-100-200 = -100
    assert best_improvement(g.rules, g.state, 0) == sq("New York Avenue")
    g = not_my_turn(make_game(3, owner={"Park Place": 0, "Boardwalk": 0}, cash={0: 1000},
                              level={"Park Place": 1, "Boardwalk": 1}))
    # Park Place 500-175-200 = 125, Boardwalk 600-200-200 = 200
    assert decide(g, 0, "out_of_turn") == A.Build(sq("Boardwalk"))


def test_improvement_needs_the_house_cost_in_cash():
    g = not_my_turn(make_game(3, owner={n: 0 for n in ORANGE}, cash={0: 99}))
    assert best_improvement(g.rules, g.state, 0) == -1
    assert decide(g, 0, "out_of_turn") == A.Conclude(until_cash=100)


def test_free_mortgage_when_go_salary_remains_after_110_percent():
    g = not_my_turn(make_game(3, owner={"Baltic Avenue": 0}, mortgaged=["Baltic Avenue"],
                              cash={0: 233}))
    assert unmortgage_limit(g.rules, 3) == 233  # 30 x 1.1 = 33.0 in floats too
    assert decide(g, 0, "out_of_turn") == A.Unmortgage(3)
    g = not_my_turn(make_game(3, owner={"Baltic Avenue": 0}, mortgaged=["Baltic Avenue"],
                              cash={0: 232}))
    assert decide(g, 0, "out_of_turn") == A.Conclude(until_cash=233)
    assert unmortgage_limit(g.rules, sq("Boardwalk")) == 421  # 200 x 1.1 = 220.00000000000003


# --- helpers.curate_trade_offer_multiple_players ----------------------------------------------
def test_curate_sells_lone_streets_when_cash_is_below_go_salary():
    owner = {"Oriental Avenue": 0, "Vermont Avenue": 1, "Connecticut Avenue": 1}
    g = make_game(3, owner=owner, cash={0: 150, 1: 1000})
    assert curate_offers(g.rules, g.state, 0) == [A.OfferTrade(to=1, give=(6,), get_cash=500)]


def test_curate_makes_exchange_offers_only_when_an_exchange_exists():
    owner = {"Oriental Avenue": 0, "Vermont Avenue": 1, "Connecticut Avenue": 1,
             "Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1,
             "Kentucky Avenue": 0, "Indiana Avenue": 0, "Illinois Avenue": 2}
    g = make_game(3, owner=owner, cash={0: 1000, 1: 1000, 2: 1000})
    # 0 wants St. James (from 1) and Illinois (from 2); 1 wants Oriental: the exchange
    # with 1 only (Oriental at half 1's cash, 500, against St. James at 0.75 x 180 = 135)
    offers = curate_offers(g.rules, g.state, 0)
    assert offers == [A.OfferTrade(to=1, give=(6,), get=(16,), give_cash=0, get_cash=365)]


def test_curate_buy_offers_check_cash_cumulatively():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1,
             "Kentucky Avenue": 0, "Indiana Avenue": 0, "Illinois Avenue": 2}
    # 0.75 x 1.5 = 1.125 x price: St. James 202.5, Illinois 270, cheapest first
    g = make_game(3, owner=owner, cash={0: 1000})
    assert curate_offers(g.rules, g.state, 0) == [
        A.OfferTrade(to=1, get=(16,), give_cash=202),
        A.OfferTrade(to=2, get=(24,), give_cash=270)]
    g = make_game(3, owner=owner, cash={0: 573})  # 573 - 472.5 = 100.5 > 100
    assert len(curate_offers(g.rules, g.state, 0)) == 2
    g = make_game(3, owner=owner, cash={0: 572})  # 99.5 left: the second is dropped
    assert curate_offers(g.rules, g.state, 0) == [A.OfferTrade(to=1, get=(16,), give_cash=202)]


def test_offers_once_per_turn_and_again_next_turn():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1}
    g = make_game(3, owner=owner)
    agent = BaselineAgent()
    agent.begin_game(0, observe(g, 0, "begin_game"))
    first = agent.act(observe(g, 0, "pre_roll"))
    assert first == A.OfferTrade(to=1, get=(16,), give_cash=202)
    assert agent.act(observe(g, 0, "pre_roll", offers_made=1)) == A.CONCLUDE
    g.state.turn += 1
    assert agent.act(observe(g, 0, "pre_roll")) == first  # refused: made again


def test_under_gnome_rules_offers_come_from_its_out_of_turn_call():
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1}
    g = make_game(3, schema=GNOME, owner=owner)
    pre_roll = decide(g, 0, "pre_roll")
    # (a Conclude for every later pre-roll too: out of jail it never does anything else)
    assert type(pre_roll) is A.Conclude and pre_roll.until_cash == A.NO_CASH_LIMIT
    assert decide(g, 0, "out_of_turn") == A.OfferTrade(to=1, get=(16,), give_cash=202)


# --- handle_negative_cash_balance ---------------------------------------------------------------
def test_debt_mortgages_the_cheapest_when_mortgages_cover_it():
    g = make_game(3, owner={"Baltic Avenue": 0, "Boardwalk": 0}, cash={0: 0})
    assert decide(g, 0, "debt", owed=100, creditor=1) == A.Mortgage(sq("Baltic Avenue"))


def test_debt_sells_cheapest_property_outside_sets_when_the_bank_buys():
    schema = with_bank(STD, property_sellback=0.5)
    owner = {"Baltic Avenue": 0, "Reading Railroad": 0}
    g = make_game(3, schema=schema, owner=owner, cash={0: 0})
    assert decide(g, 0, "debt", owed=500, creditor=1) == A.SellProperty(sq("Baltic Avenue"))


def test_debt_forecloses_mortgaged_properties_first_under_gnome_rules():
    """handle_negative_cash_balance values a mortgaged property at half its price minus
    1.1 x its mortgage (negative), so it is 'sold' first (location.py
    transfer_property_to_bank forecloses it for nothing): outside its sets, then in them."""
    owner = {"Baltic Avenue": 0, "Oriental Avenue": 0}
    g = make_game(3, schema=GNOME, owner=owner, mortgaged=["Oriental Avenue"], cash={0: 0})
    assert decide(g, 0, "debt", owed=500, creditor=1) == A.SellProperty(sq("Oriental Avenue"))
    g = make_game(3, schema=GNOME, owner={"Park Place": 0, "Boardwalk": 0},
                  mortgaged=["Boardwalk"], cash={0: 0})
    assert decide(g, 0, "debt", owed=500, creditor=1) == A.SellProperty(sq("Boardwalk"))


def test_debt_sells_buildings_by_street_name_then_gives_up_without_mortgage_cover():
    owner = {n: 0 for n in ORANGE}
    g = make_game(3, owner=owner, level={n: 1 for n in ORANGE}, cash={0: 0})
    # New York < St. James < Tennessee by name
    assert decide(g, 0, "debt", owed=600, creditor=1) == A.SellBuilding(sq("New York Avenue"))
    g = make_game(3, owner={"Baltic Avenue": 0}, cash={0: 0})
    assert decide(g, 0, "debt", owed=600, creditor=1) == A.CONCLUDE


def test_debt_gives_up_when_its_building_sale_is_refused():
    """handle_negative_cash_balance picks the first built street by name; when the
    even-selling rule refuses that sale (action_choices.py sell_house_hotel), GNOME asks
    again, gets the same refused sale, and after three failures (player.py
    handle_negative_cash_balance, `unsuccessful_tries = 3`) the player is bankrupt."""
    owner = {n: 0 for n in ORANGE}
    levels = {"New York Avenue": 1, "St. James Place": 2, "Tennessee Avenue": 2}
    g = make_game(3, owner=owner, level=levels, cash={0: 0})
    assert decide(g, 0, "debt", owed=600, creditor=1) == A.CONCLUDE
    g = make_game(3, schema=GNOME, owner=owner, cash={0: 0},
                  level={"New York Avenue": 5, "St. James Place": 4, "Tennessee Avenue": 4})
    assert decide(g, 0, "debt", owed=600, creditor=1) == A.CONCLUDE


def test_whole_games_are_legal_under_both_rule_sets():
    for schema in (STD, GNOME):
        for seed in range(3):
            r = openmono.play_game(schema, [BaselineAgent() for _ in range(4)], seed=seed)
            assert r.stats["faults"] == 0


def test_make_pre_roll_move_ignores_an_offer_waiting_at_its_pre_roll():
    """GNOME: accept_trade_offer is allowed in the pre-roll, but v3_1's pre-roll only
    decides about jail, so an offer waiting there is dropped."""
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1}
    offer = A.OfferTrade(to=0, give=(16,), get_cash=100)
    g = make_game(3, schema=GNOME, owner=owner)
    agent = BaselineAgent()
    agent.begin_game(0, observe(g, 0, "begin_game"))
    g.events.append(E.TurnStarted(0, g.state.turn))  # the engine asks it right then
    assert agent.act(observe(g, 0, "trade_response", offer=offer, offerer=1)) == A.REJECT
    agent.act(observe(g, 0, "pre_roll"))
    assert agent.act(observe(g, 0, "trade_response", offer=offer, offerer=1)) == A.ACCEPT


def test_an_offer_after_a_pre_roll_its_standing_order_answered_is_weighed():
    """Its pre-roll under the gnome rules is a standing order, so the engine may answer
    it without asking: an offer in its own turn that follows anything (here the offer
    being made) is past its pre-roll and weighed, as GNOME's out-of-turn move does."""
    owner = {"Tennessee Avenue": 0, "New York Avenue": 0, "St. James Place": 1}
    offer = A.OfferTrade(to=0, give=(16,), get_cash=100)
    g = make_game(3, schema=GNOME, owner=owner)
    agent = BaselineAgent()
    agent.begin_game(0, observe(g, 0, "begin_game"))
    g.events.append(E.TurnStarted(0, g.state.turn))
    g.events.append(E.TradeOffered(offer, 1))
    assert agent.act(observe(g, 0, "trade_response", offer=offer, offerer=1)) == A.ACCEPT


# --- mortgages and buildings side by side in a colour group (rules=gnome) ----------------------
LIGHT_BLUE = ("Oriental Avenue", "Vermont Avenue", "Connecticut Avenue")


def test_debt_mortgage_step_counts_unbuilt_streets_of_built_groups_under_gnome_rules():
    """handle_negative_cash_balance's first step lists every unmortgaged asset without
    houses or hotels of its own (buildings on the group's other streets do not matter,
    as in action_choices.py mortgage_property) and mortgages the cheapest when their
    mortgages cover the shortfall. Official rules refuse that mortgage: it sells a
    building instead."""
    owner = {n: 0 for n in LIGHT_BLUE}
    levels = {"Oriental Avenue": 1, "Vermont Avenue": 1}
    g = make_game(3, schema=GNOME, owner=owner, level=levels, cash={0: 0})
    assert decide(g, 0, "debt", owed=50, creditor=1) == A.Mortgage(sq("Connecticut Avenue"))
    g = make_game(3, owner=owner, level=levels, cash={0: 0})
    assert decide(g, 0, "debt", owed=50, creditor=1) == A.SellBuilding(sq("Oriental Avenue"))


def test_post_roll_fallback_mortgages_an_unbuilt_street_of_a_built_group_under_gnome_rules():
    """make_post_roll_move -> helpers.identify_potential_mortgage(lone_constraint=True):
    the cheapest unmortgaged, unimproved, not lone asset whose mortgage covers the price,
    whatever stands on its group's other streets."""
    owner = {**{n: 0 for n in LIGHT_BLUE}, "Baltic Avenue": 0}  # Baltic is lone
    levels = {"Oriental Avenue": 1, "Vermont Avenue": 1}
    g = make_game(3, schema=GNOME, owner=owner, level=levels, cash={0: 40})
    assert decide(g, 0, "buy", square=1) == A.Mortgage(sq("Connecticut Avenue"))
    g = make_game(3, owner=owner, level=levels, cash={0: 40})
    assert decide(g, 0, "buy", square=1) == A.DECLINE


def test_improvement_beside_a_mortgaged_street_under_gnome_rules():
    """helpers.identify_improvement_opportunity over `full_color_sets_possessed`
    (ownership only) with helpers.can_asset_be_improved (a mortgaged asset is never
    improved; an unbuilt one always may be): the first house goes on the best unbuilt
    unmortgaged street (ties: the later name), then on the other; a second house would
    need the mortgaged street's level, so it stops. Official rules build nothing."""
    owner = {n: 0 for n in LIGHT_BLUE}
    mortgaged = ["Connecticut Avenue"]
    g = not_my_turn(make_game(3, schema=GNOME, owner=owner, mortgaged=mortgaged,
                              cash={0: 1000}))
    # Oriental and Vermont: 30 - 2 x 6 - 50 = -32 each; Vermont is the later name
    assert decide(g, 0, "out_of_turn") == A.Build(sq("Vermont Avenue"))
    g = not_my_turn(make_game(3, schema=GNOME, owner=owner, mortgaged=mortgaged,
                              cash={0: 1000}, level={"Vermont Avenue": 1}))
    assert decide(g, 0, "out_of_turn") == A.Build(sq("Oriental Avenue"))
    g = not_my_turn(make_game(3, schema=GNOME, owner=owner, mortgaged=mortgaged, cash={0: 1000},
                              level={"Vermont Avenue": 1, "Oriental Avenue": 1}))
    assert best_improvement(g.rules, g.state, 0) == -1
    assert type(decide(g, 0, "out_of_turn")) is not A.Build
    g = not_my_turn(make_game(3, owner=owner, mortgaged=mortgaged, cash={0: 1000}))
    assert type(decide(g, 0, "out_of_turn")) is not A.Build


def test_improvement_of_an_empty_lot_beside_hotels_fails_as_in_gnome():
    """helpers.can_asset_be_improved says yes to an unbuilt street (`num_houses == 0`),
    so identify_improvement_opportunity picks the empty lot a whole-hotel sale left
    beside hotels; action_choices.py improve_property refuses a house there, so nothing
    is built this call."""
    owner = {n: 0 for n in ORANGE}
    levels = {"St. James Place": 5, "Tennessee Avenue": 5}
    g = not_my_turn(make_game(3, schema=GNOME, owner=owner, level=levels, cash={0: 1000}))
    assert best_improvement(g.rules, g.state, 0) == sq("New York Avenue")
    assert type(decide(g, 0, "out_of_turn")) is not A.Build


def _plain_table(rules, owner):
    """The trade table as first written: every member of every street group compared
    with the rest (what `agents.baseline._table` must equal)."""
    full, sells = {}, {}
    for g, members in enumerate(rules.group_members):
        if not members or not rules.is_street[members[0]]:
            continue
        holders = [owner[m] for m in members]
        if holders[0] >= 0 and all(h == holders[0] for h in holders):
            full.setdefault(holders[0], set()).add(g)
            continue
        for sq_, o in zip(members, holders):
            rest = [h for m, h in zip(members, holders) if m != sq_]
            if o >= 0 and rest and rest[0] >= 0 and rest[0] != o and all(
                    h == rest[0] for h in rest):
                sells.setdefault(o, []).append((sq_, rest[0]))
    for lst in sells.values():
        lst.sort(key=lambda t: (rules.names[t[0]], t[1]))
    return {s: frozenset(gs) for s, gs in full.items()}, sells


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_the_trade_table_equals_a_member_by_member_count(data) -> None:
    """Full sets and lone set-completing streets, read a group at a time, on any
    ownership (unowned squares included) under the standard and GNOME rules."""
    from agents import baseline as B

    rules = openmono.Game(data.draw(st.sampled_from((STD, GNOME))), players=4).public
    owner = [-1] * rules.n
    for s in rules.properties:
        owner[s] = data.draw(st.integers(-1, 3))
    owner = tuple(owner)
    B._TABLE[:] = [None, None, None]
    full, sells = B._table(rules, owner)
    assert (full, sells) == _plain_table(rules, owner)
    assert [list(v) for v in full.values()] == [list(v) for v in _plain_table(
        rules, owner)[0].values()]  # (the same iteration order too)


def _plain_improvements(rules, obs, seat):
    """`improvements` as first written: every street of every full set tested in turn
    (what the version kept per group's levels and mortgages must equal)."""
    from agents import baseline as B

    best, key, least = -1, None, A.NO_CASH_LIMIT
    for g in B.full_sets(rules, obs.owner, seat):
        for s in rules.group_members[g]:
            if B.improvable(rules, obs.owner, obs.level, obs.mortgaged, s):
                cost = rules.house_cost[s]
                least = min(least, cost)
                k = (B.extra_rent(rules, obs.level, s) - cost, rules.names[s])
                if cost <= obs.cash[seat] and (key is None or k > key):
                    best, key = s, k
    return best, least


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_improvements_equal_a_street_by_street_pass(data) -> None:
    """The improvement pick and the cash it waits for, on any board (owners, levels,
    mortgages, cash) under both rule sets, with the per-group memo warm from earlier
    boards."""
    from agents import baseline as B

    schema = data.draw(st.sampled_from((STD, GNOME)))
    game = openmono.Game(schema, players=4)
    rules, state = game.rules, game.state
    owner, level, mortgaged = [-1] * rules.n, [0] * rules.n, [False] * rules.n
    for s in rules.properties:
        owner[s] = data.draw(st.integers(-1, 1))
        if owner[s] >= 0:
            mortgaged[s] = data.draw(st.booleans())
            if rules.is_street[s] and not mortgaged[s]:
                level[s] = data.draw(st.integers(0, rules.max_level))
    state.owner, state.level, state.mortgaged = tuple(owner), tuple(level), tuple(mortgaged)
    state.cash[0] = data.draw(st.integers(0, 1500))
    game.invalidate_observations()
    obs = game.observe(0, Decision("out_of_turn"))
    assert B.improvements(obs.rules, obs, 0) == _plain_improvements(obs.rules, obs, 0)
