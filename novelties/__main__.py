"""Command line: list the catalogue, show a novelty's ground truth on the standard game.

    python -m novelties list [measured=FILE] [--json]
    python -m novelties show NAME [difficulty=hard] [PARAM=VALUE ...] [--json]
    python -m novelties cards [out=DIR] [check=true] [measured=FILE]

`cards` writes the built-in plugins' cards (`novelties.cards`; default
docs/cards/novelties/, run from the repository's root); `check=true` writes nothing and
exits 1 naming the cards that are not current.

Values are read as JSON when they parse (3, 1.5, true, ["red","green"]), as a list for
`[a,b]` or `a,b`, else as a string. Bad input exits with status 2 and a short message.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Sequence

USAGE = ("usage: python -m novelties list [measured=FILE] [--json]\n"
         "       python -m novelties show NAME [difficulty=easy|medium|hard] "
         "[PARAM=VALUE ...] [--json]\n"
         "       python -m novelties cards [out=DIR] [check=true] [measured=FILE]")
CARDS_NOTE = ("each built-in novelty's card: {path} (what it changes, presets, measured "
              "figures, which observability hides it)")


def parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else None
    if inner is not None or "," in text:
        items = (inner if inner is not None else text).split(",")
        return [parse_value(x.strip()) for x in items if x.strip()]
    return text


def _table(rows: list[dict[str, Any]]) -> str:
    """Name, category, difficulties, the measured columns (easy / medium / hard: the
    median game of detection, the cost of ignorance in points of the planner's win rate,
    the change in game length; flags of hard), description."""
    cols = ("name", "category", "difficulties", "detect e/m/h (games)", "cost e/m/h (pts)",
            "Δturns e/m/h", "flags", "description")
    cells = []
    for r in rows:
        m = r.get("measured") or {}
        if m.get("note"):
            measured = [m["note"], "", "", ""]
        else:
            measured = [m.get("detectability") or "", m.get("cost") or "",
                        m.get("impact") or "", ",".join(m.get("flags") or ())]
        cells.append([r["name"], r["category"], ",".join(r["difficulties"]), *measured,
                      r["description"]])
    n = len(cols) - 1
    widths = [max([len(c), *(len(row[i]) for row in cells if not _note(row, i))])
              for i, c in enumerate(cols[:n])]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols[:n], widths)) + "  " + cols[n]]
    for row in cells:
        if row[3].startswith("not measured") or row[3].startswith("stale"):
            head = "  ".join(v.ljust(w) for v, w in zip(row[:3], widths[:3]))
            lines.append(f"{head}  {row[3]}  {row[n]}")
        else:
            lines.append("  ".join(v.ljust(w) for v, w in zip(row[:n], widths)) + "  " + row[n])
    return "\n".join(lines)


def _note(row: list[str], i: int) -> bool:
    return i == 3 and (row[3].startswith("not measured") or row[3].startswith("stale"))


def _measured_file(rest: list[str]) -> dict[str, Any] | None:
    """The data of `measured=FILE` (a file `python -m evaluation.difficulty out=FILE`
    wrote), or None for the file shipped with the package."""
    from pathlib import Path

    from novelties.base import NoveltyError

    data = None
    for item in rest:
        key, sep, value = item.partition("=")
        if key != "measured" or not sep or not value:
            raise NoveltyError(f"list takes measured=FILE only (got {item})")
        try:
            data = json.loads(Path(value).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise NoveltyError(f"cannot read {value}: {exc}".splitlines()[0]) from None
        if not isinstance(data, dict):
            raise NoveltyError(f"{value} is not a measured-difficulty file")
    return data


def _with_measured(rows: list[dict[str, Any]],
                   data: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Each row with its measured columns (`novelties.measured.columns`), from `data`
    (default: the file shipped with the package)."""
    from novelties.base import NoveltyError
    from novelties.measured import columns
    from novelties.registry import load_novelty

    out = []
    for r in rows:
        try:
            presets = {d: load_novelty(r["name"], d)[1].model_dump(mode="json")
                       for d in r["difficulties"]}
        except NoveltyError:
            presets = None
        if presets is not None and len(presets) < 3:
            presets = None
        out.append({**r, "measured": columns(r["name"], presets, data)})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from novelties.base import NoveltyError
    from novelties.registry import BROKEN, apply_novelty, describe

    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    args = [a for a in args if a != "--json"]
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if args else 2
    cmd, rest = args[0], args[1:]
    try:
        if cmd == "list":
            from novelties.cards import builtin, card_path

            rows = _with_measured(describe(), _measured_file(rest))
            ours = set(builtin())
            rows = [{**r, "card": card_path(r["name"]) if r["name"] in ours else None}
                    for r in rows]
            print(json.dumps(rows, indent=2) if as_json else _table(rows))
            if not as_json:
                print(CARDS_NOTE.format(path=card_path("NAME")))
            for name, why in sorted(BROKEN.items()):
                print(f"warning: novelty {name!r} could not be loaded: {why}", file=sys.stderr)
            return 0
        if cmd == "cards":
            return _cards(rest)
        if cmd == "show":
            if not rest:
                raise NoveltyError("show needs a novelty name; list them with: "
                                   "python -m novelties list")
            name, difficulty, params = rest[0], "medium", {}
            for item in rest[1:]:
                key, sep, value = item.partition("=")
                if not sep or not key:
                    raise NoveltyError(f"expected KEY=VALUE, got {item!r}")
                key = key.removeprefix("novelty.").removeprefix("params.")
                if key == "difficulty":
                    difficulty = value
                else:
                    params[key] = parse_value(value)
            from openmono import standard_schema

            prepared = apply_novelty(name, standard_schema(), difficulty, params)
            if as_json:
                print(json.dumps({"name": name, "category": prepared.category,
                                  "difficulty": difficulty, "params": prepared.params,
                                  "changes": prepared.ground_truth}, indent=2, default=str))
            else:
                _show(prepared)
            return 0
        raise NoveltyError(f"unknown command {cmd!r}\n{USAGE}")
    except NoveltyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _cards(rest: list[str]) -> int:
    """`cards`: write the built-in plugins' cards, or (check=true) list stale ones."""
    from pathlib import Path

    from novelties import cards
    from novelties.base import NoveltyError

    opts = dict(item.partition("=")[::2] for item in rest)
    unknown = sorted(set(opts) - {"out", "check", "measured"})
    if unknown or any(not v for v in opts.values()):
        raise NoveltyError(f"cards takes out=DIR, check=true|false and measured=FILE "
                           f"(got {' '.join(rest)})")
    if opts.get("check", "false") not in ("true", "false"):
        raise NoveltyError("check must be true or false")
    data = _measured_file([f"measured={opts['measured']}"]) if "measured" in opts else None
    out = Path(opts.get("out", cards.CARDS_DIR))
    if opts.get("check") == "true":
        bad = cards.stale(out, data)
        for name in bad:
            print(f"not current: {out / name}")
        if bad:
            print(f"run: {cards.COMMAND}" + (f" out={out}" if "out" in opts else ""))
        return 1 if bad else 0
    changed = cards.write(out, data)
    print(f"{len(changed)} card(s) written in {out}" + (": " + ", ".join(changed)
                                                      if changed else " (all current)"))
    return 0


def _show(prepared: Any) -> None:
    from novelties.ground_truth import format_changes

    print(f"{prepared.name} ({prepared.category}, {prepared.difficulty}) "
          f"params: {json.dumps(prepared.params)}")
    print(f"hooks: {', '.join(prepared.hooks.installed()) or 'none'}")
    print(f"{len(prepared.changes)} change(s) on the standard game:")
    print(format_changes(prepared.changes))
    notes = dict.fromkeys(c.description for c in prepared.changes if c.description)
    for note in notes:
        print(f"  note: {note}")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. `python -m novelties list | head`
        sys.stderr.close()
        sys.exit(0)
