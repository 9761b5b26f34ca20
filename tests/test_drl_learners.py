"""PPO and DDQN: loss gradients against finite differences, losses that fall on a tiny
fixed problem, GAE by hand."""

from __future__ import annotations

import numpy as np
from helpers import finite_differences as _fd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.drl.ddqn import DDQN, PAD, DDQNConfig, td_loss
from agents.drl.encoding import ACTION_DIM, STATE_DIM
from agents.drl.heads import COMPONENTS, FACTORED_DIM, TYPE_OF, FactoredHead, make_head
from agents.drl.ppo import PPO, PPOConfig, gae, policy_loss, value_loss


@pytest.mark.parametrize("head", ["flat", "factored"])
@pytest.mark.parametrize("scale", [0.1, 2.0])  # small ratios (unclipped) and large (clipped)
def test_policy_loss_gradient(scale: float, head: str) -> None:
    rng = np.random.default_rng(0)
    h = make_head(head)
    logits = rng.standard_normal((5, h.out_dim)) * scale
    mask = rng.random((5, ACTION_DIM)) < 0.005
    mask[:, [0, 1, 2520, 2521, 2916]] = True  # two types with several targets, a singleton
    actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in mask])
    old = rng.standard_normal(5) * 0.3 - 1.5
    adv = rng.standard_normal(5)
    _, grad, _ = policy_loss(h, logits, mask, actions, old, adv, 0.2, 0.01)
    cols = np.flatnonzero(np.abs(grad).sum(axis=0))  # outputs the masks reach
    sub = logits[:, cols].copy()

    def loss() -> float:
        z = logits.copy()
        z[:, cols] = sub
        return policy_loss(h, z, mask, actions, old, adv, 0.2, 0.01)[0]

    assert len(cols) > 5 and np.allclose(grad[:, cols], _fd(loss, sub), atol=1e-6)


def test_value_and_td_loss_gradients() -> None:
    rng = np.random.default_rng(1)
    v, ret = rng.standard_normal(7), rng.standard_normal(7)
    _, g = value_loss(v, ret, 0.5)
    assert np.allclose(g, _fd(lambda: value_loss(v, ret, 0.5)[0], v), atol=1e-6)
    q = rng.standard_normal(6) * 2
    y = rng.standard_normal(6)
    _, g = td_loss(q, y, 1.0)
    assert np.allclose(g, _fd(lambda: td_loss(q, y, 1.0)[0], q), atol=1e-6)


def test_gae_by_hand() -> None:
    r = np.array([1.0, 0.0, 2.0, 5.0])
    v = np.array([0.5, 0.2, 1.0, 3.0])
    d = np.array([False, True, False, True])
    adv, ret = gae(r, v, d, gamma=0.9, lam=0.5)
    d1 = 0.0 - 0.2
    d0 = 1.0 + 0.9 * 0.2 - 0.5
    d3 = 5.0 - 3.0
    d2 = 2.0 + 0.9 * 3.0 - 1.0
    assert np.allclose(adv, [d0 + 0.45 * d1, d1, d2 + 0.45 * d3, d3])
    assert np.allclose(ret, adv + v)


def _tiny_states(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """A fixed problem: 4 states, 3 legal actions each; the right action pays 1."""
    x = np.zeros((n, STATE_DIM), dtype=np.float32)
    kind = rng.integers(0, 4, n)
    x[np.arange(n), kind] = 1.0
    return x, kind


def test_ppo_loss_decreases_on_a_tiny_bandit() -> None:
    cfg = PPOConfig(hidden=(32,), features="paper", lr=3e-3, rollout_steps=10**9, minibatch_size=64,
                    update_epochs=4, reward_scale=1.0, ent_coef=0.0)
    ppo = PPO(cfg, seed=0)
    rng = np.random.default_rng(0)
    legal = np.array([10, 20, 30])
    mask = np.zeros(ACTION_DIM, dtype=bool)
    mask[legal] = True
    rates, value_losses = [], []
    for _ in range(12):
        x, kind = _tiny_states(256, rng)
        wins = 0
        for xi, k in zip(x, kind):
            i, logp = ppo.choose(xi, legal, rng, greedy=False)
            ppo.record(xi, mask, i, logp)
            r = 1.0 if i == legal[k % 3] else 0.0
            wins += r
            ppo.end_game(r)
        rates.append(wins / 256)
        value_losses.append(ppo.update()["value_loss"])
    assert rates[-1] > 0.9 > rates[0], rates
    assert value_losses[-1] < 0.5 * value_losses[0], value_losses


def test_ddqn_loss_decreases_on_a_tiny_bandit() -> None:
    cfg = DDQNConfig(hidden=(32,), features="paper", lr=2e-3, learning_starts=64, train_every=1,
                     batch_size=32, target_every=20, eps_decay=200.0, buffer_size=2000)
    dq = DDQN(cfg, seed=0)
    rng = np.random.default_rng(0)
    legal = np.array([10, 20, 30])
    mask = np.zeros(ACTION_DIM, dtype=bool)
    mask[legal] = True
    losses = []
    for _ in range(800):
        x, kind = _tiny_states(1, rng)
        i, _ = dq.choose(x[0], legal, rng, greedy=False)
        dq.record(x[0], mask, i)
        dq.end_game(1.0 if i == legal[kind[0] % 3] else 0.0)
        if dq.updates and dq.updates % 50 == 0:
            losses.append(dq.last_loss)
    early = np.mean(losses[:3])
    late = np.mean(losses[-3:])
    assert late < 0.5 * early, losses
    x, kind = _tiny_states(40, rng)
    right = [dq.choose(xi, legal, rng, greedy=True)[0] == legal[k % 3] for xi, k in zip(x, kind)]
    assert np.mean(right) == 1.0


@pytest.mark.parametrize("target_kl, expected", [(0.0, 4 * 4), (1e-9, 2)])
def test_ppo_update_stops_early_once_the_policy_moved(target_kl: float, expected: int) -> None:
    """The KL early stop: off, all epochs x minibatches run; a tiny target stops the
    update after the first minibatch that moves the policy at all (the first has ratio 1)."""
    cfg = PPOConfig(hidden=(32,), features="paper", lr=3e-3, rollout_steps=10**9, minibatch_size=64,
                    update_epochs=4, ent_coef=0.0, target_kl=target_kl)
    ppo = PPO(cfg, seed=0)
    rng = np.random.default_rng(0)
    legal = np.array([10, 20, 30])
    mask = np.zeros(ACTION_DIM, dtype=bool)
    mask[legal] = True
    x, kind = _tiny_states(256, rng)
    for xi, k in zip(x, kind):
        i, logp = ppo.choose(xi, legal, rng, greedy=False)
        ppo.record(xi, mask, i, logp)
        ppo.end_game(1.0 if i == legal[k % 3] else 0.0)
    assert ppo.update()["minibatches"] == expected


def test_ddqn_prior_starts_the_greedy_policy_passing_not_offering() -> None:
    """With the prior (default) an untrained Q-network's argmax prefers pass/conclude to
    any trade offer; prior=0 is the paper's start (zero output biases)."""
    from agents.drl import encoding as E
    from agents.drl.ppo import policy_prior

    flat = DDQN(DDQNConfig(hidden=(16, 8), features="paper", head="flat"), seed=0)
    assert np.allclose(flat.q.b[-1][:ACTION_DIM], 0.1 * policy_prior())
    q = DDQN(DDQNConfig(hidden=(16, 8), features="paper"), seed=0)  # factored
    assert np.allclose(q.q.b[-1][:FACTORED_DIM], 0.1 * FactoredHead().prior())
    assert np.allclose(q.target.b[-1], q.q.b[-1])  # the target starts as a copy
    x = np.random.default_rng(0).random(STATE_DIM).astype(np.float32)
    idx = np.r_[np.arange(E.EXCHANGE, E.EXCHANGE + 300), E.CONCLUDE]
    for learner in (flat, q):
        i, _ = learner.choose(x, idx, np.random.default_rng(0), greedy=True)
        assert i == E.CONCLUDE
    paper = DDQN(DDQNConfig(hidden=(16, 8), prior=0.0, features="paper"), seed=0)
    assert not paper.q.b[-1].any()


def test_ddqn_warm_start_from_a_ppo_policy_plays_its_mode() -> None:
    """`init=` a PPO file for DDQN: the actor becomes the Q-network, its last layer scaled
    by `warm_scale`, so the greedy DDQN plays the policy's most likely action (and the
    target network starts equal); a file with neither network is refused in one line."""
    ppo = PPO(PPOConfig(hidden=(16, 8), head="flat", features="paper"), seed=3)
    q = DDQN(DDQNConfig(hidden=(16, 8), warm_scale=0.05, features="paper", dueling=False,
                        head="flat"),
             seed=0)
    q.load_policy(ppo.weights(), "ppo.npz")
    assert np.allclose(q.q.W[-1], 0.05 * ppo.actor.W[-1])
    assert np.allclose(q.target.W[0], ppo.actor.W[0])
    rng = np.random.default_rng(0)
    idx = np.sort(rng.choice(ACTION_DIM, size=40, replace=False))
    for _ in range(20):
        x = rng.random(STATE_DIM).astype(np.float32)
        logits = ppo.actor.forward(x[None])[0]
        i, _ = q.choose(x, idx, rng, greedy=True)
        assert i == idx[np.argmax(logits[idx])]
    with pytest.raises(ValueError, match="bad.npz: .*neither"):
        q.load_policy({"x": np.zeros(1)}, "bad.npz")


def test_ddqn_exploration_picks_a_type_first() -> None:
    """explore=type: an exploring step picks a legal type uniformly, then a target, so a
    decision with 300 legal offers and Conclude concludes about half the time
    (explore=uniform: 1 in 301; explore=prior: the prior's e^4 / (e^4 + 300 e^-4), 91%)."""
    from agents.drl import encoding as E

    idx = np.r_[np.arange(E.EXCHANGE, E.EXCHANGE + 300), E.CONCLUDE]
    x = np.zeros(STATE_DIM, dtype=np.float32)
    rate = {}
    for explore in ("type", "uniform", "prior"):
        q = DDQN(DDQNConfig(hidden=(8,), features="paper", eps_start=1.0, eps_end=1.0,
                            explore=explore), seed=0)
        rng = np.random.default_rng(0)
        rate[explore] = np.mean([q.choose(x, idx, rng, greedy=False)[0] == E.CONCLUDE
                                 for _ in range(2000)])
    assert 0.45 < rate["type"] < 0.55 and rate["uniform"] < 0.01
    assert 0.89 < rate["prior"] < 0.93
    with pytest.raises(ValueError, match="unknown ddqn explore 'greedy'; valid: type, uniform, prior"):
        DDQN(DDQNConfig(hidden=(8,), explore="greedy"))


@pytest.mark.parametrize("n", [1, 2, 3, 10])
def test_ddqn_n_step_transitions_sum_their_discounted_rewards(n: int) -> None:
    """Each stored transition holds r_t + g r_t+1 + ... (n rewards, fewer at the game's
    end, where it is terminal), its bootstrap discount g^n and the state n decisions on."""
    g = 0.9
    cfg = DDQNConfig(hidden=(8,), features="paper", gamma=g, n_step=n, reward_scale=1.0,
                     learning_starts=10**9, buffer_size=64)
    dq = DDQN(cfg, seed=0)
    mask = np.zeros(ACTION_DIM, dtype=bool)
    mask[[3, 4]] = True
    xs = [np.full(STATE_DIM, float(t)) for t in range(6)]
    rewards = [0.5, -1.0, 2.0, 0.25, 3.0]  # after decisions 0..4; then the end's 7.0
    for t in range(6):
        if t:
            dq.add_reward(rewards[t - 1])
        dq.record(xs[t], mask, t)
    dq.end_game(7.0)
    r = [*rewards, 7.0]
    rp = dq.replay
    assert rp.n == 6 and list(rp.a[:6]) == [0, 1, 2, 3, 4, 5]
    for t in range(6):
        k = min(n, 6 - t)
        assert rp.r[t] == pytest.approx(sum(g ** j * r[t + j] for j in range(k)))
        terminal = t + n >= 6
        assert rp.disc[t] == pytest.approx(0.0 if terminal else g ** n)
        if not terminal:
            assert rp.x2[t][0] == t + n
            assert list(np.flatnonzero(np.unpackbits(rp.mask2[t])[:ACTION_DIM])) == [3, 4]


def test_ddqn_refuses_an_n_step_below_one() -> None:
    with pytest.raises(ValueError, match="n_step"):
        DDQN(DDQNConfig(hidden=(8,), n_step=0))


def test_dueling_q_is_the_state_value_plus_an_advantage_that_untried_actions_keep() -> None:
    """Q(s, a) = V(s) + A(s, a); after updates on action 10 only, the untried action 20
    still has its prior advantage (zero weights, prior bias), so its Q moves with V."""
    from agents.drl.ppo import policy_prior

    cfg = DDQNConfig(hidden=(16,), features="paper", lr=1e-2, learning_starts=8, train_every=1,
                     batch_size=8, buffer_size=64, reward_scale=1.0, head="flat")
    dq = DDQN(cfg, seed=0)
    assert dq.q.sizes[-1] == ACTION_DIM + 1 and not dq.q.W[-1].any()
    rng = np.random.default_rng(1)
    mask = np.zeros(ACTION_DIM, dtype=bool)
    mask[[10, 20]] = True
    x = rng.random(STATE_DIM).astype(np.float32)
    before = dq.q_values(x, np.array([10, 20]))
    for _ in range(40):
        dq.record(x, mask, 10)
        dq.end_game(-1.0)
    assert dq.updates > 0
    out = dq.q.forward(x[None])[0]
    q = dq.q_values(x, np.array([10, 20]))
    assert np.allclose(q, out[[10, 20]] + out[ACTION_DIM], atol=1e-5)
    assert not dq.q.W[-1][:, 20].any()
    assert dq.q.b[-1][20] == np.float32(0.1 * policy_prior()[20])
    assert q[0] < before[0] - 0.3  # the tried action's value fell towards -1 ...
    assert q[1] - out[ACTION_DIM] == pytest.approx(0.1 * policy_prior()[20])  # ... V + prior


def test_a_dueling_ddqn_refuses_a_warm_start_from_a_policy() -> None:
    ppo = PPO(PPOConfig(hidden=(16, 8), head="flat", features="paper"), seed=3)
    q = DDQN(DDQNConfig(hidden=(16, 8), features="paper"), seed=0)
    with pytest.raises(ValueError, match="dueling=false"):
        q.load_policy(ppo.weights(), "ppo.npz")


def _factored_q_by_hand(dq: DDQN, x: np.ndarray) -> np.ndarray:
    """Every action's Q from the full output: V + its type's value + its components."""
    out = np.append(dq.q.forward(x[None])[0], 0.0)  # a zero past the end for any padding
    pad = len(out) - 1
    comp = np.where(COMPONENTS == COMPONENTS.max(), pad - 13, COMPONENTS)
    return out[-2] + out[TYPE_OF] + out[13 + comp].sum(axis=1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), density=st.sampled_from([0.002, 0.03, 0.3]))
def test_factored_q_values_and_the_target_argmax_match_the_sum_by_hand(seed, density) -> None:
    """head=factored: Q(s, a) = V(s) + type value + the summed components, both where a
    decision is taken (`q_values`) and where the update picks each next state's best legal
    action (`_best`, ties to the first as argmax does)."""
    rng = np.random.default_rng(seed)
    dq = DDQN(DDQNConfig(hidden=(8,), features="paper"), seed=seed % 97)
    for w in dq.q.W + dq.q.b:  # weights that make every output count
        w[...] = rng.standard_normal(w.shape)
    dq.q.W[-1][:, PAD] = dq.q.b[-1][PAD] = 0.0
    dq.q.sync()
    x = rng.standard_normal((5, STATE_DIM)).astype(np.float32)
    mask = rng.random((5, ACTION_DIM)) < density
    mask[np.arange(5), rng.integers(0, ACTION_DIM, 5)] = True
    by_hand = np.stack([_factored_q_by_hand(dq, xi) for xi in x])
    for xi, m, q in zip(x, mask, by_hand):
        idx = np.flatnonzero(m)
        assert np.allclose(dq.q_values(xi, idx), q[idx], atol=1e-4)
    best = dq._best(dq.q.forward(x), mask)
    assert list(best) == list(np.argmax(np.where(mask, by_hand, -np.inf), axis=1))


def test_the_factored_q_heads_padding_output_stays_zero_while_learning() -> None:
    cfg = DDQNConfig(hidden=(16,), features="paper", lr=1e-2, learning_starts=8, train_every=1,
                     batch_size=8, buffer_size=64, reward_scale=1.0)
    dq = DDQN(cfg, seed=0)
    assert dq.q.sizes[-1] == FACTORED_DIM + 2  # 284 outputs, the padding, V
    mask = np.zeros(ACTION_DIM, dtype=bool)
    mask[[0, 2900, 2915]] = True  # an exchange offer (3 components), a mortgage (1), skip
    x = np.random.default_rng(1).random(STATE_DIM).astype(np.float32)
    for a in [0, 2900, 2915] * 10:
        dq.record(x, mask, a)
        dq.end_game(-1.0)
    assert dq.updates > 0 and dq.q.W[-1].any()
    assert not dq.q.W[-1][:, PAD].any() and dq.q.b[-1][PAD] == 0.0


@pytest.mark.parametrize("clipped", [False, True])
def test_double_q_targets_value_the_online_choice_with_the_target_network(clipped) -> None:
    """target = r + disc * Q_target(s', argmax_a Q_online(s', a)) over the legal a
    (`clipped`: the lower of Q_target and Q_online there); a terminal row is just r."""
    rng = np.random.default_rng(2)
    dq = DDQN(DDQNConfig(hidden=(8,), features="paper", clipped=clipped,
                         learning_starts=10**9, buffer_size=8), seed=0)
    for net in (dq.q, dq.target):
        for w in net.W + net.b:
            w[...] = rng.standard_normal(w.shape)
        net.W[-1][:, PAD] = net.b[-1][PAD] = 0.0
    x, x2 = rng.standard_normal((2, STATE_DIM)).astype(np.float16)
    mask = np.zeros(ACTION_DIM, dtype=bool)
    legal = [0, 700, 2900, 2916]
    mask[legal] = True
    dq.replay.add(x, 5, 0.5, 0.9, x2, np.packbits(mask))
    dq.replay.add(x, 5, -2.0, 0.0, x2, np.zeros_like(np.packbits(mask)))
    x2f = x2.astype(np.float32)
    online = [dq.q_values(x2f, np.array([a]))[0] for a in legal]
    a_star = legal[int(np.argmax(online))]
    t_out = dq.target.forward(x2f[None])[0]
    q_target = t_out[dq.cols[a_star]].sum()
    q_next = min(q_target, max(online)) if clipped else q_target
    assert np.allclose(dq.targets(np.array([0, 1])), [0.5 + 0.9 * q_next, -2.0], atol=1e-4)


@pytest.mark.parametrize("bounded", [True, False])
def test_ddqn_targets_stay_within_what_the_delta_reward_can_still_pay(bounded: bool) -> None:
    """From a decision at share s the delta reward pays won - s in all (discounting keeps
    the return between the partial sums), so a bounded target lies in [-s, 1 - s] x scale
    however inflated the networks' values are; unbounded, the inflation passes through."""
    cfg = DDQNConfig(hidden=(8,), features="paper", n_step=1, reward_scale=30.0,
                     learning_starts=10**9, buffer_size=64, bounded=bounded)
    dq = DDQN(cfg, seed=0)
    dq.q.b[-1][dq.v] = dq.target.b[-1][dq.v] = 1000.0  # V(s) far past any return
    dq.q.sync()
    mask = np.zeros(ACTION_DIM, dtype=bool)
    mask[[3, 4]] = True
    rng = np.random.default_rng(0)
    shares = [0.6, 0.1, 0.35, 0.9]
    for t, s in enumerate(shares):
        if t:
            dq.add_reward(-0.05)
        dq.record(rng.random(STATE_DIM).astype(np.float32), mask, 3, share=s)
    dq.end_game(0.05)
    targets = dq.targets(np.arange(4))
    if bounded:
        assert list(targets[:3]) == pytest.approx([(1 - s) * 30 for s in shares[:3]])
        assert list(dq.replay.lo[:4]) == pytest.approx([-s * 30 for s in shares])
    else:
        assert np.all(targets[:3] > 900)
    assert targets[3] == pytest.approx(0.05 * 30)  # the end: the return itself, within bounds


def test_ddqn_bounds_need_the_delta_reward_and_old_checkpoints_load_unbounded() -> None:
    with pytest.raises(ValueError, match="bounded=true needs reward=delta"):
        DDQN(DDQNConfig(hidden=(8,), reward="paper"))
    paper = DDQN(DDQNConfig(hidden=(8,), reward="paper", bounded=False))
    assert paper.cfg.bounded is False
    dq = DDQN(DDQNConfig(hidden=(8,), features="paper", buffer_size=8), seed=0)
    state = dq.state_dict()
    del state["replay.lo"], state["replay.hi"]
    dq.replay.lo[:] = 1.0
    dq.load_state_dict(state, "old")
    assert np.all(dq.replay.lo == 1.0)  # kept: a missing field leaves the buffer as it is


def test_ddqn_reports_the_mean_chosen_q_since_the_last_update() -> None:
    dq = DDQN(DDQNConfig(hidden=(8,), features="paper", learning_starts=10**9), seed=0)
    mask = np.zeros(ACTION_DIM, dtype=bool)
    mask[3] = True
    for q in (1.0, 2.0, 6.0):
        dq.record(np.zeros(STATE_DIM, np.float32), mask, 3, q=q, share=0.25)
    assert dq.update()["q"] == pytest.approx(3.0)
    assert np.isnan(dq.update()["q"])
