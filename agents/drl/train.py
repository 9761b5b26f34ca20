"""`python -m agents.drl.train algo=ppo variant=hybrid games=2000 seed=0`: train a DRL agent.

The learner plays against `opponents` (default fp_a, fp_b, fp_c) with the seat order
shuffled per game (game g has seed `seed * 1_000_000 + g`), updates as its algorithm
says, and writes into its run directory:

- `train.json`   the configuration (a directory holding another one is refused)
- `checkpoint.npz` everything needed to resume (weights, optimiser, RNG, buffers,
  results so far), written every `checkpoint_every` games and at the end
- `curve.csv`    one row per game (game, seed, won, turns, end reason, learner stats)
- `curve.png`    wins per 100 games (the paper's Fig. 3 and 5)
- `weights.npz`  the latest playing weights (float16), loadable with `agent.weights=PATH`
- `weights/gNNNNNN.npz` the playing weights after each checkpoint's game count (to choose
  a checkpoint on validation games)

Re-running the same command after a kill resumes from the last checkpoint: the games
after it are replayed with the same seeds and the same learner state, so the result is
the same as an uninterrupted run.

`novelty=NAME` trains under a catalogue novelty. The novelty is applied to the training
*world* through the plugin entry points (`openmono.novelties`); the agent never sees it.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import openmono
from openmono.hooks import NO_HOOKS
from openmono.play import play_game
from openmono.seeding import training_seed

from agents.drl.agent import VARIANTS, DRLAgent, load_weights_file, make_learner
from agents.drl.learners import ALGOS, kind
from agents.drl.nn import save_npz

IDENTITY_KEYS = ("algo", "variant", "seed", "opponents", "novelty", "novelty_difficulty",
                 "init", "preset", "ppo", "ddqn")


class TrainError(ValueError):
    """Bad input to the trainer; the message is one line naming the problem."""


def algo_options(algo: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """The `ppo.*` or `ddqn.*` options of `cfg` that are set (null: the preset's value),
    checked (one-line TrainError)."""
    given = {k: v for k, v in (cfg.get(algo) or {}).items() if v is not None}
    names = kind(algo).options()
    unknown = sorted(set(given) - names)
    if unknown:
        raise TrainError(f"unknown {algo} option(s) {unknown}; valid: {sorted(names)}")
    from agents.drl.reward import SHAPINGS
    if given.get("reward", "delta") not in SHAPINGS:
        raise TrainError(f"unknown {algo}.reward {given['reward']!r}; valid: {', '.join(SHAPINGS)}")
    from agents.drl.encoding import FEATURES
    from agents.drl.heads import HEADS
    for key, valid in (("features", FEATURES), ("head", HEADS)):
        if key in given and given[key] not in valid:
            raise TrainError(f"unknown {algo}.{key} {given[key]!r}; valid: {', '.join(valid)}")
    if "hidden" in given:
        given["hidden"] = tuple(int(h) for h in given["hidden"])
    return given


def world(novelty: str, difficulty: str) -> tuple[Any, Any]:
    """The standard game, or it under the named plugin's preset (from its entry point)."""
    base = openmono.standard_schema()
    if novelty in (None, "none"):
        return base, NO_HOOKS
    from importlib.metadata import entry_points

    eps = {ep.name: ep for ep in entry_points(group="openmono.novelties")}
    if novelty not in eps:
        raise TrainError(f"unknown novelty {novelty!r}; list them with: python -m novelties list")
    plugin = eps[novelty].load()()
    try:
        applied = plugin.run_apply(base, plugin.make_params(difficulty, None))
    except Exception as e:  # the plugin API's own one-line errors
        raise TrainError(f"novelty {novelty}: {e}") from None
    return applied.schema, applied.hooks


def _identity(cfg: dict[str, Any]) -> dict[str, Any]:
    return {k: cfg.get(k) for k in IDENTITY_KEYS}


def validate(cfg: dict[str, Any]) -> None:
    if cfg["algo"] not in ALGOS:
        raise TrainError(f"unknown algo {cfg['algo']!r}; valid: {', '.join(ALGOS)}")
    if cfg["variant"] not in VARIANTS:
        raise TrainError(f"unknown variant {cfg['variant']!r}; valid: {', '.join(VARIANTS)}")
    if not isinstance(cfg["games"], int) or cfg["games"] <= 0:
        raise TrainError(f"games must be a positive integer, got {cfg['games']!r}")
    if int(cfg.get("checkpoint_every") or 0) <= 0:
        raise TrainError("checkpoint_every must be a positive integer")
    from agents.registry import available_agents
    for name in cfg["opponents"]:
        if name not in available_agents():
            raise TrainError(f"unknown opponent {name!r}; valid: {', '.join(available_agents())}")


def _unset_dropped(identity: dict[str, Any]) -> dict[str, Any]:
    """The learner options without those left unset: a run written before an option
    existed resumes under code that has it (an unset option keeps its default)."""
    return {k: ({o: v for o, v in val.items() if v is not None} if k in ALGOS and
                isinstance(val, dict) else val) for k, val in identity.items()}


def _check_dir(out: Path, cfg: dict[str, Any]) -> bool:
    """True when `out` holds a run of this configuration (resume); raises if another."""
    meta = out / "train.json"
    if not meta.exists():
        if (out / "checkpoint.npz").exists():
            raise TrainError(f"{out} holds a checkpoint without train.json; use another out=")
        return False
    old = _unset_dropped(json.loads(meta.read_text()))
    new = _unset_dropped(json.loads(json.dumps(_identity(cfg))))
    if old != new:
        diff = [k for k in new if old.get(k) != new.get(k)]
        raise TrainError(f"{out} holds a run of another configuration (differs in "
                         f"{', '.join(diff)}); nothing overwritten: choose another out=")
    return True


def train(cfg: dict[str, Any], out_dir: str | Path,
          max_new_games: int | None = None) -> dict[str, Any]:
    """Run (or resume) a training run; returns a summary. `max_new_games` stops after
    that many games (as a kill after a checkpoint would; the run's schedule is kept)."""
    validate(cfg)
    algo, variant = cfg["algo"], cfg["variant"]
    hyper = algo_options(algo, cfg)
    schema, hooks = world(cfg.get("novelty") or "none", cfg.get("novelty_difficulty") or "medium")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    resume = _check_dir(out, cfg)
    from agents.registry import make_agent

    try:
        learner = make_learner(algo, seed=int(cfg["seed"]), preset=cfg.get("preset") or "default",
                               **hyper)
    except ValueError as e:  # a bad preset or option value
        raise TrainError(str(e)) from None
    if cfg.get("init"):
        load_weights_file(learner, cfg["init"], init=True)
    rows: list[dict[str, Any]] = []
    start = 0
    if resume and (out / "checkpoint.npz").exists():
        with np.load(out / "checkpoint.npz", allow_pickle=False) as data:
            learner.load_state_dict({k: data[k] for k in data.files}, str(out / "checkpoint.npz"))
            rows = json.loads(str(data["rows"]))
        start = len(rows)
    else:
        (out / "train.json").write_text(json.dumps(_identity(cfg), indent=2))
    agent = DRLAgent(algo, variant, learner=learner, training=True, detector="none")
    opponents = [make_agent(n) for n in cfg["opponents"]]
    games = int(cfg["games"])
    every = int(cfg["checkpoint_every"])
    bar = None
    if cfg.get("progress", True) and start < games:
        from tqdm import tqdm
        bar = tqdm(total=games, initial=start, desc=f"{agent.name}", unit="game", file=sys.stderr)
    t0 = time.perf_counter()
    decisions0 = agent.network_decisions
    stop = games if max_new_games is None else min(games, start + max_new_games)
    for g in range(start, stop):
        seed = training_seed(int(cfg["seed"]), g)
        res = play_game(schema, [agent, *opponents], seed=seed, hooks=hooks)
        learner.progress = (g + 1) / games  # lr annealing reads it
        stats = learner.after_game()
        rows.append({"game": g, "seed": seed, "won": int(res.winner == 0), "turns": res.turns,
                     "end": res.end_reason, **{k: round(float(v), 6) for k, v in stats.items()}})
        if bar is not None:
            last = rows[-100:]
            bar.set_postfix(win100=f"{sum(r['won'] for r in last) / len(last):.2f}")
            bar.update(1)
        if (g + 1) % every == 0 or g + 1 == stop:
            _checkpoint(out, learner, rows, cfg)
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - t0
    played = stop - start
    summary = {
        "games": len(rows), "played_now": played, "wall_seconds": round(wall, 1),
        "games_per_second": round(played / wall, 3) if wall > 0 and played else None,
        "network_decisions_per_second": round((agent.network_decisions - decisions0) / wall, 1)
        if wall > 0 and played else None,
        "win_rate_last_100": sum(r["won"] for r in rows[-100:]) / max(1, len(rows[-100:])),
        "win_rate_all": sum(r["won"] for r in rows) / max(1, len(rows)),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def _checkpoint(out: Path, learner: Any, rows: list[dict[str, Any]], cfg: dict[str, Any]) -> None:
    state = learner.state_dict()
    state["rows"] = np.array(json.dumps(rows))
    tmp = out / "checkpoint.tmp.npz"
    np.savez(tmp, **state)
    tmp.replace(out / "checkpoint.npz")
    save_npz(out / "weights.npz", learner.weights(), half=True)
    # every checkpoint's playing weights stay, so one can be chosen on validation games
    (out / "weights").mkdir(exist_ok=True)
    save_npz(out / "weights" / f"g{len(rows):06d}.npz", learner.weights(), half=True)
    keys = sorted({k for r in rows for k in r})
    front = ["game", "seed", "won", "turns", "end"]
    cols = front + [k for k in keys if k not in front]
    with open(out / "curve.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    if cfg.get("plot", True):
        plot_curve(rows, out / "curve.png", f"{cfg['variant']} {cfg['algo']} vs "
                   f"{', '.join(cfg['opponents'])}")


def plot_curve(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    """Wins per block of 100 games (the last block may be shorter: its rate x 100)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    won = np.array([r["won"] for r in rows], dtype=float)
    ends = list(range(100, len(won) + 1, 100)) or [len(won)]
    if ends[-1] != len(won):
        ends.append(len(won))
    starts = [0] + ends[:-1]
    rate = [100 * won[a:b].mean() for a, b in zip(starts, ends)]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(ends, rate, marker="o")
    ax.set_xlabel("games")
    ax.set_ylabel("wins per 100 games")
    ax.set_ylim(0, 100)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _main() -> None:
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    from openmono.cli import respell, respelled_note

    renamed = {"out_dir": "out"}  # every command names its output folder out=
    sys.argv[1:], old = respell(sys.argv[1:], renamed)
    if old:
        print(respelled_note(old, renamed), file=sys.stderr)

    @hydra.main(version_base=None, config_path="../../conf", config_name="train")
    def main(c) -> None:
        cfg = OmegaConf.to_container(c, resolve=True)
        out = cfg.get("out") or HydraConfig.get().runtime.output_dir
        try:
            summary = train(cfg, out)
        except (TrainError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            raise SystemExit(2)
        print(json.dumps({"out": str(out), **summary}))

    main()


if __name__ == "__main__":
    _main()
