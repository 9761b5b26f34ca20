"""`report.html`: a trial on one self-contained page (no network, no server).

Written beside `report.md` after every trial, and again when a resumed trial finishes.
What a researcher looks at first: the measures with their intervals; every game won or
lost across the trial with the injection and the first report marked; the agent's
reports and confidence; what the novelty changed next to what the agent said changed;
faults; the configuration; and every game in a table (sortable) with a link to its
replay where one was written.

The page is drawn here, in Python, as HTML and inline SVG: it then reads the same with
scripts off, a test can check what it shows without a browser, and the only script (a
few lines) sorts the games table. `tests/test_html_report.py` opens it in headless
Chromium and fails on any console error.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Sequence

from evaluation.store.atomic import atomic_write
from evaluation.measures.metrics import wilson_interval
from evaluation.reports.report import summary_rows

PAGE = "report.html"
WIDTH, HEIGHT, PAD = 760, 190, 34

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:820px;color:#222}
h1{font-size:20px;margin-bottom:4px} h2{font-size:16px;margin-top:28px}
.sub{color:#666;margin-top:0} table{border-collapse:collapse;margin:8px 0}
td,th{border-bottom:1px solid #ddd;padding:3px 10px;text-align:left;vertical-align:top}
th{background:#f4f4f4} td.num{text-align:right;font-variant-numeric:tabular-nums}
th.sort{cursor:pointer} .ci{color:#777} svg{background:#fcfcfc;border:1px solid #eee}
.win{fill:#2a7} .loss{fill:#c44} .legend{font-size:12px;color:#555}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}
"""

# Sorts any table.sortable by the clicked column (numbers by their data-v); the sweep
# page (compare_html) uses it too.
SORT_JS = """
document.querySelectorAll('table.sortable th').forEach(function (th, col) {
  th.classList.add('sort');
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var up = th.dataset.dir !== 'up';
    th.dataset.dir = up ? 'up' : 'down';
    rows.sort(function (a, b) {
      var x = a.cells[col].dataset.v || a.cells[col].textContent;
      var y = b.cells[col].dataset.v || b.cells[col].textContent;
      var nx = parseFloat(x), ny = parseFloat(y);
      var c = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
      return up ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
"""

RATES = (  # (label, successes key, trials key)
    ("pre-novelty win rate (PNWP)", "pre_wins", "pre_games"),
    ("post-novelty win rate", "post_wins", "post_games"),
    ("win rate, whole trial", "wins", "games"),
    ("reference's pre-novelty win rate", "ref_pre_wins", "ref_pre_games"),
)


def esc(value: Any) -> str:
    return html.escape(str(value))


def _rates(summary: dict[str, Any]) -> str:
    rows = []
    for label, k, n in RATES:
        if summary.get(n):
            ci = wilson_interval(int(summary[k]), int(summary[n]))
            rows.append(f"<tr><td>{esc(label)}</td><td class=num>{summary[k]} / {summary[n]} = "
                        f"{summary[k] / summary[n]:.3f}</td><td class=ci>Wilson 95% "
                        f"{ci[0]:.3f}–{ci[1]:.3f}</td></tr>")
    return "<table id=rates>" + "".join(rows) + "</table>" if rows else ""


def _x(game: int, games: int) -> float:
    return PAD + (WIDTH - 2 * PAD) * (game + 0.5) / max(1, games)


def _marks(summary: dict[str, Any], games: int, top: int, bottom: int) -> str:
    out = []
    for key, colour, label in (("injected_at", "#d33", "novelty injected"),
                               ("first_detection", "#36c", "first report")):
        g = summary.get(key)
        if g is not None:
            x = _x(g, games) - (WIDTH - 2 * PAD) * 0.5 / max(1, games)
            out.append(f'<line class="mark {key}" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" '
                       f'y2="{bottom}" stroke="{colour}" stroke-dasharray="4 3">'
                       f"<title>{label}: before game {g}</title></line>")
    return "".join(out)


def _win_plot(records: Sequence[dict[str, Any]], summary: dict[str, Any]) -> str:
    """A dot per game (up: won, down: lost) and the win rate of the last ten games."""
    games = len(records)
    top, bottom = 16, HEIGHT - PAD
    y = lambda v: bottom - (bottom - top) * v  # noqa: E731
    dots, line, window = [], [], []
    for i, r in enumerate(records):
        won = bool(r.get("won"))
        window = (window + [won])[-10:]
        x = _x(i, games)
        dots.append(f'<circle class="game {"win" if won else "loss"}" cx="{x:.1f}" '
                    f'cy="{y(1.0 if won else 0.0):.1f}" r="3"><title>game {r["game"]}: '
                    f'{"won" if won else "lost"}</title></circle>')
        line.append(f"{x:.1f},{y(sum(window) / len(window)):.1f}")
    return (f'<svg id=wins width="{WIDTH}" height="{HEIGHT}" role="img" '
            f'aria-label="wins per game">{_axis(games, top, bottom)}'
            f'<polyline points="{" ".join(line)}" fill="none" stroke="#555"/>'
            f'{"".join(dots)}{_marks(summary, games, top, bottom)}</svg>'
            '<div class=legend>a dot per game (top: won, bottom: lost); line: win rate of '
            'the last 10 games; red: novelty injected; blue: first report</div>')


def _confidence_plot(records: Sequence[dict[str, Any]], summary: dict[str, Any]) -> str:
    games = len(records)
    top, bottom = 12, 120 - 24
    y = lambda v: bottom - (bottom - top) * v  # noqa: E731
    pts, ticks = [], []
    for i, r in enumerate(records):
        rep = r.get("report") or {}
        pts.append(f"{_x(i, games):.1f},{y(float(rep.get('confidence', 0.0))):.1f}")
        if rep.get("detected"):
            ticks.append(f'<rect class="detected" x="{_x(i, games) - 1:.1f}" y="{top - 8}" '
                         f'width="2" height="8" fill="#36c"><title>game {r["game"]}: '
                         f'novelty reported</title></rect>')
    return (f'<svg id=confidence width="{WIDTH}" height="120" role="img" '
            f'aria-label="reported confidence">{_axis(games, top, bottom)}'
            f'<polyline points="{" ".join(pts)}" fill="none" stroke="#888"/>'
            f'{"".join(ticks)}{_marks(summary, games, top, bottom)}</svg>'
            '<div class=legend>grey: the confidence the agent reported after each game; '
            'blue ticks: games after which it reported a novelty</div>')


def _axis(games: int, top: int, bottom: int) -> str:
    step = max(1, round(games / 10 / 5) * 5) if games > 10 else 1
    ticks = "".join(
        f'<text x="{_x(g, games):.1f}" y="{bottom + 14}" font-size="10" '
        f'text-anchor="middle">{g}</text>' for g in range(0, games, step))
    return (f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{bottom}" y2="{bottom}" stroke="#bbb"/>'
            f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{top}" y2="{top}" stroke="#eee"/>'
            f"{ticks}")


def _changes(title: str, changes: Sequence[dict[str, Any]], ident: str) -> str:
    # (a folder written before reports were checked may hold anything here)
    changes = [c for c in changes if isinstance(c, dict)] if isinstance(changes, list) else []
    if not changes:
        return f"<p id={ident}>{esc(title)}: none.</p>"
    rows = "".join(
        f"<tr><td>{esc(c.get('entity'))}</td><td>{esc(c.get('attribute'))}</td>"
        f"<td>{esc(json.dumps(c.get('old_value', c.get('old')), default=str))}</td>"
        f"<td>{esc(json.dumps(c.get('new_value', c.get('new')), default=str))}</td></tr>"
        for c in changes)
    return (f"<table id={ident}><caption>{esc(title)}</caption><tr><th>entity</th>"
            f"<th>attribute</th><th>before</th><th>after</th></tr>{rows}</table>")


def _games_table(records: Sequence[dict[str, Any]], out: Path) -> str:
    rows = []
    for r in records:
        rep = r.get("report") or {}
        k = r["game"]
        replay = out / f"replay-{k}.html"
        link = f'<a href="{replay.name}">replay</a>' if replay.exists() else ""
        rows.append(
            f"<tr><td class=num>{k}</td><td class=num>{r.get('seed')}</td>"
            f"<td class=num>{r.get('agent_seat')}</td><td>{'yes' if r.get('won') else 'no'}</td>"
            f"<td class=num>{r.get('turns')}</td><td>{esc(r.get('end_reason'))}</td>"
            f"<td>{'yes' if r.get('novelty_active') else ''}</td>"
            f"<td>{'yes' if rep.get('detected') else ''}</td>"
            f"<td class=num>{float(rep.get('confidence', 0.0)):.2f}</td>"
            f"<td class=num>{r.get('faults', 0)}</td><td>{link}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("game", "seed", "seat", "won", "turns", "end",
                                             "novelty", "reported", "confidence", "faults",
                                             ""))
    return (f"<table id=games class=sortable><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def render(summary: dict[str, Any], records: Sequence[dict[str, Any]],
           config: dict[str, Any], out: Path) -> str:
    """The page as text (`write` puts it in the trial folder)."""
    records = sorted(records, key=lambda r: r["game"])
    novelty = summary.get("novelty") or "none"
    sub = (f"vs {', '.join(summary.get('opponents', []))} · novelty {novelty}"
           + (f" ({summary.get('difficulty')}, {summary.get('category')}, "
              f"{summary.get('observability')})" if summary.get("difficulty") else "")
           + f" · trial seed {summary.get('seed')}")
    measures = "".join(f"<tr><td>{esc(label)}</td><td class=num>{esc(value)}</td></tr>"
                       for label, value in summary_rows(summary))
    last = (records[-1].get("report") or {}) if records else {}
    faults = [r for r in records if r.get("faults") or r.get("opponent_faults")]
    fault_text = (f"{len(faults)} games with faults: " + ", ".join(
        f"game {r['game']} ({r.get('faults', 0)} agent, {r.get('opponent_faults', 0)} "
        "opponents)" for r in faults[:20]) if faults else "No faults.")
    body = f"""<h1>Trial: {esc(summary.get('agent_label') or summary.get('agent'))}</h1>
<p class=sub>{esc(sub)}</p>
<h2>Measures</h2>
<table id=summary>{measures}</table>
{_rates(summary)}
<h2>Games</h2>
{_win_plot(records, summary) if records else '<p>No game recorded yet.</p>'}
<h2>Reports</h2>
{_confidence_plot(records, summary) if records else ''}
<h2>What changed, and what the agent said</h2>
{_changes('What the novelty changed (ground truth)', summary.get('ground_truth') or [], 'truth')}
{_changes("What the agent's last report said changed", last.get('changes') or [], 'said')}
<h2>Faults</h2>
<p id=faults>{esc(fault_text)}</p>
<h2>Every game</h2>
{_games_table(records, out)}
<h2>Configuration</h2>
<pre id=config>{esc(json.dumps(config, indent=2, sort_keys=True))}</pre>"""
    title = f"{summary.get('agent')} / {novelty} - openmono trial"
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{esc(title)}"
            f"</title><style>{_CSS}</style></head><body>{body}<script>{SORT_JS}</script>"
            "</body></html>\n")


def write(out_dir: str | Path, summary: dict[str, Any],
          records: Sequence[dict[str, Any]]) -> Path:
    out = Path(out_dir)
    config_file = out / "trial.json"
    config = json.loads(config_file.read_text()) if config_file.exists() else {}
    path = out / PAGE
    atomic_write(path, render(summary, records, config, out))
    return path
