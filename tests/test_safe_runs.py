"""Results that survive anything (issue 18): refused runs touch nothing, one error style,
fast resume that says so, sweeps that resume and leave no worker behind."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from evaluation.games import bench
from evaluation.games import check
from evaluation.reports import compare
from evaluation.sweeps import detection_sweep
from evaluation.sweeps import detection_plan, detection_trials
from evaluation.games import tournament
from evaluation.trials import trial as trial_cli
from evaluation.harness.plugin_errors import PluginError
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig
from evaluation.harness.trial_folder import GAMES_FILE, STATE_FILE, read_records
from evaluation.trials.sweep_guard import descendants
from evaluation.trials.trial_command import sweep_dir_for
from novelties.testing import temporary_plugins

ROOT = Path(__file__).resolve().parents[1]
FAST = ["agent=random", "opponents=[random,random,random]", "reference=random",
        "progress=false", "plots=false"]


def snapshot(root: Path) -> dict[str, str]:
    """Every path under `root` with the hash of its bytes (folders as 'dir')."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        out[rel] = "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _trial(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "evaluation.trial", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=env)


def refused(argv: list[str], capsys: Any) -> str:
    """Run a command in-process; it must be refused with one or two lines, exit code 2."""
    try:
        code = trial_cli.cli(argv)
    except SystemExit as exc:  # pragma: no cover - the CLI returns its code
        code = exc.code
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, (argv, err)
    assert 1 <= len(lines) <= 2 and lines[0].startswith("error: "), (argv, err)
    assert "Traceback" not in err
    return lines[0]


# --- refused runs touch nothing -------------------------------------------------------------
BAD = [  # (arguments, words the one-line message must hold)
    (["agent=plannr"], ["plannr", "did you mean planner", "random"]),
    (["novelty=rent_hik"], ["rent_hik", "rent_hike"]),
    (["gamez=10"], ["gamez", "did you mean games"]),
    (["+gamez=10"], ["+gamez", "did you mean games"]),
    (["+games=10"], ["games", "without '+'"]),
    (["foo/bar=x"], ["foo/bar", "valid"]),
    (["hydra.run.dirr=x"], ["hydra.run.dirr"]),
    (["seed=1.5"], ["seed", "1.5", "integer"]),
    (["seed=abc"], ["seed", "abc"]),
    (["seed=-1"], ["seed", "-1", ">= 0"]),
    (["games=0"], ["games", "positive integer"]),
    (["detection=maybe"], ["detection", "maybe", "system", "given"]),
    (["novelty.difficulty=extreme"], ["novelty.difficulty", "novelty=NAME"]),
    (["novelty=rent_hike", "novelty.difficulty=extreme"], ["extreme", "easy, medium, hard"]),
    (["novelty=rent_hike", "novelty.params.factor=abc"], ["factor"]),
    (["novelty=rent_hike", "novelty.params.facter=2"], ["facter", "did you mean"]),
    (["agent.adapt=maybe"], ["agent.adapt", "maybe"]),
    (["window=[0.6,0.2]"], ["window"]),
    (["inject_at=500"], ["inject_at", "outside"]),
    (["opponents=[baseline,nobody]"], ["nobody", "baseline"]),
    (["seed=1,2"], ["--multirun"]),
    (["~then"], ["then"]),
    (["then=[nope]", "novelty=rent_hike"], ["nope"]),
    (["games"], ["key=value"]),
    (["--frobnicate"], ["--frobnicate", "--multirun"]),
    (["--multirun", "agent=random,plannr"], ["plannr", "planner"]),
    (["hydra/launcher=lcoal"], ["lcoal", "did you mean local"]),
    (["hydra.launcher.n_jobz=2", "hydra/launcher=local"], ["hydra.launcher.n_jobz"]),
    (["novelty=rent_hike", "then=x"], ["then", "list"]),
    (["agent.adapt=${oops}"], ["oops"]),
    (["plots=maybe"], ["plots", "true or false"]),
    (["novelty=rent_hike", "novelty.observability=maybe"], ["observability", "effects"]),
]


@pytest.mark.parametrize("args,words", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_trial_input_is_one_line_exit_2(tmp_path: Path, monkeypatch, capsys,
                                            args: list[str], words: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    line = refused(args, capsys)
    for word in words:
        assert word in line, (word, line)
    assert list(tmp_path.iterdir()) == []  # nothing created either


def test_refused_runs_leave_a_finished_folder_byte_for_byte(tmp_path: Path, monkeypatch,
                                                            capsys) -> None:
    proc = _trial(*FAST, "games=3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = tmp_path / "outputs/trial/random/none/seed0"  # not none-None
    assert (run / "summary.json").exists()
    before = snapshot(tmp_path)
    monkeypatch.chdir(tmp_path)
    for args in (["detection=maybe"], ["novelty.difficulty=extreme"], ["seed=1.5"],
                 ["seed=abc"], ["seed=-1"], ["agent=plannr"], ["gamez=3"],
                 ["+gamez=3"], ["novelty=rent_hike", "novelty.difficulty=extreme"],
                 ["games=0"], ["window=[2,3]"], ["agent.trade_rate=abc"]):
        refused([*FAST, "games=3", *args], capsys)
    # The same folder holding another configuration is refused too, untouched.
    refused([*FAST, "games=4", f"hydra.run.dir={run}"], capsys)
    assert snapshot(tmp_path) == before


def test_unwritable_output_folder(tmp_path: Path, monkeypatch, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.chdir(tmp_path)
    line = refused([*FAST, f"hydra.run.dir={blocker}/run"], capsys)
    assert "output directory" in line
    assert blocker.read_text() == "not a folder" and sorted(tmp_path.iterdir()) == [blocker]


@pytest.mark.parametrize("main,args,word", [
    (bench.main, ["gamez=3"], "did you mean games"),
    (bench.main, ["seed=1.5"], "seed"),
    (bench.main, ["seed=-1"], "greater than or equal to 0"),
    (bench.main, ["agents=[random,nobody]"], "nobody"),
    (tournament.main, ["games=abc"], "games"),
    (tournament.main, ["novelty=rent_hike", "novelty.difficulty=extreme"], "extreme"),
    (check.main, ["workers=0"], "workers"),
    (check.main, ["+gamez=5"], "did you mean games"),
])
def test_other_tools_share_the_error_style(capsys, main, args, word) -> None:
    with pytest.raises(SystemExit) as info:
        main(args)
    err = capsys.readouterr().err
    assert info.value.code == 2 and word in err and len(err.strip().splitlines()) == 1, err


def test_compare_and_detection_sweep_errors(tmp_path: Path, capsys) -> None:
    assert compare.main([str(tmp_path), "oot=x"]) == 2
    assert "did you mean out" in capsys.readouterr().err
    (tmp_path / "f").write_text("")
    for argv, word in ((["games=0", f"out={tmp_path / 'd'}"], "games"),
                       (["agent=plannr"], "did you mean planner"),
                       (["rules=gnom", f"out={tmp_path / 'd'}"], "valid: standard"),
                       ([f"out={tmp_path / 'f' / 'x'}"], "output directory")):
        try:
            code = detection_sweep.main(argv)
        except SystemExit as exc:
            code = exc.code
        err = capsys.readouterr().err
        assert code == 2 and word in err and len(err.strip().splitlines()) == 1, err
    assert detection_sweep.main(["gamez=3"]) == 2
    assert "did you mean games" in capsys.readouterr().err
    assert detection_sweep.main(["--gamez", "3"]) == 2
    assert "--gamez" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


# --- a plugin that raises during a game -------------------------------------------------------
_HOOK_SRC = '''
import os
from novelties.base import Applied, Novelty
from openmono.hooks import Hooks

class Flaky(Novelty):
    name = "flaky"
    category = "class"
    description = "raises in its rent hook from the third game while FLAKY is set; hard too"
    presets = {"easy": {}, "medium": {}, "hard": {}}

    def apply(self, schema, params):
        def rent(game, payer, square, amount):
            if os.environ.get("FLAKY") == "1":
                raise ZeroDivisionError("rent table broken")
            return amount
        return Applied(schema, Hooks(rent=rent))
'''


def test_a_raising_hook_ends_the_trial_in_one_line_and_it_resumes(tmp_path: Path,
                                                                   monkeypatch) -> None:
    cfg = dict(agent="random", opponents=["random"] * 3, reference="random", novelty="flaky",
               inject_at=2, games=5, seed=1, progress=False)
    with temporary_plugins(tmp_path / "plugins", {"flakypkg": _HOOK_SRC},
                           {"flaky": "flakypkg:Flaky"}, dist="flaky"):
        monkeypatch.setenv("FLAKY", "1")
        with pytest.raises(PluginError) as info:
            run_trial(TrialConfig(**cfg), tmp_path / "run")
        message = str(info.value)
        assert "\n" not in message
        for word in ("'flaky'", "'rent' hook", "game 2", "ZeroDivisionError", "2 recorded",
                     "resume"):
            assert word in message, (word, message)
        assert len(read_records(tmp_path / "run" / GAMES_FILE)) == 2
        monkeypatch.delenv("FLAKY")  # the plugin is fixed: the same trial resumes
        run_trial(TrialConfig(**cfg), tmp_path / "run")
        run_trial(TrialConfig(**cfg), tmp_path / "clean")
    assert (tmp_path / "run" / GAMES_FILE).read_bytes() == (
        tmp_path / "clean" / GAMES_FILE).read_bytes()


def test_a_raising_hook_through_the_cli(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    with temporary_plugins(plugins, {"flakypkg": _HOOK_SRC}, {"flaky": "flakypkg:Flaky"},
                           dist="flaky"):
        pass
    # temporary_plugins removes nothing from disk: point the subprocess at the folder.
    env = {**os.environ, "PYTHONPATH": f"{plugins}{os.pathsep}{ROOT}", "FLAKY": "1"}
    args = [sys.executable, "-m", "evaluation.trial", *FAST, "novelty=flaky", "games=4",
            "inject_at=1", f"hydra.run.dir={tmp_path / 'run'}"]
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=env)
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("error")]
    assert len(lines) == 1 and "'rent' hook" in lines[0] and "Traceback" not in proc.stderr
    proc = subprocess.run([*args, "--debug"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 2 and "Traceback" in proc.stderr


class Killed(Exception):
    """A trial stopped from outside after a recorded game."""


def _kill_after(game: int):
    def kill(record: dict) -> None:
        if record["game"] == game:
            raise Killed
    return kill


# --- resume: fast, says so, same bytes ---------------------------------------------------------
def test_resume_restores_the_agents_and_plays_only_the_missing_games(tmp_path: Path, capsys,
                                                                     monkeypatch) -> None:
    cfg = dict(agent="planner", novelty="rent_hike", inject_at=3, games=6, seed=3,
               detection="given", progress=False)
    run_trial(TrialConfig(**cfg), tmp_path / "full")

    kill = _kill_after(3)

    import evaluation.harness.game_loop as game_loop

    monkeypatch.setattr(game_loop, "SAVE_RATIO", 0)  # a snapshot after every game
    with pytest.raises(Killed):
        run_trial(TrialConfig(**cfg), tmp_path / "cut", on_game=kill)
    assert (tmp_path / "cut" / STATE_FILE).exists()
    played = []
    real = game_loop._play_one
    monkeypatch.setattr(game_loop, "_play_one", lambda c, g, *a: played.append(g) or real(c, g, *a))
    capsys.readouterr()
    run_trial(TrialConfig(**cfg), tmp_path / "cut")
    assert "resuming: found 4 of 6 games" in capsys.readouterr().err
    assert played == [4, 5]
    assert (tmp_path / "cut" / GAMES_FILE).read_bytes() == (
        tmp_path / "full" / GAMES_FILE).read_bytes()


def test_resume_from_an_older_snapshot_replays_only_the_games_after_it(
        tmp_path: Path, capsys, monkeypatch) -> None:
    import evaluation.harness.game_loop as game_loop

    cfg = dict(agent="random", opponents=["random"] * 3, reference="random",
               novelty="rent_hike", inject_at=2, games=7, seed=5, progress=False)
    run_trial(TrialConfig(**cfg), tmp_path / "full")
    real_save = game_loop._save_agents
    monkeypatch.setattr(game_loop, "_save_agents",
                        lambda out, games, agents: games == 2 and real_save(out, games, agents))
    monkeypatch.setattr(game_loop, "SAVE_RATIO", 0)

    kill = _kill_after(4)

    with pytest.raises(Killed):
        run_trial(TrialConfig(**cfg), tmp_path / "cut", on_game=kill)
    played = []
    real = game_loop._play_one
    monkeypatch.setattr(game_loop, "_play_one", lambda c, g, *a: played.append(g) or real(c, g, *a))
    capsys.readouterr()
    run_trial(TrialConfig(**cfg), tmp_path / "cut")
    assert "found 5 of 7 games" in capsys.readouterr().err
    assert played == [2, 3, 4, 5, 6]
    assert (tmp_path / "cut" / GAMES_FILE).read_bytes() == (
        tmp_path / "full" / GAMES_FILE).read_bytes()


def test_a_finished_trial_says_complete_without_loading_the_game(tmp_path: Path) -> None:
    """Why it answers in well under a second (a timing assert would only measure the
    machine's load): it reads the saved summary and imports neither Hydra, numpy, the
    engine, the agents nor the plugins."""
    args = [*FAST, "games=2", f"hydra.run.dir={tmp_path / 'run'}"]
    assert _trial(*args, cwd=tmp_path).returncode == 0
    before = snapshot(tmp_path / "run")
    proc = _trial(*args, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("complete: 2 games"), proc.stdout
    probe = ("import sys\nfrom evaluation.trials.trial import cli\nrc = cli(sys.argv[1:])\n"
             "heavy = ('hydra', 'omegaconf', 'numpy', 'openmono', 'agents', 'novelties')\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
             "sys.exit(rc)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", probe, *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and proc.stdout.startswith("complete: 2 games"), proc.stdout
    assert proc.stdout.splitlines()[-1] == "[]", proc.stdout
    # The same trial asked for in other words (an explicit default) is complete too,
    # and Hydra does not get to rewrite its .hydra/ folder.
    proc = _trial(*args, "seed=0", "detection=system", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("complete: 2 games"), proc.stdout
    assert snapshot(tmp_path / "run") == before


# --- sweeps -----------------------------------------------------------------------------------
def test_the_sweep_folder_is_named_after_the_command() -> None:
    a = sweep_dir_for(["agent=random,baseline", "seed=0,1"])
    assert a == sweep_dir_for(["seed=0,1", "agent=random,baseline", "plots=false"])
    assert a != sweep_dir_for(["agent=random,baseline", "seed=0,1,2"])


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _games(root: Path) -> dict[str, bytes]:
    """Each trial folder of the sweep with the bytes of its games.jsonl."""
    return {f.parent.name: f.read_bytes() for f in root.glob("multirun/*/*/games.jsonl")}


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_a_killed_sweep_leaves_no_worker_and_resumes_only_what_is_missing(
        tmp_path: Path) -> None:
    """One sweep, killed twice: SIGKILL on the fresh sweep's parent, then SIGINT on the
    parent of its resumed run. After each kill no worker survives, and the next run says
    exactly what the folder holds; the last run completes every trial without playing
    a finished one again. (Both signals on one sweep: each claim as when each signal had
    a sweep of its own, at the cost of one sweep and its resume.)"""
    sweep = ["--multirun", "hydra/launcher=local", "hydra.launcher.n_jobs=2", *FAST,
             "seed=0,1,2", "games=10"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    finished: dict[str, bytes] = {}  # trials complete at a kill: their bytes must not change
    expect = None  # what the next run must say about the folder
    for kill in (signal.SIGKILL, signal.SIGINT):
        start = {name: data.count(b"\n") for name, data in _games(tmp_path).items()}
        # A file, not a pipe, for what it says: a pipe stays open while any process that
        # inherited it lives, and the next kill's claim is about those processes.
        log = tmp_path / f"{kill.name}.stderr"
        with log.open("wb") as fh:
            parent = subprocess.Popen([sys.executable, "-m", "evaluation.trial", *sweep],
                                      cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                      stderr=fh)
        deadline = time.time() + 120
        while time.time() < deadline:  # two new games in one trial: the workers are busy
            if any(data.count(b"\n") >= start.get(name, 0) + 2
                   for name, data in _games(tmp_path).items()):
                break
            time.sleep(0.2)
        else:
            parent.kill()
            pytest.fail(f"the sweep did not start ({kill.name})")
        workers = descendants(parent.pid)
        assert workers, kill.name
        os.kill(parent.pid, kill)
        parent.wait(timeout=30)
        if expect is not None:
            err = log.read_text()
            assert expect in err, (expect, err[-2000:])
        deadline = time.time() + 15
        while time.time() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.2)
        assert not [p for p in workers if _alive(p)], kill.name
        folders = _games(tmp_path)
        done = {d.name for d in tmp_path.glob("multirun/*/*") if (d / "summary.json").exists()}
        assert done <= set(folders)
        partial = sum(1 for name, data in folders.items() if name not in done and data.count(b"\n"))
        expect = f"resuming: {len(done)} of 3 trials complete, {partial} partial"
        finished.update((name, folders[name]) for name in done)
    proc = _trial(*sweep, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert expect in proc.stderr, (expect, proc.stderr[-2000:])
    runs = sorted(d for d in tmp_path.glob("multirun/*/*") if d.is_dir())
    assert len(runs) == 3 and len(list(tmp_path.glob("multirun/*"))) == 1
    for run in runs:
        assert len(read_records(run / GAMES_FILE)) == 10
        if run.name in finished:  # finished trials were not played again
            assert (run / GAMES_FILE).read_bytes() == finished[run.name]
    again = _trial(*sweep, cwd=tmp_path)
    assert "resuming: 3 of 3 trials complete, 0 partial" in again.stderr
    assert "complete: all 3 trials" in again.stdout


# --- invariants at scale ----------------------------------------------------------------------
def test_check_runs_clean_and_writes_a_violation_with_its_command(tmp_path: Path, monkeypatch,
                                                                  capsys) -> None:
    assert check.main(["games=3", "seed=4", "progress=false", f"out={tmp_path}"]) == 0
    assert '"violations": 0' in capsys.readouterr().out
    import novelties.inject as inject

    real = inject.check_state

    def broken(rules, state):
        found = real(rules, state)
        return found + (["a planted violation"] if state.turn == 7 else [])

    monkeypatch.setattr(inject, "check_state", broken)
    assert check.main(["games=1", "seed=4", "start=2", "progress=false", f"out={tmp_path}"]) == 1
    out = capsys.readouterr().out
    assert "reproduce: python -m evaluation.check seed=4 start=2 games=1" in out
    case = json.loads((tmp_path / "game2" / "case.json").read_text())
    assert "a planted violation" in case["problems"][0]
    lines = (tmp_path / "game2" / "game.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "header" and json.loads(lines[-1])["type"] == "result"


def test_detection_sweep_plays_its_trials_under_the_rules_given(tmp_path: Path) -> None:
    """--rules gnome reaches every trial (and the planner's prior beliefs through the
    trial); a standard sweep's specs keep their old form so saved sweeps still resume."""
    assert all("rules" not in s for s in detection_plan.plan(1, 1, 0, 4, (0.3, 0.6), "random"))
    specs = detection_plan.plan(1, 1, 0, 4, (0.3, 0.6), "planner", rules="gnome")
    assert {s["rules"] for s in specs} == {"gnome"}
    assert detection_trials.trial_for(specs[0], str(tmp_path))[1].rules == "gnome"
    out = tmp_path / "sweep"
    code = detection_sweep.main(["agent=random", "per_cell=0", "controls=1",
                                 "games=2", "workers=1", "rules=gnome",
                                 f"out={out}"])
    assert code == 0
    config = json.loads(next(out.rglob("trial.json")).read_text())
    assert config["rules"] == "gnome"
    assert json.loads((out / "sweep.json").read_text())["args"]["rules"] == "gnome"


def test_detection_sweep_passes_agent_options_to_every_trial(tmp_path: Path, capsys) -> None:
    """`params.KEY=VALUE` (e.g. the planner without adaptation, `params.adapt=false`)
    reaches every trial's agent and the sweep's title; an option the agent does not take
    is one line naming the agent's options."""
    out = tmp_path / "sweep"
    code = detection_sweep.main(["agent=planner", "params.adapt=false", "per_cell=0",
                                 "controls=1", "games=2", "workers=1", f"out={out}"])
    assert code == 0
    config = json.loads(next(out.rglob("trial.json")).read_text())
    assert config["agent_params"] == {"adapt": False}
    saved = json.loads((out / "sweep.json").read_text())
    assert saved["args"]["params"] == {"adapt": False}
    assert "`planner(adapt=False)`" in (out / "sweep.md").read_text()
    capsys.readouterr()
    assert detection_sweep.main(["agent=planner", "params.adapt_not=1", "controls=1",
                                 "per_cell=0", f"out={tmp_path / 'bad'}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "adapt_not" in err[0] and "adapt" in err[0]
    assert not (tmp_path / "bad").exists()


class _Planted:
    """A pickle that runs code when loaded: what a results folder from elsewhere may hold."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def test_a_snapshot_not_written_here_is_never_unpickled(tmp_path: Path, capsys,
                                                        monkeypatch) -> None:
    """`agents.pkl` is only a shortcut for resuming; one this machine did not seal (copied
    from another folder, or planted) is ignored and the recorded games are re-played, so
    opening someone's results folder cannot run their code."""
    import pickle

    import evaluation.harness.game_loop as game_loop

    cfg = dict(agent="random", opponents=["random"] * 3, reference="random",
               novelty="rent_hike", inject_at=2, games=5, seed=5, progress=False)
    run_trial(TrialConfig(**cfg), tmp_path / "full")

    kill = _kill_after(2)

    monkeypatch.setattr(game_loop, "SAVE_RATIO", 0)
    with pytest.raises(Killed):
        run_trial(TrialConfig(**cfg), tmp_path / "cut", on_game=kill)
    marker = tmp_path / "ran"
    (tmp_path / "cut" / STATE_FILE).write_bytes(
        pickle.dumps({"games": 3, "agents": _Planted(str(marker))}))
    capsys.readouterr()
    run_trial(TrialConfig(**cfg), tmp_path / "cut")
    assert not marker.exists()
    assert "re-playing them to rebuild the agents' state" in capsys.readouterr().err
    assert (tmp_path / "cut" / GAMES_FILE).read_bytes() == (
        tmp_path / "full" / GAMES_FILE).read_bytes()
