"""The paper's tables as resumable runs: each run is the tournament's run of that index."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from evaluation.games.paper_tables import LAYOUTS, main, part_bounds, play_run, uncovered
from evaluation.games.tournament import run_tournament


def test_each_run_is_the_tournaments_run_and_a_second_call_plays_nothing(tmp_path, capsys):
    out = tmp_path / "t"
    assert main([f"out={out}", "tables=[VI]", "games=2", "runs=2", "seed=11"]) == 0
    printed = capsys.readouterr().out
    assert "Table VI: 2 run(s), 4 games" in printed
    runs = [json.loads((out / "VI" / f"run{r}.json").read_text()) for r in range(2)]
    options = {n: {"detector": None} for n in ("ppo", "hybrid_ppo")}
    whole = run_tournament(LAYOUTS["VI"], games=2, runs=2, seed=11, options=options)
    assert [r["wins"] for r in runs] == whole["wins_per_run"]
    summary = json.loads((out / "summary.json").read_text())["VI"]
    assert [s["wins"] for s in summary["seats"]] == whole["wins"]
    stamps = [(out / "VI" / f"run{r}.json").stat().st_mtime_ns for r in range(2)]
    assert main([f"out={out}", "tables=[VI]", "games=2", "runs=2", "seed=11"]) == 0
    assert stamps == [(out / "VI" / f"run{r}.json").stat().st_mtime_ns for r in range(2)]


def test_bad_input_is_one_clear_line(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["tables=[VI]"])
    assert "out is required" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([f"out={tmp_path}", "tables=[IX]"])
    assert "unknown table 'IX'; valid: II, III, IV, V, VI, VII, VIII, II+" in capsys.readouterr().err
    (tmp_path / "VI").mkdir()
    (tmp_path / "VI" / "run0.json").write_text(json.dumps(
        {"games": 5, "agents": LAYOUTS["VI"], "seed": 0}))
    with pytest.raises(SystemExit):
        main([f"out={tmp_path}", "tables=[VI]", "games=2", "runs=1", "seed=0"])
    assert "holds another setting" in capsys.readouterr().err


def test_a_run_played_with_other_weights_is_not_resumed(tmp_path, capsys):
    out = tmp_path / "t"
    assert main([f"out={out}", "tables=[VI]", "games=1", "runs=1", "seed=3"]) == 0
    path = out / "VI" / "run0.json"
    run = json.loads(path.read_text())
    assert set(run["weights"]) == {"ppo", "hybrid_ppo"}
    run["weights"]["ppo"] = "0" * 16
    path.write_text(json.dumps(run))
    with pytest.raises(SystemExit):
        main([f"out={out}", "tables=[VI]", "games=1", "runs=1", "seed=3"])
    assert "played with other shipped weights" in capsys.readouterr().err


def test_one_bar_counts_the_games_of_every_worker(tmp_path, capsys):
    assert main([f"out={tmp_path / 'a'}", "tables=[VII]", "games=1", "runs=2", "seed=3",
                 "workers=2"]) == 0
    err = capsys.readouterr().err
    assert "paper tables: 100%" in err and "2/2" in err
    assert "table VII run 0: wins" in err and "table VII run 1: wins" in err
    assert main([f"out={tmp_path / 'b'}", "tables=[VII]", "games=1", "runs=1", "seed=3",
                 "progress=false"]) == 0
    err = capsys.readouterr().err
    assert "paper tables" not in err and "table VII run 0: wins" in err


def test_a_run_cut_into_parts_is_the_same_run_and_a_kill_loses_one_part(tmp_path, capsys):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    args = ["tables=[VII]", "games=3", "runs=2", "seed=21", "progress=false"]
    assert main([f"out={whole}", *args]) == 0
    assert main([f"out={cut}", *args, "parts=2", "workers=2"]) == 0
    for r in range(2):
        a = json.loads((whole / "VII" / f"run{r}.json").read_text())
        b = json.loads((cut / "VII" / f"run{r}.json").read_text())
        assert (b["wins"], b["games"], b["seed"], b["parts"]) == (a["wins"], 3, a["seed"], 2)
    assert sorted(p.name for p in (cut / "VII").iterdir()) == ["run0.json", "run1.json"]
    # A kill after the first part of run 1: its record is not written, the part is kept.
    (cut / "VII" / "run1.json").unlink()
    part = play_run(LAYOUTS["VII"], 3, 2, 21, 1, 0, 1)
    (cut / "VII" / "run1.games0-0.json").write_text(json.dumps(part))
    capsys.readouterr()
    assert main([f"out={cut}", *args, "parts=2"]) == 0
    err = capsys.readouterr().err
    assert "run 1 games 1-2" in err and "games 0-0" not in err
    assert "run 0" not in err
    assert json.loads((cut / "VII" / "run1.json").read_text())["wins"] == \
        json.loads((whole / "VII" / "run1.json").read_text())["wins"]


def test_more_parts_than_games_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([f"out={tmp_path}", "games=2", "parts=3"])
    assert "parts=3 is more than games=2" in capsys.readouterr().err


def test_parts_kept_from_another_cut_are_used_and_only_the_gaps_are_played(tmp_path, capsys):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    args = ["tables=[VII]", "games=4", "runs=1", "seed=31", "progress=false"]
    assert main([f"out={whole}", *args]) == 0
    # Games 0 and 3 kept from a cut into four parts (say, on another machine), and a
    # part of another seed, which is played again rather than used.
    (cut / "VII").mkdir(parents=True)
    for first in (0, 3):
        part = play_run(LAYOUTS["VII"], 4, 1, 31, 0, first, first + 1)
        (cut / "VII" / f"run0.games{first}-{first}.json").write_text(json.dumps(part))
    stray = play_run(LAYOUTS["VII"], 4, 1, 32, 0, 1, 2)
    (cut / "VII" / "run0.games1-1.json").write_text(json.dumps(stray))
    capsys.readouterr()
    assert main([f"out={cut}", *args, "parts=2"]) == 0
    err = capsys.readouterr().err
    assert "run 0 games 1-1" in err and "run 0 games 2-2" in err
    assert "games 0-0" not in err and "games 3-3" not in err
    a = json.loads((whole / "VII" / "run0.json").read_text())
    b = json.loads((cut / "VII" / "run0.json").read_text())
    assert (b["wins"], b["games"], b["seed"], b["parts"]) == (a["wins"], 4, a["seed"], 4)
    assert sorted(p.name for p in (cut / "VII").iterdir()) == ["run0.json"]


@given(st.integers(1, 60), st.integers(1, 8), st.lists(st.integers(0, 60), max_size=12))
def test_the_games_to_play_are_exactly_those_no_kept_part_covers(games, parts, cuts):
    """Kept parts (any cut) plus the jobs to play cover every game once, and each job
    lies within one of the requested parts."""
    assume(parts <= games)
    edges = sorted({c for c in cuts if c <= games})
    covered = [(a, b) for a, b in zip(edges[::2], edges[1::2]) if a < b]
    bounds = part_bounds(games, parts)
    gaps = uncovered(bounds, covered)
    played = [g for a, b in gaps for g in range(a, b)]
    kept = [g for a, b in covered for g in range(a, b)]
    assert sorted(played + kept) == list(range(games))
    assert all(any(f <= a and b <= last for f, last in bounds) for a, b in gaps)


def test_the_summary_keeps_the_tables_of_earlier_commands(tmp_path, capsys):
    args = [f"out={tmp_path}", "games=1", "runs=1", "seed=5", "progress=false"]
    assert main([*args, "tables=[VI]"]) == 0
    assert main([*args, "tables=[VII]"]) == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert sorted(summary) == ["VI", "VII"]
    assert summary["VI"]["agents"] == LAYOUTS["VI"]
