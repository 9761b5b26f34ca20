"""PettingZoo and Gymnasium environments on openmono (`pip install -e ".[env]"`).

- `envs.aec.env()`: the PettingZoo AEC environment (`player_0` .. `player_3`);
- `openmono/Monopoly-v0`: the Gymnasium environment (`envs.gym_env.MonopolyEnv`),
  registered when this package is imported: `gym.make("envs:openmono/Monopoly-v0")`
  imports it for you (Gymnasium 1.x finds environments by import; it has no
  entry-point discovery any more);
- `envs.vector.MonopolyVectorEnv(N, ...)`: N of them stepped in lockstep in one process
  (`gym.make_vec(ENV_ID, num_envs=N, vectorization_mode="vector_entry_point")`);
- `agent=policy agent.policy=module:function` plays a policy trained here in
  `evaluation.trial` (`agents.policy`).

Layer: `envs` sits on top with `evaluation` (it needs the novelties to inject them and
the trial's seeding); nothing below imports it. docs/env.md has the examples.
"""

from __future__ import annotations

ENV_ID = "openmono/Monopoly-v0"

try:
    import gymnasium as _gym
except ImportError:  # the `env` extra is not installed: nothing to register
    _gym = None

if _gym is not None and ENV_ID not in _gym.registry:
    _gym.register(id=ENV_ID, entry_point="envs.gym_env:MonopolyEnv",
                  vector_entry_point="envs.vector:MonopolyVectorEnv")
