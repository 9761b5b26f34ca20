"""Rates and their 95% intervals: Wilson for a proportion, the percentile bootstrap
for a mean; deterministic for a given seed."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

Z95 = 1.959963984540054  # the normal quantile of 0.975, as scipy computes it


def _rate(wins: int, games: int) -> float | None:
    """wins / games; None for no games."""
    return wins / games if games else None


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
