"""A trial's composed Hydra configuration read into its `TrialConfig`, every value
checked: the plain options by the names their declaration gives
(`evaluation.harness.trial_config`), the agent and novelty groups, the seats (remote,
isolated) and the secrets the command kept out of Hydra's files here. Every problem is one
`CommandError` line naming the option and what is valid.
"""

from __future__ import annotations

import os
from typing import Any

from agents.remote.tokens import seat_token, seat_tokens
from evaluation.harness import trial_config as declaration
from evaluation.harness.trial_config import TrialConfig, TrialError
from evaluation.harness.secret_args import SECRETS_ENV
from evaluation.harness.trial_config import declared, default, groups

GROUPS = groups()  # agent, novelty: the options others are written under


class CommandError(ValueError):
    """A bad command line; the message is one line naming the problem and the choices."""


def _int(value: Any, key: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        what = "a positive integer" if low == 1 else f"an integer >= {low}"
        raise CommandError(f"{key} must be {what}, got {value!r}")
    return value


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise CommandError(f"{key} must be true or false, got {value!r}")
    return value


def _names(value: Any, key: str, example: str = "[baseline,baseline]") -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CommandError(f"{key} must be a list of names like {example}, got {value!r}")
    return value


def trial_config(data: dict[str, Any]) -> tuple[TrialConfig, bool]:
    """The TrialConfig of a composed configuration, every value type- and range-checked.
    Each plain option is read by the name its declaration gives (`trial_config`); the
    groups, the seats and the secrets are read here."""
    _restore_secrets(data)
    _int(data["games"], "games", 1)
    _int(data["seed"], "seed", 0)
    if data["inject_at"] is not None:
        _int(data["inject_at"], "inject_at", 0)
    values = _plain(data)
    opponents = _names(data["opponents"], "opponents")
    reference = data["reference"]
    if reference is not None and not isinstance(reference, str):
        raise CommandError(f"reference must be an agent name or null, got {reference!r}")
    agent = dict(data["agent"])
    opponents, reference, isolate = _isolation(data, agent, opponents, reference)
    then = _names(data.get("then") or [], "then", "[dice_weights,go_salary:hard]")
    name = agent.pop("name")
    _check_agent_options(name, agent)
    remote = _remote_options(data, name, agent, opponents)
    novelty = dict(data["novelty"])
    nname = novelty.pop("name", None)
    for field, opt in declared():  # novelty.difficulty, ...: null is the default
        key = (opt.name or "").split(".")
        if key[0] == "novelty" and len(key) == 2 and novelty.get(key[1]) is not None:
            values[field] = novelty[key[1]]
    values["novelty_params"] = {k: v for k, v in (novelty.get("params") or {}).items()
                                if v is not None}
    cfg = declaration.TrialConfig(**{**values, "agent": name, "agent_params": agent,
                                     "opponents": list(opponents),
                                     "then": [str(t) for t in then],
                                     "novelty": None if nname in (None, "none") else nname,
                                     "reference": reference or None, "isolate": isolate,
                                     "remote": remote if "remote" in opponents else {}})
    if nname in (None, "none") and novelty.get("difficulty") is not None:
        raise CommandError("novelty.difficulty needs a novelty: set novelty=NAME too")
    try:
        cfg.validate()
    except TrialError as exc:
        raise CommandError(str(exc)) from None
    return cfg, cfg.plots


def _plain(data: dict[str, Any]) -> dict[str, Any]:
    """The options written at the top level (`games`, `progress`, ...) by field, the
    switches checked here (true or false); the rest are checked by `validate`."""
    values = {}
    for field, opt in declared():
        if opt.name in data and opt.name not in GROUPS:
            value = data[opt.name]
            if isinstance(default(field), bool):
                _bool(value, opt.name)
            values[field] = value
    return values


def _check_agent_options(name: str, agent: dict[str, Any]) -> None:
    """Each `agent.KEY=value` has the type of that option's default."""
    from agents.registry import AGENTS
    from evaluation.harness.config_store import agent_defaults

    defaults = agent_defaults(AGENTS[name]) if name in AGENTS else {}
    for key, value in agent.items():
        want = defaults.get(key)
        ok = (value is None or want is None or type(value) is type(want)
              or (isinstance(want, float) and isinstance(value, int)
                  and not isinstance(value, bool)))
        if not ok:
            raise CommandError(f"agent.{key} must be {type(want).__name__} like {want!r}, "
                               f"got {value!r}")


def _remote_options(data: dict[str, Any], name: str, agent: dict[str, Any],
                    opponents: list[str]) -> dict[str, Any]:
    """The remote seats' options with their tokens read (`agent` gets its own)."""
    remote = dict(data.get("remote") or {})
    for key in ("tokens", "token_files"):
        values = remote.get(key)
        if values is not None and (not isinstance(values, list) or not all(
                isinstance(t, (str, int)) and not isinstance(t, bool) for t in values)):
            raise CommandError(f"remote.{key} must be a list like [s1,s2], got {values!r}")
    if "remote" in opponents:  # the secrets, from wherever they were given (agents.remote.tokens)
        try:
            remote["tokens"] = seat_tokens(remote.get("tokens"), remote.get("token_files"))
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    remote.pop("token_files", None)
    if name == "remote":
        try:
            agent["token"] = seat_token(agent.get("token"), agent.pop("token_file", ""))
        except ValueError as exc:
            raise CommandError(f"agent.{exc}") from None
    return remote


def _isolation(data: dict[str, Any], agent: dict[str, Any], opponents: list[str],
               reference: str | None) -> tuple[list[str], str | None, list[str]]:
    """The seats to isolate: `isolate` (every in-process agent), `agent.isolate`
    (popped from `agent`), `NAME@process` in `opponents` or `reference`. Returns the
    opponents and reference without the suffix, and the isolated seats' roles."""
    from agents.remote.isolated import parse_isolation, split_name

    said = agent.pop("isolate", None)
    try:
        every = parse_isolation(data.get("isolate", "none"), "isolate")
        one = parse_isolation(said, "agent.isolate")
        split = [split_name(n) for n in opponents]
        ref, ref_iso = split_name(reference) if reference is not None else (None, False)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if every and said is not None and not one:
        raise CommandError(f"agent.isolate={said} contradicts isolate=process (every "
                           "in-process agent in a child process): drop one of them")
    roles = []
    if one or (every and agent.get("name") != "remote"):
        roles.append("agent")
    if ref is not None and (ref_iso or every):
        roles.append("reference")
    roles += [f"opponent{i + 1}" for i, (n, iso) in enumerate(split)
              if iso or (every and n != "remote")]
    return [n for n, _ in split], ref, roles


def _restore_secrets(data: dict[str, Any]) -> None:
    import json

    try:
        given = json.loads(os.environ.get(SECRETS_ENV) or "{}")
    except ValueError:
        return
    if not isinstance(given, dict):
        return
    agent, remote = data.get("agent"), data.get("remote")
    if "agent.token" in given and isinstance(agent, dict) and not agent.get("token"):
        agent["token"] = given["agent.token"]
    if "remote.tokens" in given and isinstance(remote, dict) and not remote.get("tokens"):
        remote["tokens"] = given["remote.tokens"]
