"""The planner is told the trial's base rules: a GNOME-rules game without a novelty is
not a novelty to it (its prior was the standard rules, so it reported one at game 0)."""

from __future__ import annotations

import pytest

import openmono
from agents.registry import make_agent
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig
from evaluation.harness.trial_folder import read_records


@pytest.mark.parametrize("seed", range(4))
def test_planner_told_gnome_rules_sees_no_novelty_in_gnome_games(seed: int) -> None:
    gnome = openmono.rules_schema("gnome")
    planner = make_agent("planner", rules="gnome")
    openmono.play_game(gnome, [planner, *(make_agent("baseline") for _ in range(3))],
                       seed=seed)
    assert not planner.novelty_report().detected, planner.detector.evidence


def test_a_gnome_trial_tells_the_planner_its_rules(tmp_path) -> None:
    cfg = TrialConfig(agent="planner", novelty=None, games=2, seed=0, reference=None,
                      rules="gnome", progress=False)
    run_trial(cfg, tmp_path)
    assert not any(r["report"]["detected"] for r in read_records(tmp_path / "games.jsonl"))


def test_unknown_rules_for_the_planner_is_a_one_line_error() -> None:
    with pytest.raises(ValueError, match="unknown rules 'gnom'; valid rules: standard, gnome"):
        make_agent("planner", rules="gnom")


def test_a_gnome_tournament_tells_the_planner_its_rules(capsys) -> None:
    from evaluation.games import tournament as T

    seen = []
    real = T.make_agents

    def spy(names, remote, per_name=None):
        seen.append(per_name)
        return real(names, remote, per_name)

    T.make_agents, old = spy, T.make_agents
    try:
        assert T.main(["agents=[planner,baseline]", "games=1", "rules=gnome"]) == 0
        assert T.main(["agents=[planner,baseline]", "games=1", "rules=gnome",
                       "agent.planner.rules=standard"]) == 0
    finally:
        T.make_agents = old
    assert seen == [{"planner": {"rules": "gnome"}}, {"planner": {"rules": "standard"}}]
