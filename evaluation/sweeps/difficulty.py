"""`python -m evaluation.difficulty`: measured detectability and impact of every novelty.

    python -m evaluation.difficulty                       # the whole catalogue, resumable
    python -m evaluation.difficulty plugin=[rent_hike]    # one plugin (or a list)
    python -m evaluation.difficulty preset=[hard] out=F   # the hard presets only, into F
    python -m evaluation.difficulty out=novelties/data/measured.json write_docs=true
                                    # the package's own file, and the table in docs/novelties.md

Each plugin x preset is measured on `games=` seeded games (seeds `seed`, `seed`+1,
...) of four `baseline` agents in fixed seats, the novelty present from the first turn
under `observability=effects`, paired with the standard game of the same seed.

*Detectability* is the number of games an ideal observer at seat 0 - one that knows both
worlds exactly - needs to tell the novelty from the standard game at error rates
alpha = beta = 0.01. Two methods (docs/novelties.md, "Measured difficulty"):

- `coupled`: both games on one seed give seat 0 identical observations until the first
  event the novelty changed; a rule change that alters a deterministic consequence makes
  that first differing observation one the standard game could not have produced, so
  the ideal observer fires there, with no error. A game "detects" when the two differ
  anywhere; the games to detection are geometric in the per-game rate.
- `analytic`: a novelty of the dice alone makes every roll differ at once while one roll
  proves nothing; the expected games of Wald's sequential test come from the exact roll
  distributions (`evaluation.measures.dice_sprt`).

*Impact*: the paired change (novelty - standard, same seed) in game length (turns) and
in the first mover's (seat 0's) win rate, each with a 95% t-interval over the games.

Results go to `out=` (default `outputs/difficulty/measured.json` in the working folder;
`python -m novelties list measured=FILE` shows them), one cell written as soon as it is
measured. The file shipped with the package, which `python -m novelties list` reads and
`write_docs=true` turns into the catalogue's table, is written only when named:
`out=novelties/data/measured.json`.

This module is the command; the paired games are played in `difficulty_games`, a cell
measured in `difficulty_cells`, and the data file and docs table kept in
`difficulty_table`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Literal, Sequence

from pydantic import Field

import openmono
from openmono_cli import Options, out_field, progress_field, read_options, seed_field

from evaluation.measures import dice_sprt
# (`cell_flags`, `write_docs` and `DOCS` are named here too for the impact screen.)
from evaluation.sweeps.difficulty_cells import cell_flags, measure_cell  # noqa: F401
from evaluation.sweeps.difficulty_games import Standard
from evaluation.sweeps.difficulty_table import DOCS, load, save, todo, write_docs  # noqa: F401
from novelties.base import DIFFICULTIES, NoveltyError
from novelties.measured import DATA_FILE
from novelties.registry import available_novelties

DEFAULT_OUT = Path("outputs/difficulty/measured.json")  # the user's, not the package's



class DifficultyOptions(Options):
    """Measure detectability and impact of novelties."""

    plugin: list[str] = Field([], description="measure these plugins only (default: all)")
    preset: list[Literal["easy", "medium", "hard"]] = Field(
        [], description="measure these presets only (default: all three)")
    games: int = Field(200, ge=2, description="games per cell")
    seed: int = seed_field(what="first seed")
    out: Path = out_field(DEFAULT_OUT, "the data file (the package's own: "
                          "out=novelties/data/measured.json)")
    force: bool = Field(False, description="re-measure cells already done")
    write_docs: bool = Field(False, description="write the table into docs/novelties.md "
                             "(with out=novelties/data/measured.json only)")
    progress: bool = progress_field()


def main(argv: Sequence[str] | None = None) -> int:
    args = read_options(DifficultyOptions, argv, "python -m evaluation.difficulty")
    if isinstance(args, int):
        return args
    plugins = available_novelties()
    unknown = [n for n in args.plugin if n not in plugins]
    if unknown:
        print(f"error: unknown novelty {unknown[0]!r}; list them with: python -m novelties list",
              file=sys.stderr)
        return 2
    if args.write_docs and args.out.resolve() != DATA_FILE:
        print("error: write_docs=true writes the catalogue's table from the package's own "
              "file: add out=novelties/data/measured.json", file=sys.stderr)
        return 2
    names = args.plugin or sorted(plugins)
    data = load(args.out)
    try:
        cells = todo(data, names, args.games, args.seed, args.force,
                     [d for d in DIFFICULTIES if d in args.preset] or DIFFICULTIES)
    except NoveltyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    standard = Standard(openmono.standard_schema(), range(args.seed, args.seed + args.games))
    settings = {"games": args.games, "seed": args.seed, "agents": "4 x baseline, fixed seats",
                        "observability": "effects", "alpha": dice_sprt.ALPHA,
                        "beta": dice_sprt.BETA,
                        "command": f"python -m evaluation.difficulty games={args.games} "
                                   f"seed={args.seed}"}
    if not (args.plugin or args.preset) or not data["settings"]:  # the catalogue run's settings
        data["settings"] = settings
    from tqdm import tqdm

    t0 = time.process_time()
    bar = tqdm(cells, disable=not args.progress, unit="cell", file=sys.stderr)
    for name, d in bar:
        bar.set_postfix_str(f"{name}:{d}")
        c0 = time.process_time()
        try:
            cell = measure_cell(name, d, standard)
            cell["cpu_seconds"] = round(time.process_time() - c0, 1)
        except NoveltyError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        data["plugins"].setdefault(name, {})[d] = cell
        save(data, args.out)
    if not cells:
        save(data, args.out)
    if args.write_docs:
        write_docs(data)
    print(f"{len(cells)} cell(s) measured in {time.process_time() - t0:.0f} CPU s; "
          f"results in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
