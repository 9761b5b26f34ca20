"""Injecting a novelty: between games, or mid-game at a turn boundary.

Between games nothing is repaired: the next game is simply built on the new schema
and hooks (`play_game(prepared.schema, agents, seed, hooks=prepared.hooks)`).

Mid-game (`inject_mid_game`, `inject_now`) the rules are swapped with
`Game.replace_rules` before the next turn starts, and the state is repaired so that it
is consistent with the new rules, through the state's own methods only (`GameState`:
`set_board`, `set_level`, `move`, `set_stock`, `replace_decks`, ...; events through
`GameAPI.emit`, money through `Game.pay_from_bank`; `tests/test_state_writes.py`). The repair rules, applied in this order:

1. Squares are matched by name; a square whose name disappeared takes the unmatched
   new square at the same index (a rename or a replaced square). A property that no
   longer exists, or is no longer a property, is bought back by the bank: buildings at
   the old sell-back value, the property at its old price (minus the mortgage value
   when mortgaged). Every refund is a `Payment` (reason "novelty_repair").
2. A player on a square that no longer exists moves forward to the next old square
   that still exists (no landing effect, no Go salary); a jailed player stays jailed on
   the new jail square.
3. Buildings: a hotel stays a hotel if the new rules have hotels at no higher level
   (else it becomes the most houses allowed: never a free upgrade); houses above the
   new limit are sold. A street whose owner no
   longer has a buildable monopoly loses all its buildings. With even building, the
   most built street of a group is sold down until levels differ by at most one (or,
   when hotels are sold whole, until the group holds only hotels and empty lots). All
   sales are refunded at the NEW sell-back value, as `BuildingChanged` (reason
   "novelty") and `Payment` events.
4. Bank stock: houses/hotels left = new stock - buildings in use. Over-use is sold back
   (new sell-back value): hotels first (last street on the board first; each becomes
   houses if the bank has them, else is cleared), then one house at a time from the
   most built street (ties: the last on the board).
5. Decks whose cards changed are rebuilt and reshuffled with
   `random.Random(SeedSequence([game seed, turn, deck index]))`; decks that did not
   change keep their order. A held get-out-of-jail card maps to an unheld
   get-out-of-jail card of the new deck of the same name (same text first); when there
   is none it returns to the bank (event `JailCardMoved`, no refund).
6. Cash, starting cash, mortgages and jail turns are kept as they are.

An injection is refused (state and rules untouched, `InjectionRefused` with the reason)
when the game is over, or when the boards share no square name and differ in size (no
position can be mapped).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from numpy.random import SeedSequence

from openmono import events as E
from openmono.compiled import Rules
from openmono.engine import Game
from openmono.events import BANK
from openmono.hooks import Hooks
from openmono.schema import GameSchema
from openmono.state import NOBODY, GameState, has_monopoly

from novelties.base import NoveltyError
from novelties.observability import check_observability, shown_schema

REPAIR = "novelty_repair"


class InjectionRefused(NoveltyError):
    """A mid-game injection that cannot be made consistent; the game is left unchanged."""


@dataclass
class InjectionReport:
    """What an injection did: the turn it happened before, repairs made, or why refused."""

    turn: int = -1
    done: bool = False
    refused: str | None = None
    repairs: list[str] = field(default_factory=list)


def _schema_and_hooks(novelty: Any, game: Game, keep_hooks: bool) -> tuple[GameSchema, Hooks]:
    """The novelty's schema and hooks (an `Applied`, or anything with .schema and .hooks)."""
    schema, hooks = novelty.schema, novelty.hooks
    if keep_hooks:
        hooks = game.hooks.combine(hooks)
    return schema, hooks


def inject_mid_game(game: Game, novelty: Any, at_turn: int | None = None,
                    keep_hooks: bool = True,
                    observability: str = "announced") -> InjectionReport:
    """Schedule the injection at the next turn boundary, or at the first boundary after
    `at_turn` turns have been played (so it applies from turn `at_turn + 1` on).

    Returns a report that is filled in when the injection happens. A refused injection
    is recorded in the report (the game goes on under the old rules), never raised
    inside the running game.
    """
    report = InjectionReport()

    def at_boundary(g: Game) -> None:
        if at_turn is not None and g.state.turn < at_turn and g.winner is None:
            g.turn_boundary.append(at_boundary)  # not yet: re-arm for the next boundary
            return
        try:
            inject_now(g, novelty, keep_hooks, report, observability)
        except InjectionRefused as exc:
            report.refused = str(exc)

    game.turn_boundary.append(at_boundary)
    return report


def inject_now(game: Game, novelty: Any, keep_hooks: bool = True,
               report: InjectionReport | None = None,
               observability: str = "announced") -> InjectionReport:
    """Swap the rules and repair the state now. Call only between turns.

    Under `observability="effects"` agents keep being shown the rules as they were
    (`novelties.observability.shown_schema`)."""
    check_observability(observability)
    report = report if report is not None else InjectionReport()
    schema, hooks = _schema_and_hooks(novelty, game, keep_hooks)
    old_rules = game.rules
    st = game.state
    if game.winner is not None:
        raise InjectionRefused("the game is already over")
    mapping = square_mapping(old_rules.schema, schema)
    if all(m is None for m in mapping):
        raise InjectionRefused(
            "the new board shares no square with the old one and has a different size, "
            "so no position or property can be mapped")
    report.turn = st.turn
    r = report.repairs
    _remove_lost_properties(game, old_rules, schema, mapping, r)
    shown = None
    if observability == "effects":
        shown = shown_schema(game.shown or old_rules.schema, schema)
    game.replace_rules(schema, hooks, shown)
    new = game.rules
    cut = _remap_squares(st, old_rules, new, mapping, r)
    for sq, before in cut:
        _refund_levels(game, sq, before, "above the new building limit", r)
    _repair_levels(game, r)
    _repair_stock(game, r)
    _repair_decks(game, old_rules, r)
    game.invalidate_observations()
    report.done = True
    return report


# --- 1. squares -----------------------------------------------------------------------
def square_mapping(old: GameSchema, new: GameSchema) -> list[int | None]:
    """Old square index -> new index (by name; unmatched ones pair by index), or None."""
    new_index = {s.name: i for i, s in enumerate(new.squares)}
    old_names = {s.name for s in old.squares}
    free_new = {i for i, s in enumerate(new.squares) if s.name not in old_names}
    out: list[int | None] = []
    if not (old_names & set(new_index)) and len(old.squares) != len(new.squares):
        return [None] * len(old.squares)
    for i, s in enumerate(old.squares):
        if s.name in new_index:
            out.append(new_index[s.name])
        elif i in free_new:
            out.append(i)
        else:
            out.append(None)
    return out


def _remove_lost_properties(game: Game, old: Rules, schema: GameSchema,
                            mapping: list[int | None], r: list[str]) -> None:
    st = game.state
    for i in old.properties:
        seat = st.owner[i]
        if seat == NOBODY:
            continue
        j = mapping[i]
        if j is not None and schema.squares[j].is_property:
            continue
        lv = st.level[i]
        if lv:
            st.set_level(i, 0)
            game.api.emit(E.BuildingChanged(seat, i, 0, "novelty"))
            game.pay_from_bank(seat, lv * old.building_refund[i], REPAIR, i)
        value = old.price[i] - (old.mortgage[i] if st.mortgaged[i] else 0)
        if st.mortgaged[i]:
            st.set_mortgaged(i, False)
            game.api.emit(E.MortgageChanged(seat, i, False))
        st.set_owner(i, NOBODY)
        game.api.emit(E.PropertyTransferred(i, seat, NOBODY, "novelty"))
        game.pay_from_bank(seat, value, REPAIR, i)
        r.append(f"{old.names[i]} no longer exists as a property: bought back from seat "
                 f"{seat} for {value} (+ buildings)")
    # Rebuild the stock count for buildings removed above (done again in step 4).


def _remap_squares(st: GameState, old: Rules, new: Rules, mapping: list[int | None],
                   r: list[str]) -> list[tuple[int, int]]:
    """Move owner/level/mortgaged/positions to the new board; returns the streets whose
    level was cut by the conversion, with their level before."""
    n = new.n
    cut: list[tuple[int, int]] = []
    owner = [NOBODY] * n
    level = [0] * n
    mortgaged = [False] * n
    for i, j in enumerate(mapping):
        if j is None or not new.is_property[j] or not old.is_property[i]:
            continue
        owner[j] = st.owner[i]
        mortgaged[j] = st.mortgaged[i] and st.owner[i] != NOBODY
        level[j] = _convert_level(old, new, st.level[i]) if new.is_street[j] else 0
        if level[j] < st.level[i]:
            cut.append((j, st.level[i]))
    st.set_board(tuple(owner), tuple(level), tuple(mortgaged))
    for p in range(st.players):
        if st.in_jail[p]:
            st.move(p, new.jail)
            continue
        i = st.position[p]
        j = mapping[i]
        k = 1
        while j is None and k < old.n:
            j = mapping[(i + k) % old.n]
            k += 1
        if j is None:
            j = new.go
        if mapping[i] is None:
            r.append(f"seat {p} stood on {old.names[i]}, which no longer exists: moved to "
                     f"{new.names[j]}")
        st.move(p, j)
    return cut


def _convert_level(old: Rules, new: Rules, lv: int) -> int:
    """Map a building level to the new rules; a level is never raised for free.

    A hotel stays a hotel when the new rules have hotels at or below the old hotel
    level, else it becomes the most houses allowed; houses above the new limit are cut
    (the caller refunds every level cut).
    """
    if lv and lv == old.hotel_level and 0 < new.hotel_level <= lv:
        return new.hotel_level
    return min(lv, new.max_houses)


# --- 3. buildings ---------------------------------------------------------------------
def _set_level(game: Game, sq: int, new_level: int, why: str, r: list[str]) -> None:
    if new_level != game.state.level[sq]:
        before = game.state.level[sq]
        game.state.set_level(sq, new_level)
        _refund_levels(game, sq, before, why, r)


def _refund_levels(game: Game, sq: int, old_level: int, why: str, r: list[str]) -> None:
    """Events and refund for a street whose level already dropped from `old_level`."""
    st = game.state
    new_level = st.level[sq]
    seat = st.owner[sq]
    game.api.emit(E.BuildingChanged(seat, sq, new_level, "novelty"))
    game.pay_from_bank(seat, (old_level - new_level) * game.rules.building_refund[sq], REPAIR, sq)
    r.append(f"{game.rules.names[sq]}: buildings {old_level} -> {new_level} ({why})")


def _repair_levels(game: Game, r: list[str]) -> None:
    st = game.state
    rules = game.rules
    for sq in range(rules.n):
        lv = st.level[sq]
        if not lv:
            continue
        if not rules.is_street[sq] or st.owner[sq] == NOBODY:
            st.set_level(sq, 0)  # cannot happen after remapping; kept as a guard
            continue
        seat = st.owner[sq]
        g = rules.group_of[sq]
        if not rules.group_buildable[g] or not has_monopoly(rules, st.owner, seat, g):
            _set_level(game, sq, 0, "no buildable monopoly under the new rules", r)
    if not rules.bank.even_build:
        return
    # Hotels sold whole (`hotel_sale=whole`, GNOME) leave empty lots beside hotels: even.
    whole = (0, rules.hotel_level) if rules.bank.hotel_sale == "whole" else None
    for g, members in enumerate(rules.group_members):
        for seat in {st.owner[m] for m in members if st.level[m]}:
            own = [m for m in members if st.owner[m] == seat]
            while True:
                levels = [st.level[m] for m in own]
                if max(levels) - min(levels) <= 1:
                    break
                if whole is not None and all(lv in whole for lv in levels):
                    break
                top = max(own, key=lambda m: (st.level[m], m))
                _set_level(game, top, st.level[top] - 1, "even building", r)


# --- 4. stock -------------------------------------------------------------------------
def buildings_in_use(rules: Rules, state: Any) -> tuple[int, int]:
    """(houses, hotels) standing on the board."""
    houses = hotels = 0
    for sq in rules.streets:
        lv = state.level[sq]
        if lv and lv == rules.hotel_level:
            hotels += 1
        else:
            houses += lv
    return houses, hotels


def _repair_stock(game: Game, r: list[str]) -> None:
    st = game.state
    rules = game.rules
    b = rules.bank
    houses, hotels = buildings_in_use(rules, st)
    for sq in sorted((s for s in rules.streets if st.level[s] == rules.hotel_level),
                     reverse=True)[: max(0, hotels - b.hotel_stock)]:
        spare = b.house_stock - houses
        to = rules.max_houses if spare >= rules.max_houses else 0
        houses += to
        _set_level(game, sq, to, "the bank's hotel stock is smaller", r)
    houses, hotels = buildings_in_use(rules, st)
    while houses > b.house_stock:
        sq = max((s for s in rules.streets
                  if st.level[s] and st.level[s] != rules.hotel_level),
                 key=lambda s: (st.level[s], s))
        _set_level(game, sq, st.level[sq] - 1, "the bank's house stock is smaller", r)
        houses -= 1
    st.set_stock(b.house_stock - houses, b.hotel_stock - hotels)


# --- 5. decks -------------------------------------------------------------------------
def _repair_decks(game: Game, old: Rules, r: list[str]) -> None:
    st = game.state
    new = game.rules
    old_decks = {d.name: d for d in old.schema.decks}
    old_pos = {name: i for i, name in enumerate(old.deck_names)}
    unchanged = [old_decks.get(d.name) == d for d in new.schema.decks]
    if all(unchanged) and new.deck_names == old.deck_names:
        return
    new_pos = {name: i for i, name in enumerate(new.deck_names)}
    held: list[list[tuple[int, int]]] = [[] for _ in range(st.players)]
    taken: set[tuple[int, int]] = set()
    for p in range(st.players):
        for di, ci in st.jail_cards[p]:
            name = old.deck_names[di]
            nd = new_pos.get(name)
            target = None
            if nd is not None and unchanged[nd]:
                target = (nd, ci)
            elif nd is not None:
                text = old.decks[di][ci].text
                free = [c.index for c in new.decks[nd]
                        if c.kind == "get_out_of_jail" and (nd, c.index) not in taken]
                same = [c for c in free if new.decks[nd][c].text == text]
                pick = (same or free or [None])[0]
                target = None if pick is None else (nd, pick)
            if target is None:
                game.api.emit(E.JailCardMoved(p, BANK, name))
                r.append(f"seat {p}'s get-out-of-jail card from {name} has no counterpart "
                         "in the new deck: returned to the bank")
                continue
            taken.add(target)
            held[p].append(target)
    decks: list[list[int]] = []
    for nd, deck in enumerate(new.decks):
        name = new.deck_names[nd]
        if unchanged[nd]:
            decks.append(list(st.decks[old_pos[name]]))
            continue
        order = [c.index for c in deck if (nd, c.index) not in taken]
        seed = SeedSequence([game.seed, st.turn, nd]).generate_state(1)[0]
        random.Random(int(seed)).shuffle(order)
        decks.append(order)
        r.append(f"deck {name} changed: rebuilt and reshuffled")
    st.replace_decks(decks, held)


# --- consistency ----------------------------------------------------------------------
def check_state(rules: Rules, state: GameState) -> list[str]:
    """Every way `state` is inconsistent with `rules` (empty when consistent)."""
    out: list[str] = []
    n = rules.n
    if not (len(state.owner) == len(state.level) == len(state.mortgaged) == n):
        return [f"per-square arrays do not have {n} entries"]
    for sq in range(n):
        o, lv = state.owner[sq], state.level[sq]
        if o != NOBODY and (not rules.is_property[sq] or not 0 <= o < state.players):
            out.append(f"square {sq} ({rules.names[sq]}) has an impossible owner {o}")
        if o != NOBODY and not state.active[o]:
            out.append(f"square {sq} is owned by bankrupt seat {o}")
        if state.mortgaged[sq] and o == NOBODY:
            out.append(f"square {sq} is mortgaged but unowned")
        if lv:
            if not rules.is_street[sq] or lv < 0 or lv > rules.max_level:
                out.append(f"square {sq} has an impossible building level {lv}")
                continue
            g = rules.group_of[sq]
            if not has_monopoly(rules, state.owner, o, g):
                out.append(f"square {sq} has buildings without a monopoly")
    houses, hotels = buildings_in_use(rules, state)
    b = rules.bank
    if state.houses_left != b.house_stock - houses or state.houses_left < 0:
        out.append(f"houses left {state.houses_left} != stock {b.house_stock} - {houses} in use")
    if state.hotels_left != b.hotel_stock - hotels or state.hotels_left < 0:
        out.append(f"hotels left {state.hotels_left} != stock {b.hotel_stock} - {hotels} in use")
    for p in range(state.players):
        if not 0 <= state.position[p] < n:
            out.append(f"seat {p} is off the board at {state.position[p]}")
        if state.in_jail[p] and state.position[p] != rules.jail:
            out.append(f"seat {p} is in jail but not on the jail square")
        if state.cash[p] < 0:
            out.append(f"seat {p} has negative cash {state.cash[p]}")
    if len(state.decks) != len(rules.decks):
        out.append("the number of decks does not match the rules")
        return out
    for d, deck in enumerate(rules.decks):
        held = [c for p in range(state.players) for dd, c in state.jail_cards[p] if dd == d]
        if sorted(state.decks[d] + held) != list(range(len(deck))):
            out.append(f"deck {rules.deck_names[d]} is not a permutation of its cards")
    return out
