"""Detection results per measured-detectability band.

A novelty's difficulty is not what its preset is called but how soon an ideal observer
could tell the two worlds apart: `python -m evaluation.difficulty` measures that per
plugin x preset under `effects` and ships it in `novelties/data/measured.json` (schema in
`novelties/measured.py`). This module reads the per-cell figure it needs from that file
(`detectability_decisions`: the expected number of seat 0's decisions until the ideal
observer detects the novelty; null when it never did in the games played), puts every
sweep trial into a band by it, and pools each band's trials with
`evaluation.measures.metrics.aggregate`. A detector that works for the right reasons detects the
easy bands at once and takes longer, or fails, as the band gets harder.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluation.measures import metrics

DATA_FILE = Path(__file__).resolve().parents[2] / "novelties" / "data" / "measured.json"
# (upper edge in decisions, label); a cell goes into the first band whose edge it is at
# or below. A player makes roughly 100 decisions per game.
BANDS: tuple[tuple[float, str], ...] = (
    (10.0, "<= 10 decisions"),
    (100.0, "11-100 decisions (about a game)"),
    (1000.0, "101-1000 decisions (a few games)"),
    (math.inf, "> 1000 decisions"),
)
NEVER = "never seen by the ideal observer"
UNMEASURED = "not measured"
ORDER = tuple(label for _, label in BANDS) + (NEVER, UNMEASURED)


def hardest_cells(cells: Mapping[tuple[str, str], Mapping[str, Any]] | None = None
                  ) -> list[tuple[str, str]]:
    """The (plugin, preset) cells of the hardest band, and those never seen in the games
    measured (a sweep that wants resolution where detection is hard runs these)."""
    cells = load_cells() if cells is None else cells
    return sorted(k for k, cell in cells.items() if band_of(cell) in (BANDS[-1][1], NEVER))


def biting_cells(cells: Mapping[tuple[str, str], Mapping[str, Any]] | None = None
                 ) -> list[tuple[str, str]]:
    """The (plugin, preset) cells flagged `bites`: ignoring them costs the planner a
    measured, large share of its games (`novelties.measured.bites`)."""
    from novelties.measured import bites

    cells = load_cells() if cells is None else cells
    return sorted(k for k, cell in cells.items() if bites(cell))


def is_control(trial: Mapping[str, Any]) -> bool:
    """A trial without a novelty (saved sweeps name its novelty "none")."""
    return trial.get("novelty") in (None, "none") or trial.get("sweep_category") == "control"


def load_cells(path: Path | str | None = None) -> dict[tuple[str, str], Mapping[str, Any]]:
    """{(plugin, preset): measured cell} from the data file; empty when there is none.
    (Which cell belongs to a trial is `cell_of`'s job: by the parameters it ran.)"""
    p = Path(path) if path is not None else DATA_FILE
    if not p.exists():
        return {}
    data = json.loads(p.read_text(encoding="utf-8"))
    return {(name, preset): cell for name, cells in data.get("plugins", {}).items()
            for preset, cell in cells.items() if isinstance(cell, Mapping)}


@functools.lru_cache(maxsize=None)  # read per trial, for thousands of trials
def _preset_params(name: str, preset: str | None) -> dict[str, Any] | None:
    """A preset's parameters as they are now (None for an unknown plugin or preset;
    the cached dict is compared, never changed)."""
    from novelties.base import NoveltyError
    from novelties.registry import load_novelty

    try:
        return load_novelty(name, preset or "medium")[1].model_dump(mode="json")
    except (NoveltyError, KeyError, ValueError):
        return None


def cell_of(trial: Mapping[str, Any], cells: Mapping[tuple[str, str], Mapping[str, Any]]
            ) -> Mapping[str, Any] | None:
    """The measured cell of a trial's novelty: the one measured for the parameters the
    trial ran with (`novelty_params`, whatever preset name the cell has now: presets get
    re-tuned; a trial that did not record them ran the preset as it is now)."""
    name = trial["novelty"]
    preset = trial.get("sweep_difficulty") or trial.get("difficulty")
    params = trial.get("novelty_params") or _preset_params(name, preset)
    cell = cells.get((name, preset))
    if params is None:
        return cell
    if cell is not None and cell.get("params", params) == params:
        return cell
    return next((c for (n, _), c in cells.items() if n == name and c.get("params") == params),
                None)


def with_current_presets(trials: Sequence[Mapping[str, Any]]
                         ) -> tuple[list[Mapping[str, Any]], int]:
    """The trials with each novelty trial named after the preset that carries its
    recorded parameters today (a sweep saved before presets were re-tuned names the old
    preset), and how many were renamed. Trials whose parameters match no preset (custom
    overrides, a retired preset) keep their name; the saved records are not changed."""
    from novelties.measured import PRESETS

    out: list[Mapping[str, Any]] = []
    moved = 0
    for t in trials:
        params = t.get("novelty_params")
        name = t.get("sweep_difficulty") or t.get("difficulty")
        if is_control(t) or params is None or _preset_params(t["novelty"], name) == params:
            out.append(t)
            continue
        now = next((p for p in PRESETS if _preset_params(t["novelty"], p) == params), None)
        if now is None:
            out.append(t)
            continue
        out.append({**t, "sweep_difficulty": now, "difficulty": now})
        moved += 1
    return out, moved


def band_of(cell: Mapping[str, Any] | None) -> str:
    """The band of one measured cell (see `BANDS`)."""
    if cell is None or "detectability_decisions" not in cell:
        return UNMEASURED
    d = cell["detectability_decisions"]
    if d is None:
        return NEVER
    for edge, label in BANDS:
        if float(d) <= edge:
            return label
    return BANDS[-1][1]  # pragma: no cover - the last edge is infinite


def by_band(trials: Sequence[Mapping[str, Any]],
            cells: Mapping[tuple[str, str], Mapping[str, Any]]) -> dict[str, list]:
    """Novelty trials grouped by the band of their plugin x preset, in `ORDER`."""
    out: dict[str, list] = {}
    for t in trials:
        if is_control(t):
            continue
        band = band_of(cell_of(t, cells))
        out.setdefault(band, []).append(t)
    return {b: out[b] for b in ORDER if b in out}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def band_rows(trials: Sequence[Mapping[str, Any]],
              cells: Mapping[tuple[str, str], Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per band: its label and the pooled measures (`metrics.aggregate`)."""
    return [{"band": band, **metrics.aggregate(ts)} for band, ts in by_band(trials, cells).items()]


def band_table(trials: Sequence[Mapping[str, Any]],
               cells: Mapping[tuple[str, str], Mapping[str, Any]]) -> str:
    """A markdown table of NDA, NDA + characterized, delay and pooled NRP per band."""
    rows = ["| Measured detectability | Trials | NDA % (95% CI) | NDA+char. % | "
            "Delay, games (95% CI) | NRP, pooled (95% CI) | Post-novelty win % |",
            "|---|---:|---|---:|---|---|---:|"]
    for r in band_rows(trials, cells):
        nda = _pct(r["nda"])
        if r["nda_lo"] is not None:
            nda += f" ({_pct(r['nda_lo'])}-{_pct(r['nda_hi'])})"
        delay = "-" if r["detection_delay"] is None else f"{r['detection_delay']:.2f}"
        if r["detection_delay_lo"] is not None:
            delay += f" ({r['detection_delay_lo']:.2f}-{r['detection_delay_hi']:.2f})"
        nrp = "-" if r["nrp"] is None else f"{r['nrp']:.2f}"
        if r.get("nrp_lo") is not None:
            nrp += f" ({r['nrp_lo']:.2f}-{r['nrp_hi']:.2f})"
        rows.append(f"| {r['band']} | {r['novelty_trials']} | {nda} | "
                    f"{_pct(r['nda_characterized'])} | {delay} | {nrp} | "
                    f"{_pct(r['post_win_rate'])} |")
    return "\n".join(rows)
