"""The detection sweep's report (`sweep.md`): how it was run, what detects, what the
measures mean, the tables, and the same report rendered again from a saved `sweep.json`."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

from evaluation.measures.detection_bands import band_table, load_cells
from evaluation.sweeps.detection_tables import _pct, tables

DRL_AGENTS = ("ppo", "hybrid_ppo", "ddqn", "hybrid_ddqn")


def detector_text(agent: str) -> str:
    """What detects for `agent`: the DRL agents' own surprise test, else the planner's."""
    if agent in DRL_AGENTS:
        return (
            f"`{agent}` reports with its own detectors (`detector=model`, the default): a "
            "model of what the table shows (`agents/drl/outcomes.py`: each outcome it "
            "observes filed by its context, learned in play; two contradictions raise the "
            "alarm) and, beside it, one-sided CUSUMs on its network's per-game prediction "
            "error and mean dense reward (`agents/drl/surprise.py`). Both calibrate on the "
            "trial's first 15 games, so trials need to be long enough for the injection to "
            "come after the calibration.")
    return (
        "The detector (`agents/planner/detection/`) compares the believed rules with the "
        "public rules shown (a visible change is reported at the first decision of the "
        "injected game), with every event (rents, taxes, salaries, fees, card effects and "
        "draws, moves, payments for unknown reasons, refused builds, games ended by a "
        "rule), with a replica of the public state rebuilt from the events (hidden or "
        "noisy cash, hidden assets and events), and tests the dice with a "
        "Bonferroni-corrected chi-square at each game end (false-alarm budget 1% per "
        "100-game trial; a rejection counts only when the estimated dice differ from the "
        "believed ones). Under `effects` it learns only from outcomes, and its own refused "
        "actions are evidence too. `planner` has the detector built in and, by default, adapts: it "
        "values the game by the rules the detector believes. `detect_<agent>` plays as "
        "`<agent>` with the detector only watching and reporting (no adaptation).")


def _calibration_games() -> int:
    from agents.drl.surprise import CALIBRATION_GAMES

    return CALIBRATION_GAMES


def short_for_detector(args: Any) -> bool:
    """Whether a DRL agent's surprise detector is still calibrating at the earliest injection."""
    return args.agent in DRL_AGENTS and int(args.window[0] * args.games) < _calibration_games()


def agent_name(args: Any) -> str:
    """The sweep's agent as its tables name it, with its options (`planner(adapt=False)`);
    saved sweeps from before `params` have none."""
    from evaluation.harness.summary import agent_label

    return agent_label(args.agent, dict(getattr(args, "params", None) or {}))


MEASURES = (
    "NDA: share of novelty trials whose first report comes at or after the injection "
    "game; FP: share of trials with a report before the injection (any report in a "
    "control trial); delay: games from injection to the first report (0 = reported "
    "after the injection game itself). Characterization accuracy: share of the ground "
    "truth's changes matched by the final report (entity, attribute and value within "
    "10%; see `evaluation.metrics.change_matches`). NRP: post-novelty win rate over "
    "`baseline`'s pre-novelty win rate on the same seeds.")


def report_text(args: Any, cell: str, per: str, totals: dict[str, Any],
                results: list[dict[str, Any]], seconds: float,
                command: str | None = None, cells: dict | None = None) -> str:
    command = command or " ".join(["python -m evaluation.detection_sweep",
                                   *_without_secrets(sys.argv[1:])])
    ctl = totals.get("control") or {}
    fp_all = totals.get("fp_all_trials") or {}
    level = getattr(args, "observability", None) or "announced"
    name = agent_name(args)
    title = (f"### `{name}`, control trials only" if not args.per_cell
             else f"### `{name}`, novelties `{level}`")
    if args.per_cell and getattr(args, "cells", None):  # told apart from the full sweep
        title += f", cells `{','.join(args.cells)}`"
    if results:  # two sweeps of one agent and level differ in their seeds at least
        title += f" (seeds {args.seed}-{args.seed + len(results) - 1})"
    lines = [
        title,
        "",
        "```",
        command,
        "```",
        "",
        _how_run(args, name, len(results), seconds),
        "",
        detector_text(args.agent),
        "",
        MEASURES,
        "",
        cell,
        "",
        _fp_sentence(ctl, fp_all),
        "",
        "Per measured-detectability band (`evaluation.detection_bands`, the ideal observer's "
        "expected decisions until detection under `effects`, from "
        "`novelties/data/measured.json`):",
        "",
        band_table(results, load_cells() if cells is None else cells),
        "",
        "<details><summary>Per novelty</summary>",
        "",
        per,
        "",
        "</details>",
    ]
    return "\n".join(lines)


def _how_run(args: Any, name: str, n_trials: int, seconds: float) -> str:
    """The paragraph saying what the sweep played: agent, novelties, trials, seeds, time."""
    seeds = f"{args.seed}-{args.seed + n_trials - 1}"
    return (
        f"Agent `{name}` against three `baseline` agents, novelties "
        f"`{getattr(args, 'observability', 'announced')}` (docs/detection.md); "
        + ("" if getattr(args, "rules", "standard") == "standard"
           else f"rules `{args.rules}` (docs/rules.md); ") +
        f"{args.games}-game trials, the "
        f"novelty injected at a game drawn from [{args.window[0]}, {args.window[1]}] of the "
        f"trial and kept; "
        + (f"{args.per_cell} trial(s) per category x difficulty, cycling through its chosen "
           f"cells (cells=[{','.join(args.cells)}] spread=true), "
           if getattr(args, "cells", None) and getattr(args, "spread", False) else
           f"{args.per_cell} trial(s) of each chosen cell (cells=[{','.join(args.cells)}]), "
           if getattr(args, "cells", None) else
           f"{args.per_cell} trials per category x difficulty with novelties drawn from the "
           "catalogue in a seeded order that cycles through the category, ") +
        f"plus {args.controls} control trials; trial seeds {seeds} (in that order: CN, AN, RN x "
        f"easy, medium, hard, then controls). {n_trials} trials in {seconds:.0f} s wall clock "
        + (f"on Ray (ray={args.ray}, {args.workers} CPUs for a local cluster)."
           if getattr(args, "ray", None) else f"with {args.workers} worker(s)."))


def saved_args(saved: dict[str, Any], args: Any = None) -> Any:
    """The arguments a saved sweep ran with (older files lack `observability`: it is
    read off the trials)."""
    args = args if args is not None else SimpleNamespace()
    for key, value in saved["args"].items():
        setattr(args, key, tuple(value) if key == "window" else value)
    if "observability" not in saved["args"]:
        levels = {t.get("observability") for t in saved["trials"]} - {None}
        args.observability = levels.pop() if len(levels) == 1 else "announced"
    if "opponents_view" not in saved["args"]:  # from before the option: shown
        args.opponents_view = "shown"
    return args


def render_saved(saved: dict[str, Any], args: Any = None,
                 cells: dict | None = None) -> str:
    """The report of a saved sweep (`sweep.json`)."""
    args = saved_args(saved, args)
    cell, per, totals = tables(saved["trials"])
    return report_text(args, cell, per, totals, saved["trials"], saved["seconds"],
                       saved["command"], cells=cells)


def _fp_sentence(ctl: dict[str, Any], fp_all: dict[str, Any]) -> str:
    def rate(agg: dict[str, Any]) -> str:
        n = agg.get("false_positive_rate_n", 0)
        if not n:
            return "-"
        k = round(agg["false_positive_rate"] * n)
        return (f"{k}/{n} = {_pct(agg['false_positive_rate'])}% (Wilson 95% "
                f"{_pct(agg['false_positive_rate_lo'])}-{_pct(agg['false_positive_rate_hi'])}%)")

    return (f"False positives: control trials {rate(ctl)}; all trials (a report before the "
            f"injection) {rate(fp_all)}.")


def _without_secrets(argv: list[str]) -> list[str]:
    """The command line as recorded in sweep.json and sweep.md: the token hidden."""
    out, hide = [], False
    for arg in argv:
        if hide:
            out.append("***")
            hide = False
        elif arg == "--remote-token":
            out.append(arg)
            hide = True
        elif arg.startswith("--remote-token="):
            out.append("--remote-token=***")
        elif arg.lstrip("+").startswith("remote_token="):
            out.append("remote_token=***")
        else:
            out.append(arg)
    return out
