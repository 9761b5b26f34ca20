"""A time budget for novelty plugin hooks, kept off the engine's hot loop.

Timing every hook call would cost the engine on every turn. Instead one watchdog thread
looks at the game thread's stack now and then (`interval`, at most a second): when the
same call of a hook has been on it for `budget` seconds, it raises `HookTimeout` inside
that thread (`PyThreadState_SetAsyncExc`), which the runner reports in one line naming
the plugin, the hook and the game. The engine pays nothing; the watchdog wakes once a
second. A hook that spins in Python code is stopped at its next bytecode. When the game
runs in the main thread (the command-line tools), the watchdog also sends it SIGALRM,
whose handler raises the same exception, so a hook blocked in a sleep or a socket
read is stopped too; in another thread such a hook is stopped when that call returns.
"""

from __future__ import annotations

import ctypes
import signal
import sys
import threading
import time
from types import CodeType, FrameType
from typing import Any

DEFAULT_BUDGET = 10.0  # seconds one hook call may take; hooks normally take microseconds


class HookTimeout(BaseException):
    """Raised inside a plugin hook that ran past its budget. A BaseException, so that no
    `except Exception` on the way (the engine's, a plugin's) swallows it."""

    hook: str | None = None
    budget: float = DEFAULT_BUDGET


class HookWatch:
    """Watches the calling thread while it plays games with hooks whose code objects are
    `codes` (code -> hook name); a context manager (no thread when there is nothing to
    watch or no budget)."""

    def __init__(self, budget: float | None, codes: dict[CodeType, str]) -> None:
        self.budget = budget
        self.codes = dict(codes)
        self.fired: str | None = None
        self._target = threading.get_ident()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending: type[HookTimeout] | None = None
        self._previous: Any = None  # the SIGALRM handler replaced (main thread only)

    def __enter__(self) -> HookWatch:
        if self.budget and self.codes:
            self._target = threading.get_ident()
            if threading.current_thread() is threading.main_thread() and hasattr(
                    signal, "pthread_kill"):
                self._previous = signal.signal(signal.SIGALRM, self._on_alarm)
            self._thread = threading.Thread(target=self._run, name="hook-watch", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._previous is not None:
            signal.signal(signal.SIGALRM, self._previous)
            self._previous = None

    def _on_alarm(self, signum: int, frame: Any) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            raise pending()

    def _hook_frame(self) -> tuple[FrameType | None, str | None]:
        """The outermost hook call on the watched thread's stack, and its hook's name."""
        frame = sys._current_frames().get(self._target)
        found: tuple[FrameType | None, str | None] = (None, None)
        while frame is not None:
            name = self.codes.get(frame.f_code)
            if name is not None:
                found = (frame, name)
            frame = frame.f_back
        return found

    def _run(self) -> None:
        assert self.budget
        interval = min(1.0, max(0.01, self.budget / 5))
        seen: FrameType | None = None
        since = 0.0
        while not self._stop.wait(interval):
            frame, name = self._hook_frame()
            if frame is None:
                seen = None
            elif frame is not seen:
                seen, since = frame, time.monotonic()
            elif time.monotonic() - since >= self.budget:
                self.fired = name
                timeout = type("HookTimeout", (HookTimeout,), {"hook": name,
                                                               "budget": self.budget})
                if self._previous is not None:  # the main thread: wakes a blocked call too
                    self._pending = timeout
                    signal.pthread_kill(self._target, signal.SIGALRM)
                else:
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._target),
                                                               ctypes.py_object(timeout))
                seen = None  # (should the hook swallow it, it is raised again in `budget`)
            del frame
