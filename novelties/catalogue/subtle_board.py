"""Subtle representation novelties: one small change to how the game is laid out,
named or shown.

One property renamed, one square moved by a step, one group split, one deck renamed,
card texts reworded, and opponents' jail status or jail cards left out of what agents
are shown. Hard presets make the change smallest: a one-letter spelling change, a step
between neighbours, one reworded card, one opponent.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from openmono.hooks import Hooks
from openmono.observation import Observation
from openmono.schema import GameSchema, Group

from novelties.base import Applied, HookChange, Novelty, NoveltyParams, replace
from novelties.catalogue.board import _rename_squares, _reorder


class _Rename(NoveltyParams):
    square: str
    new_name: str = Field(min_length=1, max_length=60)


class RenamedProperty(Novelty):
    """One property gets a new name: play is unchanged, but anything an agent keyed on that
    name (a learnt value, a card it expects to send it there) no longer matches."""

    name = "renamed_property"
    category = "representation"
    description = ("One property gets a new name (cards follow); hard drops one letter of "
                   "Mediterranean Avenue, a rarely landed street.")
    Params = _Rename
    presets = {"easy": {"square": "Boardwalk", "new_name": "Seaside Walk"},
               "medium": {"square": "Reading Railroad", "new_name": "Reading Line"},
               "hard": {"square": "Mediterranean Avenue", "new_name": "Mediteranean Avenue"}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the property renamed (cards naming it follow); a name already
        taken is refused."""
        old = schema.squares[schema.index_of(params.square)]
        if not old.is_property:
            raise ValueError(f"{old.name!r} is not a property")
        if any(s.name == params.new_name for s in schema.squares):
            raise ValueError(f"a square is already named {params.new_name!r}")
        return _rename_squares(schema, {old.name: params.new_name})


class _Nudge(NoveltyParams):
    square: str
    step: Literal[-1, 1] = 1


class SquareNudge(Novelty):
    """One square swaps places with its neighbour: a one-step shift that moves which squares
    a roll, a card or a release from jail reaches."""

    name = "square_nudge"
    category = "representation"
    description = ("One square swaps places with its neighbour; hard swaps the last Chance "
                   "square with Short Line, one step on the same side.")
    Params = _Nudge
    presets = {"easy": {"square": "Boardwalk", "step": -1},
               "medium": {"square": "Reading Railroad", "step": -1},
               "hard": {"square": "Chance 3", "step": -1}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the square and its neighbour swapped; Go and the jail stay where
        they are."""
        i = schema.index_of(params.square)
        j = (i + params.step) % len(schema.squares)
        kinds = {schema.squares[i].kind, schema.squares[j].kind}
        if kinds & {"go", "jail"}:
            raise ValueError("Go and the jail stay where they are: choose another square")
        order = list(range(len(schema.squares)))
        order[i], order[j] = j, i
        return _reorder(schema, order)


class _Split(NoveltyParams):
    group: str


class GroupSplit(Novelty):
    """A colour group's last street becomes a group of its own: both sets get smaller and
    easier to complete, so streets an agent treats as half a set are whole sets."""

    name = "group_split"
    category = "representation"
    description = ("A colour group's last street becomes a group of its own (both sets get "
                   "smaller); easy splits brown, the cheapest set, into two one-street sets; "
                   "hard splits light blue.")
    Params = _Split
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"group": "brown"}, "medium": {"group": "green"},
               "hard": {"group": "light_blue"}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the group's last street moved to a new group of its own
        (`<group>_annex`)."""
        groups = {g.name: g for g in schema.groups}
        if params.group not in groups:
            raise ValueError(f"unknown group {params.group!r}; groups: {', '.join(groups)}")
        members = schema.group_members(params.group)
        if len(members) < 2 or any(schema.squares[m].kind != "street" for m in members):
            raise ValueError(f"group {params.group!r} is not a colour group of 2+ streets")
        g = groups[params.group]
        if g.monopoly_size is not None:
            raise ValueError(f"group {params.group!r} has its own set size already")
        annex = f"{g.name}_annex"
        if annex in groups:
            raise ValueError(f"a group is already named {annex!r}")
        last = members[-1]
        squares = tuple(replace(s, group=annex) if k == last else s
                        for k, s in enumerate(schema.squares))
        k = [x.name for x in schema.groups].index(g.name)
        new_groups = schema.groups[:k + 1] + (Group(name=annex, color=g.color),) \
            + schema.groups[k + 1:]
        return replace(schema, squares=squares, groups=new_groups)


class _Deck(NoveltyParams):
    deck: str
    new_name: str = Field(min_length=1, max_length=40)


class RenamedDeck(Novelty):
    """A card deck gets a new name: the cards play as before, but an agent that tracks decks
    by name loses what it knew about them."""

    name = "renamed_deck"
    category = "representation"
    description = ("A card deck gets a new name (its squares follow); medium renames 'chance' "
                   "to 'chances', a difference of one letter; hard renames Community Chest.")
    Params = _Deck
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"deck": "chance", "new_name": "fortune"},
               "medium": {"deck": "chance", "new_name": "chances"},
               "hard": {"deck": "community_chest", "new_name": "treasury"}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the deck, and the squares that draw from it, renamed."""
        names = [d.name for d in schema.decks]
        if params.deck not in names:
            raise ValueError(f"unknown deck {params.deck!r}; decks: {', '.join(names)}")
        if params.new_name in names:
            raise ValueError(f"a deck is already named {params.new_name!r}")
        old, new = params.deck, params.new_name
        decks = tuple(replace(d, name=new) if d.name == old else d for d in schema.decks)
        squares = tuple(replace(s, deck=new) if s.deck == old else s for s in schema.squares)
        return replace(schema, squares=squares, decks=decks)


_WORDING = (("Collect", "Receive"), ("collect", "receive"), ("Pay ", "Settle "),
            ("pay ", "settle "), ("Advance", "Move"), ("Bank", "Treasury"),
            ("Go to Jail", "Off to Jail"), ("Go Back", "Step back"))


def reword(text: str) -> str:
    """The same card in other words (its effect is unchanged)."""
    out = text
    for a, b in _WORDING:
        out = out.replace(a, b)
    return out if out != text else f"Card: {text}"


class _Reword(NoveltyParams):
    count: int | None = Field(ge=1)  # None: every card
    deck: str | None = None  # None: every deck


class RewordedCards(Novelty):
    """Card texts are reworded, effects unchanged: a test of whether an agent (or a detector
    reading texts) mistakes a new wording for a new rule."""

    name = "reworded_cards"
    category = "representation"
    description = ("Card texts are reworded, effects unchanged (seen only in the draws); hard "
                   "rewords a single Community Chest card.")
    Params = _Reword
    presets = {"easy": {"count": None}, "medium": {"count": 6},
               "hard": {"count": 1, "deck": "community_chest"}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The decks with up to `count` card texts reworded (`reword`); two cards made to
        read the same are refused."""
        names = [d.name for d in schema.decks]
        if params.deck is not None and params.deck not in names:
            raise ValueError(f"unknown deck {params.deck!r}; decks: {', '.join(names)}")
        budget = [params.count if params.count is not None else 10**9]
        decks = []
        for d in schema.decks:
            cards = []
            for c in d.cards:
                if budget[0] > 0 and params.deck in (None, d.name):
                    budget[0] -= 1
                    c = replace(c, text=reword(c.text))
                cards.append(c)
            if len({c.text for c in cards}) != len(cards):
                raise ValueError(f"rewording made two cards of {d.name} read the same")
            decks.append(replace(d, cards=tuple(cards)))
        return replace(schema, decks=tuple(decks))


# --- what agents are shown of their opponents' jail ---------------------------------------
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
