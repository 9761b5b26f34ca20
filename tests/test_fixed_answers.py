"""`fixed_answers`: phases an agent answers the same way whatever it observes.

The driver answers those decisions without building an observation or calling `act`;
the agent still receives every event, with its next observation; the game is the
same as when `act` gives those answers itself; malformed declarations are ignored.
"""

from __future__ import annotations

from typing import Any

import pytest

import openmono
from agents.baseline import BaselineAgent
from agents.random_agent import RandomAgent
from openmono import actions as A

STANDARD = openmono.standard_schema()


class Recorder(RandomAgent):
    """A random agent that concludes after its roll and records what it sees."""

    fixed_answers = {"post_roll": A.CONCLUDE}

    def __init__(self) -> None:
        super().__init__()
        self.phases: list[str] = []
        self.events: list[Any] = []

    def act(self, obs: Any) -> A.Action:
        self.phases.append(obs.phase)
        self.events.extend(obs.events)
        if obs.phase == "post_roll":
            raise AssertionError("asked in a phase it answers in advance")
        return super().act(obs)


class AsksEverything(Recorder):
    """The same agent, giving the same answer from `act`."""

    fixed_answers = None

    def act(self, obs: Any) -> A.Action:
        if obs.phase == "post_roll":
            self.phases.append(obs.phase)
            self.events.extend(obs.events)
            return A.CONCLUDE
        return super().act(obs)


@pytest.mark.parametrize("seed", range(4))
def test_the_driver_answers_and_the_agent_misses_no_event(seed: int) -> None:
    agents = [Recorder() for _ in range(4)]
    game = openmono.Game(STANDARD, 4, seed=seed)
    result = openmono.play_game(STANDARD, agents, seed=seed, game=game)
    assert result.stats["faults"] == 0 and sum(result.agent_faults) == 0
    for agent in agents:
        assert agent.phases and "post_roll" not in agent.phases
        # What an agent saw is the game's event log up to its last decision, in order.
        assert agent.events == game.events[:len(agent.events)]


@pytest.mark.parametrize("seed", range(4))
def test_same_game_as_answering_in_act(seed: int) -> None:
    fixed = openmono.play_game(STANDARD, [Recorder() for _ in range(4)], seed=seed)
    asked = openmono.play_game(STANDARD, [AsksEverything() for _ in range(4)], seed=seed)
    assert fixed.to_json() == asked.to_json()


def test_baseline_declares_only_what_it_answers() -> None:
    for phase, answer in BaselineAgent.fixed_answers.items():
        assert BaselineAgent().act(_observation(phase)) == answer


@pytest.mark.parametrize("bad", [{"post_roll": "conclude"}, ["post_roll"], 42])
def test_malformed_declarations_are_ignored(bad: Any) -> None:
    class Odd(RandomAgent):
        fixed_answers = bad

    result = openmono.play_game(STANDARD, [Odd(), RandomAgent(), Odd(), RandomAgent()], seed=1)
    assert result.stats["faults"] == 0


def _observation(phase: str) -> Any:
    from openmono.engine import Decision, Game

    game = Game(STANDARD, 4, seed=0)
    return game.observe(0, Decision(phase))
