"""Golden tests: debts, bankruptcy (to a player and to the bank), the end of the game
at the turn limit with its tie-breaks, and faulty agents.
"""

from __future__ import annotations

from helpers import Scripted, make_game, of, payments, play

from openmono import events as E
from openmono.actions import BUY, Bid, Build, Mortgage, SellBuilding
from openmono.events import BANK
from openmono.state import NOBODY

LIGHT_BLUE = {"Oriental Avenue": 0, "Vermont Avenue": 0, "Connecticut Avenue": 0}
# Seat 0: $100, a house on each light blue, Mediterranean mortgaged, Baltic, a Chance
# get-out-of-jail card.
BROKE = dict(
    cash={0: 100},
    owner={**LIGHT_BLUE, "Mediterranean Avenue": 0, "Baltic Avenue": 0},
    level={6: 1, 8: 1, 9: 1},
    mortgaged=["Mediterranean Avenue"],
    jail_cards={0: ["chance"]},
)


def faults(g):
    return [(f.seat, f.phase, f.reason) for f in of(g, E.Fault)]


# --- debts and bankruptcy ---------------------------------------------------------------------

def test_debt_phase_raises_cash_by_selling_and_mortgaging():
    """Rule: a player who owes more than its cash may sell buildings and mortgage to pay."""
    raise_cash = [("debt", a) for a in (SellBuilding(6), SellBuilding(8), SellBuilding(9),
                                       Mortgage(6), Mortgage(8), Mortgage(9))]
    p0 = Scripted(*raise_cash)
    g = make_game(3, [(1, 2)], position={0: 1}, cash={0: 10}, owner=LIGHT_BLUE,
                  level={6: 1, 8: 1, 9: 1})
    play(g, {0: p0})
    assert [o.owed for o in p0.seen if o.phase == "debt"] == [200] * 6
    assert payments(g)[-1] == (0, BANK, 200, "tax", 4)
    assert g.state.cash[0] == 10 + 3 * 25 + 50 + 50 + 60 - 200 == 45
    assert g.state.active[0] and of(g, E.Bankrupt) == []


def test_bankruptcy_to_a_player_hands_over_everything():
    """Rule: bankrupt to a player: buildings go back to the bank at half price, and the
    creditor gets the cash, every property (mortgaged ones too, paying the 10% fee) and
    the get-out-of-jail cards."""
    g = make_game(3, [(1, 2)], position={0: 36}, **{
        **BROKE, "owner": {**BROKE["owner"], "Park Place": 1, "Boardwalk": 1},
        "level": {**BROKE["level"], 37: 5, 39: 5}})
    p0 = Scripted()
    play(g, {0: p0})
    assert [(o.owed, o.creditor) for o in p0.seen if o.phase == "debt"] == [(2000, 1)]
    assert of(g, E.Bankrupt) == [E.Bankrupt(0, 1)]
    assert [(b.square, b.level, b.reason) for b in of(g, E.BuildingChanged)] == [
        (6, 0, "bankruptcy"), (8, 0, "bankruptcy"), (9, 0, "bankruptcy")]
    assert payments(g) == [
        (BANK, 0, 25, "sell_building", 6), (BANK, 0, 25, "sell_building", 8),
        (BANK, 0, 25, "sell_building", 9), (0, 1, 175, "bankruptcy", -1),
        (1, BANK, 3, "mortgage_transfer_fee", 1)]  # (per property since issue 15)
    st = g.state
    assert [(t.square, t.to_seat) for t in of(g, E.PropertyTransferred)] == [
        (1, 1), (3, 1), (6, 1), (8, 1), (9, 1)]
    assert st.mortgaged[1]  # it stays mortgaged with its new owner
    assert of(g, E.JailCardMoved) == [E.JailCardMoved(0, 1, "chance")]
    assert len(st.jail_cards[1]) == 1 and st.jail_cards[0] == []
    assert st.cash == [0, 1500 + 175 - 3, 1500]
    assert not st.active[0] and st.active[1] and st.active[2]
    assert (st.houses_left, st.hotels_left) == (32, 10)
    assert g.bankrupt_order == [0]


def test_bankruptcy_to_the_bank_auctions_the_properties():
    """Rule: bankrupt to the bank: cash to the bank, buildings back to its stock, every
    property unmortgaged and auctioned; the get-out-of-jail card goes back to its deck."""
    p1 = Scripted(policy=lambda o: Bid(5) if o.phase == "bid" and o.square == 1 else None)
    g = make_game(3, [(1, 2)], position={0: 1}, **BROKE)
    card = g.state.jail_cards[0][0][1]
    play(g, {1: p1})
    assert of(g, E.Bankrupt) == [E.Bankrupt(0, BANK)]
    assert payments(g) == [
        (BANK, 0, 25, "sell_building", 6), (BANK, 0, 25, "sell_building", 8),
        (BANK, 0, 25, "sell_building", 9), (0, BANK, 175, "bankruptcy", -1),
        (1, BANK, 5, "auction", 1)]
    assert of(g, E.JailCardMoved) == [E.JailCardMoved(0, BANK, "chance")]
    assert g.state.decks[0][-1] == card and len(g.state.decks[0]) == 16
    assert of(g, E.MortgageChanged) == [E.MortgageChanged(0, 1, False)]
    assert [a.square for a in of(g, E.AuctionStarted)] == [1, 3, 6, 8, 9]
    assert [(a.square, a.winner, a.price) for a in of(g, E.AuctionEnded)] == [
        (1, 1, 5), (3, BANK, 0), (6, BANK, 0), (8, BANK, 0), (9, BANK, 0)]
    st = g.state
    assert st.owner[1] == 1 and not st.mortgaged[1]
    assert all(st.owner[s] == NOBODY for s in (3, 6, 8, 9))
    assert (st.houses_left, st.hotels_left) == (32, 12)
    assert st.cash == [0, 1495, 1500]


def test_last_solvent_player_wins():
    g = make_game(2, [(1, 2)], position={0: 1}, cash={0: 10}, turns=100)
    result = play(g)
    assert of(g, E.GameOver) == [E.GameOver(1, "bankruptcy", 1)]
    assert (result.winner_seat, result.end_reason, result.bankrupt_order) == (1, "bankruptcy",
                                                                             [0])


# --- the turn limit ----------------------------------------------------------------------------

QUIET = [(1, 2), (1, 2), (1, 2)]  # 7 -> 10 (visiting), 17 -> 20 (free parking), 7 -> 10
QUIET_START = {0: 7, 1: 17, 2: 7}
TWO_QUIET = {0: 7, 1: 17}


def test_turn_limit_winner_has_the_highest_net_worth():
    """At the turn limit the richest player by net worth wins, though it has less cash."""
    g = make_game(2, QUIET[:2], turns=2, position=TWO_QUIET, cash={0: 1000, 1: 1300},
                  owner={"Boardwalk": 0})
    result = play(g)
    assert g.net_worths() == [1400, 1300]
    assert of(g, E.GameOver) == [E.GameOver(0, "turn_limit", 2)]
    assert len(of(g, E.TurnStarted)) == 2 and result.winner_seat == 0


def test_net_worth_counts_mortgaged_property_and_buildings_then_cash_breaks_ties():
    """Net worth = cash + price (minus the mortgage if mortgaged) + buildings at cost;
    a tie goes to the player with more cash."""
    g = make_game(2, QUIET[:2], turns=2, position=TWO_QUIET, cash={0: 1000},
                  owner={**LIGHT_BLUE, "Mediterranean Avenue": 0}, level={6: 1, 8: 1, 9: 1},
                  mortgaged=["Mediterranean Avenue"])
    play(g)
    # 1000 + (100 + 100 + 120) + 3 * 50 + (60 - 30) = 1500
    assert g.net_worths() == [1500, 1500]
    assert of(g, E.GameOver) == [E.GameOver(1, "turn_limit", 2)]


def test_equal_net_worth_and_cash_goes_to_the_lower_seat():
    g = make_game(3, QUIET, turns=3, position=QUIET_START, cash={0: 1000})
    play(g)
    assert g.net_worths() == [1000, 1500, 1500]
    assert payments(g) == []  # Just Visiting and Free Parking do nothing
    assert of(g, E.GameOver) == [E.GameOver(1, "turn_limit", 3)]


# --- faults --------------------------------------------------------------------------------------

def boom(obs):
    raise ZeroDivisionError("boom")


def test_agent_that_raises_gets_the_default_and_the_game_goes_on():
    g = make_game(2, [(1, 2), (1, 2)], turns=2, owner={"Baltic Avenue": 1})
    result = play(g, {0: Scripted(policy=boom)})
    assert faults(g) == [(0, "pre_roll", "raised ZeroDivisionError: boom"),
                         (0, "post_roll", "raised ZeroDivisionError: boom"),
                         (0, "out_of_turn", "raised ZeroDivisionError: boom")]
    assert payments(g) == [(0, 1, 4, "rent", 3)]  # its turn was played all the same
    assert result.agent_faults[0] == len(faults(g)) and result.agent_faults[1] == 0
    assert result.end_reason == "turn_limit" and result.turns == 2


def test_agent_returning_garbage_gets_the_default():
    """A string or None is not an action: the phase default is played and a Fault logged."""
    g = make_game(2, [(1, 2)], owner={"Baltic Avenue": 0})
    result = play(g, {0: Scripted("garbage", None)})
    assert faults(g) == [(0, "pre_roll", "returned str, not an Action"),
                         (0, "post_roll", "returned NoneType, not an Action")]
    assert g.state.position[0] == 3 and result.agent_faults == [2, 0]


def test_garbage_in_the_buy_phase_declines_and_auctions():
    g = make_game(2, [(1, 2)])
    play(g, {0: Scripted(("buy", "yes please"))})
    assert faults(g) == [(0, "buy", "returned str, not an Action")]
    assert of(g, E.AuctionStarted) == [E.AuctionStarted(3)]
    assert g.state.owner[3] == NOBODY


def test_illegal_action_gets_the_default():
    g = make_game(2, [(1, 2)], owner={"Baltic Avenue": 0})
    play(g, {0: Scripted(("pre_roll", BUY))})
    assert faults(g) == [(0, "pre_roll", "illegal buy: nothing to buy")]
    assert g.state.position[0] == 3


def test_malformed_action_gets_the_default():
    g = make_game(2, [(1, 2)], owner={"Baltic Avenue": 0})
    play(g, {0: Scripted(("pre_roll", Build(square="x")))})
    [(seat, phase, reason)] = faults(g)
    assert (seat, phase) == (0, "pre_roll") and "malformed action" in reason
    assert g.state.position[0] == 3 and payments(g) == []


def test_every_agent_faulting_still_ends_the_game():
    rolls = [(1, 2), (2, 3), (1, 2), (2, 3)]
    g = make_game(2, rolls, turns=4)
    result = play(g, {0: Scripted(policy=boom), 1: Scripted(policy=boom)})
    assert result.end_reason == "turn_limit" and result.turns == 4
    assert min(result.agent_faults) > 0
