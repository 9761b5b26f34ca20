"""The shipped DRL agents as registry factories (entry points of `openmono.agents`).

Each factory imports the networks only when an agent is built, so listing the agents
stays cheap; `weights=PATH` loads a user's own file.
"""

from __future__ import annotations

from typing import Any, Callable


def _shipped(algo: str, variant: str) -> Callable[..., Any]:
    def factory(weights: str | None = None, greedy: bool = False,
                detector: str = "model") -> Any:
        from agents.drl.agent import shipped_agent
        from agents.registry import AgentLoadError

        try:
            return shipped_agent(algo, variant)(weights=weights, greedy=greedy,
                                                detector=detector)
        except ValueError as exc:
            raise AgentLoadError(str(exc)) from None
    factory.__name__ = factory.__qualname__ = f"{variant}_{algo}"
    return factory


ppo = _shipped("ppo", "standard")
hybrid_ppo = _shipped("ppo", "hybrid")
ddqn = _shipped("ddqn", "standard")
hybrid_ddqn = _shipped("ddqn", "hybrid")
