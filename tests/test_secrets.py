"""Issue 29, finding 8: a remote seat's token never reaches a file the run writes
(`command.json`, `.hydra/*.yaml`, `trial.json`, summaries, logs, folder names), it can
come from a file or the environment instead of the command line, and listening beyond
loopback says so."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agents.registry import make_agent
from agents.remote import serve
from remote_helpers import free_port

ROOT = Path(__file__).resolve().parents[1]
SECRET = "s3cr3t-a8f1e2-token"
FAST = ["opponents=[random,random,random]", "reference=random", "progress=false",
        "plots=false", "games=2"]


def _clients(port: int, token: str, trials: int = 1) -> threading.Thread:
    def play() -> None:  # (a connection made as a trial closes is lost: try again)
        deadline = time.monotonic() + 120
        served = 0
        while served < trials and time.monotonic() < deadline:
            try:
                served += serve(make_agent("random"), "127.0.0.1", port, token,
                                connect_timeout=60) > 0
            except Exception:  # noqa: BLE001
                time.sleep(0.05)
    t = threading.Thread(target=play, daemon=True)
    t.start()
    return t


def _trial(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-m", "evaluation.trial", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=240, env=full)


def _holding(root: Path, secret: str) -> list[str]:
    """Every path under `root` whose name or bytes hold `secret`."""
    return [str(p) for p in root.rglob("*") if secret in str(p.relative_to(root))
            or (p.is_file() and secret.encode() in p.read_bytes())]


@pytest.mark.parametrize("how", ["remote.tokens", "agent.token", "agent.token_file",
                                 "$OPENMONO_TOKEN"])
def test_a_token_never_reaches_a_file_of_the_run(tmp_path: Path, how: str) -> None:
    port = free_port()
    run = tmp_path / "run"
    env: dict[str, str] = {}
    if how == "remote.tokens":
        args = ["agent=random", "opponents=[random,random,remote]",
                f"remote.tokens=[{SECRET}]", f"remote.port={port}"]
    else:
        args = ["agent=remote", f"agent.port={port}"]
        if how == "agent.token":
            args.append(f"agent.token={SECRET}")
        elif how == "agent.token_file":
            (tmp_path / "token").write_text(SECRET + "\n")
            args.append(f"agent.token_file={tmp_path / 'token'}")
            run = tmp_path / "work" / "run"
        else:
            env["OPENMONO_TOKEN"] = SECRET
    keep = [a for a in FAST if not (how == "remote.tokens" and a.startswith("opponents="))]
    client = _clients(port, SECRET)
    proc = _trial([*keep, *args, f"hydra.run.dir={run}"], tmp_path, **env)
    client.join(timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (run / ".hydra").is_dir() and (run / "command.json").exists()
    assert (run / "summary.json").exists()
    assert _holding(run.parent, SECRET) == []
    assert SECRET not in proc.stdout + proc.stderr


def test_a_sweep_writes_no_token_either(tmp_path: Path) -> None:
    port = free_port()
    client = _clients(port, SECRET, trials=2)
    proc = _trial(["--multirun", "agent=random", "opponents=[random,remote]",
                   f"remote.tokens=[{SECRET}]", f"remote.port={port}", "seed=0,1",
                   *[a for a in FAST if not a.startswith("opponents=")]], tmp_path)
    client.join(timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(list(tmp_path.rglob("summary.json"))) == 2
    assert _holding(tmp_path, SECRET) == []
    assert SECRET not in proc.stdout + proc.stderr


def test_the_detection_sweep_records_its_command_without_the_token() -> None:
    from evaluation.sweeps.detection_report import _without_secrets

    assert _without_secrets(["--agent", "remote", "--remote-token", SECRET, "--games", "3"]
                            ) == ["--agent", "remote", "--remote-token", "***", "--games", "3"]
    assert SECRET not in " ".join(_without_secrets([f"--remote-token={SECRET}"]))
    assert _without_secrets(["agent=remote", f"remote_token={SECRET}"]) == [
        "agent=remote", "remote_token=***"]


def test_listening_beyond_loopback_warns(capsys) -> None:
    from agents.remote.seat import RemoteAgent

    seat = RemoteAgent(port=0, token=SECRET, host="0.0.0.0")
    try:
        seat.listen()
    finally:
        seat.close()
    err = capsys.readouterr().err
    assert "warning" in err and "0.0.0.0" in err and "beyond this machine" in err
    assert SECRET not in err
    seat = RemoteAgent(port=0, token=SECRET)  # loopback: nothing to say
    try:
        seat.listen()
    finally:
        seat.close()
    assert capsys.readouterr().err == ""


def test_the_client_reads_its_token_from_a_file(tmp_path: Path, capsys) -> None:
    from agents.remote.__main__ import main

    assert main(["serve", "random", "--token-file", str(tmp_path / "missing")]) == 2
    assert "--token-file" in capsys.readouterr().err
    (tmp_path / "empty").write_text("\n")
    assert main(["serve", "random", "--token-file", str(tmp_path / "empty")]) == 2
    assert "empty" in capsys.readouterr().err


def test_tokens_from_files_and_the_environment(tmp_path: Path, monkeypatch) -> None:
    from agents.remote.tokens import TOKENS_ENV, seat_tokens
    from evaluation.harness.remote_seats import checked_tokens

    (tmp_path / "a").write_text("alpha\n")
    (tmp_path / "b").write_text("  beta  \nignored second line\n")
    files = [str(tmp_path / "a"), str(tmp_path / "b")]
    assert checked_tokens({"token_files": files}, 2) == ["alpha", "beta"]
    assert checked_tokens({"tokens": ["x", "y"], "token_files": files}, 2) == ["x", "y"]
    monkeypatch.setenv(TOKENS_ENV, "one, two")
    assert seat_tokens() == ["one", "two"]
    with pytest.raises(ValueError, match="same token"):
        checked_tokens({"tokens": ["a", "a"]}, 2)
    with pytest.raises(ValueError, match=r"remote.token_files\[1\]"):
        checked_tokens({"token_files": [files[0], str(tmp_path / "missing")]}, 2)


def test_serve_takes_agent_options_after_its_flags():
    """docs/agents.md writes `serve cautious --port 7300 --token s3cret max_price=150`."""
    from agents.remote.__main__ import parse

    args = parse(["serve", "cautious", "--port", "7300", "--token", "s", "max_price=150"])
    assert args.agent == "cautious" and args.port == 7300 and args.options == ["max_price=150"]
    with pytest.raises(SystemExit):
        parse(["serve", "cautious", "--port", "7300", "stray"])


@pytest.mark.parametrize("spelling", [
    "remote={{tokens:[{t}],port:7399}}", "+remote={{tokens:[{t}]}}", "remote.tokens.0={t}",
    "agent={{name:remote,token:{t}}}", "remote={{'tokens': ['{t}']}}"])
@pytest.mark.parametrize("multirun", [False, True])
def test_a_token_under_another_spelling_is_refused(tmp_path: Path, monkeypatch, capsys,
                                                   spelling: str, multirun: bool) -> None:
    """Issue 52, finding 7: `remote={tokens:[T],...}` put the token into command.json,
    .hydra/*.yaml and sweep folder names; any spelling but the two kept out of files is
    refused in one line that does not repeat it, and nothing is written."""
    from evaluation.trials import trial as trial_cli
    from test_one_line import one_line

    monkeypatch.chdir(tmp_path)
    args = ["agent=random", "opponents=[random,remote]", spelling.format(t=SECRET),
            *[a for a in FAST if not a.startswith("opponents=")]]
    line = one_line(trial_cli.cli, [*(["--multirun", "seed=0,1"] if multirun else []), *args],
                    capsys)
    assert "token" in line and SECRET not in line
    assert list(tmp_path.iterdir()) == []


def test_token_files_and_ordinary_groups_are_not_secrets() -> None:
    from evaluation.harness.secret_args import is_secret, other_spelling

    for arg in ("agent=remote", "remote.token_files=[a,b]", "remote={port:7300,host:x}",
                "agent.token_file=/tmp/t", "agent.name=remote", "novelty=rent_hike"):
        assert other_spelling(arg) is None and not is_secret(arg), arg
    assert is_secret("remote.tokens=[a]") and is_secret("+agent.token=x")
