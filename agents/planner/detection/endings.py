"""Games that end by a rule (a wealth or monopoly victory), not by bankruptcy or the
turn limit."""

from __future__ import annotations

from typing import Any

from agents.base import NoveltyChange
from agents.planner.detection.checker import Changes, Checker

USUAL_ENDS = (None, "bankruptcy", "turn_limit")


class EndingChecker(Checker):
    """A game that ends otherwise is a detection; the winners' net worths and sets,
    and the most sets anyone held at a turn's start, say which rule ended it."""

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        # (winner's net worth, winner's sets at my last decision, most sets one player
        # held at the start of a turn: a game-ending check runs between turns)
        self.rule_endings: list[tuple[int, int, int]] = []
        self.new_game()

    def new_game(self) -> None:
        """Start the game's count of the most sets anyone held."""
        self.max_sets = 0  # most sets one player held at a turn start in this game
        self.owners_moved = False

    def on_property_transferred(self, e: Any) -> None:
        """Owners changed: recount the sets at the next turn's start."""
        self.owners_moved = True

    def on_turn_started(self, e: Any) -> None:
        """The most sets one player holds, counted where a game-ending check would see them."""
        if self.owners_moved:
            self.owners_moved = False
            self.max_sets = max(self.max_sets, self.det.replica.most_sets(self.det.R))

    def on_game_over(self, e: Any) -> None:
        """A game over for any reason but bankruptcy or the turn limit is a new ending rule."""
        if e.reason not in ("bankruptcy", "turn_limit"):
            self.det.detect(1.0, f"the game ended by {e.reason!r}")

    def game_result(self, result: Any) -> None:
        """A game that ended by a rule is a detection; the winner's net worth and sets are
        kept to tell which rule."""
        if result is None or getattr(result, "end_reason", None) in USUAL_ENDS:
            return
        seat = result.winner_seat
        worth = result.net_worths[seat] if seat < len(result.net_worths) else 0
        sets = self.det.replica.sets_of(self.det.R, seat)
        self.rule_endings.append((worth, sets, self.max_sets))
        self.det.detect(1.0, f"a game ended by a rule ({result.end_reason})")

    def derived(self, out: Changes) -> None:
        """If the winners' net worths crowd just above a floor, a net worth wins; if the
        winners hold sets, sets win."""
        if not self.rule_endings:
            return
        worths = [w for w, _, _ in self.rule_endings]
        sets = [s for _, s, _ in self.rule_endings]
        held = [h for _, _, h in self.rule_endings]
        floor = min(worths)
        crowd = sum(1 for w in worths if w <= 1.15 * floor) / len(worths)
        start = int(self.det.public["bank"]["starting_cash"])
        rich = floor >= 2 * start  # well above the start
        if rich and (len(worths) < 3 or crowd >= 0.4):
            out[("rule:game_over", "wealth victory")] = NoveltyChange(
                "rule:game_over", "wealth victory", floor // 100 * 100, None)
        elif max(sets) >= 1 or max(held) >= 1 or floor < 2 * start:
            # Between turns nobody held the winning number of sets, or the game would
            # have ended: it is one more than the most anyone held at a turn's start.
            out[("rule:game_over", "monopoly victory")] = NoveltyChange(
                "rule:game_over", "monopoly victory", max(held) + 1, None)
        else:
            out[("rule:game_over", "exists")] = NoveltyChange("rule:game_over", "exists")
