"""Deterministic policies `(state, mask) -> index` for tests/test_envs.py (imported by name,
as a user's module would be: `agent.policy=env_policies:hashed`)."""

from __future__ import annotations

import numpy as np

from agents.drl import encoding as E


def hashed(state: np.ndarray, mask: np.ndarray) -> int:
    """A legal index picked by a hash of the state: buys mostly, concludes often, and
    otherwise tries the whole space (trades, buildings, mortgages)."""
    legal = np.flatnonzero(mask)
    h = int(abs(float(state.astype(np.float64).sum())) * 997)
    if mask[E.BUY] and h % 4:
        return E.BUY
    for i in (E.CONCLUDE, E.SKIP):
        if mask[i] and h % 3:
            return i
    return int(legal[h % len(legal)])


def outside(state: np.ndarray, mask: np.ndarray) -> int:
    """The first index the mask refuses (every answer is an invalid action)."""
    return int(np.flatnonzero(mask == 0)[0])
