"""Golden tests: mortgages, building and selling, housing shortage, buying and auctions.

Management actions are played in seat 0's pre-roll; seat 0 then throws (1, 2) from Go
onto Baltic Avenue (its own, in these positions), so nothing else moves money.
"""

from __future__ import annotations

import pytest
from helpers import STANDARD, Scripted, make_game, of, payments, play, with_bank

from openmono import events as E
from openmono import legal
from openmono.actions import BUY, DECLINE, DROP_OUT, Bid, Build, Mortgage, SellBuilding, Unmortgage
from openmono.engine import Decision
from openmono.events import BANK
from openmono.state import NOBODY

BROWN = {"Mediterranean Avenue": 0, "Baltic Avenue": 0}
DARK_BLUE = {"Park Place": 0, "Boardwalk": 0}


def manage(*actions, rolls=((1, 2),), **kw):
    """Seat 0 plays `actions` in its pre-roll, in a position built from `kw`."""
    p0 = Scripted(*[("pre_roll", a) for a in actions])
    kw.setdefault("owner", {"Baltic Avenue": 0})
    g = make_game(rolls=rolls, **kw)
    play(g, {0: p0})
    return g


def faults(g):
    return [(f.seat, f.phase, f.reason) for f in of(g, E.Fault)]


def reason(g, action, seat=0, phase="pre_roll"):
    return legal.check(g.rules, g.state, seat, Decision(phase), action)


# --- mortgages ---------------------------------------------------------------------------

@pytest.mark.parametrize("square, value", [(3, 30), (39, 200), (5, 100), (12, 75)])
def test_mortgage_pays_the_printed_value(square, value):
    """Rule: a property is mortgaged for its printed mortgage value (half its price)."""
    g = manage(Mortgage(square), owner={3: 0, square: 0})
    assert payments(g) == [(BANK, 0, value, "mortgage", square)]
    assert g.state.mortgaged[square]
    assert of(g, E.MortgageChanged) == [E.MortgageChanged(0, square, True)]


@pytest.mark.parametrize("square, cost", [(3, 33), (39, 220), (5, 110), (12, 83)])
def test_unmortgage_costs_the_value_plus_10_percent(square, cost):
    """Rule: lift a mortgage by paying its value plus 10% interest (30 -> 33; the engine
    rounds the interest up to whole dollars: 75 -> 83)."""
    g = manage(Unmortgage(square), owner={3: 0, square: 0}, mortgaged=[square])
    assert payments(g) == [(0, BANK, cost, "unmortgage", square)]
    assert not g.state.mortgaged[square]
    assert g.state.cash[0] == 1500 - cost


def test_unmortgage_needs_the_cash():
    g = make_game(cash={0: 32}, owner=BROWN, mortgaged=["Baltic Avenue"])
    assert reason(g, Unmortgage(3)) == "not enough cash"
    g.state.cash[0] = 33
    assert reason(g, Unmortgage(3)) is None


def test_cannot_mortgage_while_the_group_has_buildings():
    """Rule: buildings must be sold back before any property of their group is mortgaged."""
    g = manage(Mortgage(3), owner=BROWN, level={"Mediterranean Avenue": 1})
    assert faults(g) == [(0, "pre_roll", "illegal mortgage: sell the group's buildings first")]
    assert payments(g) == [] and not g.state.mortgaged[3]


def test_sell_the_buildings_then_mortgage():
    g = manage(SellBuilding(1), Mortgage(3), Mortgage(1), owner=BROWN,
               level={"Mediterranean Avenue": 1})
    assert payments(g) == [(BANK, 0, 25, "sell_building", 1), (BANK, 0, 30, "mortgage", 3),
                           (BANK, 0, 30, "mortgage", 1)]
    assert g.state.houses_left == 32 and faults(g) == []


# --- building ------------------------------------------------------------------------------

def test_build_a_house_on_a_monopoly():
    """Rule: with the whole group unmortgaged, buy houses at the deed's house cost."""
    g = manage(Build(1), owner=BROWN)
    assert payments(g) == [(0, BANK, 50, "build", 1)]
    assert of(g, E.BuildingChanged) == [E.BuildingChanged(0, 1, 1, "built")]
    assert g.state.level[1] == 1 and g.state.houses_left == 31


def test_building_requires_a_monopoly():
    g = manage(Build(3), owner={"Baltic Avenue": 0, "Mediterranean Avenue": 1})
    assert faults(g) == [(0, "pre_roll", "illegal build: you have no monopoly on its group")]
    assert g.state.level[3] == 0 and payments(g) == []


def test_building_requires_no_mortgaged_member():
    """Rule: no building on a group with a mortgaged property."""
    g = manage(Build(3), owner=BROWN, mortgaged=["Mediterranean Avenue"])
    assert faults(g) == [(0, "pre_roll", "illegal build: a property of the group is mortgaged")]
    assert g.state.level[3] == 0


def test_build_evenly():
    """Rule: no street gets a second house before every street of the group has one."""
    g = manage(Build(1), Build(3), Build(3), Build(3), owner=BROWN)
    assert [p[2] for p in payments(g)] == [50, 50, 50]
    assert (g.state.level[1], g.state.level[3]) == (1, 2)
    assert faults(g) == [(0, "pre_roll", "illegal build: build evenly: another street of "
                                         "the group has fewer buildings")]


def test_sell_evenly():
    """Rule: houses are sold back evenly too, at half their cost."""
    g = manage(SellBuilding(3), owner=BROWN, level={1: 2, 3: 1})
    assert faults(g) == [(0, "pre_roll", "illegal sell_building: sell evenly: another street "
                                         "of the group has more buildings")]
    g = manage(SellBuilding(1), SellBuilding(3), owner=BROWN, level={1: 2, 3: 1})
    assert payments(g) == [(BANK, 0, 25, "sell_building", 1), (BANK, 0, 25, "sell_building", 3)]
    assert (g.state.level[1], g.state.level[3]) == (1, 0) and faults(g) == []
    assert g.state.houses_left == 32 - 1


def test_no_houses_left_makes_building_illegal():
    """Rule: when the bank has no houses, nobody can build one."""
    g = manage(Build(1), owner=BROWN, houses_left=0)
    assert faults(g) == [(0, "pre_roll", "illegal build: the bank has no houses left")]
    g = make_game(owner=BROWN, houses_left=0)
    obs = g.observe(0, Decision("pre_roll"))
    assert not [a for a in obs.legal_actions() if isinstance(a, Build)]


def test_hotel_replaces_four_houses():
    """Rule: with 4 houses on every street of the group, a hotel costs one more house
    price; its 4 houses go back to the bank."""
    g = manage(Build(39), owner=DARK_BLUE, level={37: 4, 39: 4})
    assert payments(g) == [(0, BANK, 200, "build", 39)]
    assert g.state.level[39] == 5
    assert (g.state.houses_left, g.state.hotels_left) == (32 - 8 + 4, 11)


def test_hotel_needs_four_houses_on_every_street():
    g = make_game(owner=DARK_BLUE, level={37: 3, 39: 4})
    assert reason(g, Build(39)).startswith("build evenly")
    assert reason(g, Build(37)) is None


def test_hotel_can_be_built_when_the_bank_has_no_houses():
    g = make_game(owner=DARK_BLUE, level={37: 4, 39: 4}, houses_left=0)
    assert reason(g, Build(39)) is None


def test_no_hotels_left_makes_the_hotel_illegal():
    """Rule: the bank has 12 hotels; none left, no hotel."""
    g = make_game(owner=DARK_BLUE, level={37: 4, 39: 4})
    assert g.state.hotels_left == 12
    g.state.hotels_left = 0
    assert reason(g, Build(39)) == "the bank has no hotels left"


def test_sell_a_hotel_for_four_houses():
    """Rule: a hotel sells for half its cost and is exchanged for 4 houses."""
    g = manage(SellBuilding(39), owner=DARK_BLUE, level={37: 5, 39: 5})
    assert payments(g) == [(BANK, 0, 100, "sell_building", 39)]
    assert g.state.level[39] == 4
    assert (g.state.houses_left, g.state.hotels_left) == (28, 11)


@pytest.mark.parametrize("bank_houses, new_level, refund", [(2, 1, 400), (0, 0, 500)])
def test_sell_a_hotel_in_a_housing_shortage(bank_houses, new_level, refund):
    """Rule: a hotel is never broken down unevenly. When the bank lacks the 4 houses,
    the group's hotels come down together to the most even level its houses allow;
    each level removed is refunded at half the house cost ($100 on the dark blues).
    (Until issue 15 Boardwalk alone dropped, leaving Park Place's hotel beside it.)"""
    g = manage(SellBuilding(39), owner=DARK_BLUE, level={37: 5, 39: 5},
               houses_left=bank_houses)
    assert payments(g) == [(BANK, 0, refund, "sell_building", 37),
                           (BANK, 0, refund, "sell_building", 39)]
    assert g.state.level[37] == g.state.level[39] == new_level
    assert (g.state.houses_left, g.state.hotels_left) == (0, 12)
    assert of(g, E.BuildingChanged) == [E.BuildingChanged(0, 37, new_level, "sold"),
                                        E.BuildingChanged(0, 39, new_level, "sold")]


# --- buying and auctions ----------------------------------------------------------------------

def land_on_baltic(players=3, **kw):
    return make_game(players, [(1, 2)], **kw)


def test_buy_at_the_printed_price():
    g = land_on_baltic()
    play(g, {0: Scripted(("buy", BUY))})
    assert payments(g) == [(0, BANK, 60, "buy", 3)]
    assert g.state.owner[3] == 0 and of(g, E.AuctionStarted) == []


def test_cannot_buy_without_the_cash():
    g = land_on_baltic(cash={0: 59})
    play(g, {0: Scripted(("buy", BUY))})
    assert faults(g) == [(0, "buy", "illegal buy: not enough cash")]
    assert of(g, E.AuctionStarted) == [E.AuctionStarted(3)]  # the fault declined
    assert g.state.owner[3] == NOBODY


def test_declined_property_is_auctioned_and_the_decliner_may_win():
    """Rule: a declined property is auctioned to the highest bidder; any player,
    including the one who declined, may bid."""
    p0 = Scripted(("buy", DECLINE), ("bid", Bid(20)))
    p1 = Scripted(("bid", Bid(10)), ("bid", DROP_OUT))
    g = land_on_baltic()
    play(g, {0: p0, 1: p1})
    assert [(b.seat, b.amount) for b in of(g, E.BidMade)] == [(1, 10), (0, 20)]
    assert of(g, E.AuctionEnded) == [E.AuctionEnded(3, 0, 20)]
    assert payments(g) == [(0, BANK, 20, "auction", 3)]
    assert g.state.owner[3] == 0 and g.state.cash == [1480, 1500, 1500]


def test_english_auction_winner_pays_its_own_bid():
    """Bidding goes round (after the decliner) until one bidder is left; it pays its bid."""
    p0 = Scripted(("buy", DECLINE), ("bid", Bid(20)), ("bid", Bid(40)))
    p1 = Scripted(("bid", Bid(10)), ("bid", Bid(30)), ("bid", DROP_OUT))
    g = land_on_baltic()
    play(g, {0: p0, 1: p1})
    assert [(b.seat, b.amount) for b in of(g, E.BidMade)] == [(1, 10), (0, 20), (1, 30),
                                                              (0, 40)]
    assert [(o.phase, o.high_bid) for o in p1.seen if o.phase == "bid"] == [
        ("bid", 0), ("bid", 20), ("bid", 40)]
    assert payments(g) == [(0, BANK, 40, "auction", 3)]
    assert g.state.owner[3] == 0


def test_auction_unsold_when_everyone_drops_out():
    g = land_on_baltic()
    play(g)
    assert of(g, E.AuctionEnded) == [E.AuctionEnded(3, BANK, 0)]
    assert payments(g) == [] and g.state.owner[3] == NOBODY


def test_a_bid_must_beat_the_high_bid_and_fit_the_cash():
    p1 = Scripted(("bid", Bid(10)))
    p2 = Scripted(("bid", Bid(10)))  # does not beat 10: a fault, so it drops out
    p0 = Scripted(("buy", DECLINE), ("bid", Bid(1501)))  # more than its cash
    g = land_on_baltic()
    play(g, {0: p0, 1: p1, 2: p2})
    assert faults(g) == [(2, "bid", "illegal bid: a bid must exceed 10"),
                         (0, "bid", "illegal bid: you cannot bid more than your cash")]
    assert of(g, E.AuctionEnded) == [E.AuctionEnded(3, 1, 10)]


def test_no_auction_when_the_rules_say_so():
    g = make_game(3, [(1, 2)], schema=with_bank(STANDARD, auction_on_decline=False))
    play(g)
    assert of(g, E.AuctionStarted) == [] and g.state.owner[3] == NOBODY


def test_sealed_auction_when_the_rules_say_so():
    """Option `auction="sealed"`: one bid each, in seat order after the decliner; the
    highest wins and pays its bid; a tie goes to the earlier bidder."""
    g = make_game(3, [(1, 2)], schema=with_bank(STANDARD, auction="sealed"))
    p0 = Scripted(("buy", DECLINE), ("bid", Bid(45)))
    p1 = Scripted(("bid", Bid(30)))
    p2 = Scripted(("bid", Bid(45)))
    play(g, {0: p0, 1: p1, 2: p2})
    assert [(b.seat, b.amount) for b in of(g, E.BidMade)] == [(1, 30), (2, 45), (0, 45)]
    assert [o.high_bid for o in p0.seen if o.phase == "bid"] == [0]
    assert of(g, E.AuctionEnded) == [E.AuctionEnded(3, 2, 45)]
    assert payments(g) == [(2, BANK, 45, "auction", 3)]
