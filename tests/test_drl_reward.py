"""The DRL reward (eq. 1-4) against values computed by hand."""

from __future__ import annotations

import pytest
from helpers import make_game

from agents.drl.reward import TERMINAL_C, dense_reward, net_worths, terminal_reward
from openmono.engine import Decision


def _obs(game, seat=0):
    return game.observe(seat, Decision("pre_roll"))


def test_net_worth_by_hand() -> None:
    # Seat 0: $1000, Mediterranean (60) + Baltic (60) = the brown set, Baltic with two
    # houses (2 x 50); Reading Railroad (200) mortgaged (100 owed).
    # Seat 1: $500, Boardwalk (400) alone. Seat 2: $300, nothing.
    game = make_game(players=3, cash={0: 1000, 1: 500, 2: 300},
                     owner={"Mediterranean Avenue": 0, "Baltic Avenue": 0,
                            "Reading Railroad": 0, "Boardwalk": 1},
                     level={"Baltic Avenue": 2}, mortgaged=["Reading Railroad"])
    obs = _obs(game)
    nw = net_worths(obs)
    mine = 1000 + 60 * 2 + (60 * 2 + 2 * 50) + (200 - 100) * 1.5
    assert nw[0] == pytest.approx(mine)  # 1490
    assert nw[1] == pytest.approx(500 + 400 * 1.5)  # 1100
    assert nw[2] == pytest.approx(300)
    assert dense_reward(obs) == pytest.approx(1490 / 1400)
    assert dense_reward(obs, seat=2) == pytest.approx(300 / 2590)


def test_hotel_counts_every_level_and_bankrupt_players_drop_out() -> None:
    game = make_game(players=3, cash={0: 0, 1: 100, 2: 700},
                     owner={"Park Place": 0, "Boardwalk": 0}, level={"Boardwalk": 5,
                                                                     "Park Place": 4})
    game.state.active[2] = False
    obs = _obs(game)
    assert net_worths(obs)[0] == pytest.approx(350 * 2 + 400 * 2 + 9 * 200)
    assert dense_reward(obs) == pytest.approx(3300 / 100)


def test_terminal() -> None:
    assert TERMINAL_C == {"ppo": 0.0, "ddqn": 10.0}
    assert terminal_reward(True, 10.0) == 10.0 and terminal_reward(False, 10.0) == -10.0
