"""Cards: the believed decks against the cards drawn (text, physical index, how often
within a cycle) and against what a card does (its payment, its move)."""

from __future__ import annotations

import difflib
import re
from typing import Any

from openmono.compiled import CARD
from openmono.schema import Card, Deck

from agents.base import NoveltyChange
from agents.planner import beliefs as B
from agents.planner.detection.checker import Changes, Checker

BANK = -1
MONEY_CARDS = ("collect", "pay", "collect_from_each", "pay_each")
_MONEY = re.compile(r"\$(\d+)")


class CardChecker(Checker):
    """Checks every draw against the believed deck and every card's payment and move
    against the believed card; a deck found changed is rebuilt from the physical card
    indices once every card of it has been seen. `card`: the card being resolved,
    [seat, deck index, believed card or None, text, moved yet?, (houses, hotels) when
    drawn]."""

    reasons = ("card",)

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.unknown_cards: set[tuple[str, str]] = set()  # (deck, text) of unknown effect
        self.card_factors: list[tuple[float, int, str]] = []  # (factor, clock, key)
        self.card_ok: dict[str, int] = {}  # card entity -> clock of a matching effect
        self.idx_maps: dict[str, dict[int, str]] = {}  # deck -> {card index: text}
        self.deck_epoch: set[str] = set()  # decks whose believed list was contradicted
        self.epoch_draws: dict[str, int] = {}
        self.text_origin: dict[tuple[str, str], str] = {}  # (deck, new text) -> first text
        self.orig_deck_texts: dict[str, dict[str, int]] = {}  # counts before a deck changed
        self.new_game()

    # --- beliefs -------------------------------------------------------------------------
    def compiled(self) -> None:
        """Index the believed decks (texts and counts per deck, the cards in a cycle) for
        the checks on each draw."""
        R = self.det.R
        self.deck_index = {name: i for i, name in enumerate(R.deck_names)}
        self.deck_texts: list[dict[str, int]] = []
        self.deck_cycle: list[int] = []
        for cards in R.decks:
            counts: dict[str, int] = {}
            for c in cards:
                counts[c.text] = counts.get(c.text, 0) + 1
            self.deck_texts.append(counts)
            goojs = sum(1 for c in cards if c.kind == "get_out_of_jail")
            self.deck_cycle.append(len(cards) - goojs)

    def rules_changed(self) -> None:
        """The public rules changed: the draws seen so far describe the old decks."""
        self.draws = {}
        self.game_draws = {}

    def new_game(self) -> None:
        """A new game reshuffles the decks: no draw is pending and the per-game draws start
        empty."""
        self.pending_draw = -1
        self.card: list | None = None
        self.draws: dict[int, list[str]] = {}
        self.game_draws: dict[str, list[tuple[int, str]]] = {}

    def original_text(self, deck: str, text: str) -> str:
        """The text a card had before a rewording was believed: the name a changed card is
        reported under."""
        return self.text_origin.get((deck, text), text)

    def _entity(self, deck: str, text: str) -> str:
        return f"card:{deck}:{self.original_text(deck, text)}"

    def _edit_card(self, deck: str, text: str, updates: dict[str, Any]) -> None:
        """Change a believed card (all copies with that text) and recompile."""
        det = self.det
        decks = []
        for dk in det.decks:
            if dk.name == deck:
                cards = tuple(c.model_copy(update=updates) if c.text == text else c
                              for c in dk.cards)
                dk = Deck(name=dk.name, cards=cards)
            decks.append(dk)
        det.decks = tuple(decks)
        det.rebuild()

    # --- landing and draws ---------------------------------------------------------------
    def landed(self, seat: int, sq: int, reason: str, ctx: tuple) -> None:
        """A landing on a card square makes a draw due."""
        if self.det.R.kind[sq] == CARD:
            self.pending_draw = seat

    def close(self) -> None:
        """The landing ended with no draw: a hidden rule for the agent's own seat, or an
        opponent's draw the observation hid."""
        if self.pending_draw >= 0:
            seat = self.pending_draw
            self.pending_draw = -1
            if seat != self.det.me:
                self.det.hidden_events("opponents' events shown",
                                       f"seat {seat} landed on a card square without a draw")
            else:
                self.det.detect(1.0, "I landed on a card square and drew nothing")

    def on_dice_rolled(self, e: Any) -> None:
        """A throw ends any landing that still waits for its draw."""
        if self.pending_draw >= 0:
            self.det.close_landing()

    def on_turn_started(self, e: Any) -> None:
        """A new turn: no card is being resolved."""
        self.card = None

    def on_card_drawn(self, e: Any) -> None:
        """A draw against the believed deck (its text at that physical index, and how often
        it comes up in a cycle); the card is kept to check what it pays and where it
        moves."""
        seat, deck, idx, text = e
        det = self.det
        if self.pending_draw == seat:
            self.pending_draw = -1
        d = self.deck_index.get(deck)
        if d is None:
            det.change(f"deck:{deck}", "exists", None, None, why=f"unknown deck {deck!r}")
            self.card = [seat, -1, None, text, False, (0, 0)]
            return
        self.game_draws.setdefault(deck, []).append((idx, text))
        if deck in self.deck_epoch:
            self.idx_maps.setdefault(deck, {})[idx] = text
            self.epoch_draws[deck] = self.epoch_draws.get(deck, 0) + 1
        cards = det.R.decks[d]
        card = cards[idx] if 0 <= idx < len(cards) and cards[idx].text == text else None
        if card is None:
            card = self._mismatch(deck, d, idx, text)
        if (deck, text) in self.unknown_cards:
            card = None
        repairs = card is not None and card.kind == "repairs"
        # A repairs bill is made when the card is drawn, before any sale to pay it.
        self.card = [seat, d, card, text, False,
                     det.replica.buildings(det.R, seat) if repairs else (0, 0)]
        if det.deck_complete and det.trust_others:
            self._cycle_check(deck, d, text)

    def _mismatch(self, deck: str, d: int, idx: int, text: str) -> Any:
        """The drawn card is not the believed card at its index: a deck changed."""
        if deck not in self.deck_epoch:
            self.deck_epoch.add(deck)
            self.idx_maps[deck] = dict(self.game_draws.get(deck, []))
            self.orig_deck_texts[deck] = dict(self.deck_texts[d])
        known = self.deck_texts[d]
        cards = self.det.R.decks[d]
        if text in known:
            self.det.detect(1.0, f"{deck}: card {idx} is {text!r}, not as believed")
            return next(c for c in cards if c.text == text)
        # An unknown text: a changed card (same place, similar words) or a new card.
        old = None
        if 0 <= idx < len(cards) and _similar(cards[idx].text, text):
            old = cards[idx]
        else:
            best, best_r = None, 0.6
            for c in cards:
                r = difflib.SequenceMatcher(None, c.text, text).ratio()
                if r > best_r and c.text not in set(self.idx_maps.get(deck, {}).values()):
                    best, best_r = c, r
            old = best
        if old is None:
            self.det.change(f"card:{deck}:{text}", "exists", None, None,
                            why=f"{deck}: a new card {text!r}")
            self.unknown_cards.add((deck, text))
            return None
        return self._retext(deck, old, text)

    def _retext(self, deck: str, old: Any, text: str) -> Any:
        """A card whose text changed: read the new amounts and square off the text."""
        det = self.det
        entity = self._entity(deck, old.text)
        det.change(entity, "text", text, old.text, why=f"{deck}: card text changed")
        updates: dict[str, Any] = {"text": text}
        old_nums = [int(x) for x in _MONEY.findall(old.text)]
        new_nums = [int(x) for x in _MONEY.findall(text)]
        if len(old_nums) == len(new_nums):
            for attr in ("amount", "per_house", "per_hotel"):
                v = getattr(old, attr)
                if v and v in old_nums:
                    nv = new_nums[old_nums.index(v)]
                    if nv != v:
                        updates[attr] = nv
                        det.change(entity, attr, nv, v, why=f"{deck}: card {attr} in text")
        if old.square >= 0:
            names = sorted(det.R.names, key=len, reverse=True)
            old_name = det.R.names[old.square]
            if old_name not in text:
                for name in names:
                    if name in text:
                        updates["square"] = name
                        det.change(entity, "square", name, old_name,
                                   why=f"{deck}: card destination in text")
                        break
        self.text_origin[(deck, text)] = self.original_text(deck, old.text)
        self._edit_card(deck, old.text, updates)
        d = self.deck_index[deck]
        return next((c for c in det.R.decks[d] if c.text == text), None)

    def _cycle_check(self, deck: str, d: int, text: str) -> None:
        """Within one pass through a deck every physical card shows at most once: a text
        drawn more often than its count in a window shorter than the cycle is new. (Only
        for decks drawn in order: GNOME's `card_draw="random"` draws with replacement.)"""
        seq = self.draws.setdefault(d, [])
        seq.append(text)
        w = self.deck_cycle[d]
        count = self.deck_texts[d].get(text, 0)
        if count and w > 0 and self.det.believed_schema.bank.card_draw == "deck":
            recent = seq[-w:]
            seen = recent.count(text)
            if seen > count:  # the deck changed (which way, the card indices tell)
                self.det.detect(1.0, f"{deck}: {text!r} drawn {seen} times within one cycle")

    # --- what a card does ----------------------------------------------------------------
    def _card_fine(self, entity: str) -> None:
        """A card did what the believed card says: evidence against "all cards changed",
        unless the card was already found changed (then it only confirms the estimate)."""
        if not any((entity, a) in self.det.changes for a in ("amount", "per_house", "per_hotel",
                                                              "text", "square")):
            self.card_ok[entity] = self.det.clock

    def card_move(self, seat: int, start: int, end: int) -> tuple[bool | None, tuple | None]:
        """A move by a card (`MovementChecker`): (collects Go salary?, rent context for
        the landing), both None when the move has no card to explain it."""
        card = self.card
        if card is None or card[0] != seat or card[4]:
            return None, None  # a move we cannot explain: no expectation at the landing
        card[4] = True
        c = card[2]
        if c is None:
            return None, None
        det = self.det
        R = det.R
        deck = R.deck_names[card[1]]
        entity = self._entity(deck, c.text)
        k = c.kind
        if k == "advance_to":
            if end != c.square:
                det.change(entity, "square", R.names[end], R.names[c.square] if c.square >= 0
                           else None, why="a card moved elsewhere")
                self._edit_card(deck, c.text, {"square": R.names[end]})
            return c.collect_go, (1.0, None)
        if k == "advance_to_nearest":
            target = R.nearest.get(c.target_kind, ())
            if not target or end != target[start]:
                det.detect(1.0, "a card moved to an unexpected square")
                return None, None
            return c.collect_go, (c.rent_multiplier, c.dice_multiplier)
        if k == "move_back":
            back = (start - end) % R.n
            if back != c.amount:
                det.change(entity, "amount", back, c.amount, why="a card moved back further")
            # `BankRules.move_back_go` (GNOME): a move back counts as a move round the board
            return bool(R.bank.move_back_go and c.collect_go), (1.0, None)
        det.detect(1.0, f"card {c.text!r} moved a token")
        return None, None

    def on_payment(self, e: Any) -> None:
        """A card's payment against the believed card (direction and amount); a new amount
        is reported and believed."""
        payer, payee, amount = e[0], e[1], e[2]
        det = self.det
        card = self.card
        if card is None or card[1] < 0:
            det.detect(1.0, "a card payment without a card")
            return
        seat, c = card[0], card[2]
        if c is None:
            return  # an unknown card: its effect is not checked
        if not (seat == det.me or det.trust_others):
            return
        deck = det.R.deck_names[card[1]]
        entity = self._entity(deck, c.text)
        k = c.kind
        ok_dir = ((k == "collect" and payer == BANK and payee == seat)
                  or (k == "pay" and payer == seat and payee == BANK)
                  or (k == "collect_from_each" and payee == seat and payer != BANK)
                  or (k == "pay_each" and payer == seat and payee != BANK)
                  or (k == "repairs" and payer == seat and payee == BANK))
        if not ok_dir:
            det.detect(1.0, f"card {c.text!r} moved money unexpectedly")
            return
        if k == "repairs":
            self._repairs(entity, c, amount, card[5])
            return
        if amount == c.amount:
            self._card_fine(entity)
            return
        det.change(entity, "amount", amount, c.amount, why=f"card {c.text!r} paid {amount}")
        if c.amount:
            self.card_factors.append((amount / c.amount, det.clock, entity))
        self._edit_card(deck, c.text, {"amount": amount})
        card[2] = next((x for x in det.R.decks[card[1]] if x.text == c.text), None)

    def _repairs(self, entity: str, c: Any, amount: int, buildings: tuple[int, int]) -> None:
        """A repairs bill against the buildings counted when the card was drawn."""
        det = self.det
        houses, hotels = buildings
        expected = houses * c.per_house + hotels * c.per_hotel
        if amount == expected:
            self._card_fine(entity)
            return
        if hotels == 0 and houses:
            det.change(entity, "per_house", amount // houses, c.per_house,
                       why="repairs charged per house")
            if c.per_house:
                self.card_factors.append((amount / houses / c.per_house, det.clock, entity))
        elif houses == 0 and hotels:
            det.change(entity, "per_hotel", amount // hotels, c.per_hotel,
                       why="repairs charged per hotel")
            if c.per_hotel:
                self.card_factors.append((amount / hotels / c.per_hotel, det.clock, entity))
        elif expected:
            f = amount / expected
            det.change(entity, "per_house", B.scale(c.per_house, f), c.per_house,
                       why="repairs charged")
            det.change(entity, "per_hotel", B.scale(c.per_hotel, f), c.per_hotel,
                       why="repairs charged")
            self.card_factors.append((f, det.clock, entity))

    # --- decks: composition, adoption, report --------------------------------------------
    def compositions(self) -> list[tuple[str, dict[str, int], bool]]:
        """(deck, {text: count}, complete?) from the card indices seen since the deck
        changed. Complete: every index up to the deck's size was seen, the size being at
        least the believed one unless many draws never showed a higher index."""
        out = []
        for deck in sorted(self.deck_epoch):  # not a set's order: it moves with the hash seed
            m = self.idx_maps.get(deck, {})
            if not m:
                continue
            top = max(m) + 1
            believed = sum(self.orig_deck_texts.get(deck, {}).values())
            draws = self.epoch_draws.get(deck, 0)
            size = top if draws >= 4 * top else max(top, believed)
            comp: dict[str, int] = {}
            for text in m.values():
                comp[text] = comp.get(text, 0) + 1
            out.append((deck, comp, len(m) == size))
        return out

    def adopt(self) -> bool:
        """Rebuild a changed deck once every physical card of it has been seen."""
        det = self.det
        changed = False
        for deck, comp, complete in self.compositions():
            d = self.deck_index.get(deck)
            if d is None or not complete or comp == self.deck_texts[d]:
                continue
            by_text = {c.text: c for c in det.R.decks[d]}
            m = self.idx_maps[deck]
            cards = []
            for i in sorted(m):  # in index order, so the indices keep their meaning
                text = m[i]
                if by_text.get(text) is None or (deck, text) in self.unknown_cards:
                    card = Card(text=text, kind="collect", amount=0)
                else:
                    card = self._card_model(deck, text).model_copy(update={"count": 1})
                cards.append(card)
            det.decks = tuple(Deck(name=dk.name, cards=tuple(cards)) if dk.name == deck
                              else dk for dk in det.decks)
            changed = True
        return changed

    def _card_model(self, deck: str, text: str) -> Card:
        for dk in self.det.decks:
            if dk.name == deck:
                for c in dk.cards:
                    if c.text == text:
                        return c
        return Card(text=text, kind="collect")

    def derived(self, out: Changes) -> None:
        """The card changes inferred from accumulated draws: a common factor on the amounts,
        and decks rebuilt from the cards seen."""
        self._extrapolation(out)
        self._deck_changes(out)

    def _extrapolation(self, out: Changes) -> None:
        """All money cards scaled alike when two or more cards show the same factor and
        no money card was seen unchanged since."""
        fs = self.card_factors
        if len({k for _, _, k in fs}) < 2:
            return
        lo = min(f for f, _, _ in fs)
        hi = max(f for f, _, _ in fs)
        since = min(c for _, c, _ in fs)
        if hi - lo > 0.05 * hi or any(c > since for c in self.card_ok.values()):
            return
        f = round(sum(x for x, _, _ in fs) / len(fs), 2)
        changes = self.det.changes
        for d in self.det.decks:
            for c in d.cards:
                entity = self._entity(d.name, c.text)
                if c.kind in MONEY_CARDS and c.amount and (entity, "amount") not in changes:
                    out[(entity, "amount")] = NoveltyChange(entity, "amount",
                                                            round(c.amount * f), c.amount)
                if c.kind == "repairs":
                    for attr in ("per_house", "per_hotel"):
                        v = getattr(c, attr)
                        if v and (entity, attr) not in changes:
                            out[(entity, attr)] = NoveltyChange(entity, attr, round(v * f), v)

    def _deck_changes(self, out: Changes) -> None:
        """Deck composition from the physical card indices seen since a deck changed."""
        for deck, comp, complete in self.compositions():
            d = self.deck_index.get(deck)
            if d is None:
                continue
            believed = self.orig_deck_texts.get(deck, self.deck_texts[d])
            orig: dict[str, int] = {}
            for text, count in comp.items():
                key = self.original_text(deck, text)
                orig[key] = orig.get(key, 0) + count
            for text, old in believed.items():
                new = orig.get(text, 0)
                entity = self._entity(deck, text)
                if new > old or (complete and new != old):
                    if new == 0:
                        out[(entity, "exists")] = NoveltyChange(entity, "exists", None, None)
                    else:
                        out[(entity, "count")] = NoveltyChange(entity, "count", new, old)


def _similar(a: str, b: str) -> bool:
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.5
