"""`python -m evaluation.paper_tables`: the hybrid-DRL paper's Tables II-VIII, resumable.

    python -m evaluation.paper_tables out=outputs/paper_tables                  # all, 5 x 2,000
    python -m evaluation.paper_tables out=DIR tables=[III,V] workers=2          # some, on 2 cores
    python -m evaluation.paper_tables out=DIR games=50 runs=2 seed=0            # a quick look
    python -m evaluation.paper_tables out=DIR parts=8 workers=16                # 250-game jobs
    python -m evaluation.paper_tables out=DIR progress=false                    # no bar (logs)

Each table is a layout of the paper (the learner against `fp_a, fp_b, fp_c`, both
learners of one algorithm at one table, all four learners) played as `runs` runs of
`games` games; `II+` to `V+` are Tables II-V against `fp_plus_a, fp_plus_b, fp_plus_c`.
Run r of a table is exactly run r of `python -m evaluation.tournament agents=[...]
games=G runs=R seed=S` (game seeds S + r x G + g, seats shuffled per game), played as its
own job and written to `out/TABLE/runR.json` as soon as it ends, so a killed command run
again plays only the missing runs. A run of 2,000 games takes a quarter of an hour to
half an hour of one core: `parts=K` cuts each run into K jobs, each kept as it ends
(`out/TABLE/runR.gamesA-B.json`, merged into `runR.json` with the last), so a kill loses
at most one part and K x runs jobs keep many cores busy; the games are the same however
a run is cut, and parts kept from another cut (another machine's `parts=`) are used:
only the games they miss are played. The DRL agents play their shipped weights with
`detector=none`. One bar on stderr counts the games of every worker. Prints each
finished table (wins per run, the win rate with its 95% Wilson interval) and writes
`out/summary.json`, which keeps the tables that earlier commands on the same folder
summarised.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import re
import sys
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Sequence

from pydantic import Field, field_validator, model_validator

from openmono_cli import (Options, UsageError, cli, fail, games_field, progress_field,
                          seed_field, workers_field)

from evaluation.store.atomic import atomic_write
from evaluation.measures.intervals import wilson_interval

FP = ["fp_a", "fp_b", "fp_c"]
FP_PLUS = ["fp_plus_a", "fp_plus_b", "fp_plus_c"]
LAYOUTS: dict[str, list[str]] = {
    "II": ["ppo", *FP],
    "III": ["hybrid_ppo", *FP],
    "IV": ["ddqn", *FP],
    "V": ["hybrid_ddqn", *FP],
    "VI": ["fp_b", "fp_c", "ppo", "hybrid_ppo"],
    "VII": ["fp_b", "fp_c", "ddqn", "hybrid_ddqn"],
    "VIII": ["ddqn", "hybrid_ddqn", "ppo", "hybrid_ppo"],
    "II+": ["ppo", *FP_PLUS],
    "III+": ["hybrid_ppo", *FP_PLUS],
    "IV+": ["ddqn", *FP_PLUS],
    "V+": ["hybrid_ddqn", *FP_PLUS],
}
LEARNERS = ("ppo", "hybrid_ppo", "ddqn", "hybrid_ddqn")


class TablesOptions(Options):
    """The hybrid-DRL paper's Tables II-VIII, each run kept as it ends (resumable)."""

    out: str = Field(description="the folder that keeps each run (resumable)")
    tables: list[str] = Field(list(LAYOUTS), min_length=1, description="the tables to play")
    games: int = games_field(2000, "games per run")
    runs: int = Field(5, ge=1, description="runs per table")
    seed: int = seed_field(200_000, "the first game's seed (run r: seed + r x games)")
    workers: int = workers_field()
    parts: int = Field(1, ge=1, description="jobs per run, each kept as it ends (a kill loses "
                       "at most one part's games; more parts keep more cores busy)")
    progress: bool = progress_field()

    @field_validator("tables")
    @classmethod
    def _known(cls, tables: list[str]) -> list[str]:
        unknown = [t for t in tables if t not in LAYOUTS]
        if unknown:
            raise ValueError(f"unknown table {unknown[0]!r}; valid: {', '.join(LAYOUTS)}")
        return tables

    @model_validator(mode="after")
    def _parts_fit(self) -> "TablesOptions":
        if self.parts > self.games:
            raise ValueError(f"parts={self.parts} is more than games={self.games}: a part "
                             "plays at least one game")
        return self


def weights_digest(names: Sequence[str]) -> dict[str, str]:
    """The first 16 hex digits of each learner's shipped weights: a run played with other
    weights is not resumed into the same table."""
    from agents.drl.agent import WEIGHTS_DIR

    return {n: hashlib.sha256((WEIGHTS_DIR / f"{n}.npz").read_bytes()).hexdigest()[:16]
            for n in dict.fromkeys(names) if n in LEARNERS}


# In a worker process: the count of finished games its parent's bar reads (or None).
_GAMES_DONE: Any = None


def _count_games_in(counter: Any) -> None:
    """A worker's initializer: count finished games in the parent's shared `counter`."""
    global _GAMES_DONE
    _GAMES_DONE = counter


class _Tally:
    """The tournament's progress calls, added to the shared count."""

    def update(self, n: int = 1) -> None:
        with _GAMES_DONE.get_lock():
            _GAMES_DONE.value += n


def play_run(names: Sequence[str], games: int, runs: int, seed: int, run: int,
             first: int = 0, last: int | None = None) -> dict[str, Any]:
    """Games `first` to `last` - 1 (all by default) of run `run` of the tournament
    `names` x `runs` x `games` from `seed` (one process). The games do not depend on how
    a run is cut into parts: each game's agents start from its own seed."""
    from evaluation.games.tournament import run_tournament

    last = games if last is None else last
    options = {n: {"detector": None} for n in dict.fromkeys(names) if n in LEARNERS}
    summary = run_tournament(list(names), games=last - first, runs=1,
                             seed=seed + run * games + first, options=options,
                             tally=_Tally() if _GAMES_DONE is not None else None)
    row = {"agents": list(names), "run": run, "games": last - first,
           "seed": seed + run * games + first, "wins": summary["wins"],
           "weights": weights_digest(names),
           "trades_per_game": summary["trades_per_game"],
           "turns_per_game": summary["turns_per_game"],
           "turn_limit_share": summary["turn_limit_share"],
           "cpu_seconds": summary["cpu_seconds"]}
    if (first, last) != (0, games):
        row["first"] = first
    return row


def part_bounds(games: int, parts: int) -> list[tuple[int, int]]:
    """The games [first, last) of each part of a run.

    >>> part_bounds(2000, 3)
    [(0, 666), (666, 1333), (1333, 2000)]
    """
    return [(k * games // parts, (k + 1) * games // parts) for k in range(parts)]


def merge_parts(rows: list[dict[str, Any]], run_seed: int) -> dict[str, Any]:
    """One run's record from its parts' (per-game figures weighted by games; wins exact)."""
    games = sum(r["games"] for r in rows)
    names = rows[0]["agents"]

    def mean(key: str, digits: int) -> float:
        return round(sum(r[key] * r["games"] for r in rows) / games, digits)

    return {"agents": names, "run": rows[0]["run"], "games": games, "seed": run_seed,
            "wins": [sum(r["wins"][i] for r in rows) for i in range(len(names))],
            "weights": rows[0]["weights"], "trades_per_game": mean("trades_per_game", 3),
            "turns_per_game": mean("turns_per_game", 1),
            "turn_limit_share": mean("turn_limit_share", 4),
            "cpu_seconds": round(sum(r["cpu_seconds"] for r in rows), 2), "parts": len(rows)}


def table_summary(table: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The paper's layout for one table: wins per run, and each seat's win rate over all
    runs with its 95% Wilson interval."""
    names = rows[0]["agents"]
    games = sum(r["games"] for r in rows)
    totals = [sum(r["wins"][i] for r in rows) for i in range(len(names))]
    rates = []
    for k in totals:
        lo, hi = wilson_interval(k, games) or (0.0, 1.0)
        rates.append({"wins": k, "rate": round(k / games, 4), "lo": round(lo, 4),
                      "hi": round(hi, 4)})
    return {"table": table, "agents": names, "games": games, "runs": len(rows),
            "wins_per_run": [r["wins"] for r in sorted(rows, key=lambda r: r["run"])],
            "seats": rates}


def format_summary(s: dict[str, Any]) -> str:
    width = max(12, *(len(n) for n in s["agents"])) + 2  # an interval is 11 wide
    lines = [f"Table {s['table']}: {s['runs']} run(s), {s['games']} games"]
    lines.append("run".ljust(6) + "".join(n.rjust(width) for n in s["agents"]))
    for i, wins in enumerate(s["wins_per_run"]):
        lines.append(str(i).ljust(6) + "".join(str(w).rjust(width) for w in wins))
    lines.append("rate".ljust(6) + "".join(f"{r['rate']:.2%}".rjust(width) for r in s["seats"]))
    lines.append("95%".ljust(6) + "".join(f"{r['lo']:.1%}-{r['hi']:.1%}".rjust(width)
                                          for r in s["seats"]))
    return "\n".join(lines)


def run_tables(cfg: TablesOptions) -> dict[str, Any]:
    """Play every missing run of the chosen tables; returns the summaries of the tables
    whose runs are all done."""
    out = Path(cfg.out)
    tables = list(cfg.tables)
    games, runs, seed = cfg.games, cfg.runs, cfg.seed
    todo = []
    for t in tables:
        (out / t).mkdir(parents=True, exist_ok=True)
        for r in range(runs):
            path = out / t / f"run{r}.json"
            if path.is_file():
                done = json.loads(path.read_text())
                if not _same_games(done, t, games, seed + r * games):
                    raise UsageError(f"{path} holds another setting (games {done['games']}, "
                                     f"seed {done['seed']}); use another out=")
                if done.get("weights") != weights_digest(LAYOUTS[t]):
                    raise UsageError(f"{path} was played with other shipped weights; "
                                     "use another out=")
                continue
            missing, kept = _parts_of(out, t, r, cfg)
            if missing:
                todo.extend(missing)
            else:  # (killed between its last part and the merge)
                _merge_run(out, t, r, kept, cfg)
    if todo:
        play_todo(todo, cfg)
    summaries = {}
    for t in tables:
        rows = [json.loads((out / t / f"run{r}.json").read_text()) for r in range(runs)]
        summaries[t] = table_summary(t, rows)
    _keep_summaries(out / "summary.json", summaries)
    return summaries


def _keep_summaries(path: Path, summaries: dict[str, Any]) -> None:
    """Write these tables' summaries into `path`, keeping those of the other tables
    that earlier commands on the same folder wrote (one file for the whole folder)."""
    try:
        kept = json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, ValueError):
        kept = {}
    if not isinstance(kept, dict):
        kept = {}
    kept.update(summaries)
    ordered = {t: kept[t] for t in LAYOUTS if t in kept}
    atomic_write(path, json.dumps(ordered, indent=1) + "\n")


def _same_games(row: dict[str, Any], t: str, games: int, seed: int) -> bool:
    """Whether a kept run or part played table t's layout, `games` games from `seed`."""
    return (row["agents"], row["games"], row["seed"]) == (LAYOUTS[t], games, seed)


def _part_path(out: Path, t: str, r: int, first: int, last: int) -> Path:
    return out / t / f"run{r}.games{first}-{last - 1}.json"


_PART_NAME = re.compile(r"run\d+\.games(\d+)-(\d+)\.json")


def _part_files(out: Path, t: str, r: int) -> list[tuple[int, int, Path]]:
    """Run r's part files, whatever their cut, as (first, last, path)."""
    found = []
    for path in (out / t).glob(f"run{r}.games*-*.json"):
        m = _PART_NAME.fullmatch(path.name)
        if m and int(m[1]) <= int(m[2]):  # (the glob already names run r)
            found.append((int(m[1]), int(m[2]) + 1, path))
    return sorted(found, key=lambda f: (f[0], f[0] - f[1]))


def _parts_of(out: Path, t: str, r: int, cfg: TablesOptions) -> tuple[list, list]:
    """Run r's games still to play, as jobs (table, run, first, last) cut at the bounds
    of `cfg.parts`, and the rows of the parts kept. Parts of any cut are used (another
    machine may have played some with another `parts=`); one of other settings or
    weights, or overlapping an earlier kept one, is played again."""
    kept, covered, end = [], [], 0
    weights = weights_digest(LAYOUTS[t])  # (hashes the weight files: once, not per part)
    for first, last, path in _part_files(out, t, r):
        if first < end or last > cfg.games:
            continue
        try:
            row = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if _same_games(row, t, last - first, cfg.seed + r * cfg.games + first) \
                and row.get("weights") == weights:
            kept.append(row)
            covered.append((first, last))
            end = last
    missing = [(t, r, first, last)
               for first, last in uncovered(part_bounds(cfg.games, cfg.parts), covered)]
    return missing, kept


def uncovered(bounds: list[tuple[int, int]],
              covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The games [first, last) of `bounds` outside the `covered` ranges (in order, not
    overlapping), cut at the bounds.

    >>> uncovered([(0, 4), (4, 8)], [(1, 2), (3, 6)])
    [(0, 1), (2, 3), (6, 8)]
    """
    gaps = []
    for first, last in bounds:
        for a, b in covered:
            if a > first and first < last:
                gaps.append((first, min(a, last)))
            first = max(first, b)
        if first < last:
            gaps.append((first, last))
    return gaps


def _merge_run(out: Path, t: str, r: int, rows: list[dict[str, Any]],
               cfg: TablesOptions) -> dict[str, Any]:
    """Write run r's record from its parts' rows, then drop its part files."""
    row = merge_parts(rows, cfg.seed + r * cfg.games)
    atomic_write(out / t / f"run{r}.json", json.dumps(row) + "\n")
    for _, _, path in _part_files(out, t, r):
        path.unlink(missing_ok=True)
    return row


def play_todo(todo: list[tuple], cfg: TablesOptions) -> None:
    """Play the missing parts (table, run, first, last) on `cfg.workers` processes,
    keeping each as it ends and merging a run when its last part ends; with
    `cfg.progress` one bar counts the games of every worker."""
    from tqdm import tqdm

    out = Path(cfg.out)
    counter = multiprocessing.Value("q", 0) if cfg.progress else None
    bar = tqdm(total=sum(last - first for _, _, first, last in todo), desc="paper tables",
               unit="game", file=sys.stderr, disable=not cfg.progress, smoothing=0.05)
    with ProcessPoolExecutor(max_workers=cfg.workers, initializer=_count_games_in,
                             initargs=(counter,)) as pool:
        jobs = {pool.submit(play_run, LAYOUTS[t], cfg.games, cfg.runs, cfg.seed, r, first,
                            last): (t, r, first, last) for t, r, first, last in todo}
        pending = set(jobs)
        while pending:
            done, pending = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
            if counter is not None:
                bar.update(counter.value - bar.n)
            for job in done:
                t, r, first, last = jobs[job]
                row = job.result()
                atomic_write(_part_path(out, t, r, first, last), json.dumps(row) + "\n")
                if (first, last) != (0, cfg.games):
                    bar.write(f"table {t} run {r} games {first}-{last - 1}: wins "
                              f"{row['wins']}", file=sys.stderr)
                missing, kept = _parts_of(out, t, r, cfg)
                if not missing:
                    row = _merge_run(out, t, r, kept, cfg)
                    bar.write(f"table {t} run {r}: wins {row['wins']}", file=sys.stderr)
    bar.close()


def main(argv: list[str] | None = None) -> int:
    try:
        cfg = cli(TablesOptions, argv, "python -m evaluation.paper_tables")
        summaries = run_tables(cfg)
    except UsageError as exc:
        fail(str(exc))
    for s in summaries.values():
        print(format_summary(s) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
