"""`python -m evaluation.bench`: how fast the engine plays, with chosen agents.

    python -m evaluation.bench games=500 agents=[random,random,random,random] seed=1
    python -m evaluation.bench games=200 agents=[baseline,baseline,baseline,baseline@process]

Prints a table, then as its last line one JSON object (games, games_per_second,
turns_per_game, agents, ...). With `engine_only=true` the time spent inside agents'
`act` is measured and subtracted, giving the engine's own cost per player-turn.
Runs on one core (one process). `games_per_cpu_second` uses the process's CPU time,
which stays meaningful on a machine shared with other jobs; `games_per_second` is wall
clock.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from typing import Any

from pydantic import Field

from openmono_cli import cli, games_field, progress_field, seed_field
from openmono.play import play_game

from agents.registry import UnknownAgentError
from agents.remote.isolated import parse_isolation
from evaluation.harness.cli import NoveltyOptions, UsageError, fail, novelty_world, seated_or_usage
from evaluation.harness.remote_seats import RemoteSeatOptions, make_agents


class BenchOptions(NoveltyOptions, RemoteSeatOptions):
    """How fast the engine plays, with chosen agents (one process)."""

    games: int = games_field(200)
    agents: list[str] = Field(["random", "random", "random", "random"], min_length=2,
                              description="the seats' agents (NAME@process: that seat in a "
                              "child process)")
    seed: int = seed_field()
    engine_only: bool = Field(False, description="subtract the time spent in agents' act: "
                              "the engine's own cost per player-turn")
    progress: bool = progress_field()
    isolate: str = Field("none", description="process: every in-process agent in a child "
                         "process")


class _Timed:
    """Wraps an agent and accumulates the time spent in its `act`."""

    def __init__(self, agent: Any, clock: list[float]) -> None:
        self.agent = agent
        self.clock = clock
        # Answered by the driver without `act` (see `agents.base`), as when unwrapped.
        self.fixed_answers = getattr(agent, "fixed_answers", None)

    def seed(self, s: int) -> None:
        if hasattr(self.agent, "seed"):
            self.agent.seed(s)

    def begin_game(self, seat: int, obs: Any) -> None:
        if hasattr(self.agent, "begin_game"):
            self.agent.begin_game(seat, obs)

    def end_game(self, result: Any) -> None:
        if hasattr(self.agent, "end_game"):
            self.agent.end_game(result)

    def act(self, obs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self.agent.act(obs)
        finally:
            self.clock[0] += time.perf_counter() - t0


class _Noop:
    def act(self, obs: Any) -> None:
        return None


def _wrapper_overhead(calls: int = 200_000) -> float:
    """Seconds per call that `_Timed` adds outside the agent time it records."""
    direct = _Noop()
    clock = [0.0]
    wrapped = _Timed(_Noop(), clock)
    t0 = time.perf_counter()
    for _ in range(calls):
        direct.act(None)
    t1 = time.perf_counter()
    for _ in range(calls):
        wrapped.act(None)
    t2 = time.perf_counter()
    return max(0.0, ((t2 - t1) - clock[0] - (t1 - t0)) / calls)


def run(cfg: BenchOptions) -> dict[str, Any]:
    games = cfg.games
    names = list(cfg.agents)
    schema, hooks, label = novelty_world(cfg)
    try:
        every = parse_isolation(cfg.isolate, "isolate")
        agents = make_agents(names, cfg.remote(), isolate=every)
    except ValueError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    with seated_or_usage(agents):
        return _bench(cfg, games, names, schema, hooks, label, agents)


def _bench(cfg: BenchOptions, games: int, names: list[str], schema: Any, hooks: Any,
           label: str, agents: list[Any]) -> dict[str, Any]:
    clock = [0.0]
    players = [_Timed(a, clock) for a in agents] if cfg.engine_only else agents
    turns = decisions = 0
    wins = [0] * len(names)
    bankrupt_end = 0
    bar = None
    if cfg.progress:
        from tqdm import tqdm

        # Updated every 1% of the games: the bar costs nothing measurable.
        bar = tqdm(total=games, unit="game", desc="bench", file=sys.stderr, leave=False,
                   mininterval=0.5)
    step = max(1, games // 100)
    t0 = time.perf_counter()
    c0 = time.process_time()
    for g in range(games):
        r = play_game(schema, players, seed=cfg.seed + g, hooks=hooks)
        turns += r.turns
        decisions += r.stats["decisions"]
        wins[r.winner] += 1
        bankrupt_end += r.end_reason == "bankruptcy"
        if bar is not None and (g + 1) % step == 0:
            bar.update(step)
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    if bar is not None:
        bar.close()
    out = {
        "games": games,
        "agents": names,
        "novelty": label,
        "seed": cfg.seed,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 2),
        "cpu_seconds": round(cpu, 3),
        "games_per_cpu_second": round(games / cpu, 2) if cpu > 0 else None,
        "turns_per_game": round(turns / games, 1),
        "decisions_per_game": round(decisions / games, 1),
        "us_per_turn": round(elapsed / turns * 1e6, 2),
        "bankruptcy_share": round(bankrupt_end / games, 3),
        "wins": wins,
        "python": platform.python_version(),
    }
    out.update(_remote_rates(agents))
    if cfg.engine_only:
        # The timing wrapper itself costs a little per decision; measure and remove it.
        engine = elapsed - clock[0] - decisions * _wrapper_overhead()
        out["agent_seconds"] = round(clock[0], 3)
        out["engine_us_per_turn"] = round(engine / turns * 1e6, 2)
        out["engine_us_per_decision"] = round(engine / decisions * 1e6, 2)
    return out


def _remote_rates(agents: list[Any]) -> dict[str, Any]:
    """Remote seats: decisions over the wire per second of waiting for them (the
    encoding, the round trip and the client's own thinking); nothing without one."""
    seats = [a for a in agents if hasattr(a, "wire_seconds")]
    if not seats:
        return {}
    remote = sum(a.decisions for a in seats)
    wire = sum(a.wire_seconds for a in seats)
    return {"remote_decisions": remote,
            "remote_decisions_per_second": round(remote / wire, 1) if wire else None,
            "remote_faults": sum(sum(a.game_faults.values()) for a in seats)}


def main(argv: list[str] | None = None) -> int:
    try:
        out = run(cli(BenchOptions, argv, "python -m evaluation.bench"))
    except (UsageError, UnknownAgentError) as exc:
        fail(str(exc))
    rows = [(k, v) for k, v in out.items() if k not in ("agents", "wins")]
    rows.insert(1, ("agents", ",".join(out["agents"])))
    width = max(len(k) for k, _ in rows)
    print("openmono benchmark")
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
