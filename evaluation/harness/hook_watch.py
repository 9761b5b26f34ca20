"""Time budgets for novelty plugin hooks and in-process agents, kept off the engine's
hot loop.

Timing every hook call or decision would cost the engine on every turn. Instead one
watchdog thread looks at the game thread's stack now and then (`interval`, at most a
second): when the same call of a hook has been on it for `budget` seconds, it raises
`HookTimeout` inside that thread (`PyThreadState_SetAsyncExc`), which the runner reports
in one line naming the plugin, the hook and the game; when the same call of an
in-process agent's `act` has been on it for `agent_budget` seconds, it raises
`openmono.decision.DecisionTimeout` there, which the game driver answers with the
phase's default and a counted fault. The engine pays nothing; the watchdog wakes once a
second. A call that spins in Python code is stopped at its next bytecode. When the game
runs in the main thread (the command-line tools), the watchdog also sends it SIGALRM,
whose handler raises the same exception, so a call blocked in a sleep or a socket read
is stopped too; in another thread such a hook is stopped when that call returns, and
agents are not watched (an exception raised there could land after `act` returned).

What no budget stops: code stuck in C that never returns to the interpreter (a C
extension's loop, a lock taken without a timeout) and code that catches the exception
and carries on (a bare `except:`, or `except BaseException`): a hook that swallows
`HookTimeout`, or an agent that swallows `DecisionTimeout`, gets it again every budget
and the trial waits for it. Run code you do not trust in another process
(`isolate=process` for agents, docs/agents.md).
"""

from __future__ import annotations

import ctypes
import signal
import sys
import threading
import time
from types import CodeType, FrameType
from typing import Any

from openmono.decision import DecisionTimeout

DEFAULT_BUDGET = 10.0  # seconds one hook call may take; hooks normally take microseconds
DEFAULT_AGENT_BUDGET = 60.0  # seconds one decision of an in-process agent may take


class HookTimeout(BaseException):
    """Raised inside a plugin hook that ran past its budget. A BaseException, so that no
    `except Exception` on the way (the engine's, a plugin's) swallows it."""

    hook: str | None = None
    budget: float = DEFAULT_BUDGET


class _Watched:
    """One kind of call watched: its code objects (code -> name), budget, and the call
    seen on the stack (the frame) since when."""

    def __init__(self, budget: float | None, codes: dict[CodeType, str]) -> None:
        self.budget = budget
        self.codes = dict(codes)
        self.seen: FrameType | None = None
        self.since = 0.0

    def outermost(self, frame: FrameType | None) -> tuple[FrameType | None, str | None]:
        found: tuple[FrameType | None, str | None] = (None, None)
        while frame is not None:
            name = self.codes.get(frame.f_code)
            if name is not None:
                found = (frame, name)
            frame = frame.f_back
        return found

    def overrun(self, top: FrameType | None, now: float) -> tuple[FrameType, str] | None:
        """The call that has been on the stack for the whole budget, if any."""
        frame, name = self.outermost(top)
        if frame is None:
            self.seen = None
        elif frame is not self.seen:
            self.seen, self.since = frame, now
        elif self.budget is not None and now - self.since >= self.budget:
            self.seen = None  # (should it swallow the exception, it is raised again)
            return frame, str(name)
        return None


class HookWatch:
    """Watches the calling thread while it plays games with hooks whose code objects are
    `codes` (code -> hook name) and in-process agents whose `act` code objects are
    `agent_codes`; a context manager (no thread when there is nothing to watch)."""

    def __init__(self, budget: float | None, codes: dict[CodeType, str],
                 agent_budget: float | None = None,
                 agent_codes: dict[CodeType, str] | None = None) -> None:
        self.budget = budget
        self.codes = dict(codes)
        self.fired: str | None = None
        self._hooks = _Watched(budget, codes)
        self._agents = _Watched(agent_budget, agent_codes or {})
        self._target = threading.get_ident()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending: tuple[type[BaseException], FrameType] | None = None
        self._previous: Any = None  # the SIGALRM handler replaced (main thread only)

    def __enter__(self) -> HookWatch:
        main = threading.current_thread() is threading.main_thread() and hasattr(
            signal, "pthread_kill")
        if not main:  # (a timeout raised asynchronously might land after `act` returned)
            self._agents.codes = {}
        watched = [w for w in (self._hooks, self._agents) if w.budget and w.codes]
        if watched:
            self._target = threading.get_ident()
            if main:
                self._previous = signal.signal(signal.SIGALRM, self._on_alarm)
            self._thread = threading.Thread(target=self._run, args=(watched,),
                                            name="hook-watch", daemon=True)
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
        if pending is None:
            return
        kind, target = pending
        while frame is not None and frame is not target:
            frame = frame.f_back
        if frame is not None:  # still inside the call that overran (not after it)
            raise kind()

    def _run(self, watched: list[_Watched]) -> None:
        interval = min(1.0, *(max(0.01, float(w.budget or 1.0) / 5) for w in watched))
        while not self._stop.wait(interval):
            top = sys._current_frames().get(self._target)
            now = time.monotonic()
            for w in watched:
                hit = w.overrun(top, now)
                if hit is not None:
                    self._fire(w, *hit)
                    break
            del top

    def _fire(self, watched: _Watched, frame: FrameType, name: str) -> None:
        kind: type[BaseException]
        if watched is self._hooks:
            self.fired = name
            kind = type("HookTimeout", (HookTimeout,), {"hook": name, "budget": self.budget})
        else:
            kind = type("DecisionTimeout", (DecisionTimeout,), {
                "__str__": lambda self, _n=name, _b=watched.budget:
                f"{_n} took more than the {_b:g}s budget of a decision"})
        if self._previous is not None:  # the main thread: wakes a blocked call too
            self._pending = (kind, frame)
            signal.pthread_kill(self._target, signal.SIGALRM)
        else:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._target),
                                                       ctypes.py_object(kind))
