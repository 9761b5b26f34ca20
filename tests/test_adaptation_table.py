"""The detection page's opening table: what adapting wins back, paired over trials."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from evaluation.sweeps import detection_study as study

STUDY = Path(__file__).resolve().parents[1] / "docs" / "data" / "detection_study"


@pytest.fixture(scope="module")
def sweeps() -> dict[str, dict]:
    """The saved catalogue sweeps of the planner and its non-adapting twin (same trials)."""
    loaded, _ = study.load_sweeps([STUDY / "sailon_planner_effects", STUDY / "sailon_fixed_effects"])
    return {"planner": loaded[0], "fixed": loaded[1]}


def _told(saved: dict, won_all: bool) -> dict:
    """The same trials under `announced`, post-novelty games all won (or as in `saved`)."""
    told = copy.deepcopy(saved)
    told["args"]["observability"] = "announced"
    for t in told["trials"]:
        t["observability"] = "announced"
        if won_all:
            t["post_wins"] = t["post_games"]
    return told


def _pooled(saved: dict) -> float:
    by = study._post_by_trial(saved)
    return sum(w for w, _ in by.values()) / sum(g for _, g in by.values())


def test_recovery_is_told_minus_blind_and_the_share_of_it(sweeps):
    planner, fixed = sweeps["planner"], sweeps["fixed"]
    told = _told(planner, won_all=True)
    r = study.recovery(planner, fixed, told)
    assert r["trials"] == len(study._post_by_trial(planner))
    assert r["cost"] == pytest.approx(1.0 - _pooled(fixed))
    assert r["gain"] == pytest.approx(_pooled(planner) - _pooled(fixed))
    assert r["share"] == pytest.approx(r["gain"] / r["cost"])
    lo, hi = r["cost_ci"]
    assert lo < r["cost"] < hi
    lo, hi = r["share_ci"]
    assert lo <= r["share"] <= hi


def test_no_share_of_a_cost_that_may_be_nothing(sweeps):
    """Told and blind playing the same: the cost's interval holds 0, so no share."""
    fixed = sweeps["fixed"]
    r = study.recovery(sweeps["planner"], fixed, _told(fixed, won_all=False))
    assert r["cost"] == 0.0 and r["share"] is None


def test_unpaired_sweeps_give_no_cost(sweeps):
    told = _told(sweeps["planner"], won_all=True)
    for t in told["trials"]:
        t["seed"] += 100_000  # other trials
    assert study.recovery(sweeps["planner"], sweeps["fixed"], told) == {"trials": 0}


def test_the_table_has_a_row_per_agent_and_pairs_the_twin(sweeps):
    text = study.adaptation_table([sweeps["planner"], sweeps["fixed"],
                                   _told(sweeps["planner"], won_all=True)])
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == ["planner", "planner(adapt=False)"]
    assert rows[0].split("|")[6].strip() != "–"  # the planner's cost, from its twin
    assert rows[1].split("|")[6].strip() == "–"  # the twin has no twin
    assert "`planner` wins" in text and "than `planner(adapt=False)`" in text
