"""Representation novelties on what agents are shown of their opponents' holdings:
hotels, railroads, get-out-of-jail cards and jail status.

The game itself is unchanged; each plugin installs an `observation` hook that edits the
observation every agent receives. The deciding seat's own cash, properties and legal
actions are never altered, so what an agent may legally do stays what the engine accepts.
Most alter only a situation most games never reach (a hotel on one of a few colour
groups, one opponent holding all four railroads, both get-out-of-jail cards in one
hand); until then every observation is exactly the standard one. (`hidden_railroad_set`
shows an opponent's railroad unowned: the agent then cannot ask for it in a trade, which
the engine would have allowed.)
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from openmono.hooks import Hooks
from openmono.observation import Observation
from openmono.schema import GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams
from novelties.catalogue._common import Groups, select_groups, street_names
from novelties.catalogue.observation import _per_opponent


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


# --- railroads: the fourth one shown unowned ------------------------------------------
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


# --- get-out-of-jail cards and jail ---------------------------------------------------
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


class _Hidden(NoveltyParams):
    seats: Literal["all", "next"] = "all"  # "next": only the opponent seated after the agent
    events: bool = True  # also leave the matching events of those opponents out


def _hidden_seats(obs: Observation, which: str) -> frozenset[int]:
    n = len(obs.cash)
    if which == "next":
        return frozenset({(obs.seat + 1) % n}) - {obs.seat}
    return frozenset(range(n)) - {obs.seat}


class HiddenJailCards(Novelty):
    """Opponents' get-out-of-jail cards are shown as none: an agent misjudges how cheaply an
    opponent leaves jail, and whether a card is left in the decks."""

    name = "hidden_jail_cards"
    category = "representation"
    description = ("Opponents' get-out-of-jail cards are shown as none; hard hides them for "
                   "one opponent only and leaves out the card moves too.")
    Params = _Hidden
    presets = {"easy": {"events": False}, "medium": {}, "hard": {"seats": "next"}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook showing the chosen opponents' jail cards as none (and, with
        `events`, dropping their card moves)."""
        which, events = params.seats, params.events

        def show(obs: Observation) -> Observation:
            hide = _hidden_seats(obs, which)
            cards = tuple(0 if s in hide else c for s, c in enumerate(obs.jail_cards))
            evs = obs.events
            if events:
                evs = tuple(e for e in evs if not (
                    e.kind == "jail_card_moved" and (e.seat in hide or e.to_seat in hide)))
            return obs._replace(jail_cards=cards, events=evs)

        who = "one opponent's" if which == "next" else "opponents'"
        declared = [HookChange("observation:jail_cards", "opponents' jail cards shown",
                               f"{who} get-out-of-jail cards are shown as none", True,
                               "shown", "none")]
        if events:
            declared.append(HookChange("observation:events", "opponents' jail card moves",
                                       f"{who} jail card moves are left out", True,
                                       "shown", "hidden"))
        return Applied(schema, Hooks(observation=show), tuple(declared))


class HiddenOpponentJail(Novelty):
    """Opponents in jail are shown as just visiting: an agent cannot tell that a jailed
    opponent is stuck (nor, under a rule like `no_rent_in_jail`, that it collects less
    rent), so it misjudges that opponent's next turns."""

    name = "hidden_opponent_jail"
    category = "representation"
    description = ("Opponents in jail are shown as just visiting; hard does it for one "
                   "opponent only and leaves out its jailings and releases too.")
    Params = _Hidden
    presets = {"easy": {"events": False}, "medium": {}, "hard": {"seats": "next"}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook showing the chosen opponents as out of jail (and, with
        `events`, dropping their jailings and releases)."""
        which, events = params.seats, params.events

        def show(obs: Observation) -> Observation:
            hide = _hidden_seats(obs, which)
            jailed = tuple(False if s in hide else j for s, j in enumerate(obs.in_jail))
            turns = tuple(0 if s in hide else t for s, t in enumerate(obs.jail_turns))
            evs = obs.events
            if events:
                evs = tuple(e for e in evs if not (
                    e.kind in ("jailed", "released") and e.seat in hide))
            return obs._replace(in_jail=jailed, jail_turns=turns, events=evs)

        who = "one opponent" if which == "next" else "opponents"
        declared = [HookChange("observation:in_jail", "opponents' jail status shown",
                               f"{who} in jail are shown as just visiting", True,
                               "shown", "hidden")]
        if events:
            declared.append(HookChange("observation:events", "opponents' jailings",
                                       f"jailings and releases of {who} are left out", True,
                                       "shown", "hidden"))
        return Applied(schema, Hooks(observation=show), tuple(declared))
