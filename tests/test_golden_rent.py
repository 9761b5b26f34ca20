"""Golden tests: rent, railroads, utilities, tax squares, Go and doubles (official US rules).

Every expected number is copied from the printed title deeds and rule sheet, never read
from the schema, so a wrong data file fails here too.
"""

from __future__ import annotations

import pytest
from helpers import Scripted, make_game, of, payments, play, sq

from openmono import events as E
from openmono.actions import BUY
from openmono.events import BANK
from openmono.state import NOBODY

BROWN = ("Mediterranean Avenue", "Baltic Avenue")
RED = ("Kentucky Avenue", "Indiana Avenue", "Illinois Avenue")
DARK_BLUE = ("Park Place", "Boardwalk")
RAILROADS = ("Reading Railroad", "Pennsylvania Railroad", "B. & O. Railroad", "Short Line")


def land(target: str, roll=(1, 2), **kw):
    """Seat 0 starts `sum(roll)` squares before `target` and rolls onto it."""
    start = (sq(target) - sum(roll)) % 40
    return make_game(rolls=[roll], position={0: start}, **kw)


# --- streets --------------------------------------------------------------------------------

def test_unimproved_street_rent_without_the_full_set():
    """Rule: an unimproved street without the colour set charges its base rent (Baltic $4)."""
    g = land("Baltic Avenue", owner={"Baltic Avenue": 1})
    play(g)
    assert payments(g) == [(0, 1, 4, "rent", 3)]
    assert g.state.cash == [1496, 1504]


def test_unimproved_full_set_doubles_rent():
    """Rule: the owner of a whole colour group charges double rent on its unimproved lots."""
    g = land("Baltic Avenue", owner={n: 1 for n in BROWN})
    play(g)
    assert payments(g) == [(0, 1, 8, "rent", 3)]


def test_full_set_with_a_mortgaged_member_still_doubles_the_others():
    """Rule: rent is collected on the unmortgaged lots of a group, still doubled for the set."""
    g = land("Baltic Avenue", owner={n: 1 for n in BROWN}, mortgaged=["Mediterranean Avenue"])
    play(g)
    assert payments(g) == [(0, 1, 8, "rent", 3)]


def test_three_street_group_needs_all_three_to_double():
    """Rule: two of the three reds are not a set: Illinois charges its base $20."""
    g = land("Illinois Avenue", owner={"Kentucky Avenue": 1, "Illinois Avenue": 1})
    play(g)
    assert payments(g) == [(0, 1, 20, "rent", 24)]
    g = land("Illinois Avenue", owner={n: 1 for n in RED})
    play(g)
    assert payments(g) == [(0, 1, 40, "rent", 24)]


def test_no_rent_on_a_mortgaged_property():
    """Rule: no rent can be collected on a mortgaged property."""
    g = land("Baltic Avenue", owner={n: 1 for n in BROWN}, mortgaged=["Baltic Avenue"])
    play(g)
    assert payments(g) == []
    assert g.state.cash == [1500, 1500]
    assert g.state.owner[3] == 1


def test_no_rent_on_your_own_property():
    g = land("Baltic Avenue", owner={"Baltic Avenue": 0})
    play(g)
    assert payments(g) == []


# Title deeds: rent with 1, 2, 3, 4 houses and with a hotel.
DEEDS = {
    "Baltic Avenue": (BROWN, (20, 60, 180, 320, 450)),
    "Illinois Avenue": (RED, (100, 300, 750, 925, 1100)),
    "Boardwalk": (DARK_BLUE, (200, 600, 1400, 1700, 2000)),
}


@pytest.mark.parametrize("street", sorted(DEEDS))
@pytest.mark.parametrize("lv", [1, 2, 3, 4, 5])
def test_rent_with_houses_and_hotel(street, lv):
    """Rule: a street with 1-4 houses or a hotel charges the rent printed for that level."""
    group, rents = DEEDS[street]
    g = land(street, owner={n: 1 for n in group}, level={n: lv for n in group},
             cash={0: 5000})
    play(g)
    assert payments(g) == [(0, 1, rents[lv - 1], "rent", sq(street))]
    assert g.state.cash == [5000 - rents[lv - 1], 1500 + rents[lv - 1]]


# --- railroads and utilities ---------------------------------------------------------------

@pytest.mark.parametrize("owned, rent", [(1, 25), (2, 50), (3, 100), (4, 200)])
def test_railroad_rent_by_number_owned(owned, rent):
    """Rule: railroad rent is $25, $50, $100, $200 for 1, 2, 3, 4 railroads owned."""
    g = land("Reading Railroad", owner={n: 1 for n in RAILROADS[:owned]})
    play(g)
    assert payments(g) == [(0, 1, rent, "rent", 5)]


def test_mortgaged_railroad_still_counts_for_the_others():
    """Rule: a mortgaged railroad earns nothing but is still owned, so the others count it."""
    g = land("Reading Railroad", owner={n: 1 for n in RAILROADS}, mortgaged=["Short Line"])
    play(g)
    assert payments(g) == [(0, 1, 200, "rent", 5)]


@pytest.mark.parametrize("both, roll, rent", [
    (False, (1, 2), 12), (False, (2, 4), 24), (True, (1, 2), 30), (True, (2, 4), 60),
])
def test_utility_rent_is_4x_or_10x_the_dice(both, roll, rent):
    """Rule: a utility charges 4x the dice thrown, or 10x when its owner has both."""
    owners = {"Electric Company": 1}
    if both:
        owners["Water Works"] = 1
    g = land("Electric Company", roll=roll, owner=owners)
    play(g)
    assert payments(g) == [(0, 1, rent, "rent", 12)]


# --- tax squares ----------------------------------------------------------------------------

@pytest.mark.parametrize("square, tax", [("Income Tax", 200), ("Luxury Tax", 100)])
def test_tax_squares_pay_the_bank(square, tax):
    """Rule: Income Tax $200, Luxury Tax $100, paid to the bank."""
    g = land(square)
    play(g)
    assert payments(g) == [(0, BANK, tax, "tax", sq(square))]
    assert g.state.cash[0] == 1500 - tax


# --- Go and doubles ---------------------------------------------------------------------------

def test_passing_go_collects_200():
    """Rule: each time a token passes Go, the bank pays $200."""
    g = make_game(rolls=[(1, 2)], position={0: 38}, owner={"Mediterranean Avenue": 0})
    play(g)
    assert payments(g) == [(BANK, 0, 200, "go_salary", 0)]
    assert g.state.position[0] == 1


def test_landing_on_go_collects_200_once():
    """Rule: landing exactly on Go also pays $200, once."""
    g = make_game(rolls=[(1, 2)], position={0: 37})
    play(g)
    assert payments(g) == [(BANK, 0, 200, "go_salary", 0)]
    assert g.state.position[0] == 0
    assert g.state.cash[0] == 1700


def test_doubles_roll_again():
    """Rule: after throwing doubles the player moves, then throws again."""
    g = make_game(rolls=[(3, 3), (1, 2)], position={0: 0},
                  owner={"Oriental Avenue": 0, "Connecticut Avenue": 0})
    play(g)
    assert [e.dice for e in of(g, E.DiceRolled)] == [(3, 3), (1, 2)]
    assert [(m.start, m.end) for m in of(g, E.Moved)] == [(0, 6), (6, 9)]
    assert g.state.position[0] == 9
    assert not g.state.in_jail[0]


def test_two_doubles_then_a_plain_roll_ends_the_turn():
    """Rule: doubles twice, then a plain throw: the turn ends there (no fourth throw)."""
    g = make_game(rolls=[(1, 1), (2, 2), (1, 2)], position={0: 10},
                  owner={"Electric Company": 0, "St. James Place": 0, "New York Avenue": 0})
    play(g)  # a fourth throw would exhaust the rigged dice and fail
    moves = [(m.seat, m.start, m.end) for m in of(g, E.Moved)]
    assert moves == [(0, 10, 12), (0, 12, 16), (0, 16, 19)]
    assert of(g, E.Jailed) == []


def test_unowned_property_is_offered_to_the_player_who_lands():
    """Rule: landing on an unowned property: the player may buy it at its printed price."""
    p0 = Scripted(("buy", BUY))
    g = land("Boardwalk")
    play(g, {0: p0})
    buy = [o for o in p0.seen if o.phase == "buy"]
    assert [o.square for o in buy] == [39]
    assert payments(g) == [(0, BANK, 400, "buy", 39)]
    assert of(g, E.PropertyTransferred) == [E.PropertyTransferred(39, NOBODY, 0, "bought")]
    assert g.state.owner[39] == 0 and g.state.cash[0] == 1100
