"""Environment steps per second with random legal actions (figures in docs/results/speed.md).

    python -m envs.bench env=aec steps=20000 seed=0
    python -m envs.bench env=gym opponents=baseline steps=20000 seed=0

A step is one `step()` call of a learner (AEC: any of the four players; Gymnasium: the
learner, the opponents' decisions running inside it). Episodes are played whole until
`steps` is reached; the last line is JSON.
"""

from __future__ import annotations

import json
import time
from typing import Literal

import numpy as np
from pydantic import Field

from openmono_cli import Options, cli, seed_field


def pick(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniform legal action (indexing with `integers` costs a third of `rng.choice`: the
    driver's share of a step is kept small, so the figure is the environment's)."""
    legal = mask.nonzero()[0]
    return int(legal[rng.integers(len(legal))])


def bench_aec(steps: int, seed: int, first_episode: bool = False) -> dict:
    """Steps per second of the AEC environment, every player acting at random."""
    from envs.aec import env

    e = env()
    rng = np.random.default_rng(seed)
    done = episodes = 0
    t0 = time.perf_counter()
    while done < steps and not (first_episode and episodes):
        e.reset(seed=seed if episodes == 0 else None)
        episodes += 1
        for agent in e.agent_iter():
            if first_episode and done >= steps:
                break
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(pick(rng, obs["action_mask"]))
            done += 1
    return {"env": "aec", "steps": done, "episodes": episodes,
            "seconds": round(time.perf_counter() - t0, 2)}


def bench_gym(steps: int, seed: int, opponent: str, first_episode: bool = False) -> dict:
    """Steps per second of `openmono/Monopoly-v0` against three `opponent` agents."""
    from envs.gym_env import MonopolyEnv

    e = MonopolyEnv(opponents=[opponent] * 3)
    rng = np.random.default_rng(seed)
    done = episodes = 0
    t0 = time.perf_counter()
    while done < steps and not (first_episode and episodes):
        _, info = e.reset(seed=seed if episodes == 0 else None)
        episodes += 1
        over = False
        while not over and not (first_episode and done >= steps):
            _, _, over, _, info = e.step(pick(rng, info["action_mask"]))
            done += 1
    return {"env": "gym", "opponents": opponent, "steps": done, "episodes": episodes,
            "seconds": round(time.perf_counter() - t0, 2)}


class EnvBenchOptions(Options):
    """Steps per second of the environments."""

    env: Literal["aec", "gym"] = Field("aec", description="which environment")
    steps: int = Field(20000, ge=1, description="environment steps to take")
    seed: int = seed_field()
    opponents: str = Field("baseline", description="gym: the three opponents' agent")
    first_episode: bool = Field(False, description="play only the seeded first episode, "
                                "stopping after `steps` steps (for instruction counts)")


def main(argv: list[str] | None = None) -> None:
    """`python -m envs.bench`: prints one JSON line."""
    args = cli(EnvBenchOptions, argv, "python -m envs.bench")
    out = (bench_aec(args.steps, args.seed, args.first_episode) if args.env == "aec"
           else bench_gym(args.steps, args.seed, args.opponents, args.first_episode))
    out["steps_per_second"] = round(out["steps"] / out["seconds"], 1)
    out["seconds_per_episode"] = round(out["seconds"] / out["episodes"], 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
