"""95% intervals for the measures of one trial, computed from its `summary.json`.

`summary.json` holds the counts (wins and games before and after the injection, the
reference's), so every output can show how much a trial's number can be trusted
without a field the chain (`evaluation.verify`) would have to bind. Win rates get Wilson
intervals. NRP, a ratio of two win rates, gets a conservative interval: both rates'
97.5% Wilson intervals hold together with probability at least 95%, and the ratio then
lies between the lower bound over the upper one and the upper over the lower; it is
open above (None) when the reference's interval reaches 0.
"""

from __future__ import annotations

from typing import Any, Mapping

from evaluation.measures.intervals import wilson_interval

Z975 = 2.241402727604947  # the normal quantile of 1 - 0.025 / 2: each rate at 97.5%

# (measure, wins key, games key) of the win rates a summary holds
RATES = (("pnwp", "pre_wins", "pre_games"),
         ("post_win_rate", "post_wins", "post_games"),
         ("win_rate", "wins", "games"),
         ("ref_pnwp", "ref_pre_wins", "ref_pre_games"))


def _counts(summary: Mapping[str, Any], wins: str, games: str) -> tuple[int, int] | None:
    n, k = summary.get(games), summary.get(wins)
    if not isinstance(n, int) or not isinstance(k, int) or n <= 0 or not 0 <= k <= n:
        return None
    return k, n


def rates(summary: Mapping[str, Any]) -> dict[str, float]:
    """The win rates the counts give (the whole trial's and the reference's too)."""
    out = {}
    for key, wins, games in RATES:
        c = _counts(summary, wins, games)
        if c is not None:
            out[key] = c[0] / c[1]
    return out


def nrp_interval(summary: Mapping[str, Any]) -> tuple[float, float | None] | None:
    """(low, high) of NRP, high None when unbounded; None when NRP is undefined."""
    post = _counts(summary, "post_wins", "post_games")
    ref = _counts(summary, "ref_pre_wins", "ref_pre_games")
    if post is None or ref is None or ref[0] == 0:
        return None
    lo1, hi1 = wilson_interval(*post, z=Z975)  # type: ignore[misc]
    lo2, hi2 = wilson_interval(*ref, z=Z975)  # type: ignore[misc]
    return lo1 / hi2, (hi1 / lo2 if lo2 > 0 else None)


def intervals(summary: Mapping[str, Any]) -> dict[str, tuple[float, float | None]]:
    """Each measure's 95% interval that one trial's counts give."""
    out: dict[str, tuple[float, float | None]] = {}
    for key, wins, games in RATES:
        c = _counts(summary, wins, games)
        if c is not None:
            out[key] = wilson_interval(*c)  # type: ignore[assignment]
    nrp = nrp_interval(summary)
    if nrp is not None:
        out["nrp"] = nrp
    return out
