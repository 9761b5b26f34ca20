"""Where the modules of the once flat `evaluation/` went, for what names them by their old
dotted path.

A pickle names each class and function by module: an agents' snapshot (`agents.pkl`)
taken before `evaluation/` had sub-packages names `evaluation.runner._read_only`, and
one of a detection sweep's trial `evaluation.detection_sweep.DetectingAgent`. Reading
them through `home_of`, such a trial folder still resumes from its snapshot (and so
does one whose snapshot names a function in a module split later, `MOVED_NAMES`).
"""

from __future__ import annotations

MOVED: dict[str, str] = {
    "evaluation.atomic": "evaluation.store.atomic",
    "evaluation.bench": "evaluation.games.bench",
    "evaluation.check": "evaluation.games.check",
    "evaluation.cli": "evaluation.harness.cli",
    "evaluation.compare": "evaluation.reports.compare",
    "evaluation.compare_html": "evaluation.reports.compare_html",
    "evaluation.config_store": "evaluation.harness.config_store",
    "evaluation.detection_bands": "evaluation.measures.detection_bands",
    "evaluation.detection_study": "evaluation.sweeps.detection_study",
    "evaluation.detection_sweep": "evaluation.sweeps.detection_sweep",
    "evaluation.dice_sprt": "evaluation.measures.dice_sprt",
    "evaluation.difficulty": "evaluation.sweeps.difficulty",
    "evaluation.folder_lock": "evaluation.store.folder_lock",
    "evaluation.hook_watch": "evaluation.harness.hook_watch",
    "evaluation.html_report": "evaluation.reports.html_report",
    "evaluation.impact": "evaluation.sweeps.impact",
    "evaluation.impact_screen": "evaluation.sweeps.impact_screen",
    "evaluation.kill_loop": "evaluation.games.kill_loop",
    "evaluation.launchers": "evaluation.harness.launchers",
    "evaluation.metrics": "evaluation.measures.metrics",
    "evaluation.novelty_setup": "evaluation.harness.novelty_setup",
    "evaluation.paper_tables": "evaluation.games.paper_tables",
    "evaluation.ray_trials": "evaluation.trials.ray_trials",
    "evaluation.records": "evaluation.store.records",
    "evaluation.remote_seats": "evaluation.harness.remote_seats",
    "evaluation.replay": "evaluation.reports.replay",
    "evaluation.report": "evaluation.reports.report",
    "evaluation.report_cost": "evaluation.games.report_cost",
    "evaluation.report_files": "evaluation.store.report_files",
    "evaluation.rescore": "evaluation.sweeps.rescore",
    "evaluation.results": "evaluation.sweeps.results",
    "evaluation.runner": "evaluation.harness.runner",
    "evaluation.seal": "evaluation.store.seal",
    "evaluation.secret_args": "evaluation.harness.secret_args",
    "evaluation.select_checkpoint": "evaluation.games.select_checkpoint",
    "evaluation.selfplay": "evaluation.games.selfplay",
    "evaluation.sweep_guard": "evaluation.trials.sweep_guard",
    "evaluation.tournament": "evaluation.games.tournament",
    "evaluation.trial": "evaluation.trials.trial",
    "evaluation.trial_args": "evaluation.trials.trial_args",
    "evaluation.trial_spelling": "evaluation.harness.trial_spelling",
    "evaluation.validate_gnome": "evaluation.games.validate_gnome",
    "evaluation.verify": "evaluation.reports.verify",
}


# Functions and classes pickled under a module that was later split: (module as it is
# now named, name) -> the module that holds the name now.
MOVED_NAMES: dict[tuple[str, str], str] = {
    ("evaluation.harness.runner", "_read_only"): "evaluation.harness.snapshot",
    ("evaluation.sweeps.detection_sweep", "DetectingAgent"): "evaluation.sweeps.detecting_agent",
}


def new_home(module: str) -> str:
    """The module's path now: `evaluation.runner` -> `evaluation.harness.runner`; any
    other name as it is."""
    return MOVED.get(module, module)


def home_of(module: str, name: str) -> str:
    """Where the pickled `module.name` lives now: `evaluation.runner`, `_read_only` ->
    `evaluation.harness.snapshot`; any other as it is."""
    module = new_home(module)
    return MOVED_NAMES.get((module, name), module)
