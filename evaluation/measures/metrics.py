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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

Record = Mapping[str, Any]

# Relative tolerance for a reported numeric value to count as the ground-truth value.
VALUE_REL_TOL = 0.1
VALUE_ABS_TOL = 1e-9


# ---------------------------------------------------------------------------- helpers


def _field(obj: Any, name: str, default: Any = None) -> Any:
    """Read `name` from a mapping or an object (dataclass changes, report objects)."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _new_value(change: Any) -> Any:
    """The changed-to value: agents report `new_value`; plugins' ground truth says `new`."""
    value = _field(change, "new_value")
    return _field(change, "new") if value is None else value


def _rate(wins: int, games: int) -> float | None:
    return wins / games if games else None


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


# ------------------------------------------------------------------ characterization


def _values_match(reported: Any, truth: Any, rel_tol: float, abs_tol: float) -> bool:
    """Numbers within |r - t| <= rel_tol*|t| + abs_tol; sequences and mappings element
    by element (same length / same keys); anything else (str, bool, None) by equality."""
    if isinstance(truth, bool) or isinstance(reported, bool):
        return type(truth) is type(reported) and truth == reported
    if isinstance(truth, Real) and isinstance(reported, Real):
        return abs(float(reported) - float(truth)) <= rel_tol * abs(float(truth)) + abs_tol
    if isinstance(truth, Mapping) and isinstance(reported, Mapping):
        return set(truth) == set(reported) and all(
            _values_match(reported[k], truth[k], rel_tol, abs_tol) for k in truth
        )
    seq = (list, tuple)
    if isinstance(truth, seq) and isinstance(reported, seq):
        return len(truth) == len(reported) and all(
            _values_match(r, t, rel_tol, abs_tol) for r, t in zip(reported, truth)
        )
    return reported == truth


def change_matches(
    reported: Any, truth: Any, rel_tol: float = VALUE_REL_TOL, abs_tol: float = VALUE_ABS_TOL
) -> bool:
    """A reported change matches a ground-truth change when entity and attribute are equal
    (as strings) and, if the agent gave a `new_value` (not None), it matches the true new
    value within the tolerance. Reporting only entity and attribute is a match."""
    if str(_field(reported, "entity")) != str(_field(truth, "entity")):
        return False
    if str(_field(reported, "attribute")) != str(_field(truth, "attribute")):
        return False
    value = _new_value(reported)
    return value is None or _values_match(value, _new_value(truth), rel_tol, abs_tol)


def characterization_scores(
    ground_truth: Sequence[Any] | None,
    reported: Sequence[Any] | None,
    *,
    visible_only: bool = False,
    rel_tol: float = VALUE_REL_TOL,
    abs_tol: float = VALUE_ABS_TOL,
) -> tuple[float | None, float | None]:
    """(accuracy, precision) of a reported characterization against the ground truth.

    Reported and true changes are paired one-to-one (a maximum matching over
    `change_matches`, so a repeated report cannot be counted twice). accuracy =
    matched / ground-truth changes (recall); precision = matched / reported changes.
    Both are None when nothing was reported; accuracy is also None when there is no
    ground truth (control trial). `visible_only` scores only changes agents can observe.
    """
    reported = list(reported or [])
    if not reported:
        return None, None
    truth = [t for t in (ground_truth or []) if not visible_only or _field(t, "visible", True)]
    if not truth:
        return None, 0.0
    fits = np.array(
        [[change_matches(r, t, rel_tol, abs_tol) for t in truth] for r in reported], dtype=float
    )
    rows, cols = linear_sum_assignment(fits, maximize=True)
    matched = int(fits[rows, cols].sum())
    return matched / len(truth), matched / len(reported)


def final_report_changes(records: Sequence[Record]) -> list[Any]:
    """Changes listed in the report after the last game (empty if none)."""
    if not records:
        return []
    report = records[-1].get("report")
    return list(_field(report, "changes", None) or []) if report is not None else []


# ---------------------------------------------------------------------- one trial


def names_a_true_change(ground_truth: Sequence[Any] | None,
                        reported: Sequence[Any] | None) -> bool:
    """Whether some reported change names the entity and attribute of a true change."""
    return any(change_matches({"entity": _field(r, "entity"), "attribute": _field(r, "attribute")},
                              t)
               for r in (reported or []) for t in (ground_truth or []))


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


# ------------------------------------------------------------------- intervals


Z95 = 1.959963984540054  # the normal quantile of 0.975, as scipy computes it


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for a binomial proportion; None when n == 0.

    Preferred to the normal interval because it stays inside [0, 1] and is not
    degenerate at 0 or n successes, which small trials hit often.
    """
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError(f"need 0 <= successes <= n, got {successes}/{n}")
    if n == 0:
        return None
    # scipy's binomtest(k, n).proportion_ci(method="wilson") to 1e-9 (tests/test_metrics.py
    # checks it); the closed form because importing scipy.stats would add a second, about
    # a tenth, to the default trial, whose report needs only this interval.
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def bootstrap_ci(
    values: Sequence[float],
    stat: Callable[[np.ndarray], float] = np.mean,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of `stat` (scipy.stats.bootstrap); deterministic
    for a given seed.

    None for no values; a single value gives a zero-width interval (scipy needs two).
    `stat` takes an array and an `axis`, as numpy's reductions do.
    """
    data = np.asarray([float(v) for v in values], dtype=float)
    if data.size == 0:
        return None
    if data.size == 1 or np.all(data == data[0]):
        return float(data[0]), float(data[0])
    from scipy.stats import bootstrap  # (importing scipy.stats costs a second: on first use)

    ci = bootstrap((data,), stat, n_resamples=n_boot, confidence_level=level,
                   method="percentile", rng=np.random.default_rng(seed),
                   vectorized=True).confidence_interval
    return float(ci.low), float(ci.high)


# ------------------------------------------------------------------- over trials


def _rate_entry(out: dict[str, Any], key: str, successes: int, n: int) -> None:
    ci = wilson_interval(successes, n)
    out[key] = _rate(successes, n)
    out[f"{key}_lo"], out[f"{key}_hi"] = ci if ci else (None, None)
    out[f"{key}_n"] = n


def _mean_entry(out: dict[str, Any], key: str, values: list[float], seed: int) -> None:
    ci = bootstrap_ci(values, seed=seed)
    out[key] = float(np.mean(values)) if values else None
    out[f"{key}_lo"], out[f"{key}_hi"] = ci if ci else (None, None)
    out[f"{key}_n"] = len(values)


def pooled_nrp(trials: Sequence[Mapping[str, Any]]) -> float | None:
    """(sum post wins / sum post games) / (sum reference pre wins / sum reference pre
    games); None when either rate is undefined or the reference won nothing."""
    post_games = sum(t["post_games"] for t in trials)
    ref_games = sum(t["ref_pre_games"] for t in trials)
    ref_wins = sum(t["ref_pre_wins"] for t in trials)
    if not post_games or not ref_games or not ref_wins:
        return None
    return (sum(t["post_wins"] for t in trials) / post_games) / (ref_wins / ref_games)


def _pooled_nrp(out: dict[str, Any], summaries: Sequence[Mapping[str, Any]], seed: int,
                n_boot: int = 2000) -> None:
    """Pooled NRP over the novelty trials with a reference, a percentile bootstrap over
    those trials (resamples whose reference won nothing are undefined and counted in
    `nrp_boot_undefined`), and the per-trial mean with its undefined trials counted."""
    trials = [s for s in summaries if s.get("ref_pre_games") is not None and s["nda"] is not None]
    out["nrp"] = pooled_nrp(trials)
    out["nrp_n"] = len(trials)
    out["nrp_lo"] = out["nrp_hi"] = None
    out["nrp_boot_undefined"] = 0
    if trials and out["nrp"] is not None:
        arr = np.array([[t["post_wins"], t["post_games"], t["ref_pre_wins"], t["ref_pre_games"]]
                        for t in trials], dtype=float)
        # By hand, not scipy.stats.bootstrap: a resample whose reference never won has no
        # ratio, and scipy's percentiles would turn the whole interval into NaN.
        idx = np.random.default_rng(seed).integers(0, len(trials), size=(n_boot, len(trials)))
        sums = arr[idx].sum(axis=1)  # (n_boot, 4)
        ok = (sums[:, 1] > 0) & (sums[:, 2] > 0) & (sums[:, 3] > 0)
        ratios = (sums[ok, 0] / sums[ok, 1]) / (sums[ok, 2] / sums[ok, 3])
        out["nrp_boot_undefined"] = int((~ok).sum())
        if ratios.size:
            lo, hi = np.percentile(ratios, [2.5, 97.5])
            out["nrp_lo"], out["nrp_hi"] = float(lo), float(hi)
    per_trial = [s["nrp"] for s in trials if s.get("nrp") is not None]
    _mean_entry(out, "nrp_trial_mean", per_trial, seed)
    out["nrp_trial_undefined"] = len(trials) - len(per_trial)


def aggregate(summaries: Sequence[Mapping[str, Any]], seed: int = 0) -> dict[str, Any]:
    """Pool per-trial summaries into rates with 95% intervals.

    Each measure X gives keys X, X_lo, X_hi, X_n (the count it is over). NDA is over
    novelty trials and the false-positive rate over all trials (Wilson intervals); PNWP
    and post win rate are pooled over games (Wilson); NRP is pooled over the novelty
    trials with a reference (`pooled_nrp`, bootstrap over trials); detection delay is a
    mean over the detected trials (percentile bootstrap); characterization
    accuracy and precision are plain means over trials where they are defined.
    """
    summaries = list(summaries)
    out: dict[str, Any] = {
        "trials": len(summaries),
        "novelty_trials": sum(s["nda"] is not None for s in summaries),
        "control_trials": sum(s["nda"] is None for s in summaries),
    }
    ndas = [int(s["nda"]) for s in summaries if s["nda"] is not None]
    _rate_entry(out, "nda", sum(ndas), len(ndas))
    chars = [int(s["nda_characterized"]) for s in summaries
             if s.get("nda_characterized") is not None]
    _rate_entry(out, "nda_characterized", sum(chars), len(chars))
    false_pos = sum(int(s["false_positive_rate"]) for s in summaries)
    _rate_entry(out, "false_positive_rate", false_pos, len(summaries))
    for key, wins, games in (("pnwp", "pre_wins", "pre_games"),
                             ("post_win_rate", "post_wins", "post_games")):
        _rate_entry(out, key, sum(s[wins] for s in summaries), sum(s[games] for s in summaries))
    _pooled_nrp(out, summaries, seed)
    _mean_entry(out, "detection_delay",
                [s["detection_delay"] for s in summaries if s.get("detection_delay") is not None],
                seed)
    for key in ("characterization_accuracy", "characterization_precision"):
        vals = [s[key] for s in summaries if s.get(key) is not None]
        out[key] = float(np.mean(vals)) if vals else None
        out[f"{key}_n"] = len(vals)
    return out
