"""`agent=remote`: a seat played by a client over the network (docs/protocol.md).

The harness treats a `RemoteAgent` like any agent; behind `act` it sends the
observation to the seat's client and waits at most `budget` seconds for the answer.
Whatever goes wrong becomes a fault of one kind and the phase's default action, and the
game goes on:

| kind | what happened |
|---|---|
| `timeout` | no answer within the budget (a late answer is discarded when it comes) |
| `malformed` | not JSON, or not a valid `action` message for this decision |
| `unknown_type` | a JSON message of a type the protocol does not have |
| `oversize` | a message over `max_line` bytes (its rest is skipped) |
| `illegal` | an action outside the legal set |
| `disconnect` | the client went away (counted once; it may reconnect between games) |
| `absent` | a decision taken by default because no client was connected |
| `report` | no valid novelty report in time (the report is "nothing detected") |

`game_faults` holds the counts of the last game (`games.jsonl` records them).
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from typing import Any

from openmono.actions import CONCLUDE, Conclude
from openmono.legal import DEFAULT_ACTION, PHASES
from openmono.protocol import (CLIENT_TYPES, DEFAULT_MAX_LINE, ActionAnswer, BeginGame, Bye,
                               Decide, EndGame, GameEnd, Hello, NoveltyAnnounced, ReportAnswer,
                               ReportRequest, encode)
from openmono.wire import action_from_wire

from agents.base import NO_NOVELTY, NoveltyChange, NoveltyReport
from agents.remote.lines import Disconnected, LineSocket, LineTimeout, LineTooLong
from agents.remote.server import RemoteError, SeatServer, release, server_for
from agents.remote.tokens import TOKEN_ENV, seat_token


class _Fault(Exception):
    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


def _agent_fault(reason: str) -> Any:
    from openmono.engine import AgentFault

    return AgentFault(reason)


MAX_SECONDS = 7 * 86_400.0  # a wait above a week is a typo


class RemoteAgent:
    """A seat whose decisions are made by a client that connects with `token`."""

    name = "remote"

    def __init__(self, port: int = 7300, token: str = "", token_file: str = "",
                 host: str = "127.0.0.1",
                 budget: float = 2.0, connect_timeout: float = 30.0,
                 reconnect_timeout: float = 2.0, report_budget: float = 5.0,
                 max_line: int = DEFAULT_MAX_LINE, handshake_timeout: float = 5.0,
                 max_pending: int = 32) -> None:
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ValueError(f"port must be an integer in 0..65535, got {port!r}")
        token = seat_token(token, token_file)
        if not isinstance(token, str) or not token.strip():
            raise ValueError("token must be set: the secret the seat's client sends "
                             f"(agent.token_file=PATH, ${TOKEN_ENV}, agent.token=..., or "
                             "remote.tokens=[...])")
        for key, value in (("budget", budget), ("connect_timeout", connect_timeout),
                           ("reconnect_timeout", reconnect_timeout),
                           ("report_budget", report_budget),
                           ("handshake_timeout", handshake_timeout)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    0 < value <= MAX_SECONDS):  # (inf or 1e300 overflow the timers; NaN)
                raise ValueError(f"{key} must be a positive number of seconds (at most "
                                 f"{MAX_SECONDS:g}), got {value!r}")
        if isinstance(max_line, bool) or not isinstance(max_line, int) or max_line < 1024:
            raise ValueError(f"max_line must be an integer >= 1024 bytes, got {max_line!r}")
        if isinstance(max_pending, bool) or not isinstance(max_pending, int) or max_pending < 1:
            raise ValueError(f"max_pending must be a positive integer, got {max_pending!r}")
        self.port, self.token, self.host = port, token, host
        self.budget, self.connect_timeout = float(budget), float(connect_timeout)
        self.reconnect_timeout, self.report_budget = float(reconnect_timeout), float(report_budget)
        self.max_line, self.handshake_timeout = max_line, float(handshake_timeout)
        self.max_pending = max_pending
        self.server: SeatServer | None = None
        self.game_faults: Counter[str] = Counter()
        self.fixed_answers: dict[str, Any] | None = None
        self._cond = threading.Condition()
        self._conn: LineSocket | None = None  # the client playing this game
        self._next: tuple[LineSocket, Hello] | None = None  # admitted, plays from next game
        self._ever = False
        self._seed: int | None = None
        self._game = -1
        self._ids = 0
        self._rules_obj: Any = None
        self._rules_id = 0
        self.decisions = 0  # round trips made, and the seconds they took (benchmarks)
        self.wire_seconds = 0.0

    @property
    def label(self) -> str:
        return f"remote(port {self.port})"

    # --- connection management (called by the server thread) -----------------------------
    def busy(self) -> bool:
        """A second client is waiting already (one with the token takes over from the
        next game: a client that lost its connection can always come back). A waiting
        client that has gone away meanwhile does not hold the seat."""
        with self._cond:
            if self._next is None:
                return False
            if self._next[0].alive():
                return True
            self._next[0].close()
            self._next = None
            return False

    def attach(self, conn: LineSocket, hello: Hello) -> None:
        with self._cond:
            self._next = (conn, hello)
            self._cond.notify_all()

    def listen(self) -> int:
        """Open (or join) the server on host:port; returns the port listened on."""
        if self.server is None:
            server = server_for(self.host, self.port, self.max_line, self.handshake_timeout,
                                self.max_pending)
            try:
                server.add(self)
            except RemoteError:
                release(server, self)  # (stops it if no other seat uses it)
                raise
            self.server = server
            if self.port == 0:
                self.port = self.server.port
        return self.server.port

    def wait_for_client(self, timeout: float | None = None) -> None:
        """Block until a client is admitted (at most `connect_timeout` s); RemoteError else."""
        self.listen()
        assert self.server is not None
        self.server.start()
        wait = self.connect_timeout if timeout is None else timeout
        with self._cond:
            if not self._cond.wait_for(lambda: self._next is not None or self._live(), wait):
                raise RemoteError(
                    f"no client connected to the remote seat on {self.host}:{self.port} within "
                    f"{wait:g}s; start one: python -m agents.remote serve AGENT --port "
                    f"{self.port} --token TOKEN")

    def _live(self) -> bool:
        return self._conn is not None and not self._conn.closed

    def _adopt(self, wait: float) -> None:
        """At a game's start: take the admitted client, waiting up to `wait` s for one."""
        with self._cond:
            if self._next is None and not self._live():
                self._cond.wait_for(lambda: self._next is not None, wait)
            if self._next is not None:
                if self._conn is not None:
                    self._conn.close()
                self._conn, hello = self._next
                self._next = None
                self._ever = True
                self._rules_obj = None
                self.fixed_answers = _fixed(hello)
            elif not self._live():
                self._conn = None
                self.fixed_answers = None

    def close(self) -> None:
        """Say goodbye to the client and leave the server (the last seat stops it)."""
        with self._cond:
            conns = [c for c in (self._conn, self._next[0] if self._next else None) if c]
            self._conn = self._next = None
        for conn in conns:
            try:
                conn.send(encode(Bye()), timeout=0.5)
            except Disconnected:
                pass
            conn.close()
        if self.server is not None:
            release(self.server, self)
            self.server = None

    def refusals(self) -> dict[str, int]:
        return dict(self.server.refusals) if self.server is not None else {}

    # --- the agent protocol ---------------------------------------------------------------------
    def seed(self, seed: int) -> None:
        self._seed = seed

    def begin_game(self, seat: int, observation: Any) -> None:
        self.listen()
        assert self.server is not None
        self.server.start()
        self.game_faults = Counter()
        self._game += 1
        self._adopt(self.connect_timeout if not self._ever else self.reconnect_timeout)
        if self._conn is None:
            return
        rid, rules, decks = self._rules(observation)
        self._send(BeginGame(game=self._game, seat=seat, players=len(observation.cash),
                             seed=self._seed, rules_id=rid, rules=rules, deck_names=decks,
                             observation=observation.to_json(with_rules=False)))

    def _rules(self, obs: Any) -> tuple[int, Any, Any]:
        if obs.rules is self._rules_obj:
            return self._rules_id, None, None
        self._rules_obj = obs.rules
        self._rules_id += 1
        return self._rules_id, obs.rules.public_schema, list(obs.rules.deck_names)

    def _send(self, message: Any) -> bool:
        conn = self._conn
        if conn is None:
            return False
        try:
            conn.send(encode(message), timeout=max(self.budget, 1.0))
            return True
        except Disconnected:
            self._lost()
            return False

    def _lost(self) -> None:
        self.game_faults["disconnect"] += 1
        with self._cond:
            if self._conn is not None:
                self._conn.close()
            self._conn = None

    def act(self, obs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self._act(obs)
        finally:
            self.decisions += 1
            self.wire_seconds += time.perf_counter() - t0

    def _act(self, obs: Any) -> Any:
        if self._conn is None:
            self.game_faults["absent"] += 1
            return _agent_fault("absent: no client connected")
        self._ids += 1
        rid, rules, decks = self._rules(obs)
        default = DEFAULT_ACTION.get(obs.phase)
        msg = Decide.model_construct(type="decide", id=self._ids,
                                     budget_ms=round(self.budget * 1000, 3),
                                     default=None if default is None else default.to_json(),
                                     rules_id=rid,
                                     rules=rules, deck_names=decks,
                                     observation=obs.to_json(with_rules=False))
        if not self._send(msg):
            self._rules_obj = None
            return _agent_fault("disconnect: the client went away")
        try:
            data = self._answer("action", self._ids, time.monotonic() + self.budget)
            answer = ActionAnswer.model_validate(data)
            action = action_from_wire(answer.action.model_dump())
        except _Fault as fault:
            if fault.kind != "disconnect":  # (a lost connection is counted once, by _lost)
                self.game_faults[fault.kind] += 1
            return _agent_fault(f"{fault.kind}: {fault}")
        except (ValueError, RecursionError) as exc:  # (a 300,000-deep answer, say)
            self.game_faults["malformed"] += 1
            return _agent_fault(f"malformed: {str(exc).splitlines()[0]}")
        if answer.error is not None:  # the client's agent raised: a fault, as in process
            self.game_faults["raised"] += 1
            return _agent_fault(f"raised {answer.error}")
        why = obs.why_illegal(action)
        if why is not None:
            self.game_faults["illegal"] += 1
            return _agent_fault(f"illegal: {why}")
        return action

    def _answer(self, kind: str, ident: int, deadline: float) -> dict[str, Any]:
        """The client's answer to request `ident` (stale answers are skipped)."""
        conn = self._conn
        assert conn is not None
        while True:
            try:
                line = conn.read_line(deadline)
            except LineTimeout:
                raise _Fault("timeout", f"no answer within {self.budget}s") from None
            except LineTooLong as exc:
                raise _Fault("oversize", str(exc)) from None
            except Disconnected as exc:
                self._lost()
                raise _Fault("disconnect", str(exc)) from None
            try:
                data = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: 300,000 nested brackets
                raise _Fault("malformed", "not a JSON message") from None
            if not isinstance(data, dict):
                raise _Fault("malformed", "a message must be a JSON object")
            mtype = data.get("type")
            if mtype not in CLIENT_TYPES:
                raise _Fault("unknown_type", f"unknown message type {mtype!r}; the client "
                             f"sends {', '.join(CLIENT_TYPES)}")
            mid = data.get("id")
            if isinstance(mid, int) and mid < ident:
                continue  # the late answer to an earlier request
            if mtype != kind or mid != ident:
                raise _Fault("malformed", f"expected a {kind!r} message with id {ident}")
            return data

    def end_game(self, result: Any) -> None:
        end = GameEnd(winner_seat=result.winner_seat, end_reason=result.end_reason,
                      turns=result.turns, net_worths=list(result.net_worths),
                      cash=list(result.cash), bankrupt_order=list(result.bankrupt_order))
        self._send(EndGame(game=self._game, result=end, faults=dict(self.game_faults)))

    def novelty_report(self) -> NoveltyReport:
        if self._conn is None:
            return NO_NOVELTY
        self._ids += 1
        if not self._send(ReportRequest(id=self._ids, budget_ms=self.report_budget * 1000)):
            return NO_NOVELTY
        try:
            data = self._answer("report", self._ids, time.monotonic() + self.report_budget)
            report = ReportAnswer.model_validate(data).report
        except (_Fault, ValueError, RecursionError):
            self.game_faults["report"] += 1
            return NO_NOVELTY
        return NoveltyReport(report.detected, report.confidence, tuple(
            NoveltyChange(c.entity, c.attribute, c.new_value, c.old_value)
            for c in report.changes), report.evidence)

    def novelty_announced(self) -> None:
        self._send(NoveltyAnnounced())

    def __getstate__(self) -> Any:  # a live seat is not saved with the trial's agents
        raise TypeError("a remote seat cannot be pickled")


def _fixed(hello: Hello) -> dict[str, Any] | None:
    """The answers the client declared for whole phases (only known phases)."""
    out = {}
    for phase, answer in hello.fixed_answers.items():
        if phase not in PHASES or phase not in DEFAULT_ACTION:
            continue
        try:
            action = action_from_wire(answer.model_dump())
        except ValueError:
            continue
        default = DEFAULT_ACTION[phase]
        # Only "I never act in this phase": the default, or a (standing) conclude where
        # concluding is the default; anything else is asked decision by decision.
        if action == default or (isinstance(action, Conclude) and default == CONCLUDE):
            out[phase] = action
    return out or None
