"""The PettingZoo and Gymnasium environments (envs/) and `agent=policy`.

Skipped, with the reason, when the `env` extra (gymnasium, pettingzoo) is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the env extra is not installed: pip install -e '.[env]'")
pytest.importorskip("pettingzoo", reason="the env extra is not installed: pip install -e '.[env]'")

import gymnasium as gym  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import envs  # noqa: E402
from agents.drl import encoding as E  # noqa: E402
from agents.policy import PolicyAgent  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from env_policies import hashed, outside  # noqa: E402
from envs.aec import env, raw_env  # noqa: E402
from envs.gym_env import MonopolyEnv  # noqa: E402
from evaluation.harness.novelty_setup import prepare_novelty  # noqa: E402
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig
from evaluation.harness.trial_folder import read_records
from openmono.seeding import game_seed  # noqa: E402
from openmono import Game, play_game, standard_schema  # noqa: E402
from openmono.events import Fault  # noqa: E402
from openmono.hooks import NO_HOOKS  # noqa: E402

NOVELTY = {"novelty": "rent_hike", "difficulty": "medium", "at_episode": 1}


def short_rules(turns: int = 80):
    """The standard game cut at `turns` player-turns (policy-only tables trade a lot and
    often play to the 1000-turn limit)."""
    std = standard_schema()
    return std.model_copy(update={"bank": std.bank.model_copy(update={"turn_limit": turns})})


# -- the libraries' own checks ------------------------------------------------------------
def test_pettingzoo_api_test() -> None:
    api_test(env(), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    seed_test(env, num_cycles=100)


def test_gymnasium_check_env() -> None:
    check_env(MonopolyEnv(), skip_render_check=False)


def test_gymnasium_check_env_under_novelty_and_without_skips() -> None:
    e = MonopolyEnv(opponents=["random", "baseline"], skip_forced=False, novelty_flag=True)
    e.reset(seed=0, options={"novelty": "board_shuffle", "at_episode": 0})
    check_env(e)


def test_registered_through_gymnasium() -> None:
    e = gym.make(envs.ENV_ID, opponents=["passive"] * 3)
    obs, info = e.reset(seed=1)
    assert obs.shape == (E.STATE_DIM,) and info["action_mask"].shape == (E.ACTION_DIM,)
    assert e.spec is not None and e.spec.id == "openmono/Monopoly-v0"


# -- play helpers -------------------------------------------------------------------------
def play_aec(e, policy, episodes: int, seed: int, options=None) -> list:
    """Play `episodes` episodes with every agent following `policy`; the games."""
    games = []
    for k in range(episodes):
        e.reset(seed=seed if k == 0 else None, options=options if k == 0 else None)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else policy(obs["observation"], obs["action_mask"]))
        games.append(e.unwrapped.table)
    return games


def play_gym(e, policy, episodes: int, seed: int, options=None) -> list:
    tables, infos = [], []
    for k in range(episodes):
        obs, info = e.reset(seed=seed if k == 0 else None, options=options if k == 0 else None)
        done = False
        while not done:
            obs, _, done, _, info = e.step(policy(obs, info["action_mask"]))
        tables.append(e.table)
        infos.append(info)
    return tables, infos


# -- a novelty through reset(options) is the trial's novelty --------------------------------
def test_gym_episodes_are_the_trials_games(tmp_path) -> None:
    cfg = TrialConfig(agent="policy", agent_params={"policy": "env_policies:hashed"},
                      opponents=["baseline"] * 3, novelty="rent_hike", difficulty="medium",
                      inject_at=1, games=3, seed=11, reference=None, progress=False)
    run_trial(cfg, tmp_path)
    records = read_records(tmp_path / "games.jsonl")
    tables, infos = play_gym(MonopolyEnv(), hashed, 3, seed=11, options=NOVELTY)
    for rec, table, info in zip(records, tables, infos):
        res = table.result
        assert (rec["seed"], rec["agent_seat"], rec["winner_seat"], rec["turns"],
                rec["end_reason"], rec["faults"]) == (
            res.seed, table.seat_of(0), res.winner_seat, res.turns, res.end_reason,
            res.agent_faults[0])
        assert info["won"] == rec["won"] and rec["novelty_active"] == (rec["game"] >= 1)


def _trial_game(schema, hooks, agents, seed: int) -> Game:
    game = Game(schema, players=len(agents), seed=seed, hooks=hooks)
    play_game(schema, agents, seed=seed, hooks=hooks, game=game)
    return game


def test_novelty_through_reset_gives_the_trials_events() -> None:
    """Same seed => the same events as evaluation.trial's game under the same plugin,
    and the novelty does change the game."""
    novelty = prepare_novelty("rent_hike", "medium", {}, standard_schema())
    tables, _ = play_gym(MonopolyEnv(), hashed, 2, seed=5, options=NOVELTY)
    for episode, table in enumerate(tables):
        schema, hooks = ((novelty.schema, novelty.hooks) if episode >= 1
                         else (standard_schema(), NO_HOOKS))
        agents = [PolicyAgent(hashed), *(make_agent("baseline") for _ in range(3))]
        trial = _trial_game(schema, hooks, agents, game_seed(5, episode))
        assert table.game.events == trial.events
    plain, _ = play_gym(MonopolyEnv(), hashed, 2, seed=5)
    assert plain[0].game.events == tables[0].game.events  # before at_episode: no novelty
    assert plain[1].game.events != tables[1].game.events  # from at_episode on: the novelty


def test_aec_novelty_gives_the_events_of_four_policy_agents() -> None:
    base = short_rules()
    novelty = prepare_novelty("board_shuffle", "medium", {}, base)
    tables = play_aec(raw_env(rules=base), hashed, 2, seed=3,
                      options={"novelty": "board_shuffle", "at_episode": 1})
    for episode, table in enumerate(tables):
        schema = novelty.schema if episode else base
        hooks = novelty.hooks if episode else NO_HOOKS
        trial = _trial_game(schema, hooks, [PolicyAgent(hashed) for _ in range(4)],
                            game_seed(3, episode))
        assert table.game.events == trial.events and table.result.winner_seat == trial.winner


def test_the_episode_counter_lives_in_the_env() -> None:
    e = MonopolyEnv(opponents=["passive"] * 3, novelty_flag=True)
    flags = []
    for k in range(4):
        _, info = e.reset(seed=2 if k == 0 else None,
                          options={"novelty": "go_salary", "at_episode": 2} if k == 0 else None)
        flags.append((info["episode_index"], info["novelty"]))
    assert flags == [(0, False), (1, False), (2, True), (3, True)]
    _, info = e.reset(seed=2)  # a seeded reset starts the trial again; the novelty stays
    assert (info["episode_index"], info["novelty"]) == (0, False)
    _, info = e.reset(options={"novelty": None})
    assert (info["episode_index"], info["novelty"]) == (1, False)


def test_no_ground_truth_in_info_unless_asked() -> None:
    e = MonopolyEnv(opponents=["passive"] * 3)
    _, info = e.reset(seed=0, options={"novelty": "rent_hike", "at_episode": 0})
    assert "novelty" not in info
    _, _, _, _, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert "novelty" not in info
    a = raw_env()
    a.reset(seed=0, options={"novelty": "rent_hike", "at_episode": 0})
    assert all("novelty" not in str(v) for v in a.infos.values())


# -- bad options and actions ----------------------------------------------------------------
@pytest.mark.parametrize("options, message", [
    ({"novelty": "rent_hik"}, "unknown novelty 'rent_hik'. Did you mean: rent_hike"),
    ({"novelty": "rent_hike", "at_episode": -1}, "at_episode must be an integer >= 0"),
    ({"novelty": "rent_hike", "at_episode": 1.5}, "at_episode must be an integer >= 0"),
    ({"novelty": "rent_hike", "difficulty": "brutal"}, "choose one of: easy, medium, hard"),
    ({"novelty": "rent_hike", "params": {"factor": -3}}, "novelty 'rent_hike'"),
    ({"novelty": "rent_hike", "observability": "psychic"}, "observability must be"),
    ({"at_episode": 3}, "reset option 'at_episode' needs 'novelty' too"),
])
def test_bad_options_fail_in_one_line_and_leave_the_game(options, message) -> None:
    for e in (raw_env(), MonopolyEnv(opponents=["passive"] * 3)):
        e.reset(seed=4)
        before = (e.table, len(e.table.game.events), e.episodes.episode, e.episodes.plan)
        with pytest.raises(ValueError, match=None) as err:
            e.reset(options=options)
        assert message in str(err.value) and "\n" not in str(err.value)
        assert before == (e.table, len(e.table.game.events), e.episodes.episode,
                          e.episodes.plan)


def test_unknown_option_keys_are_ignored_with_a_warning() -> None:
    e = raw_env()
    with pytest.warns(UserWarning, match="ignored unknown reset option 'novlety'; valid "
                                        "options: novelty"):
        e.reset(seed=0, options={"novlety": "rent_hike"})
    assert e.episodes.plan is None


def test_an_action_outside_the_mask_is_a_fault_and_a_penalty() -> None:
    e = MonopolyEnv(opponents=["passive"] * 3, invalid_penalty=-2.0)
    obs, info = e.reset(seed=6)
    bad = outside(obs, info["action_mask"])
    n_faults = sum(isinstance(ev, Fault) for ev in e.table.game.events)
    obs, reward, done, _, info = e.step(bad)
    assert info["invalid_action"] and reward < -1.0
    faults = [ev for ev in e.table.game.events if isinstance(ev, Fault)]
    assert len(faults) == n_faults + 1 and "outside the action mask" in faults[-1].reason
    tables, _ = play_gym(e, outside, 1, seed=6)  # a whole game of invalid actions ends
    assert tables[0].result.agent_faults[0] > 0 and tables[0].over


def test_aec_action_outside_the_mask_costs_the_penalty() -> None:
    e = raw_env(invalid_penalty=-5.0)
    e.reset(seed=6)
    agent = e.agent_selection
    e.step(outside(None, e.observe(agent)["action_mask"]))
    # the penalty, plus eq. 4 (< 1 here) if the same player is asked again at once
    assert e.infos[agent]["invalid_action"] and -5.0 <= e.rewards[agent] < -4.0
    assert any(isinstance(ev, Fault) and "outside the action mask" in ev.reason
               for ev in e.table.game.events)


def test_raise_mode_refuses_and_leaves_the_game() -> None:
    for e in (raw_env(invalid_action="raise"), MonopolyEnv(invalid_action="raise")):
        e.reset(seed=6)
        table = e.table
        mask = table.mask.copy()
        events = len(table.game.events)
        with pytest.raises(ValueError, match="outside the action mask"):
            e.step(outside(None, mask))
        assert len(table.game.events) == events and (table.mask == mask).all()
        e.step(int(np.flatnonzero(mask)[0]))  # the game goes on from the same decision


@pytest.mark.parametrize("action", [E.ACTION_DIM, -1, 2.5, "buy", True])
def test_actions_outside_the_space_are_refused(action) -> None:
    e = MonopolyEnv(opponents=["passive"] * 3)
    e.reset(seed=0)
    with pytest.raises(ValueError, match="action must be an integer in 0..2921"):
        e.step(action)
    wrapped = env()
    wrapped.reset(seed=0)
    with pytest.raises(ValueError, match="action must be an integer in 0..2921"):
        wrapped.step(action)


def test_bad_settings() -> None:
    with pytest.raises(ValueError, match="unknown agent 'baselin'"):
        MonopolyEnv(opponents=["baselin"])
    with pytest.raises(ValueError, match="opponents must list 1 to 3 agents"):
        MonopolyEnv(opponents=["baseline"] * 4)
    with pytest.raises(ValueError, match="invalid_action must be one of penalty, raise"):
        raw_env(invalid_action="ignore")
    with pytest.raises(ValueError, match="players must be 2, 3 or 4"):
        raw_env(players=5)
    with pytest.raises(ValueError, match="unknown rules"):
        raw_env(rules="european")
    with pytest.raises(ValueError, match="reward must be one of delta, paper"):
        MonopolyEnv(reward="share")


# -- rewards, render, the policy agent ------------------------------------------------------
def test_aec_rewards_are_the_papers() -> None:
    e = raw_env(terminal_c=10.0, rules=short_rules(120))
    e.reset(seed=8)
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        e.step(None if term or trunc else hashed(obs["observation"], obs["action_mask"]))
    winner = f"player_{e.table.result.winner}"
    assert total[winner] > 10.0  # +c and positive dense rewards
    assert all(total[a] < total[winner] for a in total if a != winner)


def test_gym_delta_reward_telescopes_to_won_minus_the_first_share() -> None:
    """reward="delta": an episode's return is won - s_0 + -c whatever its length."""
    from agents.drl.reward import share

    for seed in (3, 4):
        e = MonopolyEnv(reward="delta", terminal_c=10.0, rules=short_rules(150))
        obs, info = e.reset(seed=seed)
        s0 = share(e.table.obs)
        total, done = 0.0, False
        while not done:
            obs, r, done, _, info = e.step(hashed(obs, info["action_mask"]))
            total += r
        won = info["won"]
        assert np.isclose(total, (1.0 if won else 0.0) - s0 + (10.0 if won else -10.0))


def test_aec_delta_reward_telescopes_for_every_agent() -> None:
    from agents.drl.reward import share

    e = raw_env(terminal_c=0.0, rules=short_rules(120), reward="delta")
    e.reset(seed=8)
    total = dict.fromkeys(e.possible_agents, 0.0)
    first: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if not (term or trunc) and agent not in first:
            first[agent] = share(e.table.obs)
        e.step(None if term or trunc else hashed(obs["observation"], obs["action_mask"]))
    winner = f"player_{e.table.result.winner}"
    for a in first:
        assert np.isclose(total[a], (1.0 if a == winner else 0.0) - first[a])


def test_render_is_a_text_board() -> None:
    e = raw_env(render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "player_0" in text and "to decide" in text and "$  1500" in text
    g = MonopolyEnv(opponents=["passive"] * 3, render_mode="ansi")
    g.reset(seed=1)
    assert "learner" in g.render()


def test_policy_agent_loads_a_users_function() -> None:
    agent = make_agent("policy", policy="env_policies:hashed")
    assert agent.policy is hashed
    result = play_game(standard_schema(), [agent, *(make_agent("baseline") for _ in range(3))],
                       seed=1)
    assert result.agent_faults == [0, 0, 0, 0]
    for spec, why in [("env_policies", "must be 'module:function'"),
                      ("no_such_module:act", "cannot import 'no_such_module'"),
                      ("env_policies:nothing", "has no 'nothing'"),
                      (None, "needs agent.policy=module:function")]:
        with pytest.raises(ValueError, match=why):
            make_agent("policy", policy=spec)


# -- docs/env.md's examples run as written ---------------------------------------------------
def _doc_blocks() -> list[str]:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "env.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_docs_random_loops_run(capsys) -> None:
    blocks = _doc_blocks()
    aec = next(b for b in blocks if "agent_iter" in b)
    gym_loop = next(b for b in blocks if "action_space.sample" in b)
    # The same loop on a game cut at 25 turns (four random players trade for long).
    assert 'env(render_mode="ansi")' in aec
    aec = aec.replace('env(render_mode="ansi")', 'env(render_mode="ansi", rules=SHORT)')
    exec(compile(aec, "docs/env.md", "exec"), {"SHORT": short_rules(25)})
    assert capsys.readouterr().out.split()[1] in ("bankruptcy", "turn_limit")
    scope: dict = {}
    exec(compile(gym_loop, "docs/env.md", "exec"), scope)
    assert scope["done"] and "won" in scope["info"]
