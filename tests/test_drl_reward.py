"""The DRL reward (eq. 1-4) against values computed by hand."""

from __future__ import annotations

import pytest
from helpers import make_game

from agents.drl.reward import ShareDelta, TERMINAL_C, dense_reward, net_worths, share, terminal_reward
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
    # lone_bonus 1.25 changes b outside the set only (Reading; Boardwalk alone)
    nw125 = net_worths(obs, 1.25)
    assert nw125[0] == pytest.approx(1000 + 60 * 2 + (60 * 2 + 2 * 50) + 100 * 1.25)
    assert nw125[1] == pytest.approx(500 + 400 * 1.25)
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


def test_share_by_hand() -> None:
    # The position of test_net_worth_by_hand: 1490 / (1490 + 1100 + 300).
    def position():
        return make_game(players=3, cash={0: 1000, 1: 500, 2: 300},
                         owner={"Mediterranean Avenue": 0, "Baltic Avenue": 0,
                                "Reading Railroad": 0, "Boardwalk": 1},
                         level={"Baltic Avenue": 2}, mortgaged=["Reading Railroad"])
    obs = _obs(position())
    assert share(obs) == pytest.approx(1490 / 2890)
    assert share(obs, seat=1) == pytest.approx(1100 / 2890)
    r = dense_reward(obs)
    assert share(obs) == pytest.approx(r / (1 + r))  # the monotone map of eq. 4
    game = position()
    game.state.active[1] = False  # a bankrupt player leaves the table's total
    assert share(_obs(game)) == pytest.approx(1490 / 1790)


class _Recorder:
    """Stands in for a learner: records what the agent credits (rewards, final)."""

    def __init__(self, reward: str) -> None:
        from agents.drl.ppo import PPO, PPOConfig
        self.inner = PPO(PPOConfig(reward=reward, hidden=(8, 8)), seed=0)
        self.cfg, self.rng = self.inner.cfg, self.inner.rng
        self.rewards: list[float] = []
        self.final: float | None = None

    def add_reward(self, r: float, discount: float = 1.0) -> None:
        self.rewards.append(r)

    def choose(self, x, idx, rng, greedy):
        return self.inner.choose(x, idx, rng, greedy)

    def record(self, *a) -> None:
        pass

    def end_game(self, final: float) -> None:
        self.final = final


@pytest.mark.parametrize("seed", [0, 1])
def test_delta_rewards_telescope_to_the_outcome(seed: int, monkeypatch) -> None:
    """delta shaping: a game's rewards sum to won - first share (+- c, here 0), so taking
    more steps earns nothing; paper shaping pays eq. 4 (>= 0) at every step."""
    import openmono
    from agents.drl.agent import DRLAgent
    from agents.registry import make_agent

    totals = {}
    for shaping in ("delta", "paper"):
        rec = _Recorder(shaping)
        agent = DRLAgent("ppo", "hybrid", learner=rec, training=True, detector="none")
        shares: list[float] = []

        class Spy(ShareDelta):
            def step(self, obs, nw=None):
                r = super().step(obs, nw)
                shares.append(self.last)
                return r
        monkeypatch.setattr("agents.drl.agent.ShareDelta", Spy)
        res = openmono.play_game(openmono.standard_schema(),
                                 [agent, make_agent("fp_a"), make_agent("fp_b"),
                                  make_agent("fp_c")], seed=seed)
        won = float(res.winner == 0)
        if shaping == "delta":
            assert rec.rewards[0] == 0.0 and len(shares) == len(rec.rewards) > 10
            assert sum(rec.rewards) + rec.final == pytest.approx(won - shares[0])
        else:
            assert min(rec.rewards) >= 0 and rec.final == 0.0
        totals[shaping] = sum(rec.rewards)
    assert abs(totals["delta"]) <= 1.0 < totals["paper"]
