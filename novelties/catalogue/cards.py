"""Card novelties: amounts, destinations and deck composition (hidden: decks are not
shown to agents, only the cards drawn), and a new card kind."""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field

from openmono.kinds import register_card_kind
from openmono.schema import Card, Deck, GameSchema

from novelties.base import Novelty, NoveltyParams, replace
from novelties.catalogue._common import swap_money_in_text

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


# --- a new card kind ------------------------------------------------------------------------
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
