"""The rare-trigger plugins (novelties/catalogue/rare_*.py) act exactly in their one
situation and never otherwise: rigged games just above and at a cash level, a hotel on
the chosen group and one elsewhere, a fourth house instead of a hotel."""

from __future__ import annotations

from helpers import Scripted, payments, play
from test_novelties_catalogue import novelty_game

import openmono
from novelties.registry import apply_novelty
from openmono.actions import Build

STD = openmono.standard_schema()
BANK = -1
YELLOW = ("Atlantic Avenue", "Ventnor Avenue", "Marvin Gardens")
GREEN = ("Pacific Avenue", "North Carolina Avenue", "Pennsylvania Avenue")


# --- class ------------------------------------------------------------------------------
def test_rich_salary_cuts_the_salary_only_above_the_cash_level() -> None:
    for cash, salary in ((3001, 150), (3000, 200)):
        game, _ = novelty_game("rich_salary", "hard", [(1, 3)], cash={0: cash},
                               position={0: 39})
        play(game)
        assert [p[2] for p in payments(game, "go_salary")] == [salary], cash


def test_rich_salary_easy_pays_nothing_to_the_rich() -> None:
    game, _ = novelty_game("rich_salary", "easy", [(1, 3)], cash={0: 1501}, position={0: 39})
    play(game)
    assert payments(game, "go_salary") == []
    assert game.state.cash[0] == 1501


def _build_once(name: str, difficulty: str, streets: tuple[str, ...], start: int):
    owner = {s: 0 for s in streets}
    game, _ = novelty_game(name, difficulty, [(1, 2)], owner=owner,
                           level={s: start for s in streets})
    agent = Scripted(("pre_roll", Build(STD.index_of(streets[0]))))
    play(game, {0: agent})
    assert game.state.level[STD.index_of(streets[0])] == start + 1
    return game


def test_hotel_permit_charges_a_hotel_on_its_group_only() -> None:
    game = _build_once("hotel_permit", "hard", YELLOW, 4)  # a hotel on yellow
    assert payments(game, "hotel_permit") == [(0, BANK, 25, "hotel_permit", -1)]
    game = _build_once("hotel_permit", "hard", YELLOW, 3)  # a fourth house: no permit
    assert payments(game, "hotel_permit") == []
    game = _build_once("hotel_permit", "hard", GREEN, 4)  # a hotel elsewhere
    assert payments(game, "hotel_permit") == []
    game = _build_once("hotel_permit", "easy", GREEN, 4)  # easy: every group
    assert payments(game, "hotel_permit") == [(0, BANK, 100, "hotel_permit", -1)]


def test_rare_rules_are_hidden_and_name_their_entities() -> None:
    for name in ("rich_salary", "hotel_permit"):
        p = apply_novelty(name, STD, "hard")
        assert p.schema == STD and p.changes and not any(c.visible for c in p.changes)
    assert [c.entity for c in apply_novelty("hotel_permit", STD, "hard").changes] == \
        ["group:yellow"]


# --- representation -----------------------------------------------------------------------
def test_capped_opponent_cash_caps_only_opponents_above_the_ceiling() -> None:
    for cash, shown in ((3001, 3000), (3000, 3000), (2999, 2999)):
        game, _ = novelty_game("capped_opponent_cash", "hard", [(1, 2), (1, 2)], turns=2,
                               cash={1: cash})
        seats = {s: Scripted() for s in range(2)}
        play(game, seats)
        assert seats[0].seen[0].cash == (1500, shown), cash
        assert seats[1].seen[0].cash == (1500, cash), cash  # its own cash: never altered
        assert game.state.cash[1] == cash  # the game itself is unchanged


def test_capped_opponent_cash_leaves_a_quiet_observation_untouched() -> None:
    p = apply_novelty("capped_opponent_cash", STD, "hard")
    game = openmono.Game(STD, 4, seed=3)
    seat, decision = next(game.run())
    obs = game.observe(seat, decision)
    assert p.hooks.observation(obs) is obs
    rich = obs._replace(cash=(4000, 5000, 3001, 10))
    assert p.hooks.observation(rich).cash == (4000, 3000, 3000, 10)


def test_hidden_hotels_shows_an_opponents_hotel_as_four_houses() -> None:
    game, _ = novelty_game("hidden_hotels", "hard", [(1, 2), (1, 2)], turns=2,
                           owner={s: 0 for s in YELLOW}, level={s: 4 for s in YELLOW})
    seats = {0: Scripted(("pre_roll", Build(STD.index_of("Atlantic Avenue")))),
             1: Scripted()}
    play(game, seats)
    atlantic = STD.index_of("Atlantic Avenue")
    assert game.state.level[atlantic] == 5  # the hotel is real
    later = [o for o in seats[1].seen if any(e.kind == "building_changed" for e in o.events)]
    assert later, "seat 1 never saw the building"
    built = [e for e in later[0].events if e.kind == "building_changed"]
    assert [(e.square, e.level) for e in built] == [(atlantic, 4)]  # the event disguised
    assert later[0].level[atlantic] == 4
    assert seats[0].seen[-1].level[atlantic] == 5  # its owner sees its own hotel


def test_hidden_hotels_leaves_other_groups_alone() -> None:
    game, _ = novelty_game("hidden_hotels", "hard", [(1, 2), (1, 2)], turns=2,
                           owner={s: 0 for s in GREEN}, level={s: 4 for s in GREEN})
    seats = {0: Scripted(("pre_roll", Build(STD.index_of("Pacific Avenue")))), 1: Scripted()}
    play(game, seats)
    assert seats[1].seen[-1].level[STD.index_of("Pacific Avenue")] == 5


# --- attribute ----------------------------------------------------------------------------
def test_cash_cap_ends_the_game_after_a_turn_above_the_cap() -> None:
    for cash, reason in ((2801, "cash_cap"), (2800, "turn_limit")):
        game, p = novelty_game("cash_cap", "hard", [(1, 3), (1, 2)], turns=2,
                               cash={0: cash}, position={0: 39})
        assert p.schema.bank.cash_cap == 3000
        result = play(game, all_dice=reason != "cash_cap")
        assert result.end_reason == reason, cash
        assert game.state.turn == (1 if reason == "cash_cap" else 2)
