"""Whether a finished trial's report is there and current (stdlib only: the trial command
asks before it loads anything heavy).

A trial writes `summary.json` before its report (`report.md`, `report.html`, a replay
page per kept game log): a kill in between leaves a folder whose summary says it is
complete. So a folder counts as finished only when every report file is there and not
older than what it was made from; otherwise the next run writes the report again.
"""

from __future__ import annotations

import re
from pathlib import Path

SUMMARY = "summary.json"
REPORT_FILES = ("report.md", "report.html")
LOGS = "logs"
# A kept game log as the trial names it: ASCII digits, no leading zero (`str.isdigit`
# also takes '²' and '٣', which `int` refuses or reads as another game's number).
LOG_NAME = re.compile(r"game-(0|[1-9][0-9]*)\.jsonl", re.ASCII)


def kept_logs(folder: str | Path) -> list[int]:
    """The games whose JSON-lines log `folder/logs` keeps, in order."""
    logs = Path(folder) / LOGS
    if not logs.is_dir():
        return []
    names = (LOG_NAME.fullmatch(p.name) for p in logs.glob("game-*.jsonl"))
    return sorted(int(m.group(1)) for m in names if m is not None)


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def report_current(folder: str | Path) -> bool:
    """Every report file exists and is not older than the summary (a replay page: than
    its game's log)."""
    out = Path(folder)
    summary = _mtime(out / SUMMARY)
    if summary is None:
        return False
    pairs = [(out / name, summary) for name in REPORT_FILES]
    for g in kept_logs(out):
        pairs.append((out / f"replay-{g}.html", _mtime(out / LOGS / f"game-{g}.jsonl") or 0))
    for path, source in pairs:
        made = _mtime(path)
        if made is None or made < source:
            return False
    return True
