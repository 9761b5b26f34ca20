"""A trial command's sweep expanded into jobs, before Hydra runs: the overrides parsed
with Hydra's own parser, each sweep's values listed (glob() over the config groups),
and the agents and novelties named by path loaded, so each job is one override list."""

from __future__ import annotations

import itertools
from typing import Any

from evaluation.trials.composed import GROUPS, CommandError
from evaluation.trials.trial_command import did_you_mean

MAX_JOBS = 10_000


# --- Hydra's pieces, loaded lazily -----------------------------------------------------------------
def _options(group: str) -> list[str]:
    from hydra.core.config_store import ConfigStore

    from evaluation.harness.config_store import register_groups

    register_groups()
    return sorted(n[: -len(".yaml")] for n in ConfigStore.instance().list(group))


def _parse(overrides: list[str]) -> list[Any]:
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    parser = OverridesParser.create()
    parsed = []
    for text in overrides:
        if "=" not in text and not text.startswith("~"):
            raise CommandError(f"expected key=value, got {text!r} (e.g. games=30)")
        try:
            parsed.extend(parser.parse_overrides([text]))
        except OverrideParseException as exc:
            first = str(exc).strip().splitlines()[0]
            raise CommandError(f"cannot read {text!r}: {first}") from None
    return parsed


def _values(ov: Any) -> list[str]:
    from hydra.core.override_parser.types import ValueType

    key = ov.key_or_group
    if ov.value_type is ValueType.GLOB_CHOICE_SWEEP:
        if key not in GROUPS:
            raise CommandError(f"glob() sweeps work for agent= and novelty= only, not {key}")
        return list(ov.value().filter(_options(key)))
    if ov.is_sweep_override():
        if ov.value_type is ValueType.INTERVAL_SWEEP:
            raise CommandError(f"{key}: interval() sweeps need an optimizing sweeper; "
                               "list the values (a,b,c) or use range(lo,hi)")
        return list(ov.sweep_string_iterator())
    return [ov.get_value_element_as_str()]


def expand(overrides: list[str], multirun: bool) -> list[list[str]]:
    """One override list per job (a plain run is one job); keys checked for groups."""
    lists: list[list[str]] = []
    for ov in _parse(overrides):
        key = ov.key_or_group
        if ov.is_delete() and not key.startswith("hydra"):
            raise CommandError(f"cannot delete {key!r} (~{key}); set it instead, e.g. "
                               f"{key}=null")
        values = [] if ov.is_delete() else _values(ov)
        values = [v.replace("\\:", ":") for v in values]  # Hydra escapes a colon it prints
        if len(values) > 1 and not multirun:
            raise CommandError(f"{key} has several values ({','.join(values)}): add "
                               "--multirun to sweep them")
        if key == "agent":
            _outside_agents(values)
        if key == "novelty":
            _outside_novelties(values)
        if key in GROUPS:
            options = _options(key)
            for v in values:
                if v not in options:
                    raise CommandError(f"unknown {key} {v!r}{did_you_mean(v, options)}; "
                                       f"choices: {', '.join(options)}")
        prefix = ov.get_key_element()
        lists.append([prefix] if ov.is_delete() else [f"{prefix}={v}" for v in values])
    jobs = [list(combo) for combo in itertools.product(*lists)]
    if len(jobs) > MAX_JOBS:
        raise CommandError(f"the sweep has {len(jobs)} jobs, more than {MAX_JOBS}")
    return jobs


def _outside_agents(values: list[str]) -> None:
    """Unknown or broken agents fail here in one line listing the available ones, and
    `agent=module.path:ClassName` is loaded now, so it becomes a config option like a
    registered agent."""
    from agents.registry import UnknownAgentError, resolve

    for v in values:
        try:
            resolve(v)
        except UnknownAgentError as exc:
            raise CommandError(str(exc)) from None


def _outside_novelties(values: list[str]) -> None:
    """`novelty=module.path:ClassName` is loaded now (or refused in one line), so it
    becomes a config option like a plugin registered by an entry point."""
    from novelties.base import NoveltyError
    from novelties.registry import load_path

    for v in values:
        if ":" in v:
            try:
                load_path(v)
            except NoveltyError as exc:
                raise CommandError(str(exc)) from None
