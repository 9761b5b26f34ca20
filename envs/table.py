"""One game driven a decision at a time, for the environments (no Gymnasium here).

`play_game` runs a game in one closed loop; an RL library needs to stop at each of a
learner's decisions and wait for its action. `Table` runs the same `Game.run()`
generator and stops whenever an *outside* seat (a learner) must decide; the other seats
are ordinary agents answered in place, exactly as `play_game` answers them (seed and
`begin_game` calls in the same order, `fixed_answers`, exceptions and non-actions as
faults), so a game here has the events of the same game in `evaluation.trial`
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
from openmono.actions import Action
from openmono.engine import AgentFault, Decision, Game
from openmono.hooks import NO_HOOKS, Hooks
from openmono.play import GameResult, call_hook, declared_answers, seat_order
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
        begin = Decision("begin_game")
        game = self.game
        for s, agent in enumerate(self.by_seat):
            if agent is None:
                game.observe(s, begin)  # what play_game's begin_game call consumes
                continue
            call_hook(agent, "seed", game.seeds[f"agent{s}"])
            call_hook(agent, "begin_game", s, game.observe(s, begin))
        self._gen = game.run()
        try:
            self._pending: tuple[int, Decision] | None = next(self._gen)
        except StopIteration:
            self._pending = None
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
        legal = not isinstance(move, AgentFault)
        if not legal:
            self.faults[self.seats[self.seat]] += 1
        self._send(move)
        self._advance()
        return legal

    def _send(self, action: Any) -> None:
        try:
            self._pending = self._gen.send(action)
        except StopIteration:
            self._pending = None

    def _advance(self) -> None:
        """Answer in-place decisions until an outside seat must decide or the game ends."""
        game, by_seat, fixed = self.game, self.by_seat, self.fixed
        while self._pending is not None:
            seat, d = self._pending
            agent = by_seat[seat]
            if agent is None:
                obs = game.observe(seat, d)
                auto = auto_action(obs, self.encoders[seat], self.mask, self.skip_forced)
                if auto is None:
                    self.obs, self.seat = obs, seat
                    return
                self._send(auto)
                continue
            answers = fixed[seat]
            if answers is not None and d.phase in answers:
                self._send(answers[d.phase])
                continue
            obs = game.observe(seat, d)
            try:
                action = agent.act(obs)
            except Exception as exc:  # noqa: BLE001 - an agent must never crash a game
                action = AgentFault(f"raised {type(exc).__name__}: {exc}")
            if not isinstance(action, Action):
                if not isinstance(action, AgentFault):
                    action = AgentFault(f"returned {type(action).__name__}, not an Action")
                self.faults[self.seats[seat]] += 1
            self._send(action)
        self._finish()

    def _finish(self) -> None:
        game, st, seats = self.game, self.game.state, self.seats
        self.obs, self.seat = None, -1
        self.result = GameResult(
            seed=self.seed, seats=list(seats), winner_seat=game.winner,
            winner=seats[game.winner], end_reason=game.end_reason, turns=st.turn,
            net_worths=game.net_worths(), cash=list(st.cash),
            bankrupt_order=list(game.bankrupt_order), stats=dict(game.stats),
            agent_faults=list(self.faults))
        for agent in self.by_seat:
            if agent is not None:
                call_hook(agent, "end_game", self.result)
