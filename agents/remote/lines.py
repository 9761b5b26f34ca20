"""Newline-delimited messages on a socket, with a size limit and deadlines.

Every read has a deadline and every line a size limit: a client that sends nothing,
sends slowly, or sends an endless line costs the harness at most its budget and a
bounded buffer (an over-long line is reported at once and its rest skipped).
"""

from __future__ import annotations

import socket
import time


class LineTimeout(Exception):
    """No complete line before the deadline."""


class LineTooLong(Exception):
    """A line over the size limit (its rest is skipped as it arrives)."""


class Disconnected(Exception):
    """The peer closed the connection or the socket failed."""


class LineSocket:
    """A connected socket read and written one line at a time."""

    def __init__(self, sock: socket.socket, max_line: int, buffered: bytes = b"") -> None:
        try:  # one small message each way per decision: never wait to batch them
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        self.sock = sock
        self.max_line = max_line
        self.buf = bytearray(buffered)
        self.skipping = False
        self.closed = False

    def read_line(self, deadline: float | None) -> bytes:
        """The next line (without its newline) before `deadline` (time.monotonic())."""
        buf = self.buf
        while True:
            if self.skipping:
                i = buf.find(b"\n")
                if i >= 0:
                    del buf[:i + 1]
                    self.skipping = False
                else:
                    buf.clear()
            if not self.skipping:
                i = buf.find(b"\n")
                if i >= 0:
                    line = bytes(buf[:i])
                    del buf[:i + 1]
                    if i + 1 > self.max_line:
                        raise LineTooLong(f"a message of {i + 1} bytes, over the "
                                          f"{self.max_line}-byte limit")
                    return line
                if len(buf) >= self.max_line:
                    buf.clear()
                    self.skipping = True
                    raise LineTooLong(f"a message over the {self.max_line}-byte limit")
            self._fill(deadline)

    def _fill(self, deadline: float | None) -> None:
        if self.closed:
            raise Disconnected("connection closed")
        if deadline is None:
            self.sock.settimeout(None)
        else:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LineTimeout("no answer in time")
            self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(1 << 16)
        except (socket.timeout, TimeoutError):
            raise LineTimeout("no answer in time") from None
        except OSError as exc:
            self.close()
            raise Disconnected(f"connection failed: {exc}") from None
        if not chunk:
            self.close()
            raise Disconnected("the client closed the connection")
        self.buf += chunk

    def alive(self) -> bool:
        """False once the peer has closed the connection (checked without reading)."""
        if self.closed:
            return False
        try:
            return self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False

    def send(self, data: bytes, timeout: float | None) -> None:
        """Send a whole line; a peer that does not read within `timeout` is dropped."""
        if self.closed:
            raise Disconnected("connection closed")
        try:
            self.sock.settimeout(timeout)
            self.sock.sendall(data)
        except OSError as exc:  # (socket.timeout included)
            self.close()
            raise Disconnected(f"cannot send: {exc}") from None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()
