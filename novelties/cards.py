"""Novelty cards: one Markdown page per built-in plugin, rendered from the catalogue and
the measured difficulty (`novelties/data/measured.json`), never written by hand.

    python -m novelties cards                  # (re)write docs/cards/novelties/
    python -m novelties cards check=true       # exit 1 naming the cards that are not current
    python -m novelties cards out=DIR measured=FILE

A card says what the plugin changes (its description, and the ground truth of each
preset on the standard game), its presets with their parameters, what was measured
(the ideal observer's detectability, the change in game length and, where
`python -m evaluation.impact_screen write=true` measured it, the cost of ignorance;
"not measured" otherwise), and which observability hides it. `tests/test_novelty_cards.py`
fails when a committed card differs from what this module renders, so after a change
to a plugin's presets or to `measured.json`, run the first command again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from openmono.schema import GameSchema, standard_schema

from novelties.base import DIFFICULTIES, Applied
from novelties.ground_truth import Change, diff_schemas
from novelties.measured import FLAG_TEXT, cost_text, detect_text, impact_text, load
from novelties.observability import shown_schema
from novelties.registry import apply_novelty, available_novelties

CARDS_DIR = Path("docs") / "cards" / "novelties"
COMMAND = "python -m novelties cards"
INDEX = "index.md"
VALUE_WIDTH = 70  # characters of a changed value shown in a table cell


def builtin() -> list[str]:
    """The names of the built-in catalogue's plugins, sorted (the cards docs/ carries)."""
    return sorted(n for n, c in available_novelties().items()
                  if c.__module__.startswith("novelties.catalogue."))


def card_path(name: str) -> str:
    """Where the card of plugin `name` lives in the repository (what `novelties list`
    names)."""
    return (CARDS_DIR / f"{name}.md").as_posix()


def _cell(value: Any) -> str:
    """A value for a table cell: JSON, shortened, with `|` escaped."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if len(text) > VALUE_WIDTH:
        n = f" ({len(value)} items)" if isinstance(value, (list, tuple)) else ""
        text = text[:VALUE_WIDTH].rstrip() + "…" + n
    return text.replace("|", "\\|").replace("\n", " ")


def shown_under_effects(before: GameSchema, applied: Applied) -> list[Change]:
    """The changes an agent can still read off its observation under `effects`: what the
    rules shown (`novelties.observability.shown_schema`) keep of the new world, and the
    plugin's declared changes to the observation itself."""
    shown = diff_schemas(before, shown_schema(before, applied.schema), applied.visibility)
    return [c for c in shown if c.visible] + [c for c in applied.declared if c.visible]


def hidden_by(applied: Applied, before: GameSchema) -> str:
    """Which observability hides the preset's changes from what agents are shown."""
    if not applied.changes:
        return "nothing to hide (no change on the standard game)"
    n = len(applied.changes)
    announced = sum(c.visible for c in applied.changes)
    effects = len(shown_under_effects(before, applied))
    if announced == 0:
        return "both: no change can be read off the observation even when announced"
    if effects == 0:
        return f"`effects` (`announced` shows {announced} of {_changes(n)})"
    if effects >= announced == n:
        return f"neither: both show {'it' if n == 1 else f'all {n} changes'}"
    return f"partly: `announced` shows {announced} of {_changes(n)}, `effects` {effects}"


def _changes(n: int) -> str:
    return f"{n} change" if n == 1 else f"{n} changes"


def _changes_table(applied: Applied, before: GameSchema) -> list[str]:
    if not applied.changes:
        return ["No change on the standard game (the rule waits for its trigger)."]
    effects = {(c.entity, c.attribute) for c in shown_under_effects(before, applied)}
    rows = ["| entity | attribute | before | after | shown when announced | shown under effects |",
            "|---|---|---|---|---|---|"]
    for c in applied.changes:
        old = "" if c.old is None else _cell(c.old)
        new = _cell(c.new) if c.new is not None else _cell(c.description or "")
        rows.append(f"| `{_cell(c.entity)}` | {_cell(c.attribute)} | {old} | {new} | "
                    f"{'yes' if c.visible else 'no'} | "
                    f"{'yes' if (c.entity, c.attribute) in effects else 'no'} |")
    return rows


def _measured_rows(name: str, presets: Mapping[str, Mapping[str, Any]],
                   data: Mapping[str, Any]) -> list[str]:
    cells = data.get("plugins", {}).get(name, {})
    rows = ["| preset | ideal observer: median game of detection | detected within 100 games "
            "| Δ game length, turns (95% CI) | cost of ignorance, points (95% CI) | flags |",
            "|---|---|---|---|---|---|"]
    for d, params in presets.items():
        cell = cells.get(d)
        if cell is None:
            rows.append(f"| {d} | not measured | | | | |")
            continue
        if cell.get("params") != params:
            rows.append(f"| {d} | stale: measured with {_cell(cell.get('params'))} | | | | |")
            continue
        within = cell.get("detected_within_100")
        within = "" if within is None else f"{round(100 * within)}%"
        cost = cost_text(cell)
        cost = "not measured" if cost == "?" else cost
        flags = ", ".join(cell.get("flags") or ()) or "—"
        rows.append(f"| {d} | {detect_text(cell)} ({cell.get('method', '?')}) | {within} | "
                    f"{impact_text(cell, 'length')} | {cost} | {flags} |")
    return rows


def _ignorance_notes(name: str, data: Mapping[str, Any]) -> list[str]:
    cells = data.get("plugins", {}).get(name, {})
    notes = []
    for d in DIFFICULTIES:
        ig = (cells.get(d) or {}).get("ignorance")
        if ig:
            notes.append(f"- {d}: the {ig.get('agent', '?')} wins {100 * ig['oracle']:.1f}% "
                         f"told the rules, {100 * ig['blind']:.1f}% playing by the old ones "
                         f"({ig['games']:,} paired games, observability "
                         f"`{ig.get('observability', '?')}`): `{ig.get('command', '')}`")
    return notes


def card(name: str, data: Mapping[str, Any] | None = None) -> str:
    """The Markdown card of plugin `name`; `data` is a measured-difficulty file's content
    (default: the one shipped with the package)."""
    data = load() if data is None else data
    cls = available_novelties()[name]
    before = standard_schema()
    applied = {d: apply_novelty(name, before, d) for d in cls.difficulties()}
    presets = {d: dict(a.params) for d, a in applied.items()}
    settings = data.get("settings", {})
    lines = [f"# `{name}`", "",
             f"*Generated by `{COMMAND}` from the plugin and `novelties/data/measured.json`;"
             " do not edit.*", "",
             f"**Category:** {cls.category} · **plugin:** `{cls.__module__}:{cls.__name__}` · "
             f"**presets:** {', '.join(presets)}", "",
             "## What it changes", "", cls.description, "",
             "## Presets", "",
             "| preset | parameters | which observability hides it |", "|---|---|---|"]
    for d, a in applied.items():
        lines.append(f"| {d} | `{_cell_long(json.dumps(presets[d]))}` | {hidden_by(a, before)} |")
    lines += ["", "Try one: `python -m novelties show "
              f"{name} difficulty=hard` (ground truth), `python -m evaluation.trial "
              f"novelty={name} novelty.difficulty=hard` (a trial).", ""]
    lines += ["## Measured", "",
              "Definitions: [measured difficulty](../../novelties.md#measured-difficulty), "
              "[the cost of ignorance](../../novelties.md#the-cost-of-ignorance), "
              "[glossary](../../glossary.md).", ""]
    if name not in data.get("plugins", {}):
        lines += [f"Not measured: `python -m evaluation.difficulty plugin=[{name}]`.", ""]
    else:
        lines += [f"Detectability and game length: {settings.get('games', '?')} paired games "
                  f"per preset from seed {settings.get('seed', '?')}, "
                  f"{settings.get('agents', '?')}, observability "
                  f"`{settings.get('observability', '?')}` "
                  f"(`{settings.get('command', '')}`).", "",
                  *_measured_rows(name, presets, data), ""]
        flags = sorted({f for c in data["plugins"][name].values() for f in c.get("flags", ())})
        if flags:
            lines += [*(f"- `{f}`: {FLAG_TEXT.get(f, f)}" for f in flags), ""]
        order = data.get("order", {}).get(name)
        if order:
            lines += [f"Presets in order of detectability: {order}.", ""]
        notes = _ignorance_notes(name, data)
        lines += (["Cost of ignorance:", "", *notes, ""] if notes else
                  ["Cost of ignorance: not measured (`python -m evaluation.impact "
                   f"novelty={name} difficulty=hard`).", ""])
    lines += ["## Ground truth on the standard game", "",
              "What each preset changes (`novelties.ground_truth`), and whether an agent can "
              "read it off its observation under each "
              "[observability](../../glossary.md#observability).", ""]
    for d, a in applied.items():
        lines += [f"### {d}", "", *_changes_table(a, before), ""]
    return "\n".join(lines)


def index(names: Iterable[str], data: Mapping[str, Any] | None = None) -> str:
    """The page listing every card, by category."""
    data = load() if data is None else data
    plugins = available_novelties()
    lines = ["# Novelty cards", "",
             f"*Generated by `{COMMAND}`; do not edit.* One page per built-in novelty: "
             "what it changes, its presets, what was measured, which observability hides "
             "it. `python -m novelties list` names each card's file.", ""]
    names = list(names)
    for category in ("class", "attribute", "representation"):
        members = [n for n in names if plugins[n].category == category]
        lines += [f"## {category} ({len(members)})", "",
                  "| novelty | measured | what it changes |", "|---|---|---|"]
        for n in members:
            measured = "yes" if n in data.get("plugins", {}) else "not measured"
            lines.append(f"| [`{n}`]({n}.md) | {measured} | {_cell_long(plugins[n].description)} |")
        lines.append("")
    return "\n".join(lines)


def _cell_long(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_all(data: Mapping[str, Any] | None = None) -> dict[str, str]:
    """File name -> text of every card and the index."""
    data = load() if data is None else data
    names = builtin()
    pages = {f"{n}.md": card(n, data) for n in names}
    pages[INDEX] = index(names, data)
    return pages


def write(out: Path, data: Mapping[str, Any] | None = None) -> list[str]:
    """Write the cards into `out` (and delete cards of plugins that are gone); returns
    the files that changed."""
    out.mkdir(parents=True, exist_ok=True)
    pages = render_all(data)
    changed = []
    for fname, text in pages.items():
        path = out / fname
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(fname)
    for path in out.glob("*.md"):
        if path.name not in pages:
            path.unlink()
            changed.append(path.name)
    return sorted(changed)


def stale(out: Path, data: Mapping[str, Any] | None = None) -> list[str]:
    """The card files in `out` that are missing, differ from the rendering, or belong to
    no plugin."""
    pages = render_all(data)
    bad = [f for f, text in pages.items()
           if not (out / f).exists() or (out / f).read_text(encoding="utf-8") != text]
    bad += [p.name for p in out.glob("*.md") if p.name not in pages]
    return sorted(bad)
