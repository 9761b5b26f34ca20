"""`python -m envs.reference games=533 seed=0 out=DIR`: a check by a learner nobody
here wrote.

Trains sb3-contrib's `MaskablePPO` on `openmono/Monopoly-v0` (the paper's 240 floats and
2922 masked actions, `reward="delta"`) against the same opponents and for the same number
of games as `agents.drl.train`, and writes the same `curve.csv` (one row per game), so
`python -m agents.drl.curves OUT.png OURS=ours DIR=sb3` draws both learning curves in one
figure. Every `save_every` games it saves the model and the curve so far; run the same
command again after a kill and it goes on from there (the rollout in progress is lost,
so a resumed run is not bit-identical to an unbroken one). It then plays `eval_games` games with the trained policy (greedy, trial seeds
`eval_seed`, `eval_seed + 1`, ...: keep them outside any range used for training or
choosing) and writes `summary.json` with the wins and their Wilson interval.

Needs the optional `reference` extra (torch, stable-baselines3, sb3-contrib): nothing
else in openmono imports this module. Options are `key=value` words:

    games=533 seed=0 out=outputs/reference/seed0 opponents=baseline,baseline,baseline
    eval_games=300 eval_seed=900000 n_steps=2048 batch_size=256 gamma=0.999 save_every=100
"""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from openmono_cli import (HelpRequested, Options, UsageError, games_field, out_field,
                          seed_field)
from openmono_cli import parse as parse_options

from evaluation.measures.metrics import wilson_interval

FIELDS = ["game", "seed", "won", "turns", "end"]


class ReferenceOptionError(ValueError):
    """Bad input; the message is one line."""


class ReferenceOptions(Options):
    """Train sb3-contrib's MaskablePPO as agents.drl.train does: a check by another learner."""

    games: int = games_field(533, "training games")
    seed: int = seed_field()
    out: str | None = out_field(None, "the run folder (null: outputs/reference/seedSEED)")
    opponents: str = Field("baseline,baseline,baseline", description="the three opponents, "
                           "comma-separated")
    eval_games: int = Field(300, ge=0, description="games the trained policy plays after")
    eval_seed: int = Field(900_000, ge=0, description="the first evaluation game's seed")
    # MaskablePPO's defaults except these: rollouts of 2048 steps in minibatches of 256,
    # and a discount for games of hundreds of decisions.
    n_steps: int = Field(2048, ge=1, description="MaskablePPO's rollout steps")
    batch_size: int = Field(256, ge=1, description="MaskablePPO's minibatch")
    gamma: float = Field(0.999, description="the discount")
    save_every: int = Field(100, ge=1, description="games between saves of the model and the "
                            "curve (the resume point)")


def parse(argv: list[str]) -> dict[str, Any]:
    """The options as the plain dict `run` takes and `summary.json` records."""
    cfg = parse_options(ReferenceOptions, argv, "python -m envs.reference").model_dump()
    cfg["out"] = cfg["out"] or f"outputs/reference/seed{cfg['seed']}"
    return cfg


def _imports() -> Any:
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
    except ImportError:
        raise ReferenceOptionError("needs torch, stable-baselines3 and sb3-contrib: "
                              "pip install -e '.[reference]'") from None
    return MaskablePPO, BaseCallback


def run(cfg: dict[str, Any]) -> dict[str, Any]:
    """Train and evaluate the sb3-contrib PPO on `openmono/Monopoly-v0`; returns the summary."""
    MaskablePPO, BaseCallback = _imports()
    from envs.gym_env import MonopolyEnv

    out = Path(cfg["out"])
    out.mkdir(parents=True, exist_ok=True)
    opponents = [o for o in cfg["opponents"].split(",") if o]
    env = MonopolyEnv(opponents=opponents, reward="delta")
    rows: list[dict[str, Any]] = []

    model_path, curve_path = out / "model.zip", out / "curve.csv"
    resumed = model_path.exists() and curve_path.exists()
    if resumed:  # the last save's model and the games played up to it
        with open(curve_path, newline="") as fh:
            rows.extend(csv.DictReader(fh))
        model = MaskablePPO.load(model_path, env=env)
    else:
        model = MaskablePPO("MlpPolicy", env, n_steps=cfg["n_steps"],
                            batch_size=cfg["batch_size"], gamma=cfg["gamma"],
                            seed=cfg["seed"], verbose=0)
    env.reset(seed=cfg["seed"] + len(rows))

    def save() -> None:
        model.save(out / "model.tmp.zip")
        with open(out / "curve.tmp", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
        (out / "model.tmp.zip").replace(model_path)
        (out / "curve.tmp").replace(curve_path)

    class Games(BaseCallback):
        """Records each finished game, saves every `save_every`, stops after `games`."""

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done:
                    rows.append({"game": len(rows), "seed": "", "won": int(info["won"]),
                                 "turns": info["turns"], "end": info["end_reason"]})
                    if len(rows) % cfg["save_every"] == 0 or len(rows) >= cfg["games"]:
                        save()
                        recent = rows[-cfg["save_every"]:]
                        print(f"game {len(rows)}/{cfg['games']}: "
                              f"{sum(int(r['won']) for r in recent)} wins in the last "
                              f"{len(recent)}", file=sys.stderr, flush=True)
            return len(rows) < cfg["games"]

    t0 = time.perf_counter()
    if len(rows) < cfg["games"]:
        model.learn(total_timesteps=10**9, callback=Games(), reset_num_timesteps=not resumed)
    train_s = time.perf_counter() - t0
    wins = 0
    for k in range(cfg["eval_games"]):
        obs, info = env.reset(seed=cfg["eval_seed"] + k)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _, done, _, info = env.step(int(action))
        wins += int(info["won"])
    n = cfg["eval_games"]
    ci = wilson_interval(wins, n)  # the project's one Wilson interval (None when n is 0)
    summary = {"games": len(rows), "train_seconds": round(train_s, 1), "resumed": resumed,
               "eval_games": n, "eval_seeds": [cfg["eval_seed"], cfg["eval_seed"] + n - 1],
               "eval_wins": wins, "eval_win_rate": round(wins / n, 4) if n else None,
               "wilson95": [round(ci[0], 4), round(ci[1], 4)] if ci else None,
               "config": cfg}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def main(argv: list[str] | None = None) -> None:
    """`python -m envs.reference`: prints the summary as JSON."""
    try:
        cfg = parse(sys.argv[1:] if argv is None else argv)
        print(json.dumps(run(cfg)))
    except HelpRequested as e:
        print(e)
    except (UsageError, ReferenceOptionError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2)


if __name__ == "__main__":
    main()
