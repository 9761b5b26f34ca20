"""The DRL agents: PPO or DDQN, standard or hybrid, playing through `agents.base.Agent`.

Per decision, `routing.route` says who decides: the fallback rules, the hybrid's fixed
policy (*buy* and *trade_response*, whose network never sees the buy and accept
actions), the one legal action, or the network, which chooses among the legal
actions of the 2922-dim space (PPO: sampled from the masked softmax, or its most likely
action with `greedy=True`; DDQN: the best legal Q-value, epsilon-greedy while training).

While training (`learner` given, `training=True`) every network decision is a learning
step; its reward is eq. 4 at the agent's next network decision, or +-c at the game's end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import NO_NOVELTY, Agent, NoveltyReport
from agents.drl import encoding as E
from agents.drl.ddqn import DDQN
from agents.drl.learners import ALGOS, kind
from agents.drl.routing import NETWORK, route, routed_action
from agents.drl.outcomes import combine
from agents.drl.ppo import PPO
from agents.drl.reward import SHAPINGS, ShareDelta, dense_reward, net_worths, terminal_reward

# none; surprise: CUSUMs on the return and the model's TD error (`surprise.py`);
# model: those and the model of what the table shows (`outcomes.py`)
DETECTORS = ("none", "surprise", "model")
VARIANTS = ("standard", "hybrid")
WEIGHTS_DIR = Path(__file__).parent / "weights"


def make_learner(algo: str, seed: int = 0, preset: str = "default", **cfg: Any) -> PPO | DDQN:
    """A fresh learner: `preset`'s configuration with the options in `cfg`."""
    return kind(algo).make(seed=seed, preset=preset, **cfg)


def file_config(algo: str, data: Any) -> dict[str, Any]:
    """The learner options a weights file was written with. Files from before options
    were saved hold the paper's network: flat head, 240 features, sizes from the arrays."""
    import json
    legacy = dict(kind(algo).legacy)
    if "cfg" in data:
        cfg = json.loads(str(data["cfg"]))
        cfg["hidden"] = tuple(cfg.get("hidden", ()))
        cfg.setdefault("features", "paper")  # written before the extended features
        for key, value in legacy.items():
            cfg.setdefault(key, value)
        return cfg
    net = kind(algo).net
    hidden = []
    i = 0
    while f"{net}W{i + 1}" in data:
        hidden.append(int(np.asarray(data[f"{net}W{i}"]).shape[1]))
        i += 1
    return {"hidden": tuple(hidden), "features": "paper", **legacy}


def learner_for_file(algo: str, path: str | Path) -> PPO | DDQN:
    """A learner built to read `path` (its saved options), with the weights loaded."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"weights file not found: {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            cfg = file_config(algo, data)
    except Exception as e:
        raise ValueError(f"{path}: not a readable weights file ({type(e).__name__})") from None
    fields = kind(algo).options()
    try:
        learner = make_learner(algo, **{k: v for k, v in cfg.items() if k in fields})
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None
    load_weights_file(learner, path)
    return learner


def load_weights_file(learner: PPO | DDQN, path: str | Path, init: bool = False) -> None:
    """Load `path` into `learner`, with a one-line error naming the file on any problem.
    `init`: a training start, where a DDQN may also start from a PPO policy (warm start)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"weights file not found: {path}")
    load = learner.load_policy if init and isinstance(learner, DDQN) else learner.load_weights
    try:
        with np.load(path, allow_pickle=False) as data:
            load({k: data[k] for k in data.files}, str(path))
    except ValueError as e:
        msg = str(e)
        raise ValueError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None
    except Exception as e:  # zip/npz corruption and friends
        raise ValueError(f"{path}: not a readable weights file ({type(e).__name__})") from None


class DRLAgent(Agent):
    """One seat played by a PPO or DDQN network (standard or hybrid)."""

    name = "drl"

    def __init__(self, algo: str = "ppo", variant: str = "hybrid", weights: str | None = None,
                 learner: PPO | DDQN | None = None, training: bool = False,
                 greedy: bool = False, detector: str | None = "model") -> None:
        super().__init__()
        if detector is None:  # command lines read `detector=none` as None
            detector = "none"
        if algo not in ALGOS:
            raise ValueError(f"unknown algo {algo!r}; valid: {', '.join(ALGOS)}")
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; valid: {', '.join(VARIANTS)}")
        if detector not in DETECTORS:
            raise ValueError(f"unknown detector {detector!r}; valid: {', '.join(DETECTORS)}")
        self.algo, self.variant = algo, variant
        self.name = f"{'hybrid_' if variant == 'hybrid' else ''}{algo}"
        self.hybrid = variant == "hybrid"
        if learner is None:
            learner = learner_for_file(algo, weights) if weights is not None \
                else make_learner(algo)
        elif weights is not None:
            load_weights_file(learner, weights)
        self.learner = learner
        self.shaping = getattr(self.learner.cfg, "reward", "paper")
        if self.shaping not in SHAPINGS:
            raise ValueError(f"unknown reward {self.shaping!r}; valid: {', '.join(SHAPINGS)}")
        self._bonus = float(getattr(self.learner.cfg, "lone_bonus", 1.5))
        self._offer_cost = float(getattr(self.learner.cfg, "offer_cost", 0.0))  # PPO only
        self._delta = ShareDelta(self._bonus)
        self.training = training
        self.greedy = greedy
        self.enc = E.Encoder(self.learner.cfg.features)
        self.state = np.zeros(self.enc.dim, dtype=np.float32)
        self.offers_in_a_row = 0
        self.mask = np.zeros(E.ACTION_DIM, dtype=bool)
        self.detector = None
        self._critic = isinstance(self.learner, PPO)  # its detector needs critic values
        self._seen: list[tuple[Any, float, float]] = []  # (state or Q, reward, level)
        self.outcomes = None  # the model of what the table shows (`detector=model`)
        if detector in ("surprise", "model"):
            from agents.drl.surprise import SurpriseDetector
            self.detector = SurpriseDetector()
        if detector == "model":
            from agents.drl.outcomes import OutcomeModel
            self.outcomes = OutcomeModel()
        self.decisions = 0
        self.network_decisions = 0

    def begin_game(self, seat: int, observation: Any) -> None:
        super().begin_game(seat, observation)
        self._delta = ShareDelta(self._bonus)
        self.offers_in_a_row = 0
        if self.detector is not None:
            self._seen = []
            self.detector.begin_game()
        if self.outcomes is not None:
            self.outcomes.begin_game(observation)

    def act(self, obs: Any) -> Any:
        self.decisions += 1
        if self.outcomes is not None:
            self.outcomes.observe(obs)
        how, idx = route(obs, self.enc, self.mask, self.hybrid)
        if how != NETWORK:
            return routed_action(obs, how, idx, self.enc)
        mask = self.mask
        self.network_decisions += 1
        x = self.enc.encode(obs, self.state, self.offers_in_a_row)
        learner = self.learner
        r = level = 0.0
        if self.training or self.detector is not None:
            nw = net_worths(obs, self._bonus)
            level = dense_reward(obs, nw=nw)
            r = level if self.shaping == "paper" else self._delta.step(obs, nw)
        if self.training:
            learner.add_reward(r)
            i, extra = learner.choose(x, idx, learner.rng, greedy=False)
            # (the share bounds a DDQN's target: what it can still gain)
            learner.record(x, mask, i, extra,
                           share=self._delta.last if self.shaping == "delta" else None)
            if self._offer_cost and i < E.IMPROVE:  # an offer: charged, whatever its answer
                learner.add_reward(-self._offer_cost)
        else:  # playing: PPO samples its policy (or its mode if greedy); DDQN exploits
            i, extra = learner.choose(x, idx, self.rng,
                                      greedy=self.greedy or learner.plays_greedy)
        if self.detector is not None:  # PPO's critic values come batched at the game's end
            self._seen.append((x.copy() if self._critic else extra,
                               r * learner.cfg.reward_scale, level))
        self.offers_in_a_row = self.offers_in_a_row + 1 if i < E.IMPROVE else 0
        return self.enc.action_of(i, obs)

    def _feed_detector(self) -> None:
        """Give the detector the game's decisions, each with the model's own estimate of
        the state's worth (PPO: the critic's value; DDQN: the chosen Q-value). Why batched:
        one matrix product over the game's states costs a fraction of one critic pass per
        decision, which was a third of a playing PPO agent's time."""
        seen, self._seen = self._seen, []
        if not seen:
            return
        if self._critic:
            preds = self.learner.values(np.stack([s[0] for s in seen])).tolist()
        else:
            preds = [s[0] for s in seen]
        for pred, (_, reward, level) in zip(preds, seen):
            self.detector.observe(pred, reward, level)

    def end_game(self, result: Any) -> None:
        won = result.winner_seat == self.seat
        if self.training:
            final = terminal_reward(won, self.learner.cfg.terminal_c)
            if self.shaping == "delta":
                final += self._delta.final(won)
            self.learner.end_game(final)
        if self.detector is not None:
            self._feed_detector()
            self.detector.end_game(won)
        if self.outcomes is not None:
            self.outcomes.end_game()

    def novelty_report(self) -> NoveltyReport:
        if self.detector is None:
            return NO_NOVELTY
        report = self.detector.report()
        if self.outcomes is None:
            return report
        return combine(report, self.outcomes)

    def novelty_announced(self) -> None:
        if self.detector is not None:
            self.detector.announced()


def shipped_agent(algo: str, variant: str):
    """A registry factory: the shipped weights unless `weights=PATH` is given."""
    def factory(weights: str | None = None, greedy: bool = False,
                detector: str | None = "model") -> DRLAgent:
        path = weights or WEIGHTS_DIR / f"{'hybrid_' if variant == 'hybrid' else ''}{algo}.npz"
        return DRLAgent(algo, variant, weights=str(path), greedy=greedy, detector=detector)
    factory.__name__ = f"{variant}_{algo}"
    return factory
