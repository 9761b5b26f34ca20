"""Acceptance: a trial with `agent=remote` serving a built-in agent over loopback gives
the same games.jsonl as the in-process agent on the same seeds (faults aside)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.registry import make_agent
from agents.remote import serve
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig
from remote_helpers import free_port, run_with


def _records(path: Path) -> list[dict]:
    """The records without their digests: those chain from each trial's own configuration."""
    records = [json.loads(line) for line in (path / "games.jsonl").read_text().splitlines()]
    for r in records:
        r.pop("digest")
    return records


@pytest.mark.parametrize("name,games", [("baseline", 4), ("planner", 2)])
def test_remote_games_equal_in_process(tmp_path: Path, name: str, games: int) -> None:
    local = TrialConfig(agent=name, opponents=["baseline"] * 3, games=games, seed=11,
                        novelty="rent_hike", inject_at=1, progress=False)
    run_trial(local, tmp_path / "local")
    port = free_port()
    remote = TrialConfig(agent="remote", agent_params={"port": port, "token": "t0k",
                                                       "budget": 30.0},
                         opponents=["baseline"] * 3, games=games, seed=11,
                         novelty="rent_hike", inject_at=1, progress=False)
    _, records = run_with(remote, tmp_path / "remote",
                          [lambda: serve(make_agent(name), "127.0.0.1", port, "t0k")])
    want = _records(tmp_path / "local")
    for r in records:
        assert r.pop("remote_faults") == {}
        r.pop("digest")
        r["seats"] = [name if s == "remote" else s for s in r["seats"]]
        r["winner"] = name if r["winner"] == "remote" else r["winner"]
    assert records == want
