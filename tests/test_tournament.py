"""`evaluation.tournament`: seeds, the summary, the paper-style table and the CLI."""

from __future__ import annotations

import json

import pytest

import openmono
from agents.registry import UnknownAgentError
from evaluation.games import tournament as T
from evaluation.harness.cli import UsageError


def test_runs_play_consecutive_engine_seeds(monkeypatch):
    played = []
    real = T.play_game
    monkeypatch.setattr(T, "play_game",
                        lambda *a, seed, **k: played.append(seed) or real(*a, seed=seed, **k))
    T.run_tournament(["baseline", "random", "baseline"], games=3, runs=2, seed=7)
    assert played == [7, 8, 9, 10, 11, 12]


def test_summary_counts_every_game_and_is_deterministic():
    a = T.run_tournament(["baseline", "random", "baseline"], games=3, runs=2, seed=5)
    b = T.run_tournament(["baseline", "random", "baseline"], games=3, runs=2, seed=5)
    assert a["agents"] == ["baseline", "random", "baseline"]
    assert a["games"] == 6 and sum(a["wins"]) == 6
    assert [sum(r) for r in a["wins_per_run"]] == [3, 3]
    assert a["wins"] == b["wins"] and a["wins_per_run"] == b["wins_per_run"]
    assert sum(a["end_reasons"].values()) == 6
    for key in ("games_per_second", "trades_per_game", "auctions_per_game",
                "bankruptcy_share", "turn_limit_share"):
        assert key in a


def test_wins_match_single_games_with_the_documented_seeds():
    from agents.registry import make_agent

    s = T.run_tournament(["fp_a", "random"], games=2, runs=2, seed=3)
    expected = [0, 0]
    for seed in (3, 4, 5, 6):
        r = openmono.play_game(openmono.standard_schema(),
                               [make_agent("fp_a"), make_agent("random")], seed=seed)
        expected[r.winner] += 1
    assert s["wins"] == expected


def test_table_has_the_paper_layout():
    summary = {"agents": ["fp_a", "baseline", "baseline"], "wins_per_run": [[1, 2, 3], [4, 0, 0]],
               "win_rate": [0.5, 0.2, 0.3]}
    lines = T.format_table(summary).splitlines()
    assert lines[0].split() == ["Run", "fp_a", "baseline#1", "baseline#2"]
    assert lines[1].split() == ["1", "1", "2", "3"]
    assert lines[2].split() == ["2", "4", "0", "0"]
    assert lines[3].split() == ["Win", "Rate", "50.00%", "20.00%", "30.00%"]


def test_bad_arguments_are_usage_errors():
    with pytest.raises(UsageError):
        T.run_tournament(["baseline"], games=1)
    with pytest.raises(UsageError):
        T.run_tournament(["baseline", "random"], games=0)
    with pytest.raises(UnknownAgentError, match="(?i)available agents: .*baseline"):
        T.run_tournament(["baseline", "nope"], games=1)


def test_cli_prints_the_table_then_json_last(capsys):
    assert T.main(["agents=[fp_b,random]", "games=2", "runs=2", "seed=1",
                   "progress=false"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[1].split() == ["Run", "fp_b", "random"]
    data = json.loads(out[-1])
    assert data["agents"] == ["fp_b", "random"] and data["games"] == 4
    assert sum(data["wins"]) == 4


def test_cli_unknown_agent_exits_2_listing_agents(capsys):
    with pytest.raises(SystemExit) as exc:
        T.main(["agents=[fp_a,bogus]", "games=1"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "bogus" in err and "fp_c" in err and "Traceback" not in err


def test_cli_unknown_option_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        T.main(["agent=[fp_a]"])
    assert exc.value.code == 2
    assert "agents" in capsys.readouterr().err


def test_novelty_options_work_on_every_quick_entry_point(capsys) -> None:
    """bench and tournament take the trial's novelty options (novelty=, .difficulty, .params)."""
    import json as _json

    from evaluation.games import bench
    from evaluation.games import tournament

    assert tournament.main(["agents=[baseline,random]", "games=3", "runs=1",
                            "novelty=rent_hike", "novelty.difficulty=hard",
                            "novelty.params.factor=3", "progress=false"]) == 0
    out = _json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["novelty"] == "rent_hike (hard)"
    assert bench.main(["games=2", "novelty=dice_weights"]) == 0
    out = _json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["novelty"] == "dice_weights (medium)"


def test_bad_novelty_option_is_a_short_error(capsys) -> None:
    import pytest as _pytest

    from evaluation.games import tournament

    with _pytest.raises(SystemExit) as exc:
        tournament.main(["novelty=rent_hik", "games=1", "runs=1"])
    assert exc.value.code == 2
    assert "rent_hike" in capsys.readouterr().err


def test_agent_options_reach_every_seat_of_that_name(capsys) -> None:
    """`agent.NAME.KEY=VALUE` builds every `NAME` seat with that option (the shipped
    DRL agents with a user's checkpoint, the planner without adaptation, ...)."""
    seen = []
    real = T.make_agent

    def spy(name, **params):
        seen.append((name, params))
        return real(name, **params)

    import evaluation.harness.remote_seats as RS
    old = RS.make_agent
    RS.make_agent = spy
    try:
        assert T.main(["agents=[planner,random,planner]", "games=1", "runs=1",
                       "agent.planner.adapt=false", "agent.planner.k_turns=3"]) == 0
    finally:
        RS.make_agent = old
    told = {"adapt": False, "k_turns": 3, "rules": "standard"}  # (and the game's rules)
    assert seen == [("planner", told), ("random", {}), ("planner", told)]
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["agent_options"] == {
        "planner": told}


@pytest.mark.parametrize("args, words", [
    (["agent.fp_a.greedy=true"], ["fp_a", "not among agents"]),
    (["agent.random.speed=3"], ["random", "speed"]),
    (["agent.random=3"], ["agent.NAME.KEY=VALUE"]),
])
def test_bad_agent_options_are_one_line_errors(capsys, args, words) -> None:
    with pytest.raises(SystemExit) as exc:
        T.main(["agents=[random,random]", "games=1", "runs=1", *args])
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and len(err.splitlines()) == 1
    assert all(w in err for w in words), err
