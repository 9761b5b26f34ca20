"""Agents for tests/test_isolate.py, importable by an isolated agent's child process
(`tests/isolate_agents.py:ClassName`): a cheat that reaches around its observation, a
lifecycle recorder, and agents whose child crashes, hangs or sends garbage."""

from __future__ import annotations

import gc
import os
import socket
import sys
import time
from typing import Any

from agents.base import NoveltyChange, NoveltyReport
from agents.baseline import BaselineAgent


def find_game() -> Any:
    """The engine's `Game`, found by walking the caller's stack (None when none is)."""
    frame = sys._getframe(1)
    while frame is not None:
        candidate = frame.f_locals.get("self")
        if type(candidate).__name__ == "Game" and hasattr(candidate, "state"):
            return candidate
        frame = frame.f_back
    return None


class StackCheat(BaselineAgent):
    """Plays as `baseline`, and gives itself 5,000 in cash at each decision when it can
    reach the `Game` from `act` (finding 10 of issue 29)."""

    name = "stack_cheat"

    def act(self, obs: Any) -> Any:
        game = find_game()
        if game is not None:
            game.state.cash[obs.seat] += 5000
        return super().act(obs)


class Lifecycle(BaselineAgent):
    """Plays as `baseline`; its novelty report says what the harness told it: games
    begun and ended, and whether the novelty was announced."""

    name = "lifecycle"

    def __init__(self) -> None:
        super().__init__()
        self.begun = self.ended = 0
        self.announced = False

    def begin_game(self, seat: int, observation: Any) -> None:
        super().begin_game(seat, observation)
        self.begun += 1

    def end_game(self, result: Any) -> None:
        self.ended += 1

    def novelty_announced(self) -> None:
        self.announced = True

    def novelty_report(self) -> NoveltyReport:
        return NoveltyReport(self.announced, 0.5 if self.announced else 0.0, (
            NoveltyChange("harness", "games", [self.begun, self.ended]),))


class Crasher(BaselineAgent):
    """Its process dies at its 10th decision of every game."""

    def begin_game(self, seat: int, observation: Any) -> None:
        super().begin_game(seat, observation)
        self.decisions = 0

    def act(self, obs: Any) -> Any:
        self.decisions += 1
        if self.decisions == 10:
            os._exit(3)
        return super().act(obs)


class Hanger(Crasher):
    """Stops answering at its 10th decision of every game (sleeps for an hour)."""

    def act(self, obs: Any) -> Any:
        self.decisions += 1
        if self.decisions == 10:
            time.sleep(3600)
        return BaselineAgent.act(self, obs)


class Garbage(Crasher):
    """At its 10th decision of every game it writes a line of garbage to the harness
    (through the socket it finds in its process) before answering."""

    def act(self, obs: Any) -> Any:
        self.decisions += 1
        if self.decisions == 10:
            for obj in gc.get_objects():
                if isinstance(obj, socket.socket) and obj.fileno() >= 0:
                    obj.sendall(b"\x00 not json \xff\n")
        return BaselineAgent.act(self, obs)


class Unbuildable(BaselineAgent):
    """Its constructor fails: the harness must say so in one line."""

    def __init__(self) -> None:
        raise RuntimeError("no weights here")


class Raiser(Crasher):
    """Raises at its 10th decision of every game (its process goes on)."""

    def act(self, obs: Any) -> Any:
        self.decisions += 1
        if self.decisions == 10:
            raise RuntimeError("a bug in the agent")
        return BaselineAgent.act(self, obs)
