"""Actor-critic PPO with the clipped surrogate objective and GAE (the paper's section V-A).

Two independent networks, as in the paper: the actor 240 -> 1024 -> 512 -> 2922 (masked
softmax over the legal actions) and the critic 240 -> 1024 -> 512 -> 1. Every
hyperparameter is a field of `PPOConfig` (printed in the training run's config).

Rollouts are whole games: the learner updates after the game in which its buffer
reached `rollout_steps` transitions, so every trajectory ends in a real terminal state
and GAE needs no bootstrap value (and a checkpoint between games resumes exactly).
Decisions with a single legal action are not learning steps: the agent takes that
action and its reward is added to the pending transition (a semi-MDP step).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.drl.encoding import ACTION_DIM, STATE_DIM
from agents.drl.nn import MLP, Adam, masked_log_softmax, masked_softmax


@dataclass
class PPOConfig:
    gamma: float = 0.9999  # the starting point
    gae_lambda: float = 0.95
    clip_coef: float = 0.2
    ent_coef: float = 0.0  # 0.01 pushed hundreds of legal offers up: entropy 0.4 -> 2 in 80 games
    vf_coef: float = 0.5
    lr: float = 1e-4  # with 4 epochs: full-batch KL ~2e-3 per update (2e-4: 0.02-0.03)
    max_grad_norm: float = 0.5
    update_epochs: int = 4
    minibatch_size: int = 256
    rollout_steps: int = 1024  # update after the game that fills this many transitions
    reward: str = "delta"  # "delta" (change of the eq. 4 share) or "paper" (eq. 4 per step)
    reward_scale: float = 1.0  # use 0.05 with reward=paper (returns of 100s of rewards)
    lone_bonus: float = 1.25  # b outside a complete set; the paper's 1.5 makes buying a
    # lone property from an opponent at 1.25 x price look like a gain (docs/drl.md, Reward)
    norm_adv: bool = True
    target_kl: float = 0.02  # stop an update's epochs once approx. KL passes 1.5 x this (0: off)
    hidden: tuple[int, ...] = (1024, 512)
    terminal_c: float = 0.0  # the paper's c for PPO
    prior: bool = True  # start from a cautious policy (see `policy_prior`); not in the paper


def policy_prior() -> np.ndarray:
    """Initial output biases of the actor: pass and build are likely, trade offers rare.

    A uniform start spreads its probability over hundreds of legal trade offers and gives
    its properties away in every game, which leaves almost no winning games to learn
    from. These biases (logits) make the untrained policy mostly pass, build when it can
    and trade now and then; learning moves them like any other weight.
    """
    from agents.drl import encoding as E
    b = np.zeros(ACTION_DIM, dtype=np.float32)
    b[E.EXCHANGE:E.IMPROVE] = -4.0
    b[E.IMPROVE:E.SELL_BUILDING] = 4.0
    b[E.SELL_BUILDING:E.FREE_MORTGAGE] = -2.0
    b[E.FREE_MORTGAGE:E.SKIP] = 1.0
    b[E.SKIP] = b[E.CONCLUDE] = 4.0
    # SKIP is also Decline in the buy phase: BUY one above it, so the start buys an
    # affordable property about 3 times in 4 (at 0 it bought 2 of 128 and never won).
    b[E.BUY] = 5.0
    return b


def policy_loss(logits: np.ndarray, mask: np.ndarray, actions: np.ndarray,
                old_logp: np.ndarray, adv: np.ndarray, clip: float,
                ent_coef: float) -> tuple[float, np.ndarray, dict[str, float]]:
    """Clipped surrogate minus the entropy bonus; returns (loss, dLoss/dlogits, stats)."""
    n = len(actions)
    rows = np.arange(n)
    logp_all = masked_log_softmax(logits, mask)
    p = masked_softmax(logits, mask)
    logp = logp_all[rows, actions]
    ratio = np.exp(logp - old_logp)
    t1 = ratio * adv
    t2 = np.clip(ratio, 1 - clip, 1 + clip) * adv
    surrogate = np.minimum(t1, t2)
    entropy = -(p * logp_all).sum(axis=1)
    loss = float(-surrogate.mean() - ent_coef * entropy.mean())
    inside = (ratio > 1 - clip) & (ratio < 1 + clip)
    g_logp = -(adv * ratio) * np.where(t1 <= t2, 1.0, inside) / n
    grad = -p * g_logp[:, None]
    grad[rows, actions] += g_logp
    grad += (ent_coef / n) * p * (logp_all + entropy[:, None])
    grad = np.where(mask, grad, 0.0)
    stats = {"policy_loss": float(-surrogate.mean()), "entropy": float(entropy.mean()),
             "clipfrac": float(np.mean(~inside)),
             "approx_kl": float(np.mean((ratio - 1) - (logp - old_logp)))}
    return loss, grad, stats


def value_loss(values: np.ndarray, returns: np.ndarray, coef: float) -> tuple[float, np.ndarray]:
    """coef * 0.5 * mean squared error; returns (loss, dLoss/dvalues)."""
    d = values - returns
    return float(coef * 0.5 * np.mean(d * d)), coef * d / len(d)


def gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, gamma: float,
        lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns; `dones[t]` marks the last transition of a game."""
    adv = np.zeros_like(rewards)
    last = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        nonterminal = 0.0 if dones[t] else 1.0
        next_value = values[t + 1] if t + 1 < len(values) and not dones[t] else 0.0
        delta = rewards[t] + gamma * next_value * nonterminal - values[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + values


class PPO:
    """The learner: acts for the agent during training and updates from its rollouts."""

    algo = "ppo"

    def __init__(self, cfg: PPOConfig | None = None, seed: int = 0) -> None:
        self.cfg = cfg or PPOConfig()
        rng = np.random.default_rng(seed)
        h = tuple(self.cfg.hidden)
        self.actor = MLP((STATE_DIM, *h, ACTION_DIM), rng=rng, out_scale=0.01)
        self.critic = MLP((STATE_DIM, *h, 1), rng=rng)
        if self.cfg.prior:
            self.actor.b[-1][...] = policy_prior()
        self.opt_actor = Adam(self.actor.params(), lr=self.cfg.lr,
                              max_grad_norm=self.cfg.max_grad_norm)
        self.opt_critic = Adam(self.critic.params(), lr=self.cfg.lr,
                               max_grad_norm=self.cfg.max_grad_norm)
        self.rng = np.random.default_rng(seed + 1)
        self._clear()
        self.updates = 0

    def _clear(self) -> None:
        self.xs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []  # packed bits
        self.actions: list[int] = []
        self.logps: list[float] = []
        self.values: list[float] = []
        self.rewards: list[float] = []
        self.dones: list[bool] = []

    # -- acting ---------------------------------------------------------------------
    def value(self, x: np.ndarray) -> float:
        return float(self.critic.forward_one(x)[0])

    def choose(self, x: np.ndarray, idx: np.ndarray, rng: Any, greedy: bool) -> tuple[int, float]:
        """An action index among the legal `idx` (sampled, or the most likely)."""
        z = self.actor.forward_legal(x, idx).astype(np.float64)
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        k = int(np.argmax(p)) if greedy else int(min(np.searchsorted(np.cumsum(p), rng.random()),
                                                      len(p) - 1))
        return int(idx[k]), float(np.log(p[k] + 1e-30))

    def record(self, x: np.ndarray, mask: np.ndarray, action: int, logp: float) -> None:
        self.xs.append(x.copy())
        self.masks.append(np.packbits(mask))
        self.actions.append(action)
        self.logps.append(logp)
        self.values.append(self.value(x))
        self.rewards.append(0.0)
        self.dones.append(False)

    def add_reward(self, r: float, discount: float = 1.0) -> None:
        if self.rewards and not self.dones[-1]:
            self.rewards[-1] += discount * r

    def end_game(self, final_reward: float) -> None:
        if self.rewards and not self.dones[-1]:
            self.rewards[-1] += final_reward
            self.dones[-1] = True

    def ready(self) -> bool:
        return len(self.actions) >= self.cfg.rollout_steps and (not self.dones or self.dones[-1])

    # -- learning -------------------------------------------------------------------
    def update(self) -> dict[str, float]:
        cfg = self.cfg
        n = len(self.actions)
        if n == 0:
            return {}
        x = np.stack(self.xs).astype(np.float32)
        mask = np.unpackbits(np.stack(self.masks), axis=1, count=ACTION_DIM).astype(bool)
        actions = np.array(self.actions)
        old_logp = np.array(self.logps)
        values = np.array(self.values)
        rewards = np.array(self.rewards) * cfg.reward_scale
        dones = np.array(self.dones)
        adv, returns = gae(rewards, values, dones, cfg.gamma, cfg.gae_lambda)
        stats: dict[str, float] = {}
        steps = 0
        moved = False  # the policy moved enough for this rollout (CleanRL's early stop)
        for _ in range(cfg.update_epochs):
            if moved:
                break
            order = self.rng.permutation(n)
            for start in range(0, n, cfg.minibatch_size):
                if moved:
                    break
                mb = order[start:start + cfg.minibatch_size]
                a = adv[mb]
                if cfg.norm_adv and len(mb) > 1:
                    a = (a - a.mean()) / (a.std() + 1e-8)
                logits = self.actor.forward(x[mb]).astype(np.float64)
                _, g, stats = policy_loss(logits, mask[mb], actions[mb], old_logp[mb], a,
                                          cfg.clip_coef, cfg.ent_coef)
                self.opt_actor.step(self.actor.backward(g.astype(np.float32)))
                v = self.critic.forward(x[mb])[:, 0].astype(np.float64)
                vl, gv = value_loss(v, returns[mb], cfg.vf_coef)
                self.opt_critic.step(self.critic.backward(gv[:, None].astype(np.float32)))
                stats["value_loss"] = vl
                steps += 1
                moved = cfg.target_kl > 0 and stats["approx_kl"] > 1.5 * cfg.target_kl
        self.actor.sync()
        self.critic.sync()
        self.updates += 1
        self._clear()
        stats["samples"] = float(n)
        stats["minibatches"] = float(steps)
        return stats

    # -- persistence ----------------------------------------------------------------
    def weights(self) -> dict[str, np.ndarray]:
        """What an agent needs to play (and to compute its surprise)."""
        return {**self.actor.state_dict("actor."), **self.critic.state_dict("critic.")}

    def load_weights(self, data, source: str) -> None:
        self.actor.load_state_dict(data, "actor.", source)
        self.critic.load_state_dict(data, "critic.", source)
        self.actor.sync()
        self.critic.sync()

    def state_dict(self) -> dict[str, np.ndarray]:
        """Everything needed to resume training exactly (weights, optimisers, RNG, buffer)."""
        out = self.weights()
        out.update(self.opt_actor.state_dict("opt_actor."))
        out.update(self.opt_critic.state_dict("opt_critic."))
        out["rng"] = np.array(json.dumps(self.rng.bit_generator.state))
        out["updates"] = np.array(self.updates)
        out["cfg"] = np.array(json.dumps(asdict(self.cfg)))
        out["buf.x"] = np.array(self.xs, dtype=np.float32).reshape(-1, STATE_DIM)
        out["buf.mask"] = np.array(self.masks, dtype=np.uint8).reshape(
            len(self.masks), (ACTION_DIM + 7) // 8)
        for k in ("actions", "logps", "values", "rewards", "dones"):
            out[f"buf.{k}"] = np.array(getattr(self, k))
        return out

    def load_state_dict(self, data, source: str) -> None:
        self.load_weights(data, source)
        self.opt_actor.load_state_dict(data, "opt_actor.")
        self.opt_critic.load_state_dict(data, "opt_critic.")
        self.rng.bit_generator.state = json.loads(str(data["rng"]))
        self.updates = int(data["updates"])
        self.xs = list(data["buf.x"])
        self.masks = list(data["buf.mask"])
        self.actions = [int(v) for v in data["buf.actions"]]
        self.logps = [float(v) for v in data["buf.logps"]]
        self.values = [float(v) for v in data["buf.values"]]
        self.rewards = [float(v) for v in data["buf.rewards"]]
        self.dones = [bool(v) for v in data["buf.dones"]]
