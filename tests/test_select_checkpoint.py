"""Choosing a run's checkpoint on validation games: resumable, ties to the later one."""

from __future__ import annotations

import json

import pytest

from agents.drl.train import train
from evaluation.games.select_checkpoint import best, main


def _run(tmp_path):
    cfg = {"algo": "ddqn", "variant": "hybrid", "games": 2, "seed": 0,
           "opponents": ["fp_a", "fp_b", "fp_c"], "novelty": "none",
           "novelty_difficulty": "medium", "checkpoint_every": 1, "init": None,
           "progress": False, "plot": False, "ppo": {},
           "ddqn": {"hidden": [16], "learning_starts": 50, "buffer_size": 500}}
    train(cfg, tmp_path / "run")
    return tmp_path / "run"


def test_every_checkpoint_is_validated_once_and_the_best_is_chosen(tmp_path, capsys):
    run = _run(tmp_path)
    assert main([str(run), "hybrid_ddqn", "every=1", "games=2", "seed=7"]) == 0
    out = capsys.readouterr().out.splitlines()
    chosen = json.loads(out[-1])
    assert chosen["checkpoints"] == 2 and chosen["games"] == 2
    saved = {p.name: json.loads(p.read_text()) for p in (run / "validation").glob("*.json")}
    assert set(saved) == {"g000001.json", "g000002.json"}
    assert all(s["seed"] == 7 and s["games"] == 2 for s in saved.values())
    stamps = {p.name: p.stat().st_mtime_ns for p in (run / "validation").glob("*.json")}
    assert main([str(run), "hybrid_ddqn", "every=1", "games=2", "seed=7"]) == 0
    assert stamps == {p.name: p.stat().st_mtime_ns for p in (run / "validation").glob("*.json")}
    assert json.loads(capsys.readouterr().out.splitlines()[-1]) == chosen


def test_ties_go_to_the_later_checkpoint():
    rows = [{"game": 500, "wins": 99}, {"game": 1000, "wins": 100}, {"game": 1500, "wins": 100}]
    assert best(rows)["game"] == 1500


def test_bad_input_is_one_clear_line(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(tmp_path), "hybrid_ddqn"])
    assert "has no weights/ folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path)])
    assert "agent is required" in capsys.readouterr().err
    (tmp_path / "weights").mkdir()
    with pytest.raises(SystemExit):
        main([str(tmp_path), "hybrid_ddqn", "every=500"])
    assert "no checkpoint at a multiple of 500" in capsys.readouterr().err
