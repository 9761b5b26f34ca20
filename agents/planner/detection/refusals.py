"""Rules seen only through legality: my own actions refused, builds the believed rules
allow but the game forbids, actions that are not in the core game."""

from __future__ import annotations

from typing import Any

from openmono.actions import CORE_ACTION_KINDS
from openmono.legal import check_build

from agents.planner.detection.checker import Checker


class RefusalChecker(Checker):
    """Under `effects` the actions listed as legal follow the rules shown and the engine
    judges by the true ones: a refusal of my action, a refused build, or a new kind of
    action offered is a rule the believed rules did not predict."""

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.actions_turn = -1  # the turn whose legal actions were last listed
        self.new_game()

    def new_game(self) -> None:
        """No build refusal has been checked this game."""
        self.build_turn = -1

    def on_fault(self, e: Any) -> None:
        """My own action refused as illegal (a refusal is an outcome, under `effects`).
        Other faults (a late or malformed answer) and other seats' faults say nothing
        about the rules."""
        if e.seat != self.det.me or not e.reason.startswith("illegal "):
            return
        kind = e.reason[len("illegal "):].split(":", 1)[0].strip()
        self.det.change(f"action:{kind}", "refused", None, None,
                        why=f"my {kind} was refused as illegal")

    def observed(self, obs: Any) -> None:
        """A build the game refused, or an action outside the core game offered, is a rule
        the believed rules did not predict."""
        if obs.refused and obs.turn != self.build_turn:
            self.build_turn = obs.turn
            self._check_building(obs)
        if obs.phase == "debt" or (obs.phase == "pre_roll" and obs.turn % 8 == 0
                                   and obs.turn != self.actions_turn):
            self.actions_turn = obs.turn
            for a in obs.legal_actions():
                if a.kind not in CORE_ACTION_KINDS:
                    self.det.change(f"action:{a.kind}", "exists", None, None,
                                    why=f"a new action {a.kind!r} is legal")

    def _check_building(self, obs: Any) -> None:
        """A build the believed rules allow but the game forbids: a hidden rule. Only
        our own refusals are seen (`obs.refused`, which names no parameter)."""
        R = self.det.R
        seat = obs.seat
        for sq in obs.refused:
            if 0 <= sq < R.n and check_build(R, obs, seat, sq) is None:
                self.det.change("rule:building_allowed", "building allowed", None, None,
                                why=f"building refused on {R.names[sq]}")
                return
