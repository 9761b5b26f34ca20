"""The SAIL-ON measures, computed from the per-game records of a trial.

Pure functions over plain data, so they can be unit-tested on hand-made sequences and
re-run on any `games.jsonl` after the fact. A record is a dict with at least `game`
(0-based index), `seed`, `won` (the evaluated agent won), `novelty_active` and `report`
(the agent's `novelty_report()` after that game, as JSON: `detected`, `confidence`,
`changes`). `injected_at` is the index of the first game played with the novelty, or
None for a control trial.

Conventions (chosen here; every "undefined" value is None, never inf or NaN):

- Pre-novelty games are the games with index < `injected_at`; post-novelty games the
  rest. In a control trial every game is pre-novelty and there are no post games.
- The agent "reports" the novelty in game g when the report recorded after game g has
  `detected` true. Reports are read after each game, so a report after the injection
  game itself counts as detection with delay 0.
- NDA (one trial) is 1 when the first report is at or after `injected_at` (hence no
  report before it), else 0; None for a control trial. False positive (one trial) is 1
  when the first report is before `injected_at`; in a control trial any report is one.
- Detection delay is `first report - injected_at` for correctly detected trials only
  (NDA == 1); None otherwise (not detected, false positive, control).
- NRP = agent's post-novelty win rate / reference agent's pre-novelty win rate. The
  reference's pre-novelty games are its records with `novelty_active` false (so a
  reference run played without any novelty uses all its games; one played with the
  same injection uses the games before it). Per trial it is None when either rate is
  undefined or the reference won no pre-novelty game (a ratio over zero would be
  infinite). Over several trials, NRP is *pooled*: all post-novelty wins over all
  post-novelty games, divided by all reference pre-novelty wins over all reference
  pre-novelty games, with a bootstrap interval over trials. (The mean of per-trial
  ratios is biased upwards - a ratio of small-sample rates - and silently loses the
  trials where the reference won nothing; it is still reported as `nrp_trial_mean`,
  with `nrp_trial_undefined` counting the trials it cannot include.)
- NDA comes in two forms: `nda` (first report at or after the injection, none before)
  and `nda_characterized` (that, and the report after the last game names at least one
  changed entity and attribute of the ground truth; values are not required).
- Characterization is scored on the report after the last game of the trial (the
  agent's final, best-informed account); see `characterization_scores`.

This module holds the measures of one trial; characterization (`characterization`),
rates' intervals (`intervals`) and the pooling over trials (`pooled`) have their own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# The measures' one public face (docs/api.md): characterization and the pooled measures
# over trials live in their own modules and are named here too.
from evaluation.measures.characterization import (VALUE_ABS_TOL, VALUE_REL_TOL,  # noqa: F401
                                                  _field, change_matches,
                                                  characterization_scores,
                                                  final_report_changes, names_a_true_change)
from evaluation.measures.intervals import Z95, _rate, bootstrap_ci, wilson_interval  # noqa: F401
from evaluation.measures.pooled import aggregate, pooled_nrp  # noqa: F401

Record = Mapping[str, Any]


# ---------------------------------------------------------------------------- helpers


def _check_records(records: Sequence[Record], injected_at: int | None) -> None:
    """Reject inputs that would silently give wrong measures."""
    if injected_at is not None and (isinstance(injected_at, bool) or injected_at < 0):
        raise ValueError(f"injected_at must be a game index >= 0 or None, got {injected_at!r}")
    previous = -1
    for rec in records:
        game = rec["game"]
        if game <= previous:
            raise ValueError(
                f"records must be in increasing game order; game {game} after {previous}"
            )
        previous = game
        active = rec.get("novelty_active")
        if active is None:
            continue
        expected = injected_at is not None and game >= injected_at
        if bool(active) != expected:
            raise ValueError(
                f"game {game}: novelty_active={active} disagrees with injected_at={injected_at}"
            )


def is_detected(record: Record) -> bool:
    """Whether the report recorded after this game says a novelty was detected."""
    report = record.get("report")
    return bool(report is not None and _field(report, "detected", False))


# ------------------------------------------------------------------------- win rates


def split_games(
    records: Sequence[Record], injected_at: int | None
) -> tuple[list[Record], list[Record]]:
    """(pre-novelty records, post-novelty records); a control trial is all pre."""
    if injected_at is None:
        return list(records), []
    pre = [r for r in records if r["game"] < injected_at]
    post = [r for r in records if r["game"] >= injected_at]
    return pre, post


def win_rate(records: Iterable[Record]) -> float | None:
    """Share of the given games the evaluated agent won; None for no games."""
    recs = list(records)
    return _rate(sum(bool(r["won"]) for r in recs), len(recs))


def pnwp(records: Sequence[Record], injected_at: int | None) -> float | None:
    """Pre-novelty win percentage (as a fraction); None when there are no pre games."""
    return win_rate(split_games(records, injected_at)[0])


def post_win_rate(records: Sequence[Record], injected_at: int | None) -> float | None:
    """Win rate from the injection game on; None for a control trial or no post games."""
    return win_rate(split_games(records, injected_at)[1])


# ------------------------------------------------------------------------- detection


def first_detection(records: Sequence[Record]) -> int | None:
    """Index of the first game whose report says detected, or None."""
    for rec in records:
        if is_detected(rec):
            return int(rec["game"])
    return None


def nda(records: Sequence[Record], injected_at: int | None) -> int | None:
    """1 if first reported at or after injection (so no earlier report), else 0;
    None for a control trial."""
    if injected_at is None:
        return None
    first = first_detection(records)
    return int(first is not None and first >= injected_at)


def false_positive(records: Sequence[Record], injected_at: int | None) -> int:
    """1 if the agent reported a novelty before it existed (any report in a control trial)."""
    first = first_detection(records)
    if first is None:
        return 0
    return int(injected_at is None or first < injected_at)


def detection_delay(records: Sequence[Record], injected_at: int | None) -> int | None:
    """Games from injection to first report, for correctly detected trials only."""
    if not nda(records, injected_at):
        return None
    return first_detection(records) - injected_at  # type: ignore[operator]


# ------------------------------------------------------------------------------- NRP


def reference_pre_games(
    reference_records: Sequence[Record], injected_at: int | None
) -> list[Record]:
    """The reference agent's games without the novelty (see module doc)."""
    pre = []
    for rec in reference_records:
        active = rec.get("novelty_active")
        if active is None:  # no flag stored: fall back to the trial's injection game
            active = injected_at is not None and rec["game"] >= injected_at
        if not active:
            pre.append(rec)
    return pre


def reference_pre_win_rate(
    reference_records: Sequence[Record], injected_at: int | None
) -> float | None:
    """Reference agent's win rate over its games without the novelty (see module doc)."""
    return win_rate(reference_pre_games(reference_records, injected_at))


def _check_common_seeds(records: Sequence[Record], reference_records: Sequence[Record]) -> None:
    """NRP relies on common random numbers: the same game index must use the same seed."""
    seeds = {r["game"]: r.get("seed") for r in records}
    for ref in reference_records:
        mine = seeds.get(ref["game"])
        theirs = ref.get("seed")
        if mine is not None and theirs is not None and mine != theirs:
            raise ValueError(
                f"game {ref['game']}: seed {mine} differs from reference seed {theirs}"
            )


def nrp(
    records: Sequence[Record], injected_at: int | None, reference_records: Sequence[Record]
) -> float | None:
    """Novelty reaction performance; None when undefined (no post games, no reference
    pre-novelty games, or no reference pre-novelty wins: the ratio would be infinite)."""
    _check_common_seeds(records, reference_records)
    post = post_win_rate(records, injected_at)
    ref = reference_pre_win_rate(reference_records, injected_at)
    if post is None or not ref:
        return None
    return post / ref


# ---------------------------------------------------------------------- one trial


def summarize_trial(
    records: Sequence[Record],
    injected_at: int | None,
    reference_records: Sequence[Record] | None = None,
    ground_truth: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """All per-trial measures plus the counts `aggregate` pools over trials."""
    _check_records(records, injected_at)
    pre, post = split_games(records, injected_at)
    first = first_detection(records)
    final = final_report_changes(records)
    accuracy, precision = characterization_scores(ground_truth, final)
    detected = nda(records, injected_at)
    ref_pre = (None if reference_records is None
               else reference_pre_games(reference_records, injected_at))
    return {
        "games": len(records),
        "injected_at": injected_at,
        "control": injected_at is None,
        "pre_games": len(pre),
        "post_games": len(post),
        "pre_wins": sum(bool(r["won"]) for r in pre),
        "post_wins": sum(bool(r["won"]) for r in post),
        "pnwp": win_rate(pre),
        "post_win_rate": win_rate(post),
        "first_detection": first,
        "nda": detected,
        "nda_characterized": (None if detected is None else
                              int(bool(detected) and names_a_true_change(ground_truth, final))),
        "false_positive_rate": false_positive(records, injected_at),
        "detection_delay": detection_delay(records, injected_at),
        "nrp": None if reference_records is None else nrp(records, injected_at, reference_records),
        "ref_pre_wins": None if ref_pre is None else sum(bool(r["won"]) for r in ref_pre),
        "ref_pre_games": None if ref_pre is None else len(ref_pre),
        "characterization_accuracy": accuracy,
        "characterization_precision": precision,
    }
