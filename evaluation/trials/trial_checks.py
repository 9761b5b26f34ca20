"""What a trial job would run, checked before anything is written: its agents can be
built, its novelty applies, its remote addresses can be listened on, its folder can be
written and holds no other trial, and the snapshot key is sound."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from evaluation.harness.trial_config import TrialConfig, TrialError
from evaluation.harness.trial_folder import CONFIG_FILE, GAMES_FILE, read_identity, read_records
from evaluation.trials.composed import CommandError


def check_world(cfg: TrialConfig) -> None:
    """The agents can be built with their options, the novelty applies, and every remote
    seat's address can be listened on (probed without sending anything)."""
    from agents.registry import make_agent, told_rules
    from evaluation.harness.remote_seats import RemoteError, check_addresses, make_agents
    from evaluation.harness.novelty_setup import NoveltyError, prepare_novelty
    from openmono import rules_schema

    try:
        params = told_rules(cfg.agent, cfg.agent_params, cfg.rules)
        if "agent" in cfg.isolate:  # never built in the harness, so checked in a child
            from agents.remote.isolated import check_in_child

            check_in_child(cfg.agent, params)
        else:
            make_agent(cfg.agent, **params)
    except Exception as exc:  # noqa: BLE001 - any failure to build is a bad option
        # The exception names the bad option; the full option dict would bury it.
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CommandError(f"agent={cfg.agent} cannot be built: {first}") from None
    if "remote" in cfg.opponents:
        try:  # (only the remote seats: an isolated opponent is never built in the harness)
            make_agents([n for n in cfg.opponents if n == "remote"], cfg.remote)
        except ValueError as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise CommandError(f"remote opponents cannot be seated: {first}") from None
    seats = []
    if cfg.agent == "remote":
        seats.append((str(cfg.agent_params.get("host") or "127.0.0.1"),
                      int(cfg.agent_params.get("port", 7300))))
    if "remote" in cfg.opponents:
        seats.append((str(cfg.remote.get("host") or "127.0.0.1"),
                      int(cfg.remote.get("port", 7300))))
    try:
        check_addresses(seats)
    except RemoteError as exc:
        raise CommandError(str(exc)) from None
    if cfg.novelty is not None:
        try:
            prepare_novelty(cfg.novelty, cfg.difficulty, cfg.novelty_params,
                            rules_schema(cfg.rules),
                            then=cfg.then)
        except NoveltyError as exc:
            raise CommandError(str(exc).splitlines()[0]) from None


def check_out_dir(out: Path, cfg: TrialConfig) -> None:
    """Writable without creating anything, and not holding a different trial."""
    from evaluation.store.folder_lock import unsafe_entry
    from evaluation.harness.trial_folder import _trial_identity

    probe = out
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise CommandError(f"cannot write to the output directory {str(out)!r}: "
                           f"{str(probe)!r} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise CommandError(f"cannot write to the output directory {str(out)!r}: permission "
                           f"denied on {str(probe)!r}")
    problem = unsafe_entry(out)  # before Hydra writes .hydra/ through a link in it
    if problem:
        raise CommandError(problem)
    try:
        old = read_identity(out / CONFIG_FILE)
        ident = _trial_identity(cfg)
        if old is not None and old != ident:
            diff = sorted(k for k in ident if old.get(k) != ident[k])
            raise CommandError(f"{out} holds a trial with a different configuration "
                               f"({', '.join(diff)} differ); choose another hydra.run.dir or "
                               "delete that directory")
        done = len(read_records(out / GAMES_FILE))
    except TrialError as exc:
        raise CommandError(str(exc)) from None
    if done > cfg.games:
        raise CommandError(f"{out / GAMES_FILE} already holds {done} games, more than "
                           f"games={cfg.games}; use a new output directory")


def _named(key: str, value: Any) -> str:
    """A folder option that names a folder: an empty one would write into the current
    directory."""
    text = "" if value is None else str(value)
    if not text.strip():
        raise CommandError(f"{key} is empty: name a folder, e.g. {key}=outputs/my-trial")
    return text


def _check_snapshot_key() -> None:
    """A weak or exposed snapshot key is refused before anything is written."""
    from evaluation.store.seal import KeyProblem, snapshot_key

    try:
        snapshot_key()
    except KeyProblem as exc:
        raise CommandError(str(exc)) from None
