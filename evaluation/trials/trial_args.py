"""Check a whole `evaluation.trial` command line before Hydra starts writing anything.

Hydra creates the run directory and writes `.hydra/*.yaml` into it before the app's own
code runs, so a refused run would otherwise touch (or create) output folders. Here the
overrides are parsed, every sweep is expanded, each job's configuration is composed
with Hydra's compose API (which writes nothing) and checked in full: unknown config
groups and options, unknown keys with or without `+`, types and ranges (each job's
configuration read into its TrialConfig: `evaluation.trials.composed`), the agent's and the
novelty's parameters, and the output folder (writable, and not holding another trial).
Every problem is one `CommandError` line naming the key, the value and what is valid.

This module runs the checks in order; the words of the command are split in
`trial_command`, a sweep expanded into jobs in `trial_sweep`, a job composed and its keys
checked in `trial_keys`, and its world and folder checked in `trial_checks`.
"""

from __future__ import annotations

import os
from pathlib import Path

from evaluation.harness.secret_args import SECRETS_ENV, is_secret, other_spelling
from evaluation.trials.composed import CommandError, trial_config
from evaluation.trials.trial_checks import _check_snapshot_key, _named, check_out_dir, check_world
from evaluation.trials.trial_command import (Command, Job, _given, out_spelled, split_argv,
                                             sweep_dir_for)
from evaluation.trials.trial_keys import _check_keys, _compose
from evaluation.trials.trial_sweep import expand


def hide_secrets(cmd: Command) -> None:
    """Take the secrets out of `cmd.overrides` into this process's environment, where
    the jobs read them back (`trial_config`): Hydra then writes none of them into
    `.hydra/`, logs or folder names, and `command.json` never sees them."""
    import json

    given = {}
    for job in cmd.jobs:
        found = {}
        if any(is_secret(o) and o.lstrip("+").startswith("agent.token=") for o in job.overrides):
            found["agent.token"] = job.config.agent_params.get("token", "")
        if any(is_secret(o) and o.lstrip("+").startswith("remote.tokens=")
               for o in job.overrides):
            found["remote.tokens"] = list(job.config.remote.get("tokens") or [])
        if given and found != given:
            raise CommandError("agent.token and remote.tokens cannot be swept: give one "
                               "value for the whole sweep")
        given = found
    if given:
        os.environ[SECRETS_ENV] = json.dumps(given)
    else:  # (none from an earlier command of this process either)
        os.environ.pop(SECRETS_ENV, None)
    cmd.overrides = [o for o in cmd.overrides if not is_secret(o)]


def check_command(argv: list[str]) -> Command:
    """Everything the command would run, checked; raises CommandError on the first problem."""
    from omegaconf import OmegaConf

    from evaluation.harness.trial_spelling import modern

    cmd = split_argv(out_spelled(modern(argv)[0]))
    if cmd.info:
        return cmd
    for arg in cmd.overrides:
        why = other_spelling(arg)
        if why:
            raise CommandError(why)
    _check_snapshot_key()
    if cmd.multirun:
        from evaluation.harness.launchers import chosen, problem

        why = problem(chosen(cmd.overrides))
        if why:
            raise CommandError(why)
    hydra_part = [o for o in cmd.overrides if o.lstrip("+~").startswith("hydra")]
    if cmd.multirun and not _given(cmd.overrides, "hydra.sweep.dir"):
        cmd.sweep_dir = sweep_dir_for(cmd.overrides)
        hydra_part = hydra_part + [f"hydra.sweep.dir={cmd.sweep_dir}"]
    for job in expand(cmd.overrides, cmd.multirun):
        task = [o for o in job if not o.lstrip("+~").startswith("hydra")]
        _check_keys(task)
        cfg = _compose(task + [o for o in job if o not in task] + [
            o for o in hydra_part if o not in job])
        data = OmegaConf.to_container(cfg, resolve=False)
        data.pop("hydra", None)
        try:
            resolved = OmegaConf.to_container(OmegaConf.create(data), resolve=True)
        except Exception as exc:  # noqa: BLE001 - an interpolation the user wrote
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise CommandError(f"cannot resolve the configuration: {first}") from None
        tcfg, plots = trial_config(resolved)  # type: ignore[arg-type]
        check_world(tcfg)
        if cmd.multirun:
            _named("hydra.sweep.dir", cfg.hydra.sweep.dir)
            out = Path(str(cfg.hydra.sweep.dir)) / _named("hydra.sweep.subdir",
                                                           cfg.hydra.sweep.subdir)
            cmd.sweep_dir = Path(str(cfg.hydra.sweep.dir))
        else:
            out = Path(_named("hydra.run.dir", cfg.hydra.run.dir))
        check_out_dir(out, tcfg)
        cmd.jobs.append(Job(task, tcfg, out, plots))
    return cmd
