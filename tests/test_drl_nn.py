"""The numpy MLP: gradients against finite differences, Adam, masked distributions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import finite_differences

from agents.drl.nn import (MLP, PAPER_SIZES, Adam, masked_argmax, masked_log_softmax,
                           masked_softmax)


def numeric_grads(loss, params, eps=1e-6):
    return [finite_differences(loss, p, eps) for p in params]


def test_backward_matches_finite_differences_for_every_layer() -> None:
    rng = np.random.default_rng(1)
    net = MLP((5, 7, 6, 4), rng=rng, dtype=np.float64)
    for b in net.b:
        b[:] = rng.standard_normal(b.shape) * 0.1
    x = rng.standard_normal((3, 5))
    target = rng.standard_normal((3, 4))

    def loss():
        return 0.5 * float(np.sum((net.forward(x) - target) ** 2))

    y = net.forward(x)
    grads = net.backward(y - target)
    for analytic, numeric in zip(grads, numeric_grads(loss, net.params())):
        assert np.allclose(analytic, numeric, atol=1e-6, rtol=1e-5)


def test_picked_outputs_match_the_full_forward_and_backward() -> None:
    """forward_picked/backward_picked (one output per row, repeats allowed) equal the full
    network with a gradient that is zero outside the picked outputs."""
    rng = np.random.default_rng(3)
    net = MLP((5, 7, 6, 9), rng=rng, dtype=np.float64)
    x = rng.standard_normal((8, 5))
    cols = np.array([0, 3, 3, 8, 1, 3, 0, 5])
    g = rng.standard_normal(8)
    picked = net.forward_picked(x, cols)
    sparse = net.backward_picked(g)
    full = net.forward(x)
    dense = np.zeros_like(full)
    dense[np.arange(8), cols] = g
    assert np.allclose(picked, full[np.arange(8), cols])
    assert all(np.allclose(a, b) for a, b in zip(sparse, net.backward(dense)))
    assert np.allclose(net.hidden(x), net._cache[-2])


def test_picked_sums_of_outputs_match_the_full_forward_and_backward() -> None:
    """With (B, k) columns, row i's output is the sum of its k picked outputs (a dueling
    Q-value: the action's output plus the state-value output)."""
    rng = np.random.default_rng(4)
    net = MLP((5, 7, 6, 9), rng=rng, dtype=np.float64)
    x = rng.standard_normal((6, 5))
    cols = np.array([[0, 8], [3, 8], [3, 8], [8, 8], [1, 2], [5, 8]])
    g = rng.standard_normal(6)
    picked = net.forward_picked(x, cols)
    sparse = net.backward_picked(g)
    full = net.forward(x)
    dense = np.zeros_like(full)
    for i, row in enumerate(cols):
        for c in row:
            dense[i, c] += g[i]
    assert np.allclose(picked, [full[i, row].sum() for i, row in enumerate(cols)])
    assert all(np.allclose(a, b) for a, b in zip(sparse, net.backward(dense)))


def test_forward_one_and_legal_match_the_batch_forward() -> None:
    net = MLP(PAPER_SIZES, rng=np.random.default_rng(0))
    x = np.random.default_rng(2).random(240).astype(np.float32)
    full = net.forward(x[None])[0]
    assert np.allclose(net.forward_one(x), full, atol=1e-4)
    idx = np.array([0, 5, 2000, 2921])
    for _ in range(40):  # gathered columns at first, then the transposed copy
        assert np.allclose(net.forward_legal(x, idx), full[idx], atol=1e-4)
    assert net._last_t is not None


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=2, max_size=12), st.data())
def test_masked_softmax(logits, data) -> None:
    z = np.array(logits)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(z), max_size=len(z))))
    if not mask.any():
        mask[0] = True
    p = masked_softmax(z, mask)
    assert np.isclose(p.sum(), 1.0) and np.all(p[~mask] == 0)
    assert np.allclose(np.exp(masked_log_softmax(z, mask))[mask], p[mask])
    assert mask[masked_argmax(z, mask)]
    assert z[masked_argmax(z, mask)] == z[mask].max()


def test_adam_minimises_a_quadratic() -> None:
    net = MLP((3, 8, 2), rng=np.random.default_rng(0))
    opt = Adam(net.params(), lr=1e-2, max_grad_norm=None)
    x = np.random.default_rng(1).standard_normal((32, 3)).astype(np.float32)
    target = np.stack([x[:, 0] * 2, -x[:, 1]], axis=1)
    losses = []
    for _ in range(300):
        y = net.forward(x)
        losses.append(float(np.mean((y - target) ** 2)))
        opt.step(net.backward(2 * (y - target) / y.size))
    assert losses[-1] < 0.1 * losses[0]


@pytest.mark.parametrize("clip", [None, 1e-3])
def test_lazy_adam_moves_only_the_given_columns_and_matches_adam_on_them(clip) -> None:
    """Adam.step(cols=...): given every column it is Adam; given some, the others keep
    their weights and moments, and the given ones move as Adam moves them (the
    gradient norm, and so the clipping, counts only the given columns)."""
    rng = np.random.default_rng(5)
    w0 = rng.standard_normal((4, 6))
    grads = [rng.standard_normal((4, 6)) for _ in range(3)]
    cols = np.array([1, 4])
    dense, every, lazy = w0.copy(), w0.copy(), w0.copy()
    a = Adam([dense], lr=0.1, max_grad_norm=clip)
    b = Adam([every], lr=0.1, max_grad_norm=clip)
    c = Adam([lazy], lr=0.1, max_grad_norm=clip)
    for g in grads:
        sparse = np.zeros_like(g)
        sparse[:, cols] = g[:, cols]
        a.step([sparse])
        b.step([sparse], cols={0: np.arange(6)})
        c.step([sparse], cols={0: cols})
    assert np.allclose(every, dense) and np.allclose(b.m[0], a.m[0])
    assert np.allclose(lazy[:, cols], dense[:, cols])
    rest = np.setdiff1d(np.arange(6), cols)
    assert np.array_equal(lazy[:, rest], w0[:, rest]) and not c.m[0][:, rest].any()


def test_adam_keeps_no_subnormal_moments() -> None:
    """A weight whose gradient stays zero has moments decaying towards zero; float32
    arithmetic on subnormal numbers is ~4x slower, and late in a DDQN run half the
    moments were subnormal. Adam flushes them to zero (as hardware flush-to-zero does);
    their updates were below a float32 weight's resolution anyway."""
    w = np.ones((4, 6), dtype=np.float32)
    opt = Adam([w], lr=1e-3, max_grad_norm=None)
    tiny = np.finfo(np.float32).tiny
    opt.m[0][...] = tiny * 0.5  # already subnormal
    opt.v[0][...] = tiny * 4.0  # becomes subnormal after a couple of steps
    opt.m[0][0, 0] = opt.v[0][0, 0] = 1e-3  # a normal moment stays
    zero = [np.zeros_like(w)]
    for _ in range(64):
        opt.step(zero)
    for moment in (opt.m[0], opt.v[0]):
        assert not np.any((moment != 0) & (np.abs(moment) < tiny))
    assert opt.m[0][0, 0] > 0 and opt.v[0][0, 0] > 0


def test_adam_flushes_subnormal_moments_it_loads() -> None:
    w = np.ones(3, dtype=np.float32)
    opt = Adam([w])
    tiny = np.finfo(np.float32).tiny
    opt.load_state_dict({"o.t": np.array(5), "o.m0": np.full(3, tiny / 8, np.float32),
                         "o.v0": np.array([tiny / 8, 1.0, 0.0], np.float32)}, "o.")
    assert not opt.m[0].any() and list(opt.v[0]) == [0.0, 1.0, 0.0]
