"""What a detection sweep made, and `fresh=true`: every folder a sweep creates carries a
mark, and a fresh run deletes only this sweep's own trial folders (by their place and
their trial's agent, not by a mark anyone can copy)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from evaluation.harness.summary import agent_label
from evaluation.harness.trial_config import TrialError, redact
from evaluation.harness.trial_folder import CONFIG_FILE, read_identity
from evaluation.sweeps.detection_trials import trial_for

MARK = ".made-by-sweep"  # in every folder a sweep made: what --fresh may delete
SWEEP_FILES = ("sweep.json", "sweep.md")


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
