"""Environment steps per second with random legal actions (figures in docs/results/speed.md).

    python -m envs.bench env=aec steps=20000 seed=0
    python -m envs.bench env=gym opponents=baseline steps=20000 seed=0
    python -m envs.bench env=vector envs=16 policy=network steps=20000 seed=0

A step is one `step()` call of a learner (AEC: any of the four players; Gymnasium: the
learner, the opponents' decisions running inside it; vector: one learner step in each
of `envs` environments, counted `envs` times). Episodes are played whole until `steps`
is reached; the last line is JSON. `policy=network` (gym and vector) picks with the
paper's network (240-1024-512-2922, seeded weights, the best legal output): one forward
per step, batched over the vector's environments; `policy=random`, a uniform legal action.
"""

from __future__ import annotations

import json
import time
from typing import Callable, Literal

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


def network_policy(seed: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The paper's network with seeded weights: (states (B, 240), masks (B, 2922)) -> the
    best legal action of each row."""
    from agents.drl.nn import MLP, PAPER_SIZES, masked_argmax

    net = MLP(PAPER_SIZES, rng=np.random.default_rng(seed))
    return lambda x, masks: masked_argmax(net.predict(x), masks)


def bench_gym(steps: int, seed: int, opponent: str, first_episode: bool = False,
              policy: str = "random") -> dict:
    """Steps per second of `openmono/Monopoly-v0` against three `opponent` agents."""
    from envs.gym_env import MonopolyEnv

    e = MonopolyEnv(opponents=[opponent] * 3)
    rng = np.random.default_rng(seed)
    net = network_policy(seed) if policy == "network" else None
    done = episodes = 0
    t0 = time.perf_counter()
    while done < steps and not (first_episode and episodes):
        obs, info = e.reset(seed=seed if episodes == 0 else None)
        episodes += 1
        over = False
        while not over and not (first_episode and done >= steps):
            mask = info["action_mask"]
            a = pick(rng, mask) if net is None else int(net(obs[None], mask[None] != 0)[0])
            obs, _, over, _, info = e.step(a)
            done += 1
    return {"env": "gym", "opponents": opponent, "policy": policy, "steps": done,
            "episodes": episodes, "seconds": round(time.perf_counter() - t0, 2)}


def bench_vector(steps: int, seed: int, opponent: str, envs: int,
                 policy: str = "random") -> dict:
    """Steps per second of `envs` environments in lockstep (`envs.vector`), each step
    one batched forward when `policy=network`."""
    from envs.vector import MonopolyVectorEnv

    e = MonopolyVectorEnv(envs, opponents=[opponent] * 3)
    rng = np.random.default_rng(seed)
    net = network_policy(seed) if policy == "network" else None
    obs, _ = e.reset(seed=seed)
    done = episodes = 0
    t0 = time.perf_counter()
    while done < steps:
        masks = e.action_masks()
        actions = (np.array([pick(rng, m) for m in masks]) if net is None
                   else net(obs, masks))
        obs, _, term, trunc, _ = e.step(actions)
        episodes += int((term | trunc).sum())
        done += envs
    return {"env": "vector", "envs": envs, "opponents": opponent, "policy": policy,
            "steps": done, "episodes": max(episodes, 1),
            "seconds": round(time.perf_counter() - t0, 2)}


class EnvBenchOptions(Options):
    """Steps per second of the environments."""

    env: Literal["aec", "gym", "vector"] = Field("aec", description="which environment")
    steps: int = Field(20000, ge=1, description="environment steps to take")
    seed: int = seed_field()
    opponents: str = Field("baseline", description="gym, vector: the three opponents' agent")
    envs: int = Field(16, ge=1, description="vector: environments stepped together")
    policy: Literal["random", "network"] = Field(
        "random", description="gym, vector: uniform legal actions, or the paper's network")
    first_episode: bool = Field(False, description="play only the seeded first episode, "
                                "stopping after `steps` steps (for instruction counts)")


def main(argv: list[str] | None = None) -> None:
    """`python -m envs.bench`: prints one JSON line."""
    args = cli(EnvBenchOptions, argv, "python -m envs.bench")
    if args.env == "aec":
        out = bench_aec(args.steps, args.seed, args.first_episode)
    elif args.env == "gym":
        out = bench_gym(args.steps, args.seed, args.opponents, args.first_episode, args.policy)
    else:
        out = bench_vector(args.steps, args.seed, args.opponents, args.envs, args.policy)
    out["steps_per_second"] = round(out["steps"] / out["seconds"], 1)
    out["seconds_per_episode"] = round(out["seconds"] / out["episodes"], 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
