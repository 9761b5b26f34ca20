"""The detection sweep's trials, planned: per category x difficulty, novelties drawn from
the catalogue in a seeded order that cycles through the category (or the chosen
plugin:preset cells), plus the control trials, each with its own seed."""

from __future__ import annotations

import random
from typing import Any

from novelties.base import CATEGORIES, DIFFICULTIES


# --- the trials -------------------------------------------------------------------------------
def catalogue() -> dict[str, list[str]]:
    from novelties.registry import describe

    out: dict[str, list[str]] = {c: [] for c in CATEGORIES}
    for item in describe():
        out.setdefault(item["category"], []).append(item["name"])
    return {c: sorted(v) for c, v in out.items()}


def plan(per_cell: int, controls: int, seed: int, games: int, window: tuple[float, float],
         agent: str, observability: str = "announced",
         rules: str = "standard",
         cells: list[tuple[str, str]] | None = None,
         opponents_view: str = "informed", spread: bool = False) -> list[dict[str, Any]]:
    """Trial specs: per category x difficulty, novelties cycled in a seeded order; with
    `cells` (plugin, preset), `per_cell` trials of each of those cells instead, or with
    `spread` `per_cell` trials per category x difficulty that has chosen cells, cycling
    through them (a band of many presets studied at the size SAIL-ON asks of a cell). Under
    `effects` a spec names what the opponents are shown (a spec without it, from before
    the option, played with them shown the old rules)."""
    cat = catalogue()
    specs = []
    k = 0
    for category in CATEGORIES:
        for difficulty in DIFFICULTIES:
            names = list(cat.get(category, []))
            if cells is not None:
                names = sorted(n for n in names if (n, difficulty) in cells)
            else:
                random.Random(f"{seed}:{category}:{difficulty}").shuffle(names)
            if cells is not None and not spread:
                chosen = [n for n in names for _ in range(per_cell)]
            else:  # cycling through the cell's novelties
                chosen = [names[i % len(names)] for i in range(per_cell)] if names else []
            for name in chosen:
                specs.append({"agent": agent, "category": category, "difficulty": difficulty,
                              "novelty": name, "seed": seed + k,
                              "games": games, "window": window,
                              "observability": observability})
                if observability == "effects":
                    specs[-1]["opponents_view"] = opponents_view
                k += 1
    for i in range(controls):
        specs.append({"agent": agent, "category": "control", "difficulty": None,
                      "novelty": None, "seed": seed + k, "games": games, "window": window})
        k += 1
    if rules != "standard":  # standard specs keep their old form (saved sweeps resume)
        for spec in specs:
            spec["rules"] = rules
    return specs


def chosen_cells(items: list[str]) -> list[tuple[str, str]]:
    """`cells=` as (plugin, preset) pairs; `hardest` expands to the hardest measured band,
    `bites` to the presets whose cost of ignorance is measured large (the biting band).
    Raises ValueError naming the first item that is not a known cell."""
    from evaluation.measures.detection_bands import biting_cells, hardest_cells

    known = {n for names in catalogue().values() for n in names}
    out: list[tuple[str, str]] = []
    for item in items:
        if item in ("hardest", "bites"):
            band = hardest_cells() if item == "hardest" else biting_cells()
            out.extend(c for c in band if c[0] in known)
            continue
        name, _, preset = item.partition(":")
        if name not in known:
            raise ValueError(f"cells: unknown plugin {name!r} in {item!r}; valid: "
                             f"plugin:preset (python -m novelties list), hardest or bites")
        if preset not in DIFFICULTIES:
            raise ValueError(f"cells: {item!r} needs a preset; valid: "
                             f"{', '.join(f'{name}:{d}' for d in DIFFICULTIES)}")
        out.append((name, preset))
    if not out:
        raise ValueError("cells: no cell chosen (no measured cell is in the band asked for)")
    return list(dict.fromkeys(out))
