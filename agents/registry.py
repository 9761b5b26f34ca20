"""Agent names -> factories, found through the `openmono.agents` entry-point group.

The built-in agents register through that group (pyproject.toml) exactly as an agent
from another installed package does, so `agent=NAME` works for both. An unpackaged
class is named `module.path:ClassName` (the module must be importable, e.g. on
PYTHONPATH). Unknown or broken names fail with one line listing the available agents.
"""

from __future__ import annotations

import inspect
from difflib import get_close_matches
from importlib.metadata import entry_points
from typing import Any, Callable

from openmono.loading import PathError, import_path

GROUP = "openmono.agents"


class UnknownAgentError(ValueError):
    """An agent name that is neither registered nor a `module.path:ClassName`."""
    pass


class AgentLoadError(UnknownAgentError):
    """An agent's files (e.g. DRL weights) are missing or unreadable: one line naming them."""


AGENTS: dict[str, Callable[..., Any]] = {}
BROKEN: dict[str, str] = {}  # entry-point name -> why it could not be loaded


def _load_entry_points() -> None:
    for ep in sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
        if ep.name in AGENTS:
            continue
        try:
            AGENTS[ep.name] = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken package must not hide the rest
            BROKEN[ep.name] = f"cannot import {ep.value}: {type(exc).__name__}: {exc}"


_load_entry_points()


def _policy(policy: str | None = None, skip_forced: bool = True) -> Any:
    """A user's `(state, mask) -> index` function as an agent (agents/policy.py,
    docs/env.md); imported on use, like the DRL agents, to keep this module light."""
    from agents.policy import PolicyAgent
    return PolicyAgent(policy=policy, skip_forced=skip_forced)


AGENTS["policy"] = _policy


def available_agents() -> list[str]:
    """The registered agent names (entry points of `openmono.agents`), sorted."""
    return sorted(AGENTS)


def _listing() -> str:
    return f"available agents: {', '.join(available_agents())} (or module.path:ClassName)"


def resolve(name: str) -> Callable[..., Any]:
    """The factory of `name` (registry name or `module.path:ClassName`); raises
    UnknownAgentError with one line naming the problem and the available agents."""
    factory = AGENTS.get(name)
    if factory is not None:
        return factory
    if name in BROKEN:
        raise UnknownAgentError(f"agent {name!r} is installed but broken: {BROKEN[name]}; "
                                f"{_listing()}")
    if ":" in name:
        try:
            obj = import_path(name)
        except PathError as exc:
            raise UnknownAgentError(f"cannot load agent {name!r} ({exc}); {_listing()}") from None
        if not callable(obj) or inspect.isbuiltin(obj):  # (builtins:print, os:system)
            raise UnknownAgentError(f"agent {name!r} is not a class or factory; {_listing()}")
        AGENTS[name] = obj  # so the configuration tools see its options
        return obj
    close = get_close_matches(name, AGENTS, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise UnknownAgentError(f"unknown agent {name!r}{hint}; {_listing()}")


def is_agent(name: str) -> bool:
    """Whether `name` names an agent (registered, or an importable `module.path:ClassName`)."""
    try:
        resolve(name)
        return True
    except UnknownAgentError:
        return False


def option_names(name: str) -> list[str] | None:
    """The keyword options an agent's constructor takes (None: it takes any)."""
    import inspect

    try:
        params = inspect.signature(resolve(name)).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]


def told_rules(name: str, params: dict[str, Any], rules: str) -> dict[str, Any]:
    """`params` for an agent that takes a `rules` option (its prior beliefs, e.g. the
    planner) set to the game's base rules, unless the user chose them."""
    if params.get("rules") is None and "rules" in (option_names(name) or []):
        return {**params, "rules": rules}
    return params


def make_agent(name: str, **params: Any) -> Any:
    """Build a fresh agent by name; `params` go to its constructor. A factory that
    builds something without an `act` method is a one-line ValueError, not a crash at
    the first decision."""
    agent = resolve(name)(**params)
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"agent {name!r} built a {type(agent).__name__}, which has no "
                         "act(observation) method: name an agent class")
    return agent
