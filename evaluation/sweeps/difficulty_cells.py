"""One cell of the difficulty measure (a plugin x preset): its detectability, by the
coupled games or, for a novelty of the dice alone, analytically (Wald's test on the
exact roll distributions), its impact, and its flags."""

from __future__ import annotations

import math
import statistics
from typing import Any

from openmono.schema import GameSchema

from evaluation.measures import dice_sprt
from evaluation.measures.intervals import wilson_interval
from evaluation.sweeps.difficulty_games import (Played, Standard, first_difference,
                                                geometric_median, mean_ci, play_one)
from novelties.measured import bites
from novelties.observability import shown_schema
from novelties.registry import apply_novelty

WITHIN = 100  # "detected within 100 games"
INSTANT = 0.95  # detected in the first game with at least this probability: `instant`


def measure_cell(name: str, difficulty: str, standard: Standard) -> dict[str, Any]:
    """Detectability and impact of one plugin x preset (see the module docstring)."""
    base = standard.base
    p = apply_novelty(name, base, difficulty)
    shown = shown_schema(base, p.schema)
    shown_differs = shown.public_dict() != base.public_dict()
    novel = [play_one(p.schema, s, p.hooks, shown) for s in standard.seeds]
    plain = standard.games
    n = len(novel)
    cell: dict[str, Any] = {"params": p.params, "games": n, "seed": standard.seeds[0]}

    decisions = statistics.fmean(len(g.seen) for g in plain)
    exact = _dice_only(p, base)
    if exact is not None:
        cell.update(_analytic(exact, standard, decisions))
    else:
        firsts = [0 if shown_differs else first_difference(a.seen, b.seen)
                  for a, b in zip(plain, novel)]
        cell.update(_coupled(firsts, novel, decisions, p))

    lengths = [b.turns - a.turns for a, b in zip(plain, novel)]
    wins = [(b.winner_seat == 0) - (a.winner_seat == 0) for a, b in zip(plain, novel)]
    cell["length_standard"] = statistics.fmean(a.turns for a in plain)
    cell["impact_length"], cell["impact_length_ci"] = mean_ci(lengths)
    cell["winrate_standard"] = statistics.fmean(a.winner_seat == 0 for a in plain)
    cell["impact_winrate"], cell["impact_winrate_ci"] = mean_ci(wins)
    cell["flags"] = cell_flags(cell)
    return _rounded(cell)


def _dice_only(p: Any, base: GameSchema) -> tuple[dice_sprt.Dist, str] | None:
    """(P1, which throws) when the novelty changes the dice and nothing else."""
    if any(not (c.entity == "dice" or c.entity.startswith("die:")) for c in p.changes):
        return None
    if set(p.hooks.installed()) - {"dice_roll"} or not p.changes:
        return None
    return dice_sprt.novel_roll_dist(p.name, p.params, base, p.schema)


def _analytic(exact: tuple[dice_sprt.Dist, str], standard: Standard,
              decisions: float) -> dict[str, Any]:
    p1, which = exact
    p0 = dice_sprt.roll_dist(standard.base)
    if which == "jail":  # (a standard throw from jail is a plain throw)
        per_game = standard.rolls_per_game[1]
    else:
        per_game = statistics.fmean(g.rolls for g in standard.games)
    rolls = dice_sprt.expected_rolls(p0, p1)
    c = dice_sprt.compare(p0, p1)
    out: dict[str, Any] = {"method": "analytic", "kl_per_roll": c["kl"],
                           "impossible_per_roll": c["q"], "rolls_per_game": per_game,
                           "throws": which}
    if math.isinf(rolls) or per_game <= 0:
        out.update(detectability_games_median=None, detected_within_100=0.0,
                   detected_in_first_game=0.0, detectability_decisions=None)
        return out
    games = rolls / per_game
    out["expected_rolls"] = rolls
    out["detectability_games_median"] = max(1, math.ceil(games))
    out["detected_within_100"] = dice_sprt.detected_within(p0, p1, WITHIN * per_game)
    out["detected_in_first_game"] = dice_sprt.detected_within(p0, p1, per_game)
    out["detectability_decisions"] = games * decisions
    return out


def _coupled(firsts: list[int | None], novel: list[Played], decisions: float,
             p: Any) -> dict[str, Any]:
    n = len(firsts)
    hit = [f for f in firsts if f is not None]
    k = len(hit)
    rate = k / n
    lo, hi = wilson_interval(k, n)
    out: dict[str, Any] = {"method": "coupled", "detected_games": k,
                           "detected_per_game": rate, "detected_per_game_ci": [lo, hi],
                           "detectability_games_median": geometric_median(rate),
                           "detected_within_100": 1 - (1 - rate) ** WITHIN,
                           "detected_within_100_ci": [1 - (1 - lo) ** WITHIN,
                                                      1 - (1 - hi) ** WITHIN],
                           "detected_in_first_game": rate}
    if _deck_changed(p):
        out["note"] = ("the decks change size, so the coupled draws differ before any "
                       "impossible one: a lower bound on the games needed")
    if k:
        out["first_decision_median"] = statistics.median(hit)
        # Expected seat-0 decisions watched until the first difference, games in turn.
        out["detectability_decisions"] = ((1 - rate) / rate * decisions
                                          + statistics.fmean(hit) + 1)
    else:
        out["detectability_decisions"] = None
    return out


def _deck_changed(p: Any) -> bool:
    return any(c.entity.startswith("card:") and c.attribute in ("exists", "count")
               for c in p.changes)


def cell_flags(cell: dict[str, Any]) -> list[str]:
    """`instant`, `never_seen`, `no_impact`, `inert` (never seen and no impact) and
    `bites` (`novelties.measured.bites`). Impact is the cost of ignorance where it was
    measured (`ignorance`), and game length; seat 0's win-rate change among identical
    agents is no impact measure (by symmetry it is about zero) and is not read."""
    flags = []
    if cell.get("detected_in_first_game", 0) >= INSTANT:
        flags.append("instant")
    never = cell["detectability_games_median"] is None
    if never:
        flags.append("never_seen")
    ignorance = cell.get("ignorance")
    no_impact = (cell["impact_length_ci"][0] <= 0 <= cell["impact_length_ci"][1]
                 and (ignorance is None
                      or ignorance["cost_ci"][0] <= 0 <= ignorance["cost_ci"][1]))
    if bites(cell):
        flags.append("bites")
    if no_impact:
        flags.append("no_impact")
    if never and no_impact:
        flags.append("inert")
    return flags


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v) for v in value]
    return value
