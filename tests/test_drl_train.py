"""The DRL training CLI: a 3-game run, its resume, and one-line errors."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from agents.drl.train import TrainError, train

TINY = {"hidden": [16], "rollout_steps": 150}


def _cfg(**kw):
    cfg = {"algo": "ppo", "variant": "hybrid", "games": 3, "seed": 0,
           "opponents": ["fp_a", "fp_b", "fp_c"], "novelty": "none",
           "novelty_difficulty": "medium", "checkpoint_every": 1, "init": None,
           "progress": False, "plot": True, "ppo": dict(TINY),
           "ddqn": {"hidden": [16], "learning_starts": 50, "buffer_size": 500}}
    cfg.update(kw)
    return cfg


@pytest.mark.parametrize("algo", ["ppo", "ddqn"])
def test_three_games_and_a_resume_give_the_same_run(tmp_path, algo) -> None:
    whole = train(_cfg(algo=algo), tmp_path / "whole")
    assert whole["games"] == 3
    for f in ("train.json", "checkpoint.npz", "curve.csv", "curve.png", "weights.npz",
              "weights/g000001.npz", "weights/g000003.npz"):
        assert (tmp_path / "whole" / f).exists()
    # "killed" after two games (the last checkpoint), then the same command again
    train(_cfg(algo=algo), tmp_path / "split", max_new_games=2)
    resumed = train(_cfg(algo=algo), tmp_path / "split")
    assert resumed["played_now"] == 1
    a = (tmp_path / "whole" / "curve.csv").read_text()
    b = (tmp_path / "split" / "curve.csv").read_text()
    assert a == b
    with np.load(tmp_path / "whole" / "weights.npz") as x, \
            np.load(tmp_path / "split" / "weights.npz") as y:
        assert all(np.array_equal(x[k], y[k]) for k in x.files)


def test_under_a_novelty(tmp_path) -> None:
    out = train(_cfg(games=1, novelty="board_shuffle", novelty_difficulty="hard"), tmp_path)
    assert out["games"] == 1


def test_bad_input_is_refused_and_nothing_is_overwritten(tmp_path) -> None:
    with pytest.raises(TrainError, match="unknown algo 'a2c'; valid: ppo, ddqn"):
        train(_cfg(algo="a2c"), tmp_path / "x")
    with pytest.raises(TrainError, match="unknown variant"):
        train(_cfg(variant="half"), tmp_path / "x")
    with pytest.raises(TrainError, match="unknown opponent"):
        train(_cfg(opponents=["fp_z"]), tmp_path / "x")
    run = tmp_path / "run"
    train(_cfg(games=1), run)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    with pytest.raises(TrainError, match="another configuration"):
        train(_cfg(games=1, algo="ddqn"), run)
    with pytest.raises(TrainError, match="another configuration"):
        train(_cfg(games=1, seed=5), run)
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before
    # weights of another shape as a starting point
    with pytest.raises(ValueError, match=r"weights\.npz.*shape"):
        train(_cfg(games=1, init=str(run / "weights.npz"), ppo={"hidden": [8]}),
              tmp_path / "other")


def test_cli_errors_are_one_line(tmp_path) -> None:
    r = subprocess.run([sys.executable, "-m", "agents.drl.train", "algo=a2c",
                        f"out={tmp_path}", f"hydra.run.dir={tmp_path}"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip() == "error: unknown algo 'a2c'; valid: ppo, ddqn"


def test_the_old_out_dir_is_read_with_a_note(tmp_path) -> None:
    """`out_dir=` was the trainer's spelling of every other command's `out=`: an old
    command still runs, and one note says how it is written now."""
    from openmono_cli import respell

    assert respell(["games=2", "out_dir=/tmp/r", "+out_dir=x"], {"out_dir": "out"}) == (
        ["games=2", "out=/tmp/r", "+out=x"], ["out_dir=/tmp/r", "+out_dir=x"])
    r = subprocess.run([sys.executable, "-m", "agents.drl.train", "algo=a2c",
                        f"out_dir={tmp_path}", f"hydra.run.dir={tmp_path}"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"note: out_dir={tmp_path} is the old spelling; now: out={tmp_path}",
        "error: unknown algo 'a2c'; valid: ppo, ddqn"]


def test_a_refused_start_leaves_no_run_behind(tmp_path) -> None:
    """A wrong-shape `init` or an unknown reward writes nothing, so the corrected command
    starts cleanly in the same directory."""
    run = tmp_path / "run"
    train(_cfg(games=1), run)
    other = tmp_path / "other"
    with pytest.raises(ValueError, match=r"weights\.npz.*shape"):
        train(_cfg(games=1, init=str(run / "weights.npz"), ppo={"hidden": [8]}), other)
    with pytest.raises(TrainError, match="unknown ppo.reward 'sparse'; valid: delta, paper"):
        train(_cfg(games=1, ppo={**TINY, "reward": "sparse"}), other)
    assert not other.exists() or not any(other.iterdir())
    assert train(_cfg(games=1, init=str(run / "weights.npz")), other)["games"] == 1


def test_curves_plot_runs_side_by_side(tmp_path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "curve.csv").write_text("game,seed,won,turns,end,entropy\n"
                                   + "".join(f"{g},{g},{g % 2},100,bankruptcy,{0.5 if g == 3 else ''}\n"
                                             for g in range(6)))
    out = tmp_path / "c.png"
    r = subprocess.run([sys.executable, "-m", "agents.drl.curves", str(out), f"{run}=mine",
                        "block=4"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 0
    assert '"wins_per_4": [2, 1]' in r.stdout
    twin = tmp_path / "twin"  # a second seed of the same setting: drawn as a band
    twin.mkdir()
    (twin / "curve.csv").write_text((run / "curve.csv").read_text())
    r = subprocess.run([sys.executable, "-m", "agents.drl.curves", str(out), f"{run}=mine",
                        f"{twin}=mine", "block=4"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.count('"label": "mine"') == 2, r.stderr
    bad = subprocess.run([sys.executable, "-m", "agents.drl.curves", str(out), str(tmp_path)],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and bad.stderr.strip() == f"error: no curve.csv in {tmp_path}"


def test_ddqn_starts_from_a_ppo_policy(tmp_path) -> None:
    """`algo=ddqn init=PPO_FILE`: the policy's actor becomes the Q-network (warm start);
    a policy of another shape is refused in one line naming the file."""
    ppo_run = tmp_path / "ppo"
    train(_cfg(games=1, ppo={**TINY, "hidden": [16], "head": "flat"}), ppo_run)
    init = str(ppo_run / "weights.npz")
    plain = {"hidden": [16], "learning_starts": 50, "buffer_size": 500, "dueling": False,
             "head": "flat"}
    out = train(_cfg(algo="ddqn", games=1, init=init, ddqn=plain), tmp_path / "ddqn")
    assert out["games"] == 1
    with pytest.raises(ValueError, match=r"weights\.npz.*shape"):
        train(_cfg(algo="ddqn", games=1, init=init, ddqn={**plain, "hidden": [8]}),
              tmp_path / "other")
    with pytest.raises(ValueError, match=r"weights\.npz.*dueling=false ddqn.head=flat"):
        train(_cfg(algo="ddqn", games=1, init=init), tmp_path / "dueling")


def test_presets_and_the_yaml_names_every_option() -> None:
    """`preset=paper` is the paper's network, state and head; conf/train.yaml names every
    option of each learner (null: the preset's value) and no other."""
    from dataclasses import fields
    from pathlib import Path

    import yaml

    from agents.drl.agent import make_learner
    from agents.drl.ddqn import DDQNConfig
    from agents.drl.ppo import PPOConfig

    paper = make_learner("ppo", preset="paper")
    assert paper.actor.sizes == (240, 1024, 512, 2922) and paper.cfg.head == "flat"
    assert make_learner("ddqn", preset="paper").q.sizes == (240, 1024, 512, 2922)
    assert make_learner("ppo").actor.sizes == (303, 256, 256, 284)
    with pytest.raises(ValueError, match="unknown ppo preset 'papr'; valid: default, paper"):
        make_learner("ppo", preset="papr")
    conf = yaml.safe_load((Path(__file__).parents[1] / "conf" / "train.yaml").read_text())
    for algo, cls in (("ppo", PPOConfig), ("ddqn", DDQNConfig)):
        assert list(conf[algo]) == [f.name for f in fields(cls)]
        assert all(v is None for v in conf[algo].values())
    with pytest.raises(TrainError, match="unknown ppo.head 'tree'; valid: factored, flat"):
        train(_cfg(ppo={"head": "tree"}), Path("/nonexistent/never-made"))


def test_a_run_resumes_after_an_option_is_added_to_its_learner(tmp_path) -> None:
    """A run saved before an option existed resumes: an option it never named is the
    same as one it left at its default (None), not "another configuration"."""
    import json

    run = tmp_path / "run"
    train(_cfg(algo="ddqn", games=2), run, max_new_games=1)
    meta = json.loads((run / "train.json").read_text())
    assert "clipped" not in meta["ddqn"]  # as written before `clipped` was added
    # today's configuration file names every option, unset ones as None
    ddqn = {"hidden": [16], "learning_starts": 50, "buffer_size": 500, "clipped": None}
    assert train(_cfg(algo="ddqn", games=2, ddqn=ddqn), run)["played_now"] == 1
    with pytest.raises(TrainError, match="differs in ddqn"):
        train(_cfg(algo="ddqn", games=3, ddqn={"hidden": [16], "clipped": True,
                                               "learning_starts": 50, "buffer_size": 500}), run)


@pytest.mark.parametrize("algo", ["ppo", "ddqn"])
def test_each_learner_is_registered_once_with_the_whole_protocol(algo):
    """A learner is one entry of `LEARNERS`: the agent and the trainer build, configure
    and drive it through the registry, never by its name."""
    from agents.drl.learners import ALGOS, LEARNERS, kind

    assert ALGOS == tuple(LEARNERS)
    learner = kind(algo).make(seed=0)
    for method in ("choose", "record", "add_reward", "end_game", "after_game", "weights"):
        assert callable(getattr(learner, method)), method
    assert isinstance(learner.plays_greedy, bool)
    assert kind(algo).options() >= {"hidden", "head", "features", "gamma", "lr"}
    assert learner.after_game() == {} or algo == "ddqn"  # PPO: nothing before a full rollout
    with pytest.raises(ValueError, match="valid: ppo, ddqn"):
        kind("a2c")
