"""What the evaluation commands share on top of the one parser (`openmono.cli`).

`evaluation.trial` is a full Hydra app; the other commands parse the same syntax with
`openmono.cli` (`games=500 agents=[random,baseline] seed=1 progress=false`), each from
its own options model. Here: the novelty options they share, and seating remote agents.
"""

from __future__ import annotations

from difflib import get_close_matches
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from openmono.cli import UsageError, fail, parse_value  # noqa: F401 - the commands' names


# Every evaluation entry point takes the same novelty options as `evaluation.trial`.
NOVELTY_DEFAULTS: dict[str, Any] = {"novelty": "none", "novelty.difficulty": "medium",
                                     "rules": "standard"}
PARAMS_PREFIX = "novelty.params."


def agent_options(argv: Sequence[str]) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """Split `agent.NAME.KEY=VALUE` arguments off `argv`: the rest, and {NAME: {KEY:
    VALUE}} (options for every seat of agent NAME, e.g. agent.planner.adapt=false)."""
    rest: list[str] = []
    options: dict[str, dict[str, Any]] = {}
    for arg in argv:
        key, eq, raw = arg.partition("=")
        key = key.lstrip("+")
        if not key.startswith("agent."):
            rest.append(arg)
            continue
        name, _, option = key[len("agent."):].partition(".")
        if not (eq and name and option) or "." in option:
            raise UsageError(f"expected agent.NAME.KEY=VALUE (e.g. agent.planner.adapt=false), "
                             f"got {arg!r}")
        options.setdefault(name, {})[option] = parse_value(raw)
    return rest, options


def parse_overrides(argv: Sequence[str], defaults: dict[str, Any]) -> dict[str, Any]:
    """Merge `key=value` arguments into a copy of `defaults`; unknown keys are errors.

    When `defaults` has a `novelty` key, `novelty.params.KEY=VALUE` arguments are
    collected into the dict `novelty.params` (validated later by the plugin).
    """
    out = dict(defaults)
    if "novelty" in defaults:
        out["novelty.params"] = {}
    for arg in argv:
        if "=" not in arg:
            raise UsageError(f"expected key=value, got {arg!r}; valid keys: {', '.join(defaults)}")
        key, _, raw = arg.partition("=")
        key = key.lstrip("+")
        if "novelty" in defaults and key.startswith(PARAMS_PREFIX):
            out["novelty.params"][key[len(PARAMS_PREFIX):]] = parse_value(raw)
            continue
        if key not in defaults:
            close = get_close_matches(key, defaults, n=2)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise UsageError(f"unknown option {key!r}{hint}; valid keys: {', '.join(defaults)}")
        value = parse_value(raw)
        want = defaults[key]
        if isinstance(want, bool) and not isinstance(value, bool):
            raise UsageError(f"{key} must be true or false, got {raw!r}")
        if isinstance(want, int) and not isinstance(want, bool) and not isinstance(value, int):
            raise UsageError(f"{key} must be an integer, got {raw!r}")
        if isinstance(want, list) and not isinstance(value, list):
            value = [value]
        out[key] = value
    return out


@contextmanager
def seated_or_usage(agents: Any) -> Iterator[None]:
    """The remote seats among `agents` open for the block (a client that never comes
    is a one-line UsageError), closed after it whatever happens."""
    from evaluation.remote_seats import RemoteError, close_remote_seats, open_remote_seats

    try:
        try:
            open_remote_seats(agents)
        except RemoteError as exc:
            raise UsageError(str(exc)) from None
        yield
    finally:
        close_remote_seats(agents)


def novelty_world(cfg: dict[str, Any]) -> tuple[Any, Any, str]:
    """The schema and hooks the options ask for: the standard game, or it under a novelty.

    Returns (schema, hooks, label); an unknown novelty or a bad parameter raises
    UsageError with the plugin's short message.
    """
    from openmono.hooks import NO_HOOKS
    from openmono.schema import SchemaError, rules_schema

    try:
        base = rules_schema(str(cfg.get("rules") or "standard"))
    except SchemaError as exc:
        raise UsageError(str(exc)) from None
    name = cfg.get("novelty") or "none"
    if name == "none":
        return base, NO_HOOKS, "none" if base.name != "gnome" else "none (gnome rules)"
    from evaluation.novelty_setup import NoveltyError, prepare_novelty

    try:
        setup = prepare_novelty(name, cfg.get("novelty.difficulty") or "medium",
                                cfg.get("novelty.params") or {}, base)
    except NoveltyError as exc:
        raise UsageError(str(exc)) from None
    return setup.schema, setup.hooks, f"{name} ({setup.difficulty})"
