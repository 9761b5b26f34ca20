"""Trials as Ray tasks whose results come home, without a shared filesystem.

The machine that submits a sweep is *home*: every trial's folder lives there. A trial
runs on a Ray worker in a scratch folder seeded with the files that already reached
home (`games.jsonl`, `agents.pkl`, `trial.json`), so it resumes exactly as a local
re-run would (`evaluation.harness.runner`). The task is a streaming generator: about once a
second it yields the game lines written since its last chunk and the agents' latest
snapshot, and at the end the finished trial's files (summary, report, plots, log).
The driver appends the lines and replaces the other files in the home folder as the
chunks arrive. A worker or node that dies mid-trial loses at most its last second of
games: the driver resubmits the trial with what reached home, to whichever worker Ray
picks, up to `max_resubmits` times. Same seeds, same games: the lines at home are those
of an uninterrupted local run, none lost and none twice.

`play_streaming` is the task body and knows nothing of Ray; `run_trials` is the driver.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from evaluation.store.atomic import atomic_write
from evaluation.store.report_files import report_current
from evaluation.harness.trial_config import TrialConfig, TrialError
from evaluation.harness.trial_folder import (CONFIG_FILE, GAMES_FILE, STATE_FILE, SUMMARY_FILE,
                                             complete_summary)

CHUNK_SECONDS = 1.0
STATE_SECONDS = 30.0  # the agents' snapshot goes home at most this often (and at the end)
LOG_FILE = "trial.log"
# What a resumed trial needs from home (the rest is written again at its end).
RESUME_FILES = (GAMES_FILE, STATE_FILE, CONFIG_FILE)
LOCAL_OBJECT_STORE = 80 * 2**20  # a local cluster's object store: chunks are small


@dataclass
class RemoteTrial:
    """One trial of a sweep: where its folder is at home, and what to play."""

    out_dir: Path
    config: TrialConfig
    plots: bool = False
    setup: Callable[[], Any] | None = None  # run on the worker first (e.g. register an agent)


# --- on the worker -------------------------------------------------------------------------------
def _complete_lines(data: bytes) -> bytes:
    """Whole lines only: what a killed writer left half-written is dropped."""
    return data[: data.rfind(b"\n") + 1]


class _Outbox:
    """Collects what changed in the scratch folder since the last chunk."""

    def __init__(self, out: Path, sent: int, state_seconds: float) -> None:
        self.out = out
        self.sent = sent  # bytes of games.jsonl already at home
        self.state_stamp = self._stamp(STATE_FILE)
        self.state_seconds = state_seconds
        self.state_sent = time.monotonic()

    def _stamp(self, name: str) -> tuple[int, int] | None:
        try:
            st = (self.out / name).stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def chunk(self, final: bool = False) -> dict[str, Any]:
        with (self.out / GAMES_FILE).open("rb") as fh:
            fh.seek(self.sent)
            lines = _complete_lines(fh.read())
        self.sent += len(lines)
        files: dict[str, bytes] = {}
        stamp = self._stamp(STATE_FILE)
        due = final or time.monotonic() - self.state_sent >= self.state_seconds
        if stamp is not None and stamp != self.state_stamp and due:
            # A snapshot is as large as the agents (200 kB for the planner); resuming
            # from an older one only re-plays the games after it.
            self.state_stamp, self.state_sent = stamp, time.monotonic()
            files[STATE_FILE] = (self.out / STATE_FILE).read_bytes()
        if final:
            for path in sorted(self.out.iterdir()):
                # Not the scratch folder's lock or temporary files (names with a dot).
                if (path.is_file() and path.name not in (GAMES_FILE, STATE_FILE)
                        and not path.name.startswith(".")):
                    files[path.name] = path.read_bytes()
        return {"lines": lines, "files": files}


def play_streaming(config: TrialConfig, plots: bool, home: dict[str, bytes],
                   chunk_seconds: float = CHUNK_SECONDS,
                   home_dir: str = "",
                   setup: Callable[[], Any] | None = None,
                   state_seconds: float = STATE_SECONDS) -> Iterator[dict[str, Any]]:
    """Resume the trial from `home`'s files in a scratch folder and yield what changes.

    Chunks are dicts: `lines` (new game lines), `files` (name -> bytes to replace at
    home), and in the last one `done` or `error` (one line). The trial runs in a thread
    so that this generator can hand chunks over while games are played.
    """
    if setup is not None:
        setup()
    with tempfile.TemporaryDirectory(prefix="openmono-trial-") as tmp:
        out = Path(tmp)
        for name, data in home.items():
            (out / name).write_bytes(data)
        games = home.get(GAMES_FILE, b"")
        (out / GAMES_FILE).write_bytes(_complete_lines(games))
        outbox = _Outbox(out, len(_complete_lines(games)), state_seconds)
        inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        last = [time.monotonic()]

        def on_game(record: dict[str, Any]) -> None:
            if time.monotonic() - last[0] >= chunk_seconds:
                last[0] = time.monotonic()
                inbox.put(("chunk", outbox.chunk()))

        def play() -> None:
            _play(config, out, plots, home_dir, games.count(b"\n"), on_game, inbox)

        thread = threading.Thread(target=play, name="trial", daemon=True)
        thread.start()
        while True:
            kind, value = inbox.get()
            if kind == "chunk":
                yield value
                continue
            thread.join()
            if kind == "raise":
                raise value
            final = outbox.chunk(final=True)
            final["done" if kind == "done" else "error"] = value if kind == "error" else True
            yield final
            return


def _play(config: TrialConfig, out: Path, plots: bool, home_dir: str, had: int,
          on_game: Callable[[dict[str, Any]], None],
          inbox: queue.Queue[tuple[str, Any]]) -> None:
    """The trial played in `out` (its output into the folder's log), then its report;
    what ended it put into `inbox` for the generator: done, error (one line) or raise."""
    from evaluation.reports.report import print_summary, write_report
    from evaluation.harness.runner import run_trial

    with (out / LOG_FILE).open("a", encoding="utf-8") as log, \
            contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        print(f"playing on {socket.gethostname()} (pid {os.getpid()}), "
              f"{had} games from home")
        try:
            summary = run_trial(config, out, on_game=on_game)
            write_report(str(out), summary, plots=plots)
            print_summary(summary, home_dir or str(out))
        except TrialError as exc:
            print(f"error: {exc}")
            inbox.put(("error", str(exc)))
            return
        except BaseException as exc:  # noqa: BLE001 - handed to the driver
            inbox.put(("raise", exc))
            return
    inbox.put(("done", None))


# --- at home -------------------------------------------------------------------------------------
class HomeFolder:
    """A trial's folder on the submitting machine: what reached it, and how to add more."""

    def __init__(self, out_dir: Path) -> None:
        self.out = Path(out_dir)

    def resume_files(self) -> dict[str, bytes]:
        """The files a worker needs to resume; a half-written last line is cut off."""
        files = {}
        for name in RESUME_FILES:
            path = self.out / name
            if path.exists():
                files[name] = path.read_bytes()
        if GAMES_FILE in files:
            whole = _complete_lines(files[GAMES_FILE])
            if whole != files[GAMES_FILE]:
                atomic_write(self.out / GAMES_FILE, whole)
            files[GAMES_FILE] = whole
        return files

    def games(self) -> int:
        try:
            return (self.out / GAMES_FILE).read_bytes().count(b"\n")
        except OSError:
            return 0

    def receive(self, chunk: dict[str, Any]) -> None:
        """Lines are appended (and flushed) before the snapshot that follows them."""
        self.out.mkdir(parents=True, exist_ok=True)
        if chunk.get("lines"):
            # No fsync: after a crash of this machine a snapshot newer than the lines is
            # refused on resume (runner._load_agents) and the games are re-played.
            with (self.out / GAMES_FILE).open("ab") as fh:
                fh.write(chunk["lines"])
        for name, data in chunk.get("files", {}).items():
            if name == LOG_FILE:
                with (self.out / name).open("ab") as fh:
                    fh.write(data)
                continue
            atomic_write(self.out / name, data)


# --- the driver ----------------------------------------------------------------------------------
@dataclass
class RayOptions:
    """How to reach Ray and what each trial asks of it (hydra.launcher.* / --ray)."""

    address: str | None = None      # None: start a local cluster; "auto"; "host:port"
    cpus_per_trial: float = 1.0
    num_cpus: int | None = None     # a local cluster's CPUs (None: Ray counts the cores)
    max_resubmits: int = 3          # per trial, after its worker or node died
    chunk_seconds: float = CHUNK_SECONDS  # how often a trial sends its new games home
    state_seconds: float = STATE_SECONDS  # how often it sends the agents' snapshot
    init: dict[str, Any] | None = None  # more ray.init arguments (runtime_env, ...)


def start_ray(options: RayOptions) -> bool:
    """Connect to (or start) Ray; True when this call started it (and must stop it)."""
    import ray

    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                              "configure_logging": False}
    if options.address in (None, "", "local"):
        from evaluation.trials.sweep_guard import reap_when_gone

        reap_when_gone()  # the local cluster goes with this process, even on SIGKILL
        kwargs["num_cpus"] = options.num_cpus
        kwargs["object_store_memory"] = LOCAL_OBJECT_STORE
    else:
        kwargs["address"] = options.address
    kwargs.update(options.init or {})
    ray.init(**kwargs)
    return True


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def run_trials(trials: list[RemoteTrial], options: RayOptions | None = None,
               say: Callable[[str], None] | None = None) -> dict[Path, str]:
    """Play the trials on Ray, bringing every result home; returns out_dir -> outcome
    (`complete`, `error: ...`). Finished trials at home are not submitted again."""
    import ray

    options = options or RayOptions()
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    outcome = _complete_at_home(trials)
    todo = [t for t in trials if t.out_dir not in outcome]
    if not todo:
        return outcome
    t0 = time.perf_counter()
    started = start_ray(options)
    cpus = ray.cluster_resources().get("CPU", 0)
    say(f"ray: {'started a local cluster' if started and options.address in (None, '', 'local') else 'connected'} "
        f"in {time.perf_counter() - t0:.1f} s ({cpus:g} CPUs, {options.cpus_per_trial:g} per "
        f"trial); {len(todo)} trials to play, {len(trials) - len(todo)} complete at home")
    try:
        task = ray.remote(play_streaming).options(num_cpus=options.cpus_per_trial,
                                                  max_retries=0)
        driver = _Driver(task, options, say, outcome)
        for trial in todo:
            driver.submit(trial, 0)
        while driver.running:
            # One wait per round for every generator that has something: O(running) a
            # round, not a chunk, so a thousand trials at once stay cheap for the driver.
            ready, _ = ray.wait([r[0] for r in driver.running.values()],
                                num_returns=len(driver.running), timeout=0.2)
            for gen in ready:
                driver.take_home(gen)
        traffic, busy = driver.traffic, driver.busy
        say(f"ray: {len(todo)} trials in {time.perf_counter() - t0:.1f} s; {traffic[0]} chunks, "
            f"{traffic[1] / 1e6:.2f} MB came home; the driver spent "
            f"{1000 * busy / max(traffic[0], 1):.2f} ms per chunk")
        return outcome
    finally:
        if started:
            ray.shutdown()


def _complete_at_home(trials: list[RemoteTrial]) -> dict[Path, str]:
    """The trials already complete at home (a report missing is written here): not
    submitted again."""
    outcome: dict[Path, str] = {}
    for t in trials:
        done = complete_summary(t.config, t.out_dir)
        if done is not None:
            if not report_current(t.out_dir):  # killed before its report: write it here
                from evaluation.reports.report import write_report

                write_report(str(t.out_dir), done, plots=t.plots)
            outcome[t.out_dir] = "complete"
    return outcome


class _Driver:
    """The trials running as Ray tasks: submitting one, and taking home each chunk one
    sends (its outcome once it ends, a lost worker's trial submitted again)."""

    def __init__(self, task: Any, options: RayOptions, say: Callable[[str], None],
                 outcome: dict[Path, str]) -> None:
        self.task, self.options, self.say, self.outcome = task, options, say, outcome
        self.running: dict[int, tuple[Any, RemoteTrial, int]] = {}  # id(generator) -> ...
        self.traffic = [0, 0]  # chunks and bytes that came home
        self.busy = 0.0  # the driver's own time per chunk: fetching and writing it

    def submit(self, trial: RemoteTrial, attempt: int) -> None:
        home = HomeFolder(trial.out_dir)
        trial.out_dir.mkdir(parents=True, exist_ok=True)
        gen = self.task.remote(trial.config, trial.plots, home.resume_files(),
                               self.options.chunk_seconds, str(trial.out_dir), trial.setup,
                               self.options.state_seconds)
        self.running[id(gen)] = (gen, trial, attempt)

    def take_home(self, gen: Any) -> None:
        """The next chunk of a generator that has one, written home."""
        import ray
        from ray.exceptions import RayError, RayTaskError

        _, trial, attempt = self.running[id(gen)]
        home = HomeFolder(trial.out_dir)
        t1 = time.perf_counter()
        try:
            chunk = ray.get(next(gen))
        except StopIteration:
            del self.running[id(gen)]
            self.outcome.setdefault(trial.out_dir, "error: the task ended without a result")
            return
        except RayTaskError as exc:  # our code raised on the worker
            del self.running[id(gen)]
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            self.outcome[trial.out_dir] = f"error: {_one_line(cause)}"
            self.say(f"error: {trial.out_dir}: {_one_line(cause)}")
            return
        except RayError as exc:  # the worker or its node is gone
            del self.running[id(gen)]
            _lost(trial, attempt, exc, home, self.options, self.say, self.outcome, self.submit)
            return
        home.receive(chunk)
        self.busy += time.perf_counter() - t1
        self.traffic[0] += 1
        self.traffic[1] += _size(chunk)
        if "error" in chunk:
            self.outcome[trial.out_dir] = f"error: {chunk['error']}"
            self.say(f"error: {trial.out_dir}: {chunk['error']}")
        elif chunk.get("done"):
            self.outcome[trial.out_dir] = "complete"


def _lost(trial: RemoteTrial, attempt: int, exc: Exception, home: "HomeFolder",
          options: RayOptions, say: Callable[[str], None], outcome: dict[Path, str],
          submit: Callable[[RemoteTrial, int], None]) -> None:
    """A worker or its node died: submit the trial again (it resumes from what came
    home), up to `options.max_resubmits` times."""
    if attempt >= options.max_resubmits:
        outcome[trial.out_dir] = f"error: lost {attempt + 1} times"
        say(f"error: {trial.out_dir}: worker lost ({_one_line(exc)}), "
            f"{attempt + 1} times; re-run the sweep to resume it")
        return
    note = (f"worker lost ({type(exc).__name__}); resubmitted, resuming from "
            f"{home.games()} of {trial.config.games} games at home")
    home.receive({"files": {LOG_FILE: f"{note}\n".encode()}})
    say(f"{trial.out_dir}: {note}")
    submit(trial, attempt + 1)


def _size(chunk: dict[str, Any]) -> int:
    """The bytes a chunk brought home (its new lines and files)."""
    return len(chunk.get("lines", b"")) + sum(len(v) for v in chunk.get("files", {}).values())


def summary_at_home(out_dir: Path) -> dict[str, Any] | None:
    import json

    try:
        return json.loads((Path(out_dir) / SUMMARY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
