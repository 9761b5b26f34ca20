"""Play any agent object as a remote client: `serve(agent, host, port, token)`.

The client rebuilds each observation (`openmono.wire.observation_from_json`), so an
agent written for the in-process harness plays over the wire unchanged; it declares
the agent's `fixed_answers` in its hello, so those phases cost no round trip.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from typing import Any

from openmono.legal import DEFAULT_ACTION
from openmono.protocol import (PROTOCOL_VERSION, ActionAnswer, GameEnd, Hello, ReportAnswer,
                               ReportModel, encode)
from openmono.wire import observation_from_json, rules_from_public

from agents.remote.lines import Disconnected, LineSocket

LOG = logging.getLogger("openmono.remote.client")
CLIENT_MAX_LINE = 64 << 20  # what the harness sends is bounded by the game, not by a peer


class Refused(RuntimeError):
    """The harness refused this client (wrong token, protocol version, ...)."""


def _connect(host: str, port: int, timeout: float) -> socket.socket:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return socket.create_connection((host, port), timeout=5.0)
        except OSError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def _fixed_answers(agent: Any) -> dict[str, Any]:
    answers = getattr(agent, "fixed_answers", None) or {}
    return {str(k): v.to_json() for k, v in dict(answers).items() if hasattr(v, "to_json")}


def serve(agent: Any, host: str = "127.0.0.1", port: int = 7300, token: str = "",
          connect_timeout: float = 30.0, name: str = "") -> int:
    """Connect, authenticate, and play `agent` until the harness says `bye` or closes
    the connection. Returns the number of games played; raises `Refused` with the
    harness's reason when it refuses the client."""
    sock = _connect(host, port, connect_timeout)
    conn = LineSocket(sock, CLIENT_MAX_LINE)
    hello = Hello(type="hello", version=PROTOCOL_VERSION, token=token,
                  agent=name or type(agent).__name__, fixed_answers=_fixed_answers(agent))
    games = 0
    try:
        conn.send(encode(hello), timeout=10.0)
        first = json.loads(conn.read_line(time.monotonic() + 30.0))
        if first.get("type") == "refused":
            raise Refused(first.get("reason", "refused"))
        if first.get("type") != "welcome" or first.get("version") != PROTOCOL_VERSION:
            raise Refused(f"unexpected answer to hello: {first!r:.200}")
        rules: dict[int, tuple[dict[str, Any], list[str]]] = {}
        built: dict[int, Any] = {}

        def observe(msg: dict[str, Any]) -> Any:
            rid = msg["rules_id"]
            if msg.get("rules") is not None:
                rules[rid] = (msg["rules"], msg.get("deck_names") or [])
                built.pop(rid, None)
            if rid not in built:
                built.clear()
                built[rid] = rules_from_public(*rules[rid])
            data = msg["observation"]
            return observation_from_json(data, _Fixed(built[rid]))

        while True:
            try:
                line = conn.read_line(None)
            except Disconnected:
                return games
            msg = json.loads(line)
            kind = msg.get("type")
            if kind == "decide":
                obs = observe(msg)
                error = None
                try:
                    action = agent.act(obs)
                    payload = action.to_json()
                except Exception as exc:  # noqa: BLE001 - answer something, say why
                    error = f"{type(exc).__name__}: {exc}"[:200]
                    LOG.warning("the agent raised %s", error)
                    default = DEFAULT_ACTION.get(obs.phase) or obs.legal_actions()[0]
                    payload = default.to_json()
                conn.send(encode(ActionAnswer(type="action", id=msg["id"], action=payload,
                                              error=error)), timeout=30.0)
            elif kind == "begin_game":
                obs = observe(msg)
                if msg.get("seed") is not None:
                    _call(agent, "seed", msg["seed"])
                _call(agent, "begin_game", msg["seat"], obs)
            elif kind == "end_game":
                games += 1
                _call(agent, "end_game", GameEnd.model_validate(msg["result"]))
            elif kind == "report_request":
                conn.send(encode(ReportAnswer(type="report", id=msg["id"],
                                              report=_report(agent))), timeout=30.0)
            elif kind == "novelty_announced":
                _call(agent, "novelty_announced")
            elif kind == "bye":
                return games
    finally:
        conn.close()


def _call(agent: Any, method: str, *args: Any) -> None:
    """An optional hook of the agent; one that raises is logged, as the harness does in
    process (`openmono.play`), and the session goes on."""
    fn = getattr(agent, method, None)
    if fn is None:
        return
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - the agent's own bug must not end the session
        LOG.warning("the agent's %s raised %s: %s", method, type(exc).__name__, exc)


def _report(agent: Any) -> ReportModel:
    """The agent's novelty report; "nothing detected" when it has none or it raises."""
    try:
        report = agent.novelty_report() if hasattr(agent, "novelty_report") else None
        return ReportModel.model_validate(report.to_json() if report is not None else {})
    except Exception as exc:  # noqa: BLE001 - as the harness does in process
        LOG.warning("the agent's novelty_report raised %s: %s", type(exc).__name__, exc)
        return ReportModel.model_validate({})


class _Fixed:
    """A rules cache that always answers with the rules already built for this id."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules

    def get(self, public: Any, deck_names: Any) -> Any:
        return self.rules
