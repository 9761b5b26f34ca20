"""One game driven a decision at a time, for the environments (no Gymnasium here).

`play_game` runs a game in one closed loop; an RL library needs to stop at each of a
learner's decisions and wait for its action. `Table` runs the same driver,
`Game.steps` (what `Game.drive` behind `play_game` runs to the end), with the *outside*
seats (learners) as seats without an agent: the driver answers the other seats in place,
exactly as in `play_game` (seed and `begin_game` calls in the same order,
`fixed_answers`, exceptions and non-actions as faults), and stops whenever an outside
seat must decide, so a game here has the events of the same game in `evaluation.trial`
(`tests/test_envs.py` checks it).

An outside seat is asked only where `agents.policy.auto_action` says a policy decides;
the rest of its decisions are answered by the same rule `agents.policy.PolicyAgent`
uses. Seats are assigned like `play_game` does (`openmono.play.seat_order`): the agent
at index i of the table's list sits at seat `seats.index(i)`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from agents.drl import encoding as E
from agents.policy import answer, as_index, auto_action
from openmono.engine import AgentFault, Game
from openmono.hooks import NO_HOOKS, Hooks
from openmono.play import (GameResult, begin_seats, declared_answers, end_seats, game_result,
                           seat_order)
from openmono.schema import GameSchema


class Table:
    """A game between agents (objects) and outside seats (`None` in `agents`)."""

    def __init__(self, schema: GameSchema, agents: Sequence[Any], seed: int,
                 hooks: Hooks = NO_HOOKS, shown: GameSchema | None = None,
                 skip_forced: bool = True) -> None:
        n = len(agents)
        self.game = Game(schema, players=n, seed=seed, hooks=hooks, shown=shown)
        self.seed = seed
        self.seats = seat_order(seed, n)  # agent index at each seat
        self.by_seat = [agents[i] for i in self.seats]
        self.skip_forced = skip_forced
        self.faults = [0] * n  # per agent index, as GameResult.agent_faults
        self.encoders = [E.Encoder() for _ in range(n)]
        self.mask = np.zeros(E.ACTION_DIM, dtype=np.int8)
        self.state = np.zeros(E.STATE_DIM, dtype=np.float32)
        self.fixed = [None if a is None else declared_answers(a) for a in self.by_seat]
        self.obs: Any = None  # the observation of the outside seat to decide
        self.seat = -1  # that seat (-1: the game is over)
        self.result: GameResult | None = None
        begin_seats(self.game, self.by_seat)
        faults, seats = self.faults, self.seats

        def on_fault(seat: int) -> None:
            faults[seats[seat]] += 1

        acts = [None if a is None else a.act for a in self.by_seat]
        self._steps = self.game.steps(acts, self.fixed, on_fault)
        self._pending: tuple[int, Any] | None = next(self._steps, None)
        self._advance()

    # -- reading ---------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.result is not None

    def agent_at(self, seat: int) -> int:
        """The agent index (0 = the learner) at `seat`."""
        return self.seats[seat]

    def seat_of(self, agent_index: int) -> int:
        """The seat of agent index `agent_index` in this game."""
        return self.seats.index(agent_index)

    def encode(self) -> np.ndarray:
        """The deciding outside seat's 240-dim state (a fresh array)."""
        return self.encoders[self.seat].encode(self.obs, self.state).copy()

    # -- playing ---------------------------------------------------------------------
    def play(self, action: Any) -> bool:
        """Answer the pending outside decision with an action index; run to the next
        outside decision or the end. Returns False if the index was outside the mask
        (the engine then plays the phase's default and records a Fault)."""
        if self.over:
            raise ValueError("the game is over: reset the environment")
        index = as_index(action)
        move = answer(index, self.obs, self.encoders[self.seat], self.mask)
        self._send(move)  # (a fault is counted by the driver)
        self._advance()
        return not isinstance(move, AgentFault)

    def _send(self, action: Any) -> None:
        try:
            self._pending = self._steps.send(action)
        except StopIteration:
            self._pending = None

    def _advance(self) -> None:
        """Answer the outside seats' automatic decisions until one must decide or the
        game ends."""
        encoders, mask, skip_forced = self.encoders, self.mask, self.skip_forced
        while self._pending is not None:
            seat, obs = self._pending
            auto = auto_action(obs, encoders[seat], mask, skip_forced)
            if auto is None:
                self.obs, self.seat = obs, seat
                return
            self._send(auto)
        self.obs, self.seat = None, -1
        self.result = game_result(self.game, self.seed, self.seats, self.faults)
        end_seats(self.by_seat, self.result)
