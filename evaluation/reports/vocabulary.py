"""One vocabulary for every output of a trial or a sweep: the terminal summary,
`report.md`, `report.html`, `compare.md` and `compare.html`.

Each measure has one short name, one label, one unit and one definition here, so the
pages cannot drift apart (rates were fractions in one output and percents in another;
"false pos." in one and "false positive" in another). Rates are shown as percents, NRP
as a ratio, delays and game numbers in games. The definitions are those of
`docs/glossary.md`, which `tests/test_report_vocabulary.py` keeps in step.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

GLOSSARY = "docs/glossary.md"  # where the full definitions live, named on every page


class Measure(NamedTuple):
    """How one measure is named, shown and explained."""

    short: str  # table headers
    label: str  # rows: the label says what it is without the glossary
    unit: str  # "percent", "ratio", "games", "count", "seconds", "fraction"
    definition: str  # one or two sentences: what the number means


MEASURES: dict[str, Measure] = {
    "games": Measure("games", "games played", "count",
                     "Games the evaluated agent played in the trial."),
    "injected_at": Measure("injected", "novelty injected before game", "games",
                           "The first game played under the novelty (games count from 0)."),
    "pnwp": Measure("PNWP", "pre-novelty win rate (PNWP)", "percent",
                    "Share of the games before the injection that the agent won."),
    "post_win_rate": Measure("post-novelty win rate", "post-novelty win rate", "percent",
                             "Share of the games from the injection on that the agent won."),
    "win_rate": Measure("win rate", "win rate, whole trial", "percent",
                        "Share of all the trial's games that the agent won."),
    "ref_pnwp": Measure("reference PNWP", "reference agent's pre-novelty win rate",
                        "percent", "The reference agent's win rate on the same seeds "
                        "before the injection: the denominator of NRP."),
    "nda": Measure("NDA", "novelty detected correctly (NDA)", "percent",
                   "A trial scores 1 when the agent's first report of a novelty comes at or "
                   "after the injection (and none before it); over trials, the share that "
                   "do."),
    "false_positive_rate": Measure("false positives", "false positive", "percent",
                                   "A trial scores 1 when the agent reports a novelty before "
                                   "the injection (in a control trial: at all)."),
    "first_detection": Measure("first report", "first report (after game)", "games",
                               "The game after which the agent first reported a novelty."),
    "detection_delay": Measure("detection delay", "detection delay (games)", "games",
                               "Games from the injection to the first report, for "
                               "correctly detected trials: 0 means it reported after the "
                               "very game the novelty arrived in."),
    "nrp": Measure("NRP", "novelty reaction performance (NRP)", "ratio",
                   "The agent's post-novelty win rate divided by the reference agent's "
                   "pre-novelty win rate on the same seeds: 1 means it plays as well after "
                   "the novelty as the reference did before it."),
    "characterization_accuracy": Measure(
        "characterization", "characterization accuracy", "fraction",
        "How much of what the novelty changed the agent's last report names correctly "
        "(0 to 1)."),
    "turn_limit_games": Measure("turn-limit games", "games ended by the turn limit", "count",
                                "Games stopped at the turn limit rather than by bankruptcy."),
    "faults": Measure("faults", "agent faults", "count",
                      "Decisions where the agent crashed, timed out or answered "
                      "illegally (it got the phase's default)."),
    "seconds": Measure("wall time", "wall time (s)", "seconds",
                       "Seconds the trial took."),
}

# Terms that are not measures but that the pages use; the glossary defines them.
TERMS: dict[str, str] = {
    "band": "A novelty preset's measured detectability (`novelties/data/measured.json`): "
            "how many decisions an ideal observer needs to tell the worlds apart, from "
            "\"<= 10 decisions\" to \"never seen\". NDA should fall as the band gets harder.",
    "observability": "What the agents are shown of a novelty: `announced` updates the "
                     "public rules at the injection; under `effects` they keep the old "
                     "rules and learn only from outcomes (payments, moves, refusals, dice).",
    "cost of ignorance": "What a novelty costs an agent that plays by the old rules: the "
                         "post-novelty win rate of the agent told the true rules minus that "
                         "of the same agent shown the old ones and not adapting, in "
                         "percentage points.",
}

CATEGORIES = {"class": "class", "attribute": "attribute", "representation": "representation",
              "CN": "class", "AN": "attribute", "RN": "representation"}


def category(name: Any) -> str:
    """A novelty category in the one spelling the pages use ("AN" reads "attribute")."""
    return CATEGORIES.get(str(name), str(name) if name else "-")


def anchor(key: str) -> str:
    """The id of a measure's definition on a page (and its heading in the glossary)."""
    return "def-" + key.replace("_", "-")


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(
        float(value))


def value(key: str, v: Any) -> str:
    """One measure's value in its unit: `87.5%`, `3.33`, `8`; `-` when undefined."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    unit = MEASURES[key].unit if key in MEASURES else "fraction"
    if unit == "percent":
        return f"{100 * float(v):.1f}%"
    if unit in ("ratio", "fraction"):
        return f"{float(v):.2f}"
    if unit == "seconds":
        return f"{float(v):.1f}"
    if unit == "games" and isinstance(v, float) and not v.is_integer():
        return f"{v:.1f}"
    return str(int(v)) if _finite(v) else str(v)


def interval(key: str, lo: Any, hi: Any) -> str:
    """A 95% interval in the measure's unit, `52.9–97.8%`; empty when there is none or
    it has no width (one trial: a bootstrap over one value says nothing); `hi` None:
    open above."""
    if _finite(lo) and hi is None:  # open above (an NRP whose reference may win nothing)
        return f"{value(key, lo)} or more"
    if not (_finite(lo) and _finite(hi)) or lo == hi:
        return ""
    a, b = value(key, lo), value(key, hi)
    if a.endswith("%") and b.endswith("%"):
        a = a[:-1]
    return f"{a}–{b}"


def with_interval(key: str, v: Any, lo: Any = None, hi: Any = None) -> str:
    """`87.5% (52.9–97.8%)`, or the value alone when there is no interval."""
    ci = interval(key, lo, hi)
    return f"{value(key, v)} ({ci})" if ci and v is not None else value(key, v)
