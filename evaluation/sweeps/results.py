"""The results pages, rendered from data.

    python -m evaluation.results write     # render docs/results/*.md from docs/data/results/
    python -m evaluation.results check     # fail if a page differs from its rendering

Why: a number typed into a page goes stale silently; a number kept in a data file beside
its command, commit, seeds and sample size can be re-measured, and a page that is only a
rendering cannot drift from it. Each page has two sources in `docs/data/results/`:

- `PAGE.md`, the prose, with placeholders:
  - `{{ ID.NAME }}` or `{{ ID.NAME:SPEC }}`: the value NAME of record ID (SPEC a Python
    format spec, e.g. `.1f`, `,`);
  - `{{ table ID }}` on a line of its own: the record's table, then its source;
  - `{{ source ID }}` on a line of its own: the record's commands, commit, date, seeds and
    sample (a record whose values appear in the prose shows its source once on the page);
  - `{{ detection_study DIR ... }}` on a line of its own: the detection study's tables,
    rendered from the saved sweeps in `docs/data/detection_study/DIR`.
  - `{{ adaptation_table DIR ... }}`: the same sweeps' opening table, one row per agent
    (`evaluation.sweeps.detection_study.adaptation_table`).
  - `{{ page NAME }}` on a line of its own: what follows is the page
    `docs/results/NAME.md`, rendered from the same records (a page's detail split off
    onto its own page); a record's figures need its source on each page that shows them.
- `PAGE.json`, the records: `{ID: {"command": [...], "commit", "date", "seeds",
  "sample", "values": {...}, "table": {"columns": [...], "rows": [[...]]}}}`; a record
  that quotes a paper has `"cited"` in place of command and commit.

The check also refuses a figure typed into the prose (a decimal number, a percentage or
a ratio outside placeholders and code): it belongs in a record.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from openmono_cli import Options, read_options, resolve_model

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "docs" / "data" / "results"
PAGES = ROOT / "docs" / "results"
STUDY = ROOT / "docs" / "data" / "detection_study"
HEADER = ("<!-- Rendered by `python -m evaluation.results write` from "
          "docs/data/results/{name}.md and {name}.json; edit those, not this page. -->\n\n")

INLINE = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\.([A-Za-z0-9_.]+)(?::([^}\s]*))?\s*\}\}")
BLOCK = re.compile(r"^\{\{\s*(table|source|detection_study|adaptation_table|page)\s+([^}]*?)\s*\}\}\s*$")
# A figure typed into prose: 3.5, 12%, 4x / 4×. Integers alone (counts, seeds, years) pass,
# and so does a confidence level ("95% interval").
BARE = re.compile(r"(?<![\w.`])(\d+\.\d+|\d+(?:\.\d+)?\s?%(?!\s?(?:Wilson|CI|confidence|"
                  r"interval|bootstrap))|\d+(?:\.\d+)?\s?×)")


class ResultsError(ValueError):
    """A page or record that cannot be rendered; the message names file and place."""


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid")
    columns: list[str]
    rows: list[list[str | int | float | None]]
    align: str | None = None  # one of l/r per column (default: text left, numbers right)

    @model_validator(mode="after")
    def _shape(self) -> "Table":
        width = len(self.columns)
        for i, row in enumerate(self.rows):
            if len(row) != width:
                raise ValueError(f"row {i} has {len(row)} cells, the table {width} columns")
        if self.align is not None and (len(self.align) != width or set(self.align) - {"l", "r"}):
            raise ValueError(f"align must be {width} letters l or r, got {self.align!r}")
        return self


class Record(BaseModel):
    """One measurement (or one quoted figure) and where it came from."""
    model_config = ConfigDict(extra="forbid")
    command: list[str] = Field(default_factory=list)
    commit: str | None = None
    date: str | None = None
    seeds: str | None = None
    sample: str | None = None
    machine: str | None = None
    cited: str | None = None
    values: dict[str, Any] = Field(default_factory=dict)
    table: Table | None = None

    @model_validator(mode="after")
    def _provenance(self) -> "Record":
        if self.cited:
            return self
        if not self.command or not self.commit:
            raise ValueError("a measured record needs its command and commit "
                             "(or 'cited' for a figure quoted from a paper)")
        if not re.fullmatch(r"[0-9a-f]{7,40}", self.commit):
            raise ValueError(f"commit {self.commit!r} is not a git hash")
        if self.date is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", self.date):
            raise ValueError(f"date {self.date!r} is not YYYY-MM-DD")
        return self


for _model in (Table, Record):  # run as `python -m cProfile -m evaluation.results` too
    resolve_model(_model, globals())


def load_records(path: Path) -> dict[str, Record]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ResultsError(f"{path}: {e}") from None
    if not isinstance(raw, dict):
        raise ResultsError(f"{path}: expected an object of records keyed by id")
    out = {}
    for key, body in raw.items():
        try:
            out[key] = Record.model_validate(body)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ResultsError(f"{path}: record {key!r}{': ' + where if where else ''}: "
                               f"{first['msg']}") from None
    return out


# -- rendering ------------------------------------------------------------------------
def _cell(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def render_table(t: Table) -> str:
    align = t.align or "".join(
        "r" if t.rows and all(isinstance(r[i], (int, float)) or r[i] is None for r in t.rows)
        else "l" for i in range(len(t.columns)))
    lines = ["| " + " | ".join(t.columns) + " |",
             "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in t.rows]
    return "\n".join(lines)


def render_source(r: Record) -> str:
    if r.cited:
        return f"Source: {r.cited}."
    facts = [f"commit `{r.commit[:7]}`"]
    facts += [x for x in (r.date, f"seeds {r.seeds}" if r.seeds else None, r.sample,
                          r.machine) if x]
    return "```bash\n" + "\n".join(r.command) + "\n```\n\n" + "Measured: " + "; ".join(facts) + "."


def _value(records: dict[str, Record], rid: str, name: str, spec: str | None,
           where: str) -> str:
    if rid not in records:
        raise ResultsError(f"{where}: no record {rid!r} (records: {', '.join(sorted(records))})")
    values: Any = records[rid].values
    for part in name.split("."):
        if not isinstance(values, dict) or part not in values:
            raise ResultsError(f"{where}: record {rid!r} has no value {name!r}")
        values = values[part]
    if spec:
        try:
            return format(values, spec)
        except (ValueError, TypeError) as e:
            raise ResultsError(f"{where}: {rid}.{name}:{spec}: {e}") from None
    return _cell(values)


def _lint(line: str, where: str) -> None:
    prose = INLINE.sub("", re.sub(r"`[^`]*`", "", line))
    prose = re.sub(r"\]\([^)]*\)", "]", prose)  # link targets
    m = BARE.search(prose)
    if m:
        raise ResultsError(f"{where}: the figure {m.group(0)!r} is typed into the prose; "
                           "put it in a record and write {{ ID.NAME }}")


def _sweeps(dirs: list[str], where: str) -> tuple[list[dict], int]:
    from evaluation.sweeps import detection_study
    try:
        return detection_study.load_sweeps([STUDY / d for d in dirs])
    except FileNotFoundError as exc:
        raise ResultsError(f"{where}: no saved sweep {Path(str(exc)).relative_to(ROOT)}") from None


def _study(dirs: list[str], where: str) -> str:
    from evaluation.measures import detection_bands
    from evaluation.sweeps import detection_study
    sweeps, renamed = _sweeps(dirs, where)
    return detection_study.study_text(sweeps, detection_bands.load_cells(None), "",
                                      renamed, title=False).rstrip()


def render(name: str, template: str, records: dict[str, Record]) -> str:
    """The page `name` from its prose and records; raises ResultsError naming the line."""
    return render_pages(name, template, records)[name]


def render_pages(name: str, template: str, records: dict[str, Record]) -> dict[str, str]:
    """The page `name` and the pages split off it by `{{ page NAME }}`, by name."""
    out: list[str] = []
    used: set[str] = set()
    sourced: set[str] = set()
    split: dict[str, tuple[list[str], set[str], set[str]]] = {name: (out, used, sourced)}
    fence = False
    for n, line in enumerate(template.splitlines(), 1):
        where = f"docs/data/results/{name}.md:{n}"
        if line.lstrip().startswith("```"):
            fence = not fence
        block = None if fence else BLOCK.match(line.strip())
        if block:
            kind, arg = block.groups()
            if kind == "page":
                if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", arg) or arg in split:
                    raise ResultsError(f"{where}: {{{{ page {arg} }}}}: a page name "
                                       "(lower case, digits, hyphens) used once")
                out, used, sourced = split.setdefault(arg, ([], set(), set()))
                continue
            if kind == "detection_study":
                out.append(_study(arg.split(), where))
                continue
            if kind == "adaptation_table":
                from evaluation.sweeps.detection_study import adaptation_table
                out.append(adaptation_table(_sweeps(arg.split(), where)[0]))
                continue
            if arg not in records:
                raise ResultsError(f"{where}: no record {arg!r}")
            rec = records[arg]
            used.add(arg)
            if kind == "table":
                if rec.table is None:
                    raise ResultsError(f"{where}: record {arg!r} has no table")
                out.append(render_table(rec.table))
                out.append("")
            out.append(render_source(rec))
            sourced.add(arg)
            continue
        if not fence:
            _lint(line, where)
        refs = {m.group(1) for m in INLINE.finditer(line)}
        used |= refs
        out.append(INLINE.sub(lambda m: _value(records, m.group(1), m.group(2), m.group(3),
                                                where), line))
    if fence:
        raise ResultsError(f"docs/data/results/{name}.md: a code fence is not closed")
    _check_sources(name, split, records)
    return {page: HEADER.format(name=name) + "\n".join(lines).rstrip() + "\n"
            for page, (lines, _, _) in split.items()}


def _check_sources(name: str, split: dict[str, tuple[list[str], set[str], set[str]]],
                   records: dict[str, Record]) -> None:
    """Every page shows the source of each record it takes figures from, and every record
    is shown somewhere; raises ResultsError naming the first that is not."""
    everything: set[str] = set()
    for page, (_, shown, with_source) in split.items():
        unsourced = shown - with_source
        if unsourced:
            on = "" if page == name else f" (on the page {page})"
            raise ResultsError(f"docs/data/results/{name}.md: figures of "
                               f"{', '.join(sorted(unsourced))} are shown without their "
                               f"source{on}; add {{{{ source ID }}}}")
        everything |= shown
    unused = set(records) - everything
    if unused:
        raise ResultsError(f"docs/data/results/{name}.json: records never shown: "
                           f"{', '.join(sorted(unused))}")


def pages(sources: Path = SOURCES) -> dict[str, str]:
    """Every page's rendering, by name."""
    if not sources.is_dir():
        raise ResultsError(f"no {sources}")
    out = {}
    for template in sorted(sources.glob("*.md")):
        data = template.with_suffix(".json")
        records = load_records(data) if data.exists() else {}
        for page, text in render_pages(template.stem, template.read_text(encoding="utf-8"),
                                       records).items():
            if page in out:
                raise ResultsError(f"{template}: the page {page} is rendered twice")
            out[page] = text
    return out


def check(rendered: dict[str, str], target: Path = PAGES) -> list[str]:
    """What differs between the pages on disk and their renderings (empty: none)."""
    problems = []
    for name, text in rendered.items():
        page = target / f"{name}.md"
        old = page.read_text(encoding="utf-8") if page.exists() else ""
        if old != text:
            diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(),
                                             f"docs/results/{name}.md (on disk)",
                                             "its rendering", lineterm="", n=0))
            problems.append("\n".join(diff[:12]))
    extra = {p.stem for p in target.glob("*.md")} - set(rendered) if target.is_dir() else set()
    problems += [f"docs/results/{n}.md has no source in docs/data/results/" for n in sorted(extra)]
    return problems


class ResultsOptions(Options):
    """Render the results pages from their data, or check that they match it."""

    positional = ("mode",)
    mode: Literal["write", "check"] = Field(
        description="write: render the pages; check: fail if a page differs from its rendering")


def main(argv: list[str] | None = None) -> int:
    args = read_options(ResultsOptions, argv, "python -m evaluation.results")
    if isinstance(args, int):
        return args
    try:
        rendered = pages()
    except ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.mode == "write":
        PAGES.mkdir(parents=True, exist_ok=True)
        for name, text in rendered.items():
            (PAGES / f"{name}.md").write_text(text, encoding="utf-8")
        print(f"wrote {len(rendered)} pages to {PAGES.relative_to(ROOT)}/")
        return 0
    problems = check(rendered)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"error: {len(problems)} page(s) differ from their data; run "
              "python -m evaluation.results write", file=sys.stderr)
        return 1
    print(f"ok: {len(rendered)} pages match their data")
    return 0


if __name__ == "__main__":
    sys.exit(main())
