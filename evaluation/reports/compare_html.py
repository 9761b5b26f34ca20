"""`compare.html`: a sweep on one self-contained page, written beside `compare.md`.

The tables of `compare.md` (sortable), win rate, NDA and NRP drawn as bars with their
intervals (per agent x novelty x difficulty and per measured detectability band), NDA by
agent x category x difficulty and by band, and every trial with a link to its own
`report.html`. Filters by agent, novelty and difficulty narrow every table and every
plot at once (`#agent=planner&difficulty=hard` in the address sets them): rows carry
what they are of, and a table pooled over trials holds one body per novelty and
difficulty filter, pooled in Python, which the script shows. Drawn in Python; the script
only sorts, filters and shows.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Sequence
from urllib.parse import quote

from evaluation.measures import metrics
from evaluation.reports import vocabulary
from evaluation.reports.compare_bars import bar, scale_of
from evaluation.reports.html_report import SORT_JS, esc
from evaluation.reports.trial_intervals import intervals
from evaluation.store.atomic import atomic_write

PAGE = "compare.html"
GROUP_COLUMNS = ("nda", "false_positive_rate", "detection_delay", "pnwp", "post_win_rate",
                 "nrp")
BARS = ("post_win_rate", "nda", "nrp")  # the plots: win rate beside detection

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1300px}
h1{font-size:20px;margin-bottom:2px} h2{font-size:16px;margin-top:26px}
table{border-collapse:collapse} .sub{color:#666;margin-top:0}
td,th{border-bottom:1px solid #ddd;padding:3px 9px;text-align:left}
th{background:#f4f4f4;cursor:pointer} td.num{text-align:right;white-space:nowrap}
.ci{color:#777} .filters select{margin-right:12px} td.bar{padding:1px 6px}
.legend{font-size:12px;color:#555} dt{font-weight:600} dd{margin:0 0 6px 18px;color:#444}
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
    // a table pooled over trials: the body pooled over the trials the filters keep
    document.querySelectorAll('tbody[data-scope-novelty]').forEach(function (tb) {
      var mine = tb.dataset.scopeNovelty === want.novelty &&
                 tb.dataset.scopeDifficulty === want.difficulty;
      tb.style.display = mine ? '' : 'none';
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


def _agent(s: dict[str, Any]) -> str:
    return str(s.get("agent_label") or s.get("agent"))


def _num(key: str, v: Any, lo: Any = None, hi: Any = None) -> str:
    """A measure's cell: its value and interval in the one vocabulary, on one line."""
    if v is None:
        return "<td class=num data-v=-1>-</td>"
    ci = vocabulary.interval(key, lo, hi)
    return (f"<td class=num data-v={v}>{esc(vocabulary.value(key, v))}"
            + (f" <span class=ci>({esc(ci)})</span>" if ci else "") + "</td>")


def _attrs(agent: str, novelty: str | None = None, difficulty: str | None = None) -> str:
    out = f' data-agent="{esc(agent)}"'
    if novelty is not None:
        out += f' data-novelty="{esc(novelty)}"'
    if difficulty is not None:
        out += f' data-difficulty="{esc(difficulty)}"'
    return out


def _head(*names: str) -> str:
    return "<thead><tr>" + "".join(f"<th>{esc(n)}</th>" for n in names) + "</tr></thead>"


def _groups(rows: Sequence[dict[str, Any]]) -> str:
    head = _head("agent", "novelty", "difficulty", "category", "trials",
                 *(vocabulary.MEASURES[c].short for c in GROUP_COLUMNS))
    body = "".join(
        f"<tr{_attrs(r['agent'], r['novelty'], r['difficulty'])}><td>{esc(r['agent'])}</td>"
        f"<td>{esc(r['novelty'])}</td><td>{esc(r['difficulty'])}</td>"
        f"<td>{esc(vocabulary.category(r['category']))}</td><td class=num>{r['trials']}</td>"
        + "".join(_num(c, r.get(c), r.get(f"{c}_lo"), r.get(f"{c}_hi")) for c in GROUP_COLUMNS)
        + "</tr>" for r in rows)
    return f"<table id=groups class=sortable>{head}<tbody>{body}</tbody></table>"


def _win(r: dict[str, Any]) -> tuple[Any, Any, Any]:
    """The win rate a row is plotted by: after the novelty; PNWP for a control."""
    key = "post_win_rate" if r.get("post_win_rate") is not None else "pnwp"
    return r.get(key), r.get(f"{key}_lo"), r.get(f"{key}_hi")


def _bars(r: dict[str, Any], scale: dict[str, float]) -> str:
    cells = []
    for key in BARS:
        v, lo, hi = _win(r) if key == "post_win_rate" else (r.get(key), r.get(f"{key}_lo"),
                                                             r.get(f"{key}_hi"))
        cells.append(f"<td class=bar>{bar(key, v, lo, hi, scale[key])}</td>")
    return "".join(cells)


def _bar_head(*names: str) -> str:
    return _head(*names, "win rate (after the novelty; PNWP for controls)", "NDA", "NRP")


def _group_plot(rows: Sequence[dict[str, Any]]) -> str:
    """Win rate, NDA and NRP of each agent x novelty x difficulty as bars, one row each
    (a filter hides rows; no legend to cover a bar)."""
    scale = {k: scale_of(k, [v for r in rows for v in (r.get(k), r.get(f"{k}_hi"))])
             for k in BARS}
    body = "".join(f"<tr{_attrs(r['agent'], r['novelty'], r['difficulty'])}>"
                   f"<td>{esc(r['agent'])}</td><td>{esc(r['novelty'])}</td>"
                   f"<td>{esc(r['difficulty'])}</td>{_bars(r, scale)}</tr>" for r in rows)
    return (f"<table id=plot>{_bar_head('agent', 'novelty', 'difficulty')}<tbody>{body}"
            "</tbody></table>")


Key = Callable[[dict[str, Any]], tuple[str, ...]]


def scopes(summaries: Sequence[dict[str, Any]]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(novelty filter, difficulty filter, the novelty trials they keep) for every pair of
    filter values ("" for all) that keeps a trial: what a pooled table is pooled over."""
    novelty = [s for s in summaries if s.get("injected_at") is not None]
    novelties = sorted({str(s.get("novelty", "none")) for s in summaries})
    difficulties = sorted({str(s.get("difficulty") or "-") for s in summaries})
    out = []
    for n in ["", *novelties]:
        for d in ["", *difficulties]:
            kept = [s for s in novelty if n in ("", s.get("novelty", "none"))
                    and d in ("", s.get("difficulty") or "-")]
            if kept or (n == "" and d == ""):
                out.append((n, d, kept))
    return out


def _pooled_rows(kept: Sequence[dict[str, Any]], key: Key, bars: bool,
                 scale: dict[str, float]) -> str:
    rows = []
    for k, items in sorted(_by(kept, key).items()):
        a = metrics.aggregate(items)
        if len(items) == 1 and a.get("nrp") is not None:  # (no bootstrap over one trial)
            a["nrp_lo"], a["nrp_hi"] = intervals(items[0]).get("nrp", (None, None))
        cells = "".join(f"<td>{esc(x)}</td>" for x in k) + f"<td class=num>{len(items)}</td>"
        if bars:
            cells += _bars(a, scale)
        else:
            cells += "".join(_num(c, a.get(c), a.get(f"{c}_lo"), a.get(f"{c}_hi"))
                             for c in ("nda", "detection_delay", "nrp"))
        rows.append(f"<tr{_attrs(k[0])}>{cells}</tr>")
    return "".join(rows)


def _pooled(summaries: Sequence[dict[str, Any]], key: Key, columns: Sequence[str],
            ident: str, bars: bool = False) -> str:
    """A table pooled over the novelty trials, one body per novelty x difficulty filter
    (the script shows the one the filters ask for)."""
    every = scopes(summaries)
    if not every[0][2]:
        return ""
    scale = {k: 1.0 for k in BARS}
    if bars:  # one scale for every body, so that bars compare across filters
        aggs = [metrics.aggregate(items) for _, _, kept in every[:1]
                for items in _by(kept, key).values()]
        scale = {k: scale_of(k, [v for a in aggs for v in (a.get(k), a.get(f"{k}_hi"))])
                 for k in BARS}
    bodies = "".join(
        f'<tbody data-scope-novelty="{esc(n)}" data-scope-difficulty="{esc(d)}"'
        + ("" if n == d == "" else ' style="display:none"') + ">"
        + (_pooled_rows(kept, key, bars, scale) or
           f"<tr><td colspan=9>no trial with a novelty here</td></tr>") + "</tbody>"
        for n, d, kept in every)
    head = (_bar_head(*columns, "trials") if bars else
            _head(*columns, "trials", *(vocabulary.MEASURES[c].short for c in
                                        ("nda", "detection_delay", "nrp"))))
    return f"<table id={ident} class=sortable>{head}{bodies}</table>"


def _by(kept: Sequence[dict[str, Any]], key: Key) -> dict[tuple[str, ...], list]:
    groups: dict[tuple[str, ...], list] = defaultdict(list)
    for s in kept:
        groups[key(s)].append(s)
    return groups


def _band(summaries: Sequence[dict[str, Any]]) -> Key | None:
    from evaluation.measures.detection_bands import band_of, cell_of, load_cells

    try:
        cells = load_cells()
    except Exception:  # noqa: BLE001 - without the measured file there are no bands
        return None
    return lambda s: (_agent(s), band_of(cell_of(s, cells)))


def _trials(summaries: Sequence[dict[str, Any]], out: Path) -> str:
    body = []
    for s in summaries:
        agent = _agent(s)
        where = s.get("_dir")
        link = ""
        if where and (Path(where) / "report.html").exists():
            rel = os.path.relpath(Path(where) / "report.html", out)
            # Percent-encoded: a folder named `javascript:...` stays a relative path,
            # never a scheme the browser would run.
            link = f'<a href="{esc(quote(Path(rel).as_posix()))}">report</a>'
        nda = s.get("nda")
        body.append(
            f"<tr{_attrs(agent, s.get('novelty', 'none'), s.get('difficulty') or '-')}>"
            f"<td>{esc(agent)}</td><td>{esc(s.get('novelty', 'none'))}</td>"
            f"<td>{esc(s.get('difficulty') or '-')}</td><td class=num>{esc(s.get('seed'))}</td>"
            f"<td class=num>{esc(s.get('games'))}</td><td class=num>"
            f"{esc('-' if s.get('injected_at') is None else s['injected_at'])}</td>"
            f"<td>{'-' if nda is None else ('yes' if nda else 'no')}</td>"
            f"<td class=num>{esc('-' if s.get('first_detection') is None else s['first_detection'])}"
            f"</td>{_num('pnwp', s.get('pnwp'))}{_num('post_win_rate', s.get('post_win_rate'))}"
            f"<td>{link}</td></tr>")
    head = _head("agent", "novelty", "difficulty", "seed", "games",
                 vocabulary.MEASURES["injected_at"].short, "NDA",
                 vocabulary.MEASURES["first_detection"].short, "PNWP",
                 vocabulary.MEASURES["post_win_rate"].short, "")
    return f"<table id=trials class=sortable>{head}<tbody>{''.join(body)}</tbody></table>"


def _select(name: str, values: Sequence[str]) -> str:
    opts = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in sorted(set(values)))
    return f'{name} <select id="f-{name}"><option value="">all</option>{opts}</select>'


def title(summaries: Sequence[dict[str, Any]]) -> str:
    """What the sweep is of: its agents, what they were shown, its trials."""
    agents = sorted({_agent(s) for s in summaries})
    seen = sorted({str(s["observability"]) for s in summaries if s.get("observability")})
    controls = sum(s.get("injected_at") is None for s in summaries)
    return (f"Sweep: {', '.join(agents) or 'no agent'}"
            + (f" · observability {', '.join(seen)}" if seen else "")
            + f" · {len(summaries)} trials ({len(summaries) - controls} with a novelty, "
            f"{controls} controls)")


def _definitions() -> str:
    keys = ("pnwp", "post_win_rate", "nda", "false_positive_rate", "detection_delay", "nrp")
    items = "".join(f'<dt id="{vocabulary.anchor(k)}">{esc(vocabulary.MEASURES[k].short)}'
                    f"</dt><dd>{esc(vocabulary.MEASURES[k].definition)}</dd>" for k in keys)
    items += "".join(f'<dt id="{vocabulary.anchor(k)}">{esc(k)}</dt><dd>{esc(v)}</dd>'
                     for k, v in vocabulary.TERMS.items())
    return (f"<h2>What the measures mean</h2><dl id=definitions>{items}</dl><p class=legend>"
            f"The full glossary: <code>{esc(vocabulary.GLOSSARY)}</code> in the openmono "
            "documentation (Glossary).</p>")


def render(rows: Sequence[dict[str, Any]], summaries: Sequence[dict[str, Any]], out: Path,
           plot: Path | None = None) -> str:
    """The page as text (`plot`, the PNG of compare.md, is not embedded: the page draws
    its own bars, which the filters narrow)."""
    filters = (_select("agent", [_agent(s) for s in summaries])
               + _select("novelty", [s.get("novelty", "none") for s in summaries])
               + _select("difficulty", [s.get("difficulty") or "-" for s in summaries]))
    band = _band(summaries)
    cell_key: Key = lambda s: (_agent(s), vocabulary.category(s.get("category")),  # noqa: E731
                               s.get("difficulty") or "-")
    by_cell = _pooled(summaries, cell_key, ("agent", "category", "difficulty"), "cells")
    by_band = _pooled(summaries, band, ("agent", "measured band"), "bands") if band else ""
    band_plot = (_pooled(summaries, band, ("agent", "measured band"), "band-plot", bars=True)
                 if band else "")
    heading = title(summaries)
    body = f"""<h1>{esc(heading)}</h1>
<p class=sub>Rates in percent with 95% Wilson intervals; NRP (a ratio: 1 = as well after
the novelty as the reference agent before it) pooled over trials and detection delay (games)
a mean, each with a 95% bootstrap interval (a one-trial NRP: its own conservative interval;
no interval where one trial gives none). Every trial links to its own report; the measures
are defined at the end of the page.</p>
<p class=filters>{filters} · <b id=shown>{len(summaries)}</b> trials shown</p>
<h2>Agents x novelties</h2>{_groups(rows)}
<h2>Win rate, NDA and NRP per agent x novelty</h2>{_group_plot(rows)}
<p class=legend>Bars: the value; whiskers: its 95% interval; NRP's grey line: 1.</p>
{f'<h2>NDA by agent x category x difficulty</h2>{by_cell}' if by_cell else ''}
{f'<h2>NDA by agent x measured band</h2>{by_band}' if by_band else ''}
{f'<h2>Win rate, NDA and NRP per measured band</h2>{band_plot}' if band_plot else ''}
<h2>Every trial</h2>{_trials(summaries, out)}
{_definitions()}"""
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{esc(heading)}"
            f"</title><style>{_CSS}</style></head><body>{body}<script>{_JS}{SORT_JS}</script>"
            "</body></html>\n")


def write(rows: Sequence[dict[str, Any]], summaries: Sequence[dict[str, Any]], out: Path,
          plot: Path | None = None) -> Path:
    path = out / PAGE
    atomic_write(path, render(rows, summaries, out, plot))
    return path
