"""The fast paths of a DRL decision (issue 51) give what the straightforward code gives,
bit for bit: the state and the legal mask on observations of random games (standard and
GNOME rules, a reordered board, renamed properties), against field-by-field references
and the engine's legality over the whole action space; the forward pass against the
`out=` products it replaced; the factored pick against `act_reference`."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import openmono
from agents.base import Agent
from agents.drl import encoding as E
from agents.drl import heads as H
from agents.drl.nn import MLP
from agents.random_agent import RandomAgent
from novelties.registry import apply_novelty

GAMES = (("standard", None), ("gnome", None), ("standard", "board_shuffle"),
         ("standard", "renamed_properties"))


def encode_reference(obs, features: str, offers_in_a_row: int) -> np.ndarray:
    """The state spelled out field by field (docs/drl.md), on any board: slots by name
    (`Layout`), then the extended features."""
    r = obs.rules
    lay = E.Layout(r)
    x = np.zeros(E.state_dim(features), dtype=np.float32)
    me, n = obs.seat, len(obs.cash)
    for k in range(min(E.N_REL, n)):
        s = (me + k) % n
        if obs.active[s]:
            x[4 * k: 4 * k + 4] = [obs.position[s] / r.n,
                                   min(10.0, max(-10.0, obs.cash[s] / 1500)),
                                   obs.in_jail[s], obs.jail_cards[s] > 0]
    for j in range(E.N_SLOTS):
        sq = int(lay.slot_sq[j])
        if sq < 0 or obs.owner[sq] < 0:
            continue
        o = obs.owner[sq]
        b = 16 + 8 * j
        if (o - me) % n < E.N_REL:
            x[b + (o - me) % n] = 1
        x[b + 4] = obs.mortgaged[sq]
        g = r.group_of[sq]
        x[b + 5] = g >= 0 and sum(obs.owner[m] == o for m in r.group_members[g]) >= r.group_need[g]
        x[b + 6] = min(obs.level[sq], lay.max_houses) / lay.max_houses
        x[b + 7] = r.hotel_level > 0 and obs.level[sq] >= r.hotel_level
    if features == "extended":
        extra = x[E.STATE_DIM:]
        if obs.phase in E.NETWORK_PHASES_ORDER:
            extra[E.NETWORK_PHASES_ORDER.index(obs.phase)] = 1
        extra[5] = min(offers_in_a_row, 10) / 10
        if obs.phase == "trade_response" and obs.offer is not None:
            for sq in obs.offer.give:
                if sq in lay.slot_of:
                    extra[6 + lay.slot_of[sq]] = 1
            for sq in obs.offer.get:
                if sq in lay.slot_of:
                    extra[6 + lay.slot_of[sq]] = -1
            extra[34] = min(10.0, max(-10.0, (obs.offer.give_cash - obs.offer.get_cash) / 1500))
        if obs.phase == "buy" and obs.square in lay.slot_of:
            extra[35 + lay.slot_of[obs.square]] = 1
    return x


def legal_mask_reference(obs) -> np.ndarray:
    """Index i is legal exactly when its action is legal for the engine and maps back to
    i (the whole space, one action at a time)."""
    enc = E.Encoder()
    m = np.zeros(E.ACTION_DIM, dtype=bool)
    if obs.phase not in E.NETWORK_PHASES:
        return m
    for i in range(E.ACTION_DIM):
        a = enc.action_of(i, obs)
        m[i] = obs.is_legal(a) and enc.index_of(a, obs) == i
    return m


class Recorder(Agent):
    """Plays uniformly over the encoded legal actions (offers often, so trades happen)
    with one kept encoder, as a DRL agent does, and records each network-phase decision
    with its state and mask."""

    def __init__(self, seed: int, features: str) -> None:
        super().__init__()
        self.enc = E.Encoder(features)
        self.r = random.Random(seed)
        self.offers = 0
        self.rows: list = []

    def act(self, obs):
        m = self.enc.legal_mask(obs).copy()
        if not m.any():
            return E.fallback_action(obs)
        x = self.enc.encode(obs, offers_in_a_row=self.offers).copy()
        self.rows.append((obs, self.offers, x, m))
        idx = np.flatnonzero(m)
        trades = idx[idx < E.IMPROVE]
        pick = self.r.choice(trades) if len(trades) and self.r.random() < 0.5 else self.r.choice(idx)
        self.offers = self.offers + 1 if pick < E.IMPROVE else 0
        return self.enc.action_of(int(pick), obs)


def _recorded_rows(game: int, seed: int, features: str) -> list:
    rules, novelty = GAMES[game]
    schema = openmono.rules_schema(rules)
    hooks = {}
    if novelty is not None:
        applied = apply_novelty(novelty, schema, "hard")
        schema, hooks = applied.schema, {"hooks": applied.hooks}
    schema = schema.model_copy(update={"bank": schema.bank.model_copy(update={"turn_limit": 60})})
    rec = Recorder(seed, features)
    openmono.play_game(schema, [rec, RandomAgent(trade_rate=0.3), RandomAgent(), RandomAgent()],
                       seed=seed, **hooks)
    return rec.rows


@settings(max_examples=8, deadline=None)
@given(game=st.integers(0, len(GAMES) - 1), seed=st.integers(0, 10**6),
       features=st.sampled_from(E.FEATURES))
def test_kept_state_and_mask_equal_the_references(game: int, seed: int, features: str) -> None:
    """Every decision's state equals the field-by-field one; a sample of its masks equals
    the engine's legality over the whole space (the rest equal a fresh encoder's)."""
    rows = _recorded_rows(game, seed, features)
    assert rows
    for k, (obs, offers, x, m) in enumerate(rows):
        assert np.array_equal(x, encode_reference(obs, features, offers)), (k, obs.phase)
        if k % 15 == 0 or (obs.phase == "trade_response" and k % 3 == 0):
            assert np.array_equal(m, legal_mask_reference(obs)), (k, obs.phase)
        else:
            assert np.array_equal(m, E.Encoder(features).legal_mask(obs)), (k, obs.phase)


def forward_one_reference(mlp: MLP, x: np.ndarray) -> np.ndarray:
    """The forward pass as first written: products into preallocated buffers."""
    h = x
    last = len(mlp.W) - 1
    for i, (w, b) in enumerate(zip(mlp.W, mlp.b)):
        out = np.zeros(w.shape[1], dtype=np.float32)
        np.dot(h, w, out=out)
        out += b
        if i < last:
            np.maximum(out, 0.0, out=out)
        h = out
    return h


@pytest.mark.parametrize("name", ["hybrid_ppo", "ppo"])
def test_forward_one_equals_the_buffered_products_bit_for_bit(name: str) -> None:
    from agents.registry import make_agent

    mlp = make_agent(name, detector="none").learner.actor
    rng = np.random.default_rng(0)
    for _ in range(200):
        x = np.zeros(mlp.sizes[0], dtype=np.float32)
        x[rng.integers(0, mlp.sizes[0], 40)] = rng.standard_normal(40).astype(np.float32)
        assert np.array_equal(mlp.forward_one(x), forward_one_reference(mlp, x))


@settings(max_examples=300, deadline=None)
@given(z=st.lists(st.sampled_from([-3.0, -1.0, -0.5, 0.0, 0.25, 1e-9, 2.0, 7.5]) | st.floats(-30, 30),
                  min_size=1, max_size=40),
       seed=st.integers(0, 2**32 - 1), greedy=st.booleans())
def test_choose_equals_the_reference(z: list, seed: int, greedy: bool) -> None:
    """The same index, the same log-probability and the same draws, ties included."""
    a, b = random.Random(seed), random.Random(seed)
    arr = np.array(z)
    assert H._choose(arr, a, greedy) == H._choose_reference(arr, b, greedy)
    assert a.random() == b.random()


@settings(max_examples=150, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), greedy=st.booleans())
def test_factored_act_equals_act_reference(data, seed: int, greedy: bool) -> None:
    head = H.FactoredHead()
    mlp = MLP((8, 16, H.FACTORED_DIM), rng=np.random.default_rng(seed % 1000), out_scale=3.0)
    idx = np.array(sorted(data.draw(st.sets(st.integers(0, E.ACTION_DIM - 1), min_size=1,
                                            max_size=300))))
    x = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
    a, b = random.Random(seed), random.Random(seed)
    assert head.act(mlp, x, idx, a, greedy) == head.act_reference(mlp, x, idx, b, greedy)
    assert a.random() == b.random()


@settings(max_examples=300, deadline=None)
@given(z=st.lists(st.sampled_from([-3.0, -1.0, -0.5, 0.0, 0.25, 1e-9, 2.0, 7.5]) | st.floats(-30, 30),
                  min_size=1, max_size=H.SMALL),
       seed=st.integers(0, 2**32 - 1), greedy=st.booleans())
def test_choose_small_on_python_floats_equals_the_reference(z: list, seed: int,
                                                            greedy: bool) -> None:
    """The pick on Python floats (where `heads.PY_FLOATS` says this numpy's exp, log
    and sum are the C library's and the pairwise sum) draws and weighs as numpy does."""
    if not H.PY_FLOATS:
        pytest.skip("numpy's float64 exp or log differ from the C library's here")
    a, b = random.Random(seed), random.Random(seed)
    assert H._choose_small(list(z), a, greedy) == H._choose_reference(np.array(z), b, greedy)
    assert a.random() == b.random()


def test_pairwise_sum_is_numpys() -> None:
    rng = np.random.default_rng(3)
    for n in range(0, 129):  # (up to 128: beyond, numpy splits the sum in halves)
        v = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, n)
        assert H._pairwise_sum(v.tolist()) == H._ADD(v)
