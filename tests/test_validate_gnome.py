"""`evaluation.validate_gnome`: our side plays and summarises; a wrong GNOME path or a
bad game count stops with a short message (GNOME-p3 itself is optional, not tested)."""

from __future__ import annotations

import json

import pytest

from evaluation.games import validate_gnome as V


def test_our_side_records_every_measure():
    rows = V.play_ours(2, seed=0)
    assert len(rows) == 2
    for r in rows:
        assert set(r) == {"turns", "end", "winner", "trades", "auctions", "bought", "built",
                          "mortgaged", "sold", "razed", "seconds", "cpu"}
        assert r["end"] in ("bankruptcy", "cash_cap", "turn_limit") and 0 <= r["winner"] < 4
        assert r["bought"] > 0 and r["turns"] > 0 and r["cpu"] > 0


def test_speed_counts_games_and_player_turns_per_cpu_second():
    """Each side's rate is its games (and their player-turns) over their CPU time;
    the ratio is ours over GNOME's."""
    ours = [{"turns": 100, "cpu": 0.01, "seconds": 0.02}] * 4
    gnome = [{"turns": 150, "cpu": 0.1, "seconds": 0.1}] * 2
    fast = V.speed(ours, gnome)
    assert fast["ours"]["games_per_cpu_s"] == pytest.approx(100)
    assert fast["gnome"]["turns_per_cpu_s"] == pytest.approx(1500)
    assert fast["ratio_games_per_cpu_s"] == pytest.approx(10)
    assert fast["ratio_turns_per_cpu_s"] == pytest.approx(10000 / 1500)
    assert "ratio_games_per_cpu_s" not in V.speed(ours, [])


def test_compare_without_gnome_lists_our_side(capsys):
    assert V.main(["games=2", "seed=3"]) == 0
    out = capsys.readouterr().out
    assert "| turns per game |" in out and "GNOME-p3 0" in out
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["games_ours"] == 2 and summary["games_gnome"] == 0


@pytest.mark.parametrize("args, message", [
    (["games=0"], "games: input should be greater than or equal to 1"),
    (["games=1", "gnome=/nonexistent"], "is not a GNOME-p3 checkout"),
])
def test_bad_input_is_one_line(args, message, capsys):
    with pytest.raises(SystemExit):
        V.main(args)
    assert message in capsys.readouterr().err


def test_gnome_games_past_our_turn_limit_count_as_reaching_it():
    """GNOME has no turn limit: a GNOME game longer than ours is compared as one our
    limit would have stopped (its length cut at the limit, its end 'turn_limit')."""
    row = {"turns": 1500, "end": "cash_cap", "winner": 0, "trades": 1, "auctions": 1,
           "bought": 1, "built": 1, "mortgaged": 0, "sold": 0, "razed": 0}
    short = dict(row, turns=900, end="bankruptcy")
    cut = V.censor([row, short], turn_limit=1000)
    assert (cut[0]["turns"], cut[0]["end"]) == (1000, "turn_limit")
    assert cut[1] == short and row["turns"] == 1500


def test_the_sides_alternate_in_blocks_that_cover_every_seed_once(monkeypatch, tmp_path, capsys):
    """The machine's speed drifts: the games are played in `rounds` blocks, ours then
    GNOME's, so both sides meet the drift alike; together the blocks play every seed
    once on each side, in order."""
    calls = []
    row = {"turns": 10, "end": "bankruptcy", "winner": 0, "trades": 0, "auctions": 0,
           "bought": 0, "built": 0, "mortgaged": 0, "sold": 0, "razed": 0,
           "seconds": 0.1, "cpu": 0.1}
    monkeypatch.setattr(V, "play_ours", lambda n, seed: calls.append(("ours", seed, n))
                        or [dict(row) for _ in range(n)])
    monkeypatch.setattr(V, "play_gnome", lambda ck, n, seed: calls.append(("gnome", seed, n))
                        or [dict(row) for _ in range(n)])
    assert V.main(["games=7", "seed=5", "rounds=3", f"gnome={tmp_path}"]) == 0
    assert calls == [("ours", 5, 3), ("gnome", 5, 3), ("ours", 8, 2), ("gnome", 8, 2),
                     ("ours", 10, 2), ("gnome", 10, 2)]
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["games_ours"] == summary["games_gnome"] == 7
