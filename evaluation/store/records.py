"""The `games.jsonl` format: one canonical JSON line per game, each chained to the last.

Every line is a game's record as canonical JSON (sorted keys, no spaces) plus a
`digest`: sha256 over the previous line's digest and the record's canonical JSON (without
its digest), from a first digest that is the hash of the trial's whole configuration
(`trial.json`, canonical: `chain_start`). A record edited, removed or reordered breaks
the chain at a line `load` names, and so does an edited `trial.json` (at line 1); a
record from another trial is caught by its seed, which must be the game's seed in this
trial. The chain is not keyed: it catches edits and accidents, but someone who rewrites
the whole file can recompute it (docs/architecture.md).

A record is a function of the trial's configuration and seeds, so its digest is too: a
killed and resumed trial writes the same bytes as one that ran straight through, and
the same games give the same file however the command spelled the configuration
(`trial.json` is canonical).

Older format: files written before issue 52 chain from a constant (`CHAIN_START`), so
their `trial.json` is not bound. `load` recognises them by line 1 (`Games.older`); a
resume continues them in their format, and `verify` says which format it checked.

`load` also checks the sequence (game 0, 1, 2, ... with no gap or repeat) and sorts what
it finds into what is safely repairable (an incomplete last line left by a kill, a line
repeated exactly) and what is refused, in one line naming the file and the line.
Files written before digests existed (no line has one) load as `legacy`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openmono.seeding import game_seed

from evaluation.store.atomic import read_regular

CHAIN_TAG = "openmono games.jsonl v1\n"


class RecordsError(ValueError):
    """A games.jsonl that cannot be trusted as it stands; the message is one line."""


def canonical(value: Any) -> str:
    """The one JSON text of a value: what is written and what is digested."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


CHAIN_START = hashlib.sha256(CHAIN_TAG.encode()).hexdigest()  # the older format's start
CHAIN_TAG_V2 = "openmono games.jsonl v2\n"


# How the seats ran, not which games: an isolated or remote run writes the same records
# as one in process, so the same bytes (tests/test_isolate.py).
HOW_IT_RAN = ("isolate", "isolate_budget", "remote")


def chain_start(identity: dict[str, Any]) -> str:
    """The first digest of a trial's chain: the hash of its configuration (all of
    `trial.json` but `HOW_IT_RAN`), so that an edit of `trial.json` (agent, difficulty,
    ...) breaks the chain at line 1."""
    games = {k: v for k, v in identity.items() if k not in HOW_IT_RAN}
    return hashlib.sha256((CHAIN_TAG_V2 + canonical(games)).encode()).hexdigest()


def digest(previous: str, record: dict[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k != "digest"}
    return hashlib.sha256((previous + "\n" + canonical(body)).encode()).hexdigest()


def line(record: dict[str, Any], previous: str | None) -> tuple[str, str | None]:
    """(the line to write, the new head); `previous` None: a legacy file, no digest."""
    body = {k: v for k, v in record.items() if k != "digest"}
    if previous is None:
        return canonical(body) + "\n", None
    head = digest(previous, body)
    return canonical({**body, "digest": head}) + "\n", head


@dataclass
class Games:
    """A checked games.jsonl: its records, their lines, and what a resume must repair."""

    path: Path
    records: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    start: str | None = None  # the chain's first digest; None: digests not checked
    legacy: bool = False  # written before digests: nothing to check
    older: bool = False  # chained from CHAIN_START (before issue 52): trial.json not bound
    repairs: list[str] = field(default_factory=list)  # what was dropped (torn, repeated)
    torn: bool = False  # the last line was incomplete

    @property
    def head(self) -> str | None:
        """The digest the next line chains from (None: no digests in this file)."""
        if self.legacy:
            return None
        return self.records[-1].get("digest") if self.records else self.start

    def before(self, index: int) -> str | None:
        """The digest game `index`'s line chains from."""
        if self.legacy:
            return None
        return self.records[index - 1].get("digest") if index else self.start

    def data(self) -> bytes:
        return "".join(self.lines).encode("utf-8")


def _parse(path: Path, number: int, raw: bytes) -> dict[str, Any]:
    try:
        record = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        record = None
    if not isinstance(record, dict) or type(record.get("game")) is not int:
        raise RecordsError(f"{path} line {number} is not a JSON record of a game; the file was "
                           "damaged or edited: restore it, or delete the folder to play the "
                           "trial again")
    return record


def load(path: str | Path, identity: dict[str, Any] | None) -> Games:
    """Read and check `path` (missing: no games). `identity` is the trial's configuration
    as `trial.json` holds it (the chain starts from it; the seeds are checked against its
    `seed`); None checks the sequence only. Raises `RecordsError`."""
    path = Path(path)
    games = Games(path, start=None if identity is None else chain_start(identity))
    trial_seed = identity.get("seed") if identity is not None else None
    try:  # a link or a special file (/dev/zero, a FIFO) is refused, never read
        data = read_regular(path)
    except FileNotFoundError:
        return games
    except OSError as exc:
        raise RecordsError(f"cannot read {path}: {exc.strerror}") from None
    pieces = data.split(b"\n")
    if pieces[-1]:
        games.torn = True
        games.repairs.append(f"dropped the incomplete last line {len(pieces)} (a run killed "
                             "while writing it)")
    previous_raw = None
    for number, raw in enumerate(pieces[:-1], start=1):
        record = _parse(path, number, raw)
        if _repeated(games, path, number, record, raw == previous_raw):
            continue
        _check_line(games, path, number, record, trial_seed)
        games.records.append(record)
        games.lines.append(raw.decode("utf-8") + "\n")
        previous_raw = raw
    return games


def _repeated(games: Games, path: Path, number: int, record: dict[str, Any],
              same_as_previous: bool) -> bool:
    """Whether line `number` is an exact repeat of the line before (dropped, and noted
    as a repair); a record out of its place otherwise raises."""
    game, expected = record["game"], len(games.records)
    if game == expected:
        return False
    if same_as_previous:
        games.repairs.append(f"dropped line {number}, an exact repeat of line "
                             f"{number - 1}")
        return True
    if game < expected:
        raise RecordsError(f"{path} line {number} holds game {game} again (expected "
                           f"game {expected}) and differs from its first record: "
                           "two runs wrote into this folder, or it was edited")
    raise RecordsError(f"{path} line {number} holds game {game}, expected game "
                       f"{expected}: game {expected} is missing (lines removed or "
                       "reordered)")


def _check_line(games: Games, path: Path, number: int, record: dict[str, Any],
                trial_seed: Any) -> None:
    """The record in its place: digests in every line or none, this trial's seed, and
    its digest chained from the line before (or from trial.json)."""
    game, expected = record["game"], len(games.records)
    has = "digest" in record
    if number == 1 and not has:
        games.legacy = True
    elif games.legacy and has:
        raise RecordsError(f"{path} line {number} (game {game}) has a digest but the lines "
                           "before it have none: lines were mixed in from elsewhere")
    elif not games.legacy and not has:
        raise RecordsError(f"{path} line {number} (game {game}) has no digest but the lines "
                           "before it have: it was edited or mixed in from elsewhere")
    if type(trial_seed) is int and record.get("seed") != game_seed(trial_seed, game):
        raise RecordsError(f"{path} line {number} (game {game}) holds seed "
                           f"{record.get('seed')!r}, not this trial's game {game} seed: "
                           "the record came from another trial or was edited")
    if has and games.start is not None:
        if not games.records and record["digest"] == digest(CHAIN_START, record) and (
                record["digest"] != digest(games.start, record)):
            games.start, games.older = CHAIN_START, True  # the older format's start
        want = digest(games.before(expected), record)  # type: ignore[arg-type]
        if record["digest"] != want:
            what = ("the record or trial.json (the chain starts from it) was changed"
                    if not games.records else "the record was changed")
            raise RecordsError(
                f"{path} line {number} (game {game}): its digest does not match: "
                f"{what} after it was written; restore the file, or delete "
                "the folder to play the trial again")
