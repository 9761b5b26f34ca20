"""`evaluation.seal`: only snapshots sealed with this user's key are trusted."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from evaluation import seal as S


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
    monkeypatch.setenv(S.KEY_ENV, "cluster-secret")
    assert S.snapshot_key() == b"cluster-secret"


def test_no_usable_key_means_nothing_is_sealed_and_a_trial_still_resumes(
        tmp_path: Path, monkeypatch) -> None:
    import evaluation.runner as runner
    from evaluation.runner import GAMES_FILE, STATE_FILE, TrialConfig, run_trial

    monkeypatch.setattr(runner, "SAVE_RATIO", 0)  # a snapshot after every game, if sealable
    cfg = dict(agent="random", opponents=["random"] * 3, reference="random",
               games=3, seed=1, progress=False)
    monkeypatch.setenv(S.KEY_ENV, "k")
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
