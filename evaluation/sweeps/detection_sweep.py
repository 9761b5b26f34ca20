"""Novelty-detection sweep: NDA, false-positive rate and delay per category x difficulty.

    python -m evaluation.detection_sweep                       # the planner's detector
    python -m evaluation.detection_sweep agent=detect_baseline # on baseline play
    python -m evaluation.detection_sweep per_cell=20 controls=20 games=30 seed=0 workers=2

For every category (class, attribute, representation) and difficulty (easy, medium,
hard) it runs `per_cell` short SAIL-ON trials (`evaluation.harness.runner.run_trial`: the agent
against three `baseline` agents, the novelty injected at a game drawn from `window`
and kept), drawing the novelties from the catalogue in a seeded order that cycles
through the whole category, plus `controls` trials without a novelty for the
false-positive rate. Trials are pooled with `evaluation.measures.metrics.aggregate`; the table is
printed next to the planner paper's NDA (AN 75-90%, CN 40-48%, RN 32-52%) and saved
(`sweep.json`, `sweep.md`) in the output folder. The old `--per-cell 20` spelling is
still read, with a note.

The default agent is `planner`, which has the detector built in and adapts to what it
detects; `detect_<name>` wraps any registered agent with the detector watching its seat
(reporting only, no adaptation), e.g. `detect_baseline`.

This module is the command (its options, their checks, the run); the sweep's parts
live one job to a module: `detecting_agent`, `detection_plan` (which trials),
`detection_trials` (playing them), `detection_tables`, `detection_report` and
`detection_folders` (what a sweep made, and fresh=true).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from agents.registry import AGENTS, make_agent
from evaluation.store.atomic import atomic_write
from evaluation.store.folder_lock import FolderRefused, folder_lock
from evaluation.sweeps.detecting_agent import register
from evaluation.sweeps.detection_folders import clear_fresh, mark_trial_folders
from evaluation.sweeps.detection_plan import chosen_cells, plan
# (`saved_args`, `agent_name` and `render_saved` are named here too for the detection study.)
from evaluation.sweeps.detection_report import (_calibration_games, _without_secrets,  # noqa: F401
                                                agent_name, render_saved, report_text,
                                                saved_args, short_for_detector)
from evaluation.sweeps.detection_tables import tables
from evaluation.sweeps.detection_trials import MAX_WORKERS, run_on_ray, run_sweep
from openmono_cli import (Options, games_field, out_field, progress_field, read_options,
                          seed_field, workers_field)
from openmono.schema import RULE_SETS


class SweepOptions(Options):
    """Novelty-detection sweep: NDA, false-positive rate and delay per category x difficulty."""

    # (not frozen: an `agent=remote` sweep reads its token into it, and plays with 1 worker)
    model_config = ConfigDict(frozen=False)
    agent: str = Field("planner", description="evaluated agent (a registered name, or "
                       "detect_<name>)")
    params: dict[str, Any] = Field({}, description="a constructor option of the agent for "
                                   "every trial, e.g. params.adapt=false (the planner "
                                   "without adaptation)")
    per_cell: int = Field(20, ge=0, description="novelty trials per category x difficulty "
                          "(with cells=: per cell)")
    cells: list[str] | None = Field(None, description="only these plugin:preset cells, e.g. "
                                    "[cash_cap:hard,late_rent:hard]; [hardest]: every cell "
                                    "of the hardest measured band (> 1000 decisions to see, "
                                    "or never seen); [bites]: every preset flagged bites")
    spread: bool = Field(False, description="with cells=: per_cell trials per category x "
                         "difficulty that has chosen cells, cycling through them, instead of "
                         "per_cell trials of each cell")
    controls: int = Field(20, ge=0, description="trials without a novelty")
    games: int = games_field(30, "games per trial")
    window: list[float] = Field([0.3, 0.6], min_length=2, max_length=2,
                               description="injection window (fractions of the trial)")
    observability: Literal["announced", "effects"] = Field(
        "announced", description="what agents are shown of a novelty (docs/detection.md)")
    opponents_view: Literal["informed", "shown"] = Field(
        "informed", alias="novelty.opponents", description="under effects, what the "
        "opponents are shown: informed (the true rules) or shown (the old ones; sweeps from "
        "before the option resume with it)")
    seed: int = seed_field(what="first trial seed")
    rules: str = Field("standard", description=f"the rule set every trial starts from "
                       f"({', '.join(RULE_SETS)})")
    workers: int = workers_field(2, "processes (at most 2); with ray=local, the local "
                                 "cluster's CPUs")
    ray: str | None = Field(None, description="run the trials as Ray tasks: local, auto (the "
                            "running cluster) or host:port; results come home to out")
    cpus_per_trial: float = Field(1.0, gt=0, description="CPUs each trial asks of Ray")
    remote_port: int = Field(7300, description="agent=remote: the port its client connects to")
    remote_token: str = Field("", description="agent=remote: the seat's token (default: "
                              "$OPENMONO_TOKEN)")
    remote_token_file: str | None = Field(None, description="agent=remote: a file holding the "
                                          "seat's token (kept off the recorded command line)")
    remote_host: str = Field("127.0.0.1", description="agent=remote: the address")
    out: str | None = out_field(None, "output directory (null: "
                                "outputs/detection_sweep/AGENT)")
    fresh: bool = Field(False, description="delete this sweep's own trials first "
                        "(not other sweeps or files in out)")
    render: bool = Field(False, description="only re-render the tables from the output "
                         "directory's sweep.json")
    progress: bool = progress_field()

    @field_validator("window")
    @classmethod
    def _fractions(cls, window: list[float]) -> list[float]:
        if not 0 <= window[0] <= window[1] <= 1:
            raise ValueError("must be two fractions [lo,hi] with 0 <= lo <= hi <= 1")
        return window


def _check_args(args: Any) -> str | None:
    """The first bad value, checked before any folder is made (None: all good)."""
    if args.ray is not None:
        from evaluation.harness.launchers import problem

        why = problem("ray")
        if why:
            return why.replace("hydra/launcher=ray", "ray=")
    if args.rules not in RULE_SETS:
        return f"unknown rules {args.rules!r}; valid: {', '.join(RULE_SETS)}"
    if args.out is not None and not args.out.strip():
        return ("out is empty: name a folder, e.g. out=outputs/my-sweep (or leave out= out "
                f"for outputs/detection_sweep/{args.agent})")
    if args.ray is None and args.workers > MAX_WORKERS:
        return (f"workers={args.workers} is more than the {MAX_WORKERS} processes a sweep "
                "plays in here; use workers=1 or 2, or ray=local for more")
    if not 1 <= args.remote_port <= 65535:
        return f"remote_port must be a port number in 1..65535, got {args.remote_port}"
    if args.per_cell + args.controls == 0:
        return "per_cell and controls are both 0: nothing to run"
    if args.cells is not None:
        try:
            chosen_cells(args.cells)
        except ValueError as exc:
            return str(exc)
    if args.params:
        why = _params_problem(args.agent, dict(args.params))
        if why:
            return why
    out = Path(args.out or f"outputs/detection_sweep/{args.agent}")
    probe = out
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        return f"cannot write to the output directory {str(out)!r}"
    return None


def _params_problem(agent: str, params: dict[str, Any]) -> str | None:
    """Whether the agent takes `params` (built once to find out), as one line."""
    from evaluation.harness.config_store import agent_defaults

    try:
        make_agent(agent, **params)
    except (TypeError, ValueError) as exc:
        known = ", ".join(sorted(agent_defaults(AGENTS[agent]))) or "none"
        return f"agent {agent!r} does not take params {params} ({exc}); its options: {known}"
    return None


def _remote_problem(args: Any) -> str | None:
    """agent=remote: a token from somewhere, and an address this machine can listen
    on (probed without sending anything), checked before any folder is made."""
    from agents.remote.server import RemoteError, probe_listen
    from agents.remote.tokens import read_token_file

    if args.remote_token_file:
        try:
            args.remote_token = read_token_file(args.remote_token_file, "remote_token_file")
        except ValueError as exc:
            return str(exc)
    args.remote_token = args.remote_token or os.environ.get("OPENMONO_TOKEN", "")
    if not args.remote_token:
        return ("agent=remote needs a token: remote_token_file=PATH, $OPENMONO_TOKEN or "
                "remote_token=")
    try:
        probe_listen(args.remote_host, args.remote_port)
    except RemoteError as exc:
        return str(exc)
    return None


def main(argv: list[str] | None = None) -> int:
    args = read_options(SweepOptions, argv, "python -m evaluation.detection_sweep")
    if isinstance(args, int):
        return args
    register(args.agent)
    from agents.registry import UnknownAgentError, resolve

    try:
        resolve(args.agent)
    except UnknownAgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    problem = None if args.render else _check_args(args)
    if not args.render and not problem and args.per_cell and short_for_detector(args):
        print(f"warning: `{args.agent}` calibrates its detector on its first "
              f"{_calibration_games()} games, and games={args.games} window="
              f"[{args.window[0]},{args.window[1]}] can inject before that: it will rarely "
              "detect; use games=100 (or a later window)", file=sys.stderr)
    if args.agent == "remote" and not args.render and not problem:
        problem = _remote_problem(args)
        args.workers = 1  # one port: the trials take turns with the client
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    out = Path(args.out or f"outputs/detection_sweep/{args.agent}")
    if args.render:
        try:
            saved = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
            text = render_saved(saved, args)
        except FileNotFoundError:
            print(f"error: no {out / 'sweep.json'}: run the sweep first (without render=true), "
                  "or name its folder with out=", file=sys.stderr)
            return 2
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            print(f"error: cannot render {out / 'sweep.json'}: it is not a sweep this tool "
                  f"wrote ({type(exc).__name__}); run the sweep again", file=sys.stderr)
            return 2
        print(text)
        return 0
    try:
        with folder_lock(out, "detection sweep", reentrant=False):
            return _sweep(args, out, sys.argv[1:] if argv is None else argv)
    except FolderRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _sweep(args: Any, out: Path, argv: list[str]) -> int:
    """The sweep proper, with `out` held by this process (`argv`: its command line)."""
    specs = plan(args.per_cell, args.controls, args.seed, args.games, tuple(args.window),
                 args.agent, args.observability, args.rules,
                 None if args.cells is None else chosen_cells(args.cells),
                 args.opponents_view, args.spread)
    if args.fresh:
        params = (dict(args.params or {}) if args.agent != "remote" else
                  {"port": args.remote_port, "token": args.remote_token,
                   "host": args.remote_host})
        problem = clear_fresh(out, specs, args.agent, params)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    mark_trial_folders(out, specs)
    print(f"{len(specs)} trials -> {out}", file=sys.stderr)
    t0 = time.perf_counter()
    if args.params:
        for spec in specs:
            spec["agent_params"] = dict(args.params)
    if args.agent == "remote":
        for spec in specs:  # the client serves each trial in turn (serve --forever)
            spec["agent_params"] = {"port": args.remote_port, "token": args.remote_token,
                                    "host": args.remote_host}
    if args.ray is not None:
        results = run_on_ray(specs, str(out), args.ray, args.cpus_per_trial,
                             args.workers if args.ray == "local" else None)
    else:
        results = run_sweep(specs, str(out), args.workers, args.progress)
    seconds = time.perf_counter() - t0
    cell, per, totals = tables(results)
    command = " ".join(["python -m evaluation.detection_sweep",
                        *_without_secrets(argv)])
    text = report_text(args, cell, per, totals, results, seconds, command)
    print(text)
    saved = {"command": command, "seconds": seconds, "trials": results,
             "args": {k: getattr(args, k) for k in ("agent", "params", "per_cell", "controls",
                                                     "games", "window", "seed", "workers",
                                                     "observability", "opponents_view",
                                                     "rules", "cells", "spread")}}
    atomic_write(out / "sweep.json", json.dumps(saved, indent=1, default=str) + "\n")
    atomic_write(out / "sweep.md", text + "\n")
    from evaluation.reports import compare

    try:
        summaries = compare.find_summaries([str(out)])
    except compare.SummaryError as exc:  # a trial under out= that is not as written
        print(f"error: {exc} (sweep.json and sweep.md are written, compare.html is not)",
              file=sys.stderr)
        return 2
    compare.write_outputs(compare.compare(summaries), out, summaries)  # compare.html
    return 0


if __name__ == "__main__":
    sys.exit(main())
