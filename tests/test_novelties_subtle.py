"""The subtle plugins fire exactly when their rule says, and only then (rigged games).

Each test sets up the one situation a rule waits for and its near miss: the same move
just above and just below a cash level, with and without a double, at the third house
and at the second, with all four railroads and with three.
"""

from __future__ import annotations

import random

from helpers import Scripted, make_game, payments, play
from test_novelties_catalogue import novelty_game

import openmono
from novelties.registry import apply_novelty
from openmono.actions import Bid, Build, Buy, Decline, DropOut
from openmono.engine import Game

STD = openmono.standard_schema()
BANK = -1


def _rent(game) -> list[int]:
    return [p[2] for p in payments(game, "rent")]


# --- class: rare and conditional rules -----------------------------------------------------
def test_lucky_square_pays_only_on_its_square() -> None:
    game, _ = novelty_game("lucky_square", "hard", [(1, 0)])
    play(game)
    assert payments(game, "square_bonus") == [(BANK, 0, 25, "square_bonus", 1)]
    game, _ = novelty_game("lucky_square", "hard", [(2, 1)])
    play(game)
    assert payments(game, "square_bonus") == []


def test_card_fee_is_charged_on_one_deck_before_the_draw() -> None:
    game, _ = novelty_game("card_fee", "hard", [(2, 0)],
                           deck_top={"community_chest": ["You inherit"]})
    play(game)
    assert payments(game, "card_fee") == [(0, BANK, 10, "card_fee", 2)]
    assert [p[2] for p in payments(game, "card")] == [100]  # then the card as usual
    game, _ = novelty_game("card_fee", "hard", [(4, 3)], deck_top={"chance": ["Bank pays"]})
    play(game)
    assert payments(game, "card_fee") == []


def test_jail_upkeep_only_while_still_in_jail() -> None:
    game, _ = novelty_game("jail_upkeep", "hard", [(1, 2)], in_jail={0: 0})
    play(game)
    assert payments(game, "jail_upkeep") == [(0, BANK, 10, "jail_upkeep", 10)]
    game, _ = novelty_game("jail_upkeep", "hard", [(2, 2)], in_jail={0: 0})
    play(game)
    assert payments(game, "jail_upkeep") == []


def test_rich_rent_surcharge_only_above_the_cash_level() -> None:
    for cash, rent in ((2501, 100), (2500, 50)):  # hard doubles the rent above 2500
        game, _ = novelty_game("rich_rent", "hard", [(2, 1)], cash={0: cash},
                               position={0: 36}, owner={"Boardwalk": 1})
        play(game)
        assert _rent(game) == [rent], cash


def test_poor_relief_only_below_the_cash_level() -> None:
    for cash, paid in ((49, [(BANK, 0, 20, "relief", -1)]), (50, [])):
        game, _ = novelty_game("poor_relief", "hard", [(2, 1)], cash={0: cash},
                               position={0: 17})
        play(game)
        assert payments(game, "relief") == paid, cash


def test_doubles_fee_hard_charges_snake_eyes_only() -> None:
    game, _ = novelty_game("doubles_fee", "hard", [(1, 1), (2, 1)], position={0: 18})
    play(game)
    assert payments(game, "doubles_fee") == [(0, BANK, 50, "doubles_fee", -1)]
    game, _ = novelty_game("doubles_fee", "hard", [(2, 2), (2, 1)], position={0: 16})
    play(game)
    assert payments(game, "doubles_fee") == []
    game, _ = novelty_game("doubles_fee", "medium", [(2, 2), (2, 1)], position={0: 16})
    play(game)
    assert payments(game, "doubles_fee") == [(0, BANK, 15, "doubles_fee", -1)]


def test_doubles_rent_only_after_a_double() -> None:
    game, _ = novelty_game("doubles_rent", "hard", [(2, 2), (3, 4)], position={0: 35},
                           owner={"Boardwalk": 1})
    play(game)
    assert _rent(game) == [60]
    game, _ = novelty_game("doubles_rent", "hard", [(1, 2)], position={0: 36},
                           owner={"Boardwalk": 1})
    play(game)
    assert _rent(game) == [50]


def test_rent_levy_taxes_the_owner_on_rent_collected() -> None:
    game, _ = novelty_game("rent_levy", "hard", [(1, 2)], position={0: 36},
                           owner={"Boardwalk": 1})
    play(game)
    assert payments(game, "rent_levy") == [(1, BANK, 2, "rent_levy", -1)]
    game, _ = novelty_game("rent_levy", "hard", [(1, 2)], position={0: 36})
    play(game)
    assert payments(game, "rent_levy") == []


def test_third_house_fee_only_for_the_third_house() -> None:
    streets = ("Oriental Avenue", "Vermont Avenue", "Connecticut Avenue")
    owner = {s: 0 for s in streets}
    for start, fee in ((2, [(0, BANK, 300, "house_fee", -1)]), (1, [])):
        game, _ = novelty_game("third_house_fee", "hard", [(1, 2)], owner=owner,
                               level={s: start for s in streets})
        agent = Scripted(("pre_roll", Build(STD.index_of("Oriental Avenue"))))
        play(game, {0: agent})
        assert game.state.level[6] == start + 1
        assert payments(game, "house_fee") == fee, start


def test_late_rent_starts_at_its_turn() -> None:
    # Turn 1: seat 0 pays the old rent; turn 2: seat 1 pays the late rent.
    game, _ = novelty_game("late_rent", "hard", [(1, 2), (1, 2)], turns=2,
                           params={"after_turn": 2}, position={0: 36, 1: 36},
                           owner={"Boardwalk": 2}, players=3)
    play(game)
    assert _rent(game) == [50, 100]


def test_late_salary_starts_at_its_turn() -> None:
    game, _ = novelty_game("late_salary", "hard", [(1, 2), (1, 2)], turns=2,
                           params={"after_turn": 2}, position={0: 39, 1: 39})
    play(game)
    assert [p[2] for p in payments(game, "go_salary")] == [200]  # hard: no salary from turn 2


def test_first_lap_grace_ends_when_the_payer_passes_go() -> None:
    game, _ = novelty_game("first_lap_grace", "hard", [(1, 2)], position={0: 36},
                           owner={"Boardwalk": 1})
    play(game)
    assert _rent(game) == [40]
    game, _ = novelty_game("first_lap_grace", "hard", [(3, 4)], position={0: 38},
                           owner={"Reading Railroad": 1})
    play(game)
    assert _rent(game) == [25]


# --- attribute: one value --------------------------------------------------------------------
def test_card_amount_changes_one_card_and_keeps_its_text() -> None:
    game, p = novelty_game("card_amount", "hard", [(2, 0)],
                           deck_top={"community_chest": ["You have won second prize"]})
    play(game)
    assert payments(game, "card") == [(BANK, 0, 15, "card", -1)]
    assert [c.text for c in p.schema.decks[1].cards] == [c.text for c in STD.decks[1].cards]


def test_level_rent_only_at_its_level() -> None:
    light_blue = ("Oriental Avenue", "Vermont Avenue", "Connecticut Avenue")
    for lv, rent in ((4, 1200), (3, 270), (5, 550)):  # 4 houses: 400 x 3
        game, _ = novelty_game("level_rent", "hard", [(1, 2)], position={0: 3},
                               owner={s: 1 for s in light_blue},
                               level={s: lv for s in light_blue})
        play(game)
        assert _rent(game) == [rent], lv


def test_railroad_rents_only_for_all_four() -> None:
    rails = ("Reading Railroad", "Pennsylvania Railroad", "B. & O. Railroad", "Short Line")
    for owned, rent in ((4, 240), (3, 100)):
        game, _ = novelty_game("railroad_rents", "hard", [(3, 2)],
                               owner={r: 1 for r in rails[:owned]})
        play(game)
        assert _rent(game) == [rent], owned


def test_utility_multiplier_by_dice_only_and_with_both_utilities() -> None:
    both = {"Electric Company": 1, "Water Works": 1}
    game, _ = novelty_game("utility_multiplier", "hard", [(1, 2)], position={0: 9}, owner=both)
    play(game)
    assert _rent(game) == [36]
    game, _ = novelty_game("utility_multiplier", "hard", [(1, 2)], position={0: 9},
                           owner={"Electric Company": 1})
    play(game)
    assert _rent(game) == [12]
    # The utility card keeps its own "ten times the throw".
    game, _ = novelty_game("utility_multiplier", "hard", [(2, 1), (3, 3)], position={0: 4},
                           owner=both, deck_top={"chance": ["Advance token to nearest Utility"]})
    play(game)
    assert _rent(game) == [60]


def test_shifted_face_changes_one_face_of_one_die() -> None:
    s = apply_novelty("shifted_face", STD, "hard").schema
    assert s.dice[0].faces == (1, 2, 4, 4, 5, 6) and s.dice[1] == STD.dice[1]


def _doubles_share(name: str, in_jail: bool, n: int = 3000) -> tuple[float, int]:
    p = apply_novelty(name, STD, "hard")
    game = Game(p.schema, players=2, seed=5, hooks=p.hooks)
    game.state.in_jail[0] = in_jail
    api = game.api
    rng = random.Random(1)
    doubles = changed = 0
    for _ in range(n):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        out = p.hooks.dice_roll(api, 0, dice)
        doubles += out[0] == out[1]
        changed += out != dice
    return doubles / n, changed


def test_sticky_doubles_turns_a_few_throws_into_doubles() -> None:
    share, changed = _doubles_share("sticky_doubles", False)
    expected = 1 / 6 + 5 / 6 * 0.02  # 0.1833; 3 sd on 3000 throws is 0.021
    assert abs(share - expected) < 0.022 and changed > 0


def test_broken_double_breaks_a_share_of_double_sixes_only() -> None:
    p = apply_novelty("broken_double", STD, "hard")
    game = Game(p.schema, players=2, seed=5, hooks=p.hooks)
    api = game.api
    outs = [p.hooks.dice_roll(api, 0, (6, 6)) for _ in range(4000)]
    assert set(outs) == {(6, 6), (6, 5)}
    assert abs(outs.count((6, 5)) / 4000 - 0.25) < 0.021  # 3 sd on 4000 throws
    assert all(p.hooks.dice_roll(api, 0, d) == d for d in ((5, 5), (6, 5), (1, 6)))


def test_rethrown_sevens_throws_a_share_of_sevens_again() -> None:
    p = apply_novelty("rethrown_sevens", STD, "hard")
    game = Game(p.schema, players=2, seed=5, hooks=p.hooks)
    api = game.api
    outs = [p.hooks.dice_roll(api, 0, (3, 4)) for _ in range(4000)]
    again = sum(o != (3, 4) for o in outs) / 4000
    assert abs(again - 0.15 * 35 / 36) < 0.017  # (3, 4) again: 1 in 36; 3 sd on 4000
    assert all(p.hooks.dice_roll(api, 0, d) == d for d in ((6, 6), (2, 4), (1, 5)))


def test_jail_dice_changes_doubles_only_in_jail() -> None:
    share, _ = _doubles_share("jail_dice", True)
    assert abs(share - 0.25) < 0.024  # 3 sd on 3000 throws
    share, changed = _doubles_share("jail_dice", False)
    assert changed == 0


# --- representation: one small change --------------------------------------------------------
def test_group_split_makes_a_one_street_set() -> None:
    game, _ = novelty_game("group_split", "easy", [(2, 1)], owner={"Baltic Avenue": 1})
    play(game)
    assert _rent(game) == [8]  # Baltic alone is now a complete set: double rent


def test_square_nudge_moves_one_square_by_one_step() -> None:
    s = apply_novelty("square_nudge", STD, "hard").schema
    assert (s.squares[35].name, s.squares[36].name) == ("Chance 3", "Short Line")
    assert [x.name for x in s.squares[:35]] == [x.name for x in STD.squares[:35]]


def test_hidden_opponent_jail_hides_one_opponent_from_the_others() -> None:
    game, _ = novelty_game("hidden_opponent_jail", "hard", [(1, 2), (1, 2), (1, 2)],
                           players=3, turns=3, in_jail={1: 0})
    seats = {s: Scripted() for s in range(3)}
    play(game, seats)
    first = {s: a.seen[0] for s, a in seats.items()}
    assert first[0].in_jail[1] is False  # seat 1 is seat 0's "next" opponent
    assert first[1].in_jail[1] is True  # its own status is never hidden
    assert first[2].in_jail[1] is True  # seat 2's next opponent is seat 0


def test_hidden_jail_cards_shows_opponents_none() -> None:
    game, _ = novelty_game("hidden_jail_cards", "medium", [(1, 2), (1, 2)], turns=2,
                           jail_cards={1: ["chance"]})
    seats = {s: Scripted() for s in range(2)}
    play(game, seats)
    assert seats[0].seen[0].jail_cards == (0, 0)
    assert seats[1].seen[0].jail_cards == (0, 1)


def test_auction_premium_is_charged_to_the_auction_winner_only() -> None:
    game, _ = novelty_game("auction_premium", "hard", [(1, 2)])
    seats = {0: Scripted(("buy", Decline()), ("bid", DropOut())), 1: Scripted(("bid", Bid(120)))}
    play(game, seats)
    assert payments(game, "auction") == [(1, BANK, 120, "auction", 3)]
    assert payments(game, "auction_premium") == [(1, BANK, 12, "auction_premium", -1)]
    game, _ = novelty_game("auction_premium", "hard", [(1, 2)])
    play(game, {0: Scripted(("buy", Buy()))})
    assert payments(game, "auction_premium") == []
