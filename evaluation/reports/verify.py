"""`python -m evaluation.verify DIR...`: are these results as they were written?

For every trial folder given (or found under a sweep folder) it checks `games.jsonl`
against its digest chain (`evaluation.store.records`: game order, no gap or repeat, every
record's digest from the trial's configuration, `trial.json`, on) and every field of
`summary.json` against the same measures recomputed from the records and `trial.json`
(`evaluation.harness.summary.expected_summary`; not the wall time nor remote servers' refusal
counts, which no record holds). A folder holding a link or a special file is refused
without following or reading it. One line per trial:

    ok: DIR: 100 games, digest chain intact from trial.json, summary.json matches every measure
    tampered: DIR/games.jsonl line 3 (game 2): its digest does not match: ...
    tampered: DIR/summary.json says nda=1, the records and trial.json give 0

Exit 0 when every trial checks out, 1 when one does not (edited, repeated or missing
lines, a summary that does not match, or no digests at all: a file written before
digests, or stripped of them, cannot be shown intact), 2 on bad input (no such folder,
no games.jsonl under it, no readable trial.json). The chain is not keyed: it shows that
nobody changed the file by hand without recomputing every later digest, not who wrote it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import Field

from openmono_cli import Options, read_options

from evaluation.store.atomic import read_regular
from evaluation.store.folder_lock import unsafe_entry
from evaluation.store.records import RecordsError, canonical, load
from evaluation.harness.summary import NOT_FROM_RECORDS, expected_summary
from evaluation.harness.trial_config import TrialError
from evaluation.harness.trial_folder import CONFIG_FILE, GAMES_FILE, SUMMARY_FILE

OK, TAMPERED, BAD_INPUT = 0, 1, 2


def check_trial(folder: Path) -> tuple[int, str]:
    """(exit code, one line) for one trial folder."""
    problem = unsafe_entry(folder)  # a link or a FIFO is never followed (or read)
    if problem:
        return TAMPERED, f"unsafe: {problem}"
    try:
        identity = json.loads(read_regular(folder / CONFIG_FILE).decode("utf-8"))
        if not isinstance(identity, dict):
            raise ValueError("not an object")
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not a JSON object"
        return BAD_INPUT, f"error: {folder / CONFIG_FILE}: {why} (the chain starts from it)"
    try:
        games = load(folder / GAMES_FILE, identity)
    except RecordsError as exc:
        return TAMPERED, f"tampered: {exc}"
    repeated = [r for r in games.repairs if "repeat" in r]
    if repeated:
        return TAMPERED, f"tampered: {folder / GAMES_FILE}: {repeated[0]}"
    if games.legacy:
        return TAMPERED, (f"unchecked: {folder / GAMES_FILE} has no digests (written by an "
                          "older openmono, or stripped of them): it cannot be shown intact")
    n = len(games.records)
    note = "; its last line is incomplete (a killed run: resuming drops it)" if games.torn else ""
    try:
        summary = json.loads(read_regular(folder / SUMMARY_FILE).decode("utf-8"))
    except FileNotFoundError:
        return OK, f"ok: {folder}: {n} games, digest chain intact (no summary.json yet){note}"
    except (OSError, ValueError):
        return TAMPERED, f"tampered: {folder / SUMMARY_FILE} is not readable JSON"
    if not isinstance(summary, dict):
        return TAMPERED, f"tampered: {folder / SUMMARY_FILE} is not a JSON object"
    try:
        want = expected_summary(identity, games.records, games.head)
    except (TrialError, TypeError, ValueError, KeyError) as exc:
        return BAD_INPUT, f"error: {folder}: cannot recompute its measures: {exc}"
    for key in sorted(set(want) | set(summary)):
        if key in NOT_FROM_RECORDS:
            continue
        if key not in summary:
            if games.older:  # an older summary may lack a field added since
                continue
            return TAMPERED, f"tampered: {folder / SUMMARY_FILE} lacks {key}"
        if key not in want:
            return TAMPERED, (f"tampered: {folder / SUMMARY_FILE} holds {key}, which no "
                              "record gives")
        if canonical(summary[key]) != canonical(want[key]):
            maybe = (" (or an older openmono measured it otherwise)" if games.older else "")
            return TAMPERED, (f"tampered: {folder / SUMMARY_FILE} says {key}="
                              f"{_short(summary[key])}, the records and trial.json give "
                              f"{_short(want[key])}{maybe}")
    kind = ("digest chain intact (older format: from before trial.json was chained, so "
            "trial.json is checked only against the seeds and the summary)" if games.older
            else "digest chain intact from trial.json")
    return OK, f"ok: {folder}: {n} games, {kind}, summary.json matches every measure{note}"


def _short(value: object) -> str:
    text = canonical(value)
    return text if len(text) <= 60 else text[:57] + "..."


def trial_folders(root: Path) -> list[Path]:
    if (root / GAMES_FILE).exists():
        return [root]
    return sorted({p.parent for p in root.rglob(GAMES_FILE)})


class VerifyOptions(Options):
    """Check that saved trials are what their runs wrote (exit 1: a record was changed)."""

    positional = ("dirs",)
    dirs: list[str] = Field(min_length=1, description="trial or sweep folders")


def main(argv: list[str] | None = None) -> int:
    opts = read_options(VerifyOptions, argv, "python -m evaluation.verify")
    if isinstance(opts, int):
        return opts
    worst = OK
    for arg in opts.dirs:
        root = Path(arg)
        if not root.is_dir():
            print(f"error: no such folder: {arg}", file=sys.stderr)
            return BAD_INPUT
        folders = trial_folders(root)
        if not folders:
            print(f"error: no {GAMES_FILE} in {arg} or below it", file=sys.stderr)
            return BAD_INPUT
        for folder in folders:
            code, text = check_trial(folder)
            print(text, file=sys.stderr if code == BAD_INPUT else sys.stdout)
            worst = TAMPERED if TAMPERED in (worst, code) else max(worst, code)
    return worst


if __name__ == "__main__":
    sys.exit(main())
