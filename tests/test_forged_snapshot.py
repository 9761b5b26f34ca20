"""Issue 52, finding 5: an isolated agent runs as this user, so it can read the
snapshot key and seal a pickle bound to its trial, then kill the harness; the resume
unpickled it ("agents restored") and ran its code. Now a trial with a seat in another
process never loads a snapshot, the child's environment holds no key, and what is
unpickled must have the shape of the trial's own seats."""

from __future__ import annotations

import builtins
import io
import pickle
from pathlib import Path

import pytest

from evaluation.harness import snapshot, trial_folder
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig
from evaluation.store.seal import KEY_ENV, seal, snapshot_key

KEY = "k" * 40


class _Planted:
    """Unpickled, it creates the file `path` (what a forger's code could do)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple:
        return (builtins.open, (str(self.path), "w"))


def _forge(out: Path, games: int, agents: object) -> None:
    """What the hostile agent does: a pickle sealed with the user's key, bound to the
    trial and a recorded game count."""
    head = snapshot._snapshot_binding(out, games)
    assert head is not None
    body = pickle.dumps({"games": games, "agents": agents})
    (out / trial_folder.STATE_FILE).write_bytes(seal(head + body, snapshot_key()))


def _cut_to(out: Path, games: int) -> None:
    path = out / trial_folder.GAMES_FILE
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:games]))
    (out / trial_folder.SUMMARY_FILE).unlink()


def test_a_trial_with_an_isolated_seat_never_loads_a_snapshot(tmp_path: Path, monkeypatch,
                                                             capsys) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    out, marker = tmp_path / "run", tmp_path / "pwned"
    cfg = dict(agent="baseline", opponents=["random"] * 3, reference=None, games=2,
               progress=False, isolate=["agent"])
    run_trial(TrialConfig(**cfg), out)
    _cut_to(out, 1)
    _forge(out, 1, _Planted(marker))
    capsys.readouterr()
    summary = run_trial(TrialConfig(**cfg), out)
    err = capsys.readouterr().err
    assert not marker.exists(), "the forged snapshot was unpickled"
    assert "agents restored" not in err and "never loaded" in err
    assert summary["games"] == 2


def test_the_isolated_child_gets_no_snapshot_key(monkeypatch) -> None:
    from agents.remote.isolated import _child_env

    monkeypatch.setenv(KEY_ENV, KEY)
    assert KEY_ENV not in _child_env()
    assert KEY not in _child_env().values()


@pytest.mark.parametrize("agents", [("x", [], None), ["a", "b", "c"], 42])
def test_a_snapshot_of_the_wrong_shape_is_not_used(tmp_path: Path, monkeypatch, capsys,
                                                   agents: object) -> None:
    """Sealed by this user for this trial, but not the trial's seats: re-played."""
    monkeypatch.setenv(KEY_ENV, KEY)
    out = tmp_path / "run"
    cfg = dict(agent="random", opponents=["random"] * 3, reference="random", games=3,
               progress=False)
    first = run_trial(TrialConfig(**cfg), out)
    _cut_to(out, 2)
    _forge(out, 2, agents)
    capsys.readouterr()
    again = run_trial(TrialConfig(**cfg), out)
    err = capsys.readouterr().err
    assert "agents restored" not in err and "this trial's agents" in err
    assert again["games_digest"] == first["games_digest"]
