"""The trial protocol end to end: determinism, resume after a kill, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaluation.harness.run_context import injection_game
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig, TrialError
from evaluation.harness.trial_folder import GAMES_FILE, read_records
from openmono.seeding import game_seed

FAST = dict(agent="random", opponents=["random"] * 3, reference="random", progress=False)


def _cfg(**kw):
    return TrialConfig(**{**FAST, **kw})


def test_same_config_same_bytes(tmp_path: Path) -> None:
    run_trial(_cfg(games=8, seed=3), tmp_path / "a")
    run_trial(_cfg(games=8, seed=3), tmp_path / "b")
    a = (tmp_path / "a" / GAMES_FILE).read_bytes()
    b = (tmp_path / "b" / GAMES_FILE).read_bytes()
    assert a == b and len(a.splitlines()) == 8


def test_killed_trial_resumes_to_identical_file(tmp_path: Path) -> None:
    full = tmp_path / "full"
    run_trial(_cfg(games=10, seed=5), full)
    cut = tmp_path / "cut"
    stop_after = 4

    class Killed(Exception):
        pass

    def kill(record):
        if record["game"] == stop_after - 1:
            raise Killed

    with pytest.raises(Killed):
        run_trial(_cfg(games=10, seed=5), cut, on_game=kill)
    # Simulate a kill in the middle of writing the next line, too.
    with (cut / GAMES_FILE).open("a") as fh:
        fh.write('{"game": 4, "half')
    assert len(read_records(cut / GAMES_FILE)) == stop_after
    run_trial(_cfg(games=10, seed=5), cut)
    assert (cut / GAMES_FILE).read_bytes() == (full / GAMES_FILE).read_bytes()


def test_resume_with_other_config_is_refused(tmp_path: Path) -> None:
    run_trial(_cfg(games=3, seed=1), tmp_path)
    with pytest.raises(TrialError, match="different configuration"):
        run_trial(_cfg(games=3, seed=2), tmp_path)


def test_resume_after_a_preset_was_retuned_is_refused(tmp_path: Path, monkeypatch) -> None:
    """A folder records the novelty's parameters as played: a re-tuned preset would
    otherwise be resumed into the same trial, and the trial labelled with the new one."""
    from novelties.registry import available_novelties

    cfg = _cfg(games=4, seed=2, novelty="rent_hike", difficulty="hard", inject_at=1)
    run_trial(cfg, tmp_path / "t")
    ident = json.loads((tmp_path / "t" / "trial.json").read_text())
    plugin = available_novelties()["rent_hike"]
    assert ident["novelty_preset"]["factor"] == plugin.presets["hard"]["factor"]
    retuned = {**plugin.presets, "hard": {**plugin.presets["hard"], "factor": 9.0}}
    monkeypatch.setattr(plugin, "presets", retuned)
    with pytest.raises(TrialError, match="novelty_preset"):
        run_trial(_cfg(games=6, seed=2, novelty="rent_hike", difficulty="hard", inject_at=1),
                  tmp_path / "t")


def test_records_hold_what_the_measures_need(tmp_path: Path) -> None:
    summary = run_trial(_cfg(games=5, seed=0), tmp_path)
    rec = read_records(tmp_path / GAMES_FILE)[0]
    for key in ("game", "seed", "seats", "winner", "won", "turns", "end_reason",
                "novelty_active", "report", "faults"):
        assert key in rec
    assert rec["seed"] == game_seed(0, 0)
    assert sorted(rec["seats"]) == ["random"] * 4
    for key in ("pnwp", "post_win_rate", "nda", "false_positive_rate", "detection_delay", "nrp",
                "characterization_accuracy", "games", "novelty", "agent"):
        assert key in summary
    assert summary["games"] == 5 and summary["novelty"] == "none"


def test_injection_game_inside_window() -> None:
    seen = {injection_game(_cfg(games=100, seed=s, novelty="x")) for s in range(200)}
    assert min(seen) >= 20 and max(seen) <= 60 and len(seen) > 20
    assert injection_game(_cfg(games=100, novelty="x", inject_at=7)) == 7
    assert injection_game(_cfg(games=100)) is None


@pytest.mark.parametrize("kw, needle", [
    (dict(games=0), "positive"),
    (dict(agent="nobody"), "available agents"),
    (dict(opponents=["random", "nobody"]), "available agents"),
    (dict(novelty="x", inject_at=50, games=10), "outside the trial"),
    (dict(window=(0.5, 1.5)), "window"),
    (dict(detection="psychic"), "system"),
])
def test_bad_config_fails_before_any_game(tmp_path: Path, kw, needle) -> None:
    with pytest.raises(TrialError, match=needle):
        run_trial(_cfg(**kw), tmp_path)
    assert not (tmp_path / GAMES_FILE).exists()


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evaluation.trial", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_cli_runs_and_reports(tmp_path: Path) -> None:
    run = tmp_path / "run"
    proc = _cli("agent=random", "opponents=[random,random,random]", "reference=random",
                "games=4", "progress=false", "plots=false",
                f"hydra.run.dir={run}", cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stderr
    assert "pre-novelty win rate" in proc.stdout
    summary = json.loads((run / "summary.json").read_text())
    assert summary["games"] == 4
    assert (run / "report.md").exists()


def test_cli_bad_input_is_short(tmp_path: Path) -> None:
    proc = _cli("games=0", f"hydra.run.dir={tmp_path}",
                cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "positive" in proc.stderr


def test_cli_unwritable_output_dir_is_short(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    proc = _cli("games=2", f"hydra.run.dir={blocker}/run",
                cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "output directory" in proc.stderr


def test_cli_unknown_novelty_lists_choices(tmp_path: Path) -> None:
    proc = _cli("novelty=rent_hik", f"hydra.run.dir={tmp_path}",
                cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "rent_hike" in proc.stderr + proc.stdout


def test_composed_novelties_warn_when_order_matters(tmp_path: Path, capsys) -> None:
    summary = run_trial(_cfg(games=3, inject_at=1, novelty="rent_hike", difficulty="medium",
                             then=["no_rent_in_jail"]), tmp_path)
    assert summary["novelty"] == "rent_hike+no_rent_in_jail"
    assert "warning:" in capsys.readouterr().err
    with pytest.raises(TrialError, match="then"):
        run_trial(_cfg(games=3, then=["rent_hike"]), tmp_path / "x")


def test_agent_that_cannot_be_built_gets_one_short_line() -> None:
    """The builder's own message names the bad option; the whole option dict (dozens of
    defaults for the planner) must not bury it."""
    from evaluation.trials.composed import CommandError
    from evaluation.trials.trial_checks import check_world

    cfg = _cfg(agent="hybrid_ppo", agent_params={"weights": None, "greedy": False,
                                                 "detector": "maybe"})
    with pytest.raises(CommandError) as err:
        check_world(cfg)
    msg = str(err.value)
    assert "\n" not in msg and "unknown detector 'maybe'" in msg
    assert "greedy" not in msg and msg.startswith("agent=hybrid_ppo")
