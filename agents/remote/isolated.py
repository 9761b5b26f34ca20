"""`isolate=process`: an ordinary agent built and played in a child process.

An agent in the harness's own process can reach around its observation (walk the stack
to the `Game`, patch classes): Python has no wall between objects of one process. An
`IsolatedAgent` is a remote seat (`agents.remote.seat.RemoteAgent`) whose client is a
child process the seat starts itself: `python -m agents.remote serve NAME` with a fresh
random token, connecting over loopback. The child builds the agent and sees nothing but
the protocol's messages (docs/protocol.md), so the agent never holds an engine object;
everything that goes wrong with it is a remote seat's fault (timeout, malformed, ...).

What the seat adds to a remote seat:

- the child is started with the seat and always reaped when it closes (asked to stop,
  then terminated, then killed); on Linux it is also killed if the harness dies;
- a child that exits before connecting stops the trial at once, in one line;
- a child that dies or overruns its budget is killed; the rest of the game is played by
  the phase defaults (counted faults), and a fresh child (a fresh agent) plays from the
  next game, at most `max_restarts` times per trial.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from typing import Any

from agents.remote.seat import RemoteAgent
from agents.remote.server import RemoteError

ISOLATIONS = ("none", "process")
SUFFIX = "@"


def parse_isolation(value: Any, key: str) -> bool:
    """True for `process`, False for `none`; ValueError (one line) for anything else."""
    if value is None or value is False or value == "none":
        return False
    if value == "process":
        return True
    raise ValueError(f"{key} must be one of {', '.join(ISOLATIONS)}, got {value!r}")


def split_name(name: str) -> tuple[str, bool]:
    """`NAME@process` -> (NAME, True); `NAME` -> (NAME, False); another suffix is a
    one-line ValueError naming the valid one."""
    base, at, how = name.rpartition(SUFFIX)
    if not at:
        return name, False
    if how != "process" or not base:
        raise ValueError(f"cannot read the seat {name!r}: write NAME or NAME@process "
                         "(the agent built and played in a child process)")
    return base, True


def _secret_variable(name: str) -> bool:
    """The harness's secrets in its environment: `$OPENMONO_TOKEN`,
    `$OPENMONO_REMOTE_TOKENS` (agents.remote.tokens), the tokens a trial command keeps
    from Hydra (`_OPENMONO_CLI_SECRETS`: evaluation.harness.secret_args) and the snapshot key
    (`$OPENMONO_SNAPSHOT_KEY`: evaluation.store.seal), which an agent would seal a pickle with."""
    return "OPENMONO" in name and ("TOKEN" in name or "SECRET" in name or "KEY" in name)


def _child_env() -> dict[str, str]:
    """The harness's environment without its remote seats' tokens."""
    env = {k: v for k, v in os.environ.items() if not _secret_variable(k)}
    # The child imports what the harness can (e.g. module.path:ClassName agents).
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def check_in_child(agent: str, params: dict[str, Any], timeout: float = 120.0) -> None:
    """Build the agent in a child process and throw it away; ValueError with the
    child's one line when it cannot be built (the harness never builds it itself)."""
    cmd = [sys.executable, "-m", "agents.remote", "check", agent, *_options(params)]
    try:
        done = subprocess.run(cmd, env=_child_env(), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ValueError(f"building it took over {timeout:g}s") from None
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        last = lines[-1] if lines else f"exit code {done.returncode}"
        raise ValueError(last.removeprefix("error: ").removeprefix(
            f"agent {agent!r} cannot be built: "))


def _options(params: dict[str, Any]) -> list[str]:
    return [f"{k}={json.dumps(v)}" for k, v in params.items()]


DEFAULT_MEMORY_MB = 4096  # MiB of data a child may hold (RLIMIT_DATA): agents use far less
DEFAULT_CPU_S = 86_400  # CPU seconds a child may use (RLIMIT_CPU): a day, for runaways only


def check_limit(value: Any, key: str) -> int | None:
    """A child's limit: a positive integer, or None (no limit); ValueError in one line."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{key} must be a positive integer (or null for no limit), "
                         f"got {value!r}")
    return value


def _child_setup(memory_mb: int | None, cpu_s: int | None) -> Any:
    """A function for the child, run between fork and exec: its resource limits (data
    memory, CPU time, no core files) and, on Linux, the kernel kills it when the harness
    dies, even by SIGKILL. Everything it needs is looked up before the fork."""
    import resource

    prctl = None
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            prctl = None
    limits = [(resource.RLIMIT_CORE, 0)]
    if memory_mb is not None:  # (RLIMIT_DATA, not RLIMIT_AS: address space reserved but
        limits.append((resource.RLIMIT_DATA, memory_mb << 20))  # unused, as by CUDA, is free)
    if cpu_s is not None:
        limits.append((resource.RLIMIT_CPU, cpu_s))
    wanted = []
    for which, value in limits:
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        wanted.append((which, value))

    def setup() -> None:  # pragma: no cover - runs in the child
        if prctl is not None:
            prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        for which, value in wanted:
            resource.setrlimit(which, (value, value))

    return setup


class IsolatedAgent(RemoteAgent):
    """The agent `agent` (a registered name or `module.path:ClassName`), built with
    `params` in a child process and played through the remote protocol."""

    name = "isolated"
    isolated = True  # its records carry remote faults only when it has some

    def __init__(self, agent: str, params: dict[str, Any] | None = None,
                 budget: float = 30.0, connect_timeout: float = 60.0,
                 max_restarts: int = 3, report_budget: float = 30.0,
                 memory_mb: int | None = DEFAULT_MEMORY_MB,
                 cpu_s: int | None = DEFAULT_CPU_S) -> None:
        super().__init__(port=0, token=secrets.token_urlsafe(32), host="127.0.0.1",
                         budget=budget, connect_timeout=connect_timeout,
                         reconnect_timeout=connect_timeout, report_budget=report_budget)
        if isinstance(max_restarts, bool) or not isinstance(max_restarts, int) or max_restarts < 0:
            raise ValueError(f"max_restarts must be an integer >= 0, got {max_restarts!r}")
        self.agent_name = agent
        self.params = dict(params or {})
        self.max_restarts = max_restarts
        self.memory_mb = check_limit(memory_mb, "isolate_memory")
        self.cpu_s = check_limit(cpu_s, "isolate_cpu")
        self.restarts = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def label(self) -> str:
        return f"isolated {self.agent_name}"

    # --- the child ------------------------------------------------------------------------
    def _command(self) -> list[str]:
        return [sys.executable, "-m", "agents.remote", "serve", self.agent_name,
                *_options(self.params),
                "--port", str(self.port), "--connect-timeout", str(self.connect_timeout),
                "--quiet", "--token-stdin"]

    def _spawn(self) -> None:
        try:
            err: Any = sys.stderr.fileno()
        except (AttributeError, OSError, ValueError):
            err = None
        self.proc = subprocess.Popen(
            self._command(), env=_child_env(), stdin=subprocess.PIPE, stdout=err, stderr=err,
            # A session (and process group) of its own: a Ctrl-C reaches the harness,
            # which reaps it, and what the child starts is stopped with it (`_signal`).
            start_new_session=True,
            preexec_fn=_child_setup(self.memory_mb, self.cpu_s))
        # The token goes through a pipe, read once: not on a command line or in an
        # environment that other processes of this user could read.
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(self.token.encode() + b"\n")
            self.proc.stdin.close()
        except OSError:
            pass  # it died at once: wait_for_client says so

    def _alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _reap(self, grace: float = 2.0) -> None:
        """Wait `grace` s for the child to leave, then terminate it, then kill it; then
        kill what is left of its process group (the processes it started)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                _signal(proc, sig)
            try:
                proc.wait(timeout=grace if sig is None else 2.0)
                break
            except subprocess.TimeoutExpired:
                continue
        _signal(proc, signal.SIGKILL)  # grandchildren (its group outlives it)

    # --- the seat -------------------------------------------------------------------------
    def listen(self) -> int:
        port = super().listen()
        if self.proc is None:
            self._spawn()
        return port

    def wait_for_client(self, timeout: float | None = None) -> None:
        """Wait for the child to connect; one line if it exits or never comes."""
        self.listen()
        assert self.server is not None
        self.server.start()
        deadline = time.monotonic() + (self.connect_timeout if timeout is None else timeout)
        while True:
            with self._cond:
                if self._cond.wait_for(lambda: self._next is not None or self._live(), 0.05):
                    return
            if self.proc is not None and self.proc.poll() is not None:
                code = self.proc.returncode
                self._reap()
                raise RemoteError(f"the isolated agent {self.agent_name!r} exited with code "
                                  f"{code} before playing (its message is above)")
            if time.monotonic() >= deadline:
                self._reap()
                raise RemoteError(f"the isolated agent {self.agent_name!r} did not connect "
                                  f"within {self.connect_timeout:g}s")

    def begin_game(self, seat: int, observation: Any) -> None:
        if (self.server is not None and not self._alive() and self._next is None
                and self.restarts < self.max_restarts):
            # The child died (or was killed) in an earlier game: a fresh one plays now.
            self._reap(grace=0.0)
            self.restarts += 1
            self._spawn()
            try:
                self.wait_for_client()
            except RemoteError as exc:
                print(f"warning: {exc}; its seat plays the phase defaults", file=sys.stderr)
        super().begin_game(seat, observation)

    def _adopt(self, wait: float) -> None:
        # Only a live child can connect: without one, waiting would only cost time.
        super()._adopt(wait if self._alive() else 0.0)

    def _act(self, obs: Any) -> Any:
        before = self.game_faults["timeout"] + self.game_faults["disconnect"]
        action = super()._act(obs)
        if self.game_faults["timeout"] + self.game_faults["disconnect"] > before:
            self._drop_child()
        return action

    def _drop_child(self) -> None:
        """A hung or dead child plays no more of this game (the defaults do, counted)."""
        with self._cond:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        if self.proc is not None:
            _signal(self.proc, signal.SIGKILL)
            self._reap(grace=0.0)

    def novelty_report(self) -> Any:
        before = self.game_faults["report"]
        report = super().novelty_report()
        if self.game_faults["report"] > before:
            self._drop_child()
        return report

    def close(self) -> None:
        """Say goodbye, then reap the child whatever it does."""
        try:
            super().close()
        finally:
            self._reap()


def _signal(proc: subprocess.Popen[bytes], sig: int) -> None:
    """Send `sig` to the child's whole process group (it leads its own session), so
    that processes it started are stopped too; a process that left the group with
    `setsid` escapes it (docs/agents.md)."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        if proc.returncode is None:
            try:
                proc.send_signal(sig)
            except OSError:
                pass
