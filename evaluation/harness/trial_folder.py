"""A trial's folder: its file names, its records and identity read back, the folder held
for one run, and the check that a re-run into it is the same trial.

Everything that reads a finished trial (reports, verification, sweeps) names the files
through here, not through the runner that writes them.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterator

from evaluation.harness.novelty_setup import novelty_specs
from evaluation.harness.trial_config import TrialConfig, TrialError, identity
from evaluation.store import records as games_file
from evaluation.store.atomic import atomic_write, read_regular
from evaluation.store.folder_lock import FolderRefused, folder_lock

GAMES_FILE = "games.jsonl"
SUMMARY_FILE = "summary.json"
CONFIG_FILE = "trial.json"
STATE_FILE = "agents.pkl"


def _folder_identity(path: Path) -> dict[str, Any] | None:
    try:
        ident = json.loads(read_regular(path.parent / CONFIG_FILE).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return ident if isinstance(ident, dict) else None


def read_records(path: Path) -> list[dict[str, Any]]:
    """The checked records of a games.jsonl (`evaluation.store.records`): an incomplete last
    line and exact repeats are left out, anything else wrong raises a one-line
    TrialError naming the file and line (the digests are checked against the folder's
    trial.json)."""
    try:
        return games_file.load(path, _folder_identity(Path(path))).records
    except games_file.RecordsError as exc:
        raise TrialError(str(exc)) from None


def read_identity(path: Path) -> dict[str, Any] | None:
    """The trial configuration saved in `path` (`trial.json`); None when there is none
    or it was cut short; TrialError (one line) when it holds something else."""
    try:
        data = read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise TrialError(f"cannot read {path}: {exc.strerror}") from None
    try:
        ident = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        ident = []  # (refused below)
    except json.JSONDecodeError:
        return None  # cut short by a kill: rewritten
    if not isinstance(ident, dict):
        raise TrialError(f"{path} is not a trial configuration (a JSON object) written by "
                         "this harness: delete it, or choose another hydra.run.dir")
    return ident


@contextlib.contextmanager
def trial_lock(out: Path) -> Iterator[None]:
    """Hold the run folder for this process (`evaluation.store.folder_lock`); a folder another
    run holds is refused with a one-line TrialError."""
    try:
        held = folder_lock(out, "trial")
        held.__enter__()
    except FolderRefused as exc:
        raise TrialError(str(exc)) from None
    except OSError as exc:
        raise TrialError(f"cannot write to the output directory {str(out)!r}: "
                         f"{exc.strerror}") from None
    try:
        yield
    finally:
        held.__exit__(None, None, None)


def check_writable(out: Path) -> None:
    """A one-line TrialError now, rather than after the first game, when `out` cannot be
    written."""
    try:
        probe = out / f".write_test.{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise TrialError(f"cannot write to the output directory {str(out)!r}: {exc.strerror}")


def _trial_identity(cfg: TrialConfig) -> dict[str, Any]:
    """What `trial.json` holds: the options that name the trial (`trial_config.identity`)
    and, under a novelty, its parameters as played (presets get re-tuned)."""
    data = identity(cfg)
    if cfg.novelty is not None:
        data["novelty_preset"] = _preset_played(cfg)
    return data


def _preset_played(cfg: TrialConfig) -> dict[str, Any] | list[dict[str, Any]]:
    """The novelty's parameters after its preset and overrides (with `then`: one per
    novelty, in order)."""
    from novelties.registry import load_novelty

    played = [load_novelty(*spec)[1].model_dump(mode="json")
              for spec in novelty_specs(str(cfg.novelty), cfg.difficulty, cfg.novelty_params,
                                        cfg.then)]
    return played[0] if len(played) == 1 else played


def _identity_for(cfg: TrialConfig, old: dict[str, Any] | None) -> dict[str, Any]:
    """The identity to compare with a folder's `old` one: a folder from before presets
    were recorded is compared, and kept, without them."""
    ident = _trial_identity(cfg)
    if old is not None and "novelty_preset" not in old:
        ident.pop("novelty_preset", None)
    return ident


def _check_same_trial(cfg: TrialConfig, out: Path) -> dict[str, Any]:
    """A run directory holds one trial: resuming with another config would mix results.
    Returns the identity its trial.json holds (written now if missing)."""
    path = out / CONFIG_FILE
    old = read_identity(path)
    ident = _identity_for(cfg, old)
    if old is not None and old != ident:
        diff = sorted(k for k in ident if old.get(k) != ident[k])
        why = (" (the novelty's preset was re-tuned since it ran)"
               if diff == ["novelty_preset"] else "")
        raise TrialError(
            f"{out} holds a trial with a different configuration ({', '.join(diff)} "
            f"differ{why}); choose another hydra.run.dir or delete that directory")
    text = json.dumps(ident, indent=2, sort_keys=True) + "\n"
    try:
        same = path.read_text(encoding="utf-8") == text
    except (OSError, ValueError):
        same = False
    if not same:
        atomic_write(path, text)
    return json.loads(text)


def _recorded(cfg: TrialConfig, path: Path, identity: dict[str, Any]) -> Any:
    """The trial's games.jsonl, checked and repaired (`evaluation.store.records`); `identity`
    is what its trial.json holds (the chain starts from it)."""
    try:
        found = games_file.load(path, identity)
    except games_file.RecordsError as exc:
        raise TrialError(str(exc)) from None
    if len(found.records) > cfg.games:
        raise TrialError(f"{path} already holds {len(found.records)} games, more than "
                         f"games={cfg.games}; use a new output directory")
    if found.repairs:
        # Atomically (temp file, fsync, rename): a kill now leaves the old file or the new.
        atomic_write(path, found.data())
        print(f"repaired {path}: {'; '.join(found.repairs)}", file=sys.stderr)
    if found.legacy:
        print(f"warning: {path} has no digests (written by an older openmono): its records "
              "are used as they are, unchecked, and new ones are added without digests",
              file=sys.stderr)
    return found


def complete_summary(cfg: TrialConfig, out_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The summary of this very trial when `out_dir` already holds all its games."""
    out = Path(out_dir)
    try:
        ident = json.loads(read_regular(out / CONFIG_FILE).decode("utf-8"))
        summary = json.loads(read_regular(out / SUMMARY_FILE).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if ident != _identity_for(cfg, ident) or summary.get("games") != cfg.games:
        return None
    try:
        if len(read_records(out / GAMES_FILE)) != cfg.games:
            return None
    except TrialError:  # the run says what is wrong with the file, in one line
        return None
    return summary
