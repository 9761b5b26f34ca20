"""Issue 52, finding 8: agents that misbehave (in process or isolated) cost counted
faults or one clear line, never a crash, a hang, a misreport or a games.jsonl that is
not JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig

FAST = dict(opponents=["random"] * 3, reference="random", progress=False)


def _strict(line: str) -> dict[str, Any]:
    def refuse(word: str) -> Any:
        raise ValueError(f"{word} is not JSON")

    return json.loads(line, parse_constant=refuse)


@pytest.mark.parametrize("agent", ["BadChanges", "NanConfidence", "InfEvidence"])
def test_a_malformed_report_is_a_report_fault(tmp_path: Path, agent: str) -> None:
    """changes=[1,"x",None] crashed the report writer; confidence=nan was written into
    games.jsonl as NaN, which is not JSON."""
    from evaluation.reports.report import write_report

    out = tmp_path / "run"
    summary = run_trial(TrialConfig(agent=f"misbehaving_agents:{agent}", games=2, **FAST), out)
    records = [_strict(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for r in records:
        assert r["report"] == {"detected": False, "confidence": 0.0, "changes": []}
        assert "report_fault" in r
    write_report(str(out), summary, plots=False)
    assert (out / "report.md").exists() and (out / "report.html").exists()
    _strict((out / "summary.json").read_text())


def test_an_agents_sys_exit_is_a_fault_not_a_plugins(tmp_path: Path) -> None:
    """An in-process agent's sys.exit(3) was reported as "novelty plugin 'rent_hike'
    called sys.exit(3)" and stopped the trial; it is the agent's counted fault."""
    summary = run_trial(TrialConfig(agent="misbehaving_agents:Exits", novelty="rent_hike",
                                    inject_at=0, games=2, **FAST), tmp_path / "run")
    assert summary["games"] == 2 and summary["faults"] >= 1


def test_an_agents_keyboard_interrupt_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    """KeyboardInterrupt from an agent (or Ctrl-C) printed a 57-line traceback; now one
    line saying the recorded games are kept, exit 130."""
    from evaluation.trials import trial as trial_cli

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        trial_cli.cli(["agent=misbehaving_agents:Interrupts", "opponents=[random,random]",
                       "reference=random", "progress=false", "plots=false", "games=3",
                       "hydra.run.dir=run"])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert info.value.code == 130
    assert len(err) == 1 and err[0].startswith("interrupted: ") and "resume" in err[0], err


def _gone(pid: int) -> bool:
    """Whether process `pid` has ended (a zombie waiting for its reaper counts)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.parametrize("limits,want", [
    ({}, (4096 << 20, 86_400)),
    ({"isolate_memory": 512, "isolate_cpu": 600}, (512 << 20, 600))])
def test_isolated_children_are_limited_and_take_their_children_with_them(
        tmp_path: Path, monkeypatch, limits: dict[str, int], want: tuple[int, int]) -> None:
    """Grandchildren outlived the trial (only the direct child was signalled), and
    children had no memory or CPU limits."""
    import time

    out = tmp_path / "said"
    monkeypatch.setenv("MISBEHAVE_OUT", str(out))
    summary = run_trial(TrialConfig(agent="misbehaving_agents:Spawner", games=1,
                                    isolate=["agent"], **FAST, **limits), tmp_path / "run")
    assert summary["games"] == 1
    pid, data, cpu = (int(w) for w in out.read_text().split())
    assert (data, cpu) == want
    deadline = time.monotonic() + 30  # (a safety net: the kill is sent before run_trial returns)
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not _gone(pid):
        import os
        import signal

        os.kill(pid, signal.SIGKILL)
        pytest.fail("the isolated agent's grandchild outlived the trial")


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "lots"])
def test_isolate_limits_are_checked(value: Any) -> None:
    from evaluation.harness.trial_config import TrialError

    with pytest.raises(TrialError, match="isolate_memory must be a positive integer"):
        TrialConfig(agent="random", isolate_memory=value, **FAST).validate()


@pytest.mark.parametrize("agent", ["Blocks", "Spins", "BlocksReport"])
def test_an_in_process_agent_that_blocks_is_a_counted_fault(tmp_path: Path, agent: str) -> None:
    """An in-process agent that blocked forever hung the trial silently; a decision past
    `decision_budget` is now the phase default and a counted fault. (The trial runs in a
    child process only so that a hang fails the test instead of stalling it.)"""
    import subprocess
    import sys

    code = ("import json, sys; from evaluation.harness.runner import TrialConfig, run_trial; "
            f"s = run_trial(TrialConfig(agent='misbehaving_agents:{agent}', games=1, "
            "opponents=['random'] * 3, reference=None, progress=False, "
            f"decision_budget=0.5), sys.argv[1]); print(json.dumps(s))")
    here = Path(__file__).resolve().parent
    env = {**__import__("os").environ,
           "PYTHONPATH": f"{here.parent}:{here}"}
    try:
        done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "run")],
                              capture_output=True, text=True, timeout=240, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("the trial hung on an agent that blocks")
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["games"] == 1
    if agent == "BlocksReport":  # (no report: recorded as none, with why)
        record = json.loads((tmp_path / "run" / "games.jsonl").read_text().splitlines()[0])
        assert "DecisionTimeout" in record["report_fault"]
    else:
        assert summary["faults"] >= 1
