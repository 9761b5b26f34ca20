"""`python -m evaluation.compare DIR...`: agents x novelties from trial run directories.

Reads every `summary.json` under the given run or multirun directories (a trial whose
summary or records `evaluation.verify` finds changed is refused in one line), groups trials
by (agent, novelty, difficulty), aggregates them over seeds with confidence intervals
(Wilson for rates, bootstrap for NRP and delay) and prints a table; writes it as
`compare.md`, `compare.csv` and `compare.html` (the page: `evaluation.reports.compare_html`),
with one plot (`compare.png`), into `out=DIR`
(default: the first directory given).

    python -m evaluation.compare multirun/2026-11-22_17-30-00
    python -m evaluation.compare outputs/trial multirun/x out=results/
"""

from __future__ import annotations

import csv
import io
import logging
import json
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

from pydantic import Field

from openmono_cli import Options, out_field, read_options

from evaluation.store.atomic import atomic_write, read_regular
from evaluation.measures.pooled import aggregate
from evaluation.reports import vocabulary
from evaluation.reports.trial_intervals import intervals

COLUMNS = ("nda", "false_positive_rate", "detection_delay", "pnwp", "post_win_rate", "nrp")


class SummaryError(ValueError):
    """A summary.json that is not a trial summary; the message names the file."""


def find_summaries(dirs: Sequence[str]) -> list[dict[str, Any]]:
    """Every summary.json under `dirs`; SummaryError (one line) for one that cannot be
    read or compared: a comparison silently missing a trial would mislead."""
    found = []
    for d in dirs:
        root = Path(d)
        if not root.exists():
            raise FileNotFoundError(f"no such directory: {d}")
        paths = [root] if root.name == "summary.json" else sorted(root.rglob("summary.json"))
        for p in paths:
            try:
                summary = json.loads(read_regular(p).decode("utf-8"))  # no link, FIFO
                if not isinstance(summary, dict):
                    raise TypeError("not a JSON object")
                table_lines(compare([summary]))  # every measure it shows can be read
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                why = getattr(exc, "strerror", None) or f"{type(exc).__name__}: {exc}"
                raise SummaryError(f"{p} is not a trial summary ({why.splitlines()[0][:120]}):"
                                   " re-run its trial, or leave its folder out") from None
            forged = _forged(p.parent)
            if forged:
                raise SummaryError(f"{forged}: compare shows no numbers a trial's records do "
                                   "not give; restore that folder or leave it out")
            summary["_dir"] = str(p.parent)  # for the page's links to its report
            found.append(summary)
    return found


def _forged(trial: Path) -> str | None:
    """What `verify` found changed in a trial folder of the current format (None: nothing,
    or nothing it can say: no games.jsonl, no digests, an older format, a plugin missing
    here); a forged summary.json is refused rather than compared."""
    from evaluation.reports.verify import TAMPERED, check_trial

    if not (trial / "games.jsonl").exists():
        return None
    code, line = check_trial(trial)
    if code != TAMPERED or line.startswith("unchecked:") or "older openmono" in line:
        return None
    return line.partition(": ")[2]


def group_key(summary: dict[str, Any]) -> tuple[str, str, str]:
    return (summary.get("agent_label") or summary.get("agent", "?"),
            summary.get("novelty", "none"), summary.get("difficulty") or "-")


def compare(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (agent, novelty, difficulty) with the aggregated measures."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for s in summaries:
        groups[group_key(s)].append(s)
    rows = []
    for (agent, novelty, difficulty), items in sorted(groups.items()):
        agg = aggregate(items)
        row: dict[str, Any] = {"agent": agent, "novelty": novelty, "difficulty": difficulty,
                               "category": items[0].get("category") or "-", "trials": len(items)}
        for col in COLUMNS:
            row[col] = agg.get(col)
            row[f"{col}_lo"] = agg.get(f"{col}_lo")
            row[f"{col}_hi"] = agg.get(f"{col}_hi")
        if len(items) == 1 and row["nrp"] is not None:
            # a bootstrap over one trial has no width: the trial's own interval instead
            row["nrp_lo"], row["nrp_hi"] = intervals(items[0]).get("nrp", (None, None))
        rows.append(row)
    return rows


def _cell(row: dict[str, Any], col: str) -> str:
    """A measure with its interval in the one vocabulary (`87.5% (52.9–97.8%)`); the
    value alone where there is no interval (a bootstrap over one trial)."""
    return vocabulary.with_interval(col, row.get(col), row.get(f"{col}_lo"),
                                    row.get(f"{col}_hi"))


HEADERS = ("agent", "novelty", "difficulty", "trials",
           *(vocabulary.MEASURES[c].short for c in COLUMNS))
NOTE = ("Rates in percent with 95% Wilson intervals; NRP (a ratio) and detection delay "
        "(games) with 95% bootstrap intervals over trials, a one-trial NRP with its own "
        f"conservative interval. Definitions: {vocabulary.GLOSSARY}.")


def table_lines(rows: list[dict[str, Any]]) -> list[str]:
    body = [[r["agent"], r["novelty"], r["difficulty"], str(r["trials"]),
             *[_cell(r, c) for c in COLUMNS]] for r in rows]
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    lines += ["| " + " | ".join(b) + " |" for b in body]
    return lines


def write_outputs(rows: list[dict[str, Any]], out: Path,
                  summaries: Sequence[dict[str, Any]] = ()) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    md = out / "compare.md"
    atomic_write(md, f"# Agents x novelties\n\n{NOTE}\n\n" + "\n".join(table_lines(rows))
                 + "\n")
    path_csv = out / "compare.csv"
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]) if rows else ["agent"])
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(path_csv, buf.getvalue())
    written = [md, path_csv]
    plot = _plot(rows, out / "compare.png")
    if plot:
        written.append(plot)
    from evaluation.reports import compare_html

    written.append(compare_html.write(rows, summaries, out, plot))
    return written


PLOTTED = (("post_win_rate", "win rate after the novelty, %\n(PNWP for controls)", 100.0),
           ("nda", "NDA, %", 100.0), ("nrp", "NRP", None))  # (measure, title, percent axis)


def _plot(rows: list[dict[str, Any]], path: Path) -> Path | None:
    """Win rate, NDA and NRP per novelty, one bar per agent with its interval, in three
    panels; the legend below them, where it covers no bar."""
    logging.getLogger("matplotlib").setLevel(logging.WARNING)  # no font-cache INFO line
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    labels = sorted({f"{r['novelty']}/{r['difficulty']}" for r in rows})
    agents = sorted({r["agent"] for r in rows})
    fig, axes = plt.subplots(1, len(PLOTTED), figsize=(max(9, 1.1 * len(labels) * 3), 3.8),
                             squeeze=False)
    width = 0.8 / max(1, len(agents))
    for ax, (col, title, top) in zip(axes[0], PLOTTED):
        for i, agent in enumerate(agents):
            xs, ys, errs = [], [], [[], []]
            for j, lab in enumerate(labels):
                for r in rows:
                    if r["agent"] != agent or f"{r['novelty']}/{r['difficulty']}" != lab:
                        continue
                    key = "pnwp" if col == "post_win_rate" and r[col] is None else col
                    v = r[key]
                    if v is None:
                        continue
                    lo = r[f"{key}_lo"] if r[f"{key}_lo"] is not None else v
                    hi = r[f"{key}_hi"] if r[f"{key}_hi"] is not None else v
                    if top is not None:  # rates in percent, as every output shows them
                        v, lo, hi = 100 * v, 100 * lo, 100 * hi
                    xs.append(j + i * width)
                    ys.append(v)
                    errs[0].append(max(0.0, v - lo))
                    errs[1].append(max(0.0, hi - v))
            ax.bar(xs, ys, width=width, yerr=errs, label=agent, capsize=2)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(labels))])
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        ax.set_title(title, fontsize=9)
        if top is not None:
            ax.set_ylim(0, top)
        else:
            ax.axhline(1.0, color="#999", linewidth=0.8)
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=max(1, len(agents)), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


class CompareOptions(Options):
    """Several trials side by side: one table, its CSV and Markdown, and plots."""

    positional = ("dirs",)
    dirs: list[str] = Field(min_length=1, description="results folders (searched for "
                            "summary.json)")
    out: str | None = out_field(None, "where the table and plots are written (null: the "
                                "first folder)")


def main(argv: list[str] | None = None) -> int:
    opts = read_options(CompareOptions, argv, "python -m evaluation.compare")
    if isinstance(opts, int):
        return opts
    dirs = list(opts.dirs)
    if opts.out is not None and not opts.out.strip():
        print("error: out= is empty: name a folder, e.g. out=results/ (or leave out= out to "
              "write into the first folder)", file=sys.stderr)
        return 2
    out = Path(opts.out if opts.out is not None else dirs[0])
    probe = out
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        print(f"error: cannot write to the output directory {str(out)!r}", file=sys.stderr)
        return 2
    try:
        summaries = find_summaries(dirs)
    except (FileNotFoundError, SummaryError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not summaries:
        print(f"error: no summary.json under {', '.join(dirs)} (run a trial first)",
              file=sys.stderr)
        return 2
    rows = compare(summaries)
    print("\n".join(table_lines(rows)))
    print(NOTE)
    for p in write_outputs(rows, out, summaries):
        print(f"wrote {p}")
    print(f"open: {out / 'compare.html'}  (filters, the plots, every trial's report)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
