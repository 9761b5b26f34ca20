"""Representation novelties that show only under a rare condition.

The game is unchanged; an `observation` hook alters what agents are shown of their
opponents, but only in a situation most games never reach: an opponent grown rich
beyond a cash level (its cash capped or rounded), a hotel on one of a few colour groups, one opponent holding all
four railroads, a rent of four figures, both get-out-of-jail cards in one hand, or a
game grown long. Until then every observation is exactly the standard one, so even an
observer who knows both worlds needs many games to see the difference. The deciding
seat's own cash and buildings are never altered, so what an agent may legally do stays
what the engine accepts. (`hidden_railroad_set` shows an opponent's railroad unowned:
the agent then cannot ask for it in a trade, which the engine would have allowed.)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from openmono.hooks import Hooks
from openmono.observation import Observation
from openmono.schema import GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams
from novelties.catalogue._common import Groups, select_groups, street_names


def _per_opponent(obs: Observation, field: str, shown: Any) -> Observation:
    """`obs` with `shown(seat, value)` in place of each opponent's entry of a per-seat
    field; the same object when nothing changes (the common case)."""
    me, values = obs.seat, getattr(obs, field)
    new = tuple(v if s == me else shown(s, v) for s, v in enumerate(values))
    return obs if new == values else obs._replace(**{field: new})


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


class _Ceiling(NoveltyParams):
    ceiling: int = Field(ge=0, le=100_000)


class CappedOpponentCash(Novelty):
    """A rich opponent's cash is shown capped: an agent underrates the leader, e.g. how high
    it can bid or how long it can carry a rent, exactly when the leader matters."""

    name = "capped_opponent_cash"
    category = "representation"
    description = ("An opponent holding more than `ceiling` cash is shown holding exactly "
                   "`ceiling`; hard caps at 3000, a level few baseline players ever reach.")
    Params = _Ceiling
    presets = {"easy": {"ceiling": 1500}, "medium": {"ceiling": 2000},
               "hard": {"ceiling": 3000}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook capping opponents' cash at the ceiling."""
        top = params.ceiling

        def show(obs: Observation) -> Observation:
            return _per_opponent(obs, "cash", lambda s, c: min(c, top))

        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:cash", "opponents' cash shown",
            f"an opponent holding more than {top} is shown holding {top}", True,
            "exact", {"ceiling": top}),))


class _Hotels(NoveltyParams):
    groups: Groups = "all"


class HiddenHotels(Novelty):
    """An opponent's hotel on some groups is shown as four houses: an agent underrates the
    rent it risks on those streets (and the leader's strength), seen only once a hotel is
    built there."""

    name = "hidden_hotels"
    category = "representation"
    description = ("An opponent's hotel on the chosen colour groups is shown as four houses "
                   "(the building events too); hard disguises yellow hotels only, which few "
                   "games see.")
    Params = _Hotels
    presets = {"easy": {}, "medium": {"groups": ["orange", "red"]},
               "hard": {"groups": ["yellow"]}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook showing an opponent's hotel on the chosen groups (and its
        build event) as four houses."""
        groups = select_groups(schema, params.groups, streets_only=True)
        if not groups:
            raise ValueError("no colour group of streets to disguise")
        names = street_names(schema, groups)
        houses = schema.bank.max_houses
        hotel = houses + 1
        seen: list[Any] = [None, frozenset()]  # (squares found by name: a board reordered
        # by a later novelty keeps the disguise on the same streets)

        def show(obs: Observation) -> Observation:
            if seen[0] is not obs.rules.names:
                seen[:] = [obs.rules.names, frozenset(
                    i for i, n in enumerate(obs.rules.names) if n in names)]
            disguised = seen[1]
            me, level, owner = obs.seat, obs.level, obs.owner
            hide = [i for i in disguised if level[i] == hotel and owner[i] != me]
            events = obs.events
            if any(e.kind == "building_changed" and e.level == hotel and e.square in disguised
                   and e.seat != me for e in events):
                events = tuple(e._replace(level=houses) if (
                    e.kind == "building_changed" and e.level == hotel
                    and e.square in disguised and e.seat != me) else e for e in events)
            if not hide and events is obs.events:
                return obs  # (the common case: nothing to hide, the same object)
            shown = list(level)
            for i in hide:
                shown[i] = houses
            return obs._replace(level=tuple(shown), events=events)

        where = ", ".join(groups)
        return Applied(schema, Hooks(observation=show), (
            HookChange("observation:level", "opponents' hotels shown",
                       f"an opponent's hotel on {where} is shown as {houses} houses", True,
                       "hotel", {"groups": groups, "shown": houses}),
            HookChange("observation:events", "opponents' hotel builds shown",
                       f"an opponent building a hotel on {where} is shown building a house",
                       True, "hotel", {"groups": groups, "shown": houses})))


# --- railroads: the fourth one shown unowned ------------------------------------------------
class _Railroads(NoveltyParams):
    count: int = Field(ge=1, le=4)


class HiddenRailroadSet(Novelty):
    """An opponent's last railroad is shown unowned: an agent misjudges railroad rents and
    may plan to buy or ask for a railroad it cannot get."""

    name = "hidden_railroad_set"
    category = "representation"
    description = ("An opponent holding `count` or more railroads is shown holding one fewer: "
                   "its last railroad on the board is shown unowned (the transfer events "
                   "are shown as they are); hard hides the fourth, which few games see one "
                   "player gather.")
    Params = _Railroads
    presets = {"easy": {"count": 1}, "medium": {"count": 3}, "hard": {"count": 4}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook showing the last railroad of an opponent holding enough of
        them as unowned."""
        need = params.count
        seen: list[Any] = [None, ()]  # (railroads found by kind: a reordered board keeps them)

        def show(obs: Observation) -> Observation:
            kinds = obs.rules.kind_names
            if seen[0] is not kinds:
                seen[:] = [kinds, tuple(i for i, k in enumerate(kinds) if k == "railroad")]
            owner, me = obs.owner, obs.seat
            held: dict[int, list[int]] = {}
            for sq in seen[1]:
                o = owner[sq]
                if o >= 0 and o != me:
                    held.setdefault(o, []).append(sq)
            hide = [squares[-1] for squares in held.values() if len(squares) >= need]
            if not hide:
                return obs  # (the common case: nothing to hide, the same object)
            shown, mortgaged = list(owner), list(obs.mortgaged)
            for sq in hide:
                shown[sq], mortgaged[sq] = -1, False
            return obs._replace(owner=tuple(shown), mortgaged=tuple(mortgaged))

        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:owner", "opponents' railroads shown",
            f"an opponent holding {need} or more railroads is shown holding one fewer", True,
            "shown", {"count": need}),))


# --- late in the game: opponents' card draws left out ------------------------------------
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


# --- big rents between opponents shown smaller ------------------------------------------------
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


# --- a second get-out-of-jail card ------------------------------------------------------------
class _Cards(NoveltyParams):
    count: int = Field(ge=1, le=10)
    seats: Literal["all", "next"] = "all"  # "next": only the opponent seated after the agent


class HiddenJailCardPair(Novelty):
    """An opponent's extra get-out-of-jail card is not shown: an agent misjudges that
    opponent's jail risk and the value of a card it might trade for."""

    name = "hidden_jail_card_pair"
    category = "representation"
    description = ("An opponent holding `count` or more get-out-of-jail cards is shown holding "
                   "one fewer (the card moves are shown as they are); hard hides the second "
                   "card of the next opponent holding both, which few games see.")
    Params = _Cards
    presets = {"easy": {"count": 1}, "medium": {"count": 2},
               "hard": {"count": 2, "seats": "next"}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook showing an opponent holding enough jail cards one card short."""
        need, which = params.count, params.seats

        def show(obs: Observation) -> Observation:
            nxt = (obs.seat + 1) % len(obs.jail_cards)
            return _per_opponent(obs, "jail_cards", lambda s, c: c - 1 if c >= need and (
                which == "all" or s == nxt) else c)

        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:jail_cards", "opponents' jail cards shown",
            f"an opponent holding {need} or more jail cards is shown holding one fewer", True,
            "shown", {"count": need}),))


# --- late in the game: trades between opponents left out -------------------------------
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


# --- a rich opponent's cash shown rounded ------------------------------------------------------
class _Rounded(NoveltyParams):
    above: int = Field(ge=0, le=100_000)
    step: int = Field(ge=2, le=100_000)


class RoundedRichCash(Novelty):
    """A rich opponent's cash is shown rounded down: a small error on the leader's cash,
    seen only where it matters (a close bid, a rent it can barely pay)."""

    name = "rounded_rich_cash"
    category = "representation"
    description = ("An opponent holding more than `above` cash is shown holding it rounded "
                   "down to a multiple of `step`; hard rounds to 100s above 3000, a level few "
                   "baseline players reach.")
    Params = _Rounded
    presets = {"easy": {"above": 0, "step": 100}, "medium": {"above": 2000, "step": 100},
               "hard": {"above": 3000, "step": 100}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook rounding down the cash of an opponent above `above`."""
        top, step = params.above, params.step

        def show(obs: Observation) -> Observation:
            return _per_opponent(obs, "cash", lambda s, c: c - c % step if c > top else c)

        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:cash", "opponents' cash shown",
            f"an opponent holding more than {top} is shown holding it rounded down to "
            f"{step}s", True, "exact", {"above": top, "step": step}),))
