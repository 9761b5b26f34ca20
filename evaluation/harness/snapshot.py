"""The agents' snapshot (`agents.pkl`): pickled after a game, sealed with this user's key
and bound to this trial and game count, and read back only when all of that holds.

Unpickling runs code and a results folder may come from anywhere, hence the seal; the
compiled rules an agent holds are pickled as what they were compiled from.
"""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

from evaluation.harness.seats import Seats, _shaped
from evaluation.harness.trial_folder import CONFIG_FILE, STATE_FILE
from evaluation.store.atomic import atomic_write, read_regular
from evaluation.store.moved import home_of
from evaluation.store.seal import KeyProblem, seal, snapshot_key, unseal


def _read_only(data: dict[Any, Any]) -> MappingProxyType:
    return MappingProxyType(data)


class _StatePickler(pickle.Pickler):
    """Compiled rules hold closures: an agent's copy is pickled as the schema and hooks
    it was compiled from, and compiled again when loaded."""

    def reducer_override(self, obj: Any) -> Any:
        from openmono.compiled import Rules

        if type(obj) is Rules:
            return (Rules, (obj.schema, obj.hooks))
        if type(obj) is MappingProxyType:
            return (_read_only, (dict(obj),))
        if getattr(obj, "__qualname__", None) == "_fair_pair.<locals>.roll":
            from openmono.compiled import _fair_pair

            cells = dict(zip(obj.__code__.co_freevars,
                             (c.cell_contents for c in obj.__closure__)))
            return (_fair_pair, (cells["f0"], cells["f1"]))
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    """A snapshot taken before `evaluation/` had sub-packages, or before the runner was
    split, names its functions and classes by their old home
    (`evaluation.runner._read_only`): read as the new one (`evaluation.store.moved`)."""

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(home_of(module, name), name)


def _snapshot_binding(out: Path, games: int) -> bytes | None:
    """What a snapshot is sealed with besides the agents: the digest of this trial's
    configuration (`trial.json`, written before any game) and the game count it was
    taken at, so a snapshot of another trial or another point is never used."""
    try:
        ident = json.loads((out / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()
    return json.dumps({"trial": digest, "games": games}, sort_keys=True).encode() + b"\n"


def _key() -> bytes | None:
    try:
        return snapshot_key()
    except KeyProblem:  # (refused in one line when the trial starts)
        return None


def _save_agents(out: Path, games: int, agents: Any) -> None:
    """Pickle the agents after `games` games (atomically, sealed with this user's key and
    bound to this trial and game count: `evaluation.store.seal`); agents that cannot be
    pickled are simply re-played on resume."""
    key = _key()
    head = _snapshot_binding(out, games)
    if key is None or head is None:  # no snapshot could be trusted on resume: keep none
        (out / STATE_FILE).unlink(missing_ok=True)
        return
    try:
        buf = io.BytesIO()
        _StatePickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(
            {"games": games, "agents": agents})
        # (an isolated seat cannot be pickled: its agent's state lives in its child)
        atomic_write(out / STATE_FILE, seal(head + buf.getvalue(), key))
    except Exception:  # noqa: BLE001 - an unpicklable agent only makes resuming slower
        (out / STATE_FILE).unlink(missing_ok=True)


def _load_agents(out: Path, games: int, seats: Seats | None = None) -> Any:
    """The snapshot's agents, only if this user's runs sealed it for this very trial at
    a game already recorded: unpickling runs code, and a results folder may come from
    anywhere (otherwise: one warning line, and re-play)."""
    path = out / STATE_FILE
    key = _key()
    if key is None or not path.exists():
        return None
    try:
        payload = unseal(read_regular(path), key)
    except OSError:
        return None
    if payload is None:
        return _untrusted(path, "was not sealed by this user's runs (copied or planted?)")
    head, _, body = payload.partition(b"\n")
    try:
        bound = json.loads(head)
        taken = bound["games"]
        trial = bound["trial"]
    except (ValueError, TypeError, KeyError):
        return _untrusted(path, "does not name the trial it was taken in (an older snapshot)")
    mine = _snapshot_binding(out, taken)
    if mine is None or json.loads(mine)["trial"] != trial:
        return _untrusted(path, "was taken in another trial")
    if isinstance(taken, bool) or not isinstance(taken, int) or not 0 < taken <= games:
        return _untrusted(path, f"was taken after game {taken}, but {games} games are "
                          "recorded")
    try:
        saved = _Unpickler(io.BytesIO(body)).load()
    except Exception:  # noqa: BLE001 - from other code: re-play
        return None
    if not isinstance(saved, dict) or "agents" not in saved or (
            seats is not None and not _shaped(saved["agents"], seats)):
        return _untrusted(path, "does not hold this trial's agents")
    return taken, saved["agents"]


def _untrusted(path: Path, why: str) -> None:
    print(f"warning: {path} {why}: ignoring it and re-playing the recorded games",
          file=sys.stderr)
    return None
