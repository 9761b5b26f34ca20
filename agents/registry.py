"""Agent names -> factories. Unknown names fail with the list of valid ones."""

from __future__ import annotations

from difflib import get_close_matches
from typing import Any, Callable

from agents.baseline import BaselineAgent
from agents.baseline_v0 import BaselineV0Agent
from agents.fixed_policy import FPA, FPB, FPC
from agents.planner.agent import PlannerAgent
from agents.passive import PassiveAgent
from agents.random_agent import RandomAgent

AGENTS: dict[str, Callable[..., Any]] = {
    "random": RandomAgent,
    "passive": PassiveAgent,
    "baseline": BaselineAgent,
    "baseline_v0": BaselineV0Agent,
    "fp_a": FPA,
    "fp_b": FPB,
    "fp_c": FPC,
    "planner": PlannerAgent,
}


class UnknownAgentError(ValueError):
    pass


class AgentLoadError(UnknownAgentError):
    """An agent's files (e.g. DRL weights) are missing or unreadable: one line naming them."""


def _drl(algo: str, variant: str) -> Callable[..., Any]:
    """The shipped DRL agents (agents/drl); `weights=PATH` loads a user's own file."""
    def factory(weights: str | None = None, greedy: bool = False,
                detector: str = "surprise") -> Any:
        from agents.drl.agent import shipped_agent
        try:
            return shipped_agent(algo, variant)(weights=weights, greedy=greedy,
                                                detector=detector)
        except ValueError as exc:
            raise AgentLoadError(str(exc)) from None
    return factory


AGENTS.update({"ppo": _drl("ppo", "standard"), "hybrid_ppo": _drl("ppo", "hybrid"),
               "ddqn": _drl("ddqn", "standard"), "hybrid_ddqn": _drl("ddqn", "hybrid")})


def _policy(policy: str | None = None, skip_forced: bool = True) -> Any:
    """A user's `(state, mask) -> index` function as an agent (agents/policy.py,
    docs/env.md); imported on use, like the DRL agents, to keep this module light."""
    from agents.policy import PolicyAgent
    return PolicyAgent(policy=policy, skip_forced=skip_forced)


AGENTS["policy"] = _policy


def available_agents() -> list[str]:
    return sorted(AGENTS)


def make_agent(name: str, **params: Any) -> Any:
    """Build a fresh agent by name; `params` go to its constructor."""
    factory = AGENTS.get(name)
    if factory is None:
        close = get_close_matches(name, AGENTS, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise UnknownAgentError(
            f"unknown agent {name!r}.{hint} Available agents: {', '.join(available_agents())}"
        )
    return factory(**params)
