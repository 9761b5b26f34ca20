"""`python -m agents.drl.imitate teacher=planner variant=hybrid games=800 seed=0 out=DIR`

Behaviour cloning: a warm start for PPO from a teacher agent's games. Not in the paper
(it trains from scratch); PPO from scratch at ~0.2 games/s on our CPU spreads its policy
and learns nothing (docs/results.md), so we start it from a policy that already plays.

1. **Teacher games.** The teacher (any registered agent, default `planner`) sits in the
   learner's seat against `opponents` (default fp_a, fp_b, fp_c), game g with seed
   `seed * 1_000_000 + g` and the seats shuffled by it, exactly as `agents.drl.train`
   plays. At every decision the DRL agent would give its network (same phases, the same
   legal mask from `encoding.py`, the hybrid's buy/accept removed, more than one legal
   action) we record (state, mask, index of the teacher's action) when that action maps
   into the 2922-dim space and is in the mask; the others are counted and skipped
   (with `snap_offers`, a one-property offer for cash within 0.5-1.5 x price is first
   moved to the nearest of the space's cash levels: the planner's offers climb in steps
   of half the price and would otherwise never map). With
   `deploy_rules` (default) every other decision is answered as the cloned agent will
   answer it (hybrid buy/accept rule, the encoding's fallback for bids and debt), so the
   recorded states come from the games the clone will play and the data games' win rate
   is roughly the clone's ceiling; the teacher still sees every observation (it is always asked,
   its answer is then replaced). Teacher games are saved in chunks of `chunk_games`;
   re-running reuses them (a kill loses at most one chunk).
2. **Fit.** The actor (PPO's, from `PPO(seed)` with its prior) is fitted by masked
   cross-entropy to the teacher's actions (Adam, minibatches, `fit.epochs` passes); a
   held-out fraction of the *games* reports accuracy. The critic is fitted by squared
   error to the discounted returns of the learner's dense reward (`ppo.reward`,
   `ppo.lone_bonus`, `ppo.gamma`, `ppo.terminal_c`) observed in the teacher's games,
   so a PPO continuation (`train ... init=DIR/weights.npz`) starts with a critic that
   knows roughly what a position is worth. `fit.critic=false` leaves it untrained.
3. **Output** in `out`: `weights.npz` (float16, the format `agent.weights=PATH` and
   `train init=PATH` load), `imitate.json` (config, sample counts, accuracies, seconds)
   and `samples/` (the teacher-game chunks).

A teacher's `fixed_answers` phases (e.g. `baseline`'s post-roll) are answered by the
game driver without an observation, so they are not recorded.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from openmono.play import play_game
from openmono.seeding import training_seed

from agents.base import Agent
from agents.drl.agent import VARIANTS
from agents.drl import encoding as E
from agents.drl.routing import FORCED, NETWORK, route, routed_action
from agents.drl.nn import Adam, masked_log_softmax, masked_softmax, save_npz
from agents.drl.ppo import IMITATION_KEYS, PPO, PPOConfig, value_loss
from agents.drl.ppo import config as ppo_config
from agents.drl.reward import net_worths, share, terminal_reward
from agents.drl.train import TrainError, algo_options

ALGOS = ("ppo",)
PACKED = (E.ACTION_DIM + 7) // 8

@dataclass(frozen=True)
class FitConfig:
    """Every hyperparameter of the fit, with its value (conf/imitate.yaml only overrides)."""

    epochs: int = 4
    minibatch_size: int = 256
    lr: float = 3e-4
    max_grad_norm: float = 1.0
    holdout: float = 0.1  # fraction of *games* held out for the reported accuracy
    critic: bool = True  # fit the critic to the returns of the learner's dense reward
    seed: int = 0  # initial weights (PPO(seed)) and the minibatch order
    max_samples: int = 0  # 0 = all; else a random subset of the training samples

    @classmethod
    def of(cls, given: Any) -> "FitConfig":
        """From a mapping of options (None: the default); one-line error for a bad key."""
        given = {k: v for k, v in dict(given or {}).items() if v is not None}
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - names)
        if unknown:
            raise ImitateError(f"unknown fit option(s) {unknown}; valid: {sorted(names)}")
        defaults = cls()
        return cls(**{k: type(getattr(defaults, k))(v) for k, v in given.items()})


class ImitateError(ValueError):
    """Bad input to imitation; the message is one line naming the problem."""


@dataclass(frozen=True)
class ImitateConfig:
    """The command's options (conf/imitate.yaml), validated once by `of`; the rest of
    the module reads fields, never a dict."""

    teacher: str
    variant: str
    algo: str = "ppo"
    games: int = 500
    seed: int = 0
    opponents: tuple[str, ...] = ("fp_a", "fp_b", "fp_c")
    out: str | None = None
    chunk_games: int = 50
    deploy_rules: bool = True
    snap_offers: bool = True
    progress: bool = True
    fit: FitConfig = field(default_factory=FitConfig)
    ppo_options: tuple[tuple[str, Any], ...] = ()  # the `ppo.*` options as given
    ppo: PPOConfig = field(default_factory=PPOConfig)  # the network the fit trains

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> "ImitateConfig":
        """From the options as Hydra (or a caller) gives them; one-line ImitateError."""
        from agents.registry import available_agents, is_agent

        g = dict(given)
        algo = g.get("algo") or "ppo"
        if algo not in ALGOS:
            raise ImitateError(f"unknown algo {algo!r}; valid: {', '.join(ALGOS)} "
                               "(behaviour cloning fits a policy; DDQN has none)")
        if g.get("variant") not in VARIANTS:
            raise ImitateError(f"unknown variant {g.get('variant')!r}; valid: "
                               f"{', '.join(VARIANTS)}")
        for key in ("games", "chunk_games"):
            v = g.get(key, getattr(cls, key, None))
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ImitateError(f"{key} must be a positive integer, got {v!r}")
        opponents = tuple(g.get("opponents") or cls.opponents)
        for role, name in [("teacher", g.get("teacher"))] + [("opponent", n) for n in opponents]:
            if not isinstance(name, str) or not is_agent(name):
                raise ImitateError(f"unknown {role} {name!r}; valid: "
                                   f"{', '.join(available_agents())}")
        fit_cfg = FitConfig.of(g.get("fit"))
        if not 0.0 <= fit_cfg.holdout < 1.0:
            raise ImitateError(f"fit.holdout must be in [0, 1), got {fit_cfg.holdout}")
        ppo_given = dict(g.get("ppo") or {})
        return cls(teacher=g["teacher"], variant=g["variant"], algo=algo, games=g.get("games", 500),
                   seed=int(g.get("seed") or 0), opponents=opponents, out=g.get("out"),
                   chunk_games=g.get("chunk_games", 50),
                   deploy_rules=bool(g.get("deploy_rules", True)),
                   snap_offers=bool(g.get("snap_offers", True)),
                   progress=bool(g.get("progress", True)), fit=fit_cfg,
                   ppo_options=tuple(ppo_given.items()), ppo=_ppo_config(ppo_given))

    def identity(self) -> dict[str, Any]:
        """What the recorded teacher games depend on (a folder holding others is refused)."""
        return json.loads(json.dumps({
            "teacher": self.teacher, "variant": self.variant, "seed": self.seed,
            "opponents": list(self.opponents), "deploy_rules": self.deploy_rules,
            "snap_offers": self.snap_offers, "chunk_games": self.chunk_games,
            "ppo": {k: getattr(self.ppo, k) for k in IMITATION_KEYS}}))

    def as_json(self) -> dict[str, Any]:
        """The options as given, for imitate.json."""
        return {"teacher": self.teacher, "variant": self.variant, "algo": self.algo,
                "games": self.games, "seed": self.seed, "opponents": list(self.opponents),
                "out": self.out, "chunk_games": self.chunk_games,
                "deploy_rules": self.deploy_rules, "snap_offers": self.snap_offers,
                "progress": self.progress, "fit": vars(self.fit), "ppo": dict(self.ppo_options)}


def _options(cfg: "ImitateConfig | Mapping[str, Any]") -> ImitateConfig:
    return cfg if isinstance(cfg, ImitateConfig) else ImitateConfig.of(cfg)


# -- recording ------------------------------------------------------------------------------
@dataclass
class Counts:
    """Decisions of the teacher games, by what became of them."""

    network: int = 0  # decisions the DRL agent would give its network
    recorded: int = 0  # ... whose teacher action mapped into the space and the mask
    unmapped: int = 0  # ... whose teacher action has no index (skipped)
    snapped: int = 0  # ... a cash-for-one-property offer moved to the nearest cash level
    outside_mask: int = 0  # ... whose index is not in the mask (skipped)
    single: int = 0  # one legal action in the space: no network decision, not recorded
    other: int = 0  # bids, debt, hybrid buy/accept, ...: not the network's
    games: int = 0
    wins: int = 0

    def add(self, other: "Counts") -> None:
        for k in vars(self):
            setattr(self, k, getattr(self, k) + getattr(other, k))


@dataclass
class Recording:
    xs: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)  # packed bits
    actions: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    games: list[int] = field(default_factory=list)


class Recorder(Agent):
    """Plays the teacher's seat and records its network-phase decisions."""

    def __init__(self, teacher: Any, variant: str, deploy_rules: bool, ppo: PPOConfig,
                 snap_offers: bool = True) -> None:
        super().__init__()
        self.teacher = teacher
        self.name = f"imitate({getattr(teacher, 'name', type(teacher).__name__)})"
        self.fixed_answers = getattr(teacher, "fixed_answers", None)
        self.hybrid = variant == "hybrid"
        self.deploy_rules = deploy_rules
        self.snap_offers = snap_offers
        self.cfg = ppo
        self.enc = E.Encoder()
        self.mask = np.zeros(E.ACTION_DIM, dtype=bool)
        self.state = np.zeros(E.STATE_DIM, dtype=np.float32)
        self.counts = Counts()
        self.rec = Recording()
        self.game = -1
        self._steps: list[tuple[float, int]] = []  # (share, sample index or -1) per step

    def seed(self, seed: int) -> None:
        super().seed(seed)
        if hasattr(self.teacher, "seed"):
            self.teacher.seed(seed)

    def begin_game(self, seat: int, observation: Any) -> None:
        super().begin_game(seat, observation)
        self.teacher.begin_game(seat, observation)
        self._steps = []

    def act(self, obs: Any) -> Any:
        a = self.teacher.act(obs)  # always asked, so the teacher sees every observation
        how, idx = route(obs, self.enc, self.mask, self.hybrid)
        if how != NETWORK:
            if how == FORCED:
                self.counts.single += 1
            else:
                self.counts.other += 1
            return routed_action(obs, how, idx, self.enc) if self.deploy_rules else a
        mask = self.mask
        self.counts.network += 1
        s = share(obs, nw=net_worths(obs, self.cfg.lone_bonus))
        i = self.enc.index_of(a, obs)
        if i is None and self.snap_offers:
            snapped = snap_offer(a, obs)
            if snapped is not None:
                i = self.enc.index_of(snapped, obs)
                if i is not None and mask[i]:
                    self.counts.snapped += 1
                    if self.deploy_rules:
                        a = snapped  # what the clone would offer
                else:
                    i = None
        sample = -1
        if i is None:
            self.counts.unmapped += 1
        elif not mask[i]:
            self.counts.outside_mask += 1
        else:
            self.counts.recorded += 1
            sample = len(self.rec.actions)
            r = self.rec
            r.xs.append(self.enc.encode(obs, self.state).copy())
            r.masks.append(np.packbits(mask))
            r.actions.append(int(i))
            r.returns.append(0.0)
            r.games.append(self.game)
        self._steps.append((s, sample))
        return a

    def end_game(self, result: Any) -> None:
        self.teacher.end_game(result)
        won = result.winner_seat == self.seat
        self.counts.games += 1
        self.counts.wins += int(won)
        self._credit(won)

    def _credit(self, won: bool) -> None:
        """Discounted returns of the learner's reward at every network step of the game
        (`delta`: the change of the share between steps, won - last share at the end;
        `paper`: eq. 4 at the next step), plus the terminal +-c."""
        steps, cfg = self._steps, self.cfg
        if not steps:
            return
        final = terminal_reward(won, cfg.terminal_c)
        g = 0.0
        for t in range(len(steps) - 1, -1, -1):
            s, sample = steps[t]
            if t == len(steps) - 1:
                r = final + ((1.0 if won else 0.0) - s if cfg.reward == "delta" else 0.0)
            elif cfg.reward == "delta":
                r = steps[t + 1][0] - s
            else:  # paper: eq. 4 (own / others = share / (1 - share)) at the next step
                nxt = steps[t + 1][0]
                r = nxt / max(1e-9, 1.0 - nxt)
            g = r * cfg.reward_scale + cfg.gamma * g
            if sample >= 0:
                self.rec.returns[sample] = g


SNAP_RANGE = (0.5, 1.5)  # offers outside these multiples of the price stay unmapped


def snap_offer(a: Any, obs: Any) -> Any | None:
    """A one-property offer for cash (buy or sell) with the cash moved to the nearest of
    the space's levels (0.75 / 1 / 1.25 x price), if it lies within `SNAP_RANGE` x price.
    The planner opens its buy offers low and raises them by half the price after each
    refusal, so its amounts almost never equal a level exactly."""
    from openmono import actions as A

    if type(a) is not A.OfferTrade or a.give_jail_cards or a.get_jail_cards:
        return None
    if len(a.get) == 1 and not a.give and not a.get_cash and a.give_cash > 0:
        sq, cash, key = a.get[0], a.give_cash, "give_cash"
    elif len(a.give) == 1 and not a.get and not a.give_cash and a.get_cash > 0:
        sq, cash, key = a.give[0], a.get_cash, "get_cash"
    else:
        return None
    price = obs.rules.price[sq]
    if not price or not SNAP_RANGE[0] * price <= cash <= SNAP_RANGE[1] * price:
        return None
    level = min((E.cash_level(price, k) for k in range(3)), key=lambda v: abs(v - cash))
    from dataclasses import replace
    return replace(a, **{key: level})


# -- teacher games, in resumable chunks -----------------------------------------------------
def _chunk_path(out: Path, start: int, end: int) -> Path:
    return out / "samples" / f"chunk_{start:06d}_{end:06d}.npz"


def play_chunk(cfg: ImitateConfig, ppo: PPOConfig, start: int, end: int, schema: Any,
               bar: Any = None) -> tuple[Recording, Counts]:
    from agents.registry import make_agent

    rec = Recorder(make_agent(cfg.teacher), cfg.variant, cfg.deploy_rules, ppo, cfg.snap_offers)
    opponents = [make_agent(n) for n in cfg.opponents]
    for g in range(start, end):
        rec.game = g
        play_game(schema, [rec, *opponents], seed=training_seed(cfg.seed, g))
        if bar is not None:
            bar.update(1)
    return rec.rec, rec.counts


def _save_chunk(path: Path, rec: Recording, counts: Counts) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(
        tmp, x=np.array(rec.xs, dtype=np.float32).reshape(-1, E.STATE_DIM),
        mask=np.array(rec.masks, dtype=np.uint8).reshape(-1, PACKED),
        action=np.array(rec.actions, dtype=np.int16),
        ret=np.array(rec.returns, dtype=np.float32),
        game=np.array(rec.games, dtype=np.int32),
        counts=np.array(json.dumps(vars(counts))))
    tmp.replace(path)


def generate(cfg: "ImitateConfig | Mapping[str, Any]", out: Path, ppo: PPOConfig
             ) -> dict[str, Any]:
    """Play (or reuse) the teacher games; returns the samples and the counts."""
    from openmono import standard_schema

    schema = standard_schema()
    cfg = _options(cfg)
    games, k = cfg.games, cfg.chunk_games
    ranges = [(s, min(s + k, games)) for s in range(0, games, k)]
    todo = [r for r in ranges if not _chunk_path(out, *r).exists()]
    bar = None
    if cfg.progress and todo:
        from tqdm import tqdm
        bar = tqdm(total=games, initial=games - sum(e - s for s, e in todo),
                   desc=f"teacher {cfg.teacher}", unit="game", file=sys.stderr)
    t0 = time.perf_counter()
    for s, e in todo:
        rec, counts = play_chunk(cfg, ppo, s, e, schema, bar)
        _save_chunk(_chunk_path(out, s, e), rec, counts)
        if bar is not None:
            bar.set_postfix(samples=len(rec.actions))
    if bar is not None:
        bar.close()
    seconds = time.perf_counter() - t0
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("x", "mask", "action", "ret", "game")}
    total = Counts()
    for s, e in ranges:
        with np.load(_chunk_path(out, s, e), allow_pickle=False) as d:
            for key in parts:
                parts[key].append(d[key])
            total.add(Counts(**json.loads(str(d["counts"]))))
    data = {key: np.concatenate(v) for key, v in parts.items()}
    return {"data": data, "counts": total, "seconds": seconds,
            "games_played_now": sum(e - s for s, e in todo)}


# -- fitting ----------------------------------------------------------------------------------
def _unpack(packed: np.ndarray) -> np.ndarray:
    return np.unpackbits(packed, axis=1, count=E.ACTION_DIM).astype(bool)


def cross_entropy(logits: np.ndarray, mask: np.ndarray,
                  actions: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean masked cross-entropy of the teacher's actions; returns (loss, dLoss/dlogits)."""
    n = len(actions)
    rows = np.arange(n)
    logp = masked_log_softmax(logits, mask)[rows, actions]
    grad = masked_softmax(logits, mask)
    grad[rows, actions] -= 1.0
    return float(-logp.mean()), grad / n


def accuracy(learner: PPO, x: np.ndarray, packed: np.ndarray, actions: np.ndarray,
             batch: int = 1024) -> dict[str, float]:
    """Masked-argmax agreement with the teacher (all samples, and those where the teacher
    did something other than pass/conclude) and the mean cross-entropy."""
    if len(actions) == 0:
        return {"n": 0}
    hit = np.zeros(len(actions), dtype=bool)
    nll = 0.0
    for s in range(0, len(actions), batch):
        m = _unpack(packed[s:s + batch])
        z = learner.actor.forward(x[s:s + batch]).astype(np.float64)
        hit[s:s + batch] = np.argmax(np.where(m, z, -np.inf), axis=1) == actions[s:s + batch]
        nll += cross_entropy(z, m, actions[s:s + batch])[0] * len(m)
    active = (actions != E.SKIP) & (actions != E.CONCLUDE)
    return {"n": int(len(actions)), "accuracy": round(float(hit.mean()), 4),
            "n_active": int(active.sum()),
            "accuracy_active": round(float(hit[active].mean()), 4) if active.any() else None,
            "nll": round(nll / len(actions), 4)}


def fit(data: dict[str, np.ndarray], ppo: PPOConfig, fit_cfg: FitConfig | dict[str, Any],
        progress: bool = True) -> tuple[PPO, dict[str, Any]]:
    """Fit PPO's actor (cross-entropy) and critic (returns) to the teacher's samples."""
    fc = fit_cfg if isinstance(fit_cfg, FitConfig) else FitConfig.of(fit_cfg)
    rng = np.random.default_rng(fc.seed)
    learner = PPO(ppo, seed=fc.seed)
    game_ids = np.unique(data["game"])
    n_hold = int(round(len(game_ids) * fc.holdout))
    held = set(rng.choice(game_ids, size=n_hold, replace=False).tolist()) if n_hold else set()
    is_held = np.isin(data["game"], list(held))
    train_idx = np.flatnonzero(~is_held)
    hold_idx = np.flatnonzero(is_held)
    if fc.max_samples and len(train_idx) > fc.max_samples:
        train_idx = np.sort(rng.choice(train_idx, size=fc.max_samples, replace=False))
    x, packed, act, ret = data["x"], data["mask"], data["action"].astype(np.int64), data["ret"]
    lr, clip = fc.lr, fc.max_grad_norm
    opt_a = Adam(learner.actor.params(), lr=lr, max_grad_norm=clip)
    opt_c = Adam(learner.critic.params(), lr=lr, max_grad_norm=clip)
    mb, epochs = fc.minibatch_size, fc.epochs
    history = []
    bar = None
    steps_per_epoch = math.ceil(len(train_idx) / mb)
    if progress and epochs and len(train_idx):
        from tqdm import tqdm
        bar = tqdm(total=epochs * steps_per_epoch, desc="fit", unit="batch", file=sys.stderr)
    for epoch in range(epochs):
        order = rng.permutation(train_idx)
        ce = vl = 0.0
        for s in range(0, len(order), mb):
            b = np.sort(order[s:s + mb])
            m = _unpack(packed[b])
            z = learner.actor.forward(x[b]).astype(np.float64)
            loss, g = cross_entropy(z, m, act[b])
            opt_a.step(learner.actor.backward(g.astype(np.float32)))
            ce += loss * len(b)
            if fc.critic:
                v = learner.critic.forward(x[b])[:, 0].astype(np.float64)
                l2, gv = value_loss(v, ret[b].astype(np.float64), 1.0)
                opt_c.step(learner.critic.backward(gv[:, None].astype(np.float32)))
                vl += l2 * len(b)
            if bar is not None:
                bar.update(1)
        row = {"epoch": epoch + 1, "train_ce": round(ce / len(order), 4),
               "held_out": accuracy(learner, x[hold_idx], packed[hold_idx], act[hold_idx])}
        if fc.critic:
            row["train_value_loss"] = round(vl / len(order), 5)
        history.append(row)
        if bar is not None:
            bar.set_postfix(ce=row["train_ce"], held_acc=row["held_out"].get("accuracy"))
    if bar is not None:
        bar.close()
    learner.actor.sync()
    learner.critic.sync()
    sub = train_idx if len(train_idx) <= 20_000 else np.sort(rng.choice(train_idx, 20_000,
                                                                        replace=False))
    report = {"train_samples": int(len(train_idx)), "held_out_samples": int(len(hold_idx)),
              "held_out_games": len(held), "history": history,
              "train_accuracy": accuracy(learner, x[sub], packed[sub], act[sub]),
              "held_out": accuracy(learner, x[hold_idx], packed[hold_idx], act[hold_idx])}
    if fc.critic and len(hold_idx):
        v = np.concatenate([learner.critic.forward(x[hold_idx[s:s + 1024]])[:, 0]
                            for s in range(0, len(hold_idx), 1024)])
        r = ret[hold_idx]
        report["critic_held_out"] = {
            "mse": round(float(np.mean((v - r) ** 2)), 5),
            "explained_variance": round(float(1 - np.var(r - v) / max(1e-12, np.var(r))), 4)}
    return learner, report


# -- the command ------------------------------------------------------------------------------
def _ppo_config(given: Mapping[str, Any]) -> PPOConfig:
    """The fitted network: `PRESETS["imitate"]` with the `ppo.*` options given, checked as
    training checks them."""
    try:
        opts = algo_options("ppo", {"ppo": dict(given)})
    except TrainError as e:
        raise ImitateError(str(e)) from None
    if opts.get("head", "flat") != "flat" or opts.get("features", "paper") != "paper":
        raise ImitateError("imitation fits the paper's network only: ppo.head=flat "
                           "ppo.features=paper")
    return ppo_config("imitate", **opts)


def validate(cfg: Mapping[str, Any]) -> None:
    """Check the options (one-line ImitateError), as `imitate` does before anything runs."""
    ImitateConfig.of(cfg)


def _check_dir(out: Path, cfg: ImitateConfig) -> None:
    """Refuse a directory whose samples come from another data configuration."""
    ident = cfg.identity()
    meta = out / "samples" / "data.json"
    if meta.exists():
        old = json.loads(meta.read_text())
        if old != ident:
            diff = [k for k in ident if old.get(k) != ident.get(k)]
            raise ImitateError(f"{out} holds teacher games of another configuration (differs "
                               f"in {', '.join(diff)}); nothing overwritten: choose another out")
    else:
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps(ident, indent=2))


def imitate(given: "ImitateConfig | Mapping[str, Any]", out_dir: str | Path) -> dict[str, Any]:
    """Teacher games (resumable), fit, and write weights.npz + imitate.json."""
    cfg = _options(given)
    ppo = cfg.ppo
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _check_dir(out, cfg)
    gen = generate(cfg, out, ppo)
    data, counts = gen["data"], gen["counts"]
    if len(data["action"]) == 0:
        raise ImitateError(f"the teacher's games gave no network decision to imitate "
                           f"({counts.network} decisions, {counts.unmapped} unmapped)")
    t0 = time.perf_counter()
    learner, report = fit(data, ppo, cfg.fit, cfg.progress)
    fit_seconds = time.perf_counter() - t0
    save_npz(out / "weights.npz", learner.weights(), half=True)
    c = vars(counts)
    summary = {
        "config": cfg.as_json(),
        "teacher_games": {**c, "win_rate": round(counts.wins / max(1, counts.games), 4),
                          "unmapped_fraction": round(counts.unmapped / max(1, counts.network), 4),
                          "snapped_fraction": round(counts.snapped / max(1, counts.network), 4),
                          "outside_mask_fraction":
                              round(counts.outside_mask / max(1, counts.network), 4),
                          "samples_per_game": round(counts.recorded / max(1, counts.games), 1)},
        "fit": report,
        "seconds": {"teacher_games_now": round(gen["seconds"], 1),
                    "games_played_now": gen["games_played_now"],
                    "fit": round(fit_seconds, 1)},
        "weights": str(out / "weights.npz"),
    }
    (out / "imitate.json").write_text(json.dumps(summary, indent=2))
    return summary


def _main() -> None:
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    @hydra.main(version_base=None, config_path="../../conf", config_name="imitate")
    def main(c) -> None:
        try:
            cfg = ImitateConfig.of(OmegaConf.to_container(c, resolve=True))
            out = cfg.out or HydraConfig.get().runtime.output_dir
            summary = imitate(cfg, out)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            raise SystemExit(2)
        brief = {"out": str(out), "teacher_games": summary["teacher_games"],
                 "held_out": summary["fit"]["held_out"], "seconds": summary["seconds"]}
        print(json.dumps(brief))

    main()


if __name__ == "__main__":
    _main()
