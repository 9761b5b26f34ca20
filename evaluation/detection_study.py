"""The detection study of issue 14: several saved sweeps side by side.

    python -m evaluation.detection_study OUT_DIR [OUT_DIR ...]

Each OUT_DIR is the output of one `python -m evaluation.detection_sweep` run (its
`sweep.json`: one agent at one observability level, or control trials only). Prints a
summary (one row per sweep: NDA in both forms, delay, false positives, pooled NRP,
post-novelty win rate, each with its sample size and interval), the same per
measured-detectability band, and then each sweep's own report. The results pages render
the same text from the sweeps saved in docs/data/detection_study/ (`{{ detection_study
DIR ... }}` in docs/data/results/detection.md; `python -m evaluation.results write`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import Field

from evaluation import detection_bands, detection_sweep, metrics
from openmono.cli import Options, read_options


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _ci(agg: dict[str, Any], key: str, pct: bool = True) -> str:
    v = agg.get(key)
    if v is None:
        return "-"
    f = _pct if pct else (lambda x: f"{x:.2f}")
    text = f(v)
    if agg.get(f"{key}_lo") is not None:
        text += f" ({f(agg[f'{key}_lo'])}-{f(agg[f'{key}_hi'])})"
    return text


def _label(saved: dict[str, Any], cells: bool = True) -> tuple[str, str]:
    """(agent, level) of a sweep; a sweep of chosen cells says so (`cells=False`: not)."""
    args = detection_sweep.saved_args(saved)
    novelty = [t for t in saved["trials"] if not detection_bands.is_control(t)]
    level = args.observability if novelty else "controls only"
    chosen = getattr(args, "cells", None)
    if cells and novelty and chosen:
        level += f", cells {','.join(chosen)}"
    return detection_sweep.agent_name(args), level


def delay_spread(trials: list[dict[str, Any]]) -> str:
    """The detected trials' delays as `median [quartiles], max` (games), or `-`."""
    import numpy as np

    delays = [t["detection_delay"] for t in trials
              if t.get("nda") and t.get("detection_delay") is not None]
    if not delays:
        return "-"
    q1, med, q3 = np.percentile(delays, [25, 50, 75])
    return f"{med:g} [{q1:g}–{q3:g}], max {max(delays):g}"


def summary_rows(sweeps: list[dict[str, Any]]) -> str:
    rows = ["| Agent | Novelties | Novelty trials | Games/trial | NDA % (95% CI) | "
            "NDA+char. % (95% CI) | Delay, games: mean (95% CI) | Delay: median "
            "[quartiles], max | FP % (95% CI), trials | NRP, pooled (95% CI) | "
            "Post-novelty win % (95% CI) |",
            "|---|---|---:|---:|---|---|---|---|---|---|---|"]
    for saved in sweeps:
        agent, level = _label(saved)
        agg = metrics.aggregate(saved["trials"])
        rows.append(
            f"| `{agent}` | {level} | {agg['novelty_trials']} | {saved['args']['games']} | "
            f"{_ci(agg, 'nda')} | {_ci(agg, 'nda_characterized')} | "
            f"{_ci(agg, 'detection_delay', pct=False)} | {delay_spread(saved['trials'])} | "
            f"{_ci(agg, 'false_positive_rate')}, {agg['false_positive_rate_n']} | "
            f"{_ci(agg, 'nrp', pct=False)} | {_ci(agg, 'post_win_rate')} |")
    return "\n".join(rows)


def band_rows(sweeps: list[dict[str, Any]], cells: dict) -> str:
    """One block of bands per agent and level: the sweeps of one agent at one level are
    pooled (a sweep of the hardest cells adds trials where the bands are thin)."""
    rows = ["| Agent | Novelties | Measured detectability | Trials | NDA % (95% CI) | "
            "NDA+char. % | Delay, games (95% CI) | Delay: median [quartiles], max |",
            "|---|---|---|---:|---|---:|---|---|"]
    pooled: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for saved in sweeps:
        pooled.setdefault(_label(saved, cells=False), []).extend(saved["trials"])
    for (agent, level), trials in pooled.items():
        banded = detection_bands.by_band(trials, cells)
        for r in detection_bands.band_rows(trials, cells):
            rows.append(f"| `{agent}` | {level} | {r['band']} | {r['novelty_trials']} | "
                        f"{_ci(r, 'nda')} | {_pct(r['nda_characterized'])} | "
                        f"{_ci(r, 'detection_delay', pct=False)} | "
                        f"{delay_spread(banded.get(r['band'], []))} |")
    return "\n".join(rows)


def study_text(sweeps: list[dict[str, Any]], cells: dict, preface: str = "",
               renamed: int = 0, title: bool = True) -> str:
    """The whole section: title, preface, summary, bands, then each sweep's report
    (`renamed`: how many trials are shown under their parameters' preset name of today;
    no title when the results page supplies its own)."""
    parts = ["## Novelty detection", ""] if title else []
    if preface:
        parts += [preface.rstrip(), ""]
    if renamed:
        parts += [f"{renamed} trials ran parameters that a later re-tuning moved to another\n"
                  "preset name; the tables show them under today's name (the saved\n"
                  "`sweep.json` keeps the name they ran under and their parameters).", ""]
    parts += ["Summary, one row per sweep:", "", summary_rows(sweeps), "",
              "Per measured-detectability band (the sweeps of one agent and level pooled):",
              "", band_rows(sweeps, cells), ""]
    for saved in sweeps:
        parts += [detection_sweep.render_saved(saved, cells=cells), ""]
    return "\n".join(parts)


def load_sweeps(dirs: list[Path]) -> tuple[list[dict[str, Any]], int]:
    """The saved sweeps of `dirs` with their trials under today's preset names, and how
    many trials were renamed; FileNotFoundError names a folder without a sweep.json."""
    sweeps, renamed = [], 0
    for d in dirs:
        path = Path(d) / "sweep.json"
        if not path.exists():
            raise FileNotFoundError(str(path))
        saved = json.loads(path.read_text(encoding="utf-8"))
        trials, moved = detection_bands.with_current_presets(saved["trials"])
        sweeps.append({**saved, "trials": trials})
        renamed += moved
    return sweeps, renamed


class StudyOptions(Options):
    """Several saved detection sweeps side by side."""

    positional = ("dirs",)
    dirs: list[str] = Field(min_length=1, description="detection_sweep output directories")
    preface: str | None = Field(None, description="a markdown file to put under the title")
    measured: str | None = Field(None, description="measured-difficulty file (null: "
                                 "novelties/data/measured.json)")


def main(argv: list[str] | None = None) -> int:
    args = read_options(StudyOptions, argv, "python -m evaluation.detection_study")
    if isinstance(args, int):
        return args
    try:
        sweeps, renamed = load_sweeps([Path(d) for d in args.dirs])
    except FileNotFoundError as exc:
        d = Path(str(exc)).parent
        print(f"error: no sweep.json in {str(d)!r} (run python -m evaluation.detection_sweep "
              f"out={d} first)", file=sys.stderr)
        return 2
    preface = Path(args.preface).read_text(encoding="utf-8") if args.preface else ""
    text = study_text(sweeps, detection_bands.load_cells(args.measured), preface, renamed)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
