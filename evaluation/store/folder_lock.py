"""One run at a time per results folder: an exclusive lock a killed process cannot leak.

A trial folder (and a sweep folder) is written by one process at a time. The lock is an
`fcntl.flock` on `LOCK_FILE` inside the folder. The kernel releases it when the holding
process ends, however it ends (SIGKILL included), so there are no stale locks to clean up:
the next command simply gets it. A second command that finds the folder locked is
refused at once in one line naming the holder (`FolderBusy`), rather than waiting: the
same command started twice is almost always a mistake (two terminals, a resubmitted
job), and a refusal says so immediately instead of hanging a CI job or a shell.

The lock file stays in the folder: removing it on release would let two processes lock
two different files of the same name. Locks are re-entrant within one process (the trial
CLI holds the folder while `run_trial`, which locks it too, plays into it).
On systems without `fcntl` (Windows) folders are not locked.

A folder holding a link or a special file among its own entries (`unsafe_entry`) is
refused (`FolderUnsafe`) before anything is opened in it: a `.lock` linked to another
file would be truncated through the link.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Iterator

from evaluation.store.atomic import NotRegular, open_regular, remove_stale_temps

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locking
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = ".lock"
_held: dict[str, list[int]] = {}  # folder (real path) -> [`with` blocks holding it, fd]
_guard = threading.Lock()


class FolderRefused(RuntimeError):
    """The folder cannot be used as it stands; the message is one line."""


class FolderBusy(FolderRefused):
    """The folder is locked by another run."""


class FolderUnsafe(FolderRefused):
    """The folder holds a link or a special file where the run writes or reads its own
    files: following it would write over (or read) something outside the folder."""


OWN_SUBFOLDERS = (".hydra", "logs")  # written by the run too: checked like the folder


def unsafe_entry(folder: str | os.PathLike[str]) -> str | None:
    """Why `folder` is not safe to run in (None: it is): one of its entries, or of its
    `.hydra` and `logs`, is a link or neither a file nor a folder. The folder itself may
    be reached through a link (outputs/ on another disk); what is inside may not."""
    path = Path(folder)
    for where in (path, *(path / sub for sub in OWN_SUBFOLDERS)):
        try:
            entries = sorted(os.scandir(where), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            return f"cannot read {where}: {exc.strerror}"
        for entry in entries:
            if entry.is_symlink():
                return (f"{entry.path} is a link (to {os.readlink(entry.path)}); a run folder "
                        "holds only its own files: remove the link or choose another folder")
            if not (entry.is_file(follow_symlinks=False)
                    or entry.is_dir(follow_symlinks=False)):
                return (f"{entry.path} is not a regular file (a FIFO, device or socket); "
                        "remove it or choose another folder")
    return None


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f" ({text})" if text else ""


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike[str], what: str = "run",
                reentrant: bool = True) -> Iterator[Path]:
    """Hold `folder` (made if missing) exclusively for the block; raises `FolderBusy`,
    or `FolderUnsafe` for a folder holding a link or a special file."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    key = os.path.realpath(path)
    with _guard:
        if key in _held:
            if not reentrant:
                raise FolderBusy(f"{path} is in use by this process ({what})")
            _held[key][0] += 1
        else:
            problem = unsafe_entry(path)
            if problem:
                raise FolderUnsafe(problem)
            try:  # never through a link: opening it would truncate the link's target
                fd = open_regular(path / LOCK_FILE, os.O_RDWR | os.O_CREAT)
            except NotRegular:
                raise FolderUnsafe(f"{path / LOCK_FILE} is a link or not a regular file; "
                                   "remove it or choose another folder") from None
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = _holder(fd)
                    os.close(fd)
                    raise FolderBusy(
                        f"{path} is in use by another run{holder}: wait for it to finish "
                        "(or stop it), then run the same command again to resume") from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}, {what}\n".encode(), 0)
            _held[key] = [1, fd]
            remove_stale_temps(path)  # left by writes a kill cut short: nobody else writes
    try:
        yield path
    finally:
        with _guard:
            _held[key][0] -= 1
            if _held[key][0] == 0:
                os.close(_held.pop(key)[1])  # closing the descriptor releases the flock
