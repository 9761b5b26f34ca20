"""`novelty=module:Class` and `agent=module:Class`: a plugin or an agent in a file of
one's own, with no package and no entry point, runs in a trial, and its trial folder's
name is safe on every filesystem (no colon), while a folder written under the old,
colon-bearing name still resumes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from evaluation.harness.trial_spelling import safe_name, trial_dir

ROOT = Path(__file__).resolve().parents[1]
AGENT = """
from agents.base import Agent
from openmono import actions as A

class Cautious(Agent):
    def act(self, obs):
        if obs.phase == "buy" and obs.cash[obs.seat] > 500:
            return A.Buy()
        return obs.legal_actions()[0]
"""


def _tutorial_plugin() -> str:
    text = (ROOT / "docs" / "novelties.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, re.S)[0]


def _trial(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(cwd), str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "evaluation.trial", *args, "games=4",
                           "inject_at=2", "progress=false", "plots=false", "reference=null"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=240)


def test_a_plugin_and_an_agent_from_files_run_in_a_folder_without_colons(tmp_path) -> None:
    (tmp_path / "speed_trap.py").write_text(_tutorial_plugin(), encoding="utf-8")
    (tmp_path / "my_cautious.py").write_text(AGENT, encoding="utf-8")
    done = _trial(tmp_path, "agent=my_cautious:Cautious", "novelty=speed_trap:SpeedTrap",
                  "novelty.difficulty=hard")
    assert done.returncode == 0, done.stderr[-1500:]
    run = tmp_path / "outputs" / "trial" / "my_cautious.Cautious" / "speed_trap.SpeedTrap-hard"
    summary = json.loads((run / "seed0" / "summary.json").read_text())
    assert summary["novelty"] == "speed_trap:SpeedTrap" and summary["injected_at"] == 2
    assert summary["agent"] == "my_cautious:Cautious"
    names = [p.name for p in (tmp_path / "outputs").rglob("*")]
    assert not [n for n in names if ":" in n]


def test_a_novelty_path_that_does_not_load_is_one_line(tmp_path) -> None:
    (tmp_path / "not_a_plugin.py").write_text("class Thing:\n    pass\n", encoding="utf-8")
    for bad in ("no_such_module:Nothing", "not_a_plugin:Missing", "not_a_plugin:Thing"):
        done = _trial(tmp_path, f"novelty={bad}")
        assert done.returncode == 2, (bad, done.stderr)
        assert done.stderr.startswith("error:") and done.stderr.count("\n") == 1, done.stderr
        assert bad in done.stderr
    assert not (tmp_path / "outputs").exists()


@given(st.text(min_size=1, max_size=30))
def test_safe_names_have_no_separator_or_colon(name: str) -> None:
    safe = safe_name(name)
    assert not set(safe) & set(':/\\<>"|?*') and len(safe) == len(name)
    assert safe_name(safe) == safe


def test_the_registry_names_keep_their_folders() -> None:
    assert trial_dir("planner", "rent_hike", "hard", 3) == \
        "outputs/trial/planner/rent_hike-hard/seed3"
    assert trial_dir("baseline", "none", None, 0) == "outputs/trial/baseline/none/seed0"


def test_a_folder_from_before_the_safe_names_still_resumes(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    new = "outputs/trial/my_module.Cautious/none/seed0"
    assert trial_dir("my_module:Cautious", "none", None, 0) == new
    old = tmp_path / "outputs" / "trial" / "my_module:Cautious" / "none" / "seed0"
    old.mkdir(parents=True)
    assert trial_dir("my_module:Cautious", "none", None, 0) == \
        "outputs/trial/my_module:Cautious/none/seed0"
    (tmp_path / new).mkdir(parents=True)  # both: the new name wins
    assert trial_dir("my_module:Cautious", "none", None, 0) == new


def test_then_takes_plugin_paths_with_or_without_a_difficulty() -> None:
    from evaluation.harness.novelty_setup import novelty_specs

    specs = novelty_specs("rent_hike", "medium", None,
                          ["go_salary:hard", "speed_trap:SpeedTrap", "speed_trap:SpeedTrap:easy",
                           "go_salary"])
    assert [(n, d) for n, d, _ in specs[1:]] == [
        ("go_salary", "hard"), ("speed_trap:SpeedTrap", "medium"),
        ("speed_trap:SpeedTrap", "easy"), ("go_salary", "medium")]
    # A catalogue name with a misspelt difficulty stays a difficulty (refused as one).
    assert novelty_specs("rent_hike", "medium", None, ["go_salary:hardest"])[1][:2] == \
        ("go_salary", "hardest")
