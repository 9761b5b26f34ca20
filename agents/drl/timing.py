"""`python -m agents.drl.timing [names...] [--games N]`: decision time of DRL agents.

Plays each named agent against fp_a, fp_b, fp_c and times every `act` call (all of
them: network, hybrid rule and fallback decisions), then prints one JSON line per agent
with the median and 99th percentile in microseconds, the same for network decisions
alone, and how many network choices fell in each block of the action space (`choices`:
what a policy spends its decisions on). `--weights PATH` plays a checkpoint instead of
the shipped weights (one name only). Run it single-threaded for one-core figures:
`OPENBLAS_NUM_THREADS=1 python -m agents.drl.timing hybrid_ppo --games 20`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np

import openmono
from agents.drl.encoding import block_of
from agents.registry import make_agent


def time_agent(name: str, games: int, seed: int = 0, weights: str | None = None) -> dict:
    agent = make_agent(name, detector="none", **({"weights": weights} if weights else {}))
    inner = agent.act
    all_t: list[float] = []
    net_t: list[float] = []
    choices: Counter[str] = Counter()
    choose = agent.learner.choose

    def counted(x, idx, rng, greedy):
        i, extra = choose(x, idx, rng, greedy)
        choices[block_of(i)] += 1
        return i, extra

    agent.learner.choose = counted

    def timed(obs):
        before = agent.network_decisions
        t0 = time.perf_counter()
        a = inner(obs)
        dt = time.perf_counter() - t0
        all_t.append(dt)
        if agent.network_decisions > before:
            net_t.append(dt)
        return a

    agent.act = timed
    t0 = time.perf_counter()
    for g in range(games):
        openmono.play_game(openmono.standard_schema(),
                           [agent, make_agent("fp_a"), make_agent("fp_b"), make_agent("fp_c")],
                           seed=seed + g)
    wall = time.perf_counter() - t0

    def us(xs, q):
        return round(float(np.percentile(xs, q)) * 1e6, 1) if xs else None
    return {"agent": name, "games": games, "decisions": len(all_t),
            "median_us": us(all_t, 50), "p99_us": us(all_t, 99),
            "network_decisions": len(net_t), "network_median_us": us(net_t, 50),
            "network_p99_us": us(net_t, 99), "games_per_second": round(games / wall, 2),
            "choices": dict(choices.most_common())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=["ppo", "hybrid_ppo", "ddqn", "hybrid_ddqn"])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--weights", default=None, help="a checkpoint's weights (one name only)")
    args = ap.parse_args()
    if args.weights and len(args.names) != 1:
        ap.error("--weights needs exactly one agent name")
    for name in args.names:
        print(json.dumps(time_agent(name, args.games, args.seed, args.weights)))


if __name__ == "__main__":
    main()
