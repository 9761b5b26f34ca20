"""A Hydra multirun with the joblib launcher, turned into a table by evaluation.compare."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_multirun_joblib_then_compare(tmp_path: Path) -> None:
    """2 agents x 2 novelties x 2 seeds: the table must have one row per (agent, novelty)
    pooling both seeds, a grid in which a lost, doubled or mislabelled trial shows."""
    sweep = tmp_path / "sweep"
    proc = subprocess.run(
        [sys.executable, "-m", "evaluation.trial", "--multirun", "hydra/launcher=local",
         "hydra.launcher.n_jobs=2", "agent=random,baseline",
         "novelty=rent_hike,dice_weights", "seed=0,1", "games=4",
         "inject_at=2", "progress=false", "plots=false",
         "opponents=[random,random,random]", "reference=random", f"hydra.sweep.dir={sweep}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summaries = sorted(sweep.rglob("summary.json"))
    assert len(summaries) == 2 * 2 * 2

    out = tmp_path / "table"
    proc = subprocess.run([sys.executable, "-m", "evaluation.compare", str(sweep), f"out={out}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "| agent | novelty |" in proc.stdout
    with (out / "compare.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert {(r["agent"], r["novelty"]) for r in rows} == {
        (a, n) for a in ("random", "baseline") for n in ("rent_hike", "dice_weights")}
    assert all(r["trials"] == "2" for r in rows)
    assert (out / "compare.md").exists() and (out / "compare.png").exists()


def test_compare_without_results_is_a_short_error(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "evaluation.compare", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "no summary.json" in proc.stderr and "Traceback" not in proc.stderr
