"""Card novelties: amounts, destinations and deck composition (hidden: decks are not
shown to agents, only the cards drawn), a new card kind, and a fee for drawing.

`card_amounts` changes the money cards, `card_amount` one card only, `repair_costs` what
the street-repairs cards charge (seen only when a player with buildings draws one), and
`card_fee` charges for landing on a card square before the draw (unannounced).
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import Field

from openmono.events import BANK
from openmono.hooks import Hooks
from openmono.kinds import register_card_kind
from openmono.schema import Card, Deck, GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams, replace
from novelties.catalogue._common import swap_money_in_text
from novelties.catalogue.squares import _then_continue


MONEY_KINDS = ("collect", "pay", "collect_from_each", "pay_each")


COSTLY_KINDS = ("pay", "pay_each", "repairs", "go_to_jail")


def _map_cards(schema: GameSchema, fn) -> GameSchema:
    decks = tuple(replace(d, cards=tuple(fn(d, c) for c in d.cards)) for d in schema.decks)
    return replace(schema, decks=decks)


class _Amounts(NoveltyParams):
    factor: float = Field(gt=0, le=20)
    update_text: bool = True


class CardAmounts(Novelty):
    """The money on cards changes, possibly behind the old texts: the cash reserve an agent
    keeps against card payments, and what repairs cost a built-up player, are off."""

    name = "card_amounts"
    category = "attribute"
    description = ("Money on cards (collect, pay, per-player, repairs) times `factor`; hard "
                   "triples it but the card texts keep the old amounts.")
    Params = _Amounts
    presets = {"easy": {"factor": 1.5}, "medium": {"factor": 2.0},
               "hard": {"factor": 3.0, "update_text": False}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The decks with every money card scaled, the texts updated unless `update_text` is
        off."""
        f = params.factor

        def change(deck: Deck, card: Card) -> Card:
            updates: dict[str, Any] = {}
            if card.kind in MONEY_KINDS and card.amount:
                updates["amount"] = max(0, round(card.amount * f))
            if card.kind == "repairs":
                updates["per_house"] = max(0, round(card.per_house * f))
                updates["per_hotel"] = max(0, round(card.per_hotel * f))
            if not updates:
                return card
            if params.update_text:
                text = card.text
                for key, new in updates.items():
                    text = swap_money_in_text(text, getattr(card, key), new)
                updates["text"] = text
            return replace(card, **updates)

        return _map_cards(schema, change)


class _Card(NoveltyParams):
    deck: str
    card: str  # the start of the card's text
    amount: int = Field(ge=0, le=100_000)
    update_text: bool = False


class CardAmount(Novelty):
    """One card pays or charges another amount, seen only when it is drawn: a small error in
    the cash an agent expects from the decks."""

    name = "card_amount"
    category = "attribute"
    description = ("One card's amount changes (decks are hidden: only its draws show it); hard "
                   "turns the $10 beauty-contest prize into $15 and keeps the old text.")
    Params = _Card
    presets = {"easy": {"deck": "chance", "card": "Bank pays you dividend", "amount": 150,
                        "update_text": True},
               "medium": {"deck": "community_chest", "card": "Doctor's fee", "amount": 100},
               "hard": {"deck": "community_chest", "card": "You have won second prize",
                        "amount": 15}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The deck with the first card whose text starts with `card` paying `amount` (its
        text updated only with `update_text`)."""
        decks = {d.name: d for d in schema.decks}
        if params.deck not in decks:
            raise ValueError(f"unknown deck {params.deck!r}; decks: {', '.join(decks)}")
        deck = decks[params.deck]
        hits = [j for j, c in enumerate(deck.cards) if c.text.startswith(params.card)]
        if not hits:
            raise ValueError(f"no card of {params.deck} starts with {params.card!r}")
        j = hits[0]
        card = deck.cards[j]
        if not card.amount or card.amount == params.amount:
            raise ValueError(f"card {card.text!r} has amount {card.amount}: choose a money "
                             "card and a new amount")
        text = (swap_money_in_text(card.text, card.amount, params.amount)
                if params.update_text else card.text)
        new = replace(card, amount=params.amount, text=text)
        cards = deck.cards[:j] + (new,) + deck.cards[j + 1:]
        return replace(schema, decks=tuple(replace(d, cards=cards) if d.name == deck.name
                                           else d for d in schema.decks))


# --- street repairs: what a house and a hotel cost ------------------------------------
class _Repairs(NoveltyParams):
    deck: str | None = None  # None: every repairs card
    house: int | None = Field(default=None, ge=0, le=5000)  # None: unchanged
    hotel: int | None = Field(default=None, ge=0, le=5000)
    update_text: bool = False


class RepairCosts(Novelty):
    """The repairs cards charge other amounts per house and hotel: the risk of holding
    buildings, which an agent weighs in how far it builds, is not the printed one."""

    name = "repair_costs"
    category = "attribute"
    description = ("The repairs cards charge other amounts per house and per hotel (decks are "
                   "hidden: only a draw shows it); hard raises Community Chest's charge per "
                   "hotel from 115 to 150 and keeps the old text, seen only when a player "
                   "holding a hotel draws it.")
    Params = _Repairs
    presets = {"easy": {"house": 50, "hotel": 150, "update_text": True},
               "medium": {"deck": "community_chest", "house": 50},
               "hard": {"deck": "community_chest", "hotel": 150}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The decks with the repairs cards' charges changed (texts only with
        `update_text`); a change that changes nothing is refused."""
        names = [d.name for d in schema.decks]
        if params.deck is not None and params.deck not in names:
            raise ValueError(f"unknown deck {params.deck!r}; decks: {', '.join(names)}")
        if params.house is None and params.hotel is None:
            raise ValueError("set house or hotel (the new charge per house or per hotel)")
        decks, changed = [], 0
        for d in schema.decks:
            cards = []
            for c in d.cards:
                if c.kind == "repairs" and params.deck in (None, d.name):
                    house = c.per_house if params.house is None else params.house
                    hotel = c.per_hotel if params.hotel is None else params.hotel
                    text = c.text
                    if params.update_text:
                        text = swap_money_in_text(swap_money_in_text(
                            text, c.per_hotel, hotel), c.per_house, house)
                    if (house, hotel) != (c.per_house, c.per_hotel):
                        changed += 1
                    c = replace(c, per_house=house, per_hotel=hotel, text=text)
                cards.append(c)
            decks.append(replace(d, cards=tuple(cards)))
        if not changed:
            raise ValueError("no repairs card changes: its charges are already these")
        return replace(schema, decks=tuple(decks))


# --- destinations and composition -----------------------------------------------------
class _Destinations(NoveltyParams):
    changes: int | None = Field(ge=1)  # None = every advance_to card
    update_text: bool = True
    seed: int = 0


class CardDestinations(Novelty):
    """'Advance to' cards send players elsewhere: the squares they bring traffic to, and so
    which properties earn most, are not the printed ones."""

    name = "card_destinations"
    category = "attribute"
    description = ("'Advance to' cards send players to other properties; easy moves every such "
                   "card (keeping the old texts), hard a single one, seen only when it is drawn.")
    Params = _Destinations
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"changes": None, "update_text": False}, "medium": {"changes": 3},
               "hard": {"changes": 1}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The decks with the chosen 'advance to' cards pointing at other properties, drawn
        by `seed`."""
        rng = random.Random(params.seed)
        spots = [(d.name, j) for d in schema.decks for j, c in enumerate(d.cards)
                 if c.kind == "advance_to"]
        if not spots:
            raise ValueError("no 'advance to' card in the decks")
        chosen = set(spots if params.changes is None
                     else rng.sample(spots, min(params.changes, len(spots))))
        props = [s.name for s in schema.squares if s.is_property]
        decks = []
        for d in schema.decks:
            cards = list(d.cards)
            for j, c in enumerate(cards):
                if (d.name, j) in chosen:
                    target = rng.choice([p for p in props if p != c.square])
                    text = c.text.replace(c.square, target) if params.update_text else c.text
                    if params.update_text and text == c.text:
                        text = f"Advance to {target}"
                    cards[j] = replace(c, square=target, text=text)
            decks.append(replace(d, cards=tuple(cards)))
        return replace(schema, decks=tuple(decks))


class _Composition(NoveltyParams):
    remove: int = Field(0, ge=0)
    duplicate: int = Field(0, ge=0)
    costly: bool = False  # duplicate only cards that cost the drawer
    seed: int = 0


class DeckComposition(Novelty):
    """Cards leave the decks or appear twice, which only the draws show: the odds of a
    costly card (and of a jail card) are not what an agent reading the printed decks
    expects."""

    name = "deck_composition"
    category = "attribute"
    description = ("Cards removed from or doubled in the decks (hidden: only draws show it); "
                   "hard removes 6 and doubles 6 costly cards, so the decks turn hostile.")
    Params = _Composition
    presets = {"easy": {"duplicate": 2}, "medium": {"remove": 3, "duplicate": 3},
               "hard": {"remove": 6, "duplicate": 6, "costly": True}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The decks with cards removed and doubled, drawn by `seed`; a deck is never
        emptied."""
        if not params.remove and not params.duplicate:
            raise ValueError("remove or duplicate at least one card")
        rng = random.Random(params.seed)
        spots = [(d.name, j) for d in schema.decks for j in range(len(d.cards))]
        removed = set(rng.sample(spots, min(params.remove, len(spots))))
        pool = [s for s in spots if s not in removed]
        if params.costly:
            by = {d.name: d for d in schema.decks}
            pool = [s for s in pool if by[s[0]].cards[s[1]].kind in COSTLY_KINDS]
        doubled = set(rng.sample(pool, min(params.duplicate, len(pool))))
        decks = []
        for d in schema.decks:
            cards = []
            for j, c in enumerate(d.cards):
                if (d.name, j) in removed:
                    continue
                cards.append(replace(c, count=c.count + 1) if (d.name, j) in doubled else c)
            if not cards:  # never empty a deck: keep its first card
                cards.append(d.cards[0])
            decks.append(replace(d, cards=tuple(cards)))
        return replace(schema, decks=tuple(decks))


# --- a new card kind ------------------------------------------------------------------
def _dividend(game: Any, seat: int, card: Any) -> None:
    """Collect `amount` per property owned."""
    owned = sum(1 for sq in game.rules.properties if game.state.owner[sq] == seat)
    game.pay(seat, owned * card.amount, "card")


class _Dividend(NoveltyParams):
    amount: int = Field(ge=1, le=1000)
    copies: int = Field(1, ge=1, le=5)


class DividendCard(Novelty):
    """A new card kind pays the drawer per property owned: owning many squares, even without
    sets, earns more than an agent valuing only rents expects."""

    name = "dividend_card"
    category = "class"
    description = ("A new card kind in every deck: collect `amount` per property you own; "
                   "hard adds three $50 copies per deck, rewarding wide ownership (hidden deck).")
    Params = _Dividend
    presets = {"easy": {"amount": 10}, "medium": {"amount": 25, "copies": 2},
               "hard": {"amount": 50, "copies": 3}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """Every deck with the new card added (its kind registered with the engine)."""
        register_card_kind("property_dividend", _dividend)
        card = Card(text=f"Property dividend: collect ${params.amount} for each property "
                         "you own", kind="property_dividend", amount=params.amount,
                    count=params.copies)
        if not schema.decks:
            raise ValueError("the schema has no decks")
        return replace(schema, decks=tuple(replace(d, cards=d.cards + (card,))
                                           for d in schema.decks))


# --- a fee for drawing ----------------------------------------------------------------
class _DrawFee(NoveltyParams):
    decks: Literal["all"] | list[str] = "all"
    fee: int = Field(ge=1, le=1000)


class CardFee(Novelty):
    """Landing on a card square costs a fee before the draw: a cost hidden among the card
    payments, which an agent's cash reserve does not allow for."""

    name = "card_fee"
    category = "class"
    description = ("Landing on a card square of the chosen decks costs `fee` before the draw; "
                   "hard charges 10 on Community Chest only, lost among the card payments.")
    Params = _DrawFee
    presets = {"easy": {"fee": 50}, "medium": {"decks": ["chance"], "fee": 25},
               "hard": {"decks": ["community_chest"], "fee": 10}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A landing hook charging the fee on the chosen decks' squares before the draw;
        unannounced."""
        names = [d.name for d in schema.decks]
        chosen = names if params.decks == "all" else list(params.decks)
        unknown = [d for d in chosen if d not in names]
        if unknown or not chosen:
            raise ValueError(f"unknown deck(s) {unknown}; decks: {', '.join(names)}")
        decks, fee = frozenset(chosen), params.fee
        squares = frozenset(s.name for s in schema.squares if s.kind == "card"
                            and s.deck in decks)

        def landing(game: Any, seat: int, sq: int) -> Any:
            if game.rules.names[sq] in squares:
                return _then_continue(game.charge(seat, BANK, fee, "card_fee", sq))
            return False

        return Applied(schema, Hooks(landing=landing), tuple(HookChange(
            f"deck:{d}", "draw fee", "landing on this deck's squares costs a fee", False, 0, fee)
            for d in chosen))
