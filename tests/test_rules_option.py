"""`rules=gnome` in every entry point (trial, tournament, bench); the standard rules
stay the default; an unknown rule set is a one-line error naming the valid ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.games import bench as B
from evaluation.games import tournament as T
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig, TrialError


def test_bench_and_tournament_play_the_gnome_rules(capsys):
    assert B.main(["games=2", "agents=[baseline,baseline,baseline,baseline]", "rules=gnome"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert data["novelty"] == "none (gnome rules)" and data["games"] == 2
    assert T.main(["agents=[baseline,random]", "games=2", "runs=1", "progress=false",
                   "rules=gnome"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["games"] == 2
    B.main(["games=1", "agents=[random,random]"])
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["novelty"] == "none"


@pytest.mark.parametrize("main", [B.main, T.main])
def test_unknown_rules_name_the_valid_ones(main, capsys):
    with pytest.raises(SystemExit):
        main(["games=1", "rules=hasbro"])
    assert "unknown rules 'hasbro'; valid rules: standard, gnome" in capsys.readouterr().err


def test_a_trial_under_the_gnome_rules(tmp_path: Path):
    cfg = TrialConfig(agent="baseline", opponents=["baseline"] * 3, reference=None,
                      games=2, seed=0, progress=False, rules="gnome")
    summary = run_trial(cfg, tmp_path)
    assert json.loads((tmp_path / "trial.json").read_text())["rules"] == "gnome"
    assert summary is not None
    with pytest.raises(TrialError, match="valid rules: standard, gnome"):
        run_trial(TrialConfig(rules="hasbro", progress=False), tmp_path / "x")
