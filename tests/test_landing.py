"""The planner's landing model: exact checks, an independent oracle, and the real engine."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import openmono
from agents.planner import landing as L
from openmono.engine import Game
from openmono.hooks import Hooks
from openmono.legal import DEFAULT_ACTION
from openmono.schema import BankRules, Card, Deck, Die, GameSchema, Group, Square

STD = openmono.standard_schema()


def _with(schema: GameSchema, **bank: object) -> GameSchema:
    return schema.model_copy(update={"bank": schema.bank.model_copy(update=bank)})


def _plain_board(schema: GameSchema) -> GameSchema:
    """Cards and go-to-jail replaced by free parking; doubles do not roll again."""
    squares = tuple(
        s.model_copy(update={"kind": "free_parking", "deck": None})
        if s.kind in ("card", "go_to_jail") else s
        for s in schema.squares
    )
    return GameSchema.model_validate(
        schema.model_copy(update={"squares": squares, "decks": (),
                                  "bank": schema.bank.model_copy(
                                      update={"doubles_roll_again": False})}).model_dump())


def _board(n: int, dice: tuple[Die, ...] = (Die(), Die()), **bank: object) -> GameSchema:
    """A small board of n squares with jail, go-to-jail, two card squares and railroads."""
    kinds = ["free_parking"] * n
    kinds[0], kinds[n // 4], kinds[3 * n // 4] = "go", "jail", "go_to_jail"
    kinds[2], kinds[n // 2] = "card", "card"
    kinds[1], kinds[n // 2 + 1] = "railroad", "railroad"
    squares = []
    for i, k in enumerate(kinds):
        extra: dict[str, object] = {}
        if k == "card":
            extra = {"deck": "d"}
        elif k == "railroad":
            extra = {"group": "rr", "price": 200, "rent": (25, 50)}
        squares.append(Square(name=f"s{i}", kind=k, **extra))
    deck = Deck(name="d", cards=(
        Card(text="go", kind="advance_to", square="s0"),
        Card(text="rr", kind="advance_to_nearest", target_kind="railroad", count=2),
        Card(text="back", kind="move_back", amount=3),
        Card(text="jail", kind="go_to_jail"),
        Card(text="cash", kind="collect", amount=10, count=3),
    ))
    return GameSchema(squares=tuple(squares), groups=(Group(name="rr"),), dice=dice,
                      decks=(deck,), bank=BankRules(**bank))


SCHEMAS = {
    "standard": STD,
    "three_dice": STD.model_copy(update={"dice": (Die(), Die(), Die())}),
    "weighted": STD.model_copy(update={"dice": (Die(weights=(3, 1, 1, 1, 1, 2)), Die())}),
    "odd_faces": STD.model_copy(update={"dice": (Die(faces=(1, 3, 5)), Die(faces=(1, 3, 5)))}),
    "board30": _board(30),
    "one_die": _board(30, dice=(Die(faces=(1, 2, 3, 4, 5, 6, 7, 8)),), max_jail_turns=2),
    "unlimited_doubles": _with(STD, doubles_to_jail=0),
    "one_double_jails": _with(STD, doubles_to_jail=1, max_jail_turns=1),
}


# --- the standard game ---------------------------------------------------------------
def test_standard_stationary_jail_first_illinois_top_property() -> None:
    pi = L.stationary_distribution(STD)
    jail, illinois, gtj = (STD.index_of(x) for x in ("Jail", "Illinois Avenue", "Go To Jail"))
    assert int(np.argmax(pi)) == jail
    props = [i for i, s in enumerate(STD.squares) if s.is_property]
    assert max(props, key=lambda i: pi[i]) == illinois
    assert pi.sum() == pytest.approx(1.0)
    assert pi[gtj] == pytest.approx(0.0, abs=1e-12)  # turns never end there
    # Per turn with the long stay: ~0.046 jailings a turn, each ending ~2.53 turns in jail,
    # plus ~0.02 just visiting.
    assert 0.12 < pi[jail] < 0.14
    assert 0.028 < pi[illinois] < 0.032
    assert 0.027 < pi[STD.index_of("Go")] < 0.031
    # Card squares lose most of their turn ends to the cards.
    assert pi[STD.index_of("Chance 1")] < 0.012


def test_standard_short_jail_and_per_roll_measures() -> None:
    jail, illinois = STD.index_of("Jail"), STD.index_of("Illinois Avenue")
    short = L.stationary_distribution(STD, stay_in_jail=False)
    assert 0.06 < short[jail] < 0.10  # the published short-stay range
    assert 0.028 < short[illinois] < 0.034
    roll = L.stationary_distribution(STD, per="roll")
    assert 0.10 < roll[jail] < 0.13 and 0.028 < roll[illinois] < 0.032
    landing = L.stationary_distribution(STD, per="landing")
    assert landing[STD.index_of("Go To Jail")] > 0.02  # moves do end there
    assert int(np.argmax(landing)) == illinois
    for pi in (short, roll, landing):
        assert pi.sum() == pytest.approx(1.0) and pi.min() >= 0.0


def test_uniform_without_cards_jail_or_doubles() -> None:
    plain = _plain_board(STD)
    assert np.allclose(L.stationary_distribution(plain), 1 / 40, atol=1e-12)
    assert np.allclose(L.landing_probabilities(plain, 0, 250)[-1], 1 / 40, atol=1e-6)
    assert np.allclose(L.landing_probabilities(plain, 17, 250)[-1], 1 / 40, atol=1e-6)
    # One turn is one roll of 2d6 here.
    first = L.landing_probabilities(plain, 0, 1)[0]
    assert first[7] == pytest.approx(6 / 36) and first[2] == pytest.approx(1 / 36)
    assert first[1] == 0.0


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_rows_sum_to_one(name: str) -> None:
    schema = SCHEMAS[name]
    model = L.landing_model(schema)
    assert np.allclose(model.P.sum(axis=1), 1.0) and model.P.min() >= 0.0
    n = len(schema.squares)
    for start in (0, 1, n // 2, n - 1):
        lp = L.landing_probabilities(schema, start, 6)
        assert lp.shape == (6, n)
        assert np.allclose(lp.sum(axis=1), 1.0) and lp.min() >= -1e-15
        vp = L.visit_probabilities(schema, start, 6)
        assert vp.shape == (6, n) and vp.min() >= -1e-15
        assert np.all(vp.sum(axis=1) > 0.5)
    for j in range(schema.bank.max_jail_turns):
        lp = L.landing_probabilities(schema, 0, 4, jail_turns=j)
        assert np.allclose(lp.sum(axis=1), 1.0)
    pi = L.stationary_distribution(schema)
    assert pi.sum() == pytest.approx(1.0)
    pi_states = L._stationary_states(model)  # invariant, and folds to the public vector
    assert np.allclose(pi_states @ model.P, pi_states, atol=1e-12)
    assert np.allclose(model.fold(pi_states), pi)


# --- exact small cases ----------------------------------------------------------------
def test_deterministic_single_die_walks() -> None:
    schema = _board(12, dice=(Die(faces=(1,)),))
    schema = schema.model_copy(update={"squares": tuple(
        s.model_copy(update={"kind": "free_parking", "deck": None})
        if s.kind in ("card", "go_to_jail") else s for s in schema.squares)})
    lp = L.landing_probabilities(schema, 0, 5)
    assert np.array_equal(lp, np.eye(12)[1:6])
    assert np.array_equal(L.visit_probabilities(schema, 0, 5), np.eye(12)[1:6])


def test_third_double_goes_to_jail_without_moving() -> None:
    # Dice that always roll a double of 1s: two moves of 2, then jail.
    schema = _board(40, dice=(Die(faces=(1,)), Die(faces=(1,))))
    jail = schema.index_of("s10")
    first = L.landing_probabilities(schema, 20, 1)[0]
    assert first[jail] == pytest.approx(1.0)
    visits = L.visit_probabilities(schema, 20, 1)[0]
    assert visits[22] == pytest.approx(1.0) and visits[24] == pytest.approx(1.0)
    assert visits.sum() == pytest.approx(2.0)
    # In jail, doubles free it at once: it moves 2 and the turn ends there.
    out = L.landing_probabilities(schema, 0, 1, jail_turns=0)[0]
    assert out[jail + 2] == pytest.approx(1.0)
    # Mid-turn after two doubles: the next roll is the third double.
    mid = L.landing_probabilities(schema, 20, 1, doubles=2)[0]
    assert mid[jail] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        L.landing_probabilities(schema, 20, 1, doubles=3)


def test_long_jail_stay_with_one_die() -> None:
    # One die never rolls doubles: three turns end in jail, the third attempt moves.
    schema = _board(40, dice=(Die(faces=(2,)),), max_jail_turns=3)
    jail = schema.index_of("s10")
    lp = L.landing_probabilities(schema, 0, 3, jail_turns=0)
    assert lp[0, jail] == 1.0 and lp[1, jail] == 1.0 and lp[2, jail + 2] == 1.0
    assert L.visit_probabilities(schema, 0, 3, jail_turns=0)[:2].sum() == 0.0
    short = L.landing_probabilities(schema, 0, 1, jail_turns=0, stay_in_jail=False)
    assert short[0, jail + 2] == 1.0


def test_roll_distribution_weighted_and_three_dice() -> None:
    rd = L.roll_distribution(STD.model_copy(update={"dice": (Die(), Die(), Die())}))
    assert sum(a + b for a, b in rd.values()) == pytest.approx(1.0)
    assert rd[3] == pytest.approx((0.0, 1 / 216)) and rd[4][1] == 0.0
    w = L.roll_distribution(STD.model_copy(update={
        "dice": (Die(faces=(1, 2), weights=(3, 1)), Die(faces=(1, 2), weights=(1, 1)))}))
    assert w[2] == pytest.approx((0.0, 3 / 8)) and w[3] == pytest.approx((1 / 2, 0.0))
    assert w[4] == pytest.approx((0.0, 1 / 8))


# --- an independent oracle: forward enumeration of dice and cards ----------------------
def _oracle_turn(schema: GameSchema, pos: int, jail_turns: int | None):
    """Exact turn outcome by enumerating every roll, following the engine's rules."""
    rules = openmono.compile_rules(schema)
    n, jail, bank = rules.n, rules.jail, schema.bank
    faces = [list(zip(d.faces, d.weights or (1,) * len(d.faces))) for d in schema.dice]
    rolls = []
    for combo in itertools.product(*faces):
        p = float(np.prod([w / sum(x for _, x in f) for (_, w), f in zip(combo, faces)]))
        vals = [v for v, _ in combo]
        rolls.append((sum(vals), len(vals) > 1 and min(vals) == max(vals), p))
    ends: dict[object, float] = {}
    visits = np.zeros(n)

    def land(sq: int, p: float) -> list[tuple[object, float]]:
        visits[sq] += p
        kind = rules.kind_names[sq]
        if kind == "go_to_jail":
            return [("J", p)]
        if kind != "card":
            return [(sq, p)]
        out: list[tuple[object, float]] = []
        cards = rules.decks[rules.deck_of[sq]]
        for c in cards:
            q = p / len(cards)
            if c.kind == "advance_to":
                out += land(c.square, q)
            elif c.kind == "advance_to_nearest":
                out += land(rules.nearest[c.target_kind][sq], q)
            elif c.kind == "move_back":
                out += land((sq - c.amount) % n, q)
            elif c.kind == "go_to_jail":
                out.append(("J", q))
            else:
                out.append((sq, q))
        return out

    def add(key: object, p: float) -> None:
        ends[key] = ends.get(key, 0.0) + p

    if jail_turns is not None:
        for total, double, p in rolls:
            if double or jail_turns + 1 >= bank.max_jail_turns:
                for where, q in land((jail + total) % n, p):
                    add(where, q)
            else:
                add(("J", jail_turns + 1), p)
        return ends, visits

    frontier = {pos: 1.0}  # free squares with a roll to come, after `doubles` doubles
    doubles = 0
    while frontier and sum(frontier.values()) > 1e-13 and doubles < 2000:
        nxt: dict[int, float] = {}
        for at, p in frontier.items():
            for total, double, q in rolls:
                pq = p * q
                if not (double and bank.doubles_roll_again):
                    for where, r in land((at + total) % n, pq):
                        add(where, r)
                elif bank.doubles_to_jail and doubles + 1 >= bank.doubles_to_jail:
                    add("J", pq)
                else:
                    for where, r in land((at + total) % n, pq):
                        if where == "J":
                            add("J", r)
                        else:
                            nxt[where] = nxt.get(where, 0.0) + r
        frontier = nxt
        doubles += 1
    return ends, visits


def _as_states(model: L.LandingModel, ends: dict[object, float]) -> np.ndarray:
    v = np.zeros(model.size)
    for key, p in ends.items():
        if key == "J":
            v[model.n] += p
        elif isinstance(key, tuple):
            v[model.n + key[1]] += p
        else:
            v[key] += p
    return v


@pytest.mark.parametrize("name", ["standard", "board30", "weighted", "one_double_jails"])
def test_matches_oracle_on_every_start_state(name: str) -> None:
    schema = SCHEMAS[name]
    model = L.landing_model(schema)
    starts = [(s, None) for s in range(0, model.n, 3)] + [
        (0, j) for j in range(model.max_jail)]
    for pos, jt in starts:
        ends, visits = _oracle_turn(schema, pos, jt)
        s = model.state(pos, jt)
        assert np.allclose(model.P[s], _as_states(model, ends), atol=1e-12)
        assert np.allclose(model.W[s], visits, atol=1e-12)


def test_two_turns_match_oracle() -> None:
    model = L.landing_model(STD)
    ends, visits = _oracle_turn(STD, 7, None)
    v1 = _as_states(model, ends)
    second = np.zeros(model.size)
    second_visits = np.zeros(model.n)
    for s in np.flatnonzero(v1):
        pos, jt = (s, None) if s < model.n else (0, s - model.n)
        e, w = _oracle_turn(STD, pos, jt)
        second += v1[s] * _as_states(model, e)
        second_visits += v1[s] * w
    assert np.allclose(L.landing_probabilities(STD, 7, 2)[1], model.fold(second), atol=1e-12)
    vp = L.visit_probabilities(STD, 7, 2)
    assert np.allclose(vp[0], visits, atol=1e-12) and np.allclose(vp[1], second_visits)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(12, 48),
    dice=st.lists(st.tuples(st.lists(st.integers(0, 7), min_size=1, max_size=6, unique=True),
                            st.booleans()), min_size=1, max_size=3),
    again=st.booleans(),
    to_jail=st.integers(0, 3),
    max_jail=st.integers(1, 3),
    stay=st.booleans(),
)
def test_random_rules_are_distributions(n, dice, again, to_jail, max_jail, stay) -> None:
    dies = tuple(Die(faces=tuple(f), weights=tuple(range(1, len(f) + 1)) if w else None)
                 for f, w in dice)
    schema = _board(n, dice=dies, doubles_roll_again=again, doubles_to_jail=to_jail,
                    max_jail_turns=max_jail)
    pd = sum(b for _, b in L.roll_distribution(schema).values())
    assume(not (again and to_jail == 0 and pd > 0.999))
    model = L.landing_model(schema, stay_in_jail=stay)
    assert np.allclose(model.P.sum(axis=1), 1.0) and model.P.min() >= -1e-12
    lp = L.landing_probabilities(schema, n - 1, 4, stay_in_jail=stay)
    assert np.allclose(lp.sum(axis=1), 1.0)
    pi = L.stationary_distribution(schema, stay_in_jail=stay)
    assert pi.sum() == pytest.approx(1.0) and pi.min() >= -1e-12
    assert pi[3 * n // 4] == pytest.approx(0.0, abs=1e-12)  # go-to-jail: no turn ends there
    ends, visits = _oracle_turn(schema, 1, None)
    assert np.allclose(model.P[1], _as_states(model, ends), atol=1e-9)
    assert np.allclose(model.W[1], visits, atol=1e-9)


# --- caching -------------------------------------------------------------------------------
def test_cache_follows_the_movement_rules_only() -> None:
    model = L.landing_model(STD)
    assert L.landing_model(STD) is model
    richer = STD.model_copy(update={"bank": STD.bank.model_copy(update={"go_salary": 400})})
    assert L.landing_model(richer) is model  # salary does not move anyone
    loaded = GameSchema.model_validate_json(STD.model_dump_json())
    assert L.landing_model(loaded) is model
    assert L.landing_model(SCHEMAS["three_dice"]) is not model
    assert L.landing_model(_with(STD, max_jail_turns=2)) is not model
    assert L.landing_model(STD, stay_in_jail=False) is not model
    a = L.landing_probabilities(STD, 0, 5)
    assert L.landing_probabilities(STD, 0, 5) is a and not a.flags.writeable


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        L.landing_probabilities(STD, 40, 2)
    with pytest.raises(ValueError):
        L.landing_probabilities(STD, 0, 2, jail_turns=3)
    with pytest.raises(ValueError):
        L.stationary_distribution(STD, per="week")
    looping = _board(20).model_copy(update={"decks": (Deck(name="d", cards=(
        Card(text="stay", kind="move_back", amount=0),)),)})
    with pytest.raises(ValueError):  # the card lands the player on the card again
        L.landing_model(looping)


# --- the real engine -------------------------------------------------------------------------
def _no_keeping(schema: GameSchema) -> GameSchema:
    """Get-out-of-jail cards (kept forever by agents that never use them) made no-ops, so
    the decks the engine draws from keep the composition the model assumes."""
    decks = tuple(d.model_copy(update={"cards": tuple(
        Card(text=c.text, kind="collect", amount=0) if c.kind == "get_out_of_jail" else c
        for c in d.cards)}) for d in schema.decks)
    return _with(schema.model_copy(update={"decks": decks}), starting_cash=10**9,
                 out_of_turn_rounds=0, auction_on_decline=False)


def _engine_turn_ends(schema: GameSchema, games: int, turns: int) -> np.ndarray:
    """Per game: the share of turns ending on each square (2 always-concluding players)."""
    n = len(schema.squares)
    jail = schema.index_of(next(s.name for s in schema.squares if s.kind == "jail"))
    counts = np.zeros((games, n))
    current = [np.zeros(n)]

    def end(game: Game, p: int) -> None:
        st_ = game.state
        current[0][jail if st_.in_jail[p] else st_.position[p]] += 1

    rigged = _with(schema, turn_limit=turns)
    for g in range(games):
        current[0] = counts[g]
        game = Game(rigged, players=2, seed=1000 + g, hooks=Hooks(end_of_turn=end))
        run = game.run()
        try:
            _, d = next(run)
            while True:
                _, d = run.send(DEFAULT_ACTION[d.phase])
        except StopIteration:
            pass
        assert counts[g].sum() == turns
    return counts / turns


@pytest.mark.parametrize("name,games,turns", [("standard", 100, 2000), ("board30", 20, 2000)])
def test_engine_monte_carlo_agrees(name: str, games: int, turns: int) -> None:
    schema = _no_keeping(SCHEMAS[name])
    freq = _engine_turn_ends(schema, games, turns)
    mean = freq.mean(axis=0)
    se = freq.std(axis=0, ddof=1) / np.sqrt(games)
    # Exact expectation of the same statistic: both players start on Go.
    expected = L.landing_probabilities(schema, 0, turns // 2).mean(axis=0)
    z = np.abs(mean - expected) / np.maximum(se, 1e-4)
    assert z.max() < 5.0, (z.max(), int(z.argmax()))
    # The check has power: jail is resolved to a few parts in a thousand.
    assert se.max() < 0.003
