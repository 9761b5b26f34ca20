"""The detection sweep's tables: NDA, false positives, delay, characterization and NRP per
category x difficulty beside the planner paper's, and per novelty."""

from __future__ import annotations

from typing import Any

from evaluation.measures.pooled import aggregate
from novelties.base import CATEGORIES, DIFFICULTIES

PAPER_NDA = {  # planner paper, Table 1 (the agent's NDA, %)
    ("class", "easy"): 40.0, ("class", "medium"): 46.67, ("class", "hard"): 48.0,
    ("attribute", "easy"): 90.32, ("attribute", "medium"): 90.0, ("attribute", "hard"): 75.0,
    ("representation", "easy"): 52.0, ("representation", "medium"): 32.0,
    ("representation", "hard"): 32.0,
}
# The same table's "NRP" column: the agent's post-novelty win percentage (%), and its
# pre-novelty win percentage (PNWP, no novelty) 76.48.
PAPER_WIN = {
    ("class", "easy"): 71.13, ("class", "medium"): 64.89, ("class", "hard"): 28.90,
    ("attribute", "easy"): 70.47, ("attribute", "medium"): 94.43, ("attribute", "hard"): 61.50,
    ("representation", "easy"): 74.99, ("representation", "medium"): 78.10,
    ("representation", "hard"): 81.58,
}
PAPER_PNWP = 76.48
SHORT = {"class": "CN", "attribute": "AN", "representation": "RN"}


# --- tables -----------------------------------------------------------------------------------
def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _row(label: str, agg: dict[str, Any], acc: float | None, paper: str,
         paper_win: str = "-") -> str:
    ci = f" ({_pct(agg['nda_lo'])}-{_pct(agg['nda_hi'])})" if agg["nda_lo"] is not None else ""
    delay = "-" if agg["detection_delay"] is None else f"{agg['detection_delay']:.2f}"
    nrp = "-" if agg["nrp"] is None else f"{agg['nrp']:.2f}"
    if agg["nrp_lo"] is not None:
        nrp += f" ({agg['nrp_lo']:.2f}-{agg['nrp_hi']:.2f})"
    win = _pct(agg["post_win_rate"])
    if agg.get("post_win_rate_lo") is not None:
        win += f" ({_pct(agg['post_win_rate_lo'])}-{_pct(agg['post_win_rate_hi'])})"
    return (f"| {label} | {agg['novelty_trials']} | {_pct(agg['nda'])}{ci} | "
            f"{_pct(agg['nda_characterized'])} | {paper} | "
            f"{_pct(agg['false_positive_rate'])} | {delay} | {_pct(acc)} | {nrp} | "
            f"{win} | {paper_win} |")


def _accuracy(rs: list[dict[str, Any]]) -> float | None:
    return _mean([r["char_accuracy_values"] for r in rs
                  if r.get("char_accuracy_values") is not None])


def tables(results: list[dict[str, Any]]) -> tuple[str, str, dict[str, Any]]:
    """(cell table, per-novelty table, aggregates) in markdown."""
    controls = [r for r in results if r["sweep_category"] == "control"]
    novelty_trials = [r for r in results if r["sweep_category"] != "control"]
    rows = ["| Class | Trials | NDA % (95% CI) | NDA+char. % | Paper NDA % | FP % "
            "| Delay (games) | Char. acc. % | NRP, pooled (95% CI) | Post-novelty win % (95% CI) "
            "| Paper win % |",
            "|---|---:|---|---:|---:|---:|---:|---:|---|---|---:|"]
    totals: dict[str, Any] = {}
    for category in CATEGORIES:
        for difficulty in DIFFICULTIES:
            cell = [r for r in novelty_trials if r["sweep_category"] == category
                    and r["sweep_difficulty"] == difficulty]
            if cell:
                agg = aggregate(cell)
                totals[f"{category}-{difficulty}"] = agg
                rows.append(_row(f"{SHORT[category]}-{difficulty}", agg, _accuracy(cell),
                                 f"{PAPER_NDA[(category, difficulty)]:.1f}",
                                 f"{PAPER_WIN[(category, difficulty)]:.1f}"))
    if novelty_trials:
        agg = totals["all"] = aggregate(novelty_trials)
        rows.append(_row("all novelties", agg, _accuracy(novelty_trials), "-"))
    if controls:
        agg = totals["control"] = aggregate(controls)
        fp = _pct(agg["false_positive_rate"])
        if agg.get("false_positive_rate_lo") is not None:
            fp += f" ({_pct(agg['false_positive_rate_lo'])}-{_pct(agg['false_positive_rate_hi'])})"
        rows.append(f"| control (no novelty) | {agg['trials']} | - | - | - | "
                    f"{fp} | - | - | - | pre-novelty {_pct(agg['pnwp'])} | "
                    f"PNWP {PAPER_PNWP:.1f} |")
    if results:
        totals["fp_all_trials"] = aggregate(results)
    per = ["| Novelty | Category | Difficulty | Trials | Detected | Mean delay | Char. acc. % |",
           "|---|---|---|---:|---:|---:|---:|"]
    keys = sorted({(r["sweep_category"], r["novelty"], r["sweep_difficulty"])
                   for r in novelty_trials},
                  key=lambda k: (CATEGORIES.index(k[0]), k[1], DIFFICULTIES.index(k[2])))
    for category, name, difficulty in keys:
        rs = [r for r in novelty_trials if r["novelty"] == name
              and r["sweep_difficulty"] == difficulty]
        det = sum(1 for r in rs if r["nda"])
        delays = [r["detection_delay"] for r in rs if r["detection_delay"] is not None]
        mean_delay = "-" if not delays else f"{sum(delays) / len(delays):.1f}"
        per.append(f"| {name} | {SHORT[category]} | {difficulty} | {len(rs)} | "
                   f"{det}/{len(rs)} | {mean_delay} | {_pct(_accuracy(rs))} |")
    return "\n".join(rows), "\n".join(per), totals
