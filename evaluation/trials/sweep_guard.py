"""A sweep that resumes, shows one progress bar and never leaves workers behind.

The parent (`run_sweep`) says what the sweep folder already holds ("resuming: 17 of
36 trials complete, 3 partial"), draws one overall bar from the trials' `games.jsonl`
files while Hydra's launcher runs the jobs (each job writes its lines into its own
`trial.log`), and on SIGINT/SIGTERM ends every process it started before exiting.
Workers (`watch_parent`) exit as soon as the sweep's parent is gone, which covers a
SIGKILL of the parent that no handler can see.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

PARENT_ENV = "OPENMONO_SWEEP_PARENT"


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _end_children(signum: int, frame: Any) -> None:
    for pid in descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    print(f"\nsweep stopped ({signal.Signals(signum).name}); every worker ended. Re-run the "
          "same command to resume.", file=sys.stderr)
    os._exit(128 + signum)


def watch_parent(interval: float = 0.5) -> None:
    """In a sweep worker: exit at once when the sweep's parent process is gone."""
    host, _, parent = os.environ.get(PARENT_ENV, "").rpartition(":")
    if (not parent.isdigit() or host != socket.gethostname()
            or getattr(watch_parent, "started", False)):
        return
    watch_parent.started = True  # type: ignore[attr-defined]
    pid = int(parent)

    def loop() -> None:
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass
            time.sleep(interval)

    threading.Thread(target=loop, name="sweep-parent-watch", daemon=True).start()


def _started(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def reap_when_gone(pid: int | None = None) -> None:
    """Start a small watcher that ends every process below `pid` (default: this one) once
    `pid` is gone. A local Ray cluster needs it: when its driver is SIGKILLed, Ray's
    agents outlive their raylet, and no handler in the driver can run."""
    import subprocess

    subprocess.Popen([sys.executable, "-m", "evaluation.trials.sweep_guard", "reap",
                      str(pid or os.getpid())], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)


def _reap(pid: int, interval: float = 1.0) -> None:
    me = os.getpid()
    known: dict[int, str | None] = {}
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        except PermissionError:
            pass
        # Everything ever seen below pid: a dying pid (a zombie) has no children left.
        known.update((p, _started(p)) for p in descendants(pid) if p != me and p not in known)
        time.sleep(interval)
    for p, started in known.items():
        if started is not None and _started(p) == started:  # the same process, not a reuse
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


def _lines(path: Path) -> int:
    try:
        with path.open("rb") as fh:
            return fh.read().count(b"\n")
    except OSError:
        return 0


def state(jobs: list[Any]) -> tuple[int, int]:
    """(complete, partial) trials among the sweep's jobs."""
    complete = partial = 0
    for job in jobs:
        n = _lines(job.out_dir / "games.jsonl")
        if n >= job.config.games and (job.out_dir / "summary.json").exists():
            complete += 1
        elif n > 0:
            partial += 1
    return complete, partial


def _bar(jobs: list[Any], stop: threading.Event) -> None:
    from tqdm import tqdm

    total = sum(j.config.games for j in jobs)
    with tqdm(total=total, unit="game", desc="sweep", file=sys.stderr, mininterval=1.0,
              dynamic_ncols=True) as bar:
        finished = False
        while not finished:
            finished = stop.wait(1.0)  # one last look after the launcher returned
            done = sum(min(_lines(j.out_dir / "games.jsonl"), j.config.games) for j in jobs)
            complete, _ = state(jobs)
            bar.n = done
            bar.set_postfix_str(f"{complete}/{len(jobs)} trials", refresh=False)
            bar.refresh()


def run_sweep(cmd: Any, hydra_main: Callable[[list[str]], None]) -> int:
    """Run the sweep holding its folder: the same sweep started twice is refused in one
    line (`evaluation.store.folder_lock`), and each trial holds its own folder too."""
    from evaluation.store.folder_lock import FolderRefused, folder_lock

    try:
        with folder_lock(cmd.sweep_dir, "sweep", reentrant=False):
            return _run_sweep(cmd, hydra_main)
    except FolderRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run_sweep(cmd: Any, hydra_main: Callable[[list[str]], None]) -> int:
    jobs = cmd.jobs
    complete, partial = state(jobs)
    where = cmd.sweep_dir
    if complete or partial:
        print(f"resuming: {complete} of {len(jobs)} trials complete, {partial} partial "
              f"({where})", file=sys.stderr)
    else:
        print(f"sweep: {len(jobs)} trials -> {where}", file=sys.stderr)
    if complete == len(jobs):
        print(f"complete: all {len(jobs)} trials are in {where}")
        return 0
    from evaluation.store.atomic import atomic_write

    atomic_write(where / "command.txt", "python -m evaluation.trial " + " ".join(
        ["--multirun", *cmd.overrides]) + "\n")
    from evaluation.harness.launchers import ON_THIS_MACHINE, chosen

    if chosen(cmd.overrides) in ON_THIS_MACHINE:
        # Local workers only: a cluster job must not look for this process on its node.
        os.environ[PARENT_ENV] = f"{socket.gethostname()}:{os.getpid()}"
    signal.signal(signal.SIGINT, _end_children)
    signal.signal(signal.SIGTERM, _end_children)
    argv = cmd.hydra_argv()
    quiet = [o for o in ("hydra/hydra_logging=disabled", "hydra/job_logging=disabled")
             if not any(a.startswith(o.split("=")[0] + "=") for a in argv)]
    stop = threading.Event()
    show = sys.stderr.isatty() or os.environ.get("OPENMONO_PROGRESS") == "1"
    thread = threading.Thread(target=_bar, args=(jobs, stop), daemon=True) if show else None
    if thread is not None:
        thread.start()
    try:
        hydra_main(argv + quiet)
    finally:
        stop.set()
        if thread is not None:
            thread.join(timeout=5)
    complete, partial = state(jobs)
    failed = len(jobs) - complete
    print(f"sweep: {complete} of {len(jobs)} trials complete in {where}"
          + (f"; {failed} not (see their trial.log)" if failed else ""))
    return 0 if not failed else 1


if __name__ == "__main__":  # python -m evaluation.trials.sweep_guard reap PID
    if len(sys.argv) == 3 and sys.argv[1] == "reap" and sys.argv[2].isdigit():
        _reap(int(sys.argv[2]))
