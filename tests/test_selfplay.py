"""`evaluation.selfplay`: four copies of an agent, shares with Wilson intervals, and the
first turn a player held a colour set; bad input is a one-line error."""

from __future__ import annotations

import json

import pytest

from evaluation.games import selfplay as S
from helpers import make_game, play

import openmono


def test_rows_and_summary():
    rows = S.play("baseline", 2, seed=0, rules="gnome", params={})
    assert [r["seed"] for r in rows] == [0, 1]
    for r in rows:
        assert r["end"] in ("bankruptcy", "cash_cap", "turn_limit") and r["turns"] > 0
        assert -1 <= r["first_set"] <= r["turns"]
    s = S.summary([{"end": "turn_limit", "turns": 1000, "trades": 0, "levels": 0, "first_set": -1},
                   {"end": "bankruptcy", "turns": 100, "trades": 4, "levels": 9, "first_set": 50}])
    assert s["turn_limit"]["count"] == 1 and s["no_set_among_turn_limit"] == 1
    assert s["no_set_ever"]["share"] == 0.5 and s["trades_per_game"] == 2.0
    lo, hi = s["turn_limit"]["ci95"]
    assert 0 < lo < 0.5 < hi < 1


def test_first_set_turn_sees_a_set_formed_by_a_trade():
    g = make_game(2, [(1, 2)], owner={"Mediterranean Avenue": 0, "Baltic Avenue": 1})
    before = g.state.owner
    assert S.first_set_turn(g.rules, g, before) == -1
    from helpers import Scripted
    from openmono import actions as A
    offer = A.OfferTrade(to=1, give=(), get=(3,), give_cash=100, get_cash=0)
    play(g, {0: Scripted(("pre_roll", offer)), 1: Scripted(("trade_response", A.ACCEPT))})
    assert g.state.owner[3] == 0 and S.first_set_turn(g.rules, g, before) == 1


@pytest.mark.parametrize("args, message", [
    (["games=0"], "games: input should be greater than or equal to 1"),
    (["rules=hasbro"], "valid rules: standard, gnome"),
    (["agent.nonsense=1", "games=1"], "unexpected keyword argument 'nonsense'"),
])
def test_bad_input_is_one_line(args, message, capsys):
    with pytest.raises(SystemExit):
        S.main(args)
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_main_prints_json_last(capsys):
    assert S.main(["agent=baseline", "games=1", "rules=gnome"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["games"] == 1
