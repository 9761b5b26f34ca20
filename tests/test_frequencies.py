"""Long-run square frequencies on the standard board match the Markov-chain results.

Four players who never build, never trade and never leave jail early (the "stay in
jail" strategy) play long games with cash enough never to go broke, and the position
of the player who just rolled is counted at every post-roll decision (one count per
roll). The published Markov-chain facts must hold: Jail (in jail plus just visiting)
is by far the most frequent square, Illinois Avenue is the most frequent property, a
move never ends on Go To Jail, and the Chance squares are below 1/40. Each claim must
hold by a margin of several standard errors, estimated from the sample itself by
batch means over independent games, so it cannot pass by chance; and every square's
frequency must agree with the exact stationary distribution of the same rules,
computed here independently from the schema, with a tolerance of a few standard errors
that are themselves required to be small.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

import openmono
from openmono import actions as A
from openmono.engine import Game

GAMES = 40
TURNS_PER_GAME = 19_000  # ~22,000 rolls per game, ~880,000 in all
PLAYERS = 4

STANDARD = openmono.standard_schema()
# Only money rules change (nobody can go broke, no auctions, no out-of-turn rounds):
# none of them affects movement.
SCHEMA = STANDARD.model_copy(update={"bank": STANDARD.bank.model_copy(update={
    "starting_cash": 10**8, "turn_limit": TURNS_PER_GAME, "auction_on_decline": False,
    "out_of_turn_rounds": 0})})
NAMES = [s.name for s in STANDARD.squares]
KINDS = [s.kind for s in STANDARD.squares]
N = len(NAMES)
JAIL = KINDS.index("jail")
GO_TO_JAIL = KINDS.index("go_to_jail")
ILLINOIS = NAMES.index("Illinois Avenue")
PROPERTIES = [i for i, k in enumerate(KINDS) if k in ("street", "railroad", "utility")]
CHANCE = [i for i, s in enumerate(STANDARD.squares) if s.deck == "chance"]

# The cheap policy: buy what you land on (so buy offers soon stop), otherwise do nothing.
POLICY = {"pre_roll": A.CONCLUDE, "post_roll": A.CONCLUDE, "out_of_turn": A.CONCLUDE,
          "buy": A.BUY, "bid": A.DROP_OUT, "trade_response": A.REJECT, "debt": A.CONCLUDE}


@lru_cache(maxsize=1)
def counts() -> np.ndarray:
    """Per game, how many rolls ended on each square (GAMES x N)."""
    out = np.zeros((GAMES, N), dtype=np.int64)
    for g in range(GAMES):
        game = Game(SCHEMA, players=PLAYERS, seed=1000 + g)
        row = [0] * N
        pos = game.state.position
        gen = game.run()
        seat, d = next(gen)
        try:
            while True:
                phase = d.phase
                here = pos[seat]
                assert here != GO_TO_JAIL, "a player stands on Go To Jail at a decision"
                if phase == "post_roll":
                    row[here] += 1
                seat, d = gen.send(POLICY[phase])
        except StopIteration:
            pass
        assert game.end_reason == "turn_limit" and all(game.state.active)
        out[g] = row
    return out


def stats(weights: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of a linear combination of square frequencies.

    Batch means: each game is an independent batch, so correlation between a player's
    successive rolls is accounted for.
    """
    c = counts()
    per_game = (c / c.sum(axis=1, keepdims=True)) @ weights
    return float(per_game.mean()), float(per_game.std(ddof=1) / np.sqrt(len(per_game)))


def unit(i: int) -> np.ndarray:
    w = np.zeros(N)
    w[i] = 1.0
    return w


def freq() -> np.ndarray:
    c = counts().sum(axis=0)
    return c / c.sum()


# --- the exact chain ---------------------------------------------------------------------


def _nearest(pos: int, kind: str) -> int:
    return next((pos + k) % N for k in range(1, N + 1) if KINDS[(pos + k) % N] == kind)


def _land(pos: int, depth: int = 0) -> dict[int, float]:
    """Where a move that stops on `pos` ends (JAIL with key -1 means sent to jail)."""
    if KINDS[pos] == "go_to_jail":
        return {-1: 1.0}
    sq = STANDARD.squares[pos]
    if KINDS[pos] != "card" or depth > 3:
        return {pos: 1.0}
    deck = next(d for d in STANDARD.decks if d.name == sq.deck)
    # A get-out-of-jail card is kept for ever by a player who never leaves jail early:
    # in the long run the deck holds the other cards only.
    cards = [c for c in deck.cards for _ in range(c.count) if c.kind != "get_out_of_jail"]
    out: dict[int, float] = {}
    for c in cards:
        if c.kind == "advance_to":
            dest = _land(NAMES.index(c.square), depth + 1)
        elif c.kind == "advance_to_nearest":
            dest = _land(_nearest(pos, c.target_kind), depth + 1)
        elif c.kind == "move_back":
            dest = _land((pos - c.amount) % N, depth + 1)
        elif c.kind == "go_to_jail":
            dest = {-1: 1.0}
        else:
            dest = {pos: 1.0}
        for k, p in dest.items():
            out[k] = out.get(k, 0.0) + p / len(cards)
    return out


@lru_cache(maxsize=1)
def exact() -> np.ndarray:
    """Stationary frequency of each square at the end of a roll, for this schema's rules.

    States: (square, doubles rolled this turn: 0-2) and (in jail, failed rolls: 0-2).
    One transition is one roll; a roll is recorded at the state it leads to.
    """
    bank = STANDARD.bank
    assert bank.doubles_roll_again and bank.doubles_to_jail == 3
    jail_turns = bank.max_jail_turns
    free = {(pos, dbl): i for i, (pos, dbl) in enumerate(
        (pos, dbl) for pos in range(N) for dbl in range(3))}
    jailed = {k: len(free) + k for k in range(jail_turns)}
    size = len(free) + len(jailed)
    faces = STANDARD.dice[0].faces
    assert len(STANDARD.dice) == 2 and all(d.faces == faces and d.weights is None
                                           for d in STANDARD.dice)
    rolls = [(a, b) for a in faces for b in faces]
    land = [_land(pos) for pos in range(N)]
    P = np.zeros((size, size))

    def move(src: int, start: int, total: int, p: float, dbl_next: int) -> None:
        for end, q in land[(start + total) % N].items():
            dst = jailed[0] if end == -1 else free[(end, dbl_next)]
            P[src, dst] += p * q

    for (pos, dbl), i in free.items():
        for a, b in rolls:
            p = 1.0 / len(rolls)
            if a == b and dbl == 2:
                P[i, jailed[0]] += p  # third double: straight to jail
            else:
                move(i, pos, a + b, p, dbl + 1 if a == b else 0)
    for k, i in jailed.items():
        for a, b in rolls:
            p = 1.0 / len(rolls)
            if a == b or k + 1 >= jail_turns:
                move(i, JAIL, a + b, p, 0)  # released (doubles or the forced fine)
            else:
                P[i, jailed[k + 1]] += p
    assert np.allclose(P.sum(axis=1), 1.0)
    # Solve pi P = pi, sum(pi) = 1.
    M = np.vstack([P.T - np.eye(size), np.ones(size)])
    rhs = np.zeros(size + 1)
    rhs[-1] = 1.0
    pi = np.linalg.lstsq(M, rhs, rcond=None)[0]
    out = np.zeros(N)
    for (pos, _), i in free.items():
        out[pos] += pi[i]
    out[JAIL] += sum(pi[i] for i in jailed.values())
    return out


# --- the claims -------------------------------------------------------------------------------

MARGIN_SE = 3.0  # every claimed difference must exceed this many standard errors


def test_go_to_jail_never_ends_a_move() -> None:
    c = counts()
    assert c.sum() > 800_000
    assert c[:, GO_TO_JAIL].sum() == 0
    assert exact()[GO_TO_JAIL] < 1e-12


def test_jail_is_by_far_the_most_frequent_square() -> None:
    f = freq()
    runner_up = max((i for i in range(N) if i != JAIL), key=lambda i: f[i])
    # "By far": more than 2.5 times the next square, by a margin of many SEs.
    mean, se = stats(unit(JAIL) - 2.5 * unit(runner_up))
    assert mean > 3 * MARGIN_SE * se, (NAMES[runner_up], mean, se)


def test_illinois_is_the_most_frequent_property() -> None:
    for i in PROPERTIES:
        if i != ILLINOIS:
            mean, se = stats(unit(ILLINOIS) - unit(i))
            assert mean > MARGIN_SE * se, (NAMES[i], mean, se)


def test_chance_squares_are_below_average() -> None:
    for i in CHANCE:
        mean, se = stats(unit(i))
        assert 1 / N - mean > MARGIN_SE * se, (NAMES[i], mean, se)


def test_frequencies_match_the_exact_chain() -> None:
    """Every square within 4.5 SE of the exact value (40 squares: ~3e-4 false alarms),
    and the SEs are small enough for the check to bite: below 0.03 percentage points
    (0.08 for Jail, whose frequency is four times larger); measured they are about
    0.017, a tolerance of about 3% of a typical square's frequency."""
    want = exact()
    for i in range(N):
        mean, se = stats(unit(i))
        assert se < (8e-4 if i == JAIL else 3e-4), (NAMES[i], se)
        assert abs(mean - want[i]) < 4.5 * se + 1e-12, (NAMES[i], mean, want[i], se)


def test_the_exact_chain_shows_the_same_facts() -> None:
    """The reference itself has the known shape (so the comparison above means something)."""
    want = exact()
    assert abs(want.sum() - 1.0) < 1e-9
    assert want[JAIL] > 2.5 * max(want[i] for i in range(N) if i != JAIL)
    assert max(PROPERTIES, key=lambda i: want[i]) == ILLINOIS
    assert all(want[i] < 1 / N for i in CHANCE)
