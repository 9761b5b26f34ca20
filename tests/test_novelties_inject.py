"""Mid-game injection: each documented repair rule, refusals, scheduling, determinism."""

from __future__ import annotations

import pytest
from helpers import RiggedDice, make_game, payments, play, sq

import openmono
from agents.random_agent import RandomAgent
from novelties.base import Applied, replace
from novelties.inject import (InjectionRefused, check_state, inject_mid_game, inject_now,
                              square_mapping)
from novelties.registry import apply_novelty
from novelties.testing import books_balance
from openmono import events as E
from openmono.schema import Square

STD = openmono.standard_schema()


def _refunds(game) -> dict[int, int]:
    out: dict[int, int] = {}
    for e in game.events:
        if type(e) is E.Payment and e.reason == "novelty_repair":
            out[e.square] = out.get(e.square, 0) + e.amount
    return out


def test_building_limit_cuts_levels_and_refunds_at_the_new_value() -> None:
    game = make_game(2, owner={"Park Place": 0, "Boardwalk": 0, "St. James Place": 1,
                               "Tennessee Avenue": 1, "New York Avenue": 1},
                     level={"Park Place": 4, "Boardwalk": 5, "St. James Place": 3,
                            "Tennessee Avenue": 3, "New York Avenue": 3})
    cash = list(game.state.cash)
    report = inject_now(game, apply_novelty("building_limit", STD, "easy"))  # 2 houses, no hotel
    st, rules = game.state, game.rules
    assert rules.max_level == 2 and rules.hotel_level == -1
    assert [st.level[sq(n)] for n in ("Park Place", "Boardwalk", "St. James Place")] == [2, 2, 2]
    refunds = _refunds(game)
    assert refunds[sq("Boardwalk")] == 3 * 100 and refunds[sq("Park Place")] == 2 * 100
    assert refunds[sq("New York Avenue")] == 50
    assert st.cash == [cash[0] + 500, cash[1] + 150]
    assert (st.houses_left, st.hotels_left) == (32 - 10, 12)
    assert check_state(rules, st) == [] and report.done and len(report.repairs) == 5
    assert [e.level for e in game.events if type(e) is E.BuildingChanged] == [2, 2, 2, 2, 2]


def test_hotel_stays_a_hotel_when_the_house_limit_drops() -> None:
    game = make_game(2, owner={"Park Place": 0, "Boardwalk": 0},
                     level={"Park Place": 5, "Boardwalk": 5})
    inject_now(game, apply_novelty("building_limit", STD, "medium"))  # 3 houses + hotel
    assert game.state.level[sq("Boardwalk")] == game.rules.hotel_level == 4
    assert _refunds(game) == {sq("Park Place"): 100, sq("Boardwalk"): 100}
    assert check_state(game.rules, game.state) == []


def test_smaller_bank_stock_sells_hotels_then_most_built_houses() -> None:
    game = make_game(2, owner={"Pacific Avenue": 0, "North Carolina Avenue": 0,
                               "Pennsylvania Avenue": 0, "St. Charles Place": 1,
                               "States Avenue": 1, "Virginia Avenue": 1},
                     level={"Pacific Avenue": 5, "North Carolina Avenue": 5,
                            "Pennsylvania Avenue": 5, "St. Charles Place": 4,
                            "States Avenue": 4, "Virginia Avenue": 4})
    inject_now(game, apply_novelty("building_stock", STD, "hard"))  # 6 houses, 2 hotels
    st = game.state
    assert st.level[sq("Pennsylvania Avenue")] == 0  # the last hotel on the board goes
    assert st.level[sq("Pacific Avenue")] == st.level[sq("North Carolina Avenue")] == 5
    assert [st.level[sq(n)] for n in ("St. Charles Place", "States Avenue",
                                      "Virginia Avenue")] == [2, 2, 2]
    assert (st.houses_left, st.hotels_left) == (0, 0)
    refunds = _refunds(game)
    assert refunds[sq("Pennsylvania Avenue")] == 5 * 100
    assert refunds[sq("Virginia Avenue")] == 2 * 50
    assert check_state(game.rules, st) == []


def test_buildings_without_a_monopoly_are_sold() -> None:
    game = make_game(2, owner={"Mediterranean Avenue": 0, "Baltic Avenue": 0},
                     level={"Mediterranean Avenue": 2, "Baltic Avenue": 2})
    inject_now(game, apply_novelty("group_merge", STD, "hard"))  # brown + light blue
    assert game.state.level[1] == game.state.level[3] == 0
    assert sum(_refunds(game).values()) == 4 * 25
    assert game.state.houses_left == 32 and check_state(game.rules, game.state) == []


def test_removed_property_is_bought_back_and_players_move_forward() -> None:
    squares = [s for s in STD.squares if s.name != "Income Tax"]
    i = next(k for k, s in enumerate(squares) if s.name == "Baltic Avenue")
    squares[i] = Square(name="Picnic Area", kind="free_parking")
    new = replace(STD, squares=tuple(squares))
    game = make_game(2, owner={"Mediterranean Avenue": 0, "Baltic Avenue": 0},
                     level={"Mediterranean Avenue": 1, "Baltic Avenue": 1},
                     position={0: "Income Tax", 1: "Baltic Avenue"})
    game.state.set_mortgaged(sq("Reading Railroad"), False)
    cash = list(game.state.cash)
    inject_now(game, Applied(new))
    st = game.state
    assert st.cash[0] == cash[0] + 60 + 25  # price + the house at the old sell-back value
    assert st.position == [new.index_of("Reading Railroad"), new.index_of("Picnic Area")]
    assert st.owner[new.index_of("Mediterranean Avenue")] == 0
    assert st.level[new.index_of("Mediterranean Avenue")] == 1  # brown is now a 1-street set
    assert any(type(e) is E.PropertyTransferred and e.reason == "novelty" for e in game.events)
    assert check_state(game.rules, st) == [] and st.houses_left == 31


def test_mortgaged_removed_property_refunds_price_minus_mortgage() -> None:
    new = replace(STD, squares=tuple(Square(name="Lot", kind="free_parking")
                                     if s.name == "Park Place" else s for s in STD.squares))
    game = make_game(2, owner={"Park Place": 1}, mortgaged=["Park Place"])
    cash = game.state.cash[1]
    inject_now(game, Applied(new))
    assert game.state.cash[1] == cash + 350 - 175
    assert not any(game.state.mortgaged) and check_state(game.rules, game.state) == []


def test_jail_card_maps_or_returns_and_decks_are_rebuilt() -> None:
    game = make_game(2, jail_cards={0: ["chance"], 1: ["community_chest"]})
    chance = STD.decks[0]
    no_card = replace(chance, cards=tuple(c for c in chance.cards
                                          if c.kind != "get_out_of_jail"))
    new = replace(STD, decks=(no_card, STD.decks[1]))
    chest_order = list(game.state.decks[1])
    report = inject_now(game, Applied(new))
    st = game.state
    assert st.jail_cards[0] == [] and len(st.jail_cards[1]) == 1
    assert st.decks[1] == chest_order  # an unchanged deck keeps its order
    assert sorted(st.decks[0]) == list(range(len(game.rules.decks[0])))
    assert any(type(e) is E.JailCardMoved and e.to_seat == E.BANK for e in game.events)
    assert check_state(game.rules, st) == [] and report.repairs


def test_changed_deck_keeps_a_held_jail_card() -> None:
    game = make_game(2, jail_cards={0: ["chance"]})
    inject_now(game, apply_novelty("card_amounts", STD, "medium"))
    (deck, card), = game.state.jail_cards[0]
    assert game.rules.decks[deck][card].kind == "get_out_of_jail"
    assert card not in game.state.decks[deck] and check_state(game.rules, game.state) == []


def test_deck_rebuild_is_deterministic() -> None:
    orders = []
    for _ in range(2):
        game = make_game(2, seed=11)
        inject_now(game, apply_novelty("deck_composition", STD, "hard"))
        orders.append([list(d) for d in game.state.decks])
    assert orders[0] == orders[1]


def test_jailed_player_stays_in_jail_on_the_new_jail_square() -> None:
    game = make_game(2, in_jail={1: 1}, position={0: "Jail"})
    inject_now(game, apply_novelty("jail_relocated", STD, "easy"))
    st, rules = game.state, game.rules
    assert rules.jail == 20 and st.in_jail[1] and st.position[1] == 20
    assert st.position[0] == 20  # just visiting: the Jail square moved, the player with it
    assert check_state(rules, st) == []


def test_refusals_leave_the_game_unchanged() -> None:
    game = make_game(2)
    game.winner = 0
    with pytest.raises(InjectionRefused, match="over"):
        inject_now(game, apply_novelty("rent_hike", STD, "easy"))
    alien = _alien()
    game = make_game(2)
    before = game.state.snapshot()
    with pytest.raises(InjectionRefused, match="no square"):
        inject_now(game, Applied(alien))
    assert game.state.snapshot() == before and game.schema.name == STD.name
    assert square_mapping(STD, alien) == [None] * 40


def _alien():
    """A 30-square board sharing no square name with the standard one."""
    return replace(STD, squares=tuple(
        replace(s, name=f"Y{i}", kind="free_parking" if s.kind == "card" else s.kind,
                deck=None) for i, s in enumerate(STD.squares[:30])), decks=())


def test_refused_scheduled_injection_is_reported_and_the_game_goes_on() -> None:
    alien = _alien()
    game = openmono.Game(STD, 4, seed=2)
    report = inject_mid_game(game, Applied(alien), at_turn=5)
    result = openmono.play_game(STD, [RandomAgent() for _ in range(4)], seed=2, game=game)
    assert report.refused and "no square" in report.refused and not report.done
    assert result.turns > 5 and game.schema is STD


def test_scheduled_injection_happens_after_at_turn_turns() -> None:
    schema = replace(STD, bank=replace(STD.bank, turn_limit=40))
    prepared = apply_novelty("go_salary", schema, "easy")
    game = openmono.Game(schema, 4, seed=5)
    report = inject_mid_game(game, prepared, at_turn=10)
    openmono.play_game(schema, [RandomAgent() for _ in range(4)], seed=5, game=game)
    assert report.done and report.turn == 10
    turn = 0
    for e in game.events:
        if type(e) is E.TurnStarted:
            turn = e.turn
        elif type(e) is E.Payment and e.reason == "go_salary":
            assert e.amount % (200 if turn <= 10 else 300) == 0, (turn, e)
    assert books_balance(game, 1500) == []


def test_new_rent_applies_from_the_next_turn() -> None:
    game = make_game(2, [(19, 20)], owner={"Boardwalk": 1})
    prepared = apply_novelty("rent_hike", game.schema, "easy")
    report = inject_mid_game(game, prepared)  # runs before the first turn
    play(game)
    assert report.done
    assert payments(game, "rent") == [(0, 1, 75, "rent", 39)]


def test_hook_novelties_keep_the_games_own_hooks() -> None:
    game = make_game(2, [(19, 20)], owner={"Boardwalk": 1})
    shown = game.public.public_schema
    inject_now(game, apply_novelty("rent_hike", game.schema, "medium"))
    assert game.hooks.dice_roll is not None and game.hooks.rent is not None
    assert isinstance(game.hooks.dice_roll, RiggedDice)
    play(game)
    assert payments(game, "rent") == [(0, 1, 150, "rent", 39)]
    assert game.public.public_schema == shown  # a hidden change: the board is unchanged


def test_a_hotel_is_never_upgraded_for_free() -> None:
    game = make_game(2, owner={"Park Place": 0, "Boardwalk": 0},
                     level={"Park Place": 5, "Boardwalk": 5})
    cash = list(game.state.cash)
    inject_now(game, apply_novelty("building_limit", STD, "hard"))  # 5 houses + hotel
    st = game.state
    assert st.level[sq("Boardwalk")] == st.level[sq("Park Place")] == 5  # five houses now
    assert game.rules.hotel_level == 6 and st.cash == cash and not _refunds(game)
    assert (st.houses_left, st.hotels_left) == (22, 12)
    assert check_state(game.rules, st) == []


def test_gnome_states_survive_a_repair_unchanged() -> None:
    """Under `rules=gnome` a street may be mortgaged beside built ones of its group
    (`mortgage_beside_buildings`), and a hotel sold whole leaves an empty lot beside
    hotels (`hotel_sale=whole`): both are states the rules reach, so a novelty that
    does not touch buildings repairs nothing in them."""
    gnome = openmono.gnome_schema()
    orange = {"St. James Place": 0, "Tennessee Avenue": 0, "New York Avenue": 0}
    light_blue = {"Oriental Avenue": 1, "Vermont Avenue": 1, "Connecticut Avenue": 1}
    levels = {"St. James Place": 5, "Tennessee Avenue": 5, "Oriental Avenue": 1,
              "Vermont Avenue": 1}
    game = make_game(2, schema=gnome, owner={**orange, **light_blue}, level=levels,
                     mortgaged=["Connecticut Avenue", "New York Avenue"])
    before = (list(game.state.level), list(game.state.mortgaged), list(game.state.cash))
    assert check_state(game.rules, game.state) == []
    inject_now(game, apply_novelty("rent_hike", game.schema, "easy"))
    st = game.state
    assert (list(st.level), list(st.mortgaged), list(st.cash)) == before
    assert not _refunds(game) and check_state(game.rules, st) == []
