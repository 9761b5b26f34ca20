"""The interface between the detector's core and its checkers.

A checker holds the evidence of one kind (rents, taxes, cards, dice, ...) and turns it
into reported changes through the core (`det.change`, `det.detect`), which it is given
when it is built. The core calls it:

- `on_<kind>(event)` for each event of that kind (`on_moved`, `on_dice_rolled`, ...),
  before the replica records the event, so the checker compares the event with the
  state before it; checkers are called in the order of `CHECKERS`;
- `on_payment(event)` for the payments whose reason it names in `reasons` (`OTHER`:
  every reason no checker names), after the replica has recorded the cash;
- the hooks below, which are no-ops here: a checker overrides those it needs.

Hooks with no override are never called (the core lists the overrides once), so a hook
on the hot path (`before_event`, `close`, `landed`) costs only the checkers using it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openmono.schema import GameSchema

from agents.base import NoveltyChange

if TYPE_CHECKING:
    from agents.planner.detection.core import NoveltyDetector

OTHER = "*"  # in `reasons`: payments for a reason no checker names
Changes = dict[tuple[str, str], NoveltyChange]


class Checker:
    """One kind of evidence: its state, its checks and what it reports (see module)."""

    reasons: tuple[str, ...] = ()  # payment reasons this checker sees (`on_payment`)

    def __init__(self, det: NoveltyDetector) -> None:
        self.det = det

    # --- beliefs -------------------------------------------------------------------------
    def compiled(self) -> None:
        """The believed rules were (re)compiled (`det.R`): refresh tables read off them."""

    def rules_changed(self) -> None:
        """The public rules changed: drop evidence relative to the old rules."""

    def believe(self, schema: GameSchema) -> GameSchema:
        """The believed schema with this checker's hidden beliefs applied."""
        return schema

    # --- games and decisions -------------------------------------------------------------
    def new_game(self) -> None:
        """A game starts (also at construction): reset per-game state."""

    def start_game(self, obs: Any) -> None:
        """The first observation of a game, before its events."""

    def before_event(self, e: Any) -> None:
        """Every event, before anything else: an expectation set by the event before."""

    def close(self) -> None:
        """A landing's context ended: what was due (a rent, tax, draw) and did not come."""

    def landed(self, seat: int, sq: int, reason: str, ctx: tuple) -> None:
        """A move ended on `sq`: what the believed rules expect next (`ctx` from the move:
        (rent multiplier, dice multiplier) of a card)."""

    def after_events(self, obs: Any) -> None:
        """An observation's events were processed: compare what it shows."""

    def observed(self, obs: Any) -> None:
        """Every observation, after its events."""

    # --- game ends and reports -----------------------------------------------------------
    def game_result(self, result: Any) -> None:
        """A game ended with `result` (before the game count moves on)."""

    def end_game(self) -> None:
        """Close the game's statistics (after the game count moved on)."""

    def adopt(self) -> bool:
        """Adopt what the evidence says about hidden rules; True if a belief changed (the
        core then rebuilds the believed schema once)."""
        return False

    def announced(self) -> None:
        """A novelty was announced: statistics start afresh."""

    def derived(self, out: Changes) -> None:
        """Add the changes inferred from accumulated evidence (at each report)."""


def overrides(checker: Checker, hook: str) -> bool:
    """Whether `checker` implements `hook` (not the no-op of `Checker`)."""
    return getattr(type(checker), hook) is not getattr(Checker, hook)
