"""Rewrite a file so that a kill at any moment leaves the old bytes or the new, never less.

Writing in place (`open("w")`) truncates first: a process killed before the new bytes
are out leaves an empty or half file. Here the new bytes go to a temporary file in the
same folder, are flushed to disk (fsync), and replace the old file with one atomic
rename; the folder is synced too, so the rename itself survives a crash of the machine.
"""

from __future__ import annotations

import os
import re
import stat
import threading
from pathlib import Path


def sync_folder(folder: Path) -> None:
    """fsync a folder, so a rename inside it survives a crash (where the system allows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # some systems cannot open a folder: the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class NotRegular(OSError):
    """A results file that is a link or not a regular file (a FIFO, a device): never
    followed, read or written (a link to /dev/zero never ends, a FIFO blocks)."""


def open_regular(path: str | os.PathLike[str], flags: int = os.O_RDONLY,
                 mode: int = 0o644) -> int:
    """A descriptor of `path` opened without following a link (O_NOFOLLOW) nor blocking
    on a FIFO (O_NONBLOCK, dropped once open), only if it is a regular file; raises
    NotRegular (or the OSError of the open, FileNotFoundError included)."""
    try:
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as exc:
        if os.path.islink(path):
            raise NotRegular(exc.errno, "a link, not a regular file", str(path)) from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise NotRegular(0, "not a regular file (a FIFO, device or socket)", str(path))
    if hasattr(os, "O_NONBLOCK"):
        os.set_blocking(fd, True)
    return fd


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file, read without following a link (`open_regular`)."""
    with os.fdopen(open_regular(path), "rb") as fh:
        return fh.read()


# `atomic_write`'s temporary file: `.NAME.PID-THREAD.tmp` beside its target.
TEMP_NAME = re.compile(r"\..+\.([0-9]+)-[0-9]+\.tmp", re.ASCII | re.DOTALL)


def remove_stale_temps(folder: Path, *, under: tuple[str, ...] = ("logs",)) -> list[Path]:
    """Delete the temporary files killed atomic writes left in `folder` (and its `under`
    subfolders); call it holding the folder's lock, when no other process writes there.
    This process's own (a write under way in another thread) are kept."""
    removed = []
    for where in (folder, *(folder / sub for sub in under)):
        try:
            entries = list(os.scandir(where))
        except OSError:
            continue
        for entry in entries:
            m = TEMP_NAME.fullmatch(entry.name)
            if m and int(m.group(1)) != os.getpid() and entry.is_file(follow_symlinks=False):
                try:
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
                except OSError:
                    pass
    return removed


def atomic_write(path: str | os.PathLike[str], data: bytes | str,
                 encoding: str = "utf-8") -> None:
    """Replace `path` by `data` atomically (temp file + fsync + rename + folder fsync)."""
    target = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else data
    tmp = target.with_name(f".{target.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        with os.fdopen(open_regular(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    sync_folder(target.parent)
