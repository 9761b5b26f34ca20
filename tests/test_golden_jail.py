"""Golden tests: jail in all its ways (official US rules).

In: the Go To Jail square, a Go to Jail card (see test_golden_cards), three doubles in a
row. Out: the $50 fine before rolling, a get-out-of-jail card, doubles (move, no extra
throw), or the fine forced after the third failed throw (then move by that throw).
"""

from __future__ import annotations

from helpers import Scripted, make_game, of, payments, play

from openmono import events as E
from openmono.actions import PAY_JAIL_FINE, USE_JAIL_CARD, Mortgage
from openmono.events import BANK


def moves(g, seat=0):
    return [(m.start, m.end, m.reason) for m in of(g, E.Moved) if m.seat == seat]


def test_go_to_jail_square_sends_to_jail_without_go_salary():
    """Rule: Go To Jail moves the token straight to Jail: no $200 although it goes 'past' Go."""
    g = make_game(rolls=[(1, 2)], position={0: 27})
    play(g)
    assert moves(g) == [(27, 30, "dice"), (30, 10, "jail")]
    assert of(g, E.Jailed) == [E.Jailed(0, "go_to_jail")]
    assert payments(g) == []
    st = g.state
    assert st.in_jail[0] and st.position[0] == 10 and st.jail_turns[0] == 0


def test_doubles_onto_go_to_jail_end_the_turn():
    """Rule: a player sent to jail by a double does not throw again."""
    g = make_game(rolls=[(2, 2)], position={0: 26})
    play(g)  # a second throw would exhaust the rigged dice
    assert moves(g) == [(26, 30, "dice"), (30, 10, "jail")]
    assert g.state.in_jail[0]


def test_third_double_in_a_row_goes_to_jail_without_moving():
    """Rule: throwing doubles three times in succession sends the token to jail at once."""
    g = make_game(rolls=[(1, 1), (2, 2), (3, 3)], position={0: 10},
                  owner={"Electric Company": 0, "St. James Place": 0})
    play(g)
    assert moves(g) == [(10, 12, "dice"), (12, 16, "dice"), (16, 10, "jail")]
    assert of(g, E.Jailed) == [E.Jailed(0, "doubles")]
    assert payments(g) == []
    assert g.state.in_jail[0] and g.state.position[0] == 10


def test_pay_fine_before_rolling_then_move():
    """Rule: pay $50 before throwing, then throw and move normally."""
    p0 = Scripted(("pre_roll", PAY_JAIL_FINE))
    g = make_game(rolls=[(1, 2)], in_jail={0: 0}, owner={"States Avenue": 0})
    play(g, {0: p0})
    assert payments(g) == [(0, BANK, 50, "jail_fine", -1)]
    assert of(g, E.Released) == [E.Released(0, "fine")]
    assert moves(g) == [(10, 13, "dice")]
    assert g.state.cash[0] == 1450 and not g.state.in_jail[0]


def test_use_jail_card_then_move():
    """Rule: a get-out-of-jail card frees the player, who then throws and moves; the card
    goes to the bottom of its own deck."""
    p0 = Scripted(("pre_roll", USE_JAIL_CARD))
    g = make_game(rolls=[(1, 2)], in_jail={0: 1}, jail_cards={0: ["community_chest"]},
                  owner={"States Avenue": 0})
    card = g.state.jail_cards[0][0][1]
    play(g, {0: p0})
    assert payments(g) == []
    assert of(g, E.Released) == [E.Released(0, "card")]
    assert of(g, E.JailCardMoved) == [E.JailCardMoved(0, BANK, "community_chest")]
    assert g.state.decks[1][-1] == card and len(g.state.decks[1]) == 16
    assert moves(g) == [(10, 13, "dice")]
    assert g.state.jail_cards[0] == []


def test_doubles_in_jail_release_and_move_but_no_extra_throw():
    """Rule: doubles in jail: move by that throw; no second throw for those doubles."""
    g = make_game(rolls=[(2, 2)], in_jail={0: 0}, owner={"Virginia Avenue": 0})
    play(g)  # a second throw would exhaust the rigged dice
    assert of(g, E.Released) == [E.Released(0, "doubles")]
    assert moves(g) == [(10, 14, "dice")]
    assert payments(g) == []
    assert not g.state.in_jail[0] and g.state.jail_turns[0] == 0


def test_doubles_on_the_third_try_release_without_the_fine():
    g = make_game(rolls=[(3, 3)], in_jail={0: 2}, owner={"St. James Place": 0})
    play(g)
    assert of(g, E.Released) == [E.Released(0, "doubles")]
    assert payments(g) == [] and moves(g) == [(10, 16, "dice")]


def test_failed_throw_stays_in_jail():
    g = make_game(rolls=[(1, 2)], in_jail={0: 0})
    play(g)
    assert moves(g) == [] and payments(g) == []
    assert g.state.in_jail[0] and g.state.jail_turns[0] == 1 and g.state.position[0] == 10


def test_three_failed_throws_force_the_fine_then_move():
    """Rule: after failing on the third turn the player pays $50 and moves by that throw."""
    # p0 fails, p1 moves 7 -> 10, p0 fails, p1 10 -> 20, p0 fails a third time.
    g = make_game(rolls=[(1, 2), (1, 2), (1, 3), (4, 6), (1, 2)], turns=5,
                  position={1: 7}, in_jail={0: 0}, owner={"States Avenue": 0})
    play(g)
    assert [e.dice for e in of(g, E.DiceRolled) if e.seat == 0] == [(1, 2), (1, 3), (1, 2)]
    assert payments(g) == [(0, BANK, 50, "jail_fine", -1)]
    assert of(g, E.Released) == [E.Released(0, "forced_fine")]
    assert moves(g) == [(10, 13, "dice")]
    assert g.state.cash[0] == 1450 and not g.state.in_jail[0]


def test_forced_fine_without_cash_opens_a_debt_phase():
    """Rule: a player who must pay the fine but lacks cash raises it (here: a mortgage)."""
    p0 = Scripted(("debt", Mortgage(3)))
    g = make_game(rolls=[(1, 2)], cash={0: 20}, in_jail={0: 2},
                  owner={"Baltic Avenue": 0, "States Avenue": 0})
    play(g, {0: p0})
    debt = [o for o in p0.seen if o.phase == "debt"]
    assert [(o.owed, o.creditor) for o in debt] == [(50, BANK)]
    assert payments(g) == [(BANK, 0, 30, "mortgage", 3), (0, BANK, 50, "jail_fine", -1)]
    assert g.state.cash[0] == 0 and moves(g) == [(10, 13, "dice")]


def test_a_jailed_player_still_collects_rent():
    """Rule: while in jail a player may collect rent."""
    g = make_game(rolls=[(1, 2), (1, 2)], turns=2, in_jail={0: 0},
                  owner={"Baltic Avenue": 0})
    play(g)
    assert payments(g) == [(1, 0, 4, "rent", 3)]


def test_jail_fine_only_before_rolling_and_only_in_jail():
    """The fine is a pre-roll option of a jailed player; otherwise it is refused (fault)."""
    p0 = Scripted(("pre_roll", PAY_JAIL_FINE))
    g = make_game(rolls=[(1, 2)], position={0: 7})
    play(g, {0: p0})
    faults = of(g, E.Fault)
    assert [(f.seat, f.phase) for f in faults] == [(0, "pre_roll")]
    assert payments(g) == []
