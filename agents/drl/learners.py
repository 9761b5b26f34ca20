"""The learning algorithms, in one place: what the agents and the trainer know of each.

A new learner is a module like `ppo.py` or `ddqn.py` (its config dataclass with every
hyperparameter at the top, its `PRESETS` and `config(preset, **options)`, and a class
with the methods below), one entry in `LEARNERS`, and one section of `conf/train.yaml`
for its command-line options. Nothing else names an algorithm.

What the agent and the trainer call on a learner (both shipped learners have them):

- `choose(x, legal, rng, greedy) -> (index, extra)`: one network decision;
- `add_reward(r)`, `record(x, mask, index, extra, share=None)`: one learning step (the
  reward arrives at the next decision; `share` is the player's share at `x`);
- `end_game(final_reward)`: the game's last reward, from the agent;
- `after_game() -> dict`: called by the trainer after every training game; learns if it
  is time to and returns the statistics for the curve (empty when there are none);
- `weights()` and loading (`nn.load_npz`), `rng`, `cfg` (its config), `progress`;
- `plays_greedy`: True when a trained agent plays the best action rather than sampling.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable

from agents.drl import ddqn, ppo


@dataclass(frozen=True)
class LearnerKind:
    """One algorithm: its config type and presets, its class, and how to read weights
    files written before their options were saved in them."""

    config_type: type
    config: Callable[..., Any]  # (preset, **options) -> a config_type
    learner: Callable[..., Any]  # (config, seed=...) -> a learner
    net: str  # the prefix of the policy network's arrays in a weights file
    legacy: tuple[tuple[str, Any], ...]  # options a file without saved options implies

    def options(self) -> frozenset[str]:
        """The names of its hyperparameters (the keys of `algo.KEY=...` options)."""
        return frozenset(f.name for f in fields(self.config_type))

    def make(self, seed: int = 0, preset: str = "default", **options: Any) -> Any:
        """A fresh learner: `preset`'s configuration with `options`."""
        return self.learner(self.config(preset, **options), seed=seed)


LEARNERS: dict[str, LearnerKind] = {
    "ppo": LearnerKind(ppo.PPOConfig, ppo.config, ppo.PPO, "actor.", (("head", "flat"),)),
    # (written before the state-value output and the factored Q-head)
    "ddqn": LearnerKind(ddqn.DDQNConfig, ddqn.config, ddqn.DDQN, "q.",
                        (("dueling", False), ("head", "flat"))),
}
ALGOS = tuple(LEARNERS)


def kind(algo: str) -> LearnerKind:
    """The registered learner `algo` (one-line error naming the valid ones)."""
    try:
        return LEARNERS[algo]
    except KeyError:
        raise ValueError(f"unknown algo {algo!r}; valid: {', '.join(ALGOS)}") from None
