"""`python -m evaluation.timing [NAME...] [games=N] [opponents=[A,B,C]]`: decision time.

Plays each named agent (any registered agent; default the four DRL agents) in seat 0
against the opponents (default fp_a, fp_b, fp_c), game seeds `seed=` on, and times
every `act` call, then prints one JSON line per agent: decisions, the median and 99th
percentile in microseconds, games per CPU second of the whole table. For the DRL agents
also the same for network decisions alone and how many network choices fell in each
block of the action space (`choices`: what a policy spends its decisions on; their
detector is off, as in a tournament). `weights=PATH` plays a checkpoint instead of the
shipped weights (one DRL name only). Run it single-threaded for one-core figures:
`OMP_NUM_THREADS=1 python -m evaluation.timing planner games=20 opponents=[baseline,baseline,baseline]`.
"""

from __future__ import annotations

import json
import time
from collections import Counter

import numpy as np
from pydantic import Field, model_validator

import openmono
from agents.registry import make_agent
from openmono_cli import Options, games_field, read_options, seed_field

DRL = ("ppo", "hybrid_ppo", "ddqn", "hybrid_ddqn")
OPPONENTS = ("fp_a", "fp_b", "fp_c")


def time_agent(name: str, games: int, seed: int = 0, weights: str | None = None,
               opponents: tuple[str, ...] = OPPONENTS) -> dict:
    drl = name in DRL
    options = {"detector": "none", **({"weights": weights} if weights else {})} if drl else {}
    agent = make_agent(name, **options)
    inner = agent.act
    all_t: list[float] = []
    net_t: list[float] = []
    choices: Counter[str] = Counter()
    if drl:
        from agents.drl.encoding import block_of

        choose = agent.learner.choose

        def counted(x, idx, rng, greedy):
            i, extra = choose(x, idx, rng, greedy)
            choices[block_of(i)] += 1
            return i, extra

        agent.learner.choose = counted

    def timed(obs):
        before = agent.network_decisions if drl else 0
        t0 = time.perf_counter()
        a = inner(obs)
        dt = time.perf_counter() - t0
        all_t.append(dt)
        if drl and agent.network_decisions > before:
            net_t.append(dt)
        return a

    agent.act = timed  # every decision the agent is asked (fixed answers are not asked)
    t0 = time.process_time()
    for g in range(games):
        openmono.play_game(openmono.standard_schema(),
                           [agent, *(make_agent(o) for o in opponents)], seed=seed + g)
    cpu = time.process_time() - t0

    def us(xs, q):
        return round(float(np.percentile(xs, q)) * 1e6, 1) if xs else None
    row = {"agent": name, "opponents": list(opponents), "games": games, "seed": seed,
           "decisions": len(all_t), "median_us": us(all_t, 50), "p99_us": us(all_t, 99),
           "mean_us": round(float(np.mean(all_t)) * 1e6, 1) if all_t else None,
           "games_per_cpu_second": round(games / cpu, 2)}
    if drl:
        row.update(network_decisions=len(net_t), network_median_us=us(net_t, 50),
                   network_p99_us=us(net_t, 99), choices=dict(choices.most_common()))
    return row


class TimingOptions(Options):
    """Time every decision of agents in seat 0 against three opponents."""

    positional = ("names",)
    names: list[str] = Field(list(DRL), min_length=1, description="the agents to time")
    games: int = games_field(10)
    seed: int = seed_field()
    weights: str | None = Field(None, description="a checkpoint's weights (one DRL name only)")
    opponents: list[str] = Field(list(OPPONENTS), min_length=3, max_length=3,
                                 description="the three opponents")

    @model_validator(mode="after")
    def _one_drl_for_weights(self) -> "TimingOptions":
        if self.weights and (len(self.names) != 1 or self.names[0] not in DRL):
            raise ValueError(f"weights= needs exactly one DRL agent name ({', '.join(DRL)}), "
                             f"got {self.names}")
        return self


def main(argv: list[str] | None = None) -> int:
    args = read_options(TimingOptions, argv, "python -m evaluation.timing")
    if isinstance(args, int):
        return args
    for name in args.names:
        print(json.dumps(time_agent(name, args.games, args.seed, args.weights,
                                    tuple(args.opponents))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
