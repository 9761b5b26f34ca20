"""Issue 29, finding 12: sanity limits with a one-option override, a time budget for
plugin hooks, `sys.exit` from a plugin reported in one line, and games ended by the turn
limit counted in the summary and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.harness.plugin_errors import PluginError
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig, TrialError
from evaluation.harness.trial_folder import GAMES_FILE, read_records
from novelties.testing import temporary_plugins

FAST = ["agent=random", "opponents=[random,random,random]", "reference=random",
        "progress=false", "plots=false"]


def test_a_huge_trial_asks_for_allow_huge() -> None:
    from evaluation.trials.composed import CommandError
    from evaluation.trials.trial_args import check_command

    with pytest.raises(CommandError, match=r"allow_huge=true") as info:
        check_command([*FAST, "games=200000"])
    assert "\n" not in str(info.value) and "100000" in str(info.value).replace(",", "")
    cmd = check_command([*FAST, "games=200000", "allow_huge=true"])
    assert cmd.jobs[0].config.games == 200_000
    with pytest.raises(TrialError, match="allow_huge"):
        TrialConfig(games=100_001).validate()
    TrialConfig(games=100_000).validate()


_PLUGINS = '''
import os, sys, time
from novelties.base import Applied, Novelty
from openmono.hooks import Hooks


class Spin(Novelty):
    """Its end_of_turn hook spins (for at most 60 s) while SPIN is set."""
    name = "spin"
    category = "class"
    description = "spins in a hook"
    presets = {"easy": {}, "medium": {}, "hard": {}}

    def apply(self, schema, params):
        def end_of_turn(game, seat):
            if os.environ.get("SPIN") == "1":
                t0 = time.monotonic()
                while time.monotonic() < t0 + 60:
                    pass
            return
            yield
        return Applied(schema, Hooks(end_of_turn=end_of_turn))


class Nap(Novelty):
    """Its end_of_turn hook sleeps (for at most 60 s) while NAP is set."""
    name = "nap"
    category = "class"
    description = "sleeps in a hook"
    presets = {"easy": {}, "medium": {}, "hard": {}}

    def apply(self, schema, params):
        def end_of_turn(game, seat):
            if os.environ.get("NAP") == "1":
                time.sleep(60)
            return
            yield
        return Applied(schema, Hooks(end_of_turn=end_of_turn))


class Quit(Novelty):
    """Its end_of_turn hook calls sys.exit(3)."""
    name = "quit"
    category = "class"
    description = "exits in a hook"
    presets = {"easy": {}, "medium": {}, "hard": {}}

    def apply(self, schema, params):
        def end_of_turn(game, seat):
            sys.exit(3)
            yield
        return Applied(schema, Hooks(end_of_turn=end_of_turn))


class Short(Novelty):
    """Games end by the turn limit after 6 turns."""
    name = "short"
    category = "class"
    description = "a six-turn game"
    presets = {"easy": {}, "medium": {}, "hard": {}}

    def apply(self, schema, params):
        bank = schema.bank.model_copy(update={"turn_limit": 6})
        return Applied(schema.model_copy(update={"bank": bank}))
'''
_ENTRY = {"spin": "limitpkg:Spin", "nap": "limitpkg:Nap", "quit": "limitpkg:Quit", "short": "limitpkg:Short"}


@pytest.fixture
def plugins(tmp_path: Path):
    with temporary_plugins(tmp_path / "plugins", {"limitpkg": _PLUGINS}, _ENTRY,
                           dist="limitpkg"):
        yield


def _cfg(novelty: str, **kw) -> TrialConfig:
    base = dict(agent="random", opponents=["random"] * 3, reference="random", novelty=novelty,
                inject_at=2, games=4, seed=1, progress=False)
    return TrialConfig(**{**base, **kw})


def test_a_hook_past_its_budget_ends_the_trial_in_one_line(tmp_path: Path, plugins,
                                                           monkeypatch) -> None:
    monkeypatch.setenv("SPIN", "1")
    with pytest.raises(PluginError) as info:
        run_trial(_cfg("spin", hook_budget=0.5), tmp_path / "run")
    message = str(info.value)
    assert "\n" not in message
    for word in ("'spin'", "'end_of_turn' hook", "game 2", "0.5", "hook_budget"):
        assert word in message, (word, message)
    assert len(read_records(tmp_path / "run" / GAMES_FILE)) == 2  # the games are kept
    monkeypatch.setenv("SPIN", "0")  # fixed: the same trial resumes
    assert run_trial(_cfg("spin", hook_budget=0.5), tmp_path / "run")["games"] == 4


def test_a_spinning_hook_is_stopped_in_another_thread_too(tmp_path: Path, plugins,
                                                          monkeypatch) -> None:
    import threading

    monkeypatch.setenv("SPIN", "1")
    raised: list[BaseException] = []

    def play() -> None:
        try:
            run_trial(_cfg("spin", hook_budget=0.5), tmp_path / "run")
        except BaseException as exc:  # noqa: BLE001 - looked at below
            raised.append(exc)

    worker = threading.Thread(target=play, daemon=True)
    worker.start()
    worker.join(timeout=50)
    assert not worker.is_alive() and len(raised) == 1
    assert isinstance(raised[0], PluginError) and "'end_of_turn' hook" in str(raised[0])


def test_a_hook_asleep_past_its_budget_is_woken_in_the_main_thread(tmp_path: Path, plugins,
                                                                    monkeypatch) -> None:
    monkeypatch.setenv("NAP", "1")
    with pytest.raises(PluginError) as info:
        run_trial(_cfg("nap", hook_budget=0.5), tmp_path / "run")
    assert "'nap' ran past the 0.5s budget" in str(info.value)
    assert "'end_of_turn' hook" in str(info.value)
    assert len(read_records(tmp_path / "run" / GAMES_FILE)) == 2


def test_sys_exit_in_a_plugin_is_reported_in_one_line(tmp_path: Path, plugins) -> None:
    with pytest.raises(PluginError) as info:
        run_trial(_cfg("quit"), tmp_path / "run")
    message = str(info.value)
    assert "\n" not in message
    for word in ("'quit'", "sys.exit(3)", "'end_of_turn' hook", "game 2"):
        assert word in message, (word, message)
    assert len(read_records(tmp_path / "run" / GAMES_FILE)) == 2


def test_turn_limit_games_are_counted_in_summary_and_report(tmp_path: Path, plugins) -> None:
    from evaluation.reports.report import write_report

    summary = run_trial(_cfg("short", reference=None), tmp_path / "run")
    ends = [r["end_reason"] for r in read_records(tmp_path / "run" / GAMES_FILE)]
    assert ends[2:] == ["turn_limit", "turn_limit"]
    assert summary["turn_limit_games"] == ends.count("turn_limit") >= 2
    saved = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert saved["turn_limit_games"] == summary["turn_limit_games"]
    write_report(str(tmp_path / "run"), summary, plots=False)
    report = (tmp_path / "run" / "report.md").read_text()
    assert f"| games ended by the turn limit | {summary['turn_limit_games']} |" in report


@pytest.mark.parametrize("value", ["-1", "0", "abc", "true"])
def test_a_bad_hook_budget_is_one_line(value: str) -> None:
    from evaluation.trials.composed import CommandError
    from evaluation.trials.trial_args import check_command

    with pytest.raises(CommandError, match="hook_budget"):
        check_command([*FAST, f"hook_budget={value}"])
    assert check_command([*FAST, "hook_budget=null"]).jobs[0].config.hook_budget is None
