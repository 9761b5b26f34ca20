"""The measures over many trials: per-trial summaries (`metrics.summarize_trial`)
pooled into rates with 95% intervals, NRP pooled over trials with a bootstrap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evaluation.measures.intervals import _rate, bootstrap_ci, wilson_interval


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
