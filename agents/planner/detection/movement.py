"""Movement: turns, throws and moves against the dice and the board, and the Go salary
a move round the board earns. Where a move ends, the landing's checkers are told."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from agents.planner.detection.cards import CardChecker
from agents.planner.detection.checker import Checker


class MovementChecker(Checker):
    """Keeps the turn (`det.turn`), checks each move's start against the replica and its
    length against the throw, expects the Go salary a move passing Go earns
    (`expect_go`: (seat, salary) due at the next event), and starts the landing."""

    reasons = ("go_salary",)

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.expect_go: tuple[int, int] | None = None

    @cached_property
    def cards(self) -> CardChecker:
        """The card checker, which says where a card's move should go."""
        return self.det.checker(CardChecker)

    def new_game(self) -> None:
        """No Go salary is expected at a game's start."""
        self.expect_go = None

    def close(self) -> None:
        """The landing ended: a Go salary still expected is no longer checked."""
        self.expect_go = None

    def on_turn_started(self, e: Any) -> None:
        """A new turn; an opponent's turn that passed without a throw means the observation
        hides its events."""
        det = self.det
        turn = det.turn
        cur = turn.cur
        if cur >= 0 and not turn.rolled and det.replica.active[cur] and cur != det.me:
            det.hidden_events("opponents' events shown", f"seat {cur} took a turn without a roll")
        turn.start(e.seat)

    def on_dice_rolled(self, e: Any) -> None:
        """Record the throw: a utility's rent and the next move's length are checked against
        it."""
        seat, dice = e
        turn = self.det.turn
        if seat == turn.cur:
            turn.rolled = True
        total = sum(dice)
        turn.roll = (seat, total)
        turn.last_total = total

    def on_payment(self, e: Any) -> None:
        """A Go salary paid: the seat passed Go this turn."""
        self.det.turn.passed_go.add(e[1])

    def before_event(self, e: Any) -> None:
        """The Go salary expected right after a move that passed Go."""
        if self.expect_go is None:
            return
        det = self.det
        seat, salary = self.expect_go
        self.expect_go = None
        believed = det.public["bank"]["go_salary"]
        if e.kind == "payment" and e.reason == "go_salary" and e.payee == seat:
            if e.amount != salary and not det.skip:
                det.change("bank", "go_salary", None, believed,
                           why=f"Go paid {e.amount}, expected {salary}")
            return
        if salary > 0 and not det.skip:
            if seat != det.me:
                det.missing_payment("passing Go paid an opponent nothing")
            else:
                det.change("bank", "go_salary", 0, believed, why="passing Go paid nothing")

    def on_moved(self, e: Any) -> None:
        """A move against the replica's position and the throw (or the card); passing Go
        makes a salary due, and the landing's checkers are told where it ended."""
        seat, start, end, reason = e
        det = self.det
        me = det.me
        n = det.n
        pos = det.replica.pos[seat]  # (the replica records the move after the checkers)
        if start != pos and not det.skip:
            if seat != me:
                det.hidden_events("opponents' events shown",
                                  f"seat {seat} moved from an unexpected square")
            else:
                det.detect(1.0, f"my token moved from {pos} to {start} unseen")
        if end >= n or start >= n:
            det.detect(1.0, "a move off the believed board")
            return
        R = det.R
        collect: bool | None = None
        steps = (end - start) % n
        ctx: tuple | None = (1.0, None)
        if reason == "dice":
            collect = True
            steps = self._thrown(seat, start, end, steps)
        elif reason == "card":
            collect, ctx = self.cards.card_move(seat, start, end)
        elif reason == "jail":
            return
        else:
            det.detect(1.0, f"a move for an unknown reason {reason!r}")
            ctx = None
        go = R.go
        if collect and steps > 0:
            passes = (start + steps - go) // n - (start - go) // n
            if passes:
                self.expect_go = (seat, passes * int(det.public["bank"]["go_salary"]))
        det.turn.moves.setdefault(seat, []).append((start, end, reason))
        if ctx is not None and not det.skip:
            det.land(seat, end, reason, ctx)

    def _thrown(self, seat: int, start: int, end: int, steps: int) -> int:
        """A move by dice against the seat's throw this turn; the steps it took."""
        det = self.det
        n = det.n
        roll = det.turn.roll
        if roll is None or roll[0] != seat:
            if seat != det.me:
                det.hidden_events("opponents' events shown",
                                  f"seat {seat} moved by dice without a roll")
            return steps
        steps = roll[1]
        if (start + steps) % n != end and not det.skip:
            det.detect(1.0, f"a roll of {steps} moved {start}->{end}")
        return steps
