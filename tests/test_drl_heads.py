"""The policy heads: the factored head can take exactly the flat head's legal actions, its
probabilities sum to one, its gradients match finite differences, and acting agrees with
the batch distribution."""

from __future__ import annotations

import numpy as np
from helpers import finite_differences as _fd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.drl import encoding as E
from agents.drl.heads import (COMPONENTS, FACTORED_DIM, N_TYPES, TYPE_OF, FactoredHead,
                              FlatHead, make_head)
from agents.drl.nn import MLP


def _mask(rng: np.random.Generator, rows: int, density: float) -> np.ndarray:
    mask = rng.random((rows, E.ACTION_DIM)) < density
    mask[:, E.CONCLUDE] |= ~mask.any(axis=1)  # every decision has a legal action
    return mask


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), density=st.sampled_from([0.001, 0.01, 0.2]))
def test_factored_support_is_the_flat_mask(seed: int, density: float) -> None:
    rng = np.random.default_rng(seed)
    mask = _mask(rng, 4, density)
    out = rng.standard_normal((4, FACTORED_DIM)) * 3
    p = FactoredHead().probs(out, mask)
    flat = FlatHead().probs(rng.standard_normal((4, E.ACTION_DIM)), mask)
    assert np.array_equal(p > 0, mask) and np.array_equal(flat > 0, mask)
    assert np.allclose(p.sum(axis=1), 1.0)


def test_the_type_of_every_action_is_its_block_of_table_one() -> None:
    for i in range(E.ACTION_DIM):
        assert E.BLOCKS[TYPE_OF[i]][0] == E.block_of(i)
    # an exchange offer's target logit is the sum of its opponent, given and got parts
    i = E._exchange_index(2, 5, 9)
    assert list(COMPONENTS[i]) == [2, 3 + 5, 3 + 28 + 9]


@pytest.mark.parametrize("name", ["flat", "factored"])
def test_head_gradients_match_finite_differences(name: str) -> None:
    rng = np.random.default_rng(1)
    head = make_head(name)
    mask = _mask(rng, 3, 0.004)
    mask[0, E.EXCHANGE:E.EXCHANGE + 40] = True  # a type with many targets
    actions = np.array([np.flatnonzero(m)[k % m.sum()] for k, m in enumerate(mask)])
    actions[0] = E.EXCHANGE + 7
    out = rng.standard_normal((3, head.out_dim))
    w_lp, w_ent = rng.standard_normal(3), rng.standard_normal(3)

    def loss() -> float:
        lp, ent, _ = head.log_prob(out, mask, actions)
        return float((w_lp * lp).sum() + (w_ent * ent).sum())

    _, _, cache = head.log_prob(out, mask, actions)
    grad = head.backward(cache, w_lp, w_ent)
    # only the outputs a decision can reach matter; check those the masks touch
    cols = np.flatnonzero(np.abs(_fd(loss, out)).sum(axis=0) + np.abs(grad).sum(axis=0))
    assert np.allclose(grad[:, cols], _fd(loss, out)[:, cols], atol=1e-5)


@pytest.mark.parametrize("name", ["flat", "factored"])
def test_acting_samples_the_batch_distribution(name: str) -> None:
    rng = np.random.default_rng(2)
    head = make_head(name)
    mlp = MLP((8, 16, head.out_dim), rng=rng)
    mlp.b[-1][...] = rng.standard_normal(head.out_dim)
    x = rng.standard_normal(8).astype(np.float32)
    mask = _mask(rng, 1, 0.003)[0]
    mask[[E.CONCLUDE, E.EXCHANGE + 3, E.EXCHANGE + 90, E.MORTGAGE + 1]] = True
    idx = np.flatnonzero(mask)
    p = head.probs(mlp.forward(x[None]).astype(np.float64), mask[None])[0]
    draws = np.zeros(E.ACTION_DIM)
    for _ in range(4000):
        i, lp = head.act(mlp, x, idx, rng, greedy=False)
        assert np.isclose(lp, np.log(p[i]), atol=1e-5)
        draws[i] += 1
    assert np.abs(draws / 4000 - p).max() < 0.03
    g, _ = head.act(mlp, x, idx, rng, greedy=True)
    if name == "flat":
        assert g == idx[np.argmax(p[idx])]
    else:  # the most likely type, then its most likely target
        types = TYPE_OF[idx]
        by_type = np.bincount(types, weights=p[idx], minlength=N_TYPES)
        best = idx[types == np.argmax(by_type)]
        assert g == best[np.argmax(p[best])]


@pytest.mark.parametrize("name", ["flat", "factored"])
def test_a_lone_legal_action_is_certain(name: str) -> None:
    rng = np.random.default_rng(4)
    head = make_head(name)
    mlp = MLP((8, 16, head.out_dim), rng=rng)
    x = rng.standard_normal(8).astype(np.float32)
    for greedy in (False, True):
        assert head.act(mlp, x, np.array([E.CONCLUDE]), rng, greedy) == (E.CONCLUDE, 0.0)


def test_an_unknown_head_is_one_line() -> None:
    with pytest.raises(ValueError, match="unknown head 'tree'; valid: factored, flat"):
        make_head("tree")
