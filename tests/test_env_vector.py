"""The vector environment is N single environments, step for step (issue 51)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import openmono
from agents.drl import encoding as E
from envs import ENV_ID
from envs.gym_env import MonopolyEnv
from envs.vector import MonopolyVectorEnv


def short_rules():
    schema = openmono.rules_schema("standard")
    return schema.model_copy(update={"bank": schema.bank.model_copy(update={"turn_limit": 8})})


def pick(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("reward", ["paper", "delta"])
def test_vector_env_equals_single_envs_step_for_step(reward: str) -> None:
    n, seed, steps = 3, 7, 300
    kwargs = dict(rules=short_rules(), reward=reward)
    vec = MonopolyVectorEnv(n, **kwargs)
    singles = [MonopolyEnv(**kwargs) for _ in range(n)]
    obs, infos = vec.reset(seed=seed)
    ref = [env.reset(seed=seed + i) for i, env in enumerate(singles)]
    for i in range(n):
        assert np.array_equal(obs[i], ref[i][0])
        assert np.array_equal(infos["action_mask"][i], ref[i][1]["action_mask"])
    rngs = [np.random.default_rng(i) for i in range(n)]
    ended = [False] * n
    episodes_ended = 0
    for _ in range(steps):
        masks = vec.action_masks()
        actions = np.array([pick(rngs[i], masks[i]) for i in range(n)])
        obs, rewards, term, trunc, infos = vec.step(actions)
        for i, env in enumerate(singles):
            if ended[i]:  # NEXT_STEP autoreset: this step resets, its action ignored
                o, info = env.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, info = env.step(int(actions[i]))
            assert np.array_equal(obs[i], o)
            assert rewards[i] == r and term[i] == te and trunc[i] == tr
            assert np.array_equal(infos["action_mask"][i], info["action_mask"])
            table = vec.envs[i].table
            if not table.over:  # the kept caches of interleaved games: as a fresh encoder
                fresh = E.Encoder()
                assert np.array_equal(obs[i], fresh.encode(table.obs))
                assert np.array_equal(infos["action_mask"][i] != 0, fresh.legal_mask(table.obs))
            ended[i] = te or tr
            episodes_ended += ended[i]
    assert episodes_ended >= n  # every sub-environment went through an autoreset


def test_vector_env_spaces_masks_and_make_vec() -> None:
    vec = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="vector_entry_point",
                       rules=short_rules())
    obs, infos = vec.reset(seed=0)
    assert obs.shape == (2, 240) and vec.observation_space.shape == (2, 240)
    assert vec.action_space.shape == (2,)
    masks = vec.unwrapped.action_masks() if hasattr(vec, "unwrapped") else vec.action_masks()
    assert masks.shape == (2, 2922) and masks.dtype == bool and masks.any(axis=1).all()
    assert infos["action_mask"].shape == (2, 2922)
    vec.close()


def test_vector_env_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        MonopolyVectorEnv(0)
    vec = MonopolyVectorEnv(2, rules=short_rules())
    with pytest.raises(ValueError, match="seeds"):
        vec.reset(seed=[1, 2, 3])
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="actions"):
        vec.step([0, 0, 0])


def test_docs_vector_example_runs() -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "env.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S)
                 if "MonopolyVectorEnv" in b)
    scope: dict = {}
    exec(compile(block.replace("range(200)", "range(30)"), "docs/env.md", "exec"), scope)
    assert scope["obs"].shape == (4, 240) and scope["rewards"].shape == (4,)


def test_bench_vector_with_the_network_policy() -> None:
    from envs.bench import bench_vector

    out = bench_vector(20, 0, "baseline", 2, policy="network")
    assert out["env"] == "vector" and out["envs"] == 2 and out["steps"] >= 20
