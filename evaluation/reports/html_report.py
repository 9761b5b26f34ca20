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

from evaluation.reports import vocabulary
from evaluation.reports.report import INJECTED, REPORTED, measure_keys, summary_rows
from evaluation.store.atomic import atomic_write

PAGE = "report.html"
WIDTH, HEIGHT, PAD, TOP = 760, 200, 34, 28

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:820px;color:#222}
h1{font-size:20px;margin-bottom:4px} h2{font-size:16px;margin-top:28px}
.sub{color:#666;margin-top:0} table{border-collapse:collapse;margin:8px 0}
td,th{border-bottom:1px solid #ddd;padding:3px 10px;text-align:left;vertical-align:top}
th{background:#f4f4f4} td.num{text-align:right;font-variant-numeric:tabular-nums}
th.sort{cursor:pointer} .ci{color:#777} svg{background:#fcfcfc;border:1px solid #eee}
.win{fill:#2a7} .loss{fill:#c44} .legend{font-size:12px;color:#555}
td.ci{white-space:nowrap} td.val{font-size:12px;word-break:break-word} dt{font-weight:600}
dd{margin:0 0 6px 18px;color:#444} details{margin:6px 0}
#summary a{color:inherit;text-decoration:underline dotted}
pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}
"""

# Sorts any table.sortable by the clicked column (numbers by their data-v); the sweep
# page (compare_html) uses it too.
SORT_JS = """
document.querySelectorAll('table.sortable th').forEach(function (th) {
  th.classList.add('sort');
  th.addEventListener('click', function () {
    var col = th.cellIndex, up = th.dataset.dir !== 'up';
    th.dataset.dir = up ? 'up' : 'down';
    // every body: a table pooled per filter holds one body per filter value
    Array.prototype.forEach.call(th.closest('table').tBodies, function (body) {
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        if (!a.cells[col] || !b.cells[col]) return 0;
        var x = a.cells[col].dataset.v || a.cells[col].textContent;
        var y = b.cells[col].dataset.v || b.cells[col].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
        return up ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""

WIN, LOSS = "#2a7", "#c44"  # the dots: a won game and a lost one
# the injection (INJECTED) and the first report (REPORTED): neither is LOSS's red


def esc(value: Any) -> str:
    return html.escape(str(value))


def _x(game: int, games: int) -> float:
    return PAD + (WIDTH - 2 * PAD) * (game + 0.5) / max(1, games)


def _edge(game: int, games: int) -> float:
    """The x of the boundary just before `game` (after game - 1)."""
    return _x(game, games) - (WIDTH - 2 * PAD) * 0.5 / max(1, games)


def _marks(summary: dict[str, Any], games: int, top: int, bottom: int) -> str:
    """The injection (before its game: the post-novelty games shaded) and the first
    report (after the game it follows), each labelled above the plot, one to the left
    of its line and one to the right: at delay 0 both lines and both labels show."""
    out = []
    inj, first = summary.get("injected_at"), summary.get("first_detection")
    if inj is not None:
        x = _edge(inj, games)
        out.append(f'<rect class="post" x="{x:.1f}" y="{top}" width="{WIDTH - PAD - x:.1f}" '
                   f'height="{bottom - top}" fill="{INJECTED}" opacity="0.07"/>'
                   f'<line class="mark injected_at" x1="{x:.1f}" x2="{x:.1f}" y1="{top - 12}" '
                   f'y2="{bottom}" stroke="{INJECTED}" stroke-width="2">'
                   f"<title>novelty injected before game {inj}</title></line>"
                   f'<text class="label injected_at" x="{x - 3:.1f}" y="{top - 4}" '
                   f'font-size="10" text-anchor="end" fill="{INJECTED}">novelty injected'
                   "</text>")
    if first is not None:
        x = _edge(first + 1, games)
        out.append(f'<line class="mark first_detection" x1="{x:.1f}" x2="{x:.1f}" '
                   f'y1="{top - 12}" y2="{bottom}" stroke="{REPORTED}" stroke-width="2" '
                   f'stroke-dasharray="4 3"><title>first report after game {first}</title>'
                   f'</line><text class="label first_detection" x="{x + 3:.1f}" '
                   f'y="{top - 4}" font-size="10" fill="{REPORTED}">first report</text>')
    return "".join(out)


def _mark_legend(summary: dict[str, Any]) -> str:
    """What the marks mean, naming only those drawn (a control trial has no injection)."""
    parts = []
    if summary.get("injected_at") is not None:
        parts.append(f'<span style="color:{INJECTED}">purple line and shading: the novelty, '
                     "from the game it was injected before</span>")
    else:
        parts.append("control trial: no novelty injected")
    if summary.get("first_detection") is not None:
        parts.append(f'<span style="color:{REPORTED}">blue dashes: after the game the agent '
                     "first reported a novelty</span>")
    else:
        parts.append("the agent never reported a novelty")
    return "; ".join(parts)


def _win_plot(records: Sequence[dict[str, Any]], summary: dict[str, Any]) -> str:
    """A dot per game (up: won, down: lost) and the win rate of the last ten games, on a
    percent axis."""
    games = len(records)
    top, bottom = TOP, HEIGHT - PAD
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
    yaxis = "".join(
        f'<text class="ytick" x="{PAD - 4}" y="{y(v) + 3:.1f}" font-size="10" '
        f'text-anchor="end">{v:.0%}</text>' for v in (0.0, 0.5, 1.0))
    yaxis += (f'<line x1="{PAD}" x2="{PAD}" y1="{top}" y2="{bottom}" stroke="#bbb"/>'
              f'<text x="{WIDTH - PAD + 4}" y="{y(1.0) + 3:.1f}" font-size="10" fill="{WIN}">'
              f'won</text><text x="{WIDTH - PAD + 4}" y="{y(0.0) + 3:.1f}" font-size="10" '
              f'fill="{LOSS}">lost</text>')
    return (f'<svg id=wins width="{WIDTH}" height="{HEIGHT}" role="img" '
            f'aria-label="wins per game">{_axis(games, top, bottom)}{yaxis}'
            f'{_marks(summary, games, top, bottom)}'
            f'<polyline points="{" ".join(line)}" fill="none" stroke="#555"/>'
            f'{"".join(dots)}</svg>'
            '<div class=legend>a dot per game (top: won, bottom: lost); grey line, left '
            f'axis: win rate of the last 10 games; {_mark_legend(summary)}</div>')


def _confidence_plot(records: Sequence[dict[str, Any]], summary: dict[str, Any]) -> str:
    games = len(records)
    top, bottom = TOP, 130 - 24
    y = lambda v: bottom - (bottom - top) * v  # noqa: E731
    pts, ticks = [], []
    for i, r in enumerate(records):
        rep = r.get("report") or {}
        pts.append(f"{_x(i, games):.1f},{y(float(rep.get('confidence', 0.0))):.1f}")
        if rep.get("detected"):
            ticks.append(f'<rect class="detected" x="{_x(i, games) - 1:.1f}" y="{bottom + 2}" '
                         f'width="2" height="5" fill="{REPORTED}"><title>game {r["game"]}: '
                         f'novelty reported</title></rect>')
    yaxis = "".join(
        f'<text class="ytick" x="{PAD - 4}" y="{y(v) + 3:.1f}" font-size="10" '
        f'text-anchor="end">{v:g}</text>' for v in (0.0, 1.0))
    return (f'<svg id=confidence width="{WIDTH}" height="130" role="img" '
            f'aria-label="reported confidence">{_axis(games, top, bottom)}{yaxis}'
            f'{_marks(summary, games, top, bottom)}'
            f'<polyline points="{" ".join(pts)}" fill="none" stroke="#888"/>'
            f'{"".join(ticks)}</svg>'
            '<div class=legend>grey: the confidence (0 to 1) the agent reported after each '
            'game; blue ticks under the axis: games after which it reported a novelty; '
            f'{_mark_legend(summary)}</div>')


def _axis(games: int, top: int, bottom: int) -> str:
    step = max(1, round(games / 10 / 5) * 5) if games > 10 else 1
    ticks = "".join(
        f'<text x="{_x(g, games):.1f}" y="{bottom + 18}" font-size="10" '
        f'text-anchor="middle">{g}</text>' for g in range(0, games, step))
    return (f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{bottom}" y2="{bottom}" stroke="#bbb"/>'
            f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{top}" y2="{top}" stroke="#eee"/>'
            f"{ticks}")


SHOWN_CHANGES = 10  # rows of the changes table before the rest folds away


def _valid(changes: Any) -> list[dict[str, Any]]:
    # (a folder written before reports were checked may hold anything here)
    return [c for c in changes if isinstance(c, dict)] if isinstance(changes, list) else []


def _json(value: Any) -> str:
    return json.dumps(value, default=str, separators=(", ", ": "))


def _by_entity(changes: Sequence[dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """entity -> [(attributes, "before → after")]: changes with the same entity and the
    same values are one line, their attributes joined (an agent that reports a square's
    rent both as printed and as charged says it once)."""
    out: dict[str, dict[str, list[str]]] = {}
    for c in changes:
        old, new = c.get("old_value", c.get("old")), c.get("new_value", c.get("new"))
        move = f"{_json(old)} → {_json(new)}"
        attrs = out.setdefault(str(c.get("entity")), {}).setdefault(move, [])
        if str(c.get("attribute")) not in attrs:
            attrs.append(str(c.get("attribute")))
    return {e: [(", ".join(attrs), move) for move, attrs in moves.items()]
            for e, moves in out.items()}


def _changes(truth: Any, said: Any) -> str:
    """What the novelty changed beside what the agent's last report said, one row per
    entity; past `SHOWN_CHANGES` rows the rest is folded."""
    truth, said = _by_entity(_valid(truth)), _by_entity(_valid(said))
    if not truth and not said:
        return "<p id=changes>The novelty changed nothing the trial records, and the agent "\
               "reported no change.</p>"

    def cell(lines: list[tuple[str, str]]) -> str:
        return ("<td>" + "<br>".join(esc(a) for a, _ in lines) + "</td><td class=val>"
                + "<br>".join(esc(m) for _, m in lines) + "</td>") if lines else \
            "<td>-</td><td>-</td>"

    rows = [f"<tr><td>{esc(e)}</td>{cell(truth.get(e, []))}{cell(said.get(e, []))}</tr>"
            for e in [*truth, *(e for e in said if e not in truth)]]
    head = ("<thead><tr><th rowspan=2>entity</th><th colspan=2>the novelty changed (ground "
            "truth)</th><th colspan=2>the agent's last report said</th></tr><tr>"
            "<th>attribute</th><th>before → after</th><th>attribute</th>"
            "<th>before → after</th></tr></thead>")
    table = f"<table id=changes>{head}<tbody>{''.join(rows[:SHOWN_CHANGES])}</tbody></table>"
    if len(rows) > SHOWN_CHANGES:
        table += (f"<details><summary>{len(rows) - SHOWN_CHANGES} more entities</summary>"
                  f"<table id=changes-more>{head}<tbody>{''.join(rows[SHOWN_CHANGES:])}"
                  "</tbody></table></details>")
    return (f"<p>{len(truth)} entities changed; the agent's last report names "
            f"{len(said)}.</p>{table}")


def _definitions(summary: dict[str, Any]) -> str:
    """The measures on the page and the terms it uses, defined where the reader is (the
    page opens from disk, with no network), and where the full glossary lives."""
    keys = measure_keys(summary)
    items = "".join(f'<dt id="{vocabulary.anchor(k)}">{esc(vocabulary.MEASURES[k].label)}'
                    f"</dt><dd>{esc(vocabulary.MEASURES[k].definition)}</dd>" for k in keys)
    items += "".join(f'<dt id="{vocabulary.anchor(k)}">{esc(k)}</dt><dd>{esc(v)}</dd>'
                     for k, v in vocabulary.TERMS.items())
    return (f"<dl id=definitions>{items}</dl><p class=legend>Intervals: 95%; Wilson for "
            "win rates; NRP's is conservative (from the two rates' 97.5% intervals). The "
            f"full glossary: <code>{esc(vocabulary.GLOSSARY)}</code> in the openmono "
            "documentation (Glossary).</p>")


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
    if summary.get("injected_at") is None:
        what = "control trial (no novelty)"
    else:
        what = f"novelty {novelty}" + (
            f" ({summary.get('difficulty')}, {vocabulary.category(summary.get('category'))}, "
            f"observability {summary.get('observability')})" if summary.get("difficulty")
            else "")
    sub = (f"vs {', '.join(summary.get('opponents', []))} · {what}"
           + (f" · reference {summary['reference']}" if summary.get("reference") else "")
           + f" · trial seed {summary.get('seed')}")
    keys = measure_keys(summary)
    measures = "".join(
        f'<tr><td><a href="#{vocabulary.anchor(k)}">{esc(label)}</a></td>'
        f"<td class=num>{esc(value)}</td><td class=ci>{esc(ci)}</td></tr>"
        for k, (label, value, ci) in zip(keys, summary_rows(summary)))
    last = (records[-1].get("report") or {}) if records else {}
    faults = [r for r in records if r.get("faults") or r.get("opponent_faults")]
    fault_text = (f"{len(faults)} games with faults: " + ", ".join(
        f"game {r['game']} ({r.get('faults', 0)} agent, {r.get('opponent_faults', 0)} "
        "opponents)" for r in faults[:20]) if faults else "No faults.")
    body = f"""<h1>Trial: {esc(summary.get('agent_label') or summary.get('agent'))}</h1>
<p class=sub>{esc(sub)}</p>
<h2>Measures</h2>
<table id=summary><thead><tr><th>measure</th><th>value</th><th>95% interval</th></tr>
</thead><tbody>{measures}</tbody></table>
<h2>Games</h2>
{_win_plot(records, summary) if records else '<p>No game recorded yet.</p>'}
<h2>Reports</h2>
{_confidence_plot(records, summary) if records else ''}
<h2>What changed, and what the agent said</h2>
{_changes(summary.get('ground_truth') or [], last.get('changes') or [])}
<h2>Faults</h2>
<p id=faults>{esc(fault_text)}</p>
<h2>Every game</h2>
{_games_table(records, out)}
<h2>What the measures mean</h2>
{_definitions(summary)}
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
