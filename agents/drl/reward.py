"""The hybrid-DRL paper's reward (section IV-C, eq. 1-4), read from an observation.

In game (eq. 4): r_x = nw_x / sum of nw_y over the other *active* players, where
(eq. 2) nw = cash + sum of asset values and (eq. 3) an asset is worth
(price - mortgage owed) * b + its buildings, with b = 2 inside a complete set (a
monopoly) and 1.5 otherwise. Buildings count at cost, house_cost per building level (a
hotel is the level after the last house, so a hotel street counts max_houses + 1 levels:
what the engine's net worth counts too; the paper's n_H * p_H would value a hotel below
the four houses it replaces).

At the end of a game (eq. 1): +c for a win, -c for a loss. The paper chose c = 0 for PPO
(an on-policy learner that relies on the dense reward; Fig. 2 shows c barely matters)
and c = 10 for DDQN (fastest convergence and best win rate of c in {0,1,10,20,50,100},
Fig. 4), so those are our defaults (`TERMINAL_C`).
"""

from __future__ import annotations

from typing import Any

BONUS = 1.5
MONOPOLY_BONUS = 2.0
TERMINAL_C = {"ppo": 0.0, "ddqn": 10.0}


def _monopoly_owner(rules: Any, owner: tuple[int, ...]) -> dict[int, int]:
    """group -> the seat holding at least `group_need` of its members."""
    out = {}
    for g, members in enumerate(rules.group_members):
        counts: dict[int, int] = {}
        for m in members:
            o = owner[m]
            if o >= 0:
                counts[o] = counts.get(o, 0) + 1
        for o, c in counts.items():
            if c >= rules.group_need[g]:
                out[g] = o
    return out


def net_worths(obs: Any) -> list[float]:
    """Eq. 2-3 for every seat (inactive seats included, as their last values)."""
    rules = obs.rules
    owner = obs.owner
    mono = _monopoly_owner(rules, owner)
    nw = [float(c) for c in obs.cash]
    for sq in rules.properties:
        o = owner[sq]
        if o < 0 or o >= len(nw):
            continue
        owed = rules.mortgage[sq] if obs.mortgaged[sq] else 0
        g = rules.group_of[sq]
        b = MONOPOLY_BONUS if g >= 0 and mono.get(g) == o else BONUS
        nw[o] += (rules.price[sq] - owed) * b + obs.level[sq] * rules.house_cost[sq]
    return nw


def dense_reward(obs: Any, seat: int | None = None) -> float:
    """Eq. 4 for `seat` (default: the deciding seat). The denominator is floored at 1 so a
    table of broke opponents gives a large, finite reward."""
    me = obs.seat if seat is None else seat
    nw = net_worths(obs)
    others = sum(v for s, v in enumerate(nw) if s != me and obs.active[s])
    return nw[me] / max(others, 1.0)


def terminal_reward(won: bool, c: float) -> float:
    """Eq. 1 at the end of a game."""
    return c if won else -c
