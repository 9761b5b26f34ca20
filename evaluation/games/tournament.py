"""`python -m evaluation.tournament`: head-to-head games, tabled like the hybrid-DRL paper.

    python -m evaluation.tournament agents=[fp_a,fp_b,fp_c,baseline] games=2000 runs=5 seed=0

Plays `runs` x `games` games between the named agents (one agent object per name; a
name may repeat) on the standard board, seat order shuffled per game by the game seed.
Run r (0-based), game g uses seed `seed + r * games + g`, so runs never share a seed
and any single game can be replayed alone. Prints the layout of the paper's Tables
II-VIII (a row of wins per run, then a Win Rate row), then, as its last line, one JSON
object: agents, wins (same order), games, games_per_second, plus per-run wins, win
rates, accepted trades and auctions per game, how games ended (bankruptcy / turn
limit) and turns per game. Options: `agent.NAME.KEY=VALUE` builds every seat of agent
NAME with that constructor option (`agent.hybrid_ppo.weights=PATH`); `progress=false`
hides the progress bar (shown on stderr by default when more than 200 games are
played); `ray=local|auto|host:port` plays every run as a Ray task (docs/scaling.md).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Sequence

from openmono import standard_schema
from openmono.hooks import NO_HOOKS
from openmono.play import play_game

from pydantic import Field

from openmono_cli import cli, games_field, progress_field, seed_field

from agents.registry import UnknownAgentError, make_agent, option_names, told_rules
from evaluation.harness.cli import (NOVELTY_DEFAULTS, AgentOptions, NoveltyOptions, UsageError,
                                    fail, novelty_world, seated_or_usage)
from evaluation.harness.remote_seats import RemoteSeatOptions, make_agents


class TournamentOptions(NoveltyOptions, AgentOptions, RemoteSeatOptions):
    """Head-to-head games between named agents, tabled like the hybrid-DRL paper."""

    agents: list[str] = Field(["fp_a", "fp_b", "fp_c", "baseline"],
                              description="the seats' agents (a name may repeat)")
    games: int = games_field(2000, "games per run")
    runs: int = Field(5, ge=1, description="runs; run r plays seeds seed + r x games onward")
    seed: int = seed_field()
    progress: bool = progress_field()
    ray: str | None = Field(None, description="play every run as a Ray task: local, auto or "
                            "host:port")


def _play_run(agents: list[Any], schema: Any, hooks: Any, seed: int, run: int, games: int,
              bar: Any = None) -> dict[str, Any]:
    """One run's tallies (the unit a Ray task plays with `ray=`). A tournament names its
    engine seeds directly: run r plays seeds seed + r * games onward, so `seed=200000
    games=1000` is the held-out range 200,000 to 200,999 whatever the runs."""
    first = seed + run * games
    row = [0] * len(agents)
    ends: dict[str, int] = {}
    trades = auctions = turns = faults = 0
    for g in range(games):
        res = play_game(schema, agents, seed=first + g, hooks=hooks)
        row[res.winner] += 1
        ends[res.end_reason] = ends.get(res.end_reason, 0) + 1
        trades += res.stats.get("trades", 0)
        auctions += res.stats.get("auctions", 0)
        faults += res.stats.get("faults", 0)
        turns += res.turns
        if bar is not None:
            bar.update(1)
    return {"row": row, "ends": ends, "trades": trades, "auctions": auctions, "turns": turns,
            "faults": faults}


def remote_run(names: list[str], world_cfg: dict[str, Any], seed: int, run: int,
               games: int, options: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """A run on a Ray worker: fresh agents, the world rebuilt from the options."""
    schema, hooks, _ = novelty_world(world_cfg)
    agents = [make_agent(n, **(options or {}).get(n, {})) for n in names]
    return _play_run(agents, schema, hooks, seed, run, games)


def _runs_on_ray(names: list[str], games: int, runs: int, seed: int, address: str,
                 world_cfg: dict[str, Any],
                 options: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    import ray

    from evaluation.trials.ray_trials import RayOptions, start_ray

    started = start_ray(RayOptions(address=None if address == "local" else address))
    try:
        task = ray.remote(remote_run).options(num_cpus=1, max_retries=3)
        return ray.get([task.remote(names, world_cfg, seed, r, games, options)
                        for r in range(runs)])
    finally:
        if started:
            ray.shutdown()


def run_tournament(names: Sequence[str], games: int, runs: int = 1, seed: int = 0,
                   progress: bool = False, world: tuple[Any, Any] | None = None,
                   remote: dict[str, Any] | None = None, ray: str | None = None,
                   world_cfg: dict[str, Any] | None = None,
                   options: dict[str, dict[str, Any]] | None = None,
                   tally: Any = None) -> dict[str, Any]:
    """Play the tournament and return its summary (the JSON the CLI prints).

    `tally`, if given, is told of every finished game as a progress bar is
    (`tally.update(1)`): a caller that runs tournaments in worker processes counts
    them there for one bar of its own.

    With `ray=ADDRESS` (`local`, `auto`, `host:port`) every run is a Ray task with its own
    agents: the same games as one process for agents that carry nothing from one game to
    the next (the fixed-policy, baseline and random agents)."""
    names = list(names)
    if len(names) < 2:
        raise UsageError("agents needs at least two names, e.g. agents=[baseline,random]")
    if games <= 0 or runs <= 0:
        raise UsageError(f"games and runs must be positive, got games={games} runs={runs}")
    if seed < 0:
        raise UsageError(f"seed must be an integer >= 0, got {seed}")
    if ray is not None and "remote" in names:
        raise UsageError("ray= plays every run on a Ray worker: it cannot seat remote agents")
    options = options or {}
    stray = [n for n in options if n not in names]
    if stray:
        raise UsageError(f"agent.{stray[0]}.* is given but {stray[0]!r} is not among "
                         f"agents={names}")
    for name, given in options.items():
        valid = option_names(name)  # raises UnknownAgentError
        bad = [k for k in given if valid is not None and k not in valid]
        if bad:
            raise UsageError(f"agent {name!r} has no option {bad[0]!r}; its options: "
                             f"{', '.join(valid) or 'none'}")
    try:
        agents = make_agents(names, remote or {}, options)  # raises UnknownAgentError
    except TypeError as exc:
        raise UsageError(f"bad option for an agent among {sorted(options)}: {exc}") from None
    except ValueError as exc:
        if isinstance(exc, UnknownAgentError):
            raise
        raise UsageError(str(exc).splitlines()[0]) from None
    with seated_or_usage(agents):
        summary = _play(names, agents, games, runs, seed, progress, world, ray, world_cfg,
                        options, tally)
    return {**summary, "agent_options": options}


def _play(names: list[str], agents: list[Any], games: int, runs: int, seed: int,
          progress: bool, world: tuple[Any, Any] | None, ray: str | None = None,
          world_cfg: dict[str, Any] | None = None,
          options: dict[str, dict[str, Any]] | None = None,
          tally: Any = None) -> dict[str, Any]:
    schema, hooks = world if world is not None else (standard_schema(), NO_HOOKS)
    total = games * runs
    bar = tally
    if progress and ray is None and tally is None:
        from tqdm import tqdm

        bar = tqdm(total=total, desc="games", unit="game", file=sys.stderr,
                   disable=total <= 200, leave=False)
    t0 = time.perf_counter()
    c0 = time.process_time()
    try:
        if ray is not None:
            parts = _runs_on_ray(names, games, runs, seed, ray,
                                 world_cfg or dict(NOVELTY_DEFAULTS), options or {})
        else:
            parts = [_play_run(agents, schema, hooks, seed, r, games, bar) for r in range(runs)]
    finally:
        if bar is not None and bar is not tally:
            bar.close()
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    per_run = [p["row"] for p in parts]
    ends: dict[str, int] = {}
    for p in parts:
        for k, v in p["ends"].items():
            ends[k] = ends.get(k, 0) + v
    trades, auctions, turns, faults = (sum(p[k] for p in parts)
                                       for k in ("trades", "auctions", "turns", "faults"))
    wins = [sum(row[i] for row in per_run) for i in range(len(names))]
    return {
        "agents": names,
        "wins": wins,
        "games": total,
        "runs": runs,
        "games_per_run": games,
        "seed": seed,
        "wins_per_run": per_run,
        "win_rate": [round(w / total, 4) for w in wins],
        "games_per_second": round(total / elapsed, 2) if elapsed > 0 else None,
        "seconds": round(elapsed, 2),
        "cpu_seconds": round(cpu, 2),  # games/s on a shared machine: games / cpu_seconds
        "trades_per_game": round(trades / total, 3),
        "auctions_per_game": round(auctions / total, 3),
        "turns_per_game": round(turns / total, 1),
        "bankruptcy_share": round(ends.get("bankruptcy", 0) / total, 4),
        "turn_limit_share": round(ends.get("turn_limit", 0) / total, 4),
        "end_reasons": ends,
        "faults": faults,
    }


def labels(names: Sequence[str]) -> list[str]:
    """Column labels: repeated names get #2, #3..."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if names.count(n) == 1 else f"{n}#{seen[n]}")
    return out


def format_table(summary: dict[str, Any]) -> str:
    """The paper's layout: Run | one column per agent, then the Win Rate row."""
    cols = ["Run"] + labels(summary["agents"])
    rows = [[str(i + 1)] + [str(w) for w in row] for i, row in enumerate(summary["wins_per_run"])]
    rows.append(["Win Rate"] + [f"{100 * w:.2f}%" for w in summary["win_rate"]])
    width = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(width[i]) if i == 0 else c.rjust(width[i])
                       for i, c in enumerate(line)) for line in [cols] + rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    try:
        cfg = cli(TournamentOptions, argv, "python -m evaluation.tournament")
        options = cfg.per_agent()
        names = [str(n) for n in cfg.agents]
        for name in dict.fromkeys(names):  # agents with prior beliefs are told the rules
            told = told_rules(name, options.get(name, {}), cfg.rules)
            if told:
                options[name] = told
        schema, hooks, label = novelty_world(cfg)
        ray = cfg.ray
        if ray is not None:
            from evaluation.harness.launchers import problem

            why = problem("ray")
            if why:
                raise UsageError(why.replace("hydra/launcher=ray", "ray=ADDRESS"))
        summary = run_tournament(names, cfg.games, cfg.runs, cfg.seed, progress=cfg.progress,
                                 world=(schema, hooks), remote=cfg.remote(), ray=ray,
                                 world_cfg=cfg.world(), options=options)
        summary["novelty"] = label
    except (UsageError, UnknownAgentError) as exc:
        fail(str(exc))
    print(f"Wins over {summary['runs']} run(s) of {summary['games_per_run']} games "
          f"(seed {summary['seed']}, seats shuffled per game)")
    print(format_table(summary))
    print(f"accepted trades/game {summary['trades_per_game']}, auctions/game "
          f"{summary['auctions_per_game']}, turns/game {summary['turns_per_game']}, "
          f"ended by bankruptcy {100 * summary['bankruptcy_share']:.1f}%, "
          f"by turn limit {100 * summary['turn_limit_share']:.1f}%, "
          f"{summary['games_per_second']} games/s")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
