"""The tutorial in docs/novelties.md works as written: its plugin code and its
pyproject entry point are extracted, made discoverable through a real entry point
(a .dist-info on sys.path instead of `pip install`), and the plugin then passes the
same conformance checks as the built-in catalogue and shows up on the command line."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import openmono
from agents.random_agent import RandomAgent
from novelties.__main__ import main
from novelties.registry import apply_novelty, available_novelties
from novelties.testing import temporary_plugins

DOC = Path(__file__).resolve().parents[1] / "docs" / "novelties.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_plugin_example_is_about_twenty_lines() -> None:
    plugin = _blocks("python")[0]
    code = [ln for ln in plugin.splitlines() if ln.strip()]
    assert 15 <= len(code) <= 30
    assert "class SpeedTrap(Novelty)" in plugin


def test_tutorial_plugin_is_found_and_conforms(tmp_path, capsys) -> None:
    plugin_src = _blocks("python")[0]
    project = tomllib.loads(_blocks("toml")[0])
    eps = project["project"]["entry-points"]["openmono.novelties"]
    assert eps == {"speed_trap": "speed_trap:SpeedTrap"}
    assert "speed_trap" not in available_novelties()
    with temporary_plugins(tmp_path, {"speed_trap": plugin_src}, eps, dist="speed-trap"):
        assert "speed_trap" in available_novelties()
        # The conformance suite's checks, on the third-party plugin.
        import test_novelties_conformance as conf

        for difficulty in ("easy", "medium", "hard"):
            conf.test_apply_valid_pure_and_ground_truth("speed_trap", difficulty)
            conf.test_games_keep_invariants_deterministic_and_hide_hidden("speed_trap",
                                                                          difficulty)
            conf.test_mid_game_injection_is_consistent("speed_trap", difficulty)
        # It does what it says: landing on Free Parking costs the fine.
        p = apply_novelty("speed_trap", openmono.standard_schema(), "hard")
        game = openmono.Game(p.schema, 4, seed=3, hooks=p.hooks)
        openmono.play_game(p.schema, [RandomAgent() for _ in range(4)], seed=3, game=game)
        fines = [e for e in game.events if e.kind == "payment" and e.reason == "speed_trap"]
        assert fines and all(e.amount == 300 for e in fines)
        # The python usage snippet runs as written.
        exec(compile(_blocks("python")[1], "docs-usage", "exec"), {})
        # And the command line knows it.
        assert main(["list", "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert any(r["name"] == "speed_trap" and r["category"] == "class" for r in rows)
        assert main(["show", "speed_trap", "difficulty=hard"]) == 0
        out = capsys.readouterr().out
        assert "square:Free Parking" in out and "hidden" in out
    assert "speed_trap" not in available_novelties()


def test_docs_list_the_built_in_catalogue() -> None:
    text = DOC.read_text(encoding="utf-8")
    builtin = {n for n, c in available_novelties().items()
               if c.__module__.startswith("novelties.catalogue.")}
    listed = set(re.findall(r"`([a-z_]+)`", text.split("## The built-in catalogue")[1]
                            .split("## ")[0]))
    assert builtin == listed


def test_tutorial_trial_command_runs_with_the_plugin(tmp_path) -> None:
    """The tutorial's `python -m evaluation.trial novelty=speed_trap ...` line, as written
    (plus a short trial), in a fresh process that finds the plugin by its entry point."""
    import os
    import shlex
    import subprocess
    import sys

    line = next(ln for ln in DOC.read_text(encoding="utf-8").splitlines()
                if ln.startswith("python -m evaluation.trial novelty=speed_trap"))
    args = shlex.split(line)[3:]
    project = tomllib.loads(_blocks("toml")[0])
    eps = project["project"]["entry-points"]["openmono.novelties"]
    plugins = tmp_path / "plugins"
    run = tmp_path / "run"
    with temporary_plugins(plugins, {"speed_trap": _blocks("python")[0]}, eps, dist="speed-trap"):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(plugins), str(DOC.parents[1]), os.environ.get("PYTHONPATH", "")]))
        proc = subprocess.run(
            [sys.executable, "-m", "evaluation.trial", *args, "agent=baseline",
             "games=6", "inject_at=2", "progress=false",
             "plots=false", f"hydra.run.dir={run}"],
            cwd=DOC.parents[1], env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-1500:]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["novelty"] == "speed_trap" and summary["games"] == 6
    assert summary["injected_at"] == 2 and summary["category"] == "class"
