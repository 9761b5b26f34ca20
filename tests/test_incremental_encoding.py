"""What the encoder and the reward keep between decisions (issue 28's speed work) gives
exactly what a fresh computation gives, at every step of Gymnasium episodes with random
actions (many mortgages, buildings and trades) against three `baseline`, and of AEC
episodes, where four seats' encoders share what the board alone decides."""

from __future__ import annotations

import numpy as np

from agents.drl import encoding as E
from agents.drl.encoding import BUY_OFFER, EXCHANGE, N_OPP, N_SLOTS, SELL_OFFER
from agents.drl import reward as R
from envs.gym_env import MonopolyEnv


_OFF_DIAGONAL = ~np.eye(N_SLOTS, dtype=bool)


def forget_boards() -> None:
    """Drop what the encoders and the reward keep for the last board (module-wide)."""
    E._LAST_COLUMNS[:] = [(), ()]
    E._LAST_TRADES[:] = [(), ()]
    R._LAST_BOARD[:] = [(), (), (), ()]
    R._LAST_WORTHS[:] = [(), []]


def kept_boards() -> tuple:
    """What `forget_boards` drops, to be put back with `restore_boards` (so a test's fresh
    computations leave the next step to the kept, incremental path)."""
    return (list(E._LAST_COLUMNS), list(E._LAST_TRADES), list(R._LAST_BOARD),
            list(R._LAST_WORTHS))


def restore_boards(kept: tuple) -> None:
    E._LAST_COLUMNS[:], E._LAST_TRADES[:], R._LAST_BOARD[:], R._LAST_WORTHS[:] = kept


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
                # What was kept: the step's reward valued this board; then the encoder.
                cached = R.net_worths(obs)
                kept = table.encoders[table.seat]
                kept_state = kept.encode(obs, np.zeros(E.STATE_DIM, np.float32)).copy()
                kept_mask = kept.legal_mask(obs, np.zeros(E.ACTION_DIM, bool)).copy()
                if obs.phase in E.TRADE_PHASES:
                    lay = kept.layout_for(obs.rules)
                    kept_trade = np.zeros(E.ACTION_DIM, bool)
                    kept._trade_mask(obs, lay, kept_trade)
                # What a fresh computation gives.
                kept_before = kept_boards()
                forget_boards()
                fresh = E.Encoder()
                assert np.array_equal(kept_state,
                                      fresh.encode(obs, np.zeros(E.STATE_DIM, np.float32)))
                forget_boards()
                assert np.array_equal(kept_mask,
                                      E.Encoder().legal_mask(obs, np.zeros(E.ACTION_DIM, bool)))
                if obs.phase in E.TRADE_PHASES:
                    old = np.zeros(E.ACTION_DIM, bool)
                    forget_boards()
                    reference_trade_mask(obs, lay, old)
                    assert np.array_equal(kept_trade, old)
                    trades += 1
                forget_boards()
                assert cached == R.net_worths(obs)
                restore_boards(kept_before)
            mask = info["action_mask"]
            _, _, over, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
    assert steps > 1000 and trades > 300


def test_seats_sharing_a_board_encode_as_fresh_encoders_do(monkeypatch) -> None:
    """AEC: a seat reads the trade facts of a board another seat computed, updates its
    property block from its own last one, and the reward values each board from the one
    before; all as fresh computations give."""
    from envs.aec import env as aec_env

    calls = {"trades": 0, "reused": 0, "counting": False}
    board_trades = E._board_trades

    def counted(obs, lay):
        if calls["counting"]:
            calls["trades"] += 1
            calls["reused"] += E._same_board(E._LAST_TRADES[0], obs)
        return board_trades(obs, lay)

    monkeypatch.setattr(E, "_board_trades", counted)
    e = aec_env()
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    steps = 0
    for agent in e.agent_iter(max_iter=4000):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        table = e.unwrapped.table
        state = e.unwrapped._states[agent]
        cached = R.net_worths(table.obs)  # valued for the step's reward
        kept_before = kept_boards()
        forget_boards()
        assert cached == R.net_worths(table.obs)
        forget_boards()
        assert np.array_equal(state, E.Encoder().encode(table.obs))
        assert np.array_equal(obs["action_mask"].astype(bool),
                              E.Encoder().legal_mask(table.obs))
        restore_boards(kept_before)
        calls["counting"] = True
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        calls["counting"] = False
        steps += 1
    # The shared path was taken (4,000 steps from seed 3: of 782 boards' trade facts, 95
    # were read as another seat left them).
    assert steps > 2000 and calls["reused"] > 50


def test_what_the_seats_share_follows_every_field_of_the_board() -> None:
    """A board that differs from the kept one in owners, buildings or mortgages alone is
    worked out again (the columns and the trade facts seats share)."""
    env = MonopolyEnv(opponents=["baseline"] * 3)
    env.reset(seed=2)
    obs = env.table.obs
    lay = E.Encoder().layout_for(obs.rules)
    me = obs.seat
    owner = list(obs.owner)
    owner[1] = owner[3] = me  # a complete set (Mediterranean, Baltic)
    owner[5] = (me + 1) % 4
    base = obs._replace(owner=tuple(owner))
    level = list(base.level)
    level[1] = 2
    mortgaged = list(base.mortgaged)
    mortgaged[5] = True
    owner[3] = (me + 2) % 4
    for changed in (base._replace(owner=tuple(owner)), base._replace(level=tuple(level)),
                    base._replace(mortgaged=tuple(mortgaged))):
        for part in (E._board_columns, E._board_trades):
            forget_boards()
            part(base, lay)  # kept for the base board
            kept = part(changed, lay)
            forget_boards()
            fresh = part(changed, lay)
            assert all(np.array_equal(a, b) for a, b in zip(kept, fresh))
            forget_boards()
            assert not all(np.array_equal(a, b) for a, b in zip(part(base, lay), fresh))
