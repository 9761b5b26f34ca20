"""The measured difficulty of the catalogue, as shipped in `novelties/data/measured.json`.

`python -m evaluation.difficulty` measures every plugin x preset by simulation and
writes the file; this module only reads it (novelties import nothing above openmono) and
formats its columns for `python -m novelties list`. The file's schema (version 1):

    {"version": 1,
     "settings": {"games", "seed", "agents", "observability", "alpha", "beta", "command"},
     "plugins": {NAME: {PRESET: CELL}},
     "order":   {NAME: "ordered" | "tied" | "unordered: ..."}}

and a CELL holds at least `params` (the preset measured: a cell whose params differ from
the current preset is stale), `games`, `seed`, `method` ("coupled" or "analytic"),
`detectability_games_median` (int; null = never detected in the games played),
`detected_within_100` (probability), `detected_in_first_game`, `detectability_decisions`
(expected decisions of seat 0 until detection; null = never), `impact_length` and
`impact_length_ci` (mean change in turns, 95% CI), `impact_winrate` and
`impact_winrate_ci` (change in seat 0's win rate), `length_standard`,
`winrate_standard` and `flags` (a list of `FLAG_TEXT` keys); and, once
`python -m evaluation.impact_screen write=true` has run, `ignorance`: the cost of
ignoring the preset (`evaluation.impact`: win rates `oracle`, `blind`, `adaptive`,
`cost` = oracle - blind with `cost_ci`, `recovered` with `recovered_ci`, `games`,
`seed` and the other settings). docs/novelties.md ("Measured difficulty", "The cost of
ignorance") defines every figure. (`impact_winrate`, seat 0's win-rate change among four
identical agents, is kept in the file but is no impact measure: by symmetry it is about
zero.)
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

DATA_FILE = Path(__file__).resolve().parent / "data" / "measured.json"
SCHEMA_VERSION = 1
# A preset bites when ignoring it costs at least BITE_COST of post-novelty win rate, the
# interval's low end above BITE_LOW, measured on at least BITE_GAMES paired games.
BITE_COST, BITE_LOW, BITE_GAMES = 0.15, 0.10, 1000
FLAG_TEXT = {
    "instant": "detected in the first game with probability >= 0.95",
    "never_seen": "no observation changed in the games played",
    "no_impact": "neither game length nor (where measured) the cost of ignorance differs "
                 "measurably from 0 (95% CIs hold 0)",
    "bites": f"ignoring it costs the planner at least {round(100 * BITE_COST)} points of "
             f"win rate, the 95% CI's low end above {round(100 * BITE_LOW)} "
             f"(at least {BITE_GAMES:,} paired games)",
    "inert": "never seen and no measurable impact",
}
NOT_MEASURED = "not measured - run python -m evaluation.difficulty plugin=[{name}]"
STALE = "stale (presets changed) - run python -m evaluation.difficulty plugin=[{name}]"
# Order tolerance: a preset counts as easier to see than the next one when it needs
# fewer than 1/ORDER_RATIO of the decisions (less ORDER_SLACK) that one does.
ORDER_RATIO, ORDER_SLACK = 1.25, 2.0
PRESETS = ("easy", "medium", "hard")


@lru_cache(maxsize=4)
def _read(path: str) -> dict[str, Any]:
    p = Path(path)
    if not p.exists():
        return {}
    return json.loads(p.read_text(encoding="utf-8"))


def load(path: Path | None = None) -> dict[str, Any]:
    """The data file (an empty dict when there is none)."""
    return _read(str(path or DATA_FILE))


def cells_for(name: str, presets: Mapping[str, Mapping[str, Any]] | None = None,
              data: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The measured cells of a plugin, None when unmeasured; `presets` (preset ->
    validated params as JSON) marks the result stale (returns {"stale": True})."""
    data = load() if data is None else data
    cells = data.get("plugins", {}).get(name)
    if not cells or any(d not in cells for d in PRESETS):
        return None
    if presets is not None and any(cells[d].get("params") != presets[d] for d in PRESETS):
        return {"stale": True}
    return dict(cells)


def _difficulty(cell: Mapping[str, Any]) -> float:
    d = cell.get("detectability_decisions")
    return math.inf if d is None else float(d)


def order_verdict(cells: Mapping[str, Mapping[str, Any]]) -> str:
    """Whether easy < medium < hard in measured detectability (harder = more of seat 0's
    decisions until the ideal observer detects it): "ordered", "tied" (no preset
    measurably harder to see than another) or "unordered: A easier to see than B"."""
    m = [_difficulty(cells[d]) for d in PRESETS]
    bad = [f"{PRESETS[j]} easier to see than {PRESETS[i]}"
           for i in range(3) for j in range(i + 1, 3) if _harder(m[i], m[j])]
    if bad:
        return "unordered: " + "; ".join(bad)
    if not any(_harder(m[j], m[i]) for i in range(3) for j in range(i + 1, 3)):
        return "tied"
    return "ordered"


def _harder(a: float, b: float) -> bool:
    """a measurably harder to see than b."""
    if math.isinf(a):
        return not math.isinf(b)
    return a > ORDER_RATIO * b + ORDER_SLACK


def detect_text(cell: Mapping[str, Any]) -> str:
    """A cell's median game of detection as the list prints it (`~` analytic, `>N`
    never in N games)."""
    g = cell.get("detectability_games_median")
    if g is None:
        return f">{cell.get('games', '?')}" if cell.get("method") == "coupled" else "never"
    return f"~{g}" if cell.get("method") == "analytic" else str(g)


def impact_text(cell: Mapping[str, Any], what: str) -> str:
    """A cell's measured change (`length` in turns, `winrate` in points) with its 95% interval."""
    m, (lo, hi) = cell[f"impact_{what}"], cell[f"impact_{what}_ci"]
    k = 100 if what == "winrate" else 1  # percentage points
    return f"{_signed(k * m)} [{_signed(k * lo)},{_signed(k * hi)}]"


def bites(cell: Mapping[str, Any]) -> bool:
    """Whether ignoring the preset costs the planner a measured, large share of its games
    (`FLAG_TEXT["bites"]`)."""
    ig = cell.get("ignorance")
    return bool(ig) and ig["games"] >= BITE_GAMES and ig["cost"] >= BITE_COST \
        and ig["cost_ci"][0] > BITE_LOW


def cost_text(cell: Mapping[str, Any]) -> str:
    """The cost of ignorance in points with its interval, or "?" when not measured."""
    ig = cell.get("ignorance")
    if not ig:
        return "?"
    lo, hi = ig["cost_ci"]
    return f"{_signed(100 * ig['cost'])} [{_signed(100 * lo)},{_signed(100 * hi)}]"


def _signed(x: float) -> str:
    return f"{round(x) + 0:+d}"  # (never "-0")


def columns(name: str, presets: Mapping[str, Mapping[str, Any]] | None = None,
            data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The list's columns for one plugin: detectability and impact per preset (easy /
    medium / hard) and the flags of its hard preset, or a note saying how to measure."""
    cells = cells_for(name, presets, data)
    if cells is None or cells.get("stale"):
        note = (STALE if cells else NOT_MEASURED).format(name=name)
        return {"detectability": None, "impact": None, "cost": None, "flags": [],
                "note": note}
    data = load() if data is None else data
    flags = list(cells["hard"].get("flags", []))
    verdict = data.get("order", {}).get(name) or order_verdict(cells)
    if verdict != "ordered":
        flags.append(verdict.split(":")[0])
    return {
        "detectability": " / ".join(detect_text(cells[d]) for d in PRESETS),
        "impact": " / ".join(_signed(cells[d]["impact_length"]) for d in PRESETS),
        "cost": " / ".join(_signed(100 * cells[d]["ignorance"]["cost"])
                           if cells[d].get("ignorance") else "?" for d in PRESETS),
        "flags": flags,
        "note": None,
    }
