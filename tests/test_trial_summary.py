"""The terminal's summary of a trial: its measures with intervals, what NRP means, which
file to open, and no stray log line from the plotting library on a first run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from evaluation.reports.report import print_summary

SUMMARY = {"agent": "planner", "opponents": ["baseline"] * 3, "novelty": "rent_hike",
           "difficulty": "medium", "observability": "effects", "games": 20, "injected_at": 8,
           "pre_games": 8, "pre_wins": 7, "post_games": 12, "post_wins": 10, "wins": 17,
           "pnwp": 7 / 8, "post_win_rate": 10 / 12, "nda": 1, "false_positive_rate": 0,
           "first_detection": 8, "detection_delay": 0, "nrp": (10 / 12) / (2 / 8),
           "ref_pre_wins": 2, "ref_pre_games": 8, "faults": 0}


def test_the_summary_has_intervals_explains_nrp_and_names_the_page(capsys) -> None:
    print_summary(SUMMARY, "outputs/trial/x")
    out = capsys.readouterr().out
    lines = {line.split("  ")[1].strip(): line for line in out.splitlines()
             if line.startswith("  ") and "  " in line[2:]}
    assert "87.5%" in lines["pre-novelty win rate (PNWP)"]
    assert "95% CI 52.9–97.8%" in lines["pre-novelty win rate (PNWP)"]
    assert "95% CI" in lines["novelty reaction performance (NRP)"]
    assert "NRP = post-novelty win rate / the reference agent's pre-novelty win rate" in out
    assert "effects" in out.splitlines()[0]  # the observability in the title
    assert f"open: {Path('outputs/trial/x') / 'report.html'}" in out
    assert "docs/glossary.md" in out


def test_a_first_run_prints_no_matplotlib_log_line(tmp_path) -> None:
    """Hydra logs at INFO; matplotlib builds its font cache on first use and says so."""
    code = ("import logging, pathlib; logging.basicConfig(level=logging.INFO);"
            "from evaluation.reports.report import make_plots;"
            "recs=[{'game': g, 'won': g % 2 == 0, 'report': {}} for g in range(4)];"
            f"print(make_plots(pathlib.Path({str(tmp_path)!r}), recs, 2, 2))")
    env = {**os.environ, "MPLCONFIGDIR": str(tmp_path / "mpl")}  # a first run: no cache
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "win_rate.png" in proc.stdout
    assert "matplotlib" not in proc.stderr
