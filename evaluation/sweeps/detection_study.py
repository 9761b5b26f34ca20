"""The detection study of issue 14: several saved sweeps side by side.

    python -m evaluation.detection_study OUT_DIR [OUT_DIR ...]

Each OUT_DIR is the output of one `python -m evaluation.detection_sweep` run (its
`sweep.json`: one agent at one observability level, or control trials only). Prints a
summary (one row per sweep: NDA in both forms, delay, false positives, pooled NRP,
post-novelty win rate, each with its sample size and interval), the same per
measured-detectability band, and then each sweep's own report. The results pages render
the same text from the sweeps saved in docs/data/detection_study/ (`{{ detection_study
DIR ... }}` in docs/data/results/detection.md; `python -m evaluation.results write`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field

from evaluation.measures import detection_bands
from evaluation.sweeps import detection_sweep
from evaluation.measures import metrics
from openmono_cli import Options, read_options

N_BOOT = 2000


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def _ci(agg: dict[str, Any], key: str, pct: bool = True) -> str:
    v = agg.get(key)
    if v is None:
        return "-"
    f = _pct if pct else (lambda x: f"{x:.2f}")
    text = f(v)
    if agg.get(f"{key}_lo") is not None:
        text += f" ({f(agg[f'{key}_lo'])}-{f(agg[f'{key}_hi'])})"
    return text


def _label(saved: dict[str, Any], cells: bool = True) -> tuple[str, str]:
    """(agent, level) of a sweep; a sweep of chosen cells says so (`cells=False`: not)."""
    args = detection_sweep.saved_args(saved)
    novelty = [t for t in saved["trials"] if not detection_bands.is_control(t)]
    level = args.observability if novelty else "controls only"
    chosen = getattr(args, "cells", None)
    if cells and novelty and chosen:
        level += f", cells {','.join(chosen)}"
    return detection_sweep.agent_name(args), level


def delay_spread(trials: list[dict[str, Any]]) -> str:
    """The detected trials' delays as `median [quartiles], max` (games), or `-`."""
    import numpy as np

    delays = [t["detection_delay"] for t in trials
              if t.get("nda") and t.get("detection_delay") is not None]
    if not delays:
        return "-"
    q1, med, q3 = np.percentile(delays, [25, 50, 75])
    return f"{med:g} [{q1:g}–{q3:g}], max {max(delays):g}"


def summary_rows(sweeps: list[dict[str, Any]]) -> str:
    rows = ["| Agent | Novelties | Novelty trials | Games/trial | NDA % (95% CI) | "
            "NDA+char. % (95% CI) | Delay, games: mean (95% CI) | Delay: median "
            "[quartiles], max | FP % (95% CI), trials | NRP, pooled (95% CI) | "
            "Post-novelty win % (95% CI) |",
            "|---|---|---:|---:|---|---|---|---|---|---|---|"]
    for saved in sweeps:
        agent, level = _label(saved)
        agg = metrics.aggregate(saved["trials"])
        rows.append(
            f"| `{agent}` | {level} | {agg['novelty_trials']} | {saved['args']['games']} | "
            f"{_ci(agg, 'nda')} | {_ci(agg, 'nda_characterized')} | "
            f"{_ci(agg, 'detection_delay', pct=False)} | {delay_spread(saved['trials'])} | "
            f"{_ci(agg, 'false_positive_rate')}, {agg['false_positive_rate_n']} | "
            f"{_ci(agg, 'nrp', pct=False)} | {_ci(agg, 'post_win_rate')} |")
    return "\n".join(rows)


def band_rows(sweeps: list[dict[str, Any]], cells: dict) -> str:
    """One block of bands per agent and level: the sweeps of one agent at one level are
    pooled (a sweep of the hardest cells adds trials where the bands are thin)."""
    rows = ["| Agent | Novelties | Measured detectability | Trials | NDA % (95% CI) | "
            "NDA+char. % | Delay, games (95% CI) | Delay: median [quartiles], max |",
            "|---|---|---|---:|---|---:|---|---|"]
    pooled: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for saved in sweeps:
        pooled.setdefault(_label(saved, cells=False), []).extend(saved["trials"])
    for (agent, level), trials in pooled.items():
        banded = detection_bands.by_band(trials, cells)
        for r in detection_bands.band_rows(trials, cells):
            rows.append(f"| `{agent}` | {level} | {r['band']} | {r['novelty_trials']} | "
                        f"{_ci(r, 'nda')} | {_pct(r['nda_characterized'])} | "
                        f"{_ci(r, 'detection_delay', pct=False)} | "
                        f"{delay_spread(banded.get(r['band'], []))} |")
    return "\n".join(rows)


def study_text(sweeps: list[dict[str, Any]], cells: dict, preface: str = "",
               renamed: int = 0, title: bool = True) -> str:
    """The whole section: title, preface, summary, bands, then each sweep's report
    (`renamed`: how many trials are shown under their parameters' preset name of today;
    no title when the results page supplies its own)."""
    parts = ["## Novelty detection", ""] if title else []
    if preface:
        parts += [preface.rstrip(), ""]
    if renamed:
        parts += [f"{renamed} trials ran parameters that a later re-tuning moved to another\n"
                  "preset name; the tables show them under today's name (the saved\n"
                  "`sweep.json` keeps the name they ran under and their parameters).", ""]
    parts += ["Summary, one row per sweep:", "", summary_rows(sweeps), "",
              "Per measured-detectability band (the sweeps of one agent and level pooled):",
              "", band_rows(sweeps, cells), ""]
    for saved in sweeps:
        parts += [detection_sweep.render_saved(saved, cells=cells), ""]
    return "\n".join(parts)


def load_sweeps(dirs: list[Path]) -> tuple[list[dict[str, Any]], int]:
    """The saved sweeps of `dirs` with their trials under today's preset names, and how
    many trials were renamed; FileNotFoundError names a folder without a sweep.json."""
    sweeps, renamed = [], 0
    for d in dirs:
        path = Path(d) / "sweep.json"
        if not path.exists():
            raise FileNotFoundError(str(path))
        saved = json.loads(path.read_text(encoding="utf-8"))
        trials, moved = detection_bands.with_current_presets(saved["trials"])
        sweeps.append({**saved, "trials": trials})
        renamed += moved
    return sweeps, renamed


# --- the opening table: what adapting wins back -----------------------------------------------
def _post_by_trial(saved: dict[str, Any]) -> dict[tuple, tuple[int, int]]:
    """(post-novelty wins, post-novelty games) of each novelty trial, keyed by what makes
    two sweeps' trials the same trial: the novelty, its preset and the trial's seed."""
    return {(t["novelty"], t["difficulty"], t["seed"]): (t["post_wins"], t["post_games"])
            for t in saved["trials"]
            if not detection_bands.is_control(t) and t.get("post_games")}


def _ratio(wins: np.ndarray, games: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.sum(wins, axis=axis) / np.sum(games, axis=axis)


def paired_interval(stat: Any, samples: list[np.ndarray], seed: int = 0) -> tuple[float, float]:
    """95% percentile interval of `stat` over trials resampled together (scipy): the
    games of one trial share their seeds and novelty, so the trial is the unit."""
    import warnings

    from scipy.stats import bootstrap

    with warnings.catch_warnings():  # (few distinct resamples: scipy warns; the
        warnings.simplefilter("ignore")  # percentile interval is still the right one)
        ci = bootstrap(tuple(samples), stat, paired=True, vectorized=True,
                       n_resamples=N_BOOT, method="percentile",
                       rng=np.random.default_rng(seed)).confidence_interval
    return float(ci.low), float(ci.high)


def _points(x: float, ci: tuple[float, float]) -> str:
    return f"{100 * x:+.1f} ({100 * ci[0]:+.1f} to {100 * ci[1]:+.1f})"


def post_win(saved: dict[str, Any]) -> str:
    """A sweep's post-novelty win rate (pooled over games) with its interval over trials."""
    w, g = (np.array(v, dtype=float) for v in zip(*_post_by_trial(saved).values()))
    lo, hi = paired_interval(_ratio, [w, g])
    return f"{100 * _ratio(w, g):.1f} ({100 * lo:.1f}-{100 * hi:.1f})"


def _paired(sweeps: tuple[dict[str, Any], ...]) -> list[np.ndarray]:
    """(post wins, post games) columns of each sweep over the trials all of them share."""
    by = [_post_by_trial(s) for s in sweeps]
    keys = sorted(set.intersection(*(set(b) for b in by)))
    return [np.array([b[k][i] for k in keys], dtype=float) for b in by for i in (0, 1)]


def _gain(aw: np.ndarray, ag: np.ndarray, bw: np.ndarray, bg: np.ndarray,
          axis: int = -1) -> np.ndarray:
    return _ratio(aw, ag, axis) - _ratio(bw, bg, axis)


def adapting_gain(adaptive: dict[str, Any], blind: dict[str, Any]) -> dict[str, Any]:
    """Post-novelty win rate of the adapting agent less its twin's, on the trials both
    played, with its paired interval over trials."""
    cols = _paired((adaptive, blind))
    if len(cols[0]) < 2:
        return {"trials": len(cols[0])}
    return {"trials": len(cols[0]), "gain": float(_gain(*cols)),
            "gain_ci": paired_interval(_gain, cols)}


def recovery(adaptive: dict[str, Any], blind: dict[str, Any],
             told: dict[str, Any]) -> dict[str, Any]:
    """What adapting wins back, on the trials the three sweeps share: `cost` = told - blind
    (post-novelty win rate: the agent shown the true rules, less its version that neither
    is shown them nor adapts), `gain` = adaptive - blind, `share` = gain / cost; each with
    its paired interval over trials (`share` left out while the cost's interval holds 0)."""
    cols = _paired((adaptive, blind, told))
    if len(cols[0]) < 2:
        return {"trials": len(cols[0])}
    aw, ag, bw, bg, tw, tg = cols

    def share(aw, ag, bw, bg, tw, tg, axis=-1):
        cost = _ratio(tw, tg, axis) - _ratio(bw, bg, axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(cost > 0, _gain(aw, ag, bw, bg, axis) / cost, np.nan)

    out: dict[str, Any] = {"trials": len(aw),
                           "cost": float(_gain(tw, tg, bw, bg)),
                           "cost_ci": paired_interval(_gain, [tw, tg, bw, bg]),
                           "gain": float(_gain(aw, ag, bw, bg)),
                           "gain_ci": paired_interval(_gain, [aw, ag, bw, bg])}
    out["share"] = out["share_ci"] = None
    if out["cost_ci"][0] > 0:
        out["share"] = float(share(*cols))
        out["share_ci"] = paired_interval(share, cols)
    return out


def adaptation_table(sweeps: list[dict[str, Any]]) -> str:
    """One row per agent with a sweep under `effects`: NDA, post-novelty win rate under
    both levels, NRP, and - for an agent whose `(adapt=False)` twin and `announced` sweep
    are among `sweeps` - the cost of ignorance in these trials and the share adapting wins
    back. Then the adapting agent against its twin, paired by trial."""
    by: dict[tuple[str, str], dict[str, Any]] = {}
    for saved in sweeps:
        if any(not detection_bands.is_control(t) for t in saved["trials"]):
            agent = detection_sweep.agent_name(detection_sweep.saved_args(saved))
            level = detection_sweep.saved_args(saved).observability
            by.setdefault((agent, level), {**saved, "trials": []})["trials"] += saved["trials"]
    rows = ["| agent | NDA %, `effects` | post-novelty win %, `effects` | post-novelty win %, "
            "`announced` | NRP, `effects` | cost of ignorance, points | share recovered % |",
            "|---|---|---|---|---|---|---|"]
    notes = []
    for (agent, level), eff in by.items():
        if level != "effects":
            continue
        agg = metrics.aggregate(eff["trials"])
        told = by.get((agent, "announced"))
        blind = by.get((f"{agent}(adapt=False)", "effects"))
        cost = share = "–"
        if blind is not None:
            r = adapting_gain(eff, blind)
            if told is not None:
                r = {**r, **recovery(eff, blind, told)}
            if "cost" in r:
                cost = _points(r["cost"], r["cost_ci"])
                if r["share"] is not None:
                    lo, hi = r["share_ci"]
                    share = f"{100 * r['share']:.0f} ({100 * lo:.0f}-{100 * hi:.0f})"
            if "gain" in r:
                notes.append(f"`{agent}` wins {_points(r['gain'], r['gain_ci'])} points more "
                             f"after the novelty than `{agent}(adapt=False)` on the same "
                             f"{r['trials']} trials (paired over trials).")
        rows.append(f"| `{agent}` | {_ci(agg, 'nda')} | {post_win(eff)} | "
                    f"{post_win(told) if told is not None else '–'} | "
                    f"{_ci(agg, 'nrp', pct=False)} | {cost} | {share} |")
    return "\n".join(rows + ([""] + notes if notes else []))


class StudyOptions(Options):
    """Several saved detection sweeps side by side."""

    positional = ("dirs",)
    dirs: list[str] = Field(min_length=1, description="detection_sweep output directories")
    preface: str | None = Field(None, description="a markdown file to put under the title")
    measured: str | None = Field(None, description="measured-difficulty file (null: "
                                 "novelties/data/measured.json)")


def main(argv: list[str] | None = None) -> int:
    args = read_options(StudyOptions, argv, "python -m evaluation.detection_study")
    if isinstance(args, int):
        return args
    try:
        sweeps, renamed = load_sweeps([Path(d) for d in args.dirs])
    except FileNotFoundError as exc:
        d = Path(str(exc)).parent
        print(f"error: no sweep.json in {str(d)!r} (run python -m evaluation.detection_sweep "
              f"out={d} first)", file=sys.stderr)
        return 2
    preface = Path(args.preface).read_text(encoding="utf-8") if args.preface else ""
    text = study_text(sweeps, detection_bands.load_cells(args.measured), preface, renamed)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
