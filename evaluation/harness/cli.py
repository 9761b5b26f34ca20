"""What the evaluation commands share on top of the one parser (`openmono_cli`).

`evaluation.trial` is a full Hydra app; the other commands parse the same syntax with
`openmono_cli` (`games=500 agents=[random,baseline] seed=1 progress=false`), each from
its own options model. Here: the options models they share (the novelty options of
`evaluation.trial`, `agent.NAME.KEY` constructor options), the world those novelty
options ask for, and seating remote agents.
"""

from __future__ import annotations

from typing import Any, ContextManager

from pydantic import Field, field_validator

from openmono_cli import Options, UsageError, fail  # noqa: F401 - the commands' names
from openmono.schema import RULE_SETS

# Every evaluation entry point takes the same novelty options as `evaluation.trial`.
NOVELTY_DEFAULTS: dict[str, Any] = {"novelty": "none", "novelty.difficulty": "medium",
                                     "rules": "standard"}
AGENT_SPELLING = "agent.NAME.KEY=VALUE (e.g. agent.planner.adapt=false)"


class NoveltyOptions(Options):
    """The novelty options of `evaluation.trial`, for a command that plays under one."""

    novelty: str = Field("none", description="a catalogue novelty for every game (python -m "
                         "novelties list), or none")
    novelty_difficulty: str = Field("medium", alias="novelty.difficulty",
                                    description="the novelty's preset: easy, medium or hard")
    novelty_params: dict[str, Any] = Field({}, alias="novelty.params",
                                           description="a parameter of the novelty, over its "
                                           "preset")
    rules: str = Field("standard", description=f"the rule set the games start from "
                       f"({', '.join(RULE_SETS)})")

    def world(self) -> dict[str, Any]:
        """The novelty options as plain data (what `novelty_world` reads; a Ray task
        rebuilds the world from it)."""
        return {"novelty": self.novelty, "novelty.difficulty": self.novelty_difficulty,
                "novelty.params": dict(self.novelty_params), "rules": self.rules}


class AgentOptions(Options):
    """`agent.NAME.KEY=VALUE`: a constructor option for every seat of agent NAME."""

    agent: dict[str, dict[str, Any]] = Field({}, description="a constructor option for "
                                             "every seat of agent NAME")

    @field_validator("agent", mode="before")
    @classmethod
    def _two_levels(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError(f"expected {AGENT_SPELLING}")
        for name, options in value.items():
            if not isinstance(options, dict) or any(isinstance(v, dict)
                                                    for v in options.values()):
                raise ValueError(f"expected {AGENT_SPELLING}, got agent.{name}")
        return value

    def per_agent(self) -> dict[str, dict[str, Any]]:
        """{NAME: {KEY: VALUE}}, a fresh copy the caller may extend."""
        return {name: dict(options) for name, options in self.agent.items()}


def seated_or_usage(agents: Any) -> ContextManager[None]:
    """The remote seats among `agents` open for the block (a client that never comes
    is a one-line UsageError), closed after it whatever happens."""
    from evaluation.harness.remote_seats import seated

    return seated(agents, UsageError)


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
    from evaluation.harness.novelty_setup import NoveltyError, prepare_novelty

    try:
        setup = prepare_novelty(name, cfg.get("novelty.difficulty") or "medium",
                                cfg.get("novelty.params") or {}, base)
    except NoveltyError as exc:
        raise UsageError(str(exc)) from None
    return setup.schema, setup.hooks, f"{name} ({setup.difficulty})"
