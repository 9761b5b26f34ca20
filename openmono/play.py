"""Play a game with agent objects: the fast driver of `Game.run()`.

Agents follow the protocol of `agents.base` (duck-typed here, since the engine imports
nothing above it): `act(observation) -> Action`, and optionally `seed(int)`,
`begin_game(seat, observation)` and `end_game(result)`. An agent that raises, returns
garbage or runs past `time_budget` seconds gets the phase's default action and a Fault
event; the game always goes on.
"""

from __future__ import annotations

import gc
import json
import random
import time
from dataclasses import asdict, dataclass, field
from typing import IO, Any, Sequence

from openmono.actions import Action, action_from_json
from openmono.decision import DecisionTimeout
from openmono.engine import AgentFault, Decision, Game, stream_seeds
from openmono.events import event_to_json
from openmono.hooks import NO_HOOKS, Hooks
from openmono.schema import GameSchema


@dataclass
class GameResult:
    """How a game ended. Seats are positions at the table; `seats[s]` is the index (in
    the list given to `play_game`) of the agent that sat at seat s."""

    seed: int
    seats: list[int]
    winner_seat: int
    winner: int
    end_reason: str
    turns: int
    net_worths: list[int]
    cash: list[int]
    bankrupt_order: list[int]
    stats: dict[str, int] = field(default_factory=dict)
    agent_faults: list[int] = field(default_factory=list)  # per agent index

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (what a trial records per game)."""
        return asdict(self)


def seat_order(seed: int, players: int) -> list[int]:
    """The agent index at each seat for this game seed (from the seats stream)."""
    order = list(range(players))
    random.Random(stream_seeds(seed, players, 0)["seats"]).shuffle(order)
    return order


def play_game(
    schema: GameSchema,
    agents: Sequence[Any],
    seed: int = 0,
    hooks: Hooks = NO_HOOKS,
    shuffle_seats: bool = True,
    seats: Sequence[int] | None = None,
    time_budget: float | None = None,
    log: IO[str] | None = None,
    game: Game | None = None,
    shown: GameSchema | None = None,
    informed: Sequence[int] = (),
) -> GameResult:
    """Play one game and return its result.

    `seats` fixes the agent index per seat (else they are shuffled by the seed when
    `shuffle_seats`). `log` receives a JSON-lines record that `replay` can re-run.
    `shown`: the rules agents are shown (else the true ones); `informed`: the indexes
    of the agents shown the true rules all the same.
    """
    n = len(agents)
    if seats is None:
        seats = seat_order(seed, n) if shuffle_seats else list(range(n))
    seats = list(seats)
    if sorted(seats) != list(range(n)):
        raise ValueError(f"seats must be a permutation of 0..{n - 1}, got {seats}")
    if game is None:
        game = Game(schema, players=n, seed=seed, hooks=hooks, shown=shown,
                    informed=frozenset(s for s, i in enumerate(seats) if i in informed))
    by_seat = [agents[i] for i in seats]
    faults = [0] * n
    if log is not None:
        header = {"type": "header", "seed": seed, "seats": seats, "players": n,
                  "schema": json.loads(schema.to_json())}
        if game.shown is not None:
            header["shown"] = json.loads(game.shown.to_json())
            if game.informed:
                header["informed"] = sorted(game.informed)  # seats
        _write(log, header)
    begin_seats(game, by_seat)
    # A game allocates many small tuples (events, observations) and makes no reference
    # cycles, so the cyclic collector only costs time here: run it rarely while playing.
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], 100_000), thresholds[1], thresholds[2])
    try:
        logged = _drive(game, by_seat, seats, faults, time_budget, log)
        st = game.state
        result = game_result(game, seed, seats, faults)
        if log is not None:
            _log_step(log, game.events, logged, None, None, None)
            _write(log, {"type": "result", "result": result.to_json(), "state": st.snapshot()})
        end_seats(by_seat, result)
    finally:
        # Let the game die by reference counting before the collector runs again, so
        # its objects are not scanned as survivors.
        game = st = None  # type: ignore[assignment]
        gc.set_threshold(*thresholds)
    return result


def begin_seats(game: Game, by_seat: Sequence[Any]) -> None:
    """Each seat's agent seeded and told the game begins, in seat order (`None`: an
    outside seat, whose first observation is only taken)."""
    begin = Decision("begin_game")
    for s, agent in enumerate(by_seat):
        if agent is None:
            game.observe(s, begin)  # what an agent's begin_game call consumes
            continue
        call_hook(agent, "seed", game.seeds[f"agent{s}"])
        call_hook(agent, "begin_game", s, game.observe(s, begin))


def game_result(game: Game, seed: int, seats: Sequence[int], faults: Sequence[int]
                ) -> GameResult:
    """The result of the finished `game` (`seats`: the agent index per seat; `faults`:
    per agent index)."""
    st = game.state
    return GameResult(
        seed=seed, seats=list(seats), winner_seat=game.winner, winner=seats[game.winner],
        end_reason=game.end_reason, turns=st.turn, net_worths=game.net_worths(),
        cash=list(st.cash), bankrupt_order=list(game.bankrupt_order),
        stats=dict(game.stats), agent_faults=list(faults))


def end_seats(by_seat: Sequence[Any], result: GameResult) -> None:
    """Each seat's agent told the result (outside seats, `None`, are skipped)."""
    for agent in by_seat:
        if agent is not None:
            call_hook(agent, "end_game", result)


def _drive(game: Game, by_seat: list[Any], seats: list[int], faults: list[int],
           time_budget: float | None, log: IO[str] | None) -> int:
    """Run the game's decision loop with the agents; returns how many events were logged."""
    acts = [agent.act for agent in by_seat]
    if time_budget is not None:
        acts = [_within_budget(act, time_budget) for act in acts]

    def on_fault(seat: int) -> None:
        faults[seats[seat]] += 1

    logged = [0]
    on_decision = None
    if log is not None:
        events = game.events

        def on_decision(seat: int, phase: str, action: Any) -> None:
            logged[0] = _log_step(log, events, logged[0], seat, phase, action)

    game.drive(acts, [declared_answers(agent) for agent in by_seat], on_fault, on_decision)
    return logged[0]


def _within_budget(act: Any, budget: float) -> Any:
    """`act`, answering a fault instead of the action when it took over `budget` s."""
    def timed(obs: Any) -> Any:
        t0 = time.perf_counter()
        action = act(obs)
        spent = time.perf_counter() - t0
        if spent > budget:
            return AgentFault(f"took {spent:.3f}s, over the {budget}s budget")
        return action

    return timed


def declared_answers(agent: Any) -> dict[str, Action] | None:
    """The agent's `fixed_answers` (see `agents.base`), kept only if they are actions."""
    try:
        answers = getattr(agent, "fixed_answers", None)
        if not answers:
            return None
        return {str(k): v for k, v in dict(answers).items() if isinstance(v, Action)} or None
    except Exception:  # noqa: BLE001 - a malformed declaration just is not used
        return None


def call_hook(agent: Any, method: str, *args: Any) -> None:
    """An agent's optional hook (`seed`, `begin_game`, `end_game`), if it has it; what
    it raises is ignored (an optional hook must not stop a game)."""
    fn = getattr(agent, method, None)
    if fn is None:
        return
    try:
        fn(*args)
    except (Exception, SystemExit, DecisionTimeout):  # noqa: BLE001 - optional hooks must
        pass  # not stop a game (DecisionTimeout: one ran past its budget)


def _write(log: IO[str], record: dict[str, Any]) -> None:
    log.write(json.dumps(record, separators=(",", ":")) + "\n")


def _log_step(log: IO[str], events: list, logged: int, seat: int | None, phase: str | None,
              action: Any) -> int:
    for ev in events[logged:]:
        _write(log, {"type": "event", **event_to_json(ev)})
    if seat is not None:
        if isinstance(action, AgentFault):
            act = {"kind": "__fault__", "reason": action.reason}
        else:
            act = action.to_json()
        _write(log, {"type": "decision", "seat": seat, "phase": phase, "action": act})
    return len(events)


class _Scripted:
    def __init__(self, actions: list[Any]) -> None:
        self.actions = actions
        self.i = 0

    def act(self, obs: Any) -> Any:
        a = self.actions[self.i]
        self.i += 1
        return a


def replay(lines: Sequence[str], hooks: Hooks = NO_HOOKS) -> tuple[Game, GameResult]:
    """Re-run a logged game from its header and decisions; returns the new game."""
    header = None
    per_seat: dict[int, list[Any]] = {}
    for line in lines:
        rec = json.loads(line)
        if rec["type"] == "header":
            header = rec
        elif rec["type"] == "decision":
            a = rec["action"]
            act = AgentFault(a["reason"]) if a["kind"] == "__fault__" else action_from_json(a)
            per_seat.setdefault(rec["seat"], []).append(act)
    if header is None:
        raise ValueError("not a game log: no header line")
    schema = GameSchema.model_validate(header["schema"])
    n = header["players"]
    seats = header["seats"]
    scripted = [_Scripted(per_seat.get(s, [])) for s in range(n)]
    # Scripted agents are indexed by seat; map them back to agent indices.
    agents: list[Any] = [None] * n
    for s, idx in enumerate(seats):
        agents[idx] = scripted[s]
    shown = header.get("shown")
    game = Game(schema, players=n, seed=header["seed"], hooks=hooks,
                shown=None if shown is None else GameSchema.model_validate(shown),
                informed=frozenset(int(s) for s in header.get("informed", ())))
    return game, play_game(schema, agents, seed=header["seed"], hooks=hooks, seats=seats,
                           game=game)
