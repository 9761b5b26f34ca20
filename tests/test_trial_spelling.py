"""The old `trial.X=` spelling of evaluation.trial: read as `X=`, with one note, and the
folders it named (sweeps and their job folders) found again so old work resumes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evaluation.trials.trial_args import check_command
from evaluation.trials.trial_command import sweep_dir_for
from evaluation.harness.trial_spelling import _items, legacy, modern, note, sweep_subdir

ROOT = Path(__file__).resolve().parents[1]
FAST = ["agent=random", "opponents=[random,random,random]", "reference=random",
        "progress=false", "plots=false"]


def test_old_words_are_rewritten_and_named_in_one_note():
    new, old = modern(["trial.games=3", "+trial.seed=1", "agent.trial=x", "trial.gamez=1",
                       "novelty=rent_hike"])
    assert new == ["games=3", "+seed=1", "agent.trial=x", "trial.gamez=1", "novelty=rent_hike"]
    assert old == ["trial.games=3", "+trial.seed=1"]
    line = note(old)
    assert "\n" not in line and "games=3" in line and "trial.games=3" in line
    assert legacy(["games=3", "agent=random", "seed=0,1"]) == [
        "trial.games=3", "agent=random", "trial.seed=0,1"]


def test_both_spellings_make_the_same_trial(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    old = check_command([*FAST, "trial.games=3", "trial.seed=2", "trial.inject_at=1",
                         "novelty=rent_hike"]).jobs[0]
    new = check_command([*FAST, "games=3", "seed=2", "inject_at=1", "novelty=rent_hike"]).jobs[0]
    assert old.config == new.config and old.out_dir == new.out_dir
    assert new.out_dir.name == "seed2"


def test_an_old_sweep_folder_is_found_again(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    words = ["agent=random,baseline", "seed=0,1"]
    fresh = sweep_dir_for(words)
    old = sweep_dir_for(legacy(words))
    assert old == fresh  # nothing on disk: the new name, whatever the spelling
    (tmp_path / "multirun").mkdir()
    before = ["agent=random,baseline", "trial.seed=0,1", "trial.plots=false"]
    # The folder the old code named: the hash of the old words, minus the ones that
    # never named a sweep.
    import hashlib

    digest = hashlib.sha1("\n".join(sorted(before[:2])).encode()).hexdigest()[:10]
    (tmp_path / "multirun" / f"sweep-{digest}").mkdir()
    assert sweep_dir_for(before) == Path("multirun") / f"sweep-{digest}"
    assert sweep_dir_for(words) == Path("multirun") / f"sweep-{digest}"


def test_an_old_job_folder_is_found_again(tmp_path):
    name = "agent=random,opponents=[random,random,random],seed=0"
    assert sweep_subdir(str(tmp_path), name) == name
    old = "agent=random,opponents=[random,random,random],trial.seed=0"
    (tmp_path / old).mkdir()
    assert sweep_subdir(str(tmp_path), name) == old
    (tmp_path / name).mkdir()
    assert sweep_subdir(str(tmp_path), name) == name


def _trial(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evaluation.trial", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                               "HOME": str(cwd)})


@pytest.mark.skipif(sys.platform == "win32", reason="folder names with '='")
def test_a_sweep_of_the_old_spelling_resumes_in_its_folders(tmp_path: Path) -> None:
    """The job folders an old sweep wrote (`trial.seed=0`, ...) are the ones a re-run,
    in either spelling, plays into: nothing is played again beside them."""
    sweep = tmp_path / "sweep"
    args = ["--multirun", *FAST, "seed=0,1", "games=2", f"hydra.sweep.dir={sweep}"]
    assert _trial(*args, cwd=tmp_path).returncode == 0
    jobs = sorted(p for p in sweep.iterdir() if p.is_dir())
    assert [p.name.rsplit(",", 1)[-1] for p in jobs] == ["seed=0", "seed=1"]
    for job in jobs:  # as the old spelling named them
        job.rename(sweep / ",".join(sorted(legacy(_items(job.name)))))
    before = {p.name: (p / "games.jsonl").read_bytes() for p in sweep.iterdir() if p.is_dir()}
    proc = _trial("--multirun", *FAST, "trial.seed=0,1", "trial.games=2",
                  f"hydra.sweep.dir={sweep}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "old spelling" in proc.stderr
    after = {p.name: (p / "games.jsonl").read_bytes() for p in sweep.iterdir() if p.is_dir()}
    assert after == before and all("trial.seed=" in n for n in after)
