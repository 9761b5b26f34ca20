"""One run of a trial and the world each of its games is played in: the rules, the
novelty and the game it arrives at, what agents are shown of it, and the games whose
log is kept."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from openmono.hooks import NO_HOOKS, Hooks
from openmono.schema import GameSchema
from openmono.seeding import game_seed

from evaluation.harness.novelty_setup import Applied
from evaluation.harness.trial_config import TrialConfig


def injection_game(cfg: TrialConfig) -> int | None:
    """The first game played with the novelty (None for a control trial)."""
    if cfg.novelty is None:
        return None
    if cfg.inject_at is not None:
        return cfg.inject_at
    lo = int(cfg.window[0] * cfg.games)
    hi = max(lo, min(cfg.games - 1, int(cfg.window[1] * cfg.games)))
    draw = game_seed(cfg.seed, 2**31 - 1)  # a stream no game of the trial uses
    return lo + draw % (hi - lo + 1)


@dataclass(frozen=True)
class RunContext:
    """One run of a trial, its configuration validated once: the trial's options, the
    folder it writes, the world it plays (the rules, the novelty and when it arrives,
    what agents are shown of it) and who hears of each finished game."""

    cfg: TrialConfig
    out: Path
    base: GameSchema
    novelty: Applied | None
    inject: int | None
    shown: GameSchema | None
    on_game: Callable[[dict[str, Any]], None] | None = None

    def world(self, g: int) -> tuple[GameSchema, Hooks, bool]:
        """(schema, hooks, novelty active) of game `g`."""
        active = self.inject is not None and g >= self.inject
        if active and self.novelty:
            return self.novelty.schema, self.novelty.hooks, active
        return self.base, NO_HOOKS, active


def kept_logs(cfg: TrialConfig, inject: int | None) -> frozenset[int]:
    """The games whose log the trial keeps (`TrialConfig.keep_logs`)."""
    keep = cfg.keep_logs
    if keep in (True, "all"):
        return frozenset(range(cfg.games))
    if keep in (False, "none"):
        return frozenset()
    around = (0,) if inject is None else (inject - 1, inject, inject + 1)
    return frozenset(g for g in around if 0 <= g < cfg.games)
