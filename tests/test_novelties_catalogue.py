"""The built-in plugins do what their descriptions say (rigged positions and dice)."""

from __future__ import annotations

import random

from helpers import Scripted, make_game, of, payments, play
from hypothesis import given
from hypothesis import strategies as st

import openmono
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from novelties.catalogue.buildings import rent_table
from novelties.catalogue.rules import Borrow
from novelties.registry import apply_novelty
from openmono import actions as A
from openmono import events as E
from openmono import legal
from openmono.compiled import compile_rules
from openmono.actions import Build
from openmono.engine import Decision

STD = openmono.standard_schema()


def novelty_game(name: str, difficulty: str = "medium", rolls=(), params=None, **kw):
    """A rigged game (tests/helpers.make_game) under a novelty's schema and hooks."""
    prepared = apply_novelty(name, STD, difficulty, params)
    game = make_game(schema=prepared.schema, rolls=rolls, **kw)
    game.replace_rules(game.schema, prepared.hooks.combine(game.hooks))
    return game, prepared


def _random_game(name: str, difficulty: str, seed: int = 0, turn_limit: int = 200):
    prepared = apply_novelty(name, STD, difficulty)
    schema = prepared.schema.model_copy(update={"bank": prepared.schema.bank.model_copy(
        update={"turn_limit": turn_limit})})
    game = openmono.Game(schema, 4, seed=seed, hooks=prepared.hooks)
    result = openmono.play_game(schema, [RandomAgent() for _ in range(4)], seed=seed, game=game)
    return game, result


# --- attribute --------------------------------------------------------------------------------
def test_rent_hike_presets() -> None:
    easy = apply_novelty("rent_hike", STD, "easy").schema
    assert easy.squares[39].rent == (75, 300, 900, 2100, 2550, 3000)
    medium = apply_novelty("rent_hike", STD, "medium")
    assert medium.schema == STD and medium.hooks.rent is not None
    assert all(not c.visible for c in medium.changes) and len(medium.changes) == 28
    hard = apply_novelty("rent_hike", STD, "hard").schema
    assert hard.squares[1].rent == STD.squares[1].rent
    assert hard.squares[24].rent == tuple(2 * r for r in STD.squares[24].rent)


def test_hidden_rent_and_tax_are_charged_but_not_shown() -> None:
    game, _ = novelty_game("rent_hike", "medium", [(1, 0)], owner={"Mediterranean Avenue": 1})
    play(game)
    assert payments(game, "rent") == [(0, 1, 6, "rent", 1)]
    game, p = novelty_game("tax_amounts", "hard", [(3, 1)])
    play(game)
    assert payments(game, "tax") == [(0, -1, 600, "tax", 4)]
    assert game.public.public_schema["squares"][4]["tax"] == 200


def test_building_limit_tables() -> None:
    s = apply_novelty("building_limit", STD, "hard").schema  # five houses
    assert s.squares[39].rent == (50, 200, 600, 1400, 1700, 2000, 2500)
    assert compile_rules(s).hotel_level == 6
    s = apply_novelty("building_limit", STD, "easy").schema  # two houses, no hotel
    assert s.squares[39].rent == (50, 200, 600) and compile_rules(s).max_level == 2


@given(st.lists(st.integers(0, 3000), min_size=6, max_size=6).map(sorted),
       st.integers(1, 8), st.booleans())
def test_rent_table_shape(old, houses, hotel) -> None:
    new = rent_table(tuple(old), 4, True, houses, hotel)
    assert len(new) == houses + (2 if hotel else 1)
    assert list(new) == sorted(new) and new[0] == old[0]


def test_card_amounts_and_texts() -> None:
    easy = apply_novelty("card_amounts", STD, "easy").schema
    poor = next(c for c in easy.decks[0].cards if c.text.startswith("Pay poor tax"))
    assert poor.amount == 22 and "$22" in poor.text
    hard = apply_novelty("card_amounts", STD, "hard").schema
    poor = next(c for c in hard.decks[0].cards if c.text.startswith("Pay poor tax"))
    assert poor.amount == 45 and poor.text == "Pay poor tax of $15"
    repairs = next(c for c in hard.decks[1].cards if c.kind == "repairs")
    assert (repairs.per_house, repairs.per_hotel) == (120, 345)


def test_card_destinations_easy_moves_every_card_silently() -> None:
    s = apply_novelty("card_destinations", STD, "easy").schema
    for old_deck, new_deck in zip(STD.decks, s.decks):
        for old, new in zip(old_deck.cards, new_deck.cards):
            if old.kind == "advance_to":
                assert new.square != old.square and new.text == old.text


def test_deck_composition_is_hidden() -> None:
    p = apply_novelty("deck_composition", STD, "hard")
    assert p.schema.public_dict() == STD.public_dict()
    assert p.schema.decks != STD.decks and all(not c.visible for c in p.changes)


def test_dice_weights_bias_is_real() -> None:
    rules = compile_rules(apply_novelty("dice_weights", STD, "easy").schema)
    rng = random.Random(0)
    sixes = sum(rules.roll(rng)[0] == 6 for _ in range(3000)) / 3000
    assert 0.38 < sixes < 0.5  # 4/9 expected, 1/6 for a fair die


def test_monopoly_size_and_sellback() -> None:
    rules = compile_rules(apply_novelty("monopoly_size", STD, "easy").schema)
    game = make_game(2, owner={"Mediterranean Avenue": 0})
    assert legal.check_build(rules, game.state, 0, 1) is None
    rules = compile_rules(apply_novelty("sellback", STD, "hard").schema)
    assert legal.check_sell_property(rules, game.state, 0, 1) is None
    assert rules.building_refund[1] == 0


# --- class ------------------------------------------------------------------------------------
def test_toll_square_landing_and_passing() -> None:
    game, _ = novelty_game("toll_square", "medium", [(2, 3), (1, 3)], turns=2,
                           position={0: 15, 1: 17})
    play(game)
    assert payments(game, "toll") == [(0, -1, 100, "toll", 20), (1, -1, 25, "toll", 20)]


def test_jail_visit_fee_and_go_bonus() -> None:
    game, p = novelty_game("jail_visit_fee", "hard", [(2, 3)], position={0: 5})
    play(game)
    assert payments(game, "visit_fee") == [(0, -1, 100, "visit_fee", 10)]
    assert p.schema == STD  # hard: unannounced
    game, p = novelty_game("go_landing_bonus", "medium", [(2, 3)], position={0: 35})
    play(game)
    assert payments(game, "go_bonus") == [(-1, 0, 400, "go_bonus", 0)]
    assert p.schema.squares[0].params == {"landing_bonus": 400}


def test_wealth_tax_and_building_tax() -> None:
    game, _ = novelty_game("wealth_tax", "easy", [(1, 2)], position={0: 38}, cash={0: 1000})
    play(game)
    assert payments(game, "wealth_tax") == [(0, -1, 60, "wealth_tax", 0)]
    game, _ = novelty_game("building_tax", "medium", [(1, 2)], position={0: 1},
                           owner={"Mediterranean Avenue": 0, "Baltic Avenue": 0},
                           level={"Mediterranean Avenue": 2, "Baltic Avenue": 2})
    play(game)
    assert payments(game, "tax") == [(0, -1, 200 + 4 * 150, "tax", 4)]


def test_free_parking_jackpot() -> None:
    game, _ = novelty_game("free_parking_jackpot", "hard", [(3, 1), (2, 3)], turns=2,
                           position={1: 15})
    play(game)
    assert payments(game, "jackpot") == [(-1, 1, 200, "jackpot", 20)]


def test_no_rent_while_the_owner_is_in_jail() -> None:
    game, _ = novelty_game("no_rent_in_jail", "medium", [(19, 20)], owner={"Boardwalk": 1},
                           in_jail={1: 0})
    play(game)
    assert payments(game, "rent") == []


def test_dividend_card() -> None:
    game, _ = novelty_game("dividend_card", "medium", [(1, 1), (1, 2)],
                           owner={"Baltic Avenue": 0, "Boardwalk": 0, "Short Line": 0},
                           deck_top={"community_chest": ["Property dividend"],
                                     "chance": ["Bank pays you dividend"]})
    play(game)
    assert (-1, 0, 75, "card", -1) in payments(game, "card")


def test_auction_rules_and_trade_rules() -> None:
    game, _ = novelty_game("auction_rules", "hard", [(1, 2)])
    play(game)
    assert of(game, E.AuctionStarted) == []
    rules = compile_rules(apply_novelty("trade_rules", STD, "easy").schema)
    assert not legal.can_offer_trade(rules, make_game(2).state, 0, Decision("pre_roll"))


def test_building_moratorium() -> None:
    game, _ = novelty_game("building_moratorium", "hard",
                           owner={"Mediterranean Avenue": 0, "Baltic Avenue": 0})
    assert game.rules.building_allowed(game.rules, game.state, 0, 1) == (
        "no building before turn 20")
    # Agents learn that building is refused, never the plugin's parameter.
    assert legal.check_build(game.rules, game.state, 0, 1) == legal.PLUGIN_REFUSAL
    obs = game.observe(0, Decision("pre_roll"))
    assert obs.refused == {1, 3}
    assert obs.why_illegal(Build(1)) == legal.PLUGIN_REFUSAL
    assert Build(1) not in obs.legal_actions()
    assert "before turn" not in str(obs.to_json())
    game.state.turn = 20
    assert legal.check_build(game.rules, game.state, 0, 1) is None


def test_bank_loan_action() -> None:
    game, _ = novelty_game("bank_loan", "medium", cash={0: 100})
    d = Decision("pre_roll")
    assert game.observe(0, d).is_legal(Borrow())
    assert Borrow() in game.observe(0, d).legal_actions()
    assert not game.observe(1, d).is_legal(Borrow())  # holds 1500 >= 500
    standard = make_game(2, cash={0: 100})  # the action is registered, but not lent here
    assert legal.check(standard.rules, standard.state, 0, d, Borrow()) is not None
    assert Borrow() not in standard.observe(0, d).legal_actions()
    game, _ = _random_game("bank_loan", "hard", seed=1)
    reasons = [e.reason for e in of(game, E.Payment)]
    assert "loan" in reasons and "loan_repayment" in reasons
    loans = [e for e in of(game, E.Payment) if e.reason == "loan"]
    assert all(e.amount == 200 for e in loans)


def test_ending_rules() -> None:
    agents = [make_agent(n) for n in ("baseline", "baseline", "random", "random")]
    for name in ("wealth_victory", "monopoly_victory"):
        p = apply_novelty(name, STD, "easy")  # 3500 net worth; a single set
        game = openmono.Game(p.schema, 4, seed=0, hooks=p.hooks)
        result = openmono.play_game(p.schema, agents, seed=0, game=game)
        assert result.end_reason == "rule"
        if name == "wealth_victory":
            assert game.net_worths()[result.winner_seat] >= 3500


def test_dice_class_novelties() -> None:
    def rolls(name: str, difficulty: str) -> list[tuple[int, ...]]:
        game, _ = _random_game(name, difficulty, turn_limit=60)
        return [e.dice for e in of(game, E.DiceRolled)]

    assert all(len(r) == 4 for r in rolls("extra_die", "hard"))
    assert all(len(r) == 1 for r in rolls("fewer_dice", "hard"))
    assert all(sum(r) % 2 == 0 for r in rolls("odd_faces", "medium"))
    assert max(max(r) for r in rolls("more_sides", "hard")) > 6


# --- representation ---------------------------------------------------------------------------
def test_board_novelties_change_the_layout() -> None:
    shuffled = apply_novelty("board_shuffle", STD, "hard").schema
    assert shuffled.squares[0].name == "Go"
    assert sorted(s.name for s in shuffled.squares) == sorted(s.name for s in STD.squares)
    reassigned = apply_novelty("group_reassign", STD, "easy").schema
    for g in STD.groups:
        assert len(reassigned.group_members(g.name)) == len(STD.group_members(g.name))
    renamed = apply_novelty("renamed_properties", STD, "easy").schema
    old = {s.name for s in STD.squares if s.is_property}
    assert not old & {s.name for s in renamed.squares}
    extended = apply_novelty("board_extend", STD, "hard").schema
    assert len(extended.squares) == 52 and extended.squares[0].name == "Go"
    reverse = apply_novelty("board_reverse", STD, "hard").schema
    assert reverse.squares[1].name == "Boardwalk"


def test_board_stretch_landing_is_landing_on_the_square() -> None:
    game, p = novelty_game("board_stretch", "easy", [(19, 21)])
    assert p.schema.squares[40].name == "Boardwalk (2)"
    play(game, {0: Scripted(("buy", A.BUY))})
    assert game.state.position[0] == 40 and game.state.owner[39] == 0
    assert payments(game, "buy") == [(0, -1, 400, "buy", 39)]


def test_observation_transforms_hide_but_keep_legality() -> None:
    game, _ = novelty_game("hidden_opponent_cash", "hard", cash={0: 1234, 1: 987})
    obs = game.observe(0, Decision("pre_roll"))
    assert obs.cash == (1234, 900)
    game, _ = novelty_game("hidden_opponent_assets", "easy",
                           owner={"Boardwalk": 1, "Park Place": 0}, level={})
    obs = game.observe(0, Decision("pre_roll"))
    assert obs.owner[39] == -1 and obs.owner[37] == 0
    game, p = novelty_game("wrong_colours", "hard",
                           owner={"Mediterranean Avenue": 0, "Baltic Avenue": 0})
    obs = game.observe(0, Decision("pre_roll"))
    real = game.public
    assert obs.rules.group_of == real.group_of
    assert [obs.rules.group_names[g] for g in range(8)] != list(real.group_names[:8])
    assert obs.rules.public_schema["squares"][1]["group"] != "brown"
    assert real.public_schema["squares"][1]["group"] == "brown"
    assert obs.legal_actions() == legal.legal_actions(game.rules, game.state, 0, obs)


def test_hidden_opponent_moves_filters_events() -> None:
    game, _ = _random_game("hidden_opponent_moves", "hard", turn_limit=20)
    seen = []

    class Spy(RandomAgent):
        def act(self, obs):
            seen.extend((obs.seat, e) for e in obs.events)
            return super().act(obs)

    p = apply_novelty("hidden_opponent_moves", STD, "hard")
    openmono.play_game(game.schema, [Spy() for _ in range(4)], seed=0, hooks=p.hooks)
    hidden = ("dice_rolled", "card_drawn", "moved")
    assert seen and all(e.seat == s for s, e in seen if e.kind in hidden)
