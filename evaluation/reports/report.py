"""Human-readable output of a trial: the summary table, report.md and the plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluation.store.atomic import atomic_write
from evaluation.harness.runner import GAMES_FILE, read_records

ROWS = (
    ("games", "games played"),
    ("injected_at", "novelty injected before game"),
    ("pnwp", "pre-novelty win rate (PNWP)"),
    ("post_win_rate", "post-novelty win rate"),
    ("nda", "novelty detected correctly (NDA)"),
    ("false_positive_rate", "false positive"),
    ("first_detection", "first detection (game)"),
    ("detection_delay", "detection delay (games)"),
    ("nrp", "novelty reaction performance (NRP)"),
    ("characterization_accuracy", "characterization accuracy"),
    ("turn_limit_games", "games ended by the turn limit"),
    ("faults", "agent faults"),
    ("seconds", "wall time (s)"),
)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    return [(label, _fmt(summary.get(key))) for key, label in ROWS if key in summary]


def print_summary(summary: dict[str, Any], out_dir: str) -> None:
    title = (f"trial: {summary.get('agent')} vs {', '.join(summary.get('opponents', []))} | "
             f"novelty: {summary.get('novelty')}"
             + (f" ({summary.get('difficulty')})" if summary.get("difficulty") else ""))
    rows = summary_rows(summary)
    width = max(len(label) for label, _ in rows)
    print(title)
    print("-" * len(title))
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")
    print(f"results: {out_dir}")


def write_report(out_dir: str, summary: dict[str, Any], plots: bool = True) -> None:
    out = Path(out_dir)
    records = read_records(out / GAMES_FILE)
    lines = [
        f"# Trial report: {summary.get('agent')} / novelty {summary.get('novelty')}",
        "",
        f"- opponents: {', '.join(summary.get('opponents', []))}",
        f"- difficulty: {summary.get('difficulty') or '-'}; category: {summary.get('category') or '-'}",
        f"- detection condition: {summary.get('detection')}; reference agent: "
        f"{summary.get('reference') or '-'}; trial seed: {summary.get('seed')}",
        "",
        "| measure | value |",
        "|---|---|",
    ]
    lines += [f"| {label} | {value} |" for label, value in summary_rows(summary)]
    if plots and records:
        made = make_plots(out, records, summary.get("injected_at"))
        lines += ["", *[f"![{name}]({name})" for name in made]]
    atomic_write(out / "report.md", "\n".join(lines) + "\n")
    from evaluation.reports import html_report
    from evaluation.reports import replay

    for g in replay.kept_games(out):  # the replays the report links to
        page, log = replay.page_path(out, g), replay.log_path(out, g)
        if not page.exists() or page.stat().st_mtime < log.stat().st_mtime:
            replay.write(out, g)
    html_report.write(out, summary, records)


def make_plots(out: Path, records: list[dict[str, Any]], injected_at: int | None) -> list[str]:
    """Running win rate with the injection marked, and the detection timeline."""
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
    if injected_at is not None:
        ax.axvline(injected_at, color="red", linestyle="--", label="novelty injected")
    ax.set_xlabel("game")
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
    if injected_at is not None:
        ax.axvline(injected_at, color="red", linestyle="--", label="novelty injected")
    ax.set_xlabel("game")
    ax.set_ylim(-0.05, 1.1)
    ax.legend(loc="lower left", fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "detection.png", dpi=100)
    plt.close(fig)
    return ["win_rate.png", "detection.png"]
