"""`python -m evaluation.rescore`: another alarm rule scored on saved trials from the
statistics each record keeps (`report.evidence`)."""

from __future__ import annotations

from agents.base import NoveltyReport
from agents.random_agent import RandomAgent
from evaluation.sweeps import rescore
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig


class Counting(RandomAgent):
    """Reports no novelty, and as its statistic the number of games it has finished."""

    def __init__(self) -> None:
        super().__init__()
        self.games = 0

    def end_game(self, result) -> None:
        self.games += 1

    def novelty_report(self) -> NoveltyReport:
        return NoveltyReport(evidence={"games_seen": float(self.games)})


def _trial(out, **kw) -> None:
    run_trial(TrialConfig(agent="test_rescore:Counting", opponents=["random"] * 3,
                          reference=None, progress=False, games=6, seed=1,
                          keep_logs="none", **kw), out)


def test_a_threshold_rule_is_scored_on_saved_trials(tmp_path, capsys) -> None:
    _trial(tmp_path / "novel", novelty="rent_hike", inject_at=3)
    _trial(tmp_path / "control")
    found = rescore.trials([str(tmp_path)])
    assert len(found) == 2
    # the statistic after game g is g + 1: threshold T reports after game T - 1
    early = rescore.score(found, "games_seen", 2)  # after game 1: before the injection
    assert early["nda"] == 0.0 and early["false_positives"] == 2
    late = rescore.score(found, "games_seen", 5)  # after game 4: one game after it
    assert late["nda"] == 1.0 and late["mean_delay"] == 1 and late["false_positives"] == 1
    never = rescore.score(found, "games_seen", 99)
    assert never["nda"] == 0.0 and never["false_positives"] == 0
    assert rescore.main([str(tmp_path), "stat=games_seen", "thresholds=[5]"]) == 0
    assert "| 5 | 1 | 100.0" in capsys.readouterr().out
    assert rescore.main([str(tmp_path), "stat=other"]) == 2
    assert rescore.main([str(tmp_path), "--thresholds", "a,b"]) == 2
