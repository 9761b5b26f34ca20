"""The `gnome` rules profile: each bank option at its GNOME-p3 setting does what GNOME
does (the source is cited per test; docs/rules.md has the table), and the packaged
`gnome` schema sets every one of them.
"""

from __future__ import annotations

import pytest
from helpers import STANDARD, Scripted, make_game, of, payments, play, sq, with_bank

import openmono
from openmono import actions as A
from openmono import events as E
from openmono import legal
from openmono.engine import Decision
from openmono.events import BANK
from openmono.schema import SchemaError, rules_schema
from openmono.state import NOBODY, net_worth

GNOME = openmono.gnome_schema()
DARK_BLUE = {"Park Place": 1, "Boardwalk": 1}


def test_the_packaged_gnome_schema_sets_every_gnome_option():
    b = GNOME.bank
    assert (b.doubles_roll_again, b.doubles_to_jail) == (False, 0)
    assert (b.jail, b.debt, b.debt_action_limit, b.bankruptcy_auction) == (
        "skip_turn", "negative_cash", 10, False)
    assert (b.cash_cap, b.net_worth_mortgage, b.hotel_sale, b.out_of_turn_calls) == (
        10000, False, "whole", 6)
    assert (b.card_draw, b.trade_jail_cards, b.trade_mortgaged, b.property_sellback) == (
        "random", False, False, 0.5)
    assert b.max_actions_per_phase == 4 and b.trade_answer == "next_turn"
    assert b.trade_phases == ("pre_roll", "out_of_turn")
    assert b.building_shortage == "first_come" and b.mortgaged_sellback
    assert b.bank_cash == 10000
    assert b.mortgage_beside_buildings and b.build_beside_mortgaged
    assert b.nearest_card == "closest" and b.move_back_go
    assert STANDARD.bank.jail == "official" and STANDARD.bank.cash_cap is None
    assert [len(d.cards) for d in GNOME.decks] == [16, 17]  # + crossword, + birthday


def test_rules_by_name():
    assert rules_schema("gnome") == GNOME and rules_schema("standard") == STANDARD
    with pytest.raises(SchemaError, match="valid rules: standard, gnome"):
        rules_schema("hasbro")


def test_gnome_schema_round_trips():
    assert openmono.GameSchema.from_json(GNOME.to_json()) == GNOME


# --- gameplay.py simulate_game_instance: no doubles rules, jail skips one turn ---------------

def test_doubles_neither_roll_again_nor_free_from_jail():
    g = make_game(2, [(3, 3), (2, 2), (1, 2)], schema=GNOME, turns=3, in_jail={1: 0})
    play(g, {})
    rolls = [(d.seat, d.dice) for d in of(g, E.DiceRolled)]
    assert rolls == [(0, (3, 3)), (1, (2, 2)), (0, (1, 2))]
    assert g.state.position[1] == 10  # the double did not move it: it served its turn
    assert of(g, E.Released) == [E.Released(1, "served")]


def test_jail_skips_one_turn_then_the_player_moves():
    """gameplay.py: `currently_in_jail = False  # the player is only allowed to skip one
    turn` - no move, no post-roll, no fine."""
    g = make_game(2, [(1, 2), (4, 5), (2, 3)], schema=GNOME, turns=3, in_jail={0: 0})
    p0 = Scripted()
    play(g, {0: p0})
    assert p0.phases().count("post_roll") == 1  # only the turn after the one lost
    assert g.state.position[0] == 15 and not g.state.in_jail[0]
    assert payments(g, "jail_fine") == []


def test_paying_the_fine_before_the_roll_moves_at_once():
    """action_choices.py pay_jail_fine: in the pre-roll, then the turn is ordinary."""
    g = make_game(2, [(1, 2)], schema=GNOME, in_jail={0: 0})
    play(g, {0: Scripted(("pre_roll", A.PAY_JAIL_FINE))})
    assert g.state.position[0] == 13 and payments(g, "jail_fine")[0][2] == 50


# --- player.py charge_player / handle_negative_cash_balance: negative cash ---------------------

def test_a_payment_goes_through_in_full_and_the_payer_settles_after_its_turn():
    """player.py charge_player: cash may go negative; gameplay.py: after the post-roll a
    player below $0 gets handle_negative_cash_balance (our debt phase, owing $0)."""
    g = make_game(3, [(1, 2)], schema=GNOME, position={0: 36}, cash={0: 100},
                  owner={"Mediterranean Avenue": 0, **DARK_BLUE}, level={37: 5, 39: 5})
    p0 = Scripted()
    play(g, {0: p0})
    assert (0, 1, 2000, "rent", 39) in payments(g)  # the creditor is paid in full
    assert g.state.cash[1] == 3500
    debt = [o for o in p0.seen if o.phase == "debt"]
    assert [(o.owed, o.creditor, o.cash[0]) for o in debt] == [(0, BANK, -1900)]
    assert p0.phases().index("post_roll") < p0.phases().index("debt")
    assert of(g, E.Bankrupt) == [E.Bankrupt(0, BANK)]


def test_bankruptcy_returns_everything_to_the_bank_without_auction():
    """player.py begin_bankruptcy_proceedings / discharge_assets_to_bank: cash to 0,
    properties unmortgaged and back to the bank, buildings back to its stock unpaid."""
    g = make_game(3, [(1, 2)], schema=GNOME, position={0: 36}, cash={0: 0},
                  owner={"Mediterranean Avenue": 0, "Baltic Avenue": 0, **DARK_BLUE},
                  level={1: 1, 3: 1, 37: 5, 39: 5}, mortgaged=[], jail_cards={0: ["chance"]})
    play(g, {})
    st = g.state
    assert of(g, E.Bankrupt) == [E.Bankrupt(0, BANK)]
    assert of(g, E.AuctionStarted) == []
    assert st.owner[1] == st.owner[3] == NOBODY and st.level[1] == st.level[3] == 0
    assert st.cash[0] == 0 and payments(g, "sell_building") == []
    assert st.houses_left == 32
    assert of(g, E.JailCardMoved) == [E.JailCardMoved(0, BANK, "chance")]


def test_the_debt_phase_is_capped_at_ten_actions():
    """player.py handle_negative_cash_balance: `successful_tries = 10`."""
    eleven = [1, 3, 6, 8, 9, 11, 13, 14, 16, 18, 19]

    def sell(obs):
        if obs.phase == "debt":
            return next(a for a in obs.legal_actions() if type(a) is A.SellBuilding)
        return None

    g = make_game(3, [(1, 2)], schema=GNOME, position={0: 36}, cash={0: 0},
                  owner={**{s: 0 for s in eleven}, **DARK_BLUE},
                  level={**{s: 5 for s in eleven}, 37: 5, 39: 5}, hotels_left=0)
    p0 = Scripted(policy=sell)
    play(g, {0: p0})
    assert len([o for o in p0.seen if o.phase == "debt"]) == 10
    assert of(g, E.Bankrupt) == [E.Bankrupt(0, BANK)]


# --- card_utility_actions.py check_for_game_termination / check_for_winner ---------------------

def test_the_game_ends_when_a_players_cash_passes_10000():
    g = make_game(3, [(1, 2)], schema=GNOME, turns=5, cash={2: 10001},
                  owner={"Boardwalk": 1}, mortgaged=["Boardwalk"])
    result = play(g, {})
    assert result.end_reason == "cash_cap" and result.turns == 1
    assert result.winner == 2


def test_net_worth_counts_mortgaged_property_at_full_price():
    """check_for_winner adds `prop.price` whatever the mortgage."""
    g = make_game(2, schema=GNOME, owner={"Boardwalk": 0}, mortgaged=["Boardwalk"])
    assert net_worth(g.rules, g.state, 0) == 1500 + 400
    s = make_game(2, owner={"Boardwalk": 0}, mortgaged=["Boardwalk"])
    assert net_worth(s.rules, s.state, 0) == 1500 + 200


# --- action_choices.py sell_house_hotel: a hotel is sold whole ----------------------------------

def test_a_hotel_is_sold_whole():
    g = make_game(rolls=[(1, 2)], schema=GNOME, owner={"Park Place": 0, "Boardwalk": 0},
                  level={37: 5, 39: 5}, position={0: 1})
    play(g, {0: Scripted(("pre_roll", A.SellBuilding(39)))})
    assert g.state.level[37] == 5 and g.state.level[39] == 0
    assert payments(g, "sell_building") == [(BANK, 0, 500, "sell_building", 39)]
    assert (g.state.houses_left, g.state.hotels_left) == (32, 11)


def test_a_hotel_is_not_sold_beside_houses():
    g = make_game(schema=GNOME, owner={"Park Place": 0, "Boardwalk": 0}, level={37: 4, 39: 5})
    assert legal.check_sell_building(g.rules, g.state, 0, 39) == (
        "a hotel is sold whole only when the group's other streets have hotels or nothing")


# --- gameplay.py: out-of-turn calls -------------------------------------------------------------

def _oot_seats(g, agents):
    play(g, agents)
    return g


def test_out_of_turn_calls_cycle_through_every_player_until_all_pass():
    """gameplay.py: `while skip_turn != num_active_players and out_of_turn_count <= 5`,
    from the next player, the current one included."""
    seen: list[tuple[int, str]] = []

    class Logger(Scripted):
        def __init__(self, seat, *queue):
            super().__init__(*queue)
            self.seat = seat

        def act(self, obs):
            seen.append((self.seat, obs.phase))
            return super().act(obs)

    # Everyone passes: the pre-roll counts as one pass, then 1, 2, 3 pass: 3 calls.
    g = make_game(4, [(1, 2)], schema=GNOME)
    play(g, {s: Logger(s) for s in range(4)})
    assert [s for s, ph in seen if ph == "out_of_turn"] == [1, 2, 3]
    # Seat 1 mortgages once: the passes restart, and the calls stop at six.
    seen.clear()
    g = make_game(4, [(1, 2)], schema=GNOME, owner={"Baltic Avenue": 1})
    play(g, {0: Logger(0), 1: Logger(1, ("out_of_turn", A.Mortgage(3))), 2: Logger(2),
             3: Logger(3)})
    oot = [s for s, ph in seen if ph == "out_of_turn"]
    assert oot == [1, 1, 2, 3, 0, 1]  # 1 acts (asked again in its call); 4 passes end it
    # Seats that act in every call: the sixth call is the last.
    seen.clear()
    streets = {"Mediterranean Avenue": 1, "Baltic Avenue": 1, "Oriental Avenue": 2,
               "Vermont Avenue": 2, "Connecticut Avenue": 3, "St. Charles Place": 3}
    g = make_game(4, [(1, 2)], schema=GNOME, owner=streets, position={0: 4})
    acting = {1: (1, 3), 2: (6, 8), 3: (9, 11)}
    queues = {s: [("out_of_turn", A.Mortgage(a)), ("out_of_turn", A.CONCLUDE),
                  ("out_of_turn", A.Mortgage(b))] for s, (a, b) in acting.items()}
    play(g, {0: Logger(0), **{s: Logger(s, *q) for s, q in queues.items()}})
    assert [s for s, ph in seen if ph == "out_of_turn"] == [1, 1, 2, 2, 3, 3, 0, 1, 1, 2, 2]


def test_management_phases_allow_four_actions():
    """player.py make_pre_roll_moves: `while count < 4` actions, then a forced conclude."""
    g = make_game(2, [(1, 2)], schema=GNOME,
                  owner={s: 0 for s in ("Reading Railroad", "Pennsylvania Railroad",
                                        "B. & O. Railroad", "Short Line", "Electric Company")})
    play(g, {0: Scripted(*[("pre_roll", A.Mortgage(s)) for s in (5, 15, 25, 35, 12)])})
    assert [m.square for m in of(g, E.MortgageChanged)] == [5, 15, 25, 35]


# --- card_utility_actions.py pick_card_from_*: random draws -------------------------------------

def test_cards_are_drawn_at_random_with_replacement():
    deck = GNOME.decks[1]  # community chest
    g = make_game(2, schema=GNOME)
    d = g.rules.deck_names.index(deck.name)
    before = list(g.state.decks[d])
    draws = []
    for _ in range(200):
        order = g.state.decks[d]
        k = g._card_rng(d).randrange(len(order))
        draws.append(order[k])
    assert len(set(draws)) == len(before) and g.state.decks[d] == before


def test_trades_of_jail_cards_are_refused():
    g = make_game(2, schema=GNOME, jail_cards={0: ["chance"]})
    offer = A.OfferTrade(to=1, give_jail_cards=1, get_cash=10)
    assert legal.check_offer(g.rules, g.state, 0, offer) == (
        "the rules do not allow trading get-out-of-jail cards")
    assert legal.check_offer(g.rules, g.state, 0, A.OfferTrade(to=1, get=(), get_cash=10,
                                                                 give=())) is None


def test_the_engine_keeps_its_speed_path_for_the_standard_rules():
    g = make_game(2, schema=with_bank(STANDARD))
    assert g.rules.bank.out_of_turn_calls is None and g.rules.bank.debt == "official"
    assert sq("Boardwalk") == 39


# --- action_choices.py make_trade_offer / accept_trade_offer: answered on the next turn ---------

def test_an_offer_waits_for_the_receivers_next_phase_and_one_at_a_time():
    """make_trade_offer: `if to_player.is_trade_offer_outstanding: return failure`; the
    receiver answers (accept_trade_offer) in its own pre-roll or out-of-turn phase."""
    first = A.OfferTrade(to=1, give=(), get=(3,), give_cash=100)
    second = A.OfferTrade(to=1, give=(), get=(3,), give_cash=120)
    p0 = Scripted(("pre_roll", first), ("pre_roll", second))
    p1 = Scripted(("trade_response", A.ACCEPT))
    g = make_game(2, [(1, 2)], schema=GNOME, owner={"Baltic Avenue": 1})
    play(g, {0: p0, 1: p1})
    assert of(g, E.TradeOffered) == [E.TradeOffered(first.terms(), 0)]
    assert of(g, E.TradeAnswered) == [E.TradeAnswered(second.terms(), 0, False),
                                      E.TradeAnswered(first.terms(), 0, True)]
    # p1 answered at the start of its out-of-turn call, after p0's pre-roll ended
    assert p1.phases()[:2] == ["trade_response", "out_of_turn"]
    assert g.state.owner[3] == 0 and g.state.cash == [1400 - 0, 1600]


# --- location.py transfer_property_to_bank: a mortgaged property is foreclosed -----------------

def test_a_mortgaged_property_sold_to_the_bank_is_foreclosed_for_nothing():
    """location.py `transfer_property_to_bank`: the bank pays half the price minus the
    cost of lifting the mortgage, and nothing when that is negative (a foreclosure);
    the property goes back to the bank unmortgaged."""
    g = make_game(rolls=[(1, 2)], schema=GNOME, owner={"Oriental Avenue": 0},
                  mortgaged=["Oriental Avenue"], position={0: 10})
    play(g, {0: Scripted(("pre_roll", A.SellProperty(6)))})
    st = g.state
    assert st.owner[6] == NOBODY and not st.mortgaged[6]
    assert st.cash[0] == 1500 and payments(g, "sell_property") == []
    assert of(g, E.PropertyTransferred)[-1] == E.PropertyTransferred(6, 0, NOBODY, "sold_to_bank")


def test_a_mortgaged_property_pays_what_exceeds_the_lifting_cost():
    schema = with_bank(GNOME, property_sellback=1.0)  # refund 100 > lifting 55
    g = make_game(rolls=[(1, 2)], schema=schema, owner={"Oriental Avenue": 0},
                  mortgaged=["Oriental Avenue"], position={0: 10})
    play(g, {0: Scripted(("pre_roll", A.SellProperty(6)))})
    assert payments(g, "sell_property") == [(BANK, 0, 45, "sell_property", 6)]


def test_without_the_option_a_mortgaged_property_is_not_sold():
    schema = with_bank(GNOME, mortgaged_sellback=False)
    g = make_game(schema=schema, owner={"Oriental Avenue": 0}, mortgaged=["Oriental Avenue"])
    assert legal.check_sell_property(g.rules, g.state, 0, 6) == "unmortgage it first"
    g = make_game(schema=GNOME, owner={6: 0}, mortgaged=[6])
    assert legal.check_sell_property(g.rules, g.state, 0, 6) is None


# --- bank.py Bank.__init__ (`total_cash_with_bank = 10000`), player.py receive_cash -------------

def test_the_bank_starts_with_10000_and_keeps_what_it_is_paid():
    """bank.py Bank.__init__; player.py charge_player(bank_flag=True) adds to it."""
    g = make_game(rolls=[(1, 2)], schema=GNOME, position={0: 1})  # Income Tax, $200
    assert g.state.bank_cash == 10000
    play(g, {})
    assert payments(g, "tax") == [(0, BANK, 200, "tax", 4)]
    assert g.state.bank_cash == 10200
    assert make_game().state.bank_cash is None  # standard: the bank never runs short


def test_a_dry_bank_pays_no_go_salary():
    """player.py receive_cash(bank_flag=True): the bank pays only what it has, else
    nothing (card_utility_actions.py: 'pass GO position without receiving go increment')."""
    g = make_game(rolls=[(1, 2)], schema=GNOME, position={0: 37})
    g.state.bank_cash = 150
    play(g, {})
    assert payments(g, "go_salary") == [] and g.state.cash[0] == 1500
    assert g.state.bank_cash == 150


def test_a_dry_bank_pays_no_card_money():
    schema = with_bank(STANDARD, bank_cash=10000)
    g = make_game(rolls=[(1, 2)], schema=schema, position={0: 4},
                  deck_top={"chance": ["Bank pays you dividend"]})
    g.state.bank_cash = 20
    play(g, {})
    assert payments(g, "card") == [] and g.state.cash[0] == 1500


def test_a_dry_bank_takes_no_mortgage_no_property_and_no_building():
    """action_choices.py mortgage_property (`total_cash_with_bank >= asset.mortgage`),
    location.py transfer_property_to_bank, action_choices.py sell_house_hotel."""
    g = make_game(schema=GNOME, owner={"Oriental Avenue": 0, "Park Place": 0, "Boardwalk": 0},
                  level={37: 1, 39: 1})
    g.state.bank_cash = 49
    rules, st = g.rules, g.state
    assert legal.check_mortgage(rules, st, 0, 6) == "the bank has not the cash to pay it"
    assert legal.check_sell_property(rules, st, 0, 6) == "the bank has not the cash to pay it"
    assert legal.check_sell_building(rules, st, 0, 39) == "the bank has not the cash to pay it"
    g.state.bank_cash = 50
    assert legal.check_mortgage(rules, st, 0, 6) is None
    assert legal.check_sell_property(rules, st, 0, 6) is None


def test_the_bank_reserve_is_public():
    g = make_game(schema=GNOME)
    g.state.bank_cash = 1234
    assert g.observe(0, openmono.engine.Decision("pre_roll")).bank_cash == 1234
    assert make_game().observe(0, openmono.engine.Decision("pre_roll")).bank_cash is None


# --- action_choices.py mortgage_property / improve_property: mortgages and buildings in a group --

LIGHT_BLUE = {"Oriental Avenue": 0, "Vermont Avenue": 0, "Connecticut Avenue": 0}


def test_a_street_is_mortgaged_beside_built_streets_of_its_group():
    """action_choices.py `mortgage_property` refuses only a mortgaged or improved asset
    (`asset.num_houses > 0 or asset.num_hotels > 0`): the group's other streets may
    carry buildings. Official: sell the group's buildings first."""
    built = {"Oriental Avenue": 1, "Vermont Avenue": 1}
    s = make_game(owner=LIGHT_BLUE, level=built)
    assert legal.check_mortgage(s.rules, s.state, 0, 9) == "sell the group's buildings first"
    for schema in (GNOME, with_bank(STANDARD, mortgage_beside_buildings=True)):
        g = make_game(rolls=[(1, 2)], schema=schema, owner=LIGHT_BLUE, level=built,
                      position={0: 20})
        assert legal.check_mortgage(g.rules, g.state, 0, 9) is None
        assert legal.check_mortgage(g.rules, g.state, 0, 6) == "sell its buildings first"
        mortgages = {a for a in legal.legal_actions(g.rules, g.state, 0, Decision("pre_roll"))
                     if type(a) is A.Mortgage}
        assert mortgages == {A.Mortgage(9)}
        play(g, {0: Scripted(("pre_roll", A.Mortgage(9)))})
        assert g.state.mortgaged[9] and payments(g, "mortgage") == [(BANK, 0, 60, "mortgage", 9)]
    g = make_game(schema=with_bank(GNOME, mortgage_beside_buildings=False), owner=LIGHT_BLUE,
                  level=built)
    assert legal.check_mortgage(g.rules, g.state, 0, 9) == "sell the group's buildings first"


def test_a_street_is_built_beside_a_mortgaged_one_up_to_one_house():
    """action_choices.py `improve_property` refuses a mortgaged asset itself and needs
    the colour in `player.full_color_sets_possessed` (ownership only: a mortgage does not
    remove it); even building compares every same-coloured asset's `num_houses`, the
    mortgaged one's 0 included. Official: nothing is built in a group with a mortgage."""
    s = make_game(owner=LIGHT_BLUE, mortgaged=["Connecticut Avenue"])
    assert legal.check_build(s.rules, s.state, 0, 6) == "a property of the group is mortgaged"
    for schema in (GNOME, with_bank(STANDARD, build_beside_mortgaged=True)):
        g = make_game(rolls=[(1, 2)], schema=schema, owner=LIGHT_BLUE,
                      mortgaged=["Connecticut Avenue"], position={0: 20})
        r, st = g.rules, g.state
        assert legal.check_build(r, st, 0, 9) == "it is mortgaged"
        builds = {a for a in legal.legal_actions(r, st, 0, Decision("pre_roll"))
                  if type(a) is A.Build}
        assert builds == {A.Build(6), A.Build(8)}
        play(g, {0: Scripted(("pre_roll", A.Build(6)), ("pre_roll", A.Build(8)))})
        assert st.level[6] == st.level[8] == 1 and st.level[9] == 0
        # even building counts the mortgaged street's empty lot: no second house
        for s_ in (6, 8):
            assert legal.check_build(r, st, 0, s_) == (
                "build evenly: another street of the group has fewer buildings")
    g = make_game(schema=with_bank(GNOME, build_beside_mortgaged=False), owner=LIGHT_BLUE,
                  mortgaged=["Connecticut Avenue"])
    assert legal.check_build(g.rules, g.state, 0, 6) == "a property of the group is mortgaged"
    # a group not all owned is no monopoly, mortgaged or not
    g = make_game(schema=GNOME, owner={"Oriental Avenue": 0, "Vermont Avenue": 0})
    assert legal.check_build(g.rules, g.state, 0, 6) == "you have no monopoly on its group"


# --- card_utility_actions.py: card moves to a lower square pass Go ------------------------------

def _draw(schema, square: int, text: str, **kw):
    """Seat 0 rolls (1, 2) onto Chance `square` with the card starting with `text` on top
    (GNOME draws at random: the deck option is set back to 'deck' to script the draw)."""
    return make_game(2, [(1, 2)], schema=with_bank(schema, card_draw="deck"),
                     position={0: square - 3}, deck_top={"chance": [text]}, **kw)


def _card_moves(g):
    return [(m.start, m.end) for m in of(g, E.Moved) if m.reason == "card"]


@pytest.mark.parametrize("square, end", [(7, 4), (22, 19), (36, 33)])
def test_go_back_three_spaces_pays_the_go_salary(square, end):
    """`move_player_relative` -> `move_player_after_die_roll(check_for_go=True)`, and
    `_has_player_passed_go` counts any move to a lower square (Go at 0) as passing Go."""
    for schema in (GNOME, with_bank(STANDARD, move_back_go=True)):
        g = _draw(schema, square, "Go Back 3")
        play(g)
        assert _card_moves(g) == [(square, end)]
        assert payments(g, "go_salary") == [(BANK, 0, 200, "go_salary", 0)]
    g = _draw(STANDARD, square, "Go Back 3")
    play(g)
    assert _card_moves(g) == [(square, end)] and payments(g, "go_salary") == []


def test_going_back_across_go_pays_no_salary():
    """`_has_player_passed_go(current, new)` with new > current (from 1 back 3 to 38)
    needs `new >= go > current`: false, so no salary."""
    deck = GNOME.decks[1]
    assert deck.name == "community_chest"
    back = deck.cards[0].model_copy(update={"text": "Go Back 3 Spaces", "kind": "move_back",
                                            "amount": 3, "square": None})
    schema = GNOME.model_copy(update={"decks": (GNOME.decks[0],
                                                deck.model_copy(update={"cards": (back,)}))})
    g = make_game(2, [(1, 1)], schema=schema, position={0: 0})
    play(g)
    assert _card_moves(g) == [(2, 39)] and payments(g, "go_salary") == []


@pytest.mark.parametrize("square, kind, target", [
    (7, "railroad", 5), (22, "railroad", 25), (36, "railroad", 35),
    (7, "utility", 12), (22, "utility", 28), (36, "utility", 28)])
def test_the_nearest_railroad_or_utility_is_the_closest_either_way(square, kind, target):
    """`move_to_nearest_railroad__pay_double_or_buy__check_for_go` and
    `move_to_nearest_utility__pay_or_buy__check_for_go` pick the least
    `_calculate_board_distance` (|index difference|, either way) and pay the Go salary
    when it lies behind (`_has_player_passed_go`). Official: the first one ahead."""
    text = ("Advance token to the nearest Railroad" if kind == "railroad"
            else "Advance token to nearest Utility")
    official = {(7, "railroad"): 15, (22, "railroad"): 25, (36, "railroad"): 5,
                (7, "utility"): 12, (22, "utility"): 28, (36, "utility"): 12}[square, kind]
    for schema in (GNOME, with_bank(STANDARD, nearest_card="closest")):
        g = _draw(schema, square, text)
        play(g)
        assert _card_moves(g) == [(square, target)]
        behind = target < square
        assert payments(g, "go_salary") == ([(BANK, 0, 200, "go_salary", 0)] if behind else [])
    g = _draw(STANDARD, square, text)
    play(g)
    assert _card_moves(g) == [(square, official)]


def test_no_house_beside_a_hotel_after_a_hotel_is_sold_whole():
    """action_choices.py `improve_property` refuses a house while another street of the
    group has a hotel (`same_colored_asset.num_hotels > 0`): after a hotel is sold whole
    the empty lot stays empty until the other hotels go. (Under the official levels
    sale such a group cannot arise.)"""
    from agents.policy_helpers import build_candidates

    orange = {"St. James Place": 0, "Tennessee Avenue": 0, "New York Avenue": 0}
    levels = {"St. James Place": 5, "Tennessee Avenue": 5}
    for schema in (GNOME, with_bank(STANDARD, hotel_sale="whole")):
        g = make_game(schema=schema, owner=orange, level=levels)
        assert legal.check_build(g.rules, g.state, 0, 19) == "no house beside a hotel"
        assert not any(type(a) is A.Build for a in
                       legal.legal_actions(g.rules, g.state, 0, Decision("pre_roll")))
        assert build_candidates(g.rules, g.state, 0, [g.rules.group_of[19]]) == []
    g = make_game(schema=GNOME, owner=orange, level={**levels, "New York Avenue": 4})
    assert legal.check_build(g.rules, g.state, 0, 19) is None  # the hotel itself


# --- player.py compute_allowable_*_actions: when an offer may be made ---------------------------

BALTIC_FOR_CASH = A.OfferTrade(to=1, give=(), get=(3,), give_cash=100)


@pytest.mark.parametrize("phase", ["pre_roll", "out_of_turn", "post_roll", "debt"])
def test_offers_are_legal_before_the_roll_only_under_gnome(phase):
    """player.py `compute_allowable_post_roll_actions` (664-692) lists no
    `make_trade_offer`; `handle_negative_cash_balance` (1196-1198) refuses one. The
    standard rules take offers in every management phase and in debt."""
    for schema, legal_here in ((STANDARD, True), (GNOME, phase in ("pre_roll", "out_of_turn"))):
        g = make_game(2, schema=schema, owner={"Baltic Avenue": 1})
        obs = g.observe(0, Decision(phase))
        why = legal.check(g.rules, g.state, 0, Decision(phase), BALTIC_FOR_CASH)
        assert (why is None) == legal_here, (schema.name, phase, why)
        assert obs.can_offer_trade == legal_here and obs.is_legal(BALTIC_FOR_CASH) == legal_here


def test_a_post_roll_offer_is_refused_under_gnome():
    """The engine refuses the offer (a fault, the phase's default) and nobody hears of it;
    under the standard rules the same offer is made and answered."""
    for schema, made in ((STANDARD, True), (GNOME, False)):
        p0 = Scripted(("post_roll", BALTIC_FOR_CASH))
        g = make_game(2, [(1, 2)], schema=schema, owner={"Baltic Avenue": 1})
        play(g, {0: p0})
        assert bool(of(g, E.TradeOffered)) == made, schema.name
        assert bool(of(g, E.Fault)) != made, schema.name


def test_a_second_offer_to_a_receiver_holding_one_fails_but_not_one_to_another_player():
    """action_choices.py `make_trade_offer` (703-705): the test is on the receiver's
    `is_trade_offer_outstanding`, so the same offerer may court another player."""
    first = A.OfferTrade(to=1, give=(), get=(3,), give_cash=100)
    again = A.OfferTrade(to=1, give=(), get=(1,), give_cash=80)
    other = A.OfferTrade(to=2, give=(), get=(6,), give_cash=120)
    p0 = Scripted(("pre_roll", first), ("pre_roll", again), ("pre_roll", other))
    p1 = Scripted(("trade_response", A.REJECT))
    p2 = Scripted(("trade_response", A.ACCEPT))
    g = make_game(3, [(1, 2)], schema=GNOME, owner={"Baltic Avenue": 1,
                                                     "Mediterranean Avenue": 1,
                                                     "Oriental Avenue": 2})
    play(g, {0: p0, 1: p1, 2: p2})
    assert of(g, E.TradeOffered) == [E.TradeOffered(first.terms(), 0),
                                      E.TradeOffered(other.terms(), 0)]
    assert of(g, E.TradeAnswered) == [E.TradeAnswered(again.terms(), 0, False),
                                      E.TradeAnswered(first.terms(), 0, False),
                                      E.TradeAnswered(other.terms(), 0, True)]
    assert g.state.owner[1] == g.state.owner[3] == 1 and g.state.owner[6] == 0


def test_an_offer_is_answered_in_the_receivers_out_of_turn_call_not_at_once():
    """accept_trade_offer is an action of the receiver's own phase (player.py 593-594,
    641-642): the offerer's phase goes on first, then the receiver's call opens with it."""
    offer = A.OfferTrade(to=1, give=(), get=(3,), give_cash=100)
    p0 = Scripted(("pre_roll", offer), ("pre_roll", A.Mortgage(5)))
    p1 = Scripted(("trade_response", A.ACCEPT))
    g = make_game(2, [(1, 2)], schema=GNOME,
                  owner={"Baltic Avenue": 1, "Reading Railroad": 0})
    play(g, {0: p0, 1: p1})
    kinds = [type(e).__name__ for e in g.events
             if type(e) in (E.TradeOffered, E.MortgageChanged, E.TradeAnswered)]
    assert kinds == ["TradeOffered", "MortgageChanged", "TradeAnswered"]
    assert p1.phases()[:2] == ["trade_response", "out_of_turn"]
    assert p1.seen[0].offerer == 0 and g.state.owner[3] == 0
    # the standard rules answer at once, inside the offerer's phase
    p0 = Scripted(("pre_roll", offer), ("pre_roll", A.Mortgage(5)))
    g = make_game(2, [(1, 2)], owner={"Baltic Avenue": 1, "Reading Railroad": 0})
    play(g, {0: p0, 1: Scripted(("trade_response", A.ACCEPT))})
    kinds = [type(e).__name__ for e in g.events
             if type(e) in (E.TradeOffered, E.MortgageChanged, E.TradeAnswered)]
    assert kinds == ["TradeOffered", "TradeAnswered", "MortgageChanged"]


@pytest.mark.parametrize("phase", ["pre_roll", "out_of_turn", "post_roll"])
def test_building_and_lifting_mortgages_happen_before_the_roll_only_under_gnome(phase):
    """player.py `compute_allowable_pre_roll_actions` (606, 615) and
    `compute_allowable_out_of_turn_actions` (654, 657-658) offer `free_mortgage` and
    `improve_property`; `compute_allowable_post_roll_actions` (664-692) neither."""
    build, lift = A.Build(37), A.Unmortgage(5)
    for schema, legal_here in ((STANDARD, True), (GNOME, phase != "post_roll")):
        g = make_game(2, schema=schema, owner={"Park Place": 0, "Boardwalk": 0,
                                              "Reading Railroad": 0},
                      mortgaged=["Reading Railroad"])
        d = Decision(phase)
        obs = g.observe(0, d)
        for action in (build, lift):
            why = legal.check(g.rules, g.state, 0, d, action)
            assert (why is None) == legal_here, (schema.name, phase, action, why)
            assert (action in obs.legal_actions()) == legal_here
        # raising cash stays legal after the roll under both
        assert A.Mortgage(39) in obs.legal_actions()
        assert (A.SellProperty(39) in obs.legal_actions()) == (schema is GNOME)
