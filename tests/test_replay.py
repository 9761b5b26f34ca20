"""A game written as a JSON-lines log replays to the same final state and result.

`play_game(..., log=f)` writes a header (seed, seats, schema), every event, every
decision (faults included) and the result with a state snapshot. `openmono.replay`
re-runs the game from the header and the decisions alone; the replay must reproduce
the logged events one for one, the final state and the result, for well-behaved
agents and for agents that raise, return garbage or make illegal moves.
"""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import openmono
from agents.random_agent import RandomAgent
from openmono import actions as A
from openmono.events import event_to_json
from openmono.schema import GameSchema

STANDARD = openmono.standard_schema()
RECORD_TYPES = {"header", "event", "decision", "result"}


class FaultyAgent(RandomAgent):
    """A random agent that now and then raises, returns garbage or plays illegally."""

    def __init__(self, fault_rate: float = 0.1) -> None:
        super().__init__(trade_rate=0.1)
        self.fault_rate = fault_rate

    def act(self, obs: Any) -> Any:
        if self.rng.random() < self.fault_rate:
            pick = self.rng.randrange(5)
            if pick == 0:
                raise RuntimeError("agent bug")
            if pick == 1:
                return None
            if pick == 2:
                return {"kind": "buy"}
            if pick == 3:
                return A.Build(self.rng.randrange(40))  # mostly illegal
            return A.Bid(10**9)
        return super().act(obs)


def logged_game(schema: GameSchema, agents: list[Any], seed: int) -> tuple[Any, list[str]]:
    buf = io.StringIO()
    result = openmono.play_game(schema, agents, seed=seed, log=buf)
    text = buf.getvalue()
    assert text.endswith("\n")
    return result, text.splitlines()


def parse(lines: list[str]) -> list[dict]:
    """Every line is one JSON object of a known record type."""
    records = [json.loads(line) for line in lines]
    assert all(isinstance(r, dict) and r.get("type") in RECORD_TYPES for r in records)
    assert records[0]["type"] == "header" and records[-1]["type"] == "result"
    assert [r["type"] for r in records].count("header") == 1
    assert [r["type"] for r in records].count("result") == 1
    return records


def check_replay(lines: list[str], result: Any) -> None:
    records = parse(lines)
    game, again = openmono.replay(lines)
    logged = records[-1]
    assert json.loads(json.dumps(game.state.snapshot())) == logged["state"]
    assert again.to_json() == logged["result"] == json.loads(json.dumps(result.to_json()))
    logged_events = [{k: v for k, v in r.items() if k != "type"}
                     for r in records if r["type"] == "event"]
    replayed = json.loads(json.dumps([event_to_json(e) for e in game.events]))
    assert replayed == logged_events


def variant(cash: int, auction: str, sellback: float | None, limit: int) -> GameSchema:
    bank = STANDARD.bank.model_copy(update={
        "starting_cash": cash, "auction": auction, "property_sellback": sellback,
        "turn_limit": limit})
    return STANDARD.model_copy(update={"bank": bank})


def test_random_game_replays_to_the_same_state() -> None:
    result, lines = logged_game(STANDARD, [RandomAgent(trade_rate=0.2) for _ in range(4)], 7)
    records = parse(lines)
    assert sum(r["type"] == "decision" for r in records) > 100
    assert any(r["type"] == "decision" and r["action"]["kind"] == "offer_trade"
               for r in records), "no trade offer was logged: the test would miss them"
    check_replay(lines, result)


def test_faulty_agents_replay_to_the_same_state() -> None:
    agents = [FaultyAgent(0.15), RandomAgent(), FaultyAgent(0.3), RandomAgent()]
    result, lines = logged_game(STANDARD, agents, 3)
    records = parse(lines)
    kinds = {r["action"]["kind"] for r in records if r["type"] == "decision"}
    assert "__fault__" in kinds  # raised / garbage: logged as fault records
    assert "build" in kinds  # illegal actions are logged as they were given
    assert any(r["type"] == "event" and r["kind"] == "fault" for r in records)
    assert sum(result.agent_faults) > 0
    check_replay(lines, result)


def test_timed_out_decisions_replay() -> None:
    """A decision over the time budget is logged as a fault and replays as one."""

    class Slow(RandomAgent):
        calls = 0

        def act(self, obs: Any) -> Any:
            Slow.calls += 1
            if Slow.calls in (3, 50):
                import time
                time.sleep(0.03)
            return super().act(obs)

    agents = [Slow(), RandomAgent(), RandomAgent(), RandomAgent()]
    buf = io.StringIO()
    result = openmono.play_game(variant(1500, "english", None, 60), agents, seed=5,
                                time_budget=0.01, log=buf)
    lines = buf.getvalue().splitlines()
    reasons = [r["action"]["reason"] for r in parse(lines)
               if r["type"] == "decision" and r["action"]["kind"] == "__fault__"]
    assert sum("budget" in r for r in reasons) >= 2
    check_replay(lines, result)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), cash=st.sampled_from([300, 1500]),
       auction=st.sampled_from(["english", "sealed"]),
       sellback=st.sampled_from([None, 0.5]), limit=st.integers(20, 150),
       faulty=st.booleans())
def test_any_game_replays(seed: int, cash: int, auction: str, sellback: float | None,
                          limit: int, faulty: bool) -> None:
    rng = random.Random(seed)
    agents = [FaultyAgent(0.2) if faulty and rng.random() < 0.5 else RandomAgent(0.1)
              for _ in range(rng.choice([2, 3, 4]))]
    result, lines = logged_game(variant(cash, auction, sellback, limit), agents, seed)
    check_replay(lines, result)


def test_replay_detects_a_tampered_log() -> None:
    """The comparison can fail: changing one logged decision changes the game."""
    result, lines = logged_game(STANDARD, [RandomAgent() for _ in range(4)], 11)
    records = parse(lines)
    i = next(k for k, r in enumerate(records)
             if r["type"] == "decision" and r["phase"] == "buy" and r["action"]["kind"] == "buy")
    records[i]["action"] = {"kind": "decline"}
    tampered = [json.dumps(r) for r in records]
    game, _ = openmono.replay(tampered)
    assert game.state.snapshot() != records[-1]["state"]


def test_replay_needs_a_header() -> None:
    _, lines = logged_game(STANDARD, [RandomAgent() for _ in range(2)], 1)
    with pytest.raises(ValueError, match="header"):
        openmono.replay(lines[1:])


def test_fixed_answers_are_logged_and_replay() -> None:
    """Decisions the driver answers from an agent's `fixed_answers` are logged like any."""
    from agents.baseline import BaselineAgent

    agents = [BaselineAgent(), RandomAgent(), BaselineAgent(), RandomAgent()]
    result, lines = logged_game(STANDARD, agents, 11)
    records = parse(lines)
    assert any(r["type"] == "decision" and r["phase"] == "post_roll" for r in records)
    check_replay(lines, result)
