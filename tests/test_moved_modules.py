"""`evaluation/` in sub-packages (issue 53): every command keeps its `python -m
evaluation.X` name through a forwarding module, and a trial folder whose agents'
snapshot was pickled under the old module paths still resumes from it."""

from __future__ import annotations

import importlib
import importlib.util
import io
import subprocess
import sys
import types
from pathlib import Path
from types import MappingProxyType

import pytest

from agents.random_agent import RandomAgent
from evaluation.store.moved import MOVED, MOVED_NAMES, home_of, new_home

ROOT = Path(__file__).resolve().parents[1]
# Modules that stay at the top of evaluation/ and are no forwarders.
STAYS = {"__init__", "timing"}
# Commands new since the move, entered at the top like the moved ones (thin entries).
ENTRIES = {"evaluation.trade_loop": "evaluation.games.trade_loop"}


def _forwarders() -> list[str]:
    return sorted(p.stem for p in (ROOT / "evaluation").glob("*.py") if p.stem not in STAYS)


def test_every_top_level_module_forwards_a_command_to_its_new_home() -> None:
    assert len(_forwarders()) >= 20
    for name in _forwarders():
        old = f"evaluation.{name}"
        homes = {**MOVED, **ENTRIES}
        assert old in homes, f"{old} is neither a forwarder nor listed as staying"
        text = (ROOT / "evaluation" / f"{name}.py").read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 10, f"{old} should only forward"
        assert f"from {homes[old]} import" in text and '__name__ == "__main__"' in text
        fn = "cli" if name == "trial" else "main"
        home = importlib.import_module(homes[old])
        assert getattr(importlib.import_module(old), fn) is getattr(home, fn)


def test_a_forwarded_command_runs_under_its_old_name() -> None:
    done = subprocess.run([sys.executable, "-m", "evaluation.verify", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "dirs" in done.stdout or "DIR" in done.stdout


def test_every_old_path_names_a_module_that_is_there() -> None:
    for old, new in MOVED.items():
        assert importlib.util.find_spec(new) is not None, new
        assert new.count(".") == 2 and new.rsplit(".", 1)[1] == old.rsplit(".", 1)[1]
    assert new_home("evaluation.timing") == "evaluation.timing"
    assert new_home("agents.base") == "agents.base"


class KeepsAView(RandomAgent):
    """Holds a read-only mapping, which a snapshot pickles through the snapshot's
    `_read_only` (as the planner's does)."""

    def __init__(self) -> None:
        super().__init__()
        self.view = MappingProxyType({"games": 0})

    def end_game(self, result) -> None:
        self.view = MappingProxyType({"games": self.view["games"] + 1})


@pytest.mark.parametrize("old_home", ["evaluation.runner", "evaluation.harness.runner"])
def test_a_snapshot_pickled_under_the_old_paths_still_resumes(tmp_path, monkeypatch,
                                                               old_home) -> None:
    """Pickled before `evaluation/` had sub-packages (`evaluation.runner`), or before the
    runner was split (`evaluation.harness.runner`): `_read_only` lives in `snapshot` now."""
    import evaluation.harness.game_loop as game_loop
    import evaluation.harness.snapshot as snapshot
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig
    from evaluation.harness.trial_folder import GAMES_FILE, STATE_FILE
    from evaluation.store.seal import KEY_ENV, unseal

    key = "k" * 32
    monkeypatch.setenv(KEY_ENV, key)
    monkeypatch.setattr(game_loop, "SAVE_RATIO", 0)  # a snapshot after every game
    cfg = dict(agent="test_moved_modules:KeepsAView", opponents=["random"] * 3,
               reference=None, keep_logs="none", seed=3, progress=False)
    out = tmp_path / "run"
    assert not (ROOT / "evaluation" / "runner.py").exists()
    assert not hasattr(importlib.import_module("evaluation.harness.runner"), "_read_only")
    with monkeypatch.context() as old:  # pickled as before the move
        then = types.ModuleType(old_home)
        then._read_only = snapshot._read_only
        old.setitem(sys.modules, old_home, then)
        old.setattr(snapshot._read_only, "__module__", old_home)
        run_trial(TrialConfig(games=3, **cfg), out)
    body = unseal((out / STATE_FILE).read_bytes(), key.encode())
    assert old_home.encode() in body and b"evaluation.harness.snapshot" not in body
    loaded = snapshot._load_agents(out, 3)
    assert loaded is not None, "the old snapshot was not read"
    taken, agents = loaded
    assert taken == 3 and agents[0].view == {"games": 3}
    with monkeypatch.context() as unmapped:  # (without the old paths it could not be read)
        unmapped.setattr(snapshot, "home_of", lambda module, name: module)
        assert snapshot._load_agents(out, 3) is None
    (out / "summary.json").unlink()  # as if killed before its summary: resumed from it
    run_trial(TrialConfig(games=3, **cfg), out)
    fresh = tmp_path / "fresh"
    run_trial(TrialConfig(games=3, **cfg), fresh)
    assert (out / GAMES_FILE).read_bytes() == (fresh / GAMES_FILE).read_bytes()
    assert (out / "summary.json").exists()


def test_every_moved_name_is_in_its_new_home() -> None:
    for (old, name), new in MOVED_NAMES.items():
        assert hasattr(importlib.import_module(new), name), f"{new}.{name}"
        assert not hasattr(importlib.import_module(old), name), f"{old}.{name} is still there"
        assert home_of(old, name) == new


def test_a_detection_sweeps_agent_is_found_under_its_old_path() -> None:
    from evaluation.harness.snapshot import _Unpickler
    from evaluation.sweeps.detecting_agent import DetectingAgent

    for old in ("evaluation.detection_sweep", "evaluation.sweeps.detection_sweep"):
        assert _Unpickler(io.BytesIO(b"")).find_class(old, "DetectingAgent") is DetectingAgent
