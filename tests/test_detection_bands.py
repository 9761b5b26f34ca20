"""Banding sweep trials by measured detectability, on a small hand-made table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.measures import detection_bands as db
from evaluation.measures import metrics as m

# A fake measured table: plugin x preset -> the one figure banding reads.
CELLS = {
    ("rent_hike", "easy"): {"detectability_decisions": 1.0},
    ("rent_hike", "hard"): {"detectability_decisions": 40.0},
    ("dice_weights", "hard"): {"detectability_decisions": 2500.0},
    ("sticky_doubles", "hard"): {"detectability_decisions": None},
}


def trial(novelty, difficulty, detected: str, injected_at: int = 2, wins: str | None = None):
    """A per-trial summary from a string of reports (one char per game)."""
    n = len(detected)
    records = [{"game": g, "seed": g, "won": (wins or "0" * n)[g] == "1",
                "novelty_active": injected_at is not None and g >= injected_at,
                "report": {"detected": detected[g] == "1", "changes": []}} for g in range(n)]
    s = m.summarize_trial(records, injected_at)
    s.update(novelty=novelty, sweep_difficulty=difficulty)
    return s


def test_band_of_each_kind_of_cell():
    assert db.band_of(CELLS[("rent_hike", "easy")]) == "<= 10 decisions"
    assert db.band_of({"detectability_decisions": 10.0}) == "<= 10 decisions"
    assert db.band_of({"detectability_decisions": 10.5}).startswith("11-100")
    assert db.band_of(CELLS[("dice_weights", "hard")]) == "> 1000 decisions"
    assert db.band_of(CELLS[("sticky_doubles", "hard")]) == db.NEVER
    assert db.band_of(None) == db.UNMEASURED
    assert db.band_of({"games": 3}) == db.UNMEASURED


def test_trials_are_pooled_per_band_in_order():
    trials = [
        trial("rent_hike", "easy", "00111"),       # delay 0
        trial("rent_hike", "easy", "00011"),       # delay 1
        trial("rent_hike", "hard", "00001"),       # delay 2
        trial("dice_weights", "hard", "00000"),    # missed
        trial("dice_weights", "hard", "01111"),    # false positive: not a detection
        trial("sticky_doubles", "hard", "00000"),
        trial("jail_fine", "easy", "00100"),       # not in the table
        {**trial("rent_hike", "easy", "00000", injected_at=None), "novelty": None},  # control
        {**trial("rent_hike", "easy", "00000", injected_at=None), "novelty": "none"},  # as saved
    ]
    groups = db.by_band(trials, CELLS)
    assert list(groups) == ["<= 10 decisions", "11-100 decisions (about a game)",
                            "> 1000 decisions", db.NEVER, db.UNMEASURED]
    assert [len(v) for v in groups.values()] == [2, 1, 2, 1, 1]
    rows = {r["band"]: r for r in db.band_rows(trials, CELLS)}
    easy = rows["<= 10 decisions"]
    assert easy["nda"] == 1.0 and easy["detection_delay"] == pytest.approx(0.5)
    assert rows["11-100 decisions (about a game)"]["detection_delay"] == 2.0
    hard = rows["> 1000 decisions"]
    assert hard["nda"] == 0.0 and hard["nda_n"] == 2 and hard["detection_delay"] is None
    assert hard["false_positive_rate"] == 0.5
    table = db.band_table(trials, CELLS)
    assert table.count("\n") == 1 + 5
    assert "| <= 10 decisions | 2 | 100.0 (" in table


def test_load_cells_reads_the_data_file_schema(tmp_path: Path):
    path = tmp_path / "measured.json"
    path.write_text(json.dumps({"version": 1, "plugins": {
        "rent_hike": {"easy": {"detectability_decisions": 3.5}, "hard": {}}}}))
    cells = db.load_cells(path)
    assert cells[("rent_hike", "easy")]["detectability_decisions"] == 3.5
    assert db.band_of(cells[("rent_hike", "hard")]) == db.UNMEASURED
    assert db.load_cells(tmp_path / "missing.json") == {}


def test_the_study_puts_saved_sweeps_side_by_side(tmp_path: Path, capsys):
    """Two hand-made saved sweeps (one per observability level, plus a control trial):
    the summary has one row per sweep with the pooled values, the band table one row per
    sweep x band, and a directory without a sweep is a one-line error."""
    from evaluation.sweeps import detection_study

    def saved(level: str, detected: str) -> dict:
        ts = [dict(trial("rent_hike", "easy", detected), observability=level,
                   sweep_category="attribute", char_accuracy_values=None),
              dict(trial("rent_hike", "hard", "00000"), observability=level,
                   sweep_category="attribute", char_accuracy_values=None),
              dict(trial("rent_hike", "easy", "00000", injected_at=None), novelty="none",
                   sweep_category="control", sweep_difficulty=None)]
        return {"command": "python -m evaluation.detection_sweep ...", "seconds": 1.0,
                "trials": ts, "args": {"agent": "planner", "per_cell": 1, "controls": 1,
                                       "games": 5, "window": [0.3, 0.6], "seed": 0,
                                       "workers": 1, "observability": level}}

    for level, det in (("announced", "00111"), ("effects", "00001")):
        (tmp_path / level).mkdir()
        (tmp_path / level / "sweep.json").write_text(json.dumps(saved(level, det)))
    text = detection_study.study_text(
        [json.loads((tmp_path / lv / "sweep.json").read_text()) for lv in ("announced", "effects")],
        CELLS)
    summary = [line for line in text.splitlines() if line.startswith("| `planner` |")]
    # summary: 2 rows, then bands: 2 sweeps x 2 bands
    assert len(summary) == 2 + 4
    assert summary[0].startswith("| `planner` | announced | 2 | 5 | 50.0 (")
    assert "| 0.00 (" in summary[0] and "| 2.00 (" in summary[1]  # delays 0 and 2
    assert "### `planner`, novelties `effects`" in text
    controls = dict(saved("effects", "00000"), trials=[saved("effects", "0")["trials"][2]])
    assert "| `planner` | controls only | 0 | 5 |" in detection_study.summary_rows([controls])
    assert detection_study.main([str(tmp_path / "announced")]) == 0
    assert detection_study.main([str(tmp_path / "nothing")]) == 2
    assert "no sweep.json" in capsys.readouterr().err


def test_the_band_table_pools_the_sweeps_of_one_agent_and_level():
    """A sweep of the hardest cells adds its trials to the same agent's bands."""
    from evaluation.sweeps import detection_study

    def saved(trials, cells=None):
        args = {"agent": "planner", "per_cell": 1, "controls": 0, "games": 5,
                "window": [0.3, 0.6], "seed": 0, "workers": 1, "observability": "effects"}
        return {"command": "c", "seconds": 1.0, "trials": trials,
                "args": {**args, **({"cells": cells} if cells else {})}}

    def t(novelty, difficulty, detected):
        return dict(trial(novelty, difficulty, detected), observability="effects",
                    sweep_category="attribute", char_accuracy_values=None)

    main = saved([t("rent_hike", "easy", "00111"), t("dice_weights", "hard", "00000")])
    hardest = saved([t("dice_weights", "hard", "00011"), t("dice_weights", "hard", "00000")],
                    cells=["hardest"])
    table = detection_study.band_rows([main, hardest], CELLS)
    rows = [r for r in table.splitlines() if r.startswith("| `planner`")]
    assert len(rows) == 2  # one agent and level: its two bands, pooled
    assert rows[1].startswith("| `planner` | effects | > 1000 decisions | 3 | 33.3 (")
    assert rows[1].endswith("| 1 [1–1], max 1 |")  # the one detection, a game after
    summary = detection_study.summary_rows([main, hardest])
    assert "| `planner` | effects, cells hardest | 2 |" in summary


def test_the_summary_gives_the_delays_distribution():
    """Delay: beside the mean and its interval, the median, quartiles and largest of the
    detected trials' delays (a mean hides a long tail)."""
    from evaluation.sweeps import detection_study

    ts = [dict(trial("rent_hike", "easy", "0" * 2 + "0" * d + "1" + "1" * (7 - d)),
               observability="effects", sweep_category="attribute", char_accuracy_values=None)
          for d in (0, 0, 1, 2, 6)]
    saved = {"trials": ts, "args": {"agent": "planner", "games": 10, "window": [0.2, 0.2],
                                    "observability": "effects"}}
    row = detection_study.summary_rows([saved]).splitlines()[2]
    assert "| 1 [0–2], max 6 |" in row
    none = dict(saved, trials=[dict(ts[0], detection_delay=None, nda=False)])
    assert "| - |" in detection_study.summary_rows([none]).splitlines()[2]


def test_a_cell_measured_for_other_preset_parameters_is_not_used():
    """Presets get re-tuned: a measured cell whose `params` differ from the preset a trial
    ran (recorded, or else the preset as it is now) describes another novelty."""
    from novelties.registry import load_novelty

    current = load_novelty("rent_hike", "easy")[1].model_dump(mode="json")
    cells = {("rent_hike", "easy"): {"params": current, "detectability_decisions": 1.0},
             ("rent_hike", "hard"): {"params": {"factor": 99.0}, "detectability_decisions": 1.0},
             ("jail_fine", "easy"): {"detectability_decisions": 1.0}}  # no params: trusted
    assert db.cell_of(trial("rent_hike", "easy", "00111"), cells) is cells[("rent_hike", "easy")]
    assert db.cell_of(trial("rent_hike", "hard", "00111"), cells) is None
    assert db.cell_of(trial("jail_fine", "easy", "00111"), cells) is cells[("jail_fine", "easy")]


def test_a_trial_run_with_other_parameters_than_measured_is_not_banded():
    cells = {("rent_hike", "easy"): {"params": {"factor": 1.5}, "detectability_decisions": 1.0}}
    same = dict(trial("rent_hike", "easy", "00111"), novelty_params={"factor": 1.5})
    other = dict(trial("rent_hike", "easy", "00111"), novelty_params={"factor": 2.0})
    assert list(db.by_band([same], cells)) == ["<= 10 decisions"]
    assert list(db.by_band([other], cells)) == [db.UNMEASURED]


def test_a_trial_finds_its_cell_by_parameters_when_presets_were_swapped():
    """Re-tuning may move a preset's parameters to another difficulty: a trial is banded
    by the cell measured for the parameters it ran with, whatever that cell is called."""
    cells = {("rent_hike", "easy"): {"params": {"factor": 3.0}, "detectability_decisions": 50.0},
             ("rent_hike", "hard"): {"params": {"factor": 1.5}, "detectability_decisions": 1.0}}
    ran_hard = dict(trial("rent_hike", "easy", "00111"), novelty_params={"factor": 3.0})
    assert list(db.by_band([ran_hard], cells)) == ["11-100 decisions (about a game)"]


def test_drl_agents_get_their_own_detector_described_and_a_warning_for_short_trials():
    """A DRL agent's report names its surprise detector, not the planner's; trials
    that inject before its calibration ends are flagged before anything runs."""
    import argparse

    from agents.drl.surprise import CALIBRATION_GAMES
    from evaluation.sweeps import detection_report

    assert "agents/drl/surprise.py" in detection_report.detector_text("hybrid_ppo")
    assert "agents/planner/detection/" in detection_report.detector_text("planner")
    assert "agents/planner/detection/" in detection_report.detector_text("detect_baseline")

    def args(agent: str, games: int, lo: float) -> argparse.Namespace:
        return argparse.Namespace(agent=agent, games=games, window=(lo, 0.6))

    assert detection_report.short_for_detector(args("hybrid_ddqn", 20, 0.3))
    assert not detection_report.short_for_detector(args("hybrid_ddqn", 100, 0.3))
    assert not detection_report.short_for_detector(args("planner", 20, 0.3))
    edge = CALIBRATION_GAMES / 0.5
    assert not detection_report.short_for_detector(args("ppo", int(edge), 0.5))
    assert detection_report.short_for_detector(args("ppo", int(edge) - 2, 0.5))


def test_saved_trials_take_the_preset_name_their_parameters_have_now():
    """A sweep saved before a re-tuning names the old preset; the study reports each
    trial under the preset that carries its recorded parameters today."""
    from novelties.registry import load_novelty

    now_medium = load_novelty("rent_hike", "medium")[1].model_dump(mode="json")
    old_name = dict(trial("rent_hike", "hard", "00111"), difficulty="hard",
                    novelty_params=now_medium)
    unknown = dict(trial("rent_hike", "hard", "00111"), novelty_params={"factor": 9.0})
    control = dict(trial("rent_hike", "easy", "00000", injected_at=None), novelty="none")
    out, moved = db.with_current_presets([old_name, unknown, control])
    assert moved == 1
    assert (out[0]["sweep_difficulty"], out[0]["difficulty"]) == ("medium", "medium")
    assert out[1] == unknown and out[2] == control
    assert old_name["sweep_difficulty"] == "hard"  # the saved record is not changed


def test_the_hardest_cells_are_the_last_band_and_the_never_seen():
    assert db.hardest_cells(CELLS) == [("dice_weights", "hard"), ("sticky_doubles", "hard")]


def test_a_sweep_over_chosen_cells_runs_each_cell_per_cell_times():
    from evaluation.sweeps import detection_plan

    cells = detection_plan.chosen_cells(["cash_cap:hard", "late_rent:hard", "cash_cap:hard"])
    assert cells == [("cash_cap", "hard"), ("late_rent", "hard")]  # once each
    specs = detection_plan.plan(2, 1, 500, 100, (0.3, 0.6), "planner", "effects", cells=cells)
    assert [(s["novelty"], s["difficulty"]) for s in specs[:4]] == [
        ("late_rent", "hard"), ("late_rent", "hard"), ("cash_cap", "hard"), ("cash_cap", "hard")]
    assert [s["category"] for s in specs] == ["class", "class", "attribute", "attribute",
                                              "control"]
    assert [s["seed"] for s in specs] == list(range(500, 505))
    hardest = detection_plan.chosen_cells(["hardest"])
    assert hardest and set(hardest) == set(db.hardest_cells())


def test_spread_cells_fill_each_category_and_difficulty_to_per_cell() -> None:
    """`spread=true`: per_cell trials per category x difficulty holding chosen cells,
    cycling through them, instead of per_cell of each (a wide band at SAIL-ON's size)."""
    from evaluation.sweeps import detection_plan

    cells = [("hotel_upkeep", "easy"), ("building_tax", "easy"), ("rent_collapse", "hard")]
    specs = detection_plan.plan(5, 0, 700, 100, (0.3, 0.6), "planner", "effects",
                                cells=cells, spread=True)
    assert [(s["novelty"], s["difficulty"]) for s in specs] == [
        ("building_tax", "easy"), ("hotel_upkeep", "easy"), ("building_tax", "easy"),
        ("hotel_upkeep", "easy"), ("building_tax", "easy")] + [("rent_collapse", "hard")] * 5
    assert [s["seed"] for s in specs] == list(range(700, 710))


@pytest.mark.parametrize("item, named", [("nope:hard", "unknown plugin 'nope'"),
                                         ("cash_cap", "cash_cap:hard"),
                                         ("cash_cap:harder", "cash_cap:easy")])
def test_a_bad_cell_is_one_line_naming_the_choices(tmp_path: Path, capsys, item, named):
    from evaluation.sweeps import detection_sweep as ds

    out = tmp_path / "sweep"
    assert ds.main([f"cells=[{item}]", "controls=0", "games=1", f"out={out}"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and named in err and "cells" in err
    assert not out.exists()


def test_a_sweep_labels_a_trial_with_the_preset_it_played(tmp_path: Path, monkeypatch):
    from evaluation.sweeps import detection_trials
    from novelties.registry import available_novelties

    spec = {"agent": "random", "category": "attribute", "difficulty": "hard",
            "novelty": "rent_hike", "seed": 7, "games": 3, "window": (0.3, 0.6),
            "observability": "effects"}
    played = detection_trials.run_one(spec, str(tmp_path))["novelty_params"]
    plugin = available_novelties()["rent_hike"]
    monkeypatch.setattr(plugin, "presets", {**plugin.presets, "hard": {"factor": 9.0}})
    where, _ = detection_trials.trial_for(spec, str(tmp_path))
    summary = json.loads((where / "summary.json").read_text())
    assert detection_trials.finish(spec, summary, where, 0.0)["novelty_params"] == played  # not factor 9
    assert played["factor"] != 9.0


def test_a_finished_trial_is_read_not_replayed_when_a_sweep_resumes(tmp_path: Path,
                                                                    monkeypatch):
    from evaluation.sweeps import detection_trials

    spec = {"agent": "random", "category": "attribute", "difficulty": "hard",
            "novelty": "rent_hike", "seed": 3, "games": 3, "window": (0.3, 0.6)}
    first = detection_trials.run_one(spec, str(tmp_path))

    def replay(*_a, **_k):
        raise AssertionError("a finished trial was played again")

    monkeypatch.setattr(detection_trials, "run_trial", replay)
    again = detection_trials.run_one(spec, str(tmp_path))
    assert again["nda"] == first["nda"] and again["games"] == 3
    assert again["novelty_params"] == first["novelty_params"]
