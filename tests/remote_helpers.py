"""Helpers for the remote-seat tests: free ports, clients in threads, leak checks."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from typing import Any, Callable

from openmono.protocol import PROTOCOL_VERSION

from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def trial_cfg(port: int, games: int = 2, **remote: Any) -> TrialConfig:
    params = {"port": port, "token": "seat-secret", "budget": 1.0, "connect_timeout": 10.0,
              "reconnect_timeout": 2.0, **remote}
    return TrialConfig(agent="remote", agent_params=params, opponents=["baseline"] * 3,
                       games=games, seed=3, reference=None, progress=False)


def in_thread(fn: Callable[..., Any], *args: Any) -> threading.Thread:
    t = threading.Thread(target=fn, args=args, daemon=True)
    t.start()
    return t


class RawClient:
    """A hand-written client that can misbehave: `answer(msg, n)` returns the bytes to
    send for the n-th decision (None: the first legal action)."""

    def __init__(self, port: int, token: str = "seat-secret",
                 answer: Callable[[dict[str, Any], int], Any] | None = None) -> None:
        self.port, self.token, self.answer = port, token, answer
        self.decisions = 0
        self.first: dict[str, Any] | None = None
        self.games = 0
        self.sock: socket.socket | None = None

    def connect(self) -> Any:
        deadline = time.monotonic() + 10
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        self.sock = sock
        sock.sendall(json.dumps({"type": "hello", "version": PROTOCOL_VERSION,
                                 "token": self.token}).encode() + b"\n")
        reader = sock.makefile("rb")
        self.first = json.loads(reader.readline())
        return reader

    def run(self) -> None:
        """Play until bye or the connection ends (a refused client stops at once)."""
        try:
            reader = self.connect()
            if self.first.get("type") != "welcome":
                return
            self.play(reader)
        except OSError:
            pass
        finally:
            if self.sock is not None:
                self.sock.close()

    def play(self, reader: Any) -> None:
        assert self.sock is not None
        for line in reader:
            msg = json.loads(line)
            if msg["type"] == "bye":
                return
            if msg["type"] == "end_game":
                self.games += 1
            if msg["type"] == "report_request":
                self.sock.sendall(json.dumps({"type": "report", "id": msg["id"],
                                              "report": {}}).encode() + b"\n")
            if msg["type"] != "decide":
                continue
            self.decisions += 1
            out = self.answer(msg, self.decisions) if self.answer else None
            if out == "close":
                return
            if out is None:
                action = msg["observation"]["legal_actions"][0]
                out = json.dumps({"type": "action", "id": msg["id"], "action": action}).encode() + b"\n"
            self.sock.sendall(out)


def run_with(cfg: TrialConfig, out: Any, clients: list[Callable[[], None]],
             ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run the trial with client callables in threads; check nothing leaks."""
    threads_before = set(threading.enumerate())
    fds_before = open_fds()
    threads = [in_thread(c) for c in clients]
    summary = run_trial(cfg, out)
    for t in threads:
        t.join(timeout=15)
        assert not t.is_alive(), "a client thread did not finish"
    time.sleep(0.05)
    assert set(threading.enumerate()) <= threads_before, "threads leaked"
    assert open_fds() <= fds_before, f"file descriptors leaked: {open_fds()} > {fds_before}"
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == cfg.games
    return summary, records
