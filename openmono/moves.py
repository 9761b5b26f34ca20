"""Moves under the engine's rules: moving round the board (the Go salary), landing
(rent, tax, cards, purchases, plugin squares), the card decks, jail (a part of
`openmono.engine.Game`). `rent_of` prices a property's rent.
"""

from __future__ import annotations

import inspect
import random
from typing import TYPE_CHECKING, Any, Generator

from openmono import events as E
from openmono.compiled import CARD, GO_TO_JAIL, PLUGIN, STREET, TAX, UTILITY, Rules
from openmono.events import BANK
from openmono.flow import Request, maybe_gen, new_tuple
from openmono.kinds import CARD_KINDS, SQUARE_KINDS
from openmono.state import NOBODY, buildings_held, has_monopoly, owned_in_group

if TYPE_CHECKING:
    from openmono.parts import GameParts  # the `self` of the parts (annotations only)


class Moves:
    """The movement, landing, card and jail rules of `Game` (mixed in)."""

    def _move(self: GameParts, p: int, steps: int, reason: str, collect_go: bool) -> int:
        """Move forward `steps` squares, paying the Go salary for each pass; returns the
        square reached (landing effects are separate: `_land`)."""
        st = self.state
        rules = self.rules
        n = rules.n
        start = st.position[p]
        end = (start + steps) % n
        st.move(p, end)
        self.events.append(new_tuple(E.Moved, (p, start, end, reason)))
        if collect_go and steps > 0:
            go = rules.go
            passes = (start + steps - go) // n - (start - go) // n
            if passes:
                salary = rules.bank.go_salary * passes
                if self.hooks.passing_go is not None:
                    salary = self.hooks.passing_go(self.api, p, salary)
                if salary > 0 and st.bank_cash is not None and st.bank_cash < salary:
                    salary = 0  # the bank's reserve cannot pay it
                if salary > 0:  # = self._pay(BANK, p, salary, "go_salary", go)
                    st.pay(BANK, p, salary)
                    self.events.append(new_tuple(E.Payment, (BANK, p, salary, "go_salary", go)))
        return end

    def _advance(self: GameParts, p: int, steps: int, dice_total: int, reason: str,
                 collect_go: bool = True, rent_multiplier: float = 1.0,
                 dice_multiplier: int | None = None) -> Generator[Request, Any, None]:
        end = self._move(p, steps, reason, collect_go)
        yield from self._land(p, end, dice_total, rent_multiplier, dice_multiplier)

    def move_to(self: GameParts, p: int, target: int,
                collect_go: bool = True) -> Generator[Request, Any, None]:
        """Move forward to `target` and land there (for card and plugin effects)."""
        steps = (target - self.state.position[p]) % self.rules.n
        return self._advance(p, steps, 0, "card", collect_go)

    def land(self: GameParts, p: int, sq: int,
             dice_total: int = 0) -> Generator[Request, Any, None]:
        """The landing effect of `sq` for `p`, without moving (for plugin effects)."""
        return self._land(p, sq, dice_total)

    def _land(self: GameParts, p: int, sq: int, dice_total: int, rent_multiplier: float = 1.0,
              dice_multiplier: int | None = None) -> Generator[Request, Any, None]:
        st = self.state
        rules = self.rules
        hook = self.hooks.landing
        if hook is not None:
            handled = hook(self.api, p, sq)
            if inspect.isgenerator(handled):
                handled = yield from handled
            if handled is True or not st.active[p]:
                return
        k = rules.kind[sq]
        if k <= UTILITY and k >= STREET:
            owner = st.owner[sq]
            if owner == NOBODY:
                yield from self._offer_purchase(p, sq)
            elif owner != p and not st.mortgaged[sq]:
                if k == UTILITY and (dice_multiplier is not None or dice_total <= 0):
                    # Reached by a card (or any move without a throw): throw the dice now
                    # for the rent, as the official rules do for the utility card.
                    dice = rules.roll(self.dice_rng)
                    if self.hooks.dice_roll is not None:  # "after every roll", this one too
                        dice = tuple(self.hooks.dice_roll(self.api, p, dice))
                    self.events.append(new_tuple(E.DiceRolled, (p, dice)))
                    if dice_multiplier is not None:
                        rent = dice_multiplier * sum(dice)
                    else:
                        rent = int(self.rent(sq, sum(dice)) * rent_multiplier)
                else:
                    rent = int(self.rent(sq, dice_total) * rent_multiplier)
                if self.hooks.rent is not None:
                    rent = self.hooks.rent(self.api, p, sq, rent)
                cash = st.cash
                if cash[p] >= rent and st.active[owner]:  # common: no debt sub-generator
                    if rent > 0:  # = self._pay(p, owner, rent, "rent", sq)
                        st.pay(p, owner, rent)
                        self.events.append(new_tuple(E.Payment, (p, owner, rent, "rent", sq)))
                else:
                    yield from self._charge(p, owner, rent, "rent", sq)
        elif k == TAX:
            tax = rules.tax[sq]
            if self.hooks.tax is not None:
                tax = self.hooks.tax(self.api, p, sq, tax)
            if st.cash[p] >= tax:
                self._pay(p, BANK, tax, "tax", sq)
            else:
                yield from self._charge(p, BANK, tax, "tax", sq)
        elif k == CARD:
            yield from self._draw(p, rules.deck_of[sq])
        elif k == GO_TO_JAIL:
            self._jail(p, "go_to_jail")
        elif k >= PLUGIN:
            handler = SQUARE_KINDS.get(rules.kind_names[sq])
            if handler is not None:
                yield from maybe_gen(handler(self.api, p, sq))
        # go, jail (just visiting), free parking: nothing happens.

    def rent(self: GameParts, sq: int, dice_total: int) -> int:
        """The rent the owner of `sq` charges now (before hooks and card multipliers)."""
        return rent_of(self.rules, self.state.owner, self.state.level, sq, dice_total)

    def _draw(self: GameParts, p: int, deck: int) -> Generator[Request, Any, None]:
        st = self.state
        rules = self.rules
        order = st.decks[deck]
        if not order:
            return
        ci = st.draw(deck, 0 if rules.bank.card_draw == "deck"
                     else self._card_rng(deck).randrange(len(order)))
        card = rules.decks[deck][ci]
        self.events.append(new_tuple(E.CardDrawn, (p, rules.deck_names[deck], ci, card.text)))
        kind = card.kind
        if kind == "get_out_of_jail":
            st.hold_jail_card(p, (deck, ci))
            return
        st.put_back(deck, ci)
        if kind == "collect":
            if st.bank_cash is None or st.bank_cash >= card.amount:
                self._pay(BANK, p, card.amount, "card")
        elif kind == "pay":
            yield from self._charge(p, BANK, card.amount, "card")
        elif kind == "advance_to":
            yield from self._advance(p, (card.square - st.position[p]) % rules.n, 0, "card",
                                     card.collect_go)
        elif kind == "advance_to_nearest":
            target = rules.nearest[card.target_kind][st.position[p]]
            yield from self._advance(p, (target - st.position[p]) % rules.n, 0, "card",
                                     card.collect_go, card.rent_multiplier, card.dice_multiplier)
        elif kind == "move_back" and rules.bank.move_back_go:
            # GNOME: moving back is moving to a lower square, which passes Go unless the
            # move crosses Go backwards: exactly a move forward round the board.
            yield from self._advance(p, -card.amount % rules.n, 0, "card", card.collect_go)
        elif kind == "move_back":
            start = st.position[p]
            end = (start - card.amount) % rules.n
            st.move(p, end)
            self.events.append(new_tuple(E.Moved, (p, start, end, "card")))
            yield from self._land(p, end, 0)
        elif kind == "go_to_jail":
            self._jail(p, "card")
        elif kind == "collect_from_each":
            for q in range(self.players):
                if q != p and st.active[q] and st.active[p]:
                    yield from self._charge(q, p, card.amount, "card")
        elif kind == "pay_each":
            for q in range(self.players):
                if q != p and st.active[q] and st.active[p]:
                    yield from self._charge(p, q, card.amount, "card")
        elif kind == "repairs":
            houses, hotels = buildings_held(rules, st.owner, st.level, p)
            yield from self._charge(p, BANK, houses * card.per_house + hotels * card.per_hotel,
                                    "card")
        else:
            handler = CARD_KINDS.get(kind)
            if handler is not None:
                yield from maybe_gen(handler(self.api, p, card))

    def _card_rng(self: GameParts, deck: int) -> random.Random:
        """The stream of random draws from `deck` (`card_draw="random"`)."""
        rngs = self.__dict__.setdefault("_card_rngs", {})
        rng = rngs.get(deck)
        if rng is None:
            rng = rngs[deck] = random.Random(self.seeds.get(f"deck{deck}", deck) + 1)
        return rng

    def _jail(self: GameParts, p: int, reason: str) -> None:
        st = self.state
        start = st.position[p]
        st.jail(p, self.rules.jail)
        self.events.append(new_tuple(E.Moved, (p, start, self.rules.jail, "jail")))
        self.events.append(new_tuple(E.Jailed, (p, reason)))

    def _release(self: GameParts, p: int, how: str) -> None:
        st = self.state
        st.release(p)
        self.events.append(new_tuple(E.Released, (p, how)))


def rent_of(rules: Rules, owner: tuple[int, ...], level: tuple[int, ...], sq: int,
            dice_total: int) -> int:
    """Rent of a property at its current development (0 when unowned)."""
    o = owner[sq]
    if o == NOBODY:
        return 0
    k = rules.kind[sq]
    table = rules.rent[sq]
    if k == STREET:
        lv = level[sq]
        if lv:
            return table[lv]
        g = rules.group_of[sq]
        return table[0] * 2 if has_monopoly(rules, owner, o, g) else table[0]
    count = owned_in_group(rules, owner, o, rules.group_of[sq])
    value = table[min(count, len(table)) - 1]
    if k == UTILITY:
        return value * dice_total
    return value
