"""What the encoder and the reward keep between decisions (issue 28's speed work) gives
exactly what a fresh computation gives, at every step of Gymnasium episodes with random
actions (many mortgages, buildings and trades) against three `baseline`."""

from __future__ import annotations

import numpy as np

from agents.drl import encoding as E
from agents.drl.encoding import BUY_OFFER, EXCHANGE, N_OPP, N_SLOTS, SELL_OFFER
from agents.drl import reward as R
from envs.gym_env import MonopolyEnv


_OFF_DIAGONAL = ~np.eye(N_SLOTS, dtype=bool)


def reference_trade_mask(obs, lay, m: np.ndarray) -> None:
    """The offer blocks one opponent at a time (the loop the vectorised one replaced)."""
    me = obs.seat
    players = len(obs.cash)
    cash = obs.cash[me]
    if cash < 0:
        return
    mine, own, tradeable, fee, _ = E.Encoder._tradeable(obs, lay, me)  # what is tradeable
    n_ex = N_SLOTS * (N_SLOTS - 1)
    for opp in range(N_OPP):
        if opp + 1 >= players:
            break
        t = (me + opp + 1) % players
        if not obs.active[t]:
            continue
        theirs = tradeable & (own == t)
        get_ok = theirs & (fee <= cash)
        if mine.any() and get_ok.any():
            grid = np.outer(mine, get_ok)
            flat = grid[_OFF_DIAGONAL].reshape(N_SLOTS, N_SLOTS - 1)
            m[EXCHANGE + opp * n_ex: EXCHANGE + (opp + 1) * n_ex] = flat.ravel()
        s0 = SELL_OFFER + opp * N_SLOTS * 3
        m[s0: s0 + N_SLOTS * 3] = np.repeat(mine, 3)
        b0 = BUY_OFFER + opp * N_SLOTS * 3
        ok = theirs[:, None] & (lay.levels + fee[:, None] <= cash)
        m[b0: b0 + N_SLOTS * 3] = ok.ravel()


def test_cached_encoding_mask_and_reward_equal_fresh_ones() -> None:
    env = MonopolyEnv(opponents=["baseline"] * 3)
    rng = np.random.default_rng(5)
    steps = trades = 0
    for episode in range(3):
        _, info = env.reset(seed=11 if episode == 0 else None)
        over = False
        while not over and steps < 3000:
            table = env.table
            obs = table.obs
            if obs is not None:
                kept = table.encoders[table.seat]
                fresh = E.Encoder()
                assert np.array_equal(kept.encode(obs, np.zeros(E.STATE_DIM, np.float32)),
                                      fresh.encode(obs, np.zeros(E.STATE_DIM, np.float32)))
                assert np.array_equal(kept.legal_mask(obs, np.zeros(E.ACTION_DIM, bool)),
                                      fresh.legal_mask(obs, np.zeros(E.ACTION_DIM, bool)))
                if obs.phase in E.TRADE_PHASES:
                    lay = kept.layout_for(obs.rules)
                    new = np.zeros(E.ACTION_DIM, bool)
                    old = np.zeros(E.ACTION_DIM, bool)
                    kept._trade_mask(obs, lay, new)
                    reference_trade_mask(obs, lay, old)
                    assert np.array_equal(new, old)
                    trades += 1
                cached = R.net_worths(obs)
                R._LAST_BOARD[:] = [(), (), (), ()]
                R._LAST_WORTHS[:] = [(), []]
                assert cached == R.net_worths(obs)
            mask = info["action_mask"]
            _, _, over, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
    assert steps > 1000 and trades > 300
