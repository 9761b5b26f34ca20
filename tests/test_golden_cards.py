"""Golden tests: every card of both standard decks, and how decks are drawn.

Chance squares are 7, 22, 36 and Community Chest 2, 17, 33. Seat 0 rolls onto a card
square with the chosen card stacked on top of the deck; every amount is the printed one.
"""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import STANDARD, Scripted, card_index, make_game, of, payments, play, sq

from openmono import events as E
from openmono.actions import BUY, USE_JAIL_CARD
from openmono.events import BANK
from openmono.state import NOBODY

CHANCE = {7: 4, 22: 19, 36: 33}  # card square -> start square for a roll of (1, 2)


def draw(square: int, deck: str, text: str, extra_rolls=(), players: int = 2, **kw):
    """Seat 0 rolls (1, 2) onto `square` with the card starting with `text` on top."""
    return make_game(players, [(1, 2), *extra_rolls], position={0: square - 3},
                     deck_top={deck: [text]}, **kw)


def moves(g):
    return [(m.start, m.end, m.reason) for m in of(g, E.Moved) if m.seat == 0]


# --- the decks themselves --------------------------------------------------------------------

def test_standard_decks_hold_the_sixteen_printed_cards():
    """Rule: 16 Chance and 16 Community Chest cards, as printed."""
    chance, chest = STANDARD.decks
    assert (chance.name, chest.name) == ("chance", "community_chest")
    assert sum(c.count for c in chance.cards) == 16
    assert sum(c.count for c in chest.cards) == 16
    ch = Counter()
    for c in chance.cards:
        ch[(c.kind, c.square or c.target_kind, c.amount, c.per_house, c.per_hotel)] += c.count
    assert ch == Counter({
        ("advance_to", "Go", 0, 0, 0): 1, ("advance_to", "Illinois Avenue", 0, 0, 0): 1,
        ("advance_to", "St. Charles Place", 0, 0, 0): 1,
        ("advance_to", "Reading Railroad", 0, 0, 0): 1, ("advance_to", "Boardwalk", 0, 0, 0): 1,
        ("advance_to_nearest", "utility", 0, 0, 0): 1,
        ("advance_to_nearest", "railroad", 0, 0, 0): 2,
        ("collect", None, 50, 0, 0): 1, ("collect", None, 150, 0, 0): 1,
        ("pay", None, 15, 0, 0): 1, ("pay_each", None, 50, 0, 0): 1,
        ("repairs", None, 0, 25, 100): 1, ("get_out_of_jail", None, 0, 0, 0): 1,
        ("move_back", None, 3, 0, 0): 1, ("go_to_jail", None, 0, 0, 0): 1,
    })
    cc = Counter()
    for c in chest.cards:
        cc[(c.kind, c.square, c.amount, c.per_house, c.per_hotel)] += c.count
    assert cc == Counter({
        ("advance_to", "Go", 0, 0, 0): 1, ("collect", None, 200, 0, 0): 1,
        ("pay", None, 50, 0, 0): 1, ("collect", None, 50, 0, 0): 1,
        ("get_out_of_jail", None, 0, 0, 0): 1, ("go_to_jail", None, 0, 0, 0): 1,
        ("collect_from_each", None, 50, 0, 0): 1, ("collect", None, 100, 0, 0): 3,
        ("collect", None, 20, 0, 0): 1, ("pay", None, 100, 0, 0): 1,
        ("pay", None, 150, 0, 0): 1, ("collect", None, 25, 0, 0): 1,
        ("repairs", None, 0, 40, 115): 1, ("collect", None, 10, 0, 0): 1,
    })


def test_drawn_card_goes_to_the_bottom_of_its_deck():
    """Rule: a drawn card is returned face down to the bottom of its deck."""
    g = draw(7, "chance", "Bank pays you dividend")
    before = list(g.state.decks[0])
    play(g)
    assert g.state.decks[0] == before[1:] + before[:1]
    assert of(g, E.CardDrawn) == [E.CardDrawn(0, "chance", before[0],
                                              "Bank pays you dividend of $50")]


def test_decks_are_drawn_from_the_top_in_order():
    """Rule: cards are drawn from the top; the next player gets the next card."""
    g = make_game(2, [(1, 2), (1, 2)], turns=2, position={0: 4, 1: 19},
                  deck_top={"chance": ["Bank pays you dividend", "Your building and loan"]})
    order = list(g.state.decks[0])
    play(g)
    drawn = [(e.seat, e.card) for e in of(g, E.CardDrawn)]
    assert drawn == [(0, order[0]), (1, order[1])]
    assert payments(g) == [(BANK, 0, 50, "card", -1), (BANK, 1, 150, "card", -1)]
    assert g.state.decks[0] == order[2:] + order[:2]


def test_decks_are_shuffled_per_game_seed():
    """Rule: the decks are shuffled before play (reproducibly from the game seed)."""
    a, b, c = (make_game(seed=s).state.decks for s in (1, 1, 2))
    assert a == b
    assert a != c
    assert sorted(a[0]) == list(range(16)) and sorted(a[1]) == list(range(16))


# --- advance to a named square -----------------------------------------------------------------

@pytest.mark.parametrize("deck, square", [("chance", 7), ("community_chest", 17)])
def test_advance_to_go_collects_200(deck, square):
    g = draw(square, deck, "Advance to Go")
    play(g)
    assert moves(g)[-1] == (square, 0, "card")
    assert payments(g) == [(BANK, 0, 200, "go_salary", 0)]
    assert g.state.cash[0] == 1700


@pytest.mark.parametrize("card, target, start, passes", [
    ("Advance to Illinois", 24, 7, False), ("Advance to Illinois", 24, 36, True),
    ("Advance to St. Charles", 11, 7, False), ("Advance to St. Charles", 11, 22, True),
    ("Take a trip to Reading", 5, 7, True), ("Take a trip to Reading", 5, 36, True),
    ("Take a walk on the Boardwalk", 39, 7, False),
    ("Take a walk on the Boardwalk", 39, 36, False),
])
def test_advance_to_square_pays_go_only_when_passing_and_charges_normal_rent(
        card, target, start, passes):
    """Rule: advance to the square; collect $200 if you pass Go; the owner gets normal rent."""
    g = draw(start, "chance", card, owner={target: 1})
    play(g)
    rent = {24: 20, 11: 10, 5: 25, 39: 50}[target]
    expected = [(BANK, 0, 200, "go_salary", 0)] if passes else []
    assert moves(g)[-1] == (start, target, "card")
    assert payments(g) == expected + [(0, 1, rent, "rent", target)]
    assert g.state.cash[0] == 1500 + (200 if passes else 0) - rent


def test_advance_to_an_unowned_square_offers_it_for_sale():
    p0 = Scripted(("buy", BUY))
    g = draw(7, "chance", "Advance to Illinois")
    play(g, {0: p0})
    assert [o.square for o in p0.seen if o.phase == "buy"] == [24]
    assert g.state.owner[24] == 0 and g.state.cash[0] == 1500 - 240


# --- advance to the nearest utility / railroad ------------------------------------------------

@pytest.mark.parametrize("start, target, both, passes", [
    (7, 12, False, False), (22, 28, True, False), (36, 12, False, True),
])
def test_nearest_utility_pays_ten_times_a_new_throw(start, target, both, passes):
    """Rule: advance to the nearest utility; if owned, throw the dice and pay 10x the throw
    (even when the owner holds only one utility)."""
    owner = {target: 1}
    if both:
        owner.update({12: 1, 28: 1})
    g = draw(start, "chance", "Advance token to nearest Utility", extra_rolls=[(3, 4)],
             owner=owner)
    play(g)
    assert [e.dice for e in of(g, E.DiceRolled)] == [(1, 2), (3, 4)]
    assert moves(g)[-1] == (start, target, "card")
    go = [(BANK, 0, 200, "go_salary", 0)] if passes else []
    assert payments(g) == go + [(0, 1, 70, "rent", target)]


def test_nearest_unowned_utility_is_offered_for_sale_without_a_throw():
    p0 = Scripted(("buy", BUY))
    g = draw(7, "chance", "Advance token to nearest Utility")
    play(g, {0: p0})
    assert [o.square for o in p0.seen if o.phase == "buy"] == [12]
    assert len(of(g, E.DiceRolled)) == 1
    assert payments(g) == [(0, BANK, 150, "buy", 12)]


@pytest.mark.parametrize("start, target, owned, rent, passes", [
    (7, 15, ("Pennsylvania Railroad", "B. & O. Railroad"), 100, False),
    (22, 25, ("B. & O. Railroad",), 50, False),
    (36, 5, ("Reading Railroad", "Short Line", "B. & O. Railroad"), 200, True),
])
def test_nearest_railroad_pays_double_rent(start, target, owned, rent, passes):
    """Rule: advance to the nearest railroad and pay its owner twice the rental."""
    g = draw(start, "chance", "Advance token to the nearest Railroad",
             owner={n: 1 for n in owned})
    play(g)
    assert moves(g)[-1] == (start, target, "card")
    go = [(BANK, 0, 200, "go_salary", 0)] if passes else []
    assert payments(g) == go + [(0, 1, rent, "rent", target)]


def test_both_nearest_railroad_cards_work():
    """Rule: the Chance deck has two 'nearest railroad' cards; the second one works too."""
    g = make_game(2, [(1, 2)], position={0: 4}, owner={"Pennsylvania Railroad": 1})
    idx = [c.index for c in g.rules.decks[0] if c.text.startswith("Advance token to the near")]
    assert len(idx) == 2
    order = g.state.decks[0]
    order.remove(idx[1])
    order.insert(0, idx[1])
    play(g)
    assert payments(g) == [(0, 1, 50, "rent", 15)]


def test_nearest_unowned_railroad_is_offered_for_sale():
    p0 = Scripted(("buy", BUY))
    g = draw(22, "chance", "Advance token to the nearest Railroad")
    play(g, {0: p0})
    assert [o.square for o in p0.seen if o.phase == "buy"] == [25]
    assert payments(g) == [(0, BANK, 200, "buy", 25)]
    assert of(g, E.PropertyTransferred) == [E.PropertyTransferred(25, NOBODY, 0, "bought")]


def test_nearest_mortgaged_railroad_charges_nothing():
    g = draw(7, "chance", "Advance token to the nearest Railroad",
             owner={"Pennsylvania Railroad": 1}, mortgaged=["Pennsylvania Railroad"])
    play(g)
    assert payments(g) == []


# --- go back three spaces --------------------------------------------------------------------

def test_go_back_3_onto_income_tax():
    """Rule: go back 3 spaces (no Go salary) and do what the new square says: tax."""
    g = draw(7, "chance", "Go Back 3")
    play(g)
    assert moves(g) == [(4, 7, "dice"), (7, 4, "card")]
    assert payments(g) == [(0, BANK, 200, "tax", 4)]


def test_go_back_3_onto_community_chest_draws_there():
    g = make_game(2, [(1, 2)], position={0: 33},
                  deck_top={"chance": ["Go Back 3"], "community_chest": ["You have won second"]})
    play(g)
    assert moves(g) == [(33, 36, "dice"), (36, 33, "card")]
    assert [e.deck for e in of(g, E.CardDrawn)] == ["chance", "community_chest"]
    assert payments(g) == [(BANK, 0, 10, "card", -1)]


def test_go_back_3_onto_an_owned_street_pays_rent():
    g = draw(22, "chance", "Go Back 3", owner={"New York Avenue": 1})
    play(g)
    assert moves(g)[-1] == (22, 19, "card")
    assert payments(g) == [(0, 1, 16, "rent", 19)]


# --- money cards ---------------------------------------------------------------------------

MONEY = [
    ("chance", "Bank pays you dividend", 50), ("chance", "Your building and loan", 150),
    ("chance", "Pay poor tax", -15),
    ("community_chest", "Bank error", 200), ("community_chest", "Doctor's fees", -50),
    ("community_chest", "From sale of stock", 50), ("community_chest", "Holiday Fund", 100),
    ("community_chest", "Income tax refund", 20), ("community_chest", "Life insurance", 100),
    ("community_chest", "Pay hospital", -100), ("community_chest", "Pay school", -150),
    ("community_chest", "Receive $25", 25), ("community_chest", "You have won second", 10),
    ("community_chest", "You inherit", 100),
]


@pytest.mark.parametrize("deck, text, delta", MONEY)
def test_collect_and_pay_cards(deck, text, delta):
    """Rule: collect from / pay to the bank the printed amount."""
    g = draw(7 if deck == "chance" else 17, deck, text)
    play(g)
    expected = (BANK, 0, delta, "card", -1) if delta > 0 else (0, BANK, -delta, "card", -1)
    assert payments(g) == [expected]
    assert g.state.cash == [1500 + delta, 1500]


def test_grand_opera_night_collects_50_from_each_player():
    g = draw(17, "community_chest", "Grand Opera Night", players=4)
    play(g)
    assert payments(g) == [(q, 0, 50, "card", -1) for q in (1, 2, 3)]
    assert g.state.cash == [1650, 1450, 1450, 1450]


def test_chairman_of_the_board_pays_50_to_each_player():
    g = draw(7, "chance", "You have been elected Chairman", players=4)
    play(g)
    assert payments(g) == [(0, q, 50, "card", -1) for q in (1, 2, 3)]
    assert g.state.cash == [1350, 1550, 1550, 1550]


def test_pay_each_skips_bankrupt_players():
    g = draw(7, "chance", "You have been elected Chairman", players=3)
    g.state.active[2] = False
    play(g)
    assert payments(g) == [(0, 1, 50, "card", -1)]


BUILT = {"owner": {n: 0 for n in ("Mediterranean Avenue", "Baltic Avenue", "Oriental Avenue",
                                  "Vermont Avenue", "Connecticut Avenue")},
         "level": {"Mediterranean Avenue": 2, "Baltic Avenue": 3, "Oriental Avenue": 5,
                   "Vermont Avenue": 5, "Connecticut Avenue": 5}}


@pytest.mark.parametrize("deck, text, square, bill", [
    ("chance", "Make general repairs", 7, 5 * 25 + 3 * 100),
    ("community_chest", "You are assessed for street repairs", 17, 5 * 40 + 3 * 115),
])
def test_repairs_charge_per_house_and_per_hotel(deck, text, square, bill):
    """Rule: $25/house, $100/hotel (Chance); $40/house, $115/hotel (Community Chest).
    Here: 2 + 3 houses on the browns, hotels on the three light blues."""
    g = draw(square, deck, text, **BUILT)
    play(g)
    assert payments(g) == [(0, BANK, bill, "card", -1)]
    assert g.state.cash[0] == 1500 - bill


def test_repairs_without_buildings_cost_nothing():
    g = draw(7, "chance", "Make general repairs", owner={"Baltic Avenue": 0})
    play(g)
    assert payments(g) == []


# --- jail cards ----------------------------------------------------------------------------

@pytest.mark.parametrize("deck, square", [("chance", 36), ("community_chest", 17)])
def test_go_to_jail_card_sends_to_jail_without_go_salary(deck, square):
    """Rule: go directly to jail; do not pass Go, do not collect $200."""
    g = draw(square, deck, "Go to Jail")
    play(g)
    assert moves(g)[-1] == (square, 10, "jail")
    assert of(g, E.Jailed) == [E.Jailed(0, "card")]
    assert g.state.in_jail[0] and g.state.position[0] == 10
    assert payments(g) == []


@pytest.mark.parametrize("deck, square", [("chance", 7), ("community_chest", 17)])
def test_get_out_of_jail_card_is_kept_out_of_the_deck(deck, square):
    """Rule: the get-out-of-jail card is kept until used, not returned to the deck."""
    g = draw(square, deck, "Get")
    d = g.rules.deck_names.index(deck)
    ci = card_index(g, deck, "Get")
    play(g)
    assert g.state.jail_cards[0] == [(d, ci)]
    assert len(g.state.decks[d]) == 15 and ci not in g.state.decks[d]
    assert payments(g) == []


def test_get_out_of_jail_card_held_then_used_returns_to_the_bottom():
    """Rule: draw the card, keep it, use it to leave jail; it then goes under its deck."""
    use = Scripted(policy=lambda o: USE_JAIL_CARD
                   if o.phase == "pre_roll" and o.in_jail[o.seat] else None)
    rolls = [(1, 2), (1, 2), (3, 5), (4, 6), (1, 2)]
    g = make_game(2, rolls, turns=5, position={0: 19, 1: 7},
                  deck_top={"chance": ["Get out of Jail Free"]})
    ci = card_index(g, "chance", "Get out of Jail Free")
    play(g, {0: use})
    # turn 1: 19 -> 22 draws the card; turn 3: 22 -> 30 -> jail; turn 5: card, 10 -> 13
    assert [(m.start, m.end, m.reason) for m in of(g, E.Moved) if m.seat == 0] == [
        (19, 22, "dice"), (22, 30, "dice"), (30, 10, "jail"), (10, 13, "dice")]
    assert [o.jail_cards[0] for o in use.seen if o.phase == "pre_roll"] == [0, 1, 1, 0]
    assert of(g, E.Released) == [E.Released(0, "card")]
    assert of(g, E.JailCardMoved) == [E.JailCardMoved(0, BANK, "chance")]
    assert g.state.jail_cards[0] == []
    assert g.state.decks[0][-1] == ci and len(g.state.decks[0]) == 16
    assert g.state.cash[0] == 1500  # no fine, no salary
    assert g.state.position[0] == sq("States Avenue") and not g.state.in_jail[0]
