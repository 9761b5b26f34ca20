"""The DDQN value-drift probe: fixed states, each checkpoint valued on the same ones."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.drl.agent import WEIGHTS_DIR
from agents.drl.probe import drift, main, probe_states

SHIPPED = str(WEIGHTS_DIR / "hybrid_ddqn.npz")


def test_probe_states_are_the_same_for_every_checkpoint_and_drift_reads_them() -> None:
    a = probe_states(SHIPPED, games=1, seed=700_000, every=8)
    b = probe_states(SHIPPED, games=1, seed=700_000, every=8)
    assert len(a) == len(b) > 3
    assert all(np.array_equal(s.x, t.x) and s.share == t.share for s, t in zip(a, b))
    assert all(0.0 <= s.share <= 1.0 for s in a)
    out = drift(SHIPPED, a)
    assert out["states"] == len(a) and 0.0 <= out["past_bound"] <= 1.0
    assert out["best_q"] >= out["mean_q"]


def test_probe_cli_reports_one_line_per_checkpoint_and_refuses_a_missing_file(capsys) -> None:
    main([SHIPPED, SHIPPED, "games=1", "every=16"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["states"] > 0 and lines[1]["weights"] == SHIPPED
    with pytest.raises(SystemExit, match="no weights file nowhere.npz"):
        main([SHIPPED, "nowhere.npz"])
