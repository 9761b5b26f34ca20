"""The protocol's schema, version check, what a client can see, the client library, the
command-line client and the standard-library example client."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from openmono.protocol import PROTOCOL_VERSION, schema_text, shipped_schema_text

from agents.registry import make_agent
from agents.remote import serve
from evaluation.harness.trial_config import TrialConfig
from remote_helpers import RawClient, free_port, run_with, trial_cfg

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_schema_is_generated_from_the_models() -> None:
    assert shipped_schema_text() == schema_text(), (
        "regenerate: python -m openmono.protocol schema > openmono/data/protocol-v1.schema.json")
    schema = json.loads(shipped_schema_text())
    assert schema["version"] == PROTOCOL_VERSION
    text = json.dumps(schema["client_to_server"])
    for kind in ("offer_trade", "bid", "build", "conclude", "until_cash", "give_jail_cards"):
        assert kind in text


def test_version_mismatch_is_refused_clearly(tmp_path: Path) -> None:
    port = free_port()
    got: dict = {}

    def old_client() -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(json.dumps({"type": "hello", "version": 99, "token": "seat-secret"}
                                 ).encode() + b"\n")
            got.update(json.loads(s.makefile("rb").readline()))
        RawClient(port).run()

    import threading
    import time

    def delayed() -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                old_client()
                return
            except OSError:
                time.sleep(0.02)

    summary, _ = run_with(trial_cfg(port, games=1), tmp_path, [delayed])
    assert got["type"] == "refused" and "version 99 is not supported" in got["reason"]
    assert f"version {PROTOCOL_VERSION}" in got["reason"]
    assert summary["remote_refused"] == {"version": 1}
    assert threading.active_count() >= 1


def test_a_client_sees_no_hidden_information(tmp_path: Path) -> None:
    port = free_port()
    seen: list[bytes] = []

    class Recording(RawClient):
        def play(self, reader):  # type: ignore[no-untyped-def]
            def lines():  # type: ignore[no-untyped-def]
                for line in reader:
                    seen.append(line)
                    yield line
            super().play(lines())

    cfg = trial_cfg(port, games=2)
    cfg.novelty, cfg.inject_at = "dice_weights", 1
    run_with(cfg, tmp_path, [Recording(port).run])
    assert len(seen) > 50

    def keys(value):  # type: ignore[no-untyped-def]
        if isinstance(value, dict):
            for k, v in value.items():
                yield k
                yield from keys(v)
        elif isinstance(value, list):
            for v in value:
                yield from keys(v)

    found, rule_keys = set(), set()
    for line in seen:
        msg = json.loads(line)
        found |= set(keys(msg))
        rule_keys |= set(keys(msg.get("rules") or {}))
    # The dice and the decks stay hidden (a roll's faces are public: `dice_rolled` events).
    assert not rule_keys & {"dice", "decks"}
    hidden = {"weights", "cards", "ground_truth", "hooks", "changes_truth"}
    assert not found & hidden, found & hidden
    text = b"".join(seen)
    assert b"dice_weights" not in text
    from openmono.seeding import game_seed
    assert str(game_seed(cfg.seed, 0)).encode() not in text  # the game seed stays home


def test_remote_opponents_and_the_client_library(tmp_path: Path) -> None:
    port = free_port()
    cfg = TrialConfig(agent="baseline", opponents=["remote", "remote", "random"], games=2,
                      seed=1, reference=None, progress=False,
                      remote={"port": port, "tokens": ["a-secret", "b-secret"],
                              "connect_timeout": 10.0})
    played: list[int] = []
    clients = [lambda t=t: played.append(serve(make_agent("baseline"), "127.0.0.1", port, t))
               for t in ("a-secret", "b-secret")]
    summary, records = run_with(cfg, tmp_path, clients)
    assert played == [2, 2]
    assert all(r["opponent_remote_faults"] == {} for r in records)
    assert "a-secret" not in (tmp_path / "trial.json").read_text()


def _trial_with_subprocess_client(tmp_path: Path, argv: list[str], port: int,
                                  games: int = 2) -> list[dict]:
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        _, records = run_with(trial_cfg(port, games=games, budget=5.0), tmp_path, [])
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert f"played {games} games" in err
    return records


def test_command_line_client_serves_a_built_in_agent(tmp_path: Path) -> None:
    port = free_port()
    records = _trial_with_subprocess_client(tmp_path, [
        sys.executable, "-m", "agents.remote", "serve", "baseline", "--port", str(port),
        "--token", "seat-secret"], port)
    assert all(r["remote_faults"] == {} for r in records)


def test_example_client_uses_the_standard_library_only(tmp_path: Path) -> None:
    source = (ROOT / "examples" / "random_client.py").read_text()
    assert len(source.splitlines()) < 100
    port = free_port()
    # -I -S: no site-packages and no user paths, so only the standard library is there.
    records = _trial_with_subprocess_client(tmp_path, [
        sys.executable, "-I", "-S", "examples/random_client.py", "--port", str(port),
        "--token", "seat-secret"], port)
    assert all(r["remote_faults"] == {} for r in records)


@pytest.mark.skipif(shutil.which("node") is None, reason="no node here (apt-get install nodejs)")
def test_the_node_client_plays_ten_games_without_a_fault(tmp_path: Path) -> None:
    """examples/node_client.js, written from docs/protocol.md and the JSON Schema."""
    port = free_port()
    records = _trial_with_subprocess_client(tmp_path, [
        "node", "examples/node_client.js", "--port", str(port), "--token", "seat-secret"],
        port, games=10)
    assert len(records) == 10
    assert all(r["remote_faults"] == {} and r["faults"] == 0 for r in records)


def test_bench_tournament_and_detection_sweep_seat_remote_agents(tmp_path: Path) -> None:
    from evaluation.games import bench
    from evaluation.sweeps import detection_trials
    from evaluation.games import tournament
    from openmono_cli import parse

    port = free_port()

    def client() -> None:
        serve(make_agent("baseline"), "127.0.0.1", port, "k")

    cfg = parse(bench.BenchOptions, ["games=2", "agents=[remote,baseline]", "progress=false",
                                     f"remote.port={port}", "remote.tokens=[k]"])
    out, _ = _with_client(lambda: bench.run(cfg), [client])
    assert out["games"] == 2
    summary, _ = _with_client(lambda: tournament.run_tournament(
        ["remote", "random"], games=2, remote={"port": port, "tokens": ["k"]}), [client])
    assert sum(summary["wins"]) == 2
    spec = {"agent": "remote", "agent_params": {"port": port, "token": "k"}, "novelty": None,
            "category": "control", "difficulty": None, "games": 2, "seed": 0,
            "window": [0.3, 0.6]}
    result, _ = _with_client(lambda: detection_trials.run_one(spec, str(tmp_path)), [client])
    assert result["games"] == 2 and result["agent_params"]["token"] == "***"


def _with_client(fn, clients):  # type: ignore[no-untyped-def]
    from remote_helpers import in_thread

    threads = [in_thread(c) for c in clients]
    try:
        return fn(), None
    finally:
        for t in threads:
            t.join(timeout=15)
            assert not t.is_alive()


def test_the_examples_of_docs_protocol_are_valid_messages() -> None:
    import re

    from openmono.protocol import CLIENT_ADAPTER, CLIENT_TYPES, SERVER_ADAPTER

    text = (ROOT / "docs" / "protocol.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    seen = set()
    for block in blocks:
        lines = block.strip().splitlines()
        try:  # one message per line, or one message spread over the block
            messages = [json.loads(line) for line in lines]
        except json.JSONDecodeError:
            messages = [json.loads(block)]
        for msg in messages:
            adapter = CLIENT_ADAPTER if msg["type"] in CLIENT_TYPES else SERVER_ADAPTER
            adapter.validate_python(msg)
            seen.add(msg["type"])
            if msg["type"] == "decide" and "legal_actions" in msg["observation"]:
                whole = msg  # the full example: every field of an observation is there
    from openmono.observation import Observation

    wire = set(whole["observation"])
    assert wire == set(Observation._fields) - {"rules"} | {"legal_actions"}
    assert whole["default"] in whole["observation"]["legal_actions"]
    assert seen >= {"hello", "action", "report", "welcome", "refused", "begin_game",
                    "decide", "end_game", "report_request", "bye"}


def test_only_never_act_fixed_answers_are_taken() -> None:
    from openmono.actions import CONCLUDE, DROP_OUT
    from openmono.protocol import Hello

    from agents.remote.seat import _fixed

    hello = Hello.model_validate({"type": "hello", "version": 1, "token": "t", "fixed_answers": {
        "post_roll": {"kind": "conclude"}, "buy": {"kind": "buy"},
        "trade_response": {"kind": "accept_trade"}, "bid": {"kind": "drop_out"},
        "no_such_phase": {"kind": "conclude"}}})
    assert _fixed(hello) == {"post_roll": CONCLUDE, "bid": DROP_OUT}


def test_every_action_travels_and_comes_back_equal() -> None:
    from openmono import actions as A
    from openmono.protocol import ACTION_ADAPTER
    from openmono.wire import action_from_wire

    samples = [A.Conclude(), A.Conclude(until_cash=300, watch="board"), A.BUY, A.DECLINE,
               A.Bid(137), A.DROP_OUT, A.PAY_JAIL_FINE, A.USE_JAIL_CARD, A.Build(39),
               A.SellBuilding(37), A.Mortgage(5), A.Unmortgage(15), A.SellProperty(25),
               A.OfferTrade(2, (1, 3), (39,), 50, 10, 1, 0), A.ACCEPT, A.REJECT]
    assert {a.kind for a in samples} == set(A.CORE_ACTION_KINDS)
    for action in samples:
        wire = json.loads(json.dumps(action.to_json()))
        model = ACTION_ADAPTER.validate_python(wire)
        assert action_from_wire(model.model_dump()) == action


def test_hydra_trial_command_with_remote_seats(tmp_path: Path) -> None:
    from remote_helpers import in_thread

    port = free_port()
    played: list[int] = []
    client = in_thread(lambda: played.append(
        serve(make_agent("random"), "127.0.0.1", port, "opp-secret", connect_timeout=60)))
    done = subprocess.run(
        [sys.executable, "-m", "evaluation.trial", "agent=baseline",
         "opponents=[remote,baseline,baseline]", "remote.tokens=[opp-secret]",
         f"remote.port={port}", "games=2", "reference=null", "progress=false",
         "plots=false", f"hydra.run.dir={tmp_path / 'run'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=180)
    client.join(timeout=15)
    assert done.returncode == 0, done.stderr
    assert played == [2]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["opponent_remote_faults"] == {}
    assert "opp-secret" not in (tmp_path / "run" / "trial.json").read_text()
    assert "opp-secret" not in (tmp_path / "run" / "summary.json").read_text()
