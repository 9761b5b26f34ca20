"""Human-readable output of a trial: the summary table, report.md and the plots."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from evaluation.reports import vocabulary
from evaluation.reports.trial_intervals import intervals, rates
from evaluation.store.atomic import atomic_write
from evaluation.harness.trial_folder import GAMES_FILE, read_records

# The rows of a trial's summary, in order (names, units and definitions: vocabulary).
ROWS = ("games", "injected_at", "pnwp", "post_win_rate", "win_rate", "ref_pnwp", "nda",
        "false_positive_rate", "first_detection", "detection_delay", "nrp",
        "characterization_accuracy", "turn_limit_games", "faults", "seconds")
INJECTED, REPORTED = "#7b3fb5", "#1f6fd1"  # as on report.html
YES_NO = ("nda", "false_positive_rate")  # one trial scores them 1 or 0: said as yes or no
NRP_NOTE = ("NRP = post-novelty win rate / the reference agent's pre-novelty win rate on the "
            "same seeds;\n  1 means as good after the novelty as the reference before it")


def measure_keys(summary: dict[str, Any]) -> list[str]:
    """The measures a summary holds (the win rates its counts give included), in order."""
    values = {**summary, **rates(summary)}
    return [k for k in ROWS if k in values]


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(label, value, 95% interval) of each measure the summary holds, as every output
    of a trial shows them: the terminal, report.md and report.html."""
    values = {**summary, **rates(summary)}
    cis = intervals(summary)
    rows = []
    for key in measure_keys(summary):
        v = values[key]
        if key in YES_NO and v is not None:
            shown = "yes" if v else "no"
        else:
            shown = vocabulary.value(key, v)
        lo, hi = cis.get(key, (None, None))
        rows.append((vocabulary.MEASURES[key].label, shown, vocabulary.interval(key, lo, hi)))
    return rows


def print_summary(summary: dict[str, Any], out_dir: str) -> None:
    """The terminal's account of a finished trial: the measures with their intervals,
    what NRP means and which file to open next."""
    title = (f"trial: {summary.get('agent')} vs {', '.join(summary.get('opponents', []))} | "
             f"novelty: {summary.get('novelty')}"
             + (f" ({summary.get('difficulty')}, {summary.get('observability')})"
                if summary.get("difficulty") else ""))
    rows = summary_rows(summary)
    width = max(len(label) for label, _, _ in rows)
    vwidth = max(len(v) for _, v, _ in rows)
    print(title)
    print("-" * len(title))
    for label, value, ci in rows:
        line = f"  {label:<{width}}  {value:>{vwidth}}"
        print(f"{line}  95% CI {ci}" if ci else line)
    if summary.get("nrp") is not None:
        print(f"  {NRP_NOTE}")
    print(f"  definitions: {vocabulary.GLOSSARY}")
    print(f"results: {out_dir}")
    print(f"open: {Path(out_dir) / 'report.html'}  (the games, reports and replays)")


def write_report(out_dir: str, summary: dict[str, Any], plots: bool = True) -> None:
    """Write a finished trial's `report.md` and `report.html` (and, with `plots`, its
    figures) into `out_dir`, from its `games.jsonl` and `summary`."""
    out = Path(out_dir)
    records = read_records(out / GAMES_FILE)
    lines = [
        f"# Trial report: {summary.get('agent')} / novelty {summary.get('novelty')}",
        "",
        f"- opponents: {', '.join(summary.get('opponents', []))}",
        f"- difficulty: {summary.get('difficulty') or '-'}; category: "
        f"{vocabulary.category(summary.get('category'))}; observability: "
        f"{summary.get('observability') or '-'}",
        f"- detection condition: {summary.get('detection')}; reference agent: "
        f"{summary.get('reference') or '-'}; trial seed: {summary.get('seed')}",
        "",
        "| measure | value | 95% interval |",
        "|---|---|---|",
    ]
    lines += [f"| {label} | {value} | {ci or '-'} |" for label, value, ci in
              summary_rows(summary)]
    lines += ["", f"Rates with Wilson intervals; NRP's interval is conservative. "
              f"{NRP_NOTE.replace(chr(10) + '  ', ' ')}. "
              f"Definitions: {vocabulary.GLOSSARY}; the page: report.html."]
    if plots and records:
        made = make_plots(out, records, summary.get("injected_at"),
                          summary.get("first_detection"))
        lines += ["", *[f"![{name}]({name})" for name in made]]
    atomic_write(out / "report.md", "\n".join(lines) + "\n")
    from evaluation.reports import html_report
    from evaluation.reports import replay

    for g in replay.kept_games(out):  # the replays the report links to
        page, log = replay.page_path(out, g), replay.log_path(out, g)
        if not page.exists() or page.stat().st_mtime < log.stat().st_mtime:
            replay.write(out, g)
    html_report.write(out, summary, records)


def make_plots(out: Path, records: list[dict[str, Any]], injected_at: int | None,
               first_report: int | None = None) -> list[str]:
    """Running win rate with the injection and the first report marked (the colours of
    report.html: red is no mark), and the detection timeline."""
    logging.getLogger("matplotlib").setLevel(logging.WARNING)  # no font-cache INFO line
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # plots are optional
        return []
    games = [r["game"] for r in records]
    wins = [1.0 if r["won"] else 0.0 for r in records]
    window = 10
    rolling = [sum(wins[max(0, i - window + 1): i + 1]) / len(wins[max(0, i - window + 1): i + 1])
               for i in range(len(wins))]
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.plot(games, rolling, label=f"win rate (last {window} games)")
    _mark(ax, injected_at, first_report)
    ax.set_xlabel("game")
    ax.set_ylabel("win rate")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "win_rate.png", dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 1.8))
    detected = [r["game"] for r in records if r.get("report", {}).get("detected")]
    conf = [r.get("report", {}).get("confidence", 0.0) for r in records]
    ax.plot(games, conf, color="gray", label="reported confidence")
    ax.scatter(detected, [1.0] * len(detected), marker="|", color="black", label="detected")
    _mark(ax, injected_at, first_report)
    ax.set_xlabel("game")
    ax.set_ylim(-0.05, 1.1)
    ax.legend(loc="lower left", fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "detection.png", dpi=100)
    plt.close(fig)
    return ["win_rate.png", "detection.png"]


def _mark(ax: Any, injected_at: int | None, first_report: int | None) -> None:
    """The injection before its game and the first report after its game: half a game
    apart either side, so both show when the report follows the injection game."""
    if injected_at is not None:
        ax.axvline(injected_at - 0.5, color=INJECTED, label="novelty injected")
    if first_report is not None:
        ax.axvline(first_report + 0.5, color=REPORTED, linestyle="--", label="first report")
