"""The trial's summary (`summary.json`): the measures of its records
(`evaluation.measures.metrics`) with what names the trial; and the same summary worked
out again from a finished folder, for `evaluation.verify`."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

from openmono.schema import rules_schema

from evaluation.harness.novelty_setup import Applied, prepare_novelty
from evaluation.harness.run_context import injection_game
from evaluation.harness.trial_config import TrialConfig, TrialError, redact
from evaluation.harness.trial_folder import SUMMARY_FILE
from evaluation.measures import metrics
from evaluation.store.atomic import atomic_write


def summarize(cfg: TrialConfig, records: list[dict[str, Any]], inject: int | None,
              novelty: Applied | None) -> dict[str, Any]:
    reference_records = [
        {"game": r["game"], "seed": r["seed"], "won": r["reference_won"], "novelty_active": False,
         "report": {"detected": False}}
        for r in records if "reference_won" in r
    ] or None
    truth = novelty.ground_truth if novelty is not None else None
    summary = metrics.summarize_trial(records, inject, reference_records=reference_records,
                                      ground_truth=truth)
    summary.update({
        "agent": cfg.agent,
        "agent_params": redact(cfg.agent_params),
        "agent_label": agent_label(cfg.agent, cfg.agent_params),
        "opponents": list(cfg.opponents),
        "novelty": (novelty.name if novelty is not None else cfg.novelty) or "none",
        "difficulty": cfg.difficulty if cfg.novelty else None,
        "observability": cfg.observability if cfg.novelty else None,
        "opponents_view": (cfg.opponents_view if cfg.novelty and cfg.observability == "effects"
                           else None),
        "category": novelty.category if novelty is not None else None,
        "injected_at": inject,
        "detection": cfg.detection,
        "reference": cfg.reference,
        "seed": cfg.seed,
        "wins": sum(1 for r in records if r["won"]),
        "turn_limit_games": sum(1 for r in records if r.get("end_reason") == "turn_limit"),
        "faults": sum(r.get("faults", 0) for r in records),
    })
    if truth:  # what the novelty changed, for the reports
        summary["ground_truth"] = [json.loads(json.dumps(dict(c), default=list))
                                   for c in truth]
    for key in ("remote_faults", "opponent_remote_faults"):
        if any(key in r for r in records):
            total: dict[str, int] = {}
            for r in records:
                for kind, n in r.get(key, {}).items():
                    total[kind] = total.get(kind, 0) + n
            summary[key] = dict(sorted(total.items()))
    return summary


def _finish(cfg: TrialConfig, out: Path, records: list[dict[str, Any]], inject: int | None,
            novelty: Applied | None, head: str | None, seconds: float,
            seats: list[Any]) -> dict[str, Any]:
    """The trial's summary, written atomically beside its records."""
    summary = summarize(cfg, records, inject, novelty)
    if head is not None:  # ties the summary to the very lines it counts (evaluation.verify)
        summary["games_digest"] = head
    summary["seconds"] = round(seconds, 3)
    refusals: dict[str, int] = {}
    for seat in seats:
        for kind, n in (seat.refusals() if hasattr(seat, "refusals") else {}).items():
            refusals[kind] = max(refusals.get(kind, 0), n)  # one server counts for all
    if refusals:
        summary["remote_refused"] = dict(sorted(refusals.items()))
    atomic_write(out / SUMMARY_FILE, json.dumps(summary, indent=2, sort_keys=True) + "\n")
    return summary


NOT_FROM_RECORDS = ("seconds", "remote_refused")  # wall time; what remote servers refused


def config_of(identity: dict[str, Any]) -> TrialConfig:
    """The configuration a trial.json describes (tokens stay hidden: `redact`)."""
    names = {f.name for f in fields(TrialConfig)}
    data = {k: v for k, v in identity.items() if k in names}
    data.setdefault("opponents_view", "shown")  # left out: shown (`_trial_identity`)
    if isinstance(data.get("window"), list):
        data["window"] = tuple(data["window"])
    return TrialConfig(**data)


def expected_summary(identity: dict[str, Any], records: list[dict[str, Any]],
                     head: str | None) -> dict[str, Any]:
    """What `_finish` writes for these records of this trial, but the fields no record
    holds (`NOT_FROM_RECORDS`): `verify` compares summary.json with it field by field.
    The novelty is applied again as it was played (its recorded preset), for its name,
    category and ground truth; TrialError when it cannot be."""
    cfg = config_of(identity)
    novelty = None
    if cfg.novelty is not None:
        played = identity.get("novelty_preset")
        tries = ([played] if isinstance(played, dict) and not cfg.then else []) + [
            cfg.novelty_params]  # the parameters as played; else the overrides given
        for params in tries:
            try:
                novelty = prepare_novelty(cfg.novelty, cfg.difficulty, params,
                                          rules_schema(cfg.rules), then=cfg.then)
                break
            except Exception as exc:  # noqa: BLE001 - a plugin missing or changed here
                why = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:100]}"
        if novelty is None:
            raise TrialError(f"cannot apply novelty {cfg.novelty!r} here to recompute the "
                             f"measures ({why})")
    summary = summarize(cfg, records, injection_game(cfg), novelty)
    if head is not None:
        summary["games_digest"] = head
    return json.loads(json.dumps(summary))  # as read back from the file


def agent_label(name: str, params: dict[str, Any]) -> str:
    """The agent's name with the options that differ from its defaults, e.g.
    `planner(adapt=False)`, so sweeps over agent options stay apart in comparisons."""
    from agents.registry import AGENTS
    from evaluation.harness.config_store import agent_defaults

    defaults = agent_defaults(AGENTS[name]) if name in AGENTS else {}
    changed = {k: v for k, v in sorted(redact(params).items())
               if defaults.get(k, object()) != v}
    if not changed:
        return name
    return f"{name}({', '.join(f'{k}={v}' for k, v in changed.items())})"
