"""`compare.html`: a sweep on one self-contained page, written beside `compare.md`.

The tables of `compare.md` (sortable), NDA by agent x category x difficulty and by the
measured detectability band of each trial's plugin and preset, each with its interval,
the plot, and every trial with a link to its own `report.html`; filters by agent,
novelty and difficulty narrow every table at once (`#agent=planner&difficulty=hard` in
the address sets them). Drawn in Python; the script only sorts and filters.
"""

from __future__ import annotations

import base64
import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import quote

from evaluation.measures import metrics
from evaluation.store.atomic import atomic_write
from evaluation.reports.html_report import SORT_JS, esc

PAGE = "compare.html"

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px} h2{font-size:16px;margin-top:26px} table{border-collapse:collapse}
td,th{border-bottom:1px solid #ddd;padding:3px 9px;text-align:left}
th{background:#f4f4f4;cursor:pointer} td.num{text-align:right} .ci{color:#777}
.filters select{margin-right:12px} img{max-width:100%}
"""

_JS = r"""
(function () {
  var keys = ['agent', 'novelty', 'difficulty'];
  function apply() {
    var want = {};
    keys.forEach(function (k) { want[k] = document.getElementById('f-' + k).value; });
    document.querySelectorAll('tr[data-agent]').forEach(function (tr) {
      var show = keys.every(function (k) {
        return !want[k] || tr.dataset[k] === undefined || tr.dataset[k] === want[k];
      });
      tr.style.display = show ? '' : 'none';
    });
    var shown = document.querySelectorAll('#trials tbody tr:not([style*="none"])').length;
    document.getElementById('shown').textContent = shown;
    var h = keys.filter(function (k) { return want[k]; })
                .map(function (k) { return k + '=' + encodeURIComponent(want[k]); });
    history.replaceState(null, '', h.length ? '#' + h.join('&') : '#');
  }
  keys.forEach(function (k) { document.getElementById('f-' + k).onchange = apply; });
  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var p = kv.split('=');
    var el = document.getElementById('f-' + p[0]);
    if (el && p.length === 2) el.value = decodeURIComponent(p[1]);
  });
  apply();
})();
"""


def _num(v: Any, lo: Any = None, hi: Any = None, pct: bool = False) -> str:
    if v is None:
        return "<td class=num data-v=-1>-</td>"
    f = (lambda x: f"{100 * x:.1f}") if pct else (lambda x: f"{x:.2f}")
    ci = f" <span class=ci>[{f(lo)}, {f(hi)}]</span>" if lo is not None and hi is not None else ""
    return f"<td class=num data-v={v}>{f(v)}{ci}</td>"


def _attrs(agent: str, novelty: str | None = None, difficulty: str | None = None) -> str:
    out = f' data-agent="{esc(agent)}"'
    if novelty is not None:
        out += f' data-novelty="{esc(novelty)}"'
    if difficulty is not None:
        out += f' data-difficulty="{esc(difficulty)}"'
    return out


def _groups(rows: Sequence[dict[str, Any]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("agent", "novelty", "difficulty", "category",
                                             "trials", "NDA %", "false pos. %", "delay",
                                             "PNWP %", "post win %", "NRP"))
    body = "".join(
        f"<tr{_attrs(r['agent'], r['novelty'], r['difficulty'])}><td>{esc(r['agent'])}</td>"
        f"<td>{esc(r['novelty'])}</td><td>{esc(r['difficulty'])}</td><td>{esc(r['category'])}"
        f"</td><td class=num>{r['trials']}</td>"
        + "".join(_num(r.get(c), r.get(f"{c}_lo"), r.get(f"{c}_hi"), pct=c not in (
            "detection_delay", "nrp")) for c in ("nda", "false_positive_rate",
                                                 "detection_delay", "pnwp", "post_win_rate",
                                                 "nrp")) + "</tr>" for r in rows)
    return (f"<table id=groups class=sortable><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def _by(summaries: Sequence[dict[str, Any]], key, title: str, ident: str) -> str:
    """NDA, delay and NRP pooled per `key(summary)` (novelty trials only)."""
    groups: dict[tuple, list] = defaultdict(list)
    for s in summaries:
        if s.get("injected_at") is not None:
            groups[key(s)].append(s)
    if not groups:
        return ""
    body = []
    for k, items in sorted(groups.items()):
        a = metrics.aggregate(items)
        body.append(f"<tr{_attrs(k[0], None, k[2] if len(k) > 2 else None)}>"
                    + "".join(f"<td>{esc(x)}</td>" for x in k)
                    + f"<td class=num>{len(items)}</td>"
                    + _num(a.get("nda"), a.get("nda_lo"), a.get("nda_hi"), pct=True)
                    + _num(a.get("detection_delay"), a.get("detection_delay_lo"),
                           a.get("detection_delay_hi"))
                    + _num(a.get("nrp"), a.get("nrp_lo"), a.get("nrp_hi")) + "</tr>")
    cols = ["agent", *title.split(" x ")[1:]]
    head = "".join(f"<th>{c}</th>" for c in (*cols, "trials", "NDA %", "delay", "NRP"))
    return (f"<h2>NDA by {esc(title)}</h2><table id={ident} class=sortable><thead><tr>{head}"
            f"</tr></thead><tbody>{''.join(body)}</tbody></table>")


def _band(summaries: Sequence[dict[str, Any]]) -> Any:
    from evaluation.measures.detection_bands import band_of, cell_of, load_cells

    try:
        cells = load_cells()
    except Exception:  # noqa: BLE001 - without the measured file there are no bands
        return None
    return lambda s: (s.get("agent_label") or s.get("agent"), band_of(cell_of(s, cells)))


def _trials(summaries: Sequence[dict[str, Any]], out: Path) -> str:
    body = []
    for s in summaries:
        agent = s.get("agent_label") or s.get("agent")
        where = s.get("_dir")
        link = ""
        if where and (Path(where) / "report.html").exists():
            rel = os.path.relpath(Path(where) / "report.html", out)
            # Percent-encoded: a folder named `javascript:...` stays a relative path,
            # never a scheme the browser would run.
            link = f'<a href="{esc(quote(Path(rel).as_posix()))}">report</a>'
        body.append(
            f"<tr{_attrs(agent, s.get('novelty', 'none'), s.get('difficulty') or '-')}>"
            f"<td>{esc(agent)}</td><td>{esc(s.get('novelty', 'none'))}</td>"
            f"<td>{esc(s.get('difficulty') or '-')}</td><td class=num>{esc(s.get('seed'))}</td>"
            f"<td class=num>{esc(s.get('games'))}</td><td class=num>"
            f"{esc('-' if s.get('injected_at') is None else s['injected_at'])}</td>"
            f"<td>{esc('-' if s.get('nda') is None else s['nda'])}</td>"
            f"<td class=num>{esc('-' if s.get('first_detection') is None else s['first_detection'])}"
            f"</td>{_num(s.get('pnwp'))}{_num(s.get('post_win_rate'))}<td>{link}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("agent", "novelty", "difficulty", "seed", "games",
                                             "injected", "NDA", "first report", "PNWP",
                                             "post win", ""))
    return (f"<table id=trials class=sortable><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def _select(name: str, values: Sequence[str]) -> str:
    opts = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in sorted(set(values)))
    return f'{name} <select id="f-{name}"><option value="">all</option>{opts}</select>'


def render(rows: Sequence[dict[str, Any]], summaries: Sequence[dict[str, Any]], out: Path,
           plot: Path | None = None) -> str:
    agents = [s.get("agent_label") or s.get("agent") for s in summaries]
    filters = (_select("agent", agents)
               + _select("novelty", [s.get("novelty", "none") for s in summaries])
               + _select("difficulty", [s.get("difficulty") or "-" for s in summaries]))
    img = ""
    if plot is not None and plot.exists():
        data = base64.b64encode(plot.read_bytes()).decode()
        img = f'<h2>Plot</h2><img alt="the measures per agent" src="data:image/png;base64,{data}">'
    band = _band(summaries)
    by_cell = _by(summaries, lambda s: (s.get("agent_label") or s.get("agent"),
                                        s.get("category") or "-", s.get("difficulty") or "-"),
                  "agent x category x difficulty", "cells")
    by_band = _by(summaries, band, "agent x measured band", "bands") if band else ""
    body = f"""<h1>Sweep: {len(summaries)} trials</h1>
<p>Rates with 95% Wilson intervals; NRP pooled over trials and delay a mean, each with a
95% bootstrap interval. Every trial links to its own report.</p>
<p class=filters>{filters} · <b id=shown>{len(summaries)}</b> trials shown</p>
<h2>Agents x novelties</h2>{_groups(rows)}
{by_cell}{by_band}{img}
<h2>Every trial</h2>{_trials(summaries, out)}"""
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>openmono sweep"
            f"</title><style>{_CSS}</style></head><body>{body}<script>{_JS}{SORT_JS}</script>"
            "</body></html>\n")


def write(rows: Sequence[dict[str, Any]], summaries: Sequence[dict[str, Any]], out: Path,
          plot: Path | None = None) -> Path:
    path = out / PAGE
    atomic_write(path, render(rows, summaries, out, plot))
    return path
