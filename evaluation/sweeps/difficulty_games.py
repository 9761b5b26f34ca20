"""The games a difficulty measure plays: four `baseline` agents in fixed seats, seat 0's
observations hashed as it is shown them, so that a novel game and the standard game of
the same seed can be compared observation by observation."""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from openmono.engine import Game
from openmono.events import DiceRolled
from openmono.hooks import NO_HOOKS, Hooks
from openmono.play import play_game
from openmono.schema import GameSchema

from agents.baseline import BaselineAgent


@dataclass
class Played:
    """What the measure keeps of one game: seat 0's observations (hashed), the outcome."""

    seen: list[int]
    turns: int
    winner_seat: int
    rolls: int


class _Watch:
    """Seat 0's agent, recording a hash of each observation it is shown. The public rules
    (not hashable: read-only mappings) enter the hash through a digest of their JSON,
    worked out once per rules object (an observation transform may change them)."""

    def __init__(self, inner: Any, seen: list[int]) -> None:
        self.inner, self.seen = inner, seen
        self.fixed_answers = getattr(inner, "fixed_answers", None)
        self._rules: tuple[Any, int] = (None, 0)

    def _hash(self, obs: Any) -> int:
        rules = obs.rules
        if self._rules[0] is not rules:
            digest = hash(json.dumps(rules.public_schema, sort_keys=True, default=str))
            self._rules = (rules, digest)
        return hash((self._rules[1], obs[1:]))

    def seed(self, s: int) -> None:
        self.inner.seed(s)

    def begin_game(self, seat: int, obs: Any) -> None:
        self.seen.append(self._hash(obs))
        self.inner.begin_game(seat, obs)

    def act(self, obs: Any) -> Any:
        self.seen.append(self._hash(obs))
        return self.inner.act(obs)

    def end_game(self, result: Any) -> None:
        self.inner.end_game(result)


def play_one(schema: GameSchema, seed: int, hooks: Hooks = NO_HOOKS,
             shown: GameSchema | None = None) -> Played:
    """One game of four `baseline` agents in fixed seats, seat 0 watched."""
    seen: list[int] = []
    agents: list[Any] = [BaselineAgent() for _ in range(4)]
    agents[0] = _Watch(agents[0], seen)
    game = Game(schema, 4, seed=seed, hooks=hooks, shown=shown)
    result = play_game(schema, agents, seed=seed, hooks=hooks, shuffle_seats=False, game=game)
    rolls = sum(1 for e in game.events if type(e) is DiceRolled)
    return Played(seen, result.turns, result.winner_seat, rolls)


def first_difference(a: Sequence[int], b: Sequence[int]) -> int | None:
    """Index of seat 0's first observation that differs (a game that ends earlier
    differs where it ends); None when the two games look the same throughout."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def jail_rolls(schema: GameSchema, seeds: Iterable[int]) -> tuple[float, float]:
    """Mean throws per game, and mean throws made from jail, in standard games (a hook
    that only counts: it returns every throw unchanged)."""
    total = jailed = n = 0

    def count(game: Any, seat: int, dice: tuple[int, ...]) -> tuple[int, ...]:
        nonlocal total, jailed
        total += 1
        jailed += bool(game.state.in_jail[seat])
        return dice

    for s in seeds:
        play_one(schema, s, Hooks(dice_roll=count))
        n += 1
    return total / n, jailed / n


def mean_ci(values: Sequence[float]) -> tuple[float, list[float]]:
    """Mean and its 95% t-interval (a zero-width interval when all values agree)."""
    from scipy import stats

    n = len(values)
    m = statistics.fmean(values)
    if n < 2:
        return m, [m, m]
    sd = statistics.stdev(values)
    half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return m, [m - half, m + half]


def geometric_median(p: float) -> int | None:
    """The median game (1-based) of the first detection at per-game rate p."""
    if p <= 0:
        return None
    if p >= 1:
        return 1
    return max(1, math.ceil(math.log(0.5) / math.log(1 - p)))


class Standard:
    """The standard games of the run's seeds, played once and shared by every cell."""

    def __init__(self, base: GameSchema, seeds: Sequence[int]) -> None:
        self.base, self.seeds = base, list(seeds)
        self._games: list[Played] | None = None
        self._jail: tuple[float, float] | None = None

    @property
    def games(self) -> list[Played]:
        if self._games is None:
            self._games = [play_one(self.base, s) for s in self.seeds]
        return self._games

    @property
    def rolls_per_game(self) -> tuple[float, float]:
        if self._jail is None:
            self._jail = jail_rolls(self.base, self.seeds[:100])
        return self._jail
