"""Hostile and broken clients: the trial finishes, every game is recorded, the faults
are counted by kind, and nothing leaks (threads, sockets, file descriptors)."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from remote_helpers import RawClient, free_port, run_with, trial_cfg


def _faults(records: list[dict]) -> dict[str, int]:
    total: dict[str, int] = {}
    for r in records:
        for k, n in r["remote_faults"].items():
            total[k] = total.get(k, 0) + n
    return total


def _once(k: int, data: bytes):  # type: ignore[no-untyped-def]
    return lambda msg, n: data if n == k else None


def test_wrong_and_missing_token_refused_and_logged(tmp_path: Path) -> None:
    port = free_port()
    wrong = RawClient(port, token="not-the-secret")
    missing = RawClient(port, token="")
    good = RawClient(port)

    def staggered() -> None:
        wrong.run()
        missing.run()
        good.run()

    summary, records = run_with(trial_cfg(port), tmp_path, [staggered])
    assert wrong.first["type"] == "refused" and "token" in wrong.first["reason"]
    assert missing.first["type"] == "refused"
    assert summary["remote_refused"]["bad_token"] == 2
    assert _faults(records) == {} and good.games == 2


def test_garbage_bytes(tmp_path: Path) -> None:
    port = free_port()
    client = RawClient(port, answer=_once(5, b"\x00\xff\xfe garbage \x13\n"))
    summary, records = run_with(trial_cfg(port), tmp_path, [client.run])
    assert _faults(records) == {"malformed": 1}
    assert summary["remote_faults"] == {"malformed": 1}
    assert sum(r["faults"] for r in records) == 1  # the engine played the default


def test_truncated_json(tmp_path: Path) -> None:
    port = free_port()
    client = RawClient(port, answer=_once(3, b'{"type": "action", "id": 3, "act\n'))
    _, records = run_with(trial_cfg(port), tmp_path, [client.run])
    assert _faults(records) == {"malformed": 1}


def test_unknown_message_type(tmp_path: Path) -> None:
    port = free_port()
    client = RawClient(port, answer=_once(4, b'{"type": "gimme_the_dice"}\n'))
    _, records = run_with(trial_cfg(port), tmp_path, [client.run])
    assert _faults(records) == {"unknown_type": 1}


def test_ten_mib_line(tmp_path: Path) -> None:
    port = free_port()
    client = RawClient(port, answer=_once(2, b"x" * (10 << 20) + b"\n"))
    _, records = run_with(trial_cfg(port, budget=5.0), tmp_path, [client.run])
    assert _faults(records) == {"oversize": 1}


def test_line_limit_is_configurable(tmp_path: Path) -> None:
    port = free_port()
    big = {"type": "action", "id": 0, "action": {"kind": "conclude"}, "pad": "y" * 5000}
    client = RawClient(port, answer=lambda m, n: (json.dumps({**big, "id": m["id"]}).encode()
                                                  + b"\n") if n == 2 else None)
    _, records = run_with(trial_cfg(port, max_line=4096), tmp_path, [client.run])
    assert _faults(records) == {"oversize": 1}


def test_illegal_action(tmp_path: Path) -> None:
    port = free_port()

    def answer(msg, n):  # type: ignore[no-untyped-def]
        if n != 6:
            return None
        act = {"kind": "offer_trade", "to": msg["observation"]["seat"], "give_cash": 10**9}
        return json.dumps({"type": "action", "id": msg["id"], "action": act}).encode() + b"\n"

    _, records = run_with(trial_cfg(port), tmp_path, [RawClient(port, answer=answer).run])
    assert _faults(records) == {"illegal": 1}


def test_slow_answer_gets_the_default_and_its_late_answer_is_skipped(tmp_path: Path) -> None:
    port = free_port()

    def answer(msg, n):  # type: ignore[no-untyped-def]
        if n == 3:
            time.sleep(1.4)  # over the budget, but answers the next one in time
        return None

    t0 = time.monotonic()
    _, records = run_with(trial_cfg(port, budget=1.0), tmp_path,
                          [RawClient(port, answer=answer).run])
    assert _faults(records) == {"timeout": 1}
    assert time.monotonic() - t0 < 30


def test_disconnect_mid_game_then_reconnect_between_games(tmp_path: Path) -> None:
    port = free_port()
    first = RawClient(port, answer=lambda m, n: "close" if n == 10 else None)
    second = RawClient(port)

    def leave_and_return() -> None:
        first.run()
        second.run()

    _, records = run_with(trial_cfg(port, games=3), tmp_path, [leave_and_return])
    game0 = records[0]["remote_faults"]
    assert game0.get("disconnect") == 1 and game0.get("absent", 0) > 0
    assert records[1]["remote_faults"] == {} and records[2]["remote_faults"] == {}
    assert second.games >= 2


def test_connection_flood_and_half_open_connections(tmp_path: Path) -> None:
    port = free_port()
    opened: list[socket.socket] = []

    def flood() -> None:
        deadline = time.monotonic() + 10
        while len(opened) < 150 and time.monotonic() < deadline:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=2)
            except OSError:
                time.sleep(0.01)
                continue
            if len(opened) % 3 == 0:
                s.sendall(b'{"type": "hel')  # half a hello, then nothing
            opened.append(s)

    client = RawClient(port)

    def flood_then_play() -> None:
        try:
            flood()
            client.run()
        finally:
            for s in opened:
                s.close()

    summary, records = run_with(trial_cfg(port, max_pending=8, handshake_timeout=0.5),
                                tmp_path, [flood_then_play])
    assert client.games == 2 and _faults(records) == {}
    refused = summary["remote_refused"]
    assert refused.get("flood", 0) + refused.get("handshake_timeout", 0) >= 100


def test_no_client_is_a_one_line_error(tmp_path: Path) -> None:
    import pytest

    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialError

    port = free_port()
    with pytest.raises(TrialError, match="no client connected"):
        run_trial(trial_cfg(port, connect_timeout=0.3), tmp_path)
    with socket.socket() as s:  # the port is free again
        s.bind(("127.0.0.1", port))


# --- issue 29, finding 9: nothing sent before authentication stops the listener -------------
def _hello(token: object, **extra: object) -> bytes:
    from openmono.protocol import PROTOCOL_VERSION

    return json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "token": token,
                       **extra}).encode() + b"\n"


HOSTILE_LINES = {
    "200,000-deep [": b"[" * 200_000 + b"\n",
    "deep object in a hello": b'{"type": "hello", "token": ' + b'{"a":' * 100_000 + b"\n",
    "lone surrogate token": _hello("\ud800"),
    "not UTF-8": b"\xff\xfe\xfd\xfc garbage \x00\x01\n",
    "token of the wrong type": _hello(["seat-secret"]),
    "huge number": b'{"type": "hello", "version": ' + b"9" * 100_000 + b"}\n",
    "NaN version": b'{"type": "hello", "version": NaN, "token": "seat-secret"}\n',
    "no line at all": b"{" * 2_000_000,  # over the size limit before any newline
}


def _send_hostile(port: int, data: bytes) -> None:
    """Send `data` on a fresh connection and wait (bounded) for the server to answer or
    close it."""
    deadline = time.monotonic() + 10
    while True:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)
    with sock:
        try:
            sock.sendall(data)
            sock.recv(4096)
        except OSError:
            pass


import pytest  # noqa: E402


@pytest.mark.parametrize("case", sorted(HOSTILE_LINES))
def test_a_hostile_line_before_the_client_is_a_counted_refusal(tmp_path: Path,
                                                               case: str) -> None:
    port = free_port()
    client = RawClient(port)

    def hostile_then_play() -> None:
        _send_hostile(port, HOSTILE_LINES[case])
        client.run()

    summary, records = run_with(trial_cfg(port, games=1), tmp_path, [hostile_then_play])
    assert client.games == 1 and _faults(records) == {}
    assert sum(summary["remote_refused"].values()) >= 1, summary["remote_refused"]


def test_slowloris_and_hostile_lines_mid_trial_then_the_client_reconnects(
        tmp_path: Path) -> None:
    """Mid-trial: a slow sender and every hostile line, then the seat's client drops in
    the middle of a game and comes back with its token: it plays the rest."""
    import threading

    port = free_port()

    def noise() -> None:
        slow = socket.create_connection(("127.0.0.1", port), timeout=5)
        try:
            for _ in range(20):  # one byte at a time, past the handshake timeout
                slow.sendall(b"{")
                time.sleep(0.05)
        except OSError:
            pass
        finally:
            slow.close()
        for data in HOSTILE_LINES.values():
            _send_hostile(port, data)

    sender = threading.Thread(target=noise, daemon=True)

    def answer(msg: dict, n: int):  # type: ignore[no-untyped-def]
        if n == 5:
            sender.start()
        if n == 60:
            sender.join(timeout=30)
            return "close"  # leaves in the middle of a game
        return None

    first = RawClient(port, answer=answer)
    back = RawClient(port)

    def scenario() -> None:
        first.run()
        back.run()  # comes back with the token

    summary, records = run_with(trial_cfg(port, games=4, handshake_timeout=0.5), tmp_path,
                                [scenario])
    assert not sender.is_alive()
    faults = _faults(records)
    assert faults.get("disconnect") == 1, faults
    assert back.games == 3 and records[-1]["remote_faults"] == {}
    assert summary["remote_refused"].get("handshake_timeout", 0) >= 1


def test_a_300k_deep_json_answer_mid_game_is_a_malformed_fault(tmp_path: Path) -> None:
    """Issue 52, finding 8: a 300,000-deep JSON answer raised RecursionError past
    `except ValueError`, which stopped the trial (and remote_faults never counted it)."""
    port = free_port()
    deep = b"[" * 300_000 + b"]" * 300_000 + b"\n"
    client = RawClient(port, answer=_once(4, deep))
    summary, records = run_with(trial_cfg(port, max_line=1 << 21), tmp_path, [client.run])
    assert _faults(records) == {"malformed": 1}
    assert summary["remote_faults"] == {"malformed": 1}


def test_a_300k_deep_json_report_is_a_report_fault(tmp_path: Path) -> None:
    """The same for the answer to a report request (`novelty_report`): a report fault."""
    deep = b"[" * 300_000 + b"]" * 300_000 + b"\n"

    class DeepReport(RawClient):
        def connect(self):  # type: ignore[no-untyped-def]
            reader = super().connect()
            sock = self.sock

            class Wrapped:  # the first report answer is the deep line
                reports = 0

                def sendall(self, data: bytes) -> None:
                    if data.startswith(b'{"type": "report"'):
                        self.reports += 1
                        data = deep if self.reports == 1 else data
                    sock.sendall(data)

                def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
                    return getattr(sock, name)

            self.sock = Wrapped()  # type: ignore[assignment]
            return reader

    port = free_port()
    client = DeepReport(port)
    _, records = run_with(trial_cfg(port, max_line=1 << 21), tmp_path, [client.run])
    assert _faults(records) == {"report": 1}
