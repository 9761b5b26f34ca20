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
Fig. 4): `TERMINAL_C`, which the `paper` presets use. With the `delta` reward below, which
already pays 1 - the last share for a win, both learners default to c = 0.

Two ways to hand eq. 4 to a learner (`SHAPINGS`, the learners' `reward` option):

- `paper`: eq. 4 itself at every network decision. Its sum over a game grows with the
  number of decisions the agent takes, so an action that keeps a phase open (another
  trade offer, a mortgage then an unmortgage) earns one more positive reward per extra
  step whatever it does to the position: the learner drifts to spamming offers.
- `delta` (our default): the change of the share s = nw_x / (nw_x + sum of the others'),
  the monotone map r/(1 + r) of eq. 4 into [0, 1], between consecutive network
  decisions, and at the end of the game 1 (won) or 0 (lost) minus the last share, plus
  +-c. Potential-based shaping (Ng et al. 1999): a game's return telescopes to
  won - s_0 + (+-c), the number of steps earns nothing, and every step is still credited
  at once with what it did to the relative net worth of eq. 2-4.
"""

from __future__ import annotations

from typing import Any

from agents.drl.encoding import FEW_CHANGES, changed_squares

BONUS = 1.5
MONOPOLY_BONUS = 2.0
TERMINAL_C = {"ppo": 0.0, "ddqn": 10.0}


def _set_owner(rules: Any, owner: tuple[int, ...], g: int) -> int | None:
    """The seat holding at least `group_need` of group `g`'s members, if any."""
    counts: dict[int, int] = {}
    for m in rules.group_members[g]:
        o = owner[m]
        if o >= 0:
            counts[o] = counts.get(o, 0) + 1
    found = None
    for o, c in counts.items():
        if c >= rules.group_need[g]:
            found = o
    return found


def _monopoly_owner(rules: Any, owner: tuple[int, ...]) -> dict[int, int]:
    """group -> the seat holding at least `group_need` of its members."""
    out = {}
    for g in range(len(rules.group_members)):
        o = _set_owner(rules, owner, g)
        if o is not None:
            out[g] = o
    return out


# The last net worths: [key, values]. A learner deciding again on the same position (a
# rejected offer) reads the same tuples, so the same objects give the same worths.
_LAST_WORTHS: list = [(), []]


def net_worths(obs: Any, bonus: float = BONUS) -> list[float]:
    """Eq. 2-3 for every seat (inactive seats included, as their last values); `bonus` is
    b outside a complete set (the paper's 1.5; the learners' `lone_bonus` option)."""
    key = _LAST_WORTHS[0]
    cash = obs.cash
    if (key and key[0] is cash and key[1] is obs.owner and key[2] is obs.level
            and key[3] is obs.mortgaged and key[4] is obs.rules and key[5] == bonus):
        return list(_LAST_WORTHS[1])
    nw = [c + t for c, t in zip(cash, _property_totals(obs, bonus, len(cash)))]
    # (Only immutable tuples can stand for their contents.)
    _LAST_WORTHS[0] = ((cash, obs.owner, obs.level, obs.mortgaged, obs.rules, bonus)
                       if type(cash) is type(obs.owner) is type(obs.level)
                       is type(obs.mortgaged) is tuple else ())
    _LAST_WORTHS[1] = nw
    return list(nw)


# The last board valued: [key, value per square (None: not a seat's), the complete sets'
# owners, the values' total per seat].
_LAST_BOARD: list = [(), (), (), ()]


def _value(rules: Any, obs: Any, sq: int, bonus: float, mono: dict[int, int],
           seats: int) -> float | None:
    """Eq. 3 for one property (None when no seat owns it)."""
    o = obs.owner[sq]
    if o < 0 or o >= seats:
        return None
    owed = rules.mortgage[sq] if obs.mortgaged[sq] else 0
    g = rules.group_of[sq]
    b = MONOPOLY_BONUS if g >= 0 and mono.get(g) == o else bonus
    return (rules.price[sq] - owed) * b + obs.level[sq] * rules.house_cost[sq]


def _property_totals(obs: Any, bonus: float, seats: int) -> list[float]:
    """Per seat, the sum of its properties' values (eq. 2-3 less cash). The engine
    replaces its per-square tuples only when a square changes, so the same tuple objects
    (compared with `is`) mean the same board, and a board that differs from the last
    one in a few squares is valued again on those squares (and on the sets whose owners
    moved) alone. That is exact only where every value is a multiple of 1/4 far below
    2**53 (the bonuses in use: 1.25, 1.5 and 2), so the sums do not depend on their
    order; with another bonus every board is valued afresh."""
    rules = obs.rules
    owner, mortgaged, level = obs.owner, obs.mortgaged, obs.level
    key = _LAST_BOARD[0]
    if key and key[0] is rules and key[4] == bonus and key[5] == seats:
        if key[1] is owner and key[2] is mortgaged and key[3] is level:
            return _LAST_BOARD[3]
        changed = changed_squares(rules.properties, (owner, mortgaged, level), key[1:4])
        if len(changed) <= FEW_CHANGES and float(bonus * 4).is_integer():
            values, mono, totals = _LAST_BOARD[1], _LAST_BOARD[2], _LAST_BOARD[3]
            before = key[1]
            redo = set(changed)
            for g in {rules.group_of[sq] for sq in changed if owner[sq] != before[sq]}:
                if g < 0:
                    continue
                o = _set_owner(rules, owner, g)
                if o is None:
                    mono.pop(g, None)
                else:
                    mono[g] = o
                redo.update(rules.group_members[g])
            for sq in redo:
                old_value = values[sq]
                if old_value is not None:
                    totals[before[sq]] -= old_value
                value = values[sq] = _value(rules, obs, sq, bonus, mono, seats)
                if value is not None:
                    totals[owner[sq]] += value
            _keep(obs, bonus, seats, values, mono, totals)
            return totals
    mono = _monopoly_owner(rules, owner)
    values = [None] * len(owner)
    totals = [0.0] * seats
    for sq in rules.properties:
        value = values[sq] = _value(rules, obs, sq, bonus, mono, seats)
        if value is not None:
            totals[owner[sq]] += value
    _keep(obs, bonus, seats, values, mono, totals)
    return totals


def _keep(obs: Any, bonus: float, seats: int, values: list, mono: dict, totals: list
          ) -> None:
    # (Only immutable tuples can stand for their contents.)
    immutable = type(obs.owner) is type(obs.mortgaged) is type(obs.level) is tuple
    _LAST_BOARD[:] = [(obs.rules, obs.owner, obs.mortgaged, obs.level, bonus, seats)
                      if immutable else (), values, mono, totals]


def dense_reward(obs: Any, seat: int | None = None, nw: list[float] | None = None) -> float:
    """Eq. 4 for `seat` (default: the deciding seat). The denominator is floored at 1 so a
    table of broke opponents gives a large, finite reward."""
    me = obs.seat if seat is None else seat
    nw = net_worths(obs) if nw is None else nw
    active = obs.active
    others = sum([v for s, v in enumerate(nw) if s != me and active[s]])  # (no generator)
    return nw[me] / max(others, 1.0)


def share(obs: Any, seat: int | None = None, nw: list[float] | None = None) -> float:
    """Eq. 4 mapped into [0, 1]: own net worth over the active table's (r / (1 + r))."""
    me = obs.seat if seat is None else seat
    nw = net_worths(obs) if nw is None else nw
    mine = max(nw[me], 0.0)
    others = sum(max(v, 0.0) for s, v in enumerate(nw) if s != me and obs.active[s])
    total = mine + others
    return mine / total if total > 0 else 0.0


SHAPINGS = ("delta", "paper")


class ShareDelta:
    """The `delta` shaping for one player: each step is the change of its share since its
    last decision, and the game's end pays 1 (won) or 0 minus the last share, so a game's
    return telescopes to won - s_0."""

    def __init__(self, bonus: float = BONUS) -> None:
        self.bonus = bonus
        self.last: float | None = None

    def step(self, obs: Any, nw: list[float] | None = None) -> float:
        """The reward for the move before this decision (0 at the first)."""
        s = share(obs, nw=nw if nw is not None else net_worths(obs, self.bonus))
        prev, self.last = self.last, s
        return 0.0 if prev is None else s - prev

    def final(self, won: bool) -> float:
        """The last step's reward at the game's end (0 if the player never decided)."""
        return 0.0 if self.last is None else (1.0 if won else 0.0) - self.last


def terminal_reward(won: bool, c: float) -> float:
    """Eq. 1 at the end of a game."""
    return c if won else -c
