"""One SAIL-ON trial, without Hydra: plain config in, `games.jsonl` + summary out.

The protocol (docs/evaluation.md): the evaluated agent plays `games` games against
its opponents, seats shuffled per game; a novelty is injected before a game drawn from
the configured window and kept to the end; the agent object lives for the whole trial
and its `novelty_report()` is recorded after every game. Before the injection the
reference agent (default `baseline`) also plays each game in the evaluated agent's seat
on the same seed (common random numbers), for NRP.

Resuming: records are appended one line per finished game, and after each game the
agents (evaluated, opponents, reference) are pickled into `agents.pkl` with the number
of games they have seen (after a game once playing since the last snapshot took 20x
what a snapshot costs: for fast agents that is every few games, for the planner every
game or two, so saving costs at most ~5%). A re-run into the same directory says how
many games it found, restores the agents from that file and re-plays only the few
recorded games after the snapshot (checking that they reproduce their lines) before
playing the missing ones; without a usable file it re-plays every recorded game
(everything is deterministic) to rebuild the agents' state. A finished trial is not played again (`complete_summary`).

A novelty plugin whose hook raises during a game stops the trial with a `PluginError`
naming the plugin, the hook and the game; the games recorded before it are kept, so
the same command resumes once the plugin is fixed.

This module only opens the run; its parts live one job to a module: `trial_config`
(the options, validated), `trial_folder` (the folder's files, its lock, the same-trial
check), `seats` (the trial's seats from name to close), `run_context` (the world of each
game), `game_loop`, `snapshot` and `resume`, `novelty_reports`, `plugin_errors`, and
`summary`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from openmono.schema import rules_schema

from evaluation.harness.game_loop import _run
from evaluation.harness.hook_watch import HookWatch
from evaluation.harness.novelty_setup import Applied, prepare_novelty
from evaluation.harness.plugin_errors import PluginError, _hook_codes  # noqa: F401 - the API
from evaluation.harness.run_context import RunContext, injection_game
from evaluation.harness.seats import _act_codes, build_seats, seats_open
from evaluation.harness.trial_config import TrialConfig, TrialError  # noqa: F401 - the API
from evaluation.harness.trial_folder import (check_writable, complete_summary,  # noqa: F401
                                             trial_lock)
from evaluation.store.seal import KeyProblem, snapshot_key

# `run_trial`, `complete_summary`, `PluginError`, `TrialConfig` and `TrialError` are the
# harness's Python API (docs/api/trials.md) and stay importable from here.


def run_trial(cfg: TrialConfig, out_dir: str | os.PathLike[str],
              on_game: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play (or resume) a trial into `out_dir`; returns the summary dict."""
    cfg.validate()
    try:
        snapshot_key()
    except KeyProblem as exc:
        raise TrialError(str(exc)) from None
    out = Path(out_dir)
    with trial_lock(out):
        return _run_locked(cfg, out, on_game)


def _run_locked(cfg: TrialConfig, out: Path,
                on_game: Callable[[dict[str, Any]], None] | None) -> dict[str, Any]:
    check_writable(out)
    base = rules_schema(cfg.rules)
    novelty: Applied | None = None
    if cfg.novelty is not None:
        novelty = prepare_novelty(cfg.novelty, cfg.difficulty, cfg.novelty_params, base,
                                  then=cfg.then)
    inject = injection_game(cfg)
    shown = None
    if novelty is not None and cfg.observability == "effects":
        from novelties.observability import shown_schema

        shown = shown_schema(base, novelty.schema)
    seats = build_seats(cfg)
    with seats_open(seats):
        watch = HookWatch(cfg.hook_budget, _hook_codes(novelty.hooks if novelty else None),
                          cfg.decision_budget, _act_codes(seats.seated()))
        run = RunContext(cfg, out, base, novelty, inject, shown, on_game)
        with watch:  # (a hook past its budget raises HookTimeout inside it)
            return _run(run, seats)
