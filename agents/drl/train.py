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
    defaults = kind(algo).config_type()
    for key, value in given.items():
        why = _option_problem(value, getattr(defaults, key))
        if why:
            raise TrainError(f"{algo}.{key} must be {why}, got {value!r}")
    if "hidden" in given:
        given["hidden"] = tuple(int(h) for h in given["hidden"])
    return given


def _option_problem(value: Any, default: Any) -> str | None:
    """What a learner option's value must be (None: it is), from its default's type,
    so that `ppo.lr=abc` is refused before training starts rather than crashing in it."""
    import math

    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(default, int):
        return None if isinstance(value, int) and not isinstance(value, bool) else "an integer"
    if isinstance(default, float):
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
              and math.isfinite(value))
        return None if ok else "a finite number"
    if isinstance(default, str):
        return None if isinstance(value, str) else "a name"
    if isinstance(default, tuple):
        ok = isinstance(value, (list, tuple)) and all(
            isinstance(h, int) and not isinstance(h, bool) and h > 0 for h in value)
        return None if ok else "a list of positive integers like [256,256]"
    return None


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
    """The top-level options, each a one-line TrainError."""
    if cfg["algo"] not in ALGOS:
        raise TrainError(f"unknown algo {cfg['algo']!r}; valid: {', '.join(ALGOS)}")
    if cfg["variant"] not in VARIANTS:
        raise TrainError(f"unknown variant {cfg['variant']!r}; valid: {', '.join(VARIANTS)}")
    if not isinstance(cfg["games"], int) or cfg["games"] <= 0:
        raise TrainError(f"games must be a positive integer, got {cfg['games']!r}")
    every = cfg.get("checkpoint_every")
    if isinstance(every, bool) or not isinstance(every, int) or every <= 0:
        raise TrainError(f"checkpoint_every must be a positive integer, got {every!r}")
    if isinstance(cfg["games"], bool):
        raise TrainError(f"games must be a positive integer, got {cfg['games']!r}")
    seed = cfg.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise TrainError(f"seed must be an integer >= 0, got {seed!r}")
    for key in ("progress", "plot"):
        if not isinstance(cfg.get(key, True), bool):
            raise TrainError(f"{key} must be true or false, got {cfg.get(key)!r}")
    if not isinstance(cfg["opponents"], list) or not all(
            isinstance(n, str) for n in cfg["opponents"]):
        raise TrainError(f"opponents must be a list of names like [fp_a,fp_b], got "
                         f"{cfg['opponents']!r}")
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


CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")


def check_command(argv: list[str]) -> tuple[dict[str, Any], Path]:
    """The configuration and run folder of a command line, every value checked before
    Hydra starts (Hydra makes the run folder first): one-line TrainError otherwise.
    Composing with Hydra's compose API writes nothing."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    try:
        with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
            composed = compose("train", overrides=argv, return_hydra_config=True)
        raw = OmegaConf.to_container(composed, resolve=False)
        assert isinstance(raw, dict)
        run_dir = raw.pop("hydra")["run"]["dir"]  # (its runtime parts exist only in a run)
        data = OmegaConf.to_container(OmegaConf.create({**raw, "_run_dir": run_dir}),
                                      resolve=True)
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        raise TrainError(_hydra_problem(str(exc), argv)) from None
    assert isinstance(data, dict)
    run_dir = data.pop("_run_dir")
    cfg: dict[str, Any] = data  # type: ignore[assignment]
    validate(cfg)
    hyper = algo_options(cfg["algo"], cfg)
    try:  # a bad preset or value: built once, thrown away
        make_learner(cfg["algo"], seed=0, preset=cfg.get("preset") or "default", **hyper)
    except (ValueError, TypeError) as exc:
        raise TrainError(str(exc).splitlines()[0]) from None
    world(cfg.get("novelty") or "none", cfg.get("novelty_difficulty") or "medium")
    where = str(cfg.get("out") or run_dir or "")
    if not where.strip():
        raise TrainError("hydra.run.dir is empty: name a folder, e.g. out=outputs/train/my-run")
    out = Path(where)
    if cfg.get("init") and not Path(str(cfg["init"])).is_file():
        raise TrainError(f"init={cfg['init']}: no such weights file")
    if out.is_dir():
        _check_dir(out, cfg)
    elif out.exists():
        raise TrainError(f"cannot write to {out}: it is not a folder")
    return cfg, out


def _hydra_problem(text: str, argv: list[str]) -> str:
    """Hydra's several-line error as one line: an unknown key names the valid ones."""
    import re
    from difflib import get_close_matches

    found = re.search(r"Key '([^']+)' is not in struct", text) or re.search(
        r"Could not override '([^']+)'", text)
    if found:
        key = found.group(1)
        top = ["algo", "variant", "games", "seed", "opponents", "novelty",
               "novelty_difficulty", "checkpoint_every", "init", "progress", "plot", "out",
               "preset", "ppo.KEY", "ddqn.KEY"]
        close = get_close_matches(key, top, n=2)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        return f"unknown option {key!r}{hint}; options: {', '.join(top)}"
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[0] if lines else "cannot read the command line"


def cli(argv: list[str]) -> int:
    """The command: checked in full first (a refused command writes nothing, in one
    line, exit 2), then handed to Hydra."""
    from openmono_cli import respell, respelled_note

    renamed = {"out_dir": "out"}  # every command names its output folder out=
    argv, old = respell(list(argv), renamed)
    if old:
        print(respelled_note(old, renamed), file=sys.stderr)
    if not any(a.startswith("-") for a in argv):  # (Hydra's own flags: --help, --cfg, -m)
        try:
            check_command(argv)
        except TrainError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    _hydra_main(argv)
    return 0


def _hydra_main(argv: list[str]) -> None:
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    sys.argv = [sys.argv[0], *argv]

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


def _main() -> None:
    sys.exit(cli(sys.argv[1:]))


if __name__ == "__main__":
    _main()
