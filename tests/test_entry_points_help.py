"""Every `python -m` command of the project answers `--help` with exit 0 and lists its
options: a newcomer's first question to a command never ends in a traceback or an error."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from openmono_cli import Options, group_prefix

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("openmono", "agents", "evaluation", "envs", "novelties")
# Not commands a person runs: the reaper a sweep starts for itself.
INTERNAL = {"evaluation.trials.sweep_guard"}
# Hydra apps have no main(argv): asked in a child process; the words their help shows.
HYDRA = {"evaluation.trial": ["agent", "novelty", "games"],
         "evaluation.trials.trial": ["agent", "novelty", "games"],
         "agents.drl.train": ["algo", "games", "out: null"],
         "agents.drl.imitate": ["teacher", "games", "out: null"]}
# Commands without an options model: words their help must show.
WORDS = {"novelties": ["list", "show", "difficulty", "cards"],
         "agents.remote": ["serve", "check"],
         "openmono.protocol": ["schema"]}


def entry_points() -> list[str]:
    """Every module with a `__main__` block, and every package with `__main__.py`."""
    found = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            rel = path.relative_to(ROOT).with_suffix("")
            if path.name == "__main__.py":
                found.add(".".join(rel.parts[:-1]))
            elif "__name__ == \"__main__\"" in path.read_text():
                found.add(".".join(rel.parts))
    return sorted(found - INTERNAL)


@pytest.mark.parametrize("module", entry_points())
def test_help_exits_0_and_lists_the_options(module: str, capsys) -> None:
    if module in HYDRA:
        done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert all(w in done.stdout for w in HYDRA[module]), done.stdout
        return
    path = ROOT.joinpath(*module.split("."))
    mod = importlib.import_module(f"{module}.__main__" if path.is_dir() else module)
    try:
        code = mod.main(["--help"])
    except SystemExit as exc:
        code = exc.code
    text = capsys.readouterr().out
    assert code in (0, None), text
    home = sys.modules[mod.main.__module__]  # (a forwarding `evaluation.X`: its new home)
    models = [m for _, m in inspect.getmembers(home, inspect.isclass)
              if issubclass(m, Options) and m is not Options and m.__module__ == home.__name__]
    wanted = WORDS.get(module) or [_shown(m, field) for m in models for field in m.model_fields]
    assert wanted, f"{module}: no options model and no words to look for"
    assert all(w in text for w in wanted), (wanted, text)


def _shown(model: type[Options], field: str) -> str:
    """How the help names an option: `games=`, or a group's `novelty.params.`."""
    prefix = group_prefix(model, field)
    return f"{prefix}." if prefix else f"{model.model_fields[field].alias or field}="


def test_the_list_finds_the_commands() -> None:
    found = entry_points()
    assert {"evaluation.bench", "evaluation.check", "agents.drl.train", "novelties",
            "agents.remote", "envs.reference", "openmono.protocol"} <= set(found)


def test_a_command_runs_under_the_profiler(tmp_path) -> None:
    """`python -m cProfile -m envs.bench ...` (how the results pages profile): run that way
    a module's globals are not `__main__`'s, and its options must still resolve their
    postponed annotations (`Literal[...]` here)."""
    out = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(tmp_path / "p"), "-m",
                          "envs.bench", "env=gym", "steps=20", "seed=0"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-600:]
    assert "steps_per_second" in out.stdout


def test_the_results_check_runs_under_the_profiler(tmp_path) -> None:
    """Its records are pydantic models built at import, outside any command's options."""
    out = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(tmp_path / "p"), "-m",
                          "evaluation.results", "check"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-600:]
    assert "match their data" in out.stdout
