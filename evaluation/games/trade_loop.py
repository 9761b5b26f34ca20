"""`python -m evaluation.trade_loop`: the learner's sell-and-buy-back loop, counted.

    OMP_NUM_THREADS=1 python -m evaluation.trade_loop agents=[fp_a,fp_b,fp_c,hybrid_ppo] \
        learner=hybrid_ppo games=200 seed=520000 rules=gnome agent.hybrid_ppo.detector=none

Plays the games a tournament with the same agents, games and seed plays (one run: game
g has seed `seed + g`, seats shuffled by it), then counts from each game's accepted
trades what the `learner` seat sold and bought for cash alone, by price level (0.75x,
1x, 1.25x the printed price, or other; how many an opponent offered), and its cycles: a property it sold and later
bought back, named by the two levels ("1.25x->0.75x"). Why a command of its own: the
results page's claim about the loop's prices rests on these counts, not on one game.
The last line is one JSON object: the learner's wins with a Wilson 95% interval, the
opponents' wins, accepted trades and turns per game, the levels and the cycles.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from agents.registry import UnknownAgentError, make_agent, told_rules
from evaluation.harness.cli import (AgentOptions, NoveltyOptions, UsageError, fail,
                                    novelty_world)
from evaluation.measures.intervals import wilson_interval
from evaluation.measures.trade_cycles import CycleTally, seat_cycles
from openmono.engine import Game
from openmono.play import play_game
from openmono_cli import cli, games_field, seed_field


class TradeLoopOptions(NoveltyOptions, AgentOptions):
    """The learner's sell-and-buy-back cycles over a tournament's games."""

    agents: list[str] = Field(["fp_a", "fp_b", "fp_c", "hybrid_ppo"],
                              description="the seats' agents (as a tournament names them)")
    learner: str = Field("hybrid_ppo", description="the agent whose trades are counted "
                         "(named once among agents)")
    games: int = games_field(200)
    seed: int = seed_field()


def count_loop(names: list[str], learner: str, games: int, seed: int, schema: Any,
               hooks: Any, options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Play the games and return the learner's tally (the JSON the command prints)."""
    if names.count(learner) != 1:
        raise UsageError(f"learner={learner!r} must be named exactly once in agents={names}")
    agents = [make_agent(n, **options.get(n, {})) for n in names]
    index = names.index(learner)
    prices = [sq.price for sq in schema.squares]
    tally = CycleTally()
    wins = [0] * len(names)
    trades = turns = 0
    for g in range(games):
        game = Game(schema, players=len(agents), seed=seed + g, hooks=hooks)
        res = play_game(schema, agents, seed=seed + g, hooks=hooks, game=game)
        wins[res.winner] += 1
        trades += res.stats.get("trades", 0)
        turns += res.turns
        tally.add(seat_cycles(game.events, res.seats.index(index), prices))
    lo, hi = wilson_interval(wins[index], games)
    return {
        "agents": names, "learner": learner, "games": games, "seed": seed,
        "rules": schema.name, "wins": wins, "learner_wins": wins[index],
        "rate": round(wins[index] / games, 4), "lo": round(lo, 4), "hi": round(hi, 4),
        "trades_per_game": round(trades / games, 1), "turns_per_game": round(turns / games, 1),
        "sells": dict(sorted(tally.sells.items())), "buys": dict(sorted(tally.buys.items())),
        "offered_by_opponents": dict(sorted(tally.offered_by_partner.items())),
        "cycles": tally.cycle_count, "cycles_by_level": dict(tally.cycles.most_common()),
        "cycles_per_game": round(tally.cycle_count / games, 1),
        "cycle_gain_per_game": round(tally.cycle_gain / games, 1),
    }


def main(argv: list[str] | None = None) -> int:
    try:
        cfg = cli(TradeLoopOptions, argv, "python -m evaluation.trade_loop")
        names = [str(n) for n in cfg.agents]
        options = cfg.per_agent()
        for name in dict.fromkeys(names):  # agents with prior beliefs are told the rules
            options[name] = told_rules(name, options.get(name, {}), cfg.rules)
        schema, hooks, _ = novelty_world(cfg.world())
        summary = count_loop(names, cfg.learner, cfg.games, cfg.seed, schema, hooks, options)
    except (UsageError, UnknownAgentError) as exc:
        fail(str(exc))
    except TypeError as exc:  # an option the agent's constructor does not take
        fail(f"bad option for an agent among {sorted(cfg.agent)}: {exc}")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
