"""`python -m evaluation.select_checkpoint RUN AGENT`: choose a training run's checkpoint
on validation games.

    python -m evaluation.select_checkpoint outputs/train/hybrid_ddqn/none-medium/seed2 hybrid_ddqn \
        every=500 games=100 seed=400000

Each checkpoint `RUN/weights/gNNNNNN.npz` whose game count is a multiple of `every`
plays `games` games as AGENT (`detector=none`) against `fp_a, fp_b, fp_c` from game seed
`seed`, the same games for every checkpoint; its result is written to
`RUN/validation/gNNNNNN.json` at once, so a second call plays only new checkpoints. The
choice is the checkpoint with the most wins, ties going to the later one (more training
for the same evidence). Validate on a seed range that neither training nor the held-out
score uses; the validation wins of the chosen checkpoint are the best of many noisy
draws and overstate it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import Field

from openmono_cli import Options, UsageError, cli, fail, games_field, seed_field

from evaluation.store.atomic import atomic_write
from evaluation.games.paper_tables import FP as OPPONENTS  # the paper's fixed policies


class SelectOptions(Options):
    """Choose a training run's checkpoint on validation games."""

    positional = ("run", "agent")
    run: str = Field(description="the training run's out folder (it holds weights/)")
    agent: str = Field(description="the agent the run trained, e.g. hybrid_ddqn")
    every: int = Field(500, ge=1, description="validate the checkpoints at multiples of this "
                       "many games")
    games: int = games_field(100, "validation games per checkpoint")
    seed: int = seed_field(400_000, "the first validation game's seed")


def checkpoints(run: Path, every: int) -> list[tuple[int, Path]]:
    """(game, path) of the run's checkpoints at multiples of `every`, in order."""
    out = []
    for path in sorted((run / "weights").glob("g*.npz")):
        try:
            game = int(path.stem[1:])
        except ValueError:
            continue
        if game % every == 0:
            out.append((game, path))
    return out


def validate(run: Path, agent: str, every: int, games: int, seed: int) -> list[dict[str, Any]]:
    """Play every checkpoint not yet validated with these settings; returns all rows."""
    from evaluation.games.tournament import run_tournament

    rows = []
    (run / "validation").mkdir(exist_ok=True)
    for game, path in checkpoints(run, every):
        out = run / "validation" / f"{path.stem}.json"
        if out.is_file():
            done = json.loads(out.read_text())
            if (done.get("games"), done.get("seed"), done.get("agents", [None])[0]) == \
                    (games, seed, agent):
                rows.append({"game": game, "wins": done["wins"][0], "games": games})
                continue
        summary = run_tournament([agent, *OPPONENTS], games=games, runs=1, seed=seed,
                                 options={agent: {"weights": str(path), "detector": None}})
        atomic_write(out, json.dumps(summary) + "\n")
        rows.append({"game": game, "wins": summary["wins"][0], "games": games})
        print(f"game {game}: {summary['wins'][0]} of {games}", file=sys.stderr)
    return rows


def best(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The most wins; ties: the later checkpoint."""
    return max(rows, key=lambda r: (r["wins"], r["game"]))


def main(argv: list[str] | None = None) -> int:
    cfg = cli(SelectOptions, argv, "python -m evaluation.select_checkpoint")
    run = Path(cfg.run)
    try:
        if not (run / "weights").is_dir():
            raise UsageError(f"{run} has no weights/ folder: not a training run's out folder")
        rows = validate(run, cfg.agent, cfg.every, cfg.games, cfg.seed)
        if not rows:
            raise UsageError(f"{run}/weights holds no checkpoint at a multiple of "
                             f"{cfg.every} games")
    except UsageError as exc:
        fail(str(exc))
    chosen = best(rows)
    for r in rows:
        mark = "  <- chosen" if r is chosen else ""
        print(f"g{r['game']:06d}  {r['wins']:>4} of {r['games']}{mark}")
    print(json.dumps({"chosen": str(run / "weights" / f"g{chosen['game']:06d}.npz"),
                      "game": chosen["game"], "wins": chosen["wins"],
                      "games": chosen["games"], "checkpoints": len(rows)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
