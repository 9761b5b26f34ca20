"""The detection sweep's trials, played: one trial folder per spec (a finished one is read,
not replayed), in one or two processes or as Ray tasks, each summary with what the
sweep's tables need."""

from __future__ import annotations

import sys
import time
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig
from evaluation.harness.trial_folder import (CONFIG_FILE, GAMES_FILE, complete_summary,
                                             read_identity, read_records)
from evaluation.measures.characterization import characterization_scores, final_report_changes
from evaluation.sweeps.detecting_agent import register


def _truth(novelty: str, difficulty: str, rules: str = "standard") -> list[dict[str, Any]]:
    from evaluation.harness.novelty_setup import prepare_novelty
    from openmono.schema import rules_schema

    setup = prepare_novelty(novelty, difficulty, {}, rules_schema(rules))
    return list(setup.ground_truth)


def trial_for(spec: dict[str, Any], out: str) -> tuple[Path, TrialConfig]:
    """Where a spec's trial lives and what it plays."""
    register(spec["agent"])
    observability = spec.get("observability", "announced")
    where = Path(out) / spec["category"] / (spec["difficulty"] or "none") / (
        f"{spec['novelty'] or 'none'}-{spec['seed']}")
    cfg = TrialConfig(agent=spec["agent"], agent_params=dict(spec.get("agent_params") or {}),
                      novelty=spec["novelty"],
                      difficulty=spec["difficulty"] or "medium", observability=observability,
                      opponents_view=spec.get("opponents_view", "shown"),
                      games=spec["games"], rules=spec.get("rules", "standard"),
                      seed=spec["seed"], window=tuple(spec["window"]), progress=False,
                      keep_logs="none")  # thousands of trials: no game logs
    return where, cfg


def finish(spec: dict[str, Any], summary: dict[str, Any], where: Path,
           seconds: float) -> dict[str, Any]:
    """The trial's summary with what the sweep's tables need."""
    summary["wall_seconds"] = seconds
    if spec["novelty"] is not None:  # the preset as run (presets get re-tuned)
        from novelties.registry import load_novelty

        played = (read_identity(where / CONFIG_FILE) or {}).get("novelty_preset")
        summary["novelty_params"] = played if played is not None else load_novelty(
            spec["novelty"], spec["difficulty"] or "medium")[1].model_dump(mode="json")
    summary["sweep_category"] = spec["category"]
    summary["sweep_difficulty"] = spec["difficulty"]
    if spec["novelty"] is not None:
        records = read_records(where / GAMES_FILE)
        truth = _truth(spec["novelty"], spec["difficulty"], spec.get("rules", "standard"))
        acc, prec = characterization_scores(truth, final_report_changes(records))
        summary["char_accuracy_values"] = acc
        summary["char_precision_values"] = prec
    return summary


def run_one(spec: dict[str, Any], out: str) -> dict[str, Any]:
    where, cfg = trial_for(spec, out)
    t0 = time.perf_counter()
    from evaluation.reports.report import write_report
    from evaluation.store.report_files import report_current

    done = complete_summary(cfg, where)  # a finished trial is read, not replayed
    if done is not None:
        if not report_current(where):  # killed before its report was written
            write_report(str(where), done, plots=False)
        return finish(spec, done, where, done.get("seconds", 0.0))
    summary = run_trial(cfg, where)
    seconds = time.perf_counter() - t0
    write_report(str(where), summary, plots=False)  # its report.html, for compare.html
    return finish(spec, summary, where, seconds)


def run_on_ray(specs: list[dict[str, Any]], out: str, address: str,
               cpus_per_trial: float = 1.0, num_cpus: int | None = None) -> list[dict[str, Any]]:
    """The same trials as Ray tasks (`ray=ADDRESS`); their files come home into `out`."""
    from functools import partial

    from evaluation.trials.ray_trials import RayOptions, RemoteTrial, run_trials, summary_at_home

    placed = [trial_for(s, out) for s in specs]
    trials = [RemoteTrial(where, cfg, setup=partial(register, cfg.agent))
              for where, cfg in placed]
    options = RayOptions(address=None if address == "local" else address,
                         cpus_per_trial=cpus_per_trial, num_cpus=num_cpus)
    outcome = run_trials(trials, options)
    results = []
    for spec, (where, _) in zip(specs, placed):
        summary = summary_at_home(where)
        if outcome.get(where) != "complete" or summary is None:
            raise SystemExit(f"error: {where}: {outcome.get(where)}; re-run the same command "
                             "to resume")
        results.append(finish(spec, summary, where, summary.get("seconds", 0.0)))
    return results


MAX_WORKERS = 2  # processes a sweep plays in without Ray


def _run_one_star(args: tuple[dict[str, Any], str]) -> dict[str, Any]:
    return run_one(*args)


def run_sweep(specs: list[dict[str, Any]], out: str, workers: int,
              progress: bool = True) -> list[dict[str, Any]]:
    from tqdm import tqdm

    jobs = [(s, out) for s in specs]
    results = []
    with tqdm(total=len(jobs), unit="trial", desc="detection sweep", file=sys.stderr,
              mininterval=1.0, disable=not progress) as bar:
        if workers <= 1:
            for job in jobs:
                results.append(run_one(*job))
                bar.update(1)
            return results
        with get_context("fork").Pool(processes=min(workers, 2)) as pool:
            for res in pool.imap_unordered(_run_one_star, jobs):
                results.append(res)
                bar.update(1)
    return results
