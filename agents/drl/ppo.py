"""Actor-critic PPO with the clipped surrogate objective and GAE (the paper's section V-A).

Two independent networks, as in the paper: the actor (a masked policy head over the
2922 actions, `heads.py`) and the critic (one value). Every hyperparameter is a field of
`PPOConfig`, visible below; `PRESETS["paper"]` is the paper's setting (its network,
state, flat head and eq. 4 reward) and `conf/train.yaml` only overrides.

Rollouts are whole games: the learner updates after the game in which its buffer
reached `rollout_steps` transitions, so every trajectory ends in a real terminal state
and GAE needs no bootstrap value (and a checkpoint between games resumes exactly).
Decisions with a single legal action are not learning steps: the agent takes that
action and its reward is added to the pending transition (a semi-MDP step).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from agents.drl.encoding import ACTION_DIM, state_dim
from agents.drl.heads import make_head
from agents.drl.nn import MLP, Adam


@dataclass(frozen=True)
class PPOConfig:
    gamma: float = 0.999  # a game is hundreds of decisions: 0.99 would hide its end
    gae_lambda: float = 0.95
    clip_coef: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    lr: float = 3e-4
    anneal_lr: bool = True  # linearly to 0 over the run's games (CleanRL)
    max_grad_norm: float = 0.5
    update_epochs: int = 4
    minibatch_size: int = 256
    rollout_steps: int = 2048  # update after the game that fills this many transitions
    reward: str = "delta"  # "delta" (change of the eq. 4 share) or "paper" (eq. 4 per step)
    reward_scale: float = 1.0  # use 0.05 with reward=paper (returns of 100s of rewards)
    lone_bonus: float = 1.25  # b outside a complete set; the paper's 1.5 makes buying a
    # lone property from an opponent at 1.25 x price look like a gain (docs/drl.md, Reward)
    norm_adv: bool = True
    offer_cost: float = 0.0  # reward charged for each trade offer made (0: none, the paper)
    target_kl: float = 0.0  # stop an update's epochs once approx. KL passes 1.5 x this (0: off)
    hidden: tuple[int, ...] = (256, 256)
    terminal_c: float = 0.0  # the paper's c for PPO
    prior: bool = True  # start from the head's prior biases (`heads.py`); not in the paper
    head: str = "factored"  # "factored" (type, then target) or "flat" (the paper's)
    features: str = "extended"  # "extended" (phase, pending offer, ...) or "paper" (240)


PRESETS = {
    "default": PPOConfig(),
    # What the paper states: its network, state and action head, eq. 4 as the reward and
    # a uniform start; what it leaves unstated keeps the values above.
    "paper": PPOConfig(hidden=(1024, 512), head="flat", features="paper", reward="paper",
                       reward_scale=0.05, lone_bonus=1.5, prior=False, gamma=0.9999,
                       lr=1e-4, anneal_lr=False),
    # The network behaviour cloning fits (`imitate.py`, a warm start for the paper's
    # setting): the paper's network, state and flat head, with the default reward.
    "imitate": PPOConfig(hidden=(1024, 512), head="flat", features="paper", gamma=0.9999),
}
# The options a behaviour-cloning run's recorded teacher games depend on.
IMITATION_KEYS = ("hidden", "prior", "reward", "lone_bonus", "gamma", "terminal_c", "head",
                  "features")


def config(preset: str = "default", **overrides: Any) -> PPOConfig:
    """A preset's configuration with `overrides` (one-line error on a bad name)."""
    if preset not in PRESETS:
        raise ValueError(f"unknown ppo preset {preset!r}; valid: {', '.join(PRESETS)}")
    return replace(PRESETS[preset], **overrides)


def policy_prior() -> np.ndarray:
    """Initial output biases of the flat actor: pass and build are likely, offers rare.

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


def policy_loss(head: Any, out: np.ndarray, mask: np.ndarray, actions: np.ndarray,
                old_logp: np.ndarray, adv: np.ndarray, clip: float,
                ent_coef: float) -> tuple[float, np.ndarray, dict[str, float]]:
    """Clipped surrogate minus the entropy bonus; returns (loss, dLoss/d outputs, stats)."""
    n = len(actions)
    logp, entropy, cache = head.log_prob(out, mask, actions)
    ratio = np.exp(logp - old_logp)
    t1 = ratio * adv
    t2 = np.clip(ratio, 1 - clip, 1 + clip) * adv
    surrogate = np.minimum(t1, t2)
    loss = float(-surrogate.mean() - ent_coef * entropy.mean())
    inside = (ratio > 1 - clip) & (ratio < 1 + clip)
    g_logp = -(adv * ratio) * np.where(t1 <= t2, 1.0, inside) / n
    grad = head.backward(cache, g_logp, np.full(n, -ent_coef / n))
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
    plays_greedy = False  # a trained agent samples its policy (greedy=True: its mode)

    def __init__(self, cfg: PPOConfig | None = None, seed: int = 0) -> None:
        self.cfg = cfg = cfg or PPOConfig()
        self.head = make_head(cfg.head)
        self.state_dim = state_dim(cfg.features)
        rng = np.random.default_rng(seed)
        h = tuple(cfg.hidden)
        self.actor = MLP((self.state_dim, *h, self.head.out_dim), rng=rng, out_scale=0.01)
        self.critic = MLP((self.state_dim, *h, 1), rng=rng)
        if cfg.prior:
            self.actor.b[-1][...] = self.head.prior()
        self.opt_actor = Adam(self.actor.params(), lr=cfg.lr, max_grad_norm=cfg.max_grad_norm)
        self.opt_critic = Adam(self.critic.params(), lr=cfg.lr,
                               max_grad_norm=cfg.max_grad_norm)
        self.rng = np.random.default_rng(seed + 1)
        self._clear()
        self.updates = 0
        self.progress = 0.0  # share of the run done, set by the trainer (lr annealing)

    def _clear(self) -> None:
        self.xs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []  # packed bits
        self.actions: list[int] = []
        self.logps: list[float] = []
        self.rewards: list[float] = []
        self.dones: list[bool] = []

    # -- acting ---------------------------------------------------------------------
    def values(self, xs: np.ndarray) -> np.ndarray:
        """The critic's values of a batch of states (n, features) -> (n,)."""
        return self.critic.predict(xs)[:, 0]

    def choose(self, x: np.ndarray, idx: np.ndarray, rng: Any, greedy: bool) -> tuple[int, float]:
        """An action index among the legal `idx` (sampled, or the most likely) and its
        log-probability."""
        return self.head.act(self.actor, x, idx, rng, greedy)

    def record(self, x: np.ndarray, mask: np.ndarray, action: int, logp: float,
               share: float | None = None) -> None:
        """One step of the rollout (`share` is for learners that bound their targets)."""
        self.xs.append(x.copy())
        self.masks.append(np.packbits(mask))
        self.actions.append(action)
        self.logps.append(logp)
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

    def after_game(self) -> dict[str, float]:
        """After a training game: an update once the rollout is full (its statistics),
        else nothing."""
        return self.update() if self.ready() else {}

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
        # Why here and not per decision: the critic does not change within a rollout,
        # and one batched pass costs a fraction of n single ones.
        values = self.critic.forward(x)[:, 0].astype(np.float64)
        rewards = np.array(self.rewards) * cfg.reward_scale
        dones = np.array(self.dones)
        adv, returns = gae(rewards, values, dones, cfg.gamma, cfg.gae_lambda)
        lr = cfg.lr * (1.0 - self.progress) if cfg.anneal_lr else cfg.lr
        self.opt_actor.lr = self.opt_critic.lr = max(lr, 0.0)
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
                out = self.actor.forward(x[mb]).astype(np.float64)
                _, g, stats = policy_loss(self.head, out, mask[mb], actions[mb], old_logp[mb],
                                          a, cfg.clip_coef, cfg.ent_coef)
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
        stats["lr"] = float(self.opt_actor.lr)
        return stats

    # -- persistence ----------------------------------------------------------------
    def weights(self) -> dict[str, np.ndarray]:
        """What an agent needs to play (and to compute its surprise), with the config
        that says how to read it (head, features, sizes)."""
        return {**self.actor.state_dict("actor."), **self.critic.state_dict("critic."),
                "cfg": np.array(json.dumps(asdict(self.cfg)))}

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
        out["buf.x"] = np.array(self.xs, dtype=np.float32).reshape(-1, self.state_dim)
        out["buf.mask"] = np.array(self.masks, dtype=np.uint8).reshape(
            len(self.masks), (ACTION_DIM + 7) // 8)
        for k in ("actions", "logps", "rewards", "dones"):
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
        self.rewards = [float(v) for v in data["buf.rewards"]]
        self.dones = [bool(v) for v in data["buf.dones"]]
