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
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from agents.base import Agent
from agents.planner.detect import NoveltyDetector
from agents.registry import AGENTS, make_agent
from evaluation.measures import metrics
from evaluation.store.atomic import atomic_write
from evaluation.measures.detection_bands import band_table, load_cells
from evaluation.store.folder_lock import FolderRefused, folder_lock
from evaluation.harness.runner import (CONFIG_FILE, GAMES_FILE, TrialConfig, TrialError,
                                       agent_label, complete_summary, read_identity, read_records,
                                       redact, run_trial)
from novelties.base import CATEGORIES, DIFFICULTIES
from openmono_cli import (Options, games_field, out_field, progress_field, read_options,
                          seed_field, workers_field)
from openmono.schema import RULE_SETS

PAPER_NDA = {  # planner paper, Table 1 (the agent's NDA, %)
    ("class", "easy"): 40.0, ("class", "medium"): 46.67, ("class", "hard"): 48.0,
    ("attribute", "easy"): 90.32, ("attribute", "medium"): 90.0, ("attribute", "hard"): 75.0,
    ("representation", "easy"): 52.0, ("representation", "medium"): 32.0,
    ("representation", "hard"): 32.0,
}
# The same table's "NRP" column: the agent's post-novelty win percentage (%), and its
# pre-novelty win percentage (PNWP, no novelty) 76.48.
PAPER_WIN = {
    ("class", "easy"): 71.13, ("class", "medium"): 64.89, ("class", "hard"): 28.90,
    ("attribute", "easy"): 70.47, ("attribute", "medium"): 94.43, ("attribute", "hard"): 61.50,
    ("representation", "easy"): 74.99, ("representation", "medium"): 78.10,
    ("representation", "hard"): 81.58,
}
PAPER_PNWP = 76.48
SHORT = {"class": "CN", "attribute": "AN", "representation": "RN"}
MARK = ".made-by-sweep"  # in every folder a sweep made: what --fresh may delete
SWEEP_FILES = ("sweep.json", "sweep.md")


# --- an agent that plays like another one and reports what the detector finds ------------------
class DetectingAgent(Agent):
    """Plays as `inner` (a registered agent) while a `NoveltyDetector` watches its seat."""

    def __init__(self, inner: str = "baseline", **params: Any) -> None:
        super().__init__()
        self.inner = make_agent(inner, **params)
        self.detector = NoveltyDetector()
        self.name = f"detect_{inner}"

    def seed(self, seed: int) -> None:
        super().seed(seed)
        fn = getattr(self.inner, "seed", None)
        if fn is not None:
            fn(seed)

    def begin_game(self, seat: int, observation: Any) -> None:
        super().begin_game(seat, observation)
        fn = getattr(self.inner, "begin_game", None)
        if fn is not None:
            fn(seat, observation)
        self.detector.observe(observation)

    def act(self, observation: Any) -> Any:
        self.detector.observe(observation)
        return self.inner.act(observation)

    def end_game(self, result: Any) -> None:
        fn = getattr(self.inner, "end_game", None)
        if fn is not None:
            fn(result)
        self.detector.end_game(result)

    def novelty_report(self) -> Any:
        return self.detector.report()

    def novelty_announced(self) -> None:
        self.detector.announce()


def register(name: str) -> None:
    """Make `detect_<inner>` available to `make_agent` (this process and its workers)."""
    if name.startswith("detect_") and name not in AGENTS:
        inner = name[len("detect_"):]
        AGENTS[name] = lambda **params: DetectingAgent(inner, **params)


register("detect_baseline")


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
         opponents_view: str = "informed") -> list[dict[str, Any]]:
    """Trial specs: per category x difficulty, novelties cycled in a seeded order; with
    `cells` (plugin, preset), `per_cell` trials of each of those cells instead. Under
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
                chosen = [n for n in names for _ in range(per_cell)]
            elif names:
                random.Random(f"{seed}:{category}:{difficulty}").shuffle(names)
                chosen = [names[i % len(names)] for i in range(per_cell)]
            else:
                chosen = []
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
        acc, prec = metrics.characterization_scores(truth, metrics.final_report_changes(records))
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


# --- tables -----------------------------------------------------------------------------------
def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _row(label: str, agg: dict[str, Any], acc: float | None, paper: str,
         paper_win: str = "-") -> str:
    ci = f" ({_pct(agg['nda_lo'])}-{_pct(agg['nda_hi'])})" if agg["nda_lo"] is not None else ""
    delay = "-" if agg["detection_delay"] is None else f"{agg['detection_delay']:.2f}"
    nrp = "-" if agg["nrp"] is None else f"{agg['nrp']:.2f}"
    if agg["nrp_lo"] is not None:
        nrp += f" ({agg['nrp_lo']:.2f}-{agg['nrp_hi']:.2f})"
    win = _pct(agg["post_win_rate"])
    if agg.get("post_win_rate_lo") is not None:
        win += f" ({_pct(agg['post_win_rate_lo'])}-{_pct(agg['post_win_rate_hi'])})"
    return (f"| {label} | {agg['novelty_trials']} | {_pct(agg['nda'])}{ci} | "
            f"{_pct(agg['nda_characterized'])} | {paper} | "
            f"{_pct(agg['false_positive_rate'])} | {delay} | {_pct(acc)} | {nrp} | "
            f"{win} | {paper_win} |")


def _accuracy(rs: list[dict[str, Any]]) -> float | None:
    return _mean([r["char_accuracy_values"] for r in rs
                  if r.get("char_accuracy_values") is not None])


def tables(results: list[dict[str, Any]]) -> tuple[str, str, dict[str, Any]]:
    """(cell table, per-novelty table, aggregates) in markdown."""
    controls = [r for r in results if r["sweep_category"] == "control"]
    novelty_trials = [r for r in results if r["sweep_category"] != "control"]
    rows = ["| Class | Trials | NDA % (95% CI) | NDA+char. % | Paper NDA % | FP % "
            "| Delay (games) | Char. acc. % | NRP, pooled (95% CI) | Post-novelty win % (95% CI) "
            "| Paper win % |",
            "|---|---:|---|---:|---:|---:|---:|---:|---|---|---:|"]
    totals: dict[str, Any] = {}
    for category in CATEGORIES:
        for difficulty in DIFFICULTIES:
            cell = [r for r in novelty_trials if r["sweep_category"] == category
                    and r["sweep_difficulty"] == difficulty]
            if cell:
                agg = metrics.aggregate(cell)
                totals[f"{category}-{difficulty}"] = agg
                rows.append(_row(f"{SHORT[category]}-{difficulty}", agg, _accuracy(cell),
                                 f"{PAPER_NDA[(category, difficulty)]:.1f}",
                                 f"{PAPER_WIN[(category, difficulty)]:.1f}"))
    if novelty_trials:
        agg = totals["all"] = metrics.aggregate(novelty_trials)
        rows.append(_row("all novelties", agg, _accuracy(novelty_trials), "-"))
    if controls:
        agg = totals["control"] = metrics.aggregate(controls)
        fp = _pct(agg["false_positive_rate"])
        if agg.get("false_positive_rate_lo") is not None:
            fp += f" ({_pct(agg['false_positive_rate_lo'])}-{_pct(agg['false_positive_rate_hi'])})"
        rows.append(f"| control (no novelty) | {agg['trials']} | - | - | - | "
                    f"{fp} | - | - | - | pre-novelty {_pct(agg['pnwp'])} | "
                    f"PNWP {PAPER_PNWP:.1f} |")
    if results:
        totals["fp_all_trials"] = metrics.aggregate(results)
    per = ["| Novelty | Category | Difficulty | Trials | Detected | Mean delay | Char. acc. % |",
           "|---|---|---|---:|---:|---:|---:|"]
    keys = sorted({(r["sweep_category"], r["novelty"], r["sweep_difficulty"])
                   for r in novelty_trials},
                  key=lambda k: (CATEGORIES.index(k[0]), k[1], DIFFICULTIES.index(k[2])))
    for category, name, difficulty in keys:
        rs = [r for r in novelty_trials if r["novelty"] == name
              and r["sweep_difficulty"] == difficulty]
        det = sum(1 for r in rs if r["nda"])
        delays = [r["detection_delay"] for r in rs if r["detection_delay"] is not None]
        mean_delay = "-" if not delays else f"{sum(delays) / len(delays):.1f}"
        per.append(f"| {name} | {SHORT[category]} | {difficulty} | {len(rs)} | "
                   f"{det}/{len(rs)} | {mean_delay} | {_pct(_accuracy(rs))} |")
    return "\n".join(rows), "\n".join(per), totals


# --- what the sweep made, and fresh=true ---------------------------------------------------------
def mark_trial_folders(out: Path, specs: list[dict[str, Any]]) -> None:
    """Mark the sweep folder and each trial folder this sweep creates (a folder that is
    already there stays as it is: this sweep did not make it)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / MARK).touch()
    for spec in specs:
        where = trial_for(spec, str(out))[0]
        if not where.exists():
            where.mkdir(parents=True)
            (where / MARK).touch()


def _own_folders(out: Path, specs: list[dict[str, Any]], agent: str) -> set[Path]:
    """The trial folders this sweep plays (`specs`), and those a previous run of this same
    sweep (its `sweep.json` in `out`, for the same agent) played: nothing else under
    `out` is this sweep's, whatever marks it holds."""
    own = {trial_for(spec, str(out))[0] for spec in specs}
    try:
        saved = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
        if saved["args"]["agent"] == agent:
            for t in saved["trials"]:
                name = t["novelty"] if t["novelty"] is not None else "none"
                own.add(out / t["sweep_category"] / (t["sweep_difficulty"] or "none")
                        / f"{name}-{int(t['seed'])}")
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no earlier run of this sweep here (or not one this tool wrote)
    return {p for p in own if out in p.parents}


def _not_ours(folder: Path, agent: str, params: dict[str, Any]) -> str | None:
    """Why `folder` is not this sweep's to delete (None: it is): it must carry the mark
    a sweep leaves in what it makes, and its trial (if one started) this sweep's agent."""
    if not (folder / MARK).exists():
        return (f"{folder} holds no {MARK} mark (made by hand, or by an older openmono)")
    try:
        ident = read_identity(folder / CONFIG_FILE)
    except TrialError:
        ident = {}
    if ident is not None and (ident.get("agent"), ident.get("agent_params")) != (
            agent, redact(params)):
        theirs = agent_label(str(ident.get("agent")), dict(ident.get("agent_params") or {}))
        mine = agent_label(agent, params)
        return f"{folder} holds a trial of {theirs}, not of this sweep's {mine}"
    return None


def clear_fresh(out: Path, specs: list[dict[str, Any]], agent: str,
                params: dict[str, Any] | None = None) -> str | None:
    """fresh=true: delete this sweep's own trial folders under `out` (`_own_folders`:
    identified by their place and their trial's agent, not by a mark anyone can copy)
    and its sweep.json and sweep.md, nothing else; a folder in their place that is not
    this sweep's is refused (the problem, in one line) before anything is deleted."""
    if not out.exists():
        return None
    params = params or {}
    own = sorted(p for p in _own_folders(out, specs, agent) if p.exists())
    for folder in own:
        why = _not_ours(folder, agent, params)
        if why:
            return (f"fresh=true deletes only this sweep's own trials, and {why}: delete "
                    "it yourself or choose another out=")
    sweep_files = (out / MARK).exists() and _saved_agent(out) in (None, agent)
    for folder in own:
        shutil.rmtree(folder)
        parent = folder.parent
        while parent != out and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()  # a category or difficulty folder left empty
            parent = parent.parent
    if sweep_files:
        for name in SWEEP_FILES:
            (out / name).unlink(missing_ok=True)
    return None


def _saved_agent(out: Path) -> Any:
    """The agent of the sweep saved in `out` (None: none saved, or unreadable)."""
    try:
        return json.loads((out / "sweep.json").read_text(encoding="utf-8"))["args"]["agent"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


DRL_AGENTS = ("ppo", "hybrid_ppo", "ddqn", "hybrid_ddqn")


def detector_text(agent: str) -> str:
    """What detects for `agent`: the DRL agents' own surprise test, else the planner's."""
    if agent in DRL_AGENTS:
        return (
            f"`{agent}` reports with its own detectors (`detector=model`, the default): a "
            "model of what the table shows (`agents/drl/outcomes.py`: each outcome it "
            "observes filed by its context, learned in play; two contradictions raise the "
            "alarm) and, beside it, one-sided CUSUMs on its network's per-game prediction "
            "error and mean dense reward (`agents/drl/surprise.py`). Both calibrate on the "
            "trial's first 15 games, so trials need to be long enough for the injection to "
            "come after the calibration.")
    return (
        "The detector (`agents/planner/detection/`) compares the believed rules with the "
        "public rules shown (a visible change is reported at the first decision of the "
        "injected game), with every event (rents, taxes, salaries, fees, card effects and "
        "draws, moves, payments for unknown reasons, refused builds, games ended by a "
        "rule), with a replica of the public state rebuilt from the events (hidden or "
        "noisy cash, hidden assets and events), and tests the dice with a "
        "Bonferroni-corrected chi-square at each game end (false-alarm budget 1% per "
        "100-game trial; a rejection counts only when the estimated dice differ from the "
        "believed ones). Under `effects` it learns only from outcomes, and its own refused "
        "actions are evidence too. `planner` has the detector built in and, by default, adapts: it "
        "values the game by the rules the detector believes. `detect_<agent>` plays as "
        "`<agent>` with the detector only watching and reporting (no adaptation).")


def _calibration_games() -> int:
    from agents.drl.surprise import CALIBRATION_GAMES

    return CALIBRATION_GAMES


def short_for_detector(args: Any) -> bool:
    """Whether a DRL agent's surprise detector is still calibrating at the earliest injection."""
    return args.agent in DRL_AGENTS and int(args.window[0] * args.games) < _calibration_games()


def agent_name(args: Any) -> str:
    """The sweep's agent as its tables name it, with its options (`planner(adapt=False)`);
    saved sweeps from before `params` have none."""
    from evaluation.harness.runner import agent_label

    return agent_label(args.agent, dict(getattr(args, "params", None) or {}))


def report_text(args: Any, cell: str, per: str, totals: dict[str, Any],
                results: list[dict[str, Any]], seconds: float,
                command: str | None = None, cells: dict | None = None) -> str:
    command = command or " ".join(["python -m evaluation.detection_sweep",
                                   *_without_secrets(sys.argv[1:])])
    n_trials = len(results)
    seeds = f"{args.seed}-{args.seed + n_trials - 1}"
    ctl = totals.get("control") or {}
    fp_all = totals.get("fp_all_trials") or {}
    level = getattr(args, "observability", None) or "announced"
    name = agent_name(args)
    title = (f"### `{name}`, control trials only" if not args.per_cell
             else f"### `{name}`, novelties `{level}`")
    lines = [
        title,
        "",
        "```",
        command,
        "```",
        "",
        f"Agent `{name}` against three `baseline` agents, novelties "
        f"`{getattr(args, 'observability', 'announced')}` (docs/detection.md); "
        + ("" if getattr(args, "rules", "standard") == "standard"
           else f"rules `{args.rules}` (docs/rules.md); ") +
        f"{args.games}-game trials, the "
        f"novelty injected at a game drawn from [{args.window[0]}, {args.window[1]}] of the "
        f"trial and kept; "
        + (f"{args.per_cell} trial(s) of each chosen cell (cells=[{','.join(args.cells)}]), "
           if getattr(args, "cells", None) else
           f"{args.per_cell} trials per category x difficulty with novelties drawn from the "
           "catalogue in a seeded order that cycles through the category, ") +
        f"plus {args.controls} control trials; trial seeds {seeds} (in that order: CN, AN, RN x "
        f"easy, medium, hard, then controls). {n_trials} trials in {seconds:.0f} s wall clock "
        + (f"on Ray (ray={args.ray}, {args.workers} CPUs for a local cluster)."
           if getattr(args, "ray", None) else f"with {args.workers} worker(s)."),
        "",
        detector_text(args.agent),
        "",
        "NDA: share of novelty trials whose first report comes at or after the injection "
        "game; FP: share of trials with a report before the injection (any report in a "
        "control trial); delay: games from injection to the first report (0 = reported "
        "after the injection game itself). Characterization accuracy: share of the ground "
        "truth's changes matched by the final report (entity, attribute and value within "
        "10%; see `evaluation.metrics.change_matches`). NRP: post-novelty win rate over "
        "`baseline`'s pre-novelty win rate on the same seeds.",
        "",
        cell,
        "",
        _fp_sentence(ctl, fp_all),
        "",
        "Per measured-detectability band (`evaluation.detection_bands`, the ideal observer's "
        "expected decisions until detection under `effects`, from "
        "`novelties/data/measured.json`):",
        "",
        band_table(results, load_cells() if cells is None else cells),
        "",
        "<details><summary>Per novelty</summary>",
        "",
        per,
        "",
        "</details>",
    ]
    return "\n".join(lines)


def saved_args(saved: dict[str, Any], args: Any = None) -> Any:
    """The arguments a saved sweep ran with (older files lack `observability`: it is
    read off the trials)."""
    args = args if args is not None else SimpleNamespace()
    for key, value in saved["args"].items():
        setattr(args, key, tuple(value) if key == "window" else value)
    if "observability" not in saved["args"]:
        levels = {t.get("observability") for t in saved["trials"]} - {None}
        args.observability = levels.pop() if len(levels) == 1 else "announced"
    if "opponents_view" not in saved["args"]:  # from before the option: shown
        args.opponents_view = "shown"
    return args


def render_saved(saved: dict[str, Any], args: Any = None,
                 cells: dict | None = None) -> str:
    """The report of a saved sweep (`sweep.json`)."""
    args = saved_args(saved, args)
    cell, per, totals = tables(saved["trials"])
    return report_text(args, cell, per, totals, saved["trials"], saved["seconds"],
                       saved["command"], cells=cells)


def _fp_sentence(ctl: dict[str, Any], fp_all: dict[str, Any]) -> str:
    def rate(agg: dict[str, Any]) -> str:
        n = agg.get("false_positive_rate_n", 0)
        if not n:
            return "-"
        k = round(agg["false_positive_rate"] * n)
        return (f"{k}/{n} = {_pct(agg['false_positive_rate'])}% (Wilson 95% "
                f"{_pct(agg['false_positive_rate_lo'])}-{_pct(agg['false_positive_rate_hi'])}%)")

    return (f"False positives: control trials {rate(ctl)}; all trials (a report before the "
            f"injection) {rate(fp_all)}.")


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


def _without_secrets(argv: list[str]) -> list[str]:
    """The command line as recorded in sweep.json and sweep.md: the token hidden."""
    out, hide = [], False
    for arg in argv:
        if hide:
            out.append("***")
            hide = False
        elif arg == "--remote-token":
            out.append(arg)
            hide = True
        elif arg.startswith("--remote-token="):
            out.append("--remote-token=***")
        elif arg.lstrip("+").startswith("remote_token="):
            out.append("remote_token=***")
        else:
            out.append(arg)
    return out


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
                 args.opponents_view)
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
                                                     "rules", "cells")}}
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
