"""Seal the agents' snapshot (`agents.pkl`) so that only this user's own runs unpickle it.

Unpickling runs whatever code the file names, and a results folder is something people
copy and share. The snapshot is only a shortcut for resuming (without it the recorded
games are re-played, which is deterministic), so a snapshot that does not carry this
user's HMAC is ignored rather than trusted.

The key: `$OPENMONO_SNAPSHOT_KEY` if set (the same value on every node of a cluster whose
nodes do not share a home directory), else 32 random bytes kept in
`$XDG_CONFIG_HOME/openmono/snapshot.key` (default `~/.config/openmono/`), created on first
use and readable by the user only. Without a usable key nothing is sealed or trusted:
trials still resume, by re-playing.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

MAGIC = b"openmono-sealed-1\n"
KEY_ENV = "OPENMONO_SNAPSHOT_KEY"
_DIGEST = hashlib.sha256().digest_size


def key_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "openmono" / "snapshot.key"


def snapshot_key() -> bytes | None:
    """This user's key, created on first use; None when it can be neither read nor made."""
    given = os.environ.get(KEY_ENV)
    if given:
        return given.encode()
    path = key_file()
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(32))
        return path.read_bytes()
    except FileExistsError:  # another process made it first
        return path.read_bytes()
    except OSError:
        return None


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
