"""`python -m evaluation.impact_screen`: the cost of ignorance across the catalogue.

    python -m evaluation.impact_screen presets=[easy] games=300 seed=1000 workers=2
    python -m evaluation.impact_screen write=true     # into novelties/data/measured.json

Runs `evaluation.impact` for every novelty x preset asked for and appends each record,
as it finishes, to `out/impact.jsonl`; a killed screen resumes where it stopped (a
record is kept when its settings match the command's). `write=true` copies the newest
record of every preset whose parameters are today's into the catalogue's measured file,
as the cell's `ignorance` entry (`novelties.measured`), without playing; a cell measured
on more games keeps its figure. `table=true`
prints the records as the results page's table (JSON: columns and rows), without playing.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Iterator

from pydantic import Field

from openmono_cli import cli, games_field, out_field, seed_field, workers_field

from evaluation.store.atomic import atomic_write
from evaluation.sweeps.impact import ImpactOptions, measure

RECORDS = "impact.jsonl"
# What a record must share with the command to count as done (and to be written).
SETTINGS = ("games", "seed", "agent", "observability", "opponents_view", "trial_games",
            "rules", "before")
KEPT = ("oracle", "blind", "adaptive", "oracle_worth", "blind_worth", "adaptive_worth",
        "cost", "cost_ci", "recovered", "recovered_ci", "same_games", *SETTINGS)


class ScreenOptions(ImpactOptions):
    """The cost of ignoring every novelty of the catalogue (or those named)."""

    novelty: str = Field("all", description="unused: see novelties")
    novelties: list[str] = Field([], description="the novelties screened (all when empty)")
    presets: list[str] = Field(["easy", "medium", "hard"], description="the presets screened")
    games: int = games_field(300, "paired games per version and preset")
    seed: int = seed_field(1000, "the series every preset plays (game g: game_seed(seed, g))")
    workers: int = workers_field(1, "presets measured at once")
    out: str = out_field("outputs/impact", "the folder of impact.jsonl")
    write: bool = Field(False, description="copy the records into novelties/data/measured.json "
                        "instead of playing")
    table: bool = Field(False, description="print the records as a results-page table "
                        "(JSON) instead of playing")


# Settings a record leaves out when they have their default.
OMITTED = {"before": 0}


def _settings(opts: ScreenOptions) -> dict[str, Any]:
    return {k: getattr(opts, k) for k in SETTINGS}


def _matches(record: dict[str, Any], opts: ScreenOptions) -> bool:
    """Whether a record ran with the command's settings and today's preset."""
    return current(record) and all(
        record.get(k, OMITTED.get(k)) == v for k, v in _settings(opts).items())


def current(record: dict[str, Any]) -> bool:
    """Whether a record played its preset as the catalogue has it today (one without
    the parameters it played, from before records kept them, cannot say: stale)."""
    from evaluation.sweeps.impact import preset_params

    if "preset" not in record:
        return False
    opts = ImpactOptions(novelty=record["novelty"], difficulty=record["difficulty"],
                         params=record.get("params") or {})
    try:
        return preset_params(opts) == record["preset"]
    except Exception:  # noqa: BLE001 - a novelty or preset gone from the catalogue
        return False


def read_records(path: Path) -> list[dict[str, Any]]:
    """The screen's records (a line cut by a kill is skipped)."""
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def _todo(opts: ScreenOptions, done: list[dict[str, Any]]) -> Iterator[ImpactOptions]:
    from novelties.registry import available_novelties

    names = opts.novelties or sorted(available_novelties())
    have = {(r["novelty"], r["difficulty"]) for r in done
            if _matches(r, opts)}
    base = opts.model_dump(by_alias=True, exclude={"novelties", "presets", "out", "write", "table",
                                                   "workers"})
    for name in names:
        for preset in opts.presets:
            if (name, preset) not in have:
                yield ImpactOptions(**{**base, "novelty": name, "difficulty": preset,
                                       "workers": 1})


def screen(opts: ScreenOptions) -> int:
    """Measure what is missing, appending each record as it comes; how many were added."""
    path = Path(opts.out) / RECORDS
    path.parent.mkdir(parents=True, exist_ok=True)
    todo = list(_todo(opts, read_records(path)))
    added = 0
    with path.open("a", encoding="utf-8") as fh, ProcessPoolExecutor(opts.workers) as pool:
        for record in pool.map(measure, todo):
            fh.write(json.dumps(record) + "\n")
            fh.flush()
            added += 1
            print(f"{record['novelty']:>24} {record['difficulty']:<6} cost "
                  f"{record['cost']:+.3f} {record['cost_ci']} recovered {record['recovered']}",
                  file=sys.stderr)
    return added


def write_measured(opts: ScreenOptions, data_file: Path | None = None,
                   docs: Path | None = None) -> int:
    """Copy the newest matching record of each preset whose parameters are today's into
    the measured file, re-flag every cell and re-render the docs' table (when `docs`);
    how many cells were written."""
    from evaluation.sweeps.difficulty import cell_flags, write_docs
    from novelties.measured import DATA_FILE
    from novelties.registry import load_novelty

    target = data_file or DATA_FILE
    data = json.loads(target.read_text(encoding="utf-8"))
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    for r in read_records(Path(opts.out) / RECORDS):
        if _matches(r, opts) and not r.get("params"):
            newest[(r["novelty"], r["difficulty"])] = r
    written = 0
    for (name, preset), r in sorted(newest.items()):
        cell = data.get("plugins", {}).get(name, {}).get(preset)
        if cell is None:
            continue
        params = load_novelty(name, preset, None)[1].model_dump(mode="json")
        if cell.get("params") != params:
            continue  # the preset changed since detectability was measured: stale
        if cell.get("ignorance", {}).get("games", 0) > r["games"]:
            continue  # a larger measurement (the band's) stands
        cell["ignorance"] = {**{k: r.get(k, OMITTED.get(k)) for k in KEPT}, "command": (
            f"python -m evaluation.impact novelty={name} difficulty={preset} "
            f"games={r['games']} seed={r['seed']}" + _non_default(r))}
        written += 1
    for cells in data.get("plugins", {}).values():
        for cell in cells.values():
            cell["flags"] = cell_flags(cell)
    atomic_write(target, json.dumps(data, indent=1) + "\n")
    if docs is not None:
        write_docs(data, docs)
    return written


def _non_default(record: dict[str, Any]) -> str:
    """The impact command's options that a record ran with other than their defaults."""
    defaults = ImpactOptions(novelty="x")
    words = [f" {'novelty.opponents' if k == 'opponents_view' else k}={record[k]}"
             for k in ("agent", "observability", "opponents_view", "trial_games", "rules",
                       "before")
             if record.get(k, OMITTED.get(k)) != getattr(defaults, k)]
    return "".join(words)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _share(r: dict[str, Any]) -> str:
    if r.get("recovered") is None:
        return "–"
    lo, hi = r["recovered_ci"]
    return f"{100 * r['recovered']:.0f}% ({100 * lo:.0f} to {100 * hi:.0f})"


CATEGORIES = ("class", "attribute", "representation")


def _category(name: str) -> str:
    """A novelty's category ("" for a name the catalogue does not hold)."""
    from novelties.registry import available_novelties

    plugin = available_novelties().get(name)
    return getattr(plugin, "category", "") if plugin is not None else ""


def page_table(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The newest record of each (novelty, preset) that played today's preset, by
    category and then largest cost first, as the results page shows it: win rates, the cost with its interval, the
    share recovered and whether the preset bites (`novelties.measured.bites`)."""
    from novelties.measured import bites

    newest: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        if current(r):
            newest[(r["novelty"], r["difficulty"])] = r
    order = {c: i for i, c in enumerate(CATEGORIES)}
    keyed = [(_category(r["novelty"]), r) for r in newest.values()]
    keyed.sort(key=lambda cr: (order.get(cr[0], len(order)), -cr[1]["cost"]))
    rows = []
    for category, r in keyed:
        lo, hi = r["cost_ci"]
        rows.append([category or "–", f"`{r['novelty']}`", r["difficulty"], _pct(r["oracle"]),
                     _pct(r["blind"]), _pct(r["adaptive"]),
                     f"{100 * r['cost']:+.0f} ({100 * lo:+.0f} to {100 * hi:+.0f})",
                     _share(r), "yes" if bites({"ignorance": r}) else "no"])
    return {"columns": ["category", "novelty", "preset", "oracle", "blind", "adaptive",
                        "cost, points (95% CI)", "recovered (95% CI)", "bites"],
            "rows": rows}


def main(argv: list[str] | None = None) -> int:
    opts = cli(ScreenOptions, argv, "python -m evaluation.impact_screen")
    if opts.table:
        done = [r for r in read_records(Path(opts.out) / RECORDS)
                if (not opts.novelties or r["novelty"] in opts.novelties)
                and r["difficulty"] in opts.presets]
        print(json.dumps(page_table(done), ensure_ascii=False, indent=1))
        return 0
    if opts.write:
        from evaluation.sweeps.difficulty import DOCS

        print(f"wrote {write_measured(opts, docs=DOCS)} cells")
        return 0
    print(f"measured {screen(opts)} presets into {Path(opts.out) / RECORDS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
