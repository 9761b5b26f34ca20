"""Agents that misbehave in the harness's own process or in an isolated child (issue 52,
finding 8), importable as `misbehaving_agents:ClassName` by a child process too."""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from agents.baseline import BaselineAgent


class Reporting(BaselineAgent):
    """Plays as `baseline`; its novelty report is the class's `REPORT`, as given."""

    REPORT: dict[str, Any] = {}

    def novelty_report(self) -> Any:
        return dict(self.REPORT)


class BadChanges(Reporting):
    REPORT = {"detected": True, "confidence": 0.5, "changes": [1, "x", None]}


class NanConfidence(Reporting):
    REPORT = {"detected": True, "confidence": math.nan, "changes": []}


class InfEvidence(Reporting):
    REPORT = {"detected": False, "confidence": 0.0, "changes": [],
              "evidence": {"score": math.inf}}


class AtDecision(BaselineAgent):
    """Plays as `baseline` until its `AT`-th decision of the trial, then `misbehave`s."""

    AT = 10

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0

    def act(self, obs: Any) -> Any:
        self.decisions += 1
        if self.decisions == self.AT:
            self.misbehave()
        return super().act(obs)

    def misbehave(self) -> None:
        raise NotImplementedError


class Exits(AtDecision):
    def misbehave(self) -> None:
        sys.exit(3)


class Interrupts(AtDecision):
    def misbehave(self) -> None:
        raise KeyboardInterrupt


class Blocks(AtDecision):
    """Blocks in a sleep at its 10th decision (an hour: the budget must stop it)."""

    def misbehave(self) -> None:
        time.sleep(3600)


class Spins(AtDecision):
    """Spins in Python code at its 10th decision, swallowing every Exception."""

    def misbehave(self) -> None:
        deadline = time.monotonic() + 3600
        while time.monotonic() < deadline:
            try:
                time.sleep(0.01)
            except Exception:  # noqa: BLE001 - the point
                pass


class Spawner(AtDecision):
    """Starts a grandchild (`sleep 600`) at its 10th decision and writes its pid, and
    its own resource limits, into the file `$MISBEHAVE_OUT` (an isolated agent's child
    inherits the harness's environment)."""

    def misbehave(self) -> None:
        import os
        import resource
        import subprocess

        proc = subprocess.Popen(["sleep", "600"])
        data = resource.getrlimit(resource.RLIMIT_DATA)[0]
        cpu = resource.getrlimit(resource.RLIMIT_CPU)[0]
        with open(os.environ["MISBEHAVE_OUT"], "w") as fh:
            fh.write(f"{proc.pid} {data} {cpu}\n")


class BlocksReport(BaselineAgent):
    """Its novelty report blocks in a sleep (an hour: the budget must stop it)."""

    def novelty_report(self) -> Any:
        time.sleep(3600)
