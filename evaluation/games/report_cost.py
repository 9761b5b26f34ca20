"""What the HTML pages cost: `python -m evaluation.report_cost runs=3`.

Plays the default trial (planner vs 3 `baseline`, `rent_hike`, 100 games, seed 0) `runs`
times without kept logs and `runs` times with the default (interleaved), writes each
trial's report (`report.md`, `report.html`, the replays; no PNG plots) and prints the CPU
seconds of each, then the pages' sizes. A measurement, not a test: the machine's load
moves the figures.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from pydantic import Field

from openmono_cli import Options, cli


class CostOptions(Options):
    """What the HTML pages cost: the default trial played and reported, with and without logs."""

    runs: int = Field(3, ge=1, description="times each variant is played")


def main(argv: list[str] | None = None) -> int:
    cfg = cli(CostOptions, argv, "python -m evaluation.report_cost")
    from evaluation.reports.report import write_report
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig

    root = Path(tempfile.mkdtemp(prefix="report_cost_"))
    try:
        for _ in range(cfg.runs):
            for keep in ("none", "novelty"):
                out = root / keep
                shutil.rmtree(out, ignore_errors=True)
                t = time.process_time()
                summary = run_trial(TrialConfig(novelty="rent_hike", progress=False,
                                                keep_logs=keep), out)
                trial = time.process_time() - t
                t = time.process_time()
                write_report(str(out), summary, plots=False)
                print(json.dumps({"keep_logs": keep, "trial_cpu_s": round(trial, 3),
                                  "report_cpu_s": round(time.process_time() - t, 3)}),
                      flush=True)
        kept = root / "novelty"
        print(json.dumps({"pages_kb": {p.name: round(p.stat().st_size / 1024, 1)
                                       for p in sorted(kept.glob("*.html"))},
                          "logs_kb": {p.name: round(p.stat().st_size / 1024, 1)
                                      for p in sorted((kept / "logs").glob("*"))}}))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
