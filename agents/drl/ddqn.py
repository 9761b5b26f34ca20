"""Double DQN with experience replay, a target network and exponentially decaying
epsilon-greedy exploration over the legal actions (the paper's section V-A).

The paper's Q-network is 240 -> 1024 -> 512 -> 2922; the target network is a copy
refreshed every `target_every` updates. Targets are double-Q: the online network picks
the best legal next action, the target network values it. By default the network has one
more output, the state's value V(s), and Q(s, a) = V(s) + A(s, a) (dueling, Wang et al.
2016), with the advantage weights starting at zero: see `DDQNConfig.dueling`. Every hyperparameter is a field of
`DDQNConfig`. As in `ppo.py`, decisions with a single legal action are not learning
steps: their reward is added to the pending transition with its discount.
"""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from agents.drl.encoding import ACTION_DIM, state_dim
from agents.drl.heads import COMPONENTS, FACTORED_DIM, N_TYPES, TYPE_OF, FactoredHead
from agents.drl.nn import MLP, Adam, masked_argmax
from agents.drl.ppo import policy_prior

EXPLORE = ("type", "uniform", "prior")
Q_HEADS = ("factored", "flat")
# The factored Q-head's outputs: 13 type values, 271 components (as the factored policy
# head, `agents.drl.heads`), then PAD, held at zero, for actions with fewer components.
PAD = FACTORED_DIM
FACTORED_COLS = np.concatenate([TYPE_OF[:, None], N_TYPES + COMPONENTS], axis=1)  # (2922, 4)


@dataclass(frozen=True)
class DDQNConfig:
    gamma: float = 0.99  # Why not PPO's 0.999: the max's overestimation compounds through the
    # bootstrap, ~1 / (1 - gamma) decisions deep; at 0.999 the values of hybrid DDQN seed 2
    # rose past what a game can pay and the policy fell from 94 to ~65 wins per 100, bounded
    # or not; at 0.99 they held at the returns (docs/drl.md, Networks and learning). The
    # delta reward pays the share's change at every step, so a shorter horizon loses little
    lr: float = 1e-4
    max_grad_norm: float = 10.0
    buffer_size: int = 20_000
    batch_size: int = 64
    learning_starts: int = 500  # transitions before the first update
    train_every: int = 8  # transitions between updates
    target_every: int = 250  # updates between target-network refreshes
    eps_start: float = 1.0
    eps_end: float = 0.05
    eps_decay: float = 20_000.0  # transitions for epsilon to fall by a factor e
    huber_delta: float = 1.0
    n_step: int = 1  # rewards summed before bootstrapping (Rainbow's multi-step target)
    clipped: bool = False  # bootstrap from min(online, target) at the chosen action (TD3's
    # clipped double-Q), against the max's overestimation
    bounded: bool = True  # targets clipped to what the delta reward can still pay from the
    # decision's share s: [-s - c, 1 - s + c] x reward_scale (c = terminal_c). Why: a value
    # past that range is overestimation by construction; unbounded at gamma 0.999, the
    # values of hybrid DDQN seed 2 passed it in every probed state by game 3,000 and greedy
    # play fell into mortgage-and-redeem loops. It slows the rise; gamma 0.99 stops it
    lazy_adam: bool = True  # Adam moves only the output columns a batch touched. Why: a
    # batch touches <= 2 x batch_size of the 2,923 outputs, and full Adam on that layer
    # was a quarter of training time
    head: str = "factored"  # Q(s, a) = type value + the target's summed components (the
    # factored policy head's layout, 285 outputs): what is learned of offering property
    # p carries to every partner and cash level. "flat": one output per action (paper)
    dueling: bool = True  # Q = V(s) + A(s, a), A's weights starting at 0 (see below)
    # Why: of ~100 legal actions a decision tries one, so most outputs are never trained;
    # with Q = one output per action their values drift with the shared layers, the
    # target's max picks the drift, and the Q-values of lost games rose to +1 (the best a
    # win can give). With V(s) every action's value follows the state's, and an untried
    # action keeps its prior advantage.
    reward: str = "delta"  # "delta" (change of the eq. 4 share) or "paper" (eq. 4 per step)
    reward_scale: float = 30.0  # a game's return is 30 x (won - first share), in [-7.5, 22.5].
    # Why: a mortgage-and-redeem loop costs ~0.002 of share, which at the old 0.1 scale was
    # 0.0002 against target noise of ~0.05, and the greedy policy looped; at 30 (terminal
    # c 0) the hybrid won 100 of its games 101-200 (docs/results.md, DDQN ablation)
    lone_bonus: float = 1.25  # b outside a complete set; the paper's 1.5 makes buying a
    # lone property from an opponent at 1.25 x price look like a gain (docs/drl.md, Reward)
    hidden: tuple[int, ...] = (256, 256)
    terminal_c: float = 0.0  # +-c at the end; the delta reward already pays the win (the
    # paper's c = 10 was for eq. 4 per step: the paper preset keeps it)
    prior: float = 0.1  # scale of PPO's `policy_prior` as initial Q biases (0: the paper's start)
    warm_scale: float = 0.05  # `init=` a PPO policy: its logits x this become the initial Q
    explore: str = "prior"  # epsilon draws from the untrained PPO policy (`policy_prior`:
    # mostly pass, build and buy, an offer now and then), so early games are the prior's
    # (~15% won) instead of random sales; "type": a legal action type, then a target;
    # "uniform": any legal action (the paper's; a trade offer 95% of the time)
    features: str = "extended"  # "extended" (phase, pending offer, ...) or "paper" (240)


PRESETS = {
    "default": DDQNConfig(),
    # What the paper states: its network and state, uniform exploration, eq. 4 as the
    # reward, c = 10 and a zero start; what it leaves unstated keeps the values above.
    "paper": DDQNConfig(hidden=(1024, 512), features="paper", explore="uniform",
                        reward="paper", reward_scale=0.05, lone_bonus=1.5, prior=0.0,
                        dueling=False, head="flat", terminal_c=10.0, bounded=False),
}


def config(preset: str = "default", **overrides: Any) -> DDQNConfig:
    """A preset's configuration with `overrides` (one-line error on a bad name)."""
    if preset not in PRESETS:
        raise ValueError(f"unknown ddqn preset {preset!r}; valid: {', '.join(PRESETS)}")
    return replace(PRESETS[preset], **overrides)


def td_loss(q: np.ndarray, targets: np.ndarray, delta: float) -> tuple[float, np.ndarray]:
    """Huber loss of the taken actions' Q(s, a) against the targets; returns (loss,
    dLoss/dq)."""
    d = q - targets
    small = np.abs(d) <= delta
    loss = float(np.mean(np.where(small, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta))))
    return loss, np.clip(d, -delta, delta) / len(d)


class Replay:
    """A ring buffer; next-state masks are packed bits (366 bytes instead of 2922).
    `lo`, `hi`: the bounds of each transition's target (infinite: unbounded)."""

    FIELDS = ("x", "x2", "mask2", "a", "r", "disc", "lo", "hi")

    def __init__(self, size: int, dim: int) -> None:
        self.size = size
        self.x = np.zeros((size, dim), dtype=np.float16)
        self.x2 = np.zeros((size, dim), dtype=np.float16)
        self.mask2 = np.zeros((size, (ACTION_DIM + 7) // 8), dtype=np.uint8)
        self.a = np.zeros(size, dtype=np.int64)
        self.r = np.zeros(size, dtype=np.float32)
        self.disc = np.zeros(size, dtype=np.float32)  # gamma^k to the next decision, 0 at the end
        self.lo = np.full(size, -np.inf, dtype=np.float32)
        self.hi = np.full(size, np.inf, dtype=np.float32)
        self.n = 0
        self.pos = 0

    def add(self, x, a, r, disc, x2, mask2, lo: float = -np.inf, hi: float = np.inf) -> None:
        i = self.pos
        self.x[i], self.a[i], self.r[i], self.disc[i] = x, a, r, disc
        self.lo[i], self.hi[i] = lo, hi
        self.x2[i] = x2
        self.mask2[i] = mask2
        self.pos = (i + 1) % self.size
        self.n = min(self.n + 1, self.size)

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        out = {f"{prefix}{k}": getattr(self, k) for k in self.FIELDS}
        out[f"{prefix}n"] = np.array(self.n)
        out[f"{prefix}pos"] = np.array(self.pos)
        return out

    def load(self, data, prefix: str) -> None:
        """Missing bounds (a checkpoint from before they existed) load as unbounded."""
        for k in self.FIELDS:
            if f"{prefix}{k}" in data:
                getattr(self, k)[...] = data[f"{prefix}{k}"]
        self.n = int(data[f"{prefix}n"])
        self.pos = int(data[f"{prefix}pos"])


class DDQN:
    algo = "ddqn"
    plays_greedy = True  # a trained agent plays its best legal Q-value

    def __init__(self, cfg: DDQNConfig | None = None, seed: int = 0) -> None:
        self.cfg = cfg or DDQNConfig()
        if self.cfg.explore not in EXPLORE:
            raise ValueError(f"unknown ddqn explore {self.cfg.explore!r}; valid: "
                             f"{', '.join(EXPLORE)}")
        if self.cfg.head not in Q_HEADS:
            raise ValueError(f"unknown ddqn head {self.cfg.head!r}; valid: {', '.join(Q_HEADS)}")
        if self.cfg.n_step < 1:
            raise ValueError(f"ddqn n_step must be at least 1, got {self.cfg.n_step}")
        if self.cfg.bounded and self.cfg.reward != "delta":
            raise ValueError("ddqn bounded=true needs reward=delta (the bounds are what the "
                             "delta reward can still pay); set ddqn.bounded=false")
        rng = np.random.default_rng(seed)
        self.state_dim = state_dim(self.cfg.features)
        self.factored = self.cfg.head == "factored"
        n_out = PAD + 1 if self.factored else ACTION_DIM
        self.v = n_out if self.cfg.dueling else None  # the output holding V(s)
        # each action's output columns, V's included: Q(s, a) is their sum
        cols = FACTORED_COLS if self.factored else np.arange(ACTION_DIM)[:, None]
        self.cols = cols if self.v is None else \
            np.concatenate([cols, np.full((ACTION_DIM, 1), self.v)], axis=1)
        sizes = (self.state_dim, *tuple(self.cfg.hidden), n_out + self.cfg.dueling)
        self.q = MLP(sizes, rng=rng, out_scale=0.0 if self.cfg.dueling else 0.1)
        if self.cfg.prior:
            # Why: a random start's argmax picks among hundreds of trade offers and sales
            # and loses every game, so the replay holds no win to learn from; these biases
            # make the greedy start pass and build (learning moves them like any weight).
            prior = FactoredHead().prior() if self.factored else policy_prior()
            self.q.b[-1][:len(prior)] = self.cfg.prior * prior
            self.q.sync()
        self.target = MLP(sizes, rng=rng)
        self.target.copy_from(self.q)
        self.opt = Adam(self.q.params(), lr=self.cfg.lr, max_grad_norm=self.cfg.max_grad_norm)
        self.replay = Replay(self.cfg.buffer_size, self.state_dim)
        self.rng = np.random.default_rng(seed + 1)
        self._prior = policy_prior().astype(np.float64)
        self.steps = 0  # transitions recorded
        self.updates = 0
        # x, a, r, disc, share at x (None: no bound)
        self.pending: tuple[np.ndarray, int, float, float, float | None] | None = None
        # transitions whose reward is known, waiting for the state n_step decisions on
        self.chain: deque[tuple[np.ndarray, int, float, float, float | None]] = deque()
        self.last_loss = float("nan")
        self._q_sum, self._q_n = 0.0, 0  # chosen Q-values since the last `update()`

    @property
    def epsilon(self) -> float:
        c = self.cfg
        return c.eps_end + (c.eps_start - c.eps_end) * math.exp(-self.steps / c.eps_decay)

    # -- acting ---------------------------------------------------------------------
    def q_values(self, x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        if self.factored:
            return self.q.forward_one(x)[self.cols[idx]].sum(axis=1)
        if self.v is None:
            return self.q.forward_legal(x, idx)
        out = self.q.forward_legal(x, np.append(idx, self.v))
        return out[:-1] + out[-1]

    def choose(self, x: np.ndarray, idx: np.ndarray, rng: Any, greedy: bool) -> tuple[int, float]:
        """Epsilon-greedy over the legal `idx` (greedy: epsilon 0). Returns (index, Q)."""
        q = self.q_values(x, idx)
        if not greedy and rng.random() < self.epsilon:
            if self.cfg.explore == "type":  # a legal type, then one of its actions
                types = TYPE_OF[idx]
                legal = np.unique(types)
                among = np.flatnonzero(types == legal[int(rng.random() * len(legal))])
                k = int(among[int(rng.random() * len(among))])
            elif self.cfg.explore == "prior":
                w = np.exp(self._prior[idx] - self._prior[idx].max())
                k = min(int(np.searchsorted(np.cumsum(w), rng.random() * w.sum())),
                        len(idx) - 1)
            else:
                k = int(rng.random() * len(idx))
        else:
            k = int(np.argmax(q))
        return int(idx[k]), float(q[k])

    def record(self, x: np.ndarray, mask: np.ndarray, action: int, q: float = 0.0,
               share: float | None = None) -> None:
        """A new learning step (`q`: the chosen action's value; `share`: the player's share
        at `x`, which bounds its target): closes the pending transition; the oldest of the
        last `n_step` then gets `x` as its bootstrap state."""
        self._q_sum += q
        self._q_n += 1
        if self.pending is not None:
            self.chain.append(self.pending)
            if len(self.chain) == self.cfg.n_step:
                self._emit(x, np.packbits(mask))
        self.pending = (x.copy(), action, 0.0, self.cfg.gamma, share)

    def _bounds(self, share: float | None) -> tuple[float, float]:
        """The range of the return to go from a decision at this share (see `bounded`)."""
        c = self.cfg
        if not c.bounded or share is None:
            return -np.inf, np.inf
        return ((-share - c.terminal_c) * c.reward_scale,
                (1.0 - share + c.terminal_c) * c.reward_scale)

    def _emit(self, x2: np.ndarray, mask2: np.ndarray, terminal: bool = False) -> None:
        """Stores the chain's oldest transition with its multi-step return."""
        x, a, share = self.chain[0][0], self.chain[0][1], self.chain[0][4]
        ret, disc = 0.0, 1.0
        for _, _, r, d, _ in self.chain:
            ret += disc * r
            disc *= d
        self.replay.add(x, a, ret * self.cfg.reward_scale, 0.0 if terminal else disc, x2, mask2,
                        *self._bounds(share))
        self.chain.popleft()
        self._maybe_learn()

    def add_reward(self, r: float, discount: float = 1.0) -> None:
        if self.pending is not None:
            x, a, pr, pdisc, share = self.pending
            self.pending = (x, a, pr + discount * r, pdisc, share)

    def end_game(self, final_reward: float) -> None:
        if self.pending is not None:
            x, a, r, d, share = self.pending
            self.chain.append((x, a, r + final_reward, d, share))
            self.pending = None
            none = np.zeros((ACTION_DIM + 7) // 8, dtype=np.uint8)
            while self.chain:
                self._emit(x, none, terminal=True)

    def ready(self) -> bool:
        return False  # DDQN learns as it plays

    def after_game(self) -> dict[str, float]:
        """After a training game: the statistics for the curve (it learned as it played)."""
        return self.update()

    def update(self) -> dict[str, float]:
        """The last loss, epsilon and the mean chosen Q since the last call (a rising mean
        past what a game can pay is the sign of overestimation)."""
        q = self._q_sum / self._q_n if self._q_n else float("nan")
        self._q_sum, self._q_n = 0.0, 0
        return {"loss": self.last_loss, "epsilon": self.epsilon, "q": q}

    # -- learning -------------------------------------------------------------------
    def _maybe_learn(self) -> None:
        self.steps += 1
        c = self.cfg
        if self.replay.n >= c.learning_starts and self.steps % c.train_every == 0:
            self.learn_batch()

    def targets(self, i: np.ndarray) -> np.ndarray:
        """Double-Q targets of replay rows `i`: the online network picks each next state's
        best legal action, the target network values it (`clipped`: the lower of the two
        values)."""
        rp = self.replay
        x2 = rp.x2[i].astype(np.float32)
        mask2 = np.unpackbits(rp.mask2[i], axis=1, count=ACTION_DIM).astype(bool)
        live = mask2.any(axis=1)
        mask2[~live, 0] = True  # terminal rows: any column (their discount is 0)
        out2 = self.q.forward(x2)
        best = self._best(out2, mask2)
        q_next = self.target.forward_picked(x2, self.cols[best])
        if self.cfg.clipped:
            online = out2[np.arange(len(best))[:, None], self.cols[best]].sum(axis=1)
            q_next = np.minimum(q_next, online)
        out = rp.r[i] + rp.disc[i] * np.where(live, q_next, 0.0)
        return np.clip(out, rp.lo[i], rp.hi[i]) if self.cfg.bounded else out

    def learn_batch(self) -> float:
        c = self.cfg
        rp = self.replay
        i = self.rng.integers(0, rp.n, size=c.batch_size)
        targets = self.targets(i)
        q = self.q.forward_picked(rp.x[i].astype(np.float32), self.cols[rp.a[i]])
        loss, g = td_loss(q, targets, c.huber_delta)
        grads = self.q.backward_picked(g)
        last = len(grads) - 2  # the output layer's W and b
        used = self.q.picked_used
        self.opt.step(grads, {last: used, last + 1: used} if c.lazy_adam else None)
        if self.factored:  # PAD stands for "no component": it stays zero
            self.q.W[-1][:, PAD] = 0.0
            self.q.b[-1][PAD] = 0.0
        self.q.sync()
        self.updates += 1
        if self.updates % c.target_every == 0:
            self.target.copy_from(self.q)
        self.last_loss = loss
        return loss

    def _best(self, out: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Each row's legal action with the highest Q (V(s) shifts a row alike)."""
        if not self.factored:
            return masked_argmax(out[:, :ACTION_DIM], mask)
        # row-major: each row's actions in one run. Why flatnonzero: 2-D nonzero on the
        # (batch, 2922) mask took 0.6 ms, an eighth of an update; this takes 0.1
        r, a = np.divmod(np.flatnonzero(mask), mask.shape[1])
        q = out[r[:, None], FACTORED_COLS[a]].sum(axis=1)
        starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
        top = np.repeat(np.maximum.reduceat(q, starts), np.diff(np.r_[starts, len(r)]))
        hit = np.flatnonzero(q == top)
        first = hit[np.r_[True, r[hit][1:] != r[hit][:-1]]]  # the first best, as argmax
        return a[first]

    # -- persistence ----------------------------------------------------------------
    def weights(self) -> dict[str, np.ndarray]:
        return {**self.q.state_dict("q."), "cfg": np.array(json.dumps(asdict(self.cfg)))}

    def load_weights(self, data, source: str) -> None:
        self.q.load_state_dict(data, "q.", source)
        self.q.sync()
        self.target.copy_from(self.q)

    def load_policy(self, data, source: str) -> None:
        """Warm start (`init=` a PPO file): the actor becomes the Q-network, last layer
        scaled by `warm_scale`. Why: the greedy start then plays the policy's mode (a
        behaviour clone's, say) instead of losing every game, so the replay holds wins;
        logits are not values, and the TD updates move them towards values from there."""
        if "q.W0" in data:
            return self.load_weights(data, source)
        if "actor.W0" not in data:
            raise ValueError(f"{source}: neither a DDQN (q.*) nor a PPO (actor.*) network")
        if self.cfg.dueling or self.factored:
            raise ValueError(f"{source}: a warm start from a PPO policy needs "
                             "ddqn.dueling=false ddqn.head=flat (a flat head, no state value)")
        self.q.load_state_dict(data, "actor.", source)
        self.q.W[-1] *= self.cfg.warm_scale
        self.q.b[-1] *= self.cfg.warm_scale
        self.q.sync()
        self.target.copy_from(self.q)

    def state_dict(self) -> dict[str, np.ndarray]:
        out = self.weights()
        out.update(self.target.state_dict("target."))
        out.update(self.opt.state_dict("opt."))
        out.update(self.replay.arrays("replay."))
        out["rng"] = np.array(json.dumps(self.rng.bit_generator.state))
        out["steps"] = np.array(self.steps)
        out["updates"] = np.array(self.updates)
        return out

    def load_state_dict(self, data, source: str) -> None:
        self.q.load_state_dict(data, "q.", source)
        self.target.load_state_dict(data, "target.", source)
        self.q.sync()
        self.opt.load_state_dict(data, "opt.")
        self.replay.load(data, "replay.")
        self.rng.bit_generator.state = json.loads(str(data["rng"]))
        self.steps = int(data["steps"])
        self.updates = int(data["updates"])
