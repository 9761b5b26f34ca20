"""Issue 29, finding 11: every bad input found by the hostile-user review ends in one
line and exit code 2, and a refused command leaves no run folder (nor `.hydra/`) behind."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable

import pytest

from evaluation.reports import compare
from evaluation.sweeps import detection_sweep
from evaluation.trials import trial as trial_cli

FAST = ["agent=random", "opponents=[random,random,random]", "reference=random",
        "progress=false", "plots=false", "games=2"]


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): "dir" if p.is_dir() else
            hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))}


def one_line(main: Callable[[list[str]], Any], argv: list[str], capsys: Any) -> str:
    """`main(argv)` must exit 2 with one `error:` line on stderr and no traceback."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, (argv, code, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), (argv, err)
    return lines[0]


# --- refused before anything is written: no run folder, no .hydra/ -----------------------------
NOTHING_WRITTEN = {
    "empty remote token": (["opponents=[random,remote]", 'remote.tokens=[""]'], "remote.tokens"),
    "listening on an address not of this machine": (
        ["agent=remote", "agent.token=secret", "agent.host=8.8.8.8", "agent.connect_timeout=1"],
        "8.8.8.8"),
    "two remote seats with one token": (
        ["opponents=[random,remote,remote]", "remote.tokens=[a,a]",
         "remote.connect_timeout=1"], "token"),
    "empty hydra.run.dir": (["hydra.run.dir="], "hydra.run.dir"),
    "blank hydra.run.dir": (["hydra.run.dir= "], "hydra.run.dir"),
}


@pytest.mark.parametrize("case", sorted(NOTHING_WRITTEN))
def test_refused_trial_commands_write_nothing(tmp_path: Path, monkeypatch, capsys,
                                              case: str) -> None:
    args, word = NOTHING_WRITTEN[case]
    monkeypatch.chdir(tmp_path)
    keys = {a.split("=", 1)[0] for a in args}
    base = [a for a in FAST if a.split("=", 1)[0] not in keys]
    line = one_line(trial_cli.cli, [*base, *args], capsys)
    assert word in line, line
    assert list(tmp_path.iterdir()) == []


# --- a run folder holding unreadable files: refused, the folder untouched -------------------------
UNREADABLE = {
    "trial.json holding []": {"trial.json": b"[]\n"},
    "trial.json not UTF-8": {"trial.json": b'{"agent": "\xff\xfe"}\n'},
    "games.jsonl not UTF-8": {"games.jsonl": b'{"game": 0, "x": "\xff"}\n'},
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_unreadable_files_in_the_run_folder_are_one_line(tmp_path: Path, monkeypatch, capsys,
                                                         case: str) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for name, data in UNREADABLE[case].items():
        (run / name).write_bytes(data)
    before = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    line = one_line(trial_cli.cli, [*FAST, f"hydra.run.dir={run}"], capsys)
    assert next(iter(UNREADABLE[case])) in line, line
    assert _tree(tmp_path) == before


# --- the other tools ------------------------------------------------------------------------
def test_render_without_a_sweep_json(tmp_path: Path, capsys) -> None:
    line = one_line(detection_sweep.main, ["render=true", f"out={tmp_path}"], capsys)
    assert "sweep.json" in line
    (tmp_path / "sweep.json").write_bytes(b"\xff\xfe not json")
    line = one_line(detection_sweep.main, ["render=true", f"out={tmp_path}"], capsys)
    assert "sweep.json" in line


@pytest.mark.parametrize("port", ["99999", "-1", "65536"])
def test_a_remote_port_out_of_range(tmp_path: Path, capsys, port: str) -> None:
    out = tmp_path / "sweep"
    line = one_line(detection_sweep.main, [
        "agent=remote", "remote_token=secret", f"remote_port={port}",
        "per_cell=0", "controls=1", "games=1", f"out={out}"], capsys)
    assert "remote_port" in line and port in line
    assert not out.exists()


@pytest.mark.parametrize("text", ["[]", '{"agent": "a", "games": "many", "pnwp": "x"}',
                                  b"\xff\xfe"], ids=["a list", "wrong types", "not UTF-8"])
def test_compare_on_a_malformed_summary(tmp_path: Path, capsys, text: str | bytes) -> None:
    run = tmp_path / "run"
    run.mkdir()
    path = run / "summary.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    line = one_line(compare.main, [str(run), f"out={tmp_path / 'cmp'}"], capsys)
    assert str(path) in line
    assert not (tmp_path / "cmp").exists()


@pytest.mark.parametrize("out", ["out=", "out= "])
def test_compare_with_an_empty_out(tmp_path: Path, monkeypatch, capsys, out: str) -> None:
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig

    run = tmp_path / "run"
    run_trial(TrialConfig(agent="random", opponents=["random"] * 3, reference="random",
                          games=2, progress=False), run)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    line = one_line(compare.main, [str(run), out], capsys)
    assert "out" in line
    assert list(here.iterdir()) == []


# --- issue 52, finding 9: the malformed command-line corpus, every entry point ------------------
def _entry(name: str) -> Callable[[list[str]], Any]:
    """The `main(argv)` of an entry point, imported when the case runs."""
    import importlib

    module, _, fn = {"trial": "evaluation.trials.trial:cli", "train": "agents.drl.train:cli",
                     "tournament": "evaluation.games.tournament:main",
                     "detection_sweep": "evaluation.sweeps.detection_sweep:main",
                     "bench": "evaluation.games.bench:main",
                     "replay": "evaluation.reports.replay:main",
                     "verify": "evaluation.reports.verify:main",
                     "compare": "evaluation.reports.compare:main",
                     "remote": "agents.remote.__main__:main"}[name].partition(":")
    return getattr(importlib.import_module(module), fn)


TRIAL = [*FAST]
CORPUS: dict[str, tuple[str, list[str], str]] = {
    # name: (entry point, arguments, a word the line must hold)
    "trial isolate_budget=inf": ("trial", [*TRIAL, "isolate=process", "isolate_budget=inf"],
                                 "isolate_budget"),
    "trial isolate_budget=1e300": ("trial", [*TRIAL, "isolate=process",
                                             "isolate_budget=1e300"], "isolate_budget"),
    "trial agent.connect_timeout=inf": (
        "trial", [*TRIAL[1:], "agent=remote", "agent.token=secret",
                  "agent.connect_timeout=inf"], "connect_timeout"),
    "trial hook_budget=nan": ("trial", [*TRIAL, "hook_budget=nan"], "hook_budget"),
    "trial decision_budget=0": ("trial", [*TRIAL, "decision_budget=0"], "decision_budget"),
    "trial progress=maybe": ("trial", [*TRIAL[:4], *TRIAL[5:], "progress=maybe"], "progress"),
    "trial agent.policy=os:system": ("trial", [*TRIAL[1:], "agent=policy",
                                               "agent.policy=os:system"], "os:system"),
    "trial isolate=process agent.isolate=none": (
        "trial", [*TRIAL, "isolate=process", "agent.isolate=none"], "agent.isolate"),
    "trial agent=builtins:print": ("trial", [*TRIAL[1:], "agent=builtins:print"],
                                   "builtins:print"),
    "trial isolate_memory=0": ("trial", [*TRIAL, "isolate=process", "isolate_memory=0"],
                               "isolate_memory"),
    "tournament games=0": ("tournament", ["games=0", "progress=false"], "games"),
    "tournament agents=[nope]": ("tournament", ["agents=[nope,random]", "games=1",
                                                "progress=false"], "nope"),
    "tournament unknown key": ("tournament", ["gamez=3"], "gamez"),
    "tournament remote.connect_timeout=inf": (
        "tournament", ["agents=[random,remote]", "remote.tokens=[t]", "games=1",
                       "remote.connect_timeout=inf", "progress=false"], "connect_timeout"),
    "detection_sweep out=": ("detection_sweep", ["out=", "per_cell=0", "controls=1",
                                                 "games=1"], "out"),
    "detection_sweep out= blank": ("detection_sweep", ["out= ", "per_cell=0", "controls=1",
                                                       "games=1"], "out"),
    "detection_sweep workers=999": ("detection_sweep", ["workers=999", "per_cell=0",
                                                        "controls=1", "games=1",
                                                        "out=sweep"], "workers"),
    "detection_sweep progress=maybe": ("detection_sweep", ["progress=maybe", "out=sweep"],
                                       "progress"),
    "bench games=0": ("bench", ["games=0", "progress=false"], "games"),
    "bench agents=[nope]": ("bench", ["agents=[nope,random]", "games=1", "progress=false"],
                            "nope"),
    "bench isolate=maybe": ("bench", ["isolate=maybe", "games=1", "progress=false"],
                            "isolate"),
    "train algo=nope": ("train", ["algo=nope", "games=1"], "algo"),
    "train unknown key": ("train", ["gamez=3"], "gamez"),
    "train ppo.lr=abc": ("train", ["ppo.lr=abc", "games=1"], "ppo.lr"),
    "train ppo.nope=1": ("train", ["ppo.nope=1", "games=1"], "nope"),
    "train games=0": ("train", ["games=0"], "games"),
    "train progress=maybe": ("train", ["progress=maybe", "games=1"], "progress"),
    "train opponents=[nope]": ("train", ["opponents=[nope]", "games=1"], "nope"),
    "train hydra.run.dir=": ("train", ["hydra.run.dir=", "games=1"], "hydra.run.dir"),
    "replay no such folder": ("replay", ["no-such-run"], "no-such-run"),
    "replay game=abc": ("replay", ["no-such-run", "game=abc"], "game"),
    "verify no such folder": ("verify", ["no-such-run"], "no-such-run"),
    "verify nothing": ("verify", [], "dirs"),
    "compare no such folder": ("compare", ["no-such-run"], "no-such-run"),
    "compare out=": ("compare", ["no-such-run", "out="], "out"),
    "remote no command": ("remote", [], "command"),
    "remote unknown command": ("remote", ["bogus"], "bogus"),
    "remote serve --port abc": ("remote", ["serve", "random", "--port", "abc"], "port"),
    "remote serve --bogus": ("remote", ["serve", "random", "--bogus"], "--bogus"),
}


@pytest.mark.parametrize("case", sorted(CORPUS))
def test_the_malformed_command_line_corpus(tmp_path: Path, monkeypatch, capsys,
                                           case: str) -> None:
    """Every entry point: one line on stderr, exit 2, and nothing written (the command
    runs in an empty folder, which stays empty)."""
    from evaluation.harness.secret_args import SECRETS_ENV

    entry, argv, word = CORPUS[case]
    monkeypatch.delenv(SECRETS_ENV, raising=False)  # (a trial command sets it in-process)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path.parent / f"{tmp_path.name}-config"))
    line = one_line(_entry(entry), argv, capsys)
    assert word in line, line
    assert sorted(p.name for p in tmp_path.rglob("*")) == [], case


def test_detection_sweep_takes_progress_false(tmp_path: Path, monkeypatch, capsys) -> None:
    """docs/evaluation.md: every command takes progress=false; detection_sweep refused it."""
    from evaluation.sweeps import detection_sweep

    line = one_line(detection_sweep.main, ["progress=false", "per_cell=0", "controls=0",
                                           f"out={tmp_path / 'sweep'}"], capsys)
    assert "nothing to run" in line
