"""A replay's board: the game's own schema drawn as SVG, a novelty's changed squares
outlined, and the players' tokens."""

from __future__ import annotations

import html
import math
from typing import Any, Sequence

SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                "#e377c2", "#17becf")


def _layout(n: int) -> list[tuple[int, int]]:
    """Grid cells (column, row) of the squares around a square board, GO at the bottom
    right, then clockwise as on the printed board."""
    side = math.ceil(n / 4)
    cells = []
    for i in range(n):
        edge, k = divmod(i, side)
        if edge == 0:
            cells.append((side - k, side))
        elif edge == 1:
            cells.append((0, side - k))
        elif edge == 2:
            cells.append((k, 0))
        else:
            cells.append((side, k))
    return cells


def _e(value: Any) -> str:
    """Any value from a log or a schema as HTML text or an attribute value: a kept log
    or a plugin's schema may hold anything, so nothing reaches the page unescaped."""
    return html.escape(str(value), quote=True)


SIZE = 76  # a square's side in the board's SVG


LINE_CHARS = 13  # about what fits on one line of a square at FONT


FONT = 8.5


TEXT_WIDTH = SIZE - 6


def wrap(name: str, lines: int = 3) -> list[str]:
    """A square's name on up to `lines` lines, broken between words; a word longer than
    a line is kept whole (the SVG squeezes it: `_text`). Nothing is cut off."""
    out: list[str] = []
    for word in str(name).split():
        if out and len(out[-1]) + 1 + len(word) <= LINE_CHARS:
            out[-1] += " " + word
        else:
            out.append(word)
    if len(out) > lines:
        out = out[:lines - 1] + [" ".join(out[lines - 1:])]
    return out or [""]


def _text(cls: str, x: float, y: float, text: str, extra: str = "") -> str:
    """One line of a square; one likely wider than the square is squeezed to fit it
    (`textLength`), never drawn over its neighbour."""
    fit = (f' textLength="{TEXT_WIDTH}" lengthAdjust="spacingAndGlyphs"'
           if len(text) * FONT * 0.56 > TEXT_WIDTH else "")
    return (f'<text class="{cls}" x="{x}" y="{y}" font-size="{FONT}"{fit}{extra}>'
            f"{_e(text)}</text>")


def _short(value: Any) -> str:
    """A changed value in a few characters: a list by its first entry."""
    if isinstance(value, list) and value:
        return f"{_short(value[0])}…"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def truth_by_square(truth: Sequence[dict[str, Any]], names: Sequence[str]
                    ) -> dict[int, list[dict[str, Any]]]:
    """The novelty's ground-truth changes of each square (entity `square:NAME`), by index:
    a change the schema does not show (a rent charged, not printed) still marks its
    square."""
    index = {str(n): i for i, n in enumerate(names)}
    out: dict[int, list[dict[str, Any]]] = {}
    for c in truth if isinstance(truth, list) else []:
        if not isinstance(c, dict):
            continue
        kind, _, name = str(c.get("entity", "")).partition(":")
        if kind == "square" and name in index:
            out.setdefault(index[name], []).append(c)
    return out


def changed_squares(schema: dict[str, Any], before: dict[str, Any] | None,
                    truth: dict[int, list[dict[str, Any]]]) -> set[int]:
    """The squares a novelty changed: in the schema against the rules before it, or named
    by its ground truth."""
    squares = schema["squares"]
    old = before["squares"] if before and len(before["squares"]) == len(squares) else None
    diff = {i for i, sq in enumerate(squares) if old is not None and old[i] != sq}
    return diff | set(truth)


def _face(cls: str, x: int, y: int, sq: dict[str, Any], band: str,
          note: str, hidden: bool) -> str:
    """A square's printed face: colour band, name, price and the novelty's change."""
    price = f"${sq['price']}" if sq.get("price") else ""
    lines = "".join(_text(f"t{k + 1}", x + 3, y + 19 + 9 * k, line)
                    for k, line in enumerate(wrap(sq["name"])))
    hide = ' style="display:none"' if hidden else ""
    return (f'<g class="{cls}"{hide}>'
            f'<rect class="band" x="{x}" y="{y}" width="{SIZE}" height="9" fill="{_e(band)}"/>'
            + lines + _text("tp", x + 3, y + 47, price, ' fill="#555"')
            + (_text("tn", x + 3, y + 56, note, ' fill="#d33"') if note else "") + "</g>")


def _board_svg(schema: dict[str, Any], before: dict[str, Any] | None, players: int,
               truth: dict[int, list[dict[str, Any]]] | None = None) -> str:
    """The board: every square's face as played and, where the novelty changed it (in
    the schema, or in the ground truth: a rent charged but not printed), outlined, with
    its face as the rules had it before (shown by the "before" button)."""
    squares = schema["squares"]
    truth = truth or {}
    colour = {g["name"]: g.get("color") or "#ccc" for g in schema.get("groups", [])}
    cells = _layout(len(squares))
    side = max(max(c) for c in cells) + 1
    old = before["squares"] if before and len(before["squares"]) == len(squares) else None
    old_colour = {g["name"]: g.get("color") or "#ccc" for g in (before or {}).get("groups", [])}
    parts = []
    for i, (sq, (cx, cy)) in enumerate(zip(squares, cells)):
        x, y = cx * SIZE, cy * SIZE
        was_sq = old[i] if old is not None and old[i] != sq else None
        changes = truth.get(i, [])
        changed = was_sq is not None or bool(changes)
        band = colour.get(sq.get("group"), "#fff") if sq.get("group") else "#fff"
        attr = lambda c: str(c.get("attribute", "")).split(" (")[0]  # noqa: E731
        now_note = "; ".join(f"{attr(c)} {_short(c.get('new'))}" for c in changes[:1])
        was_note = "; ".join(f"{attr(c)} {_short(c.get('old'))}" for c in changes[:1])
        face = _face("face now", x, y, sq, band, now_note, False)
        if changed:
            old_sq = was_sq or sq
            old_band = (old_colour.get(old_sq.get("group"), band) if old_sq.get("group")
                        else "#fff")
            face += _face("face was", x, y, old_sq, old_band, was_note, True)
        why = "; ".join(f"{c.get('attribute')}: {_short(c.get('old'))} → "
                        f"{_short(c.get('new'))}" for c in changes)
        title = f"{i}: {sq['name']}" + (f" (novelty: {why or 'changed'})" if changed else "")
        was_name = f' data-was-name="{_e((was_sq or sq)["name"])}"' if changed else ""
        parts.append(
            f'<g class="square{" changed" if changed else ""}" id="sq{i}" '
            f'data-name="{_e(sq["name"])}"{was_name}><title>{_e(title)}</title>'
            f'<rect x="{x}" y="{y}" width="{SIZE}" height="{SIZE}" '
            f'fill="{"#fff2f2" if changed else "#fff"}" stroke="{"#d33" if changed else "#999"}"'
            f' stroke-width="{2.5 if changed else 1}"/>{face}'
            f'<rect class="own" x="{x + 2}" y="{y + SIZE - 8}" width="{SIZE - 4}" height="6" '
            f'fill="none"/><text class="lvl" x="{x + SIZE - 4}" y="{y + 47}" font-size="9" '
            f'text-anchor="end"></text></g>')
    tokens = "".join(f'<circle class="token" id="tok{s}" r="6" fill="{SEAT_COLOURS[s % 8]}" '
                     f'stroke="#000" stroke-width="0.5"/>' for s in range(players))
    return (f'<svg id=board width="{side * SIZE}" height="{side * SIZE}" '
            f'viewBox="0 0 {side * SIZE} {side * SIZE}">{"".join(parts)}{tokens}</svg>')
