"""One measure as a small inline SVG bar with its interval, for `compare.html`'s plots.

A bar per table cell rather than one chart: a filter that hides a row hides its bars,
so the plots narrow with the tables, and a row's label is its own (no legend to cover a
bar). Rates are drawn on 0-100%; NRP on 0 to the largest upper bound shown, with a grey
line at 1 (as well after the novelty as the reference before it).
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from evaluation.reports import vocabulary
from evaluation.reports.html_report import esc

WIDTH, HEIGHT, LABEL = 190, 16, 86  # the bar's room, the label's on its right
COLOURS = {"post_win_rate": "#2a7", "nda": "#1f6fd1", "nrp": "#7b3fb5"}


def scale_of(key: str, values: Iterable[Any]) -> float:
    """The value a full bar stands for: 1 for rates, for NRP the largest shown (>= 1)."""
    if vocabulary.MEASURES[key].unit == "percent":
        return 1.0
    finite = [float(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    return max([1.0, *finite])


def bar(key: str, v: Any, lo: Any, hi: Any, top: float) -> str:
    """The bar of one value, its whisker from `lo` to `hi` (an open `hi` runs to the
    edge) and its value written beside it."""
    room = WIDTH - LABEL
    if v is None:
        return f'<svg class=bar width="{WIDTH}" height="{HEIGHT}"><text x="2" y="12" ' \
               'font-size="11" fill="#999">-</text></svg>'
    x = lambda u: 1 + (room - 2) * min(1.0, max(0.0, float(u) / top))  # noqa: E731
    parts = [f'<rect x="1" y="3" width="{x(v) - 1:.1f}" height="{HEIGHT - 6}" '
             f'fill="{COLOURS.get(key, "#888")}" opacity="0.75"/>']
    if key == "nrp":
        parts.append(f'<line x1="{x(1):.1f}" x2="{x(1):.1f}" y1="0" y2="{HEIGHT}" '
                     'stroke="#999"/>')
    if lo is not None:
        right = x(hi) if hi is not None else room - 1
        parts.append(f'<line class="ci" x1="{x(lo):.1f}" x2="{right:.1f}" y1="{HEIGHT / 2}" '
                     f'y2="{HEIGHT / 2}" stroke="#222"/>')
    text = vocabulary.with_interval(key, v, lo, hi)
    label = vocabulary.value(key, v)
    return (f'<svg class=bar width="{WIDTH}" height="{HEIGHT}" role="img" '
            f'aria-label="{esc(text)}"><title>{esc(text)}</title>{"".join(parts)}'
            f'<text x="{room + 4}" y="12" font-size="11">{esc(label)}</text></svg>')
