"""Representation novelties on what agents are shown of the game's events: late in a
long game, opponents' card draws or their trades with each other left out; a rent of
four figures between opponents shown smaller.

The game itself is unchanged; each plugin installs an `observation` hook that edits the
observation every agent receives. The deciding seat's own cash, properties and legal
actions are never altered, so what an agent may legally do stays what the engine accepts.
Each alters only a situation most games never reach; until then every observation is
exactly the standard one.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openmono.hooks import Hooks
from openmono.observation import Observation
from openmono.schema import GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams


def _late_leave_out(after_turn: int, hidden: Any) -> Any:
    """An observation hook leaving out the events `hidden(event, seat)` picks, from the
    decision at turn `after_turn` on."""

    def show(obs: Observation) -> Observation:
        if obs.turn < after_turn:
            return obs
        me = obs.seat
        if not any(hidden(e, me) for e in obs.events):
            return obs  # (nothing to hide, the same object)
        return obs._replace(events=tuple(e for e in obs.events if not hidden(e, me)))

    return show


class _AfterTurn(NoveltyParams):
    after_turn: int = Field(ge=0, le=100_000)


class LateHiddenCards(Novelty):
    """Late in the game opponents' card draws are left out: what happens to them still
    shows, but its cause (and the evidence a detector learns hidden decks from) is gone."""

    name = "late_hidden_cards"
    category = "representation"
    description = ("From turn `after_turn` on (counted over all players) the cards opponents "
                   "draw are left out of the events (what they do is still shown); hard "
                   "hides them from turn 200, which only long games reach.")
    Params = _AfterTurn
    presets = {"easy": {"after_turn": 0}, "medium": {"after_turn": 150},
               "hard": {"after_turn": 200}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook dropping opponents' card draws from turn `after_turn` on."""
        t = params.after_turn
        show = _late_leave_out(t, lambda e, me: e.kind == "card_drawn" and e.seat != me)
        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:events", "opponents' card draws shown",
            f"from turn {t} opponents' card draws are left out", True, "shown",
            {"after_turn": t}),))


class LateHiddenTrades(Novelty):
    """Late in the game trades between opponents are left out: the board shown stays true,
    but an agent cannot tell how a set was gathered or what cash changed hands."""

    name = "late_hidden_trades"
    category = "representation"
    description = ("From turn `after_turn` on (counted over all players) trades between two "
                   "opponents are left out of the events (offers, answers, the cash and "
                   "properties they move; the board shown stays true); hard hides them from "
                   "turn 130.")
    Params = _AfterTurn
    presets = {"easy": {"after_turn": 0}, "medium": {"after_turn": 100},
               "hard": {"after_turn": 130}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook dropping trades between opponents (offers, answers, what they
        move) from turn `after_turn` on."""
        t = params.after_turn

        def theirs(e: Any, me: int) -> bool:
            kind = e.kind
            if kind in ("trade_offered", "trade_answered"):
                return e.from_seat != me and e.offer.to != me
            if kind == "payment":
                return e.reason == "trade" and e.payer != me and e.payee != me
            return (kind == "property_transferred" and e.reason == "trade"
                    and e.from_seat != me and e.to_seat != me)

        return Applied(schema, Hooks(observation=_late_leave_out(t, theirs)), (HookChange(
            "observation:events", "trades between opponents shown",
            f"from turn {t} trades between opponents are left out", True, "shown",
            {"after_turn": t}),))


# --- big rents between opponents shown smaller ----------------------------------------
class _BigRent(NoveltyParams):
    above: int = Field(ge=0, le=100_000)


class CappedOpponentRents(Novelty):
    """Big rents between opponents are shown smaller: an agent underrates how much built-up
    sets earn their owners, and a detector reading rents between others is misled."""

    name = "capped_opponent_rents"
    category = "representation"
    description = ("A rent one opponent pays another above `above` is shown as `above` in the "
                   "events (the cash shown stays true); hard caps at 1000, a rent few games "
                   "see.")
    Params = _BigRent
    presets = {"easy": {"above": 100}, "medium": {"above": 500}, "hard": {"above": 1000}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook capping, in the events, the rents opponents pay each other."""
        top = params.above

        def big(e: Any, me: int) -> bool:
            return (e.kind == "payment" and e.reason == "rent" and e.amount > top
                    and e.payer != me and e.payee != me)

        def show(obs: Observation) -> Observation:
            me = obs.seat
            if not any(big(e, me) for e in obs.events):
                return obs  # (the common case: nothing to hide, the same object)
            return obs._replace(events=tuple(
                e._replace(amount=top) if big(e, me) else e for e in obs.events))

        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:events", "rents between opponents shown",
            f"a rent between opponents above {top} is shown as {top}", True, "shown",
            {"above": top}),))
