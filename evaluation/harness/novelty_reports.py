"""The agent's novelty report, checked at the boundary: what an agent hands over must
not crash the report writer or put NaN into games.jsonl."""

from __future__ import annotations

import json
from typing import Any

from openmono.decision import DecisionTimeout


def _safe_report(agent: Any) -> tuple[dict[str, Any], str | None]:
    """The agent's novelty report checked at the boundary (`checked_report`); a report
    that raises or is malformed is recorded as none, with a `report_fault` saying why:
    what it hands over must not crash the report writer or put NaN into games.jsonl."""
    try:
        report = agent.novelty_report()
        raw = report.to_json() if hasattr(report, "to_json") else dict(report)
        return checked_report(raw), None
    except (Exception, SystemExit, DecisionTimeout) as exc:  # noqa: BLE001 - a misbehaving agent must not stop the trial
        return {"detected": False, "confidence": 0.0, "changes": []}, (
            f"novelty_report raised {type(exc).__name__}: {exc}".splitlines()[0][:300])


CHANGE_KEYS = ("entity", "attribute", "new_value", "old_value")


def checked_report(raw: Any) -> dict[str, Any]:
    """A report as games.jsonl keeps it: `detected` a bool, `confidence` a finite number
    in [0, 1], `changes` a list of {entity, attribute (strings), new_value, old_value
    (plain JSON)}, `evidence` finite numbers by name; ValueError naming the first
    problem otherwise."""
    if not isinstance(raw, dict):
        raise ValueError(f"a report is a mapping, got {type(raw).__name__}")
    confidence = raw.get("confidence", 0.0)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
            0.0 <= confidence <= 1.0):  # (NaN fails this too)
        raise ValueError(f"confidence must be a number in [0, 1], got {confidence!r}")
    changes = raw.get("changes", [])
    if not isinstance(changes, (list, tuple)):
        raise ValueError(f"changes must be a list, got {type(changes).__name__}")
    kept = []
    for i, change in enumerate(changes):
        if not isinstance(change, dict) or not all(
                isinstance(change.get(k), str) for k in CHANGE_KEYS[:2]):
            raise ValueError(f"changes[{i}] must be an object with a string entity and "
                             f"attribute, got {change!r:.80}")
        kept.append({k: change[k] for k in CHANGE_KEYS if k in change})
    data: dict[str, Any] = {"detected": bool(raw.get("detected", False)),
                            "confidence": float(confidence), "changes": kept}
    if raw.get("evidence"):  # the detector's statistics, for offline re-scoring
        data["evidence"] = {str(k): float(v) for k, v in dict(raw["evidence"]).items()}
    json.dumps(data, allow_nan=False)  # ValueError on NaN or infinity anywhere
    return data
