"""The game loop of a trial: play each missing game, append its record the moment it
finishes, snapshot the agents now and then, and write the summary at the end.

Records are appended one line per finished game, flushed to the kernel, so a killed run
loses no finished game. After a game, once playing since the last snapshot took
`SAVE_RATIO` times what a snapshot costs, the agents are pickled (`snapshot`): for fast
agents that is every few games, for the planner every game or two, so saving costs at
most ~5% and a resume re-plays few games.
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from openmono.hooks import Hooks
from openmono.play import play_game
from openmono.schema import GameSchema
from openmono.seeding import game_seed

from evaluation.harness.hook_watch import HookTimeout
from evaluation.harness.novelty_reports import _safe_report
from evaluation.harness.plugin_errors import _plugin_error
from evaluation.harness.remote_seats import remote_faults
from evaluation.harness.resume import _resume
from evaluation.harness.run_context import RunContext, kept_logs
from evaluation.harness.seats import Seats, _counts, _safe
from evaluation.harness.snapshot import _save_agents
from evaluation.harness.summary import _finish
from evaluation.harness.trial_config import TrialConfig, TrialError
from evaluation.harness.trial_folder import GAMES_FILE, _check_same_trial, _recorded
from evaluation.store import records as games_file
from evaluation.store.atomic import atomic_write, open_regular

SAVE_RATIO = 20  # play at least 20x a snapshot's cost between two snapshots


def _run(run: RunContext, seats: Seats) -> dict[str, Any]:
    """Play the trial's missing games, appending each record as it finishes."""
    cfg, out = run.cfg, run.out
    identity = _check_same_trial(cfg, out)
    path = out / GAMES_FILE
    found = _recorded(cfg, path, identity)
    start, restored = _resume(cfg, out, len(found.records), seats)
    if restored is not None:
        agent, opponents, reference = restored
        seats = Seats(agent, tuple(opponents), reference)
    loop = _Loop(run, seats, found, path)
    started = time.perf_counter()
    try:  # appended to, never through a link (`evaluation.store.atomic.open_regular`)
        fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    except OSError as exc:
        raise TrialError(f"cannot write {path}: {exc.strerror}") from None
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        for g in range(start, cfg.games):
            loop.play(g, fh)
        os.fsync(fh.fileno())
    if loop.bar is not None:
        loop.bar.close()
    return _finish(cfg, out, loop.records, run.inject, run.novelty, loop.head,
                   time.perf_counter() - started, [seats.agent, *seats.opponents])


class _Loop:
    """What the loop carries from one game to the next: the records so far and the head
    of their chain, the progress bar, and the clock that times the next snapshot."""

    def __init__(self, run: RunContext, seats: Seats, found: Any, path: Path) -> None:
        self.run, self.seats, self.found, self.path = run, seats, found, path
        self.done = found.records
        self.bar = _progress(run.cfg, len(self.done))
        self.keep = kept_logs(run.cfg, run.inject)
        self.wins = sum(1 for r in self.done if r.get("won"))
        self.played = self.save_cost = 0.0
        self.records = list(self.done)
        self.head = found.head

    def play(self, g: int, fh: TextIO) -> None:
        """Play game `g`; a game already recorded (re-played to rebuild the agents) is
        only checked against its line, a new one is appended."""
        run, cfg, seats = self.run, self.run.cfg, self.seats
        schema, hooks, active = run.world(g)
        if g == run.inject and cfg.detection == "given":
            _safe(seats.agent, "novelty_announced")
        t0 = time.perf_counter()
        try:
            record = _play_one(cfg, g, seats.agent, list(seats.opponents), seats.reference,
                               schema, hooks, active, run.shown if active else None,
                               run.out / "logs" / f"game-{g}.jsonl" if g in self.keep else None)
        except (Exception, HookTimeout, SystemExit) as exc:  # noqa: BLE001 - named, and
            # the trial stays resumable (sys.exit in a plugin too; not Ctrl-C)
            if self.bar is not None:
                self.bar.close()
            raise _plugin_error(cfg, g, hooks if active else None, exc, len(self.done)) from exc
        if g < len(self.done):
            if games_file.line(record, self.found.before(g))[0] != self.found.lines[g]:
                print(f"warning: replaying game {g} did not reproduce its record in "
                      f"{self.path}; keeping the recorded line", file=sys.stderr)
            return
        self._append(g, record, fh, t0, active)

    def _append(self, g: int, record: dict[str, Any], fh: TextIO, t0: float,
                active: bool) -> None:
        text, self.head = games_file.line(record, self.head)
        fh.write(text)
        fh.flush()  # in the kernel's hands: a killed process loses no finished game
        self.records.append(record)
        self.played += time.perf_counter() - t0
        if self.played >= SAVE_RATIO * self.save_cost:
            # Snapshot the agents when playing since the last one took SAVE_RATIO times
            # what a snapshot costs: at most ~1/SAVE_RATIO slower, resume re-plays few.
            t1 = time.perf_counter()
            _save_agents(self.run.out, g + 1, self.seats.snapshot())
            self.save_cost, self.played = time.perf_counter() - t1, 0.0
        self.wins += record["won"]
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(wins=self.wins, novelty="on" if active else "off")
        if self.run.on_game is not None:
            self.run.on_game(record)


def _play_one(cfg: TrialConfig, g: int, agent: Any, opponents: list[Any], reference: Any,
              schema: GameSchema, hooks: Hooks, active: bool,
              shown: GameSchema | None = None, log_to: Path | None = None) -> dict[str, Any]:
    seed = game_seed(cfg.seed, g)
    players = [agent, *opponents]
    informed = range(1, len(players)) if cfg.opponents_view == "informed" else ()
    if log_to is None:
        result = play_game(schema, players, seed=seed, hooks=hooks, shown=shown,
                           informed=informed)
    else:  # the replay's log: written whole, then renamed (a kill leaves none or all of it)
        log = io.StringIO()
        result = play_game(schema, players, seed=seed, hooks=hooks, shown=shown, log=log,
                           informed=informed)
        log_to.parent.mkdir(exist_ok=True)
        atomic_write(log_to, log.getvalue())
    report, report_fault = _safe_report(agent)
    names = [cfg.agent, *cfg.opponents]
    record: dict[str, Any] = {
        "game": g,
        "seed": seed,
        "seats": [names[i] for i in result.seats],
        "agent_seat": result.seats.index(0),
        "winner": names[result.winner],
        "winner_seat": result.winner_seat,
        "won": result.winner == 0,
        "turns": result.turns,
        "end_reason": result.end_reason,
        "novelty_active": active,
        "report": report,
        "faults": result.agent_faults[0],
        "opponent_faults": sum(result.agent_faults[1:]),
    }
    if report_fault:
        record["report_fault"] = report_fault
    # Remote seats: their faults by kind (isolated seats only when they have some, so
    # that their records are those of the same agents in process).
    if _counts(agent):
        record["remote_faults"] = remote_faults([agent])
    if any(_counts(o) for o in opponents):
        record["opponent_remote_faults"] = remote_faults(opponents)
    if reference is not None and not active:
        # Same seed, same seats: the reference sits where the evaluated agent sat.
        ref = play_game(schema, [reference, *opponents], seed=seed, hooks=hooks,
                        seats=result.seats)
        record["reference_won"] = ref.winner == 0
    return record


def _progress(cfg: TrialConfig, done: int) -> Any:
    if not cfg.progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=cfg.games, initial=done, desc=f"{cfg.agent} vs {'/'.join(cfg.opponents)}",
                unit="game", file=sys.stderr, leave=False, mininterval=0.5)
