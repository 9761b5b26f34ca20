"""The rare-trigger plugins (docs/novelties.md lists them) act exactly in their one
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


def _first_observation():
    """(seat, observation) of the first decision of a seeded four-player game."""
    game = openmono.Game(STD, 4, seed=3)
    seat, decision = next(game.run())
    return seat, game.observe(seat, decision)


# --- class ------------------------------------------------------------------------------
def test_rich_salary_cuts_the_salary_only_above_the_cash_level() -> None:
    for cash, salary in ((2501, []), (2500, [200])):  # hard: nothing above 2500
        game, _ = novelty_game("rich_salary", "hard", [(1, 3)], cash={0: cash},
                               position={0: 39})
        play(game)
        assert [p[2] for p in payments(game, "go_salary")] == salary, cash
    game, _ = novelty_game("rich_salary", "medium", [(1, 3)], cash={0: 2001}, position={0: 39})
    play(game)
    assert [p[2] for p in payments(game, "go_salary")] == [100]  # medium: half above 2000


def test_rich_salary_easy_pays_nothing_to_the_rich() -> None:
    game, _ = novelty_game("rich_salary", "easy", [(1, 3)], cash={0: 1501}, position={0: 39})
    play(game)
    assert payments(game, "go_salary") == []
    assert game.state.cash[0] == 1501


def test_railroad_salary_pays_more_only_to_a_holder_of_every_railroad() -> None:
    rails = ("Reading Railroad", "Pennsylvania Railroad", "B. & O. Railroad", "Short Line")
    for held, salary in ((4, 250), (3, 200)):
        game, _ = novelty_game("railroad_salary", "hard", [(1, 3)], position={0: 39},
                               owner={r: 0 for r in rails[:held]})
        play(game)
        assert [p[2] for p in payments(game, "go_salary")] == [salary], held


def test_wealth_tax_hard_taxes_only_a_net_worth_above_its_level() -> None:
    for cash, tax in ((9500, True), (8700, None)):  # + the salary of 200 at the end of the turn
        game, _ = novelty_game("wealth_tax", "hard", [(1, 2)], position={0: 38},
                               cash={0: cash})
        play(game)
        paid = payments(game, "wealth_tax")
        assert paid == ([] if tax is None else [(0, BANK, int((cash + 200) * 0.5),
                                                  "wealth_tax", 0)]), cash


def test_hotel_upkeep_charges_a_holder_of_nine_hotels_each_turn() -> None:
    streets = [s.name for s in STD.squares if s.kind == "street"]
    for hotels, fee in ((9, [1500]), (8, [])):
        game, _ = novelty_game("hotel_upkeep", "hard", [(1, 2)], position={0: 0},
                               owner={s: 0 for s in streets},
                               level={s: 5 for s in streets[:hotels]})
        play(game)
        assert [p[2] for p in payments(game, "hotel_upkeep")] == fee, hotels


def _build_once(name: str, difficulty: str, streets: tuple[str, ...], start: int):
    owner = {s: 0 for s in streets}
    game, _ = novelty_game(name, difficulty, [(1, 2)], owner=owner,
                           level={s: start for s in streets})
    agent = Scripted(("pre_roll", Build(STD.index_of(streets[0]))))
    play(game, {0: agent})
    assert game.state.level[STD.index_of(streets[0])] == start + 1
    return game


def test_hotel_permit_charges_a_hotel_on_its_group_only() -> None:
    game = _build_once("hotel_permit", "hard", GREEN, 4)  # a hotel on green
    assert payments(game, "hotel_permit") == [(0, BANK, 25, "hotel_permit", -1)]
    game = _build_once("hotel_permit", "hard", GREEN, 3)  # a fourth house: no permit
    assert payments(game, "hotel_permit") == []
    game = _build_once("hotel_permit", "hard", YELLOW, 4)  # a hotel elsewhere
    assert payments(game, "hotel_permit") == []
    game = _build_once("hotel_permit", "medium", YELLOW, 4)  # medium: yellow
    assert payments(game, "hotel_permit") == [(0, BANK, 25, "hotel_permit", -1)]
    game = _build_once("hotel_permit", "easy", GREEN, 4)  # easy: every group
    assert payments(game, "hotel_permit") == [(0, BANK, 100, "hotel_permit", -1)]


def test_rare_rules_are_hidden_and_name_their_entities() -> None:
    for name in ("rich_salary", "hotel_permit"):
        p = apply_novelty(name, STD, "hard")
        assert p.schema == STD and p.changes and not any(c.visible for c in p.changes)
    assert [c.entity for c in apply_novelty("hotel_permit", STD, "hard").changes] == \
        ["group:green"]


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
    seat, obs = _first_observation()
    assert p.hooks.observation(obs) is obs
    rich = obs._replace(cash=(4000, 5000, 3001, 10))
    assert p.hooks.observation(rich).cash == (4000, 3000, 3000, 10)


def test_rounded_rich_cash_rounds_only_opponents_above_the_level() -> None:
    p = apply_novelty("rounded_rich_cash", STD, "hard")
    seat, obs = _first_observation()
    assert p.hooks.observation(obs) is obs
    cash = [3050, 3050, 3000, 2999]
    others = [s for s in range(4) if s != seat]
    shown = p.hooks.observation(obs._replace(cash=tuple(cash))).cash
    assert shown[seat] == cash[seat]  # its own cash: never altered
    assert [shown[s] for s in others] == [
        3000 if cash[s] > 3000 else cash[s] for s in others]


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


RAILROADS = ("Reading Railroad", "Pennsylvania Railroad", "B. & O. Railroad",
             "Short Line")


def test_hidden_railroad_set_shows_an_opponents_fourth_railroad_unowned() -> None:
    for held in (4, 3, 2):
        owner = {r: 1 for r in RAILROADS[:held]}
        game, _ = novelty_game("hidden_railroad_set", "hard", [(1, 2), (1, 2)], turns=2,
                               owner=owner, mortgaged={RAILROADS[held - 1]: True})
        seats = {s: Scripted() for s in range(2)}
        play(game, seats)
        rails = [STD.index_of(r) for r in RAILROADS]
        seen = seats[0].seen[0]
        if held == 4:  # the last one on the board is shown unowned, and unmortgaged
            assert tuple(seen.owner[r] for r in rails) == (1, 1, 1, -1)
            assert not seen.mortgaged[rails[3]]
        else:  # fewer than four: shown as they are
            assert tuple(seen.owner[r] for r in rails) == tuple(
                1 if i < held else -1 for i in range(4)), held
        assert tuple(seats[1].seen[0].owner[r] for r in rails)[:held] == (1,) * held  # its own
        assert game.state.owner[rails[held - 1]] == 1  # the game itself is unchanged


def test_late_hidden_cards_leaves_out_opponents_draws_from_its_turn_on() -> None:
    p = apply_novelty("late_hidden_cards", STD, "hard")
    seat, obs = _first_observation()
    from openmono.events import CardDrawn, TurnStarted
    other = (seat + 1) % 4
    draws = (TurnStarted(other, 199), CardDrawn(other, "chance", 3, "text"),
             CardDrawn(seat, "chance", 4, "mine"))
    early = obs._replace(turn=199, events=draws)
    assert p.hooks.observation(early) is early
    late = obs._replace(turn=200, events=draws)
    assert p.hooks.observation(late).events == (draws[0], draws[2])  # its own draw stays
    quiet = obs._replace(turn=250, events=draws[:1])
    assert p.hooks.observation(quiet) is quiet


def test_capped_opponent_rents_shows_a_big_rent_between_opponents_smaller() -> None:
    from openmono.events import Payment
    p = apply_novelty("capped_opponent_rents", STD, "hard")
    seat, obs = _first_observation()
    a, b = (seat + 1) % 4, (seat + 2) % 4
    events = (Payment(a, b, 1400, "rent", 39), Payment(a, seat, 1400, "rent", 37),
              Payment(a, b, 1000, "rent", 39), Payment(a, BANK, 1400, "tax", 4))
    shown = p.hooks.observation(obs._replace(events=events)).events
    assert [e.amount for e in shown] == [1000, 1400, 1000, 1400]  # only between opponents
    quiet = obs._replace(events=events[1:])
    assert p.hooks.observation(quiet) is quiet


def test_hidden_jail_card_pair_hides_the_second_card_of_the_next_opponent() -> None:
    p = apply_novelty("hidden_jail_card_pair", STD, "hard")
    seat, obs = _first_observation()
    nxt, other = (seat + 1) % 4, (seat + 2) % 4
    cards = [0, 0, 0, 0]
    cards[seat], cards[nxt], cards[other] = 2, 2, 2
    shown = p.hooks.observation(obs._replace(jail_cards=tuple(cards))).jail_cards
    assert (shown[seat], shown[nxt], shown[other]) == (2, 1, 2)  # the next opponent only
    cards[nxt] = 1
    one = obs._replace(jail_cards=tuple(cards))
    assert p.hooks.observation(one) is one
    medium = apply_novelty("hidden_jail_card_pair", STD, "medium")
    cards[nxt] = 2
    shown = medium.hooks.observation(obs._replace(jail_cards=tuple(cards))).jail_cards
    assert (shown[seat], shown[nxt], shown[other]) == (2, 1, 1)


def test_late_hidden_trades_leaves_out_trades_between_opponents_from_its_turn_on() -> None:
    from openmono.actions import OfferTrade
    from openmono.events import Payment, PropertyTransferred, TradeAnswered, TradeOffered
    p = apply_novelty("late_hidden_trades", STD, "hard")
    seat, obs = _first_observation()
    a, b = (seat + 1) % 4, (seat + 2) % 4
    theirs = OfferTrade(to=b, give=(39,), get_cash=400)
    mine = OfferTrade(to=seat, give=(37,), get_cash=300)
    events = (TradeOffered(theirs, a), TradeAnswered(theirs, a, True), Payment(b, a, 400, "trade"),
              PropertyTransferred(39, a, b, "trade"), TradeOffered(mine, a),
              Payment(a, b, 50, "rent", 39))
    early = obs._replace(turn=129, events=events)
    assert p.hooks.observation(early) is early
    shown = p.hooks.observation(obs._replace(turn=130, events=events)).events
    assert shown == events[4:]  # an offer to the agent and a rent stay


# --- attribute ----------------------------------------------------------------------------
def test_repair_costs_hard_charges_more_per_hotel_only() -> None:
    p = apply_novelty("repair_costs", STD, "hard")
    cc = {d.name: d for d in p.schema.decks}["community_chest"]
    old = {d.name: d for d in STD.decks}["community_chest"]
    [(new, before)] = [(c, b) for c, b in zip(cc.cards, old.cards) if c != b]
    assert (new.per_house, new.per_hotel, new.text) == (40, 150, before.text)
    chance = {d.name: d for d in p.schema.decks}["chance"]
    assert chance == {d.name: d for d in STD.decks}["chance"]
    easy = apply_novelty("repair_costs", STD, "easy").schema
    texts = [c.text for d in easy.decks for c in d.cards if c.kind == "repairs"]
    assert texts == ["Make general repairs on all your property: for each house pay $50, "
                     "for each hotel $150",
                     "You are assessed for street repairs: $50 per house, $150 per hotel"]


def test_repair_costs_charge_a_hotel_holder_drawing_the_card() -> None:
    """A rigged draw of the repairs card by a seat with one hotel and two houses."""
    streets = ("Atlantic Avenue", "Ventnor Avenue", "Marvin Gardens")
    for difficulty, paid in (("hard", 2 * 40 + 150), ("medium", 2 * 50 + 115),
                             ("easy", 2 * 50 + 150)):
        game, _ = novelty_game("repair_costs", difficulty, [(1, 2)],
                               owner={s: 0 for s in streets},
                               level={streets[0]: 5, streets[1]: 1, streets[2]: 1},
                               position={0: 14}, cash={0: 2000},
                               deck_top={"community_chest": ["You are assessed"]})
        play(game)
        assert [p[2] for p in payments(game, "card")] == [paid], difficulty
def test_cash_cap_ends_the_game_after_a_turn_above_the_cap() -> None:
    for cash, reason in ((2801, "cash_cap"), (2800, "turn_limit")):
        game, p = novelty_game("cash_cap", "hard", [(1, 3), (1, 2)], turns=2,
                               cash={0: cash}, position={0: 39})
        assert p.schema.bank.cash_cap == 3000
        result = play(game, all_dice=reason != "cash_cap")
        assert result.end_reason == reason, cash
        assert game.state.turn == (1 if reason == "cash_cap" else 2)


def test_hotel_victory_ends_the_game_at_the_ninth_hotel() -> None:
    streets = [s.name for s in STD.squares if s.kind == "street"]
    for hotels, reason in ((9, "rule"), (8, "turn_limit")):
        game, _ = novelty_game("hotel_victory", "hard", [(1, 2)], position={0: 0},
                               owner={s: 0 for s in streets[:11]} | {s: 1 for s in streets[11:]},
                               level={s: 5 for s in streets[:hotels]})
        result = play(game)
        assert (result.end_reason, result.winner_seat) == (reason, 0), hotels
    # A rival's hotels do not count towards the holder's.
    game, _ = novelty_game("hotel_victory", "hard", [(1, 2)], position={0: 0},
                           owner={s: 0 if i % 2 else 1 for i, s in enumerate(streets)},
                           level={s: 5 for s in streets[:16]})
    assert play(game).end_reason == "turn_limit"


# --- attribute: the turn limit ------------------------------------------------------------
def _baseline_game(schema, seed: int):
    from agents.baseline import BaselineAgent

    game = openmono.Game(schema, 4, seed=seed)
    result = openmono.play_game(schema, [BaselineAgent() for _ in range(4)], seed=seed,
                                shuffle_seats=False, game=game)
    return game, result


def test_turn_limit_ends_a_long_game_at_its_turn_and_leaves_a_short_one_alone() -> None:
    from novelties.observability import shown_schema

    p = apply_novelty("turn_limit", STD, "hard")
    assert p.schema.bank.turn_limit == 200
    assert shown_schema(STD, p.schema).bank.turn_limit == 1000  # effects: the old limit shown
    _, long_result = _baseline_game(STD, 6)  # 210 turns, a bankruptcy ends it
    assert long_result.turns > 200 and long_result.end_reason != "turn_limit"
    game, result = _baseline_game(p.schema, 6)
    assert (result.turns, result.end_reason) == (200, "turn_limit")
    worth = game.net_worths()
    assert worth[result.winner_seat] == max(w for s, w in enumerate(worth) if game.state.active[s])
    short_std, short_result = _baseline_game(STD, 0)
    assert short_result.turns < 200
    game, result = _baseline_game(p.schema, 0)
    assert game.events == short_std.events  # a game the limit never reaches is unchanged
