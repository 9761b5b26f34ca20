"""An agent that plays like another one and reports what the planner's detector finds:
`detect_<name>` wraps any registered agent with a `NoveltyDetector` watching its seat
(reporting only, no adaptation).

A trial's snapshot pickles it by this module's path (older ones by the detection
sweep's: `evaluation.store.moved`).
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent
from agents.planner.detect import NoveltyDetector
from agents.registry import AGENTS, make_agent


# --- an agent that plays like another one and reports what the detector finds ------------------
class DetectingAgent(Agent):
    """Plays as `inner` (a registered agent) while a `NoveltyDetector` watches its seat."""

    def __init__(self, inner: str = "baseline", **params: Any) -> None:
        super().__init__()
        self.inner = make_agent(inner, **params)
        self.detector = NoveltyDetector()
        self.name = f"detect_{inner}"

    def seed(self, seed: int) -> None:
        super().seed(seed)
        fn = getattr(self.inner, "seed", None)
        if fn is not None:
            fn(seed)

    def begin_game(self, seat: int, observation: Any) -> None:
        super().begin_game(seat, observation)
        fn = getattr(self.inner, "begin_game", None)
        if fn is not None:
            fn(seat, observation)
        self.detector.observe(observation)

    def act(self, observation: Any) -> Any:
        self.detector.observe(observation)
        return self.inner.act(observation)

    def end_game(self, result: Any) -> None:
        fn = getattr(self.inner, "end_game", None)
        if fn is not None:
            fn(result)
        self.detector.end_game(result)

    def novelty_report(self) -> Any:
        return self.detector.report()

    def novelty_announced(self) -> None:
        self.detector.announce()


def register(name: str) -> None:
    """Make `detect_<inner>` available to `make_agent` (this process and its workers)."""
    if name.startswith("detect_") and name not in AGENTS:
        inner = name[len("detect_"):]
        AGENTS[name] = lambda **params: DetectingAgent(inner, **params)


register("detect_baseline")
