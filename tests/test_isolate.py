"""`isolate=process` (issue 29, finding 10): an agent built and played in a child process
cannot reach the engine, plays the same games as in process, and whatever its child
does (crash, hang, garbage) is a counted fault, never a crashed trial or an orphan."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig, TrialError

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ALL = ["agent", "reference", "opponent1", "opponent2", "opponent3"]


def _trial(tmp: Path, name: str, agent: str, isolate: list[str] | None = None,
           games: int = 3, **kw: object) -> tuple[dict, list[str]]:
    cfg = TrialConfig(agent=agent, opponents=kw.pop("opponents", ["baseline"] * 3),
                      games=games, seed=kw.pop("seed", 7), progress=False,
                      isolate=isolate or [], **kw)  # type: ignore[arg-type]
    summary = run_trial(cfg, tmp / name)
    return summary, (tmp / name / "games.jsonl").read_text().splitlines(keepends=True)


def _children() -> set[int]:
    """The live processes whose parent is this one (zombies included: not reaped)."""
    me, out = os.getpid(), set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{me}\n" in status:
                out.add(int(entry.name))
    return out


@pytest.fixture
def no_orphans():
    """Every child process an isolated seat starts is reaped by the end of the test."""
    before = _children()
    yield
    assert _children() <= before, "an isolated agent's child process was not reaped"


def _named(lines: list[str], old: str, new: str) -> list[str]:
    """The records with the agent renamed, without their digests (a digest chains over
    the record as written, agent name included)."""
    import re
    return [re.sub(r'"digest":"[0-9a-f]+",', "", line).replace(f'"{old}"', f'"{new}"')
            for line in lines]


# --- (1) the finding: from act(), the stack leads to the Game ------------------------------------
CHEAT = "isolate_agents:StackCheat"


def test_in_process_agent_can_reach_the_game_but_not_when_isolated(tmp_path, no_orphans):
    cheat, cheat_lines = _trial(tmp_path, "cheat", CHEAT, games=4, reference=None)
    honest, honest_lines = _trial(tmp_path, "honest", "baseline", games=4, reference=None)
    # In process the cheat finds the Game and pays itself: it wins every game.
    assert cheat["wins"] == 4 > honest["wins"]
    honest_lines = _named(honest_lines, "baseline", "baseline")
    assert _named(cheat_lines, CHEAT, "baseline") != honest_lines
    # Isolated it finds no Game: its games are those of the honest agent, byte for byte.
    _, isolated_lines = _trial(tmp_path, "isolated", CHEAT, ["agent"], games=4,
                               reference=None)
    assert _named(isolated_lines, CHEAT, "baseline") == honest_lines


def test_an_isolated_agent_is_never_built_in_the_harness(tmp_path, no_orphans):
    with pytest.raises(TrialError, match="exited with code 2 before playing"):
        _trial(tmp_path, "t", "isolate_agents:Unbuildable", ["agent"], games=1)
    assert not (tmp_path / "t" / "games.jsonl").exists()


# --- (2) the same games in process and isolated ----------------------------------------------------
@pytest.mark.parametrize("agent,opponents", [
    ("baseline", ["baseline"] * 3),
    ("fp_a", ["baseline", "fp_a", "baseline"]),
])
def test_isolated_games_are_byte_identical(tmp_path, no_orphans, agent, opponents):
    kw = dict(opponents=opponents, novelty="rent_hike", inject_at=1, games=3)
    _, local = _trial(tmp_path, "local", agent, **kw)
    _, one = _trial(tmp_path, "one", agent, ["opponent2"], **kw)
    _, every = _trial(tmp_path, "all", agent, ALL, **kw)
    assert local and one == local and every == local


def test_lifecycle_calls_and_novelty_reports_cross_the_wire(tmp_path, no_orphans):
    kw = dict(novelty="rent_hike", inject_at=1, games=3, detection="given", reference=None)
    _, local = _trial(tmp_path, "local", "isolate_agents:Lifecycle", **kw)
    _, isolated = _trial(tmp_path, "iso", "isolate_agents:Lifecycle", ["agent"], **kw)
    assert isolated == local
    reports = [json.loads(line)["report"] for line in isolated]
    assert [r["detected"] for r in reports] == [False, True, True]
    assert [r["changes"][0]["new_value"] for r in reports] == [[1, 1], [2, 2], [3, 3]]


def test_a_resumed_isolated_trial_replays_into_the_same_games(tmp_path, no_orphans):
    _, whole = _trial(tmp_path, "whole", "baseline", ["agent", "opponent1"], games=4)
    part = tmp_path / "part"
    part.mkdir()
    (part / "games.jsonl").write_text("".join(whole[:2]))
    _, resumed = _trial(tmp_path, "part", "baseline", ["agent", "opponent1"], games=4)
    assert resumed == whole
    assert not (part / "agents.pkl").exists()  # an isolated agent's state is its child's


# --- (3) bad option values: one line naming the valid choices ---------------------------------------
@pytest.mark.parametrize("argv,expected", [
    (["isolate=proc"], "isolate must be one of none, process, got 'proc'"),
    (["agent.isolate=yes"], "agent.isolate must be one of none, process, got 'yes'"),
    (["opponents=[baseline,fp_a@proc]"], "write NAME or NAME@process"),
    (["reference=baseline@"], "write NAME or NAME@process"),
    (["agent=remote", "agent.token=x", "agent.isolate=process"],
     "agent is a remote seat, which plays in another process already"),
    (["opponents=[remote@process]", "remote.tokens=[a]"], "opponent1 is a remote seat"),
    (["isolate_budget=0"], "isolate_budget must be a positive number"),
    (["agent=isolate_agents:Unbuildable", "agent.isolate=process"],
     "agent=isolate_agents:Unbuildable cannot be built: RuntimeError: no weights here"),
])
def test_bad_isolation_options_are_one_line(tmp_path, argv, expected):
    from evaluation.trials.composed import CommandError
    from evaluation.trials.trial_args import check_command

    with pytest.raises(CommandError) as err:
        check_command([*argv, f"hydra.run.dir={tmp_path / 'run'}"])
    assert expected in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "run").exists()


@given(st.text(max_size=30), st.one_of(st.none(), st.booleans(), st.integers(),
                                       st.text(max_size=10)))
def test_any_spelling_is_a_seat_or_one_line_naming_the_choices(name, value):
    from agents.remote.isolated import parse_isolation, split_name

    try:
        base, isolated = split_name(name)
    except ValueError as exc:
        assert "NAME@process" in str(exc) and "\n" not in str(exc)
    else:
        assert (base + "@process" if isolated else base) == name
    try:
        flag = parse_isolation(value, "isolate")
    except ValueError as exc:
        assert "none, process" in str(exc) and "\n" not in str(exc)
    else:
        assert flag == (value == "process")


def test_the_seat_spellings_of_the_small_tools(no_orphans):
    from evaluation.harness.remote_seats import make_agents

    with pytest.raises(ValueError, match="write NAME or NAME@process"):
        make_agents(["baseline", "baseline@thread"], {})
    with pytest.raises(ValueError, match="remote@process"):
        make_agents(["baseline", "remote@process"], {"tokens": ["t"]})
    seats = make_agents(["baseline", "baseline@process", "fp_a"], {}, isolate=[True, False,
                                                                               False])
    assert [type(s).__name__ for s in seats] == ["IsolatedAgent", "IsolatedAgent", "FPA"]
    assert all(s.proc is None for s in seats[:2])  # nothing started before a seat listens


# --- (4) a child that crashes, hangs or sends garbage is a fault, never a crash --------------------
@pytest.mark.parametrize("agent,kind", [("Crasher", "disconnect"), ("Hanger", "timeout"),
                                        ("Garbage", "malformed")])
def test_a_misbehaving_child_is_a_counted_fault(tmp_path, no_orphans, agent, kind):
    summary, lines = _trial(tmp_path, agent, f"isolate_agents:{agent}", ["agent"], games=2,
                            reference=None, isolate_budget=1.0)
    records = [json.loads(line) for line in lines]
    assert len(records) == 2
    for r in records:  # every game: the fault, the default action, and the game goes on
        assert r["remote_faults"].get(kind) == 1 and r["faults"] >= 1
    assert summary["remote_faults"][kind] == 2
    if kind != "malformed":  # the child was dropped: the defaults played the rest
        assert all(r["remote_faults"]["absent"] > 0 for r in records)


def _trial_process(tmp: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]))
    return subprocess.Popen(
        [sys.executable, "-m", "evaluation.trial", "agent=baseline", "games=5000",
         "isolate=process", "progress=false", "plots=false",
         "reference=null", f"hydra.run.dir={tmp}"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        # Why: a test run started in the background by a shell without job control
        # ignores SIGINT, and the trial would inherit that and never see the signal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _grandchildren(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"\nPPid:\t{pid}\n" in (entry / "status").read_text():
                    out.add(int(entry.name))
            except OSError:
                pass
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_trial_leaves_no_child_behind(tmp_path, sig):
    trial = _trial_process(tmp_path / "run")
    try:
        games = tmp_path / "run" / "games.jsonl"
        deadline = time.monotonic() + 60
        while not (games.exists() and games.read_text().count("\n") >= 2):
            assert trial.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        kids = _grandchildren(trial.pid)
        assert len(kids) == 4  # the four isolated seats
        trial.send_signal(sig)
        trial.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{k}").exists() for k in kids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [k for k in kids if Path(f"/proc/{k}").exists()]
    finally:
        if trial.poll() is None:
            trial.kill()
            trial.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_no_token_where_other_processes_can_read_it(monkeypatch, no_orphans):
    """The child's token comes through a pipe: not in its command line or environment,
    and the harness's own remote tokens are not handed down to it."""
    from agents.remote.isolated import IsolatedAgent

    from evaluation.harness.secret_args import SECRETS_ENV

    monkeypatch.setenv("OPENMONO_TOKEN", "the-remote-seats-secret")
    monkeypatch.setenv("OPENMONO_REMOTE_TOKENS", "the-remote-seats-secret,another")
    # (a trial command's tokens, kept from Hydra in this variable: evaluation.harness.secret_args)
    monkeypatch.setenv(SECRETS_ENV, '{"remote.tokens": ["the-remote-seats-secret"]}')
    seat = IsolatedAgent("baseline")
    try:
        seat.listen()
        seat.wait_for_client()
        assert seat.proc is not None
        seen = b"".join(Path(f"/proc/{seat.proc.pid}/{what}").read_bytes()
                        for what in ("cmdline", "environ"))
        assert seat.token.encode() not in seen
        assert b"the-remote-seats-secret" not in seen
    finally:
        seat.close()


def test_an_isolated_agent_that_raises_counts_the_fault_as_in_process(tmp_path, no_orphans):
    """An exception in `act` is a fault in process (the engine records it and plays the
    default); isolated, the child answers the default and says why, and the harness
    counts the same fault, not a clean decision."""
    name = "isolate_agents:Raiser"
    _, inproc = _trial(tmp_path, "in", name, games=2, reference=None)
    summary, isolated = _trial(tmp_path, "iso", name, ["agent"], games=2, reference=None)
    for a, b in zip(inproc, isolated):
        a, b = json.loads(a), json.loads(b)
        assert a["faults"] == b["faults"] >= 1
        assert b["remote_faults"].get("raised") == 1
        assert (a["winner"], a["turns"]) == (b["winner"], b["turns"])
    assert summary["remote_faults"]["raised"] == 2
