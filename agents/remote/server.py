"""The harness side of remote seats: one listening socket shared by every remote seat
on that address, and a single thread that admits clients.

The admission thread never blocks on a client: connections are non-blocking until their
`hello` line arrives, each has `handshake_timeout` seconds to send it, and at most
`max_pending` wait at once (the oldest is dropped when more arrive), so a flood of
connections, half-open ones or garbage cannot stall a game or exhaust the server. The
token is compared in constant time (`hmac.compare_digest`) against every seat's token;
a refused client gets one `refused` line saying why, and the refusal is logged and
counted by kind (`refusals`). Whatever a connection sends, nothing it causes stops the
admission thread: an exception while admitting it (a line nested too deep for the JSON
parser, a token no codec can encode, ...) drops that connection as an `admission_error`,
and an error of the loop itself is counted as `server_error` and the loop goes on, so a
seat's client can always connect and reconnect.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import selectors
import socket
import sys
import threading
import time
from collections import Counter
from typing import Any

from openmono.protocol import PROTOCOL_VERSION, Hello, Refused, Welcome, encode, version_problem

from agents.remote.lines import LineSocket

LOG = logging.getLogger("openmono.remote")


class RemoteError(RuntimeError):
    """A remote seat cannot be served (address in use, no client came); one line."""


class _Pending:
    __slots__ = ("sock", "buf", "deadline", "peer")

    def __init__(self, sock: socket.socket, deadline: float, peer: Any) -> None:
        self.sock, self.buf, self.deadline, self.peer = sock, bytearray(), deadline, peer


class SeatServer:
    """Listens on (host, port) and hands each authenticated client to its seat."""

    def __init__(self, host: str, port: int, max_line: int, handshake_timeout: float,
                 max_pending: int) -> None:
        self.host, self.max_line = host, max_line
        self.handshake_timeout, self.max_pending = handshake_timeout, max_pending
        self.seats: list[Any] = []  # objects with .token, .busy(), .attach(line_socket, hello)
        self.refusals: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        try:
            self.listener = socket.create_server((host, port), backlog=64)
        except OSError as exc:
            why = str(exc.strerror or exc).split(" (while attempting")[0]
            raise RemoteError(f"cannot listen on {host}:{port}: {why}") from None
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        if not is_loopback(host):
            print(f"warning: remote seats listen on {host}:{self.port}, beyond this machine: "
                  "anyone who can reach it may try tokens, and they travel unencrypted; "
                  "use long random tokens, or loopback and an SSH tunnel", file=sys.stderr)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.listener, selectors.EVENT_READ, None)
        self._pending: dict[socket.socket, _Pending] = {}
        self._thread = threading.Thread(target=self._run, name=f"remote-seats:{self.port}",
                                        daemon=True)

    def start(self) -> None:
        """Admit clients from now on. Seats register first, so that no client of a seat
        not yet registered is refused; clients arriving before wait in the backlog."""
        with self._lock:
            if not self._thread.is_alive() and not self._stop.is_set():
                self._thread.start()

    # --- the admission loop --------------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    self._step()
                except Exception as exc:  # noqa: BLE001 - the listener must outlive anything
                    self.refusals["server_error"] += 1
                    LOG.warning("remote seats on port %s: %s: %s", self.port,
                                type(exc).__name__, str(exc)[:200])
                    time.sleep(0.05)
        finally:
            for p in list(self._pending.values()):
                self._drop(p)
            self._sel.close()
            self.listener.close()

    def _step(self) -> None:
        for key, _ in self._sel.select(timeout=0.05):
            if key.data is None:
                self._accept()
                continue
            p = key.data
            try:
                self._read(p)
            except Exception as exc:  # noqa: BLE001 - one connection's problem, counted
                self._refuse(p, "admission_error", f"cannot admit this connection "
                             f"({type(exc).__name__})")
        now = time.monotonic()
        for p in [p for p in self._pending.values() if p.deadline <= now]:
            self._refuse(p, "handshake_timeout", "no hello in "
                         f"{self.handshake_timeout}s")

    def _accept(self) -> None:
        for _ in range(64):
            try:
                sock, peer = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # e.g. out of file descriptors: keep serving the seated
                self.refusals["accept_failed"] += 1
                return
            sock.setblocking(False)
            if len(self._pending) >= self.max_pending:
                oldest = min(self._pending.values(), key=lambda p: p.deadline)
                self._refuse(oldest, "flood", "too many connections waiting")
            p = _Pending(sock, time.monotonic() + self.handshake_timeout, peer)
            self._pending[sock] = p
            self._sel.register(sock, selectors.EVENT_READ, p)

    def _read(self, p: _Pending) -> None:
        try:
            chunk = p.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.refusals["closed_before_hello"] += 1
            self._drop(p)
            return
        p.buf += chunk
        i = p.buf.find(b"\n")
        if i < 0:
            if len(p.buf) >= self.max_line:
                self._refuse(p, "malformed_hello", "hello over the size limit")
            return
        line, rest = bytes(p.buf[:i]), bytes(p.buf[i + 1:])
        self._hello(p, line, rest)

    def _hello(self, p: _Pending, line: bytes, rest: bytes) -> None:
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or data.get("type") != "hello":
                raise ValueError("the first message must be a hello")
        except (ValueError, RecursionError):  # (200,000 nested brackets, say)
            self._refuse(p, "malformed_hello", "the first message must be a hello line "
                         "(docs/protocol.md)")
            return
        problem = version_problem(data.get("version"))
        if problem:
            self._refuse(p, "version", problem)
            return
        try:
            hello = Hello.model_validate(data)
            hello.token.encode()  # a lone surrogate cannot be compared
        except (ValueError, RecursionError) as exc:
            first = (str(exc).splitlines() or [type(exc).__name__])[0]
            self._refuse(p, "malformed_hello", f"malformed hello: {first[:200]}")
            return
        seat = self._seat_of(hello.token)
        if seat is None:
            self._refuse(p, "bad_token", "wrong or missing token")
            return
        if seat.busy():
            self._refuse(p, "busy", "this seat already has a client")
            return
        self._sel.unregister(p.sock)
        del self._pending[p.sock]
        conn = LineSocket(p.sock, self.max_line, rest)
        try:
            conn.send(encode(Welcome(max_line=self.max_line)), timeout=1.0)
        except Exception:  # noqa: BLE001 - it went away at once
            conn.close()
            return
        LOG.info("remote seat %s: client %s connected", seat.label, p.peer)
        seat.attach(conn, hello)

    def _seat_of(self, token: str) -> Any:
        given = token.encode()
        found = None
        with self._lock:
            seats = list(self.seats)
        for seat in seats:  # every token compared, in constant time each
            if hmac.compare_digest(given, seat.token.encode()) and seat.token:
                found = seat
        return found

    def _refuse(self, p: _Pending, kind: str, reason: str) -> None:
        self.refusals[kind] += 1
        LOG.warning("remote seats on port %s: refused %s: %s", self.port, p.peer, reason)
        try:
            p.sock.send(encode(Refused(version=PROTOCOL_VERSION, reason=reason)))
        except Exception:  # noqa: BLE001 - gone already, or a reason that cannot be sent
            pass
        self._drop(p)

    def _drop(self, p: _Pending) -> None:
        self._pending.pop(p.sock, None)
        try:
            self._sel.unregister(p.sock)
        except (KeyError, ValueError, OSError):
            pass
        try:
            p.sock.close()
        except OSError:
            pass

    # --- seats -----------------------------------------------------------------------------
    def add(self, seat: Any) -> None:
        with self._lock:
            if any(s.token == seat.token for s in self.seats):
                raise RemoteError("two remote seats share one token: give each its own")
            self.seats.append(seat)

    def remove(self, seat: Any) -> bool:
        """Forget a seat; True when no seat is left (the server should stop)."""
        with self._lock:
            if seat in self.seats:
                self.seats.remove(seat)
            return not self.seats

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5.0)
        else:  # never started: nothing else owns the sockets
            self._sel.close()
            self.listener.close()


def is_loopback(host: str) -> bool:
    """True for an address (or `localhost`) that only this machine can reach."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def probe_listen(host: str, port: int) -> None:
    """RemoteError (one line) unless (host, port) can be listened on now: the socket is
    bound and closed at once, nothing is sent, so a command that would fail to listen
    is refused before it writes anything."""
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        why = (exc.strerror or str(exc)).split(" (while attempting")[0]
        raise RemoteError(f"cannot listen on {host}:{port}: {why} (the host must be an "
                          "address of this machine: 127.0.0.1, 0.0.0.0 or one of its "
                          "interfaces; the port a free one)") from None


_SERVERS: dict[tuple[str, int], SeatServer] = {}
_SERVERS_LOCK = threading.Lock()


def server_for(host: str, port: int, max_line: int, handshake_timeout: float,
               max_pending: int) -> SeatServer:
    """The server of (host, port), started on first use (port 0: a free port each time)."""
    with _SERVERS_LOCK:
        server = _SERVERS.get((host, port)) if port else None
        if server is None:
            server = SeatServer(host, port, max_line, handshake_timeout, max_pending)
            _SERVERS[(host, server.port)] = server
            if port:
                _SERVERS[(host, port)] = server
        return server


def release(server: SeatServer, seat: Any) -> None:
    with _SERVERS_LOCK:
        if server.remove(seat):
            for key in [k for k, s in _SERVERS.items() if s is server]:
                del _SERVERS[key]
            server.stop()
