"""`python -m agents.drl.probe PROBE.npz CHECKPOINT.npz ... [games=4] [seed=700000] [every=4]`:
DDQN value drift on fixed states.

Q-learning's max over noisy values overestimates, and with a discount of 0.999 the error
compounds over a game's ~1,000 decisions. A learning curve does not show it (the policy
can still win while its values drift); values on a fixed set of states do. The probe set
is every `every`-th network decision of `games` games that the `PROBE.npz` agent plays
greedily against `fp_a, fp_b, fp_c` (game seeds from `seed`), so each checkpoint is
valued on the same states. Under the delta reward no game can pay more than
(1 - share) x reward_scale from a decision at that share: the report counts the states
whose best value is past that bound. Prints one JSON line per checkpoint.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
from pydantic import Field

from openmono_cli import Options, cli, games_field, seed_field

OPPONENTS = ("fp_a", "fp_b", "fp_c")


@dataclass(frozen=True)
class ProbeState:
    x: np.ndarray  # the encoded state
    legal: np.ndarray  # the legal action indices
    share: float  # the deciding player's share of the table's net worth


def probe_states(weights: str, games: int = 4, seed: int = 700_000,
                 every: int = 4) -> list[ProbeState]:
    """The states of `games` greedy games of the DDQN in `weights` (hybrid routing)."""
    import openmono
    from agents.drl.agent import DRLAgent
    from agents.drl.reward import share
    from agents.registry import make_agent
    from openmono.play import play_game

    agent = DRLAgent("ddqn", "hybrid", weights=weights, detector="none")
    seen: list[ProbeState] = []
    current = {"share": 0.0}
    choose, act = agent.learner.choose, agent.act

    def recording_choose(x, idx, rng, greedy):
        seen.append(ProbeState(x.copy(), idx.copy(), current["share"]))
        return choose(x, idx, rng, greedy)

    def sharing_act(obs):
        current["share"] = share(obs)
        return act(obs)

    agent.learner.choose, agent.act = recording_choose, sharing_act
    for g in range(games):
        play_game(openmono.standard_schema(), [agent, *(make_agent(n) for n in OPPONENTS)],
                  seed=seed + g)
    return seen[::every]


def drift(weights: str, states: Sequence[ProbeState]) -> dict[str, float]:
    """Mean best and mean legal Q of a checkpoint on the probe states, and the share of
    states whose best Q is past what the delta reward can still pay."""
    from agents.drl.agent import DRLAgent

    learner = DRLAgent("ddqn", "hybrid", weights=weights, detector="none").learner
    scale = learner.cfg.reward_scale
    best, mean, past = [], [], 0
    for s in states:
        q = learner.q_values(s.x, s.legal)
        best.append(float(q.max()))
        mean.append(float(q.mean()))
        past += bool(q.max() > (1.0 - s.share) * scale)
    n = max(1, len(states))
    return {"best_q": round(float(np.mean(best)), 3), "mean_q": round(float(np.mean(mean)), 3),
            "past_bound": round(past / n, 4), "states": len(states)}


class ProbeOptions(Options):
    """DDQN value drift on fixed states."""

    positional = ("probe", "checkpoints")
    probe: str = Field(description="the DDQN weights whose games give the states")
    checkpoints: list[str] = Field(min_length=1, description="DDQN weights files to value")
    games: int = games_field(4, "games that give the states")
    seed: int = seed_field(700_000)
    every: int = Field(4, ge=1, description="every N-th network decision is a state")


def main(argv: Sequence[str] | None = None) -> None:
    args = cli(ProbeOptions, argv, "python -m agents.drl.probe")
    for path in (args.probe, *args.checkpoints):
        if not Path(path).is_file():
            raise SystemExit(f"error: no weights file {path}")
    from agents.drl.ddqn import DDQNConfig

    states = probe_states(args.probe, args.games, args.seed, args.every)
    scale = DDQNConfig().reward_scale  # the default's: the bound each state's best Q is held to
    bound = float(np.mean([(1.0 - s.share) * scale for s in states])) if states else 0.0
    print(json.dumps({"probe": args.probe, "states": len(states),
                      "mean_bound": round(bound, 3)}))
    for path in args.checkpoints:
        print(json.dumps({"weights": path, **drift(path, states)}))


if __name__ == "__main__":
    main()
