"""The learner's sell-and-buy-back cycles (`evaluation.measures.trade_cycles`) and the
command that counts them over a tournament's games (`evaluation.trade_loop`)."""

from __future__ import annotations

import json

import pytest
from helpers import STANDARD

from evaluation.games import trade_loop
from evaluation.games.tournament import run_tournament
from evaluation.measures.trade_cycles import price_level, seat_cycles
from openmono import actions as A
from openmono import events as E
from openmono import gnome_schema
from openmono.hooks import NO_HOOKS

PRICES = [sq.price for sq in STANDARD.squares]
BOARDWALK, BO = 39, 25  # $400, $200


def _answered(offer: A.OfferTrade, offerer: int, accepted: bool = True) -> E.TradeAnswered:
    return E.TradeAnswered(offer.terms(), offerer, accepted)


def test_price_levels_are_the_drl_action_spaces():
    assert [price_level(c, 400) for c in (300, 400, 500, 450)] == [
        "0.75x", "1x", "1.25x", "other"]
    assert price_level(150 * 3 // 4, 150) == "0.75x"  # rounded down, as the encoder does
    with pytest.raises(ValueError, match="positive"):
        price_level(10, 0)


def test_a_sale_and_its_buy_back_make_one_cycle_at_their_levels():
    events = [
        _answered(A.OfferTrade(to=1, give=(BOARDWALK,), get_cash=500), 0),  # sells, 1.25x
        _answered(A.OfferTrade(to=1, get=(BOARDWALK,), give_cash=300), 0),  # buys, 0.75x
        _answered(A.OfferTrade(to=2, give=(BO,), get_cash=250), 0, accepted=False),
        _answered(A.OfferTrade(to=0, get=(BO,), give_cash=200), 2),  # 2 buys B&O from 0: 1x
        _answered(A.OfferTrade(to=0, give=(BO,), get_cash=150), 2),  # 2 sells it back: 0.75x
        _answered(A.OfferTrade(to=1, give=(BO,), get=(BOARDWALK,)), 0),  # an exchange: none
    ]
    tally = seat_cycles(events, 0, PRICES)
    assert dict(tally.sells) == {"1.25x": 1, "1x": 1}
    assert dict(tally.buys) == {"0.75x": 2}
    assert dict(tally.cycles) == {"1.25x->0.75x": 1, "1x->0.75x": 1}
    assert tally.cycle_count == 2 and tally.cycle_gain == (500 - 300) + (200 - 150)
    assert dict(tally.offered_by_partner) == {"sell": 1, "buy": 1}  # seat 2's two offers
    # from the partner's side the same trades are no cycle of its own
    assert seat_cycles(events, 1, PRICES).cycle_count == 0


def test_a_buy_without_an_earlier_sale_is_no_cycle():
    events = [_answered(A.OfferTrade(to=1, get=(BOARDWALK,), give_cash=300), 0)]
    tally = seat_cycles(events, 0, PRICES)
    assert dict(tally.buys) == {"0.75x": 1} and tally.cycle_count == 0


def test_the_command_plays_the_tournaments_games(capsys):
    names = ["fp_a", "fp_b", "fp_c", "baseline"]
    assert trade_loop.main([f"agents=[{','.join(names)}]", "learner=baseline", "games=3",
                            "seed=7", "rules=gnome"]) == 0
    counted = json.loads(capsys.readouterr().out.splitlines()[-1])
    played = run_tournament(names, 3, 1, 7, world=(gnome_schema(), NO_HOOKS))
    assert counted["wins"] == played["wins"] and counted["rules"] == "gnome"
    assert counted["trades_per_game"] == round(played["trades_per_game"], 1)


def test_a_learner_not_seated_is_a_short_error(capsys):
    with pytest.raises(SystemExit) as exc:
        trade_loop.main(["agents=[fp_a,fp_b]", "learner=hybrid_ppo", "games=1"])
    assert exc.value.code == 2
    assert "learner='hybrid_ppo' must be named exactly once" in capsys.readouterr().err
