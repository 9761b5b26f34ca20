"""`python -m agents.drl.curves OUT.png RUN_DIR[=LABEL] ... [block=25]`: training curves side by side.

Reads each run's `curve.csv` (written by `agents.drl.train` or `envs.reference`)
and plots wins per block of `block` games (default 25) and, where the learner logged
it, the PPO policy entropy per update, so runs with different settings can be compared
in one figure (as the paper's Fig. 2-5). Runs that share a label (the seeds of one
setting) are drawn as their mean with a band from the lowest to the highest seed.
Prints one JSON line per run with its wins per block. (A run folder is a path, so
`runs/a=LABEL` is a run, not an option; write `./a=LABEL` for a folder here.)
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
from pydantic import Field

from openmono_cli import Options, cli


def read_run(run: Path) -> list[dict[str, str]]:
    path = run / "curve.csv"
    if not path.is_file():
        raise SystemExit(f"error: no curve.csv in {run}")
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def blocks(won: list[int], size: int) -> list[int]:
    return [sum(won[i:i + size]) for i in range(0, len(won), size)]


class CurvesOptions(Options):
    """Training curves side by side."""

    positional = ("out", "runs")
    out: str = Field(description="the figure to write (.png)")
    runs: list[str] = Field(min_length=1, description="RUN_DIR or RUN_DIR=LABEL")
    block: int = Field(25, ge=1, description="games per block of wins")


def main(argv: list[str] | None = None) -> None:
    args = cli(CurvesOptions, argv, "python -m agents.drl.curves")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = []
    for spec in args.runs:
        run, _, label = spec.partition("=")
        runs.append((run, label or Path(run).name, read_run(Path(run))))
    # The second panel: PPO's policy entropy, or for DDQN-only figures its epsilon.
    key = "entropy" if any(r.get("entropy") for *_, rows in runs for r in rows) else "epsilon"
    fig, (ax_w, ax_e) = plt.subplots(1, 2, figsize=(10, 3.6))
    groups: dict[str, list[list[float]]] = {}
    for run, label, rows in runs:
        won = [int(r["won"]) for r in rows]
        per = blocks(won, args.block)
        ends = [min(len(won), (i + 1) * args.block) for i in range(len(per))]
        rate = [100 * w / (e - i * args.block) for i, (w, e) in enumerate(zip(per, ends))]
        groups.setdefault(label, []).append(rate)
        second = [(int(r["game"]), float(r[key])) for r in rows if r.get(key)]
        if second:
            ax_e.plot(*zip(*second), label=label, lw=0.8)
        print(json.dumps({"run": run, "label": label, "games": len(won), "wins": sum(won),
                          f"wins_per_{args.block}": per}))
    for label, rates in groups.items():
        n = min(len(r) for r in rates)  # the blocks every seed has
        grid = np.array([r[:n] for r in rates])
        x = [min((i + 1) * args.block, n * args.block) for i in range(n)]
        line, = ax_w.plot(x, grid.mean(axis=0), marker="o", ms=3,
                          label=label + (f" ({len(rates)} seeds)" if len(rates) > 1 else ""))
        if len(rates) > 1:
            ax_w.fill_between(x, grid.min(axis=0), grid.max(axis=0), alpha=0.2,
                              color=line.get_color())
    ax_w.set_xlabel("training games")
    ax_w.set_ylabel(f"wins per 100 games (blocks of {args.block})")
    ax_w.set_ylim(0, 100)
    ax_w.grid(alpha=0.3)
    ax_w.legend(fontsize=7)
    ax_e.set_xlabel("training games")
    ax_e.set_ylabel("policy entropy (PPO updates)" if key == "entropy"
                    else "exploration epsilon (DDQN)")
    ax_e.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=90)
    plt.close(fig)


if __name__ == "__main__":
    main()
