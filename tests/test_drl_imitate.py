"""Behaviour cloning (agents/drl/imitate.py): what it records, that a fit imitates, and
its one-line errors. Tiny networks and two teacher games keep it fast."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.drl import encoding as E
from agents.drl import imitate as I
from agents.drl.agent import load_weights_file
from agents.drl.ppo import PPO, PPOConfig

TINY = {"hidden": [16], "gamma": 1.0}


def cfg(**over):
    c = {"teacher": "planner", "variant": "hybrid", "algo": "ppo", "games": 2, "seed": 3,
         "opponents": ["fp_a", "fp_b", "fp_c"], "chunk_games": 1, "deploy_rules": True,
         "snap_offers": True, "progress": False,
         "fit": {"epochs": 1, "minibatch_size": 64, "lr": 1e-3, "max_grad_norm": 1.0,
                 "holdout": 0.5, "critic": True, "seed": 0, "max_samples": 0},
         "ppo": dict(TINY)}
    c.update(over)
    return c


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("imitate")
    summary = I.imitate(cfg(), out)
    gen = I.generate(cfg(), out, PPOConfig(hidden=(16,), gamma=1.0, head="flat", features="paper"))
    return out, summary, gen


def test_recorded_actions_are_legal_under_their_masks(run):
    _, summary, gen = run
    d = gen["data"]
    n = len(d["action"])
    assert n > 50 and n == summary["teacher_games"]["recorded"]
    mask = np.unpackbits(d["mask"], axis=1, count=E.ACTION_DIM).astype(bool)
    assert mask[np.arange(n), d["action"]].all()
    assert (mask.sum(axis=1) > 1).all()  # single-action decisions are not network decisions
    assert not mask[:, E.BUY].any() and not mask[:, E.ACCEPT].any()  # the hybrid's rule
    c = summary["teacher_games"]
    assert c["network"] == c["recorded"] + c["unmapped"] + c["outside_mask"]
    assert gen["games_played_now"] == 0  # the second call reused the saved chunks


def test_returns_of_the_delta_reward_telescope(run):
    """With gamma = 1 a step's return is won - its share, so a winner's returns lie in
    (0, 1) and a loser's in (-1, 0)."""
    _, summary, gen = run
    d = gen["data"]
    assert summary["teacher_games"]["games"] == 2
    signs = {g: np.sign(d["ret"][d["game"] == g]) for g in np.unique(d["game"])}
    for s in signs.values():
        assert len(set(s.tolist())) == 1
    assert (np.abs(d["ret"]) < 1).all()


def test_weights_load_as_a_ppo_learner(run):
    out, summary, _ = run
    assert (out / "imitate.json").exists()
    learner = PPO(PPOConfig(hidden=(16,), head="flat", features="paper"))
    load_weights_file(learner, out / "weights.npz")
    with pytest.raises(ValueError, match="weights.npz"):
        load_weights_file(PPO(PPOConfig(hidden=(8,), head="flat", features="paper")), out / "weights.npz")
    assert "accuracy" in summary["fit"]["held_out"]


def test_fit_reproduces_the_teacher_on_a_small_training_set(run):
    _, _, gen = run
    d = gen["data"]
    _, first = np.unique(d["x"], axis=0, return_index=True)  # one action per distinct state
    keep = np.sort(first)[:60]
    small = {k: v[keep] for k, v in d.items()}
    small["game"] = np.zeros(len(keep), dtype=np.int32)
    assert len(set(small["action"].tolist())) > 1
    fit_cfg = {"epochs": 150, "minibatch_size": 32, "lr": 3e-3, "max_grad_norm": 5.0,
               "holdout": 0.0, "critic": False, "seed": 0, "max_samples": 0}
    learner, report = I.fit(small, PPOConfig(hidden=(64,), head="flat", features="paper"), fit_cfg, progress=False)
    mask = np.unpackbits(small["mask"], axis=1, count=E.ACTION_DIM).astype(bool)
    z = learner.actor.forward(small["x"])
    assert (np.argmax(np.where(mask, z, -np.inf), axis=1) == small["action"]).all()
    assert report["train_accuracy"]["accuracy"] == 1.0
    # and the playing path (legal rows of the last layer only) agrees
    for x, m, a in zip(small["x"], mask, small["action"]):
        idx = np.flatnonzero(m)
        assert idx[int(np.argmax(learner.actor.forward_legal(x, idx)))] == a


def test_cross_entropy_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    z = rng.standard_normal((3, 6))
    m = rng.random((3, 6)) < 0.6
    m[:, 0] = True
    a = np.array([0, 0, 0])
    loss, g = I.cross_entropy(z, m, a)
    eps = 1e-6
    for i in range(3):
        for j in range(6):
            zp = z.copy()
            zp[i, j] += eps
            num = (I.cross_entropy(zp, m, a)[0] - loss) / eps
            assert abs(num - g[i, j]) < 1e-4


def test_snap_moves_planner_offers_to_the_nearest_cash_level():
    from openmono import actions as A

    class Obs:
        class rules:
            price = {8: 100, 39: 400}
    o = A.OfferTrade(to=1, give=(), get=(8,), give_cash=60)
    assert I.snap_offer(o, Obs).give_cash == 75
    assert I.snap_offer(A.OfferTrade(to=1, give=(), get=(8,), give_cash=110), Obs).give_cash == 100
    assert I.snap_offer(A.OfferTrade(to=1, give=(), get=(8,), give_cash=10), Obs) is None
    assert I.snap_offer(A.OfferTrade(to=1, give=(39,), get=(), get_cash=480), Obs).get_cash == 500


@pytest.mark.parametrize("over, words", [
    ({"teacher": "nope"}, "unknown teacher 'nope'"),
    ({"games": 0}, "games must be a positive integer"),
    ({"variant": "both"}, "unknown variant 'both'"),
    ({"algo": "ddqn"}, "unknown algo 'ddqn'"),
    ({"opponents": ["fp_a", "zz"]}, "unknown opponent 'zz'"),
    ({"ppo": {"hiden": [3]}}, "unknown ppo option"),
])
def test_bad_input_is_one_line(tmp_path, over, words):
    with pytest.raises(I.ImitateError) as e:
        I.imitate(cfg(**over), tmp_path)
    assert words in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "weights.npz").exists()


def test_another_configuration_in_the_directory_is_refused(run, tmp_path):
    out, _, _ = run
    before = sorted(p.name for p in (out / "samples").iterdir())
    with pytest.raises(I.ImitateError, match="another configuration"):
        I.imitate(cfg(teacher="baseline"), out)
    assert sorted(p.name for p in (out / "samples").iterdir()) == before


def test_cli_unknown_teacher_one_line(tmp_path):
    p = subprocess.run([sys.executable, "-m", "agents.drl.imitate", "teacher=nope", "games=1",
                        f"out={tmp_path}"], capture_output=True, text=True,
                       cwd=Path(__file__).parents[1])
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: unknown teacher 'nope'")
