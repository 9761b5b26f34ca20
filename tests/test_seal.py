"""`evaluation.store.seal`: only snapshots sealed with this user's key are trusted."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluation.store import seal as S


@given(st.binary(max_size=2000), st.binary(min_size=1, max_size=64))
def test_a_sealed_payload_comes_back_only_with_its_key(payload: bytes, key: bytes) -> None:
    blob = S.seal(payload, key)
    assert S.unseal(blob, key) == payload
    assert S.unseal(blob, key + b"x") is None
    assert S.unseal(payload, key) is None or payload.startswith(S.MAGIC)


@given(st.binary(min_size=1, max_size=500), st.integers(min_value=0))
def test_any_changed_byte_is_refused(payload: bytes, where: int) -> None:
    blob = bytearray(S.seal(payload, b"k"))
    i = where % len(blob)
    blob[i] ^= 0x01
    assert S.unseal(bytes(blob), b"k") is None


def test_the_key_is_made_once_private_and_the_environment_wins(tmp_path: Path,
                                                                monkeypatch) -> None:
    monkeypatch.delenv(S.KEY_ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    first = S.snapshot_key()
    assert first is not None and len(first) == 32
    assert S.snapshot_key() == first
    assert (S.key_file().stat().st_mode & 0o777) == 0o600
    monkeypatch.setenv(S.KEY_ENV, "cluster-secret-of-at-least-32-bytes")
    assert S.snapshot_key() == b"cluster-secret-of-at-least-32-bytes"


def test_no_usable_key_means_nothing_is_sealed_and_a_trial_still_resumes(
        tmp_path: Path, monkeypatch) -> None:
    import evaluation.harness.game_loop as game_loop
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig
    from evaluation.harness.trial_folder import GAMES_FILE, STATE_FILE

    monkeypatch.setattr(game_loop, "SAVE_RATIO", 0)  # a snapshot after every game, if sealable
    cfg = dict(agent="random", opponents=["random"] * 3, reference="random",
               games=3, seed=1, progress=False)
    monkeypatch.setenv(S.KEY_ENV, STRONG)
    run_trial(TrialConfig(**cfg), tmp_path / "keyed")
    assert (tmp_path / "keyed" / STATE_FILE).exists()
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.delenv(S.KEY_ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocked))
    assert S.snapshot_key() is None
    run_trial(TrialConfig(**cfg), tmp_path / "run")
    assert not (tmp_path / "run" / STATE_FILE).exists()
    assert (tmp_path / "run" / GAMES_FILE).read_bytes().count(b"\n") == 3


# --- issue 29, finding 5: a key that is too short or readable by others is refused -------------
STRONG = "k" * 32


def _key_home(tmp_path: Path, monkeypatch, data: bytes | None, mode: int = 0o600) -> Path:
    monkeypatch.delenv(S.KEY_ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = S.key_file()
    if data is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(mode)
    return path


@pytest.mark.parametrize("data,mode,fix", [
    (b"", 0o600, "delete"),                 # what a full disk at first use left behind
    (b"x" * 31, 0o600, "delete"),
    (b"x" * 32, 0o640, "chmod 600"),        # readable by the group
    (b"x" * 32, 0o604, "chmod 600"),        # readable by everyone
], ids=["empty", "31 bytes", "group-readable", "world-readable"])
def test_a_weak_or_exposed_key_file_is_refused_in_one_line(tmp_path: Path, monkeypatch,
                                                           data: bytes, mode: int,
                                                           fix: str) -> None:
    path = _key_home(tmp_path, monkeypatch, data, mode)
    with pytest.raises(S.KeyProblem) as info:
        S.snapshot_key()
    message = str(info.value)
    assert "\n" not in message and str(path) in message and fix in message, message


def test_a_short_key_in_the_environment_is_refused(tmp_path: Path, monkeypatch) -> None:
    _key_home(tmp_path, monkeypatch, None)
    monkeypatch.setenv(S.KEY_ENV, "cluster-secret")
    with pytest.raises(S.KeyProblem, match=f"{S.KEY_ENV}.*32 bytes"):
        S.snapshot_key()
    monkeypatch.setenv(S.KEY_ENV, STRONG)
    assert S.snapshot_key() == STRONG.encode()


_FULL_DISK = """
import resource, signal, sys
from evaluation.store import seal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))  # no byte fits
print(repr(seal.snapshot_key()))
"""


def test_a_full_disk_at_first_use_never_leaves_an_empty_key(tmp_path: Path,
                                                            monkeypatch) -> None:
    import os
    import subprocess
    import sys

    path = _key_home(tmp_path, monkeypatch, None)
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", _FULL_DISK], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "None"  # no key: nothing sealed, nothing trusted
    assert not path.exists() and list(path.parent.iterdir()) == []  # no temp file either
    key = S.snapshot_key()  # the disk has room again: a whole key is made
    assert key is not None and len(key) == 32 and path.read_bytes() == key


class _Planted:
    """A pickle that runs code when loaded."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


class _Stop(Exception):
    pass


def _stop_after(game: int):
    def stop(record: dict) -> None:
        if record["game"] == game:
            raise _Stop
    return stop


def test_an_empty_key_never_lets_a_forged_snapshot_run(tmp_path: Path, monkeypatch) -> None:
    """A snapshot sealed with b'' is what anyone can forge; with an empty key file the
    trial stops in one line instead of trusting it."""
    import pickle

    import evaluation.harness.game_loop as game_loop
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig, TrialError
    from evaluation.harness.trial_folder import STATE_FILE

    monkeypatch.setattr(game_loop, "SAVE_RATIO", 0)
    cfg = dict(agent="random", opponents=["random"] * 3, reference="random", games=4, seed=2,
               progress=False)
    monkeypatch.setenv(S.KEY_ENV, STRONG)
    with pytest.raises(_Stop):
        run_trial(TrialConfig(**cfg), tmp_path / "run", on_game=_stop_after(1))
    path = _key_home(tmp_path, monkeypatch, b"")
    marker = tmp_path / "ran"
    forged = pickle.dumps({"games": 2, "agents": _Planted(str(marker))})
    (tmp_path / "run" / STATE_FILE).write_bytes(S.seal(forged, b""))
    with pytest.raises(TrialError) as info:
        run_trial(TrialConfig(**cfg), tmp_path / "run")
    assert not marker.exists()
    assert str(path) in str(info.value) and "\n" not in str(info.value)


# --- issue 29, finding 6: a snapshot is bound to its trial and to the game it was taken at ----
def test_a_snapshot_from_another_trial_is_ignored_with_a_warning(tmp_path: Path, capsys,
                                                                 monkeypatch) -> None:
    import shutil

    import evaluation.harness.game_loop as game_loop
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig
    from evaluation.harness.trial_folder import GAMES_FILE, STATE_FILE

    monkeypatch.setenv(S.KEY_ENV, STRONG)
    monkeypatch.setattr(game_loop, "SAVE_RATIO", 0)
    mine = dict(agent="random", opponents=["random"] * 3, reference="random", games=5, seed=4,
                progress=False)
    other = dict(mine, agent="baseline")  # the same user's trial with another agent
    run_trial(TrialConfig(**mine), tmp_path / "full")
    with pytest.raises(_Stop):  # its snapshot after game 2 (of 3 played here)
        run_trial(TrialConfig(**other), tmp_path / "other", on_game=_stop_after(1))
    with pytest.raises(_Stop):
        run_trial(TrialConfig(**mine), tmp_path / "cut", on_game=_stop_after(2))
    shutil.copy(tmp_path / "other" / STATE_FILE, tmp_path / "cut" / STATE_FILE)
    capsys.readouterr()
    run_trial(TrialConfig(**mine), tmp_path / "cut")
    err = capsys.readouterr().err
    assert "warning" in err and STATE_FILE in err and "another trial" in err, err
    assert (tmp_path / "cut" / GAMES_FILE).read_bytes() == (
        tmp_path / "full" / GAMES_FILE).read_bytes()


def test_a_snapshot_from_a_later_point_is_ignored_with_a_warning(tmp_path: Path, capsys,
                                                                 monkeypatch) -> None:
    """The same trial's snapshot after game 5 is no use to a folder holding 3 games."""
    import shutil

    import evaluation.harness.game_loop as game_loop
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig
    from evaluation.harness.trial_folder import GAMES_FILE, STATE_FILE

    monkeypatch.setenv(S.KEY_ENV, STRONG)
    monkeypatch.setattr(game_loop, "SAVE_RATIO", 0)
    cfg = dict(agent="random", opponents=["random"] * 3, reference="random", games=6, seed=7,
               progress=False)
    with pytest.raises(_Stop):
        run_trial(TrialConfig(**cfg), tmp_path / "late", on_game=_stop_after(4))
    with pytest.raises(_Stop):
        run_trial(TrialConfig(**cfg), tmp_path / "cut", on_game=_stop_after(2))
    shutil.copy(tmp_path / "late" / STATE_FILE, tmp_path / "cut" / STATE_FILE)
    capsys.readouterr()
    run_trial(TrialConfig(**cfg), tmp_path / "cut")
    err = capsys.readouterr().err
    assert "warning" in err and "game 5" in err, err
    run_trial(TrialConfig(**cfg), tmp_path / "full")
    assert (tmp_path / "cut" / GAMES_FILE).read_bytes() == (
        tmp_path / "full" / GAMES_FILE).read_bytes()


# --- issue 52, finding 9 ------------------------------------------------------------------------
def test_a_key_file_that_is_a_directory_is_refused_in_one_line(tmp_path: Path,
                                                               monkeypatch) -> None:
    """It silently disabled snapshots (the key could not be read, so none was used)."""
    path = _key_home(tmp_path, monkeypatch, None)
    path.mkdir(parents=True)
    with pytest.raises(S.KeyProblem) as info:
        S.snapshot_key()
    message = str(info.value)
    assert "\n" not in message and str(path) in message and "not a regular file" in message


def test_a_key_in_the_environment_need_not_be_utf8(tmp_path: Path, monkeypatch) -> None:
    """A non-UTF-8 $OPENMONO_SNAPSHOT_KEY gave a 17-line traceback; its bytes are the key."""
    import os

    _key_home(tmp_path, monkeypatch, None)
    raw = b"\xff\xfe" * 20
    monkeypatch.setitem(os.environb, S.KEY_ENV.encode(), raw)
    assert S.snapshot_key() == raw
    monkeypatch.setitem(os.environb, S.KEY_ENV.encode(), b"\xff" * 8)
    with pytest.raises(S.KeyProblem, match="8 bytes"):
        S.snapshot_key()
