"""Resuming a trial: from the agents' snapshot when one can be trusted, else by
re-playing the recorded games (everything is deterministic) to rebuild the agents."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from evaluation.harness.seats import Seats, _other_process
from evaluation.harness.snapshot import _load_agents, _untrusted
from evaluation.harness.trial_config import TrialConfig
from evaluation.harness.trial_folder import STATE_FILE


def _resume(cfg: TrialConfig, out: Path, done: int, seats: Seats) -> tuple[int, Any]:
    """(first game to play, the agents restored after it or None), and the message.

    A trial with a seat in another process (isolated or remote) never loads a snapshot:
    that process runs as this user, so it can read the key and seal a pickle of its own
    (issue 52, finding 5); such a trial never saves one either (its seats cannot be
    pickled), so nothing is lost."""
    if not done:
        return 0, None
    start, agents = 0, None
    if _other_process(seats):
        if (out / STATE_FILE).exists():
            _untrusted(out / STATE_FILE, "is never loaded in a trial with an isolated or "
                       "remote seat")
    else:
        restored = _load_agents(out, done, seats)
        if restored is not None:
            start, agents = restored
    how = (f"agents restored after game {start}" if start == done else
           f"agents restored after game {start}, re-playing {done - start} games"
           if start else "re-playing them to rebuild the agents' state")
    print(f"resuming: found {done} of {cfg.games} games in {out} ({how})", file=sys.stderr)
    return start, agents
