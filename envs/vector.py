"""N Gymnasium environments stepped in lockstep in one process (`gymnasium.vector.VectorEnv`).

`MonopolyVectorEnv(num_envs, **kwargs)` holds `num_envs` `envs.gym_env.MonopolyEnv`s
built with the same `kwargs` (opponents, rules, reward, ...). `step(actions)` plays
sub-environment i's action `actions[i]` and returns the batch: observations
(num_envs, 240), rewards, terminations and truncations (num_envs,), and the infos as
Gymnasium's vector environments give them (each key a per-environment array, with its
`_key` mask); `info["action_mask"]` and `action_masks()` are (num_envs, 2922). Why in
one process: a learner asks its network once per step for every waiting decision (one
batched forward), instead of once per decision.

Seeds: `reset(seed=s)` seeds sub-environment i with `s + i` (or `seed[i]` from a list),
so the batch is the N single environments `MonopolyEnv.reset(seed=s + i)`, step for
step (`tests/test_env_vector.py`). Autoreset is Gymnasium's `NEXT_STEP` mode: the step
after a sub-environment's episode ended resets it (its action is ignored, reward 0) and
its next episode follows on, as `MonopolyEnv.reset()` without a seed continues a trial.
`gym.make_vec("openmono/Monopoly-v0", num_envs=N, vectorization_mode="vector_entry_point")`
builds one too.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from agents.drl import encoding as E
from agents.drl import reward as R
from envs.gym_env import MonopolyEnv

# The encoder's and the reward's caches of the last board seen (module-level lists,
# exact: keyed by the engine's board tuples). Swapped per sub-environment around its
# step, so that N interleaved games keep their own last board instead of evicting each
# other's (without: every lookup missed, and a vector step cost 1.6 single steps).
_BOARD_CACHES = (E._LAST_COLUMNS, E._LAST_TRADES, R._LAST_WORTHS, R._LAST_BOARD)


class MonopolyVectorEnv(VectorEnv):
    """`num_envs` Monopoly environments for one learner each, stepped together."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 8, **kwargs: Any) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if kwargs.get("render_mode") is not None:
            raise ValueError("a vector environment does not render; render one MonopolyEnv")
        self.envs = [MonopolyEnv(**kwargs) for _ in range(num_envs)]
        self.num_envs = num_envs
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self._obs = np.zeros((num_envs, E.STATE_DIM), dtype=np.float32)
        self._masks = np.zeros((num_envs, E.ACTION_DIM), dtype=np.int8)
        self._ended = np.zeros(num_envs, dtype=bool)
        self._caches = [[[()] * len(c) for c in _BOARD_CACHES] for _ in range(num_envs)]

    def _enter(self, i: int) -> None:
        for cache, kept in zip(_BOARD_CACHES, self._caches[i]):
            cache[:] = kept

    def _leave(self, i: int) -> None:
        # (then emptied: the reward updates its kept board in place, and nobody else may
        # start from this game's)
        self._caches[i] = [cache[:] for cache in _BOARD_CACHES]
        for cache in _BOARD_CACHES:
            cache[:] = [()] * len(cache)

    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, (int, np.integer)):
            return [int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
        return seeds

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every sub-environment (`seed`: an int for `seed + i`, or one per env)."""
        infos: dict[str, Any] = {}
        for i, (env, s) in enumerate(zip(self.envs, self._seeds(seed))):
            self._enter(i)
            obs, info = env.reset(seed=s, options=options)
            self._leave(i)
            infos = self._take(i, obs, info, infos)
        self._ended[:] = False
        return self._obs.copy(), self._with_masks(infos)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Sub-environment i plays `actions[i]` (or, after its episode ended, resets)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {actions.shape}")
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        infos: dict[str, Any] = {}
        for i, env in enumerate(self.envs):
            self._enter(i)
            if self._ended[i]:
                obs, info = env.reset()
            else:
                obs, rewards[i], terminated[i], truncated[i], info = env.step(int(actions[i]))
            self._leave(i)
            infos = self._take(i, obs, info, infos)
        self._ended = terminated | truncated
        return self._obs.copy(), rewards, terminated, truncated, self._with_masks(infos)

    def _take(self, i: int, obs: np.ndarray, info: dict, infos: dict) -> dict:
        """Sub-environment i's observation and mask into the batch, its other infos into
        `infos`. (The masks are written straight into one array: Gymnasium's per-key
        merge of a 2922-long mask per environment cost as much as a step.)"""
        self._obs[i] = obs
        self._masks[i] = info["action_mask"]
        n = self.num_envs
        for key, value in info.items():  # = Gymnasium's `_add_info` for flat infos, faster
            if key == "action_mask":
                continue
            column = infos.get(key)
            if column is None:
                t = type(value)
                dtype = (bool if t is bool else np.int64 if t is int else
                         np.float64 if t is float else object)
                column = infos[key] = np.zeros(n, dtype=dtype) if dtype is not object \
                    else np.full(n, None, dtype=object)
                infos["_" + key] = np.zeros(n, dtype=bool)
            column[i] = value
            infos["_" + key][i] = True
        return infos

    def _with_masks(self, infos: dict) -> dict:
        infos["action_mask"] = self._masks.copy()
        infos["_action_mask"] = np.ones(self.num_envs, dtype=bool)
        return infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every sub-environment's decision (bool, (num_envs, 2922))."""
        return self._masks.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Close every sub-environment (`close()` calls this)."""
        for env in self.envs:
            env.close()
