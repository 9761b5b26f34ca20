"""Seal the agents' snapshot (`agents.pkl`) so that only this user's own runs unpickle it.

Unpickling runs whatever code the file names, and a results folder is something people
copy and share. The snapshot is only a shortcut for resuming (without it the recorded
games are re-played, which is deterministic), so a snapshot that does not carry this
user's HMAC is ignored rather than trusted.

The key: `$OPENMONO_SNAPSHOT_KEY` if set (the same value on every node of a cluster whose
nodes do not share a home directory), else 32 random bytes kept in
`$XDG_CONFIG_HOME/openmono/snapshot.key` (default `~/.config/openmono/`), created on first
use, atomically and readable by the user only. A key shorter than 32 bytes (an empty file
left by a full disk is the same as no key: anyone can forge that seal) or a key file that
the group or others can read is refused with `KeyProblem`, one line saying how to fix
it. Without a key that can be made at all nothing is sealed or trusted: trials still
resume, by re-playing.

What the seal binds is up to its caller: the runner seals the trial's configuration
digest and the game count with the pickle (`evaluation.harness.snapshot`), so a snapshot of
another trial, or of another point of this one, is not used either.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from evaluation.store.atomic import sync_folder

MAGIC = b"openmono-sealed-1\n"
KEY_ENV = "OPENMONO_SNAPSHOT_KEY"
MIN_KEY = 32  # bytes: a key anyone can guess seals nothing
_DIGEST = hashlib.sha256().digest_size


class KeyProblem(ValueError):
    """The snapshot key is unsafe to use; the message (one line) says how to fix it."""


def key_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "openmono" / "snapshot.key"


def snapshot_key() -> bytes | None:
    """This user's key, created on first use; None when none can be read or made.

    Raises `KeyProblem` for a key too short to be secret or a key file that others can
    read: both would let someone else's pickle be trusted."""
    given = os.environ.get(KEY_ENV)
    if given is not None and given != "":
        key = os.fsencode(given)  # its bytes as given, UTF-8 or not
        if len(key) < MIN_KEY:
            raise KeyProblem(
                f"${KEY_ENV} holds {len(key)} bytes, fewer than the {MIN_KEY} bytes "
                f"a snapshot key needs: set it to a long random value, e.g. export {KEY_ENV}="
                "$(python -c 'import secrets; print(secrets.token_hex(32))')")
        return key
    path = key_file()
    try:
        return _checked(path)
    except (FileNotFoundError, NotADirectoryError):  # (none yet, or none can be made)
        pass
    except KeyProblem:
        raise
    except OSError as exc:  # (a key that exists but cannot be read is not silently dropped)
        raise KeyProblem(f"cannot read the snapshot key {path}: {exc.strerror}; fix it, or "
                         "delete it and a new one is made on the next run") from None
    return _create(path)


def _checked(path: Path) -> bytes:
    """The key in `path`, refused when others can read it or it is too short, or when
    it is not a regular file (a directory would silently disable snapshots, a FIFO
    would hang the run)."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise KeyProblem(f"the snapshot key {path} is not a regular file: delete it and a "
                         "new one is made on the next run")
    with path.open("rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        data = fh.read(4096)
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise KeyProblem(f"the snapshot key {path} can be read by others (mode "
                         f"{stat.S_IMODE(mode):03o}): run chmod 600 {path}")
    if len(data) < MIN_KEY:
        raise KeyProblem(f"the snapshot key {path} holds {len(data)} bytes, fewer than "
                         f"{MIN_KEY} (a write cut short?): delete it and a new one is made "
                         "on the next run (snapshots sealed with it are then re-played)")
    return data


def _create(path: Path) -> bytes | None:
    """Make the key atomically: written and synced in a private temporary file, then
    linked into place, so no reader ever sees a partial key and two runs starting at
    once agree on one key."""
    tmp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            key = secrets.token_bytes(MIN_KEY)
            if os.write(fd, key) != len(key):
                raise OSError("short write")
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # fails if another run made it first: theirs wins
        except FileExistsError:
            pass
        sync_folder(path.parent)
        return _checked(path)
    except KeyProblem:
        raise
    except OSError:  # no room, no permission: run without a key (resume re-plays)
        return None
    finally:
        if tmp is not None:
            try:
                tmp.unlink()
            except OSError:
                pass


def seal(payload: bytes, key: bytes) -> bytes:
    return MAGIC + hmac.new(key, payload, hashlib.sha256).digest() + payload


def unseal(blob: bytes, key: bytes) -> bytes | None:
    """The payload if `blob` was sealed with `key`, else None (never raises)."""
    if not blob.startswith(MAGIC):
        return None
    tag = blob[len(MAGIC):len(MAGIC) + _DIGEST]
    payload = blob[len(MAGIC) + _DIGEST:]
    good = hmac.new(key, payload, hashlib.sha256).digest()
    return payload if hmac.compare_digest(tag, good) else None
