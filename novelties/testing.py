"""Checks the conformance suite runs on every plugin, reusable by plugin authors.

`play_checked` plays one game (optionally injecting a novelty mid-game) and collects
every broken engine invariant: books that do not balance with the Payment events,
impossible owners, building levels or stock, negative cash at a decision, decks that are
not permutations, a game that does not end. Agents are passed in (this package does not
import `agents`).
"""

from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from openmono.engine import Game
from openmono.events import Payment
from openmono.hooks import NO_HOOKS, Hooks
from openmono.play import GameResult, play_game
from openmono.schema import GameSchema

from novelties.inject import InjectionReport, check_state, inject_mid_game


@dataclass
class Checked:
    """A game played by `check_plugin`: the game, its result, the problems found and
    the injection report."""
    game: Game
    result: GameResult
    problems: list[str] = field(default_factory=list)
    injection: InjectionReport | None = None


class _Watch:
    """Wraps an agent: checks cash at every decision and hands observations to `on_obs`."""

    def __init__(self, agent: Any, game_ref: list, problems: list[str],
                 on_obs: Callable[[Any], None] | None) -> None:
        self.agent = agent
        self.game_ref = game_ref
        self.problems = problems
        self.on_obs = on_obs

    def seed(self, s: int) -> None:
        fn = getattr(self.agent, "seed", None)
        if fn is not None:
            fn(s)

    def begin_game(self, seat: int, obs: Any) -> None:
        if self.on_obs is not None:
            self.on_obs(obs)
        fn = getattr(self.agent, "begin_game", None)
        if fn is not None:
            fn(seat, obs)

    def act(self, obs: Any) -> Any:
        st = self.game_ref[0].state
        if min(st.cash) < 0 and len(self.problems) < 20:
            self.problems.append(f"turn {st.turn}: negative cash {st.cash} at a decision")
        if self.on_obs is not None:
            self.on_obs(obs)
        return self.agent.act(obs)

    def end_game(self, result: Any) -> None:
        fn = getattr(self.agent, "end_game", None)
        if fn is not None:
            fn(result)


def books_balance(game: Game, starting_cash: int) -> list[str]:
    """Each seat's cash equals starting cash plus its Payment events."""
    cash = [starting_cash] * game.players
    out = []
    for e in game.events:
        if type(e) is Payment:
            if not isinstance(e.amount, int) or e.amount <= 0:
                out.append(f"payment with a bad amount: {e}")
            if e.payer >= 0:
                cash[e.payer] -= e.amount
            if e.payee >= 0:
                cash[e.payee] += e.amount
    if cash != list(game.state.cash):
        out.append(f"books do not balance: payments give {cash}, state has {game.state.cash}")
    return out


def play_checked(schema: GameSchema, agents: Sequence[Any], seed: int = 0,
                 hooks: Hooks = NO_HOOKS, inject: Any = None, at_turn: int | None = None,
                 on_obs: Callable[[Any], None] | None = None) -> Checked:
    """Play one game with invariant checks at every turn boundary and at the end.

    `inject` (an `Applied`) is injected mid-game before turn `at_turn`.
    """
    problems: list[str] = []
    game = Game(schema, players=len(agents), seed=seed, hooks=hooks)
    ref = [game]
    report = inject_mid_game(game, inject, at_turn=at_turn) if inject is not None else None

    def boundary(g: Game) -> None:
        found = check_state(g.rules, g.state)
        if found and len(problems) < 20:
            problems.extend(f"turn {g.state.turn}: {p}" for p in found)
        if g.winner is None:
            g.turn_boundary.append(boundary)

    game.turn_boundary.append(boundary)
    watched = [_Watch(a, ref, problems, on_obs) for a in agents]
    result = play_game(schema, watched, seed=seed, hooks=hooks, game=game)
    problems.extend(books_balance(game, schema.bank.starting_cash))
    problems.extend(f"at the end: {p}" for p in check_state(game.rules, game.state))
    if game.winner is None or result.turns > game.rules.bank.turn_limit:
        problems.append(f"the game did not end properly (winner {game.winner}, "
                        f"{result.turns} turns)")
    if report is not None and report.refused:
        problems.append(f"injection refused: {report.refused}")
    return Checked(game, result, problems, report)


@contextmanager
def temporary_plugins(directory: str | Path, modules: Mapping[str, str],
                      entry_points: Mapping[str, str], dist: str = "tmp-plugins") -> Iterator[None]:
    """Make plugins discoverable through real entry points without `pip install`.

    Writes `modules` (name -> source) and a `.dist-info` whose entry_points.txt holds
    `entry_points` (name -> "module:Class") into `directory`, puts it on sys.path and
    refreshes the registry; everything is undone on exit.
    """
    from novelties.registry import GROUP, refresh

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    for mod, src in modules.items():
        (d / f"{mod}.py").write_text(src, encoding="utf-8")
    info = d / f"{dist.replace('-', '_')}-0.0.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.0.0\n")
    lines = [f"[{GROUP}]"] + [f"{k} = {v}" for k, v in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    sys.path.insert(0, str(d))
    importlib.invalidate_caches()
    refresh()
    try:
        yield
    finally:
        sys.path.remove(str(d))
        for mod in modules:
            sys.modules.pop(mod, None)
        importlib.invalidate_caches()
        refresh()
