"""`python -m evaluation.check`: engine invariants over many random games with novelties.

    python -m evaluation.check games=100000 workers=2 seed=0

Game `i` of a run is fully determined by (`seed`, `i`): 2-4 `random` agents, and with
equal odds no novelty, a catalogue novelty (random difficulty) for the whole game, or
one injected mid-game before a random turn. Every invariant is checked at every agent
decision and turn boundary (`novelties.inject.check_state`: owners, building levels,
bank stock, positions, jail, decks as permutations, no negative cash; the books balance
with the Payment events so far), and at the end (the game ended properly; an injection
was not refused). A violation writes `<out>/game<i>/` with the replayable JSON-lines
game log, the problems and the one-line command that plays that game alone again.
The last line printed is one JSON object: games, violations, seconds, command.
"""

from __future__ import annotations

import io
import json
import random
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import IO, Any

from numpy.random import SeedSequence
from pydantic import Field

from openmono import standard_schema
from openmono_cli import (Options, cli, games_field, out_field, progress_field, seed_field,
                          workers_field)
from openmono.engine import Game
from openmono.events import BANK, Payment
from openmono.hooks import NO_HOOKS
from openmono.play import play_game

from agents.random_agent import RandomAgent
from evaluation.store.atomic import atomic_write


class CheckOptions(Options):
    """Engine invariants over many random games with novelties."""

    games: int = games_field(1000, "games to check")
    workers: int = workers_field()
    seed: int = seed_field(what="the run's seed (game i is fixed by seed and i)")
    start: int = Field(0, ge=0, description="the first game's index (replay one: start=I "
                       "games=1)")
    out: str = out_field("outputs/check", "where a violating game's log is written")
    progress: bool = progress_field()


MODES = ("none", "between", "mid")
MAX_PROBLEMS = 20


@dataclass(frozen=True)
class Case:
    """What game `index` of a check run plays."""

    index: int
    seed: int
    players: int
    mode: str
    novelty: str | None = None
    difficulty: str | None = None
    at_turn: int | None = None

    def label(self) -> str:
        if self.novelty is None:
            return f"{self.players} players, no novelty"
        when = "whole game" if self.mode == "between" else f"mid-game before turn {self.at_turn + 1}"
        return f"{self.players} players, {self.novelty} ({self.difficulty}), {when}"


def _catalogue() -> list[tuple[str, list[str]]]:
    from novelties.registry import describe

    return [(d["name"], list(d["difficulties"])) for d in describe()]


def make_case(run_seed: int, index: int, catalogue: list[tuple[str, list[str]]]) -> Case:
    state = SeedSequence([run_seed, index]).generate_state(2)
    rng = random.Random(int(state[0]))
    players = rng.choice((2, 3, 4))
    mode = rng.choice(MODES)
    if mode == "none":
        return Case(index, int(state[1]), players, mode)
    name, levels = rng.choice(catalogue)
    return Case(index, int(state[1]), players, mode, name, rng.choice(levels),
                rng.randrange(0, 80) if mode == "mid" else None)


class _Checked:
    """Wraps an agent: before every decision the whole state is checked."""

    def __init__(self, agent: Any, watch: _Watch) -> None:
        self.agent = agent
        self.watch = watch
        self.fixed_answers = None  # every decision goes through act, so every one is checked

    def seed(self, s: int) -> None:
        self.agent.seed(s)

    def begin_game(self, seat: int, obs: Any) -> None:
        self.watch.check("a begin-game decision")
        self.agent.begin_game(seat, obs)

    def act(self, obs: Any) -> Any:
        self.watch.check(f"a {obs.phase} decision")
        return self.agent.act(obs)

    def end_game(self, result: Any) -> None:
        self.agent.end_game(result)


@dataclass
class _Watch:
    game: Game
    starting_cash: int
    problems: list[str] = field(default_factory=list)
    _seen: int = 0
    _cash: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._cash = [self.starting_cash] * self.game.players

    def check(self, where: str) -> None:
        from novelties.inject import check_state

        g = self.game
        found = check_state(g.rules, g.state)
        events = g.events
        for e in events[self._seen:]:
            if type(e) is Payment:
                if not isinstance(e.amount, int) or e.amount <= 0:
                    found.append(f"payment with a bad amount: {e}")
                if e.payer != BANK:
                    self._cash[e.payer] -= e.amount
                if e.payee != BANK:
                    self._cash[e.payee] += e.amount
        self._seen = len(events)
        if self._cash != list(g.state.cash):
            found.append(f"books do not balance: payments give {self._cash}, "
                         f"state has {list(g.state.cash)}")
            self._cash = list(g.state.cash)  # report a drift once, not at every decision
        if found and len(self.problems) < MAX_PROBLEMS:
            self.problems.extend(f"turn {g.state.turn}, at {where}: {p}" for p in found)


def play_case(case: Case, log: IO[str] | None = None) -> list[str]:
    """Play one case with every check; returns the problems found (empty: none)."""
    from evaluation.harness.novelty_setup import prepare_novelty
    from novelties.inject import inject_mid_game

    base = standard_schema()
    schema, hooks, report = base, NO_HOOKS, None
    if case.novelty is not None:
        setup = prepare_novelty(case.novelty, case.difficulty or "medium", {}, base)
        if case.mode == "between":
            schema, hooks = setup.schema, setup.hooks
    game = Game(schema, players=case.players, seed=case.seed, hooks=hooks)
    watch = _Watch(game, schema.bank.starting_cash)
    if case.mode == "mid":
        report = inject_mid_game(game, setup, at_turn=case.at_turn)

    def boundary(g: Game) -> None:
        watch.check("a turn boundary")
        if g.winner is None:
            g.turn_boundary.append(boundary)

    game.turn_boundary.append(boundary)
    agents = [_Checked(RandomAgent(), watch) for _ in range(case.players)]
    try:
        result = play_game(schema, agents, seed=case.seed, hooks=hooks, game=game, log=log)
    except Exception as exc:  # noqa: BLE001 - a crash is a violation to report, not to hide
        return watch.problems + [f"the game crashed: {type(exc).__name__}: {exc}"]
    watch.check("the end")
    problems = watch.problems
    if game.winner is None or result.turns > game.rules.bank.turn_limit:
        problems.append(f"the game did not end properly (winner {game.winner}, "
                        f"{result.turns} turns)")
    if report is not None and report.refused:
        problems.append(f"injection refused: {report.refused}")
    return problems


def reproduce_command(seed: int, index: int) -> str:
    return f"python -m evaluation.check seed={seed} start={index} games=1"


def _run_chunk(args: tuple[int, int, int]) -> tuple[int, list[tuple[Case, list[str]]]]:
    seed, lo, hi = args
    catalogue = _catalogue()
    bad = []
    for i in range(lo, hi):
        case = make_case(seed, i, catalogue)
        problems = play_case(case)
        if problems:
            bad.append((case, problems))
    return hi - lo, bad


def write_violation(out: Path, run_seed: int, case: Case, problems: list[str]) -> Path:
    """The game's replayable log, its problems and the command that plays it again."""
    where = out / f"game{case.index}"
    where.mkdir(parents=True, exist_ok=True)
    log = io.StringIO()
    play_case(case, log=log)
    atomic_write(where / "game.jsonl", log.getvalue())
    atomic_write(where / "case.json", json.dumps({
        "case": case.__dict__, "label": case.label(), "problems": problems,
        "reproduce": reproduce_command(run_seed, case.index)}, indent=2) + "\n")
    return where


def run(cfg: CheckOptions) -> dict[str, Any]:
    games, workers, seed, start = cfg.games, cfg.workers, cfg.seed, cfg.start
    out = Path(cfg.out)
    chunk = max(1, min(200, games // (workers * 20) or 1))
    jobs = [(seed, lo, min(lo + chunk, start + games)) for lo in range(start, start + games, chunk)]
    bar = None
    if cfg.progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", desc="checking", file=sys.stderr, mininterval=1.0)
    violations: list[tuple[Case, list[str]]] = []
    t0 = time.perf_counter()

    def collect(done: int, bad: list[tuple[Case, list[str]]]) -> None:
        for case, problems in bad:
            violations.append((case, problems))
            where = write_violation(out, seed, case, problems)
            msg = (f"violation in game {case.index} ({case.label()}): {problems[0]}\n"
                   f"  log: {where / 'game.jsonl'}\n  reproduce: "
                   f"{reproduce_command(seed, case.index)}")
            (bar.write if bar is not None else print)(msg)
        if bar is not None:
            bar.update(done)
            bar.set_postfix(violations=len(violations))

    if workers == 1:
        for job in jobs:
            collect(*_run_chunk(job))
    else:
        with get_context("fork").Pool(processes=workers) as pool:
            for done, bad in pool.imap_unordered(_run_chunk, jobs):
                collect(done, bad)
    if bar is not None:
        bar.close()
    return {"games": games, "start": start, "seed": seed, "violations": len(violations),
            "violating_games": [c.index for c, _ in violations],
            "seconds": round(time.perf_counter() - t0, 1), "workers": workers,
            "command": "python -m evaluation.check " + " ".join(
                f"{k}={getattr(cfg, k)}" for k in ("games", "workers", "seed", "start"))}


def main(argv: list[str] | None = None) -> int:
    summary = run(cli(CheckOptions, argv, "python -m evaluation.check"))
    print(f"{summary['games']} games checked in {summary['seconds']} s: "
          f"{summary['violations']} violation(s)")
    print(json.dumps(summary))
    return 1 if summary["violations"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
