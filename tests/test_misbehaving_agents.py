"""Issue 52, finding 8: agents that misbehave (in process or isolated) cost counted
faults or one clear line, never a crash, a hang, a misreport or a games.jsonl that is
not JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluation.runner import TrialConfig, run_trial

FAST = dict(opponents=["random"] * 3, reference="random", progress=False)


def _strict(line: str) -> dict[str, Any]:
    def refuse(word: str) -> Any:
        raise ValueError(f"{word} is not JSON")

    return json.loads(line, parse_constant=refuse)


@pytest.mark.parametrize("agent", ["BadChanges", "NanConfidence", "InfEvidence"])
def test_a_malformed_report_is_a_report_fault(tmp_path: Path, agent: str) -> None:
    """changes=[1,"x",None] crashed the report writer; confidence=nan was written into
    games.jsonl as NaN, which is not JSON."""
    from evaluation.report import write_report

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
