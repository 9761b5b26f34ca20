"""Representation novelties on names and texts: properties, colour groups and decks
renamed, card texts reworded.

Play is unchanged (cards and squares follow a renamed property or deck); only what an
agent keyed on the old names or wording no longer holds. The smallest change is one
property renamed by one letter (`renamed_property`) or one card reworded
(`reworded_cards`).
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field

from openmono.schema import GameSchema

from novelties.base import Novelty, NoveltyParams, replace


NEW_NAMES = (
    "Alder Row", "Birch Lane", "Cedar Court", "Dove Street", "Elm Terrace", "Fern Walk",
    "Granite Way", "Harbor Road", "Iris Close", "Juniper Drive", "Kestrel Avenue",
    "Linden Square", "Maple Crescent", "Nettle Lane", "Oak Parade", "Pine Hill",
    "Quarry Road", "Rowan Gardens", "Sable Street", "Thistle Row", "Upland Avenue",
    "Violet Mews", "Willow Bank", "Yarrow Place", "Zephyr Court", "North Line", "South Line",
    "East Line", "West Line", "Power Station", "Reservoir",
)


NEW_LABELS = (
    ("copper", "#b87333"), ("sky", "#87ceeb"), ("rose", "#ff66cc"), ("amber", "#ffbf00"),
    ("scarlet", "#ff2400"), ("lemon", "#fff44f"), ("emerald", "#50c878"), ("navy", "#000080"),
    ("lines", "#444444"), ("services", "#999999"), ("slate", "#708090"), ("plum", "#8e4585"),
)


def _rename_squares(schema: GameSchema, renames: dict[str, str]) -> GameSchema:
    squares = tuple(replace(s, name=renames[s.name]) if s.name in renames else s
                    for s in schema.squares)
    decks = []
    for d in schema.decks:
        cards = []
        for c in d.cards:
            if c.square in renames:
                c = replace(c, square=renames[c.square],
                            text=c.text.replace(c.square, renames[c.square]))
            cards.append(c)
        decks.append(replace(d, cards=tuple(cards)))
    return replace(schema, squares=squares, decks=tuple(decks))


class _Rename(NoveltyParams):
    count: int | None = Field(ge=1)  # None: every property
    seed: int = 0


class RenamedProperties(Novelty):
    """Properties get new names, cards following: nothing about play changes, but whatever
    an agent keyed on names (learnt values, a plan for "Boardwalk") must be relearnt."""

    name = "renamed_properties"
    category = "representation"
    description = ("Properties get new names (cards follow); easy renames all of them, so "
                   "anything keyed on names must be relearnt from positions and prices; hard "
                   "renames three.")
    Params = _Rename
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"count": None}, "medium": {"count": 10}, "hard": {"count": 3}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the chosen properties renamed from a stock of new names, and cards
        naming them rewritten."""
        rng = random.Random(params.seed)
        props = [s.name for s in schema.squares if s.is_property]
        chosen = props if params.count is None else rng.sample(props, min(params.count,
                                                                          len(props)))
        taken = {s.name for s in schema.squares}
        fresh = [n for n in NEW_NAMES if n not in taken]
        rng.shuffle(fresh)
        k = 0
        while len(fresh) < len(chosen):
            k += 1
            fresh.extend(f"{n} {k + 1}" for n in NEW_NAMES if f"{n} {k + 1}" not in taken)
        return _rename_squares(schema, dict(zip(chosen, fresh)))


class _Relabel(NoveltyParams):
    count: int | None = Field(ge=1)
    seed: int = 0


class RenamedGroups(Novelty):
    """Colour groups get new names and colours: a strategy that favours a colour by name no
    longer finds it, though every set plays as before."""

    name = "renamed_groups"
    category = "representation"
    description = ("Colour groups get new names and colours; hard relabels every group, so a "
                   "strategy that favours 'orange' no longer finds it.")
    Params = _Relabel
    presets = {"easy": {"count": 2}, "medium": {"count": 5}, "hard": {"count": None}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the chosen groups relabelled from a stock of new names and
        colours."""
        rng = random.Random(params.seed)
        names = [g.name for g in schema.groups]
        chosen = names if params.count is None else rng.sample(names, min(params.count,
                                                                          len(names)))
        labels = [lab for lab in NEW_LABELS if lab[0] not in names]
        if len(labels) < len(chosen):
            raise ValueError(f"only {len(labels)} new labels for {len(chosen)} groups")
        new = dict(zip(chosen, labels))
        groups = tuple(replace(g, name=new[g.name][0], color=new[g.name][1])
                       if g.name in new else g for g in schema.groups)
        squares = tuple(replace(s, group=new[s.group][0]) if s.group in new else s
                        for s in schema.squares)
        return replace(schema, squares=squares, groups=groups)


class _RenameOne(NoveltyParams):
    square: str
    new_name: str = Field(min_length=1, max_length=60)


class RenamedProperty(Novelty):
    """One property gets a new name: play is unchanged, but anything an agent keyed on that
    name (a learnt value, a card it expects to send it there) no longer matches."""

    name = "renamed_property"
    category = "representation"
    description = ("One property gets a new name (cards follow); hard drops one letter of "
                   "Mediterranean Avenue, a rarely landed street.")
    Params = _RenameOne
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


# --- cards ----------------------------------------------------------------------------
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
