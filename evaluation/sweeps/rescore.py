"""Score another alarm rule on saved trials, without playing them again.

    python -m evaluation.rescore SWEEP_DIR [SWEEP_DIR...] [stat=contradictions_total]
                                 [thresholds=[1,2,3,5]]

Every game's record keeps the detector's own statistics after that game
(`report.evidence`, e.g. the DRL agents' `contradictions_total`, `cusum_surprise`,
`cusum_reward_up`, `cusum_reward_down`). A rule "report from the first game whose
statistic reaches T" is scored here on every trial under the given folders: NDA (the
first report at or after the injection, none before), false positives (a report before
the injection, or any report in a control trial), and the mean delay, per threshold —
the power curve of that statistic against its false-alarm rate.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterable

from pydantic import Field

from evaluation.measures.intervals import wilson_interval
from evaluation.harness.trial_folder import GAMES_FILE, read_records
from openmono_cli import Options, read_options


def trials(dirs: Iterable[str]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(summary, records) of every trial under `dirs`."""
    out = []
    for d in dirs:
        for summary_path in sorted(Path(d).rglob("summary.json")):
            games = summary_path.parent / GAMES_FILE
            if games.exists():
                out.append((json.loads(summary_path.read_text()), read_records(games)))
    return out


def first_report(records: list[dict[str, Any]], stat: str, threshold: float) -> int | None:
    """The first game after which `stat` reached `threshold` (None: never, or no stat)."""
    for r in sorted(records, key=lambda r: r["game"]):
        value = (r.get("report") or {}).get("evidence", {}).get(stat)
        if value is not None and value >= threshold:
            return r["game"]
    return None


def score(found: list[tuple[dict[str, Any], list[dict[str, Any]]]], stat: str,
          threshold: float) -> dict[str, Any]:
    novel = fp = hit = 0
    delays = []
    for summary, records in found:
        inject = summary.get("injected_at")
        g = first_report(records, stat, threshold)
        if inject is None:
            fp += g is not None
            continue
        novel += 1
        if g is not None and g < inject:
            fp += 1
        elif g is not None:
            hit += 1
            delays.append(g - inject)
    n = len(found)
    return {"threshold": threshold, "novelty_trials": novel, "nda": hit / novel if novel else None,
            "nda_ci": wilson_interval(hit, novel), "trials": n,
            "false_positives": fp, "fp_ci": wilson_interval(fp, n),
            "mean_delay": sum(delays) / len(delays) if delays else None}


class RescoreOptions(Options):
    """Score another alarm rule on saved trials, without playing them again."""

    positional = ("dirs",)
    dirs: list[str] = Field(min_length=1, description="sweep or trial folders (searched for "
                            "summary.json)")
    stat: str = Field("contradictions_total", description="the evidence statistic")
    thresholds: list[float] = Field([1, 2, 3, 5], min_length=1,
                                    description="report when the statistic reaches each")


def main(argv: list[str] | None = None) -> int:
    args = read_options(RescoreOptions, argv, "python -m evaluation.rescore")
    if isinstance(args, int):
        return args
    levels = args.thresholds
    found = trials(args.dirs)
    if not found:
        print(f"error: no trial (summary.json with games.jsonl) under {', '.join(args.dirs)}",
              file=sys.stderr)
        return 2
    if not any((r.get("report") or {}).get("evidence", {}).get(args.stat) is not None
               for _, records in found for r in records):
        print(f"error: no record keeps the statistic {args.stat!r} (report.evidence)",
              file=sys.stderr)
        return 2
    print(f"| {args.stat} >= | novelty trials | NDA % (95% CI) | trials | false positives "
          "% (95% CI) | mean delay, games |")
    print("|---:|---:|---|---:|---|---:|")
    for t in levels:
        s = score(found, args.stat, t)
        nda = "-" if s["nda"] is None else (
            f"{100 * s['nda']:.1f} ({100 * s['nda_ci'][0]:.1f}-{100 * s['nda_ci'][1]:.1f})")
        fp = s["false_positives"] / s["trials"]
        delay = "-" if s["mean_delay"] is None else f"{s['mean_delay']:.2f}"
        print(f"| {t:g} | {s['novelty_trials']} | {nda} | {s['trials']} | {100 * fp:.1f} "
              f"({100 * s['fp_ci'][0]:.1f}-{100 * s['fp_ci'][1]:.1f}) | {delay} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
