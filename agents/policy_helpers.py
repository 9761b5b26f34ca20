"""Shared reasoning for rule-based agents: ours (baseline, baseline_v0, fp_plus_a/b/c)
and a user's (ownership counts, sets, builds, raising cash, standing orders).

Everything reads only the public `Observation` (its `rules`, owner/level/mortgaged
tuples and cash) and works on plain ints and tuples: these run inside every decision
of every game, so they must stay cheap. Groups are indices into `rules.group_members`;
a "set" is a group in which a seat holds at least `rules.group_need[g]` members.
"""

from __future__ import annotations

from collections import OrderedDict
from itertools import compress
from operator import itemgetter, ne
from typing import Any, Callable, Iterable, Sequence

from openmono import actions as A
from openmono import legal
from openmono.observation import Observation, PublicRules


def owned_in(rules: PublicRules, owner: tuple[int, ...], seat: int, group: int) -> int:
    """How many members of `group` `seat` owns."""
    n = 0
    for m in rules.group_members[group]:
        if owner[m] == seat:
            n += 1
    return n


def completes_set(rules: PublicRules, owner: tuple[int, ...], seat: int, sq: int) -> bool:
    """True when getting `sq` (not owned by `seat`) would give `seat` a new set."""
    g = rules.group_of[sq]
    if g < 0:
        return False
    have = owned_in(rules, owner, seat, g)
    need = rules.group_need[g]
    return have < need <= have + 1


def is_lone(rules: PublicRules, owner: tuple[int, ...], seat: int, sq: int) -> bool:
    """`seat` owns `sq` and no other member of its group (so it is worth little to it)."""
    g = rules.group_of[sq]
    if g < 0 or owner[sq] != seat:
        return False
    for m in rules.group_members[g]:
        if m != sq and owner[m] == seat:
            return False
    return rules.group_need[g] > 1


def sets_change(rules: PublicRules, owner: tuple[int, ...], seat: int, gains: Iterable[int],
                losses: Iterable[int]) -> tuple[int, int]:
    """(sets created, sets lost) for `seat` if it gets `gains` and gives up `losses`."""
    delta: dict[int, int] = {}
    group_of = rules.group_of
    for sq in gains:
        g = group_of[sq]
        if g >= 0:
            delta[g] = delta.get(g, 0) + 1
    for sq in losses:
        g = group_of[sq]
        if g >= 0:
            delta[g] = delta.get(g, 0) - 1
    created = lost = 0
    for g, d in delta.items():
        if not d:
            continue
        have = owned_in(rules, owner, seat, g)
        need = rules.group_need[g]
        before = have >= need
        after = have + d >= need
        if after and not before:
            created += 1
        elif before and not after:
            lost += 1
    return created, lost


def rent_gain(rules: PublicRules, level: tuple[int, ...], sq: int) -> int:
    """Extra rent from one more building level on `sq` (whose group is a set)."""
    table = rules.rent[sq]
    lv = level[sq]
    if lv + 1 >= len(table):
        return 0
    if lv == 0:
        return table[1] - 2 * table[0]  # an unimproved set already charges double
    return table[lv + 1] - table[lv]


def empty_view(values: tuple) -> tuple:
    """The view of no squares of a per-square tuple (an `itemgetter` of nothing)."""
    return ()


class RuleTables:
    """Per-rules lookups the policies need at every ownership change, built once, and
    the one-slot ownership cache of those rules (see `ownership`)."""

    def __init__(self, rules: PublicRules) -> None:
        self.rules = rules
        is_street = rules.is_street
        need = rules.group_need
        street_groups = []
        for g, members in enumerate(rules.group_members):
            streets = tuple(m for m in members if is_street[m])
            if streets and need[g] >= 2:
                street_groups.append((g, need[g], streets))
        # (group, members needed, its streets) for groups of two or more with streets:
        # what street trades are about.
        self.street_groups = tuple(street_groups)
        self.property_groups = tuple((sq, rules.group_of[sq]) for sq in rules.properties)
        self.buildable = tuple((g, need[g]) for g in range(len(need)) if rules.group_buildable[g])
        # Per group: its members' entries of a per-square tuple (owner, level, ...);
        # the first member twice so that even a one-member group gives a tuple.
        self.group_view = tuple(itemgetter(*members, members[0]) if members else empty_view
                                for members in rules.group_members)
        # The groups led by a street, (group, members), in group order; and per square
        # the other members of its group (`agents.baseline`'s trade table and build test).
        self.street_led_groups = tuple((g, members) for g, members
                                       in enumerate(rules.group_members)
                                       if members and is_street[members[0]])
        self.group_others = tuple(tuple(m for m in rules.group_members[g] if m != sq)
                                  for sq, g in enumerate(rules.group_of))
        self.build_memo: dict[tuple, tuple] = {}
        # Per group, memos an agent keys on the group's view of a per-square tuple
        # (`agents.baseline`: its trade table by owners, its builds by levels and mortgages).
        self.trade_memo = tuple({} for _ in rules.group_members)
        self.improve_memo = tuple({} for _ in rules.group_members)
        self.cheapest_house = tuple(min((rules.house_cost[m] for m in members), default=0)
                                    for members in rules.group_members)
        # The last owner tuple asked about (held, so its identity cannot be reused), the
        # table size, and the answer.
        self.owner_key: tuple[int, ...] | None = None
        self.owner_players = 0
        self.owner_answer: Ownership = ([], [])


Ownership = tuple[list[list[int]], list[tuple[int, ...]]]
_TABLES: OrderedDict[int, RuleTables] = OrderedDict()
_LAST_TABLES: list = [None, None]  # the last rules asked for and their tables


def tables(rules: PublicRules) -> RuleTables:
    """The `RuleTables` of a rules object. Public rules are immutable tuples, shared by
    every seat of a game and too big to hash, so they are cached by identity (each entry
    holds its rules, so an identity is not reused while cached); almost every call asks
    for the same rules as the one before."""
    last = _LAST_TABLES
    if last[0] is rules:
        return last[1]
    hit = _TABLES.get(id(rules))
    if hit is None or hit.rules is not rules:
        if len(_TABLES) > 64:
            _TABLES.popitem(last=False)  # the least recently asked: not a table in play
        hit = _TABLES[id(rules)] = RuleTables(rules)
    else:
        _TABLES.move_to_end(id(rules))
    last[0], last[1] = rules, hit
    return hit


def ownership(rules: PublicRules, owner: tuple[int, ...], players: int) -> Ownership:
    """(`counts[seat][group]` = members owned, `holdings[seat]` = properties owned).

    Cached per rules for the last owner tuple asked about, by identity: the engine
    replaces the tuple on every change, so the agents at one table share the work, and
    the answer is updated from the last one when a square or two changed hands. The
    lists are never changed in place (agents keep references to them).
    """
    t = tables(rules)
    prev = t.owner_key
    if prev is owner and t.owner_players == players:
        return t.owner_answer
    result = None
    if prev is not None and t.owner_players == players and len(prev) == len(owner):
        changed = list(compress(range(len(owner)), map(ne, prev, owner)))
        if len(changed) <= 4:
            result = _ownership_update(rules, prev, owner, players, changed, *t.owner_answer)
    if result is None:
        result = _ownership_full(rules, owner, players)
    t.owner_key, t.owner_players, t.owner_answer = owner, players, result
    return result


def _ownership_full(rules: PublicRules, owner: tuple[int, ...], players: int) -> Ownership:
    groups = len(rules.group_members)
    counts = [[0] * groups for _ in range(players)]
    held: list[list[int]] = [[] for _ in range(players)]
    for sq, g in tables(rules).property_groups:
        o = owner[sq]
        if 0 <= o < players:
            held[o].append(sq)
            if g >= 0:
                counts[o][g] += 1
    return counts, [tuple(h) for h in held]


def _ownership_update(rules: PublicRules, prev: tuple[int, ...], owner: tuple[int, ...],
                      players: int, changed: list[int], old_counts: list[list[int]],
                      old_held: list[tuple[int, ...]]) -> Ownership | None:
    """The previous answer with `changed` squares moved; copy-on-write, since agents
    keep references to the old lists. None when a change is not a property's."""
    is_property = rules.is_property
    group_of = rules.group_of
    counts = old_counts[:]
    held = old_held[:]
    for sq in changed:
        if not is_property[sq]:
            return None
        g = group_of[sq]
        a = prev[sq]
        b = owner[sq]
        if 0 <= a < players:
            held[a] = tuple([x for x in held[a] if x != sq])
            if g >= 0:
                if counts[a] is old_counts[a]:
                    counts[a] = counts[a][:]
                counts[a][g] -= 1
        if 0 <= b < players:
            held[b] = tuple(sorted(held[b] + (sq,)))
            if g >= 0:
                if counts[b] is old_counts[b]:
                    counts[b] = counts[b][:]
                counts[b][g] += 1
    return counts, held


def buildable_sets(rules: PublicRules, counts: list[list[int]], seat: int) -> list[int]:
    """Groups in which `seat` holds a monopoly it may build on."""
    mine = counts[seat]
    return [g for g, need in tables(rules).buildable if mine[g] >= need]


def build_candidates(rules: PublicRules, obs: Observation, seat: int,
                     groups: Iterable[int]) -> list[tuple[int, int, float]]:
    """(street, cost, rent gain per cost) for every build the rules allow now, cash
    and bank stock aside: the board's part of the engine's rule (`legal.buildable_streets`);
    callers cache it per (owner, level, mortgaged) tuples, `best_build` checks cash and
    stock, and `legal.check_build` has the last word on the pick.

    Per group the answer depends only on its members' owners, levels and mortgages,
    which recur from game to game: it is memoised per rules object on exactly those."""
    owner = obs.owner
    level = obs.level
    mortgaged = obs.mortgaged
    t = tables(rules)
    memo = t.build_memo
    views = t.group_view
    out: list[tuple[int, int, float]] = []
    for g in groups:
        view = views[g]
        key = (g, seat, view(owner), view(level), view(mortgaged))
        found = memo.get(key)
        if found is None:
            if len(memo) > 100_000:
                memo.clear()
            found = memo[key] = _group_build_candidates(rules, owner, level, mortgaged,
                                                        seat, g)
        if found:
            out += found
    return out


def _group_build_candidates(rules: PublicRules, owner: tuple[int, ...], level: tuple[int, ...],
                            mortgaged: tuple[bool, ...], seat: int,
                            g: int) -> tuple[tuple[int, int, float], ...]:
    """`seat`'s streets of group `g` the board lets it build on (`legal.buildable_streets`,
    the engine's own rule), with their cost and rent gain per cost."""
    house_cost = rules.house_cost
    return tuple((sq, house_cost[sq], rent_gain(rules, level, sq) / (house_cost[sq] or 1))
                 for sq in legal.buildable_streets(rules, owner, level, mortgaged, seat, g))


def best_build(rules: PublicRules, obs: Observation, seat: int, groups: Iterable[int],
               reserve: int = 0, weight: Sequence[float] | None = None,
               candidates: list[tuple[int, int, float]] | None = None) -> int:
    """The legal build with the best rent gain per building cost that keeps `reserve`
    cash (optionally scaled by a per-square weight); -1 when there is none."""
    if candidates is None:
        candidates = build_candidates(rules, obs, seat, groups)
    cash = obs.cash[seat]
    best = -1
    best_score = -1.0
    level = obs.level
    hotel_level = rules.hotel_level
    houses_left = obs.houses_left
    hotels_left = obs.hotels_left
    for sq, cost, score in candidates:
        if cash - cost < reserve or cost > cash:
            continue
        if (hotels_left if level[sq] + 1 == hotel_level else houses_left) < 1:
            continue
        if weight is not None:
            score *= weight[sq]
        if score > best_score:
            best, best_score = sq, score
    # The candidates follow `legal.buildable_streets`, the board's part of `check_build`;
    # where a plugin's rule forbids building (the engine lists those streets in
    # `obs.refused`), the choice is made again without them (whole-game tests assert no
    # faults).
    if best >= 0 and obs.refused and best in obs.refused:
        return _best_build_slow(rules, obs, seat, groups, reserve, weight)
    return best


def _best_build_slow(rules: PublicRules, obs: Observation, seat: int, groups: Iterable[int],
                     reserve: int,
                     weight) -> int:
    """Same choice with the full legality check on every candidate (rule hooks)."""
    cash = obs.cash[seat]
    best = -1
    best_score = -1.0
    for g in groups:
        for sq in rules.group_members[g]:
            cost = rules.house_cost[sq]
            if (cash - cost < reserve or sq in obs.refused
                    or legal.check_build(rules, obs, seat, sq) is not None):
                continue
            score = rent_gain(rules, obs.level, sq) / (cost or 1)
            if weight is not None:
                score *= weight[sq]
            if score > best_score:
                best, best_score = sq, score
    return best


def liquidation_value(rules: PublicRules, obs: Observation, seat: int,
                      mine: Iterable[int] | None = None) -> int:
    """Cash `seat` could raise from the bank: all buildings sold, everything mortgaged
    (or sold, when the bank buys properties and pays more)."""
    total = 0
    owner = obs.owner
    mortgaged = obs.mortgaged
    level = obs.level
    refund = rules.property_refund
    for sq in rules.properties if mine is None else mine:
        if owner[sq] != seat:
            continue
        if not mortgaged[sq]:
            total += rules.mortgage[sq] if refund is None else max(rules.mortgage[sq], refund[sq])
        lv = level[sq]
        if lv:
            total += lv * rules.building_refund[sq]
    return total


def raise_cash_action(rules: PublicRules, obs: Observation, seat: int, need: int,
                      order_key: Callable[[int], Any] | None = None,
                      mine: Iterable[int] | None = None) -> A.Action | None:
    """One step of the liquidation order for raising `need` more cash: mortgage
    (cheapest first, or by `order_key`); when the bank buys properties and mortgages
    alone cannot raise `need`, first sell lone properties; then buildings (cheapest
    first), then whatever is left. None when nothing is left to sell."""
    owner = obs.owner
    level = obs.level
    mortgaged = obs.mortgaged
    if mine is None:
        mine = [sq for sq in rules.properties if owner[sq] == seat]
    group_of = rules.group_of
    # Per group with buildings: its highest level among my streets (even selling).
    built: dict[int, int] = {}
    for sq in mine:
        lv = level[sq]
        if lv and built.get(group_of[sq], 0) < lv:
            built[group_of[sq]] = lv
    built.pop(-1, None)
    # Official: no mortgage in a group with buildings; GNOME
    # (`mortgage_beside_buildings`): only the street itself must be unbuilt.
    barred = () if rules.bank.mortgage_beside_buildings else built
    mortgageable = [sq for sq in mine if not mortgaged[sq] and group_of[sq] not in barred
                    and not level[sq]]
    if mortgageable and legal.check_mortgage(rules, obs, seat, mortgageable[0]) is not None:
        mortgageable = [sq for sq in mine if legal.check_mortgage(rules, obs, seat, sq) is None]
    sellback = rules.property_refund is not None
    key = order_key or rules.mortgage.__getitem__
    if mortgageable and (not sellback or sum(rules.mortgage[sq] for sq in mortgageable) >= need):
        return A.MORTGAGE[min(mortgageable, key=key)]
    if sellback:
        lone = [sq for sq in mine if is_lone(rules, owner, seat, sq)
                and legal.check_sell_property(rules, obs, seat, sq) is None]
        if lone:
            return A.SELL_PROPERTY[min(lone, key=rules.property_refund.__getitem__)]
    if built:
        # What `legal.check_sell_building` allows: a built street of mine, at its group's
        # top level when selling must be even. Cheapest buildings first: they carry the
        # least rent per dollar refunded.
        even = rules.bank.even_build
        is_street = rules.is_street
        house_cost = rules.house_cost
        pick = -1
        for sq in mine:
            lv = level[sq]
            if lv and is_street[sq] and (not even or lv >= built.get(group_of[sq], 0)) and (
                    pick < 0 or (house_cost[sq], sq) < (house_cost[pick], pick)):
                pick = sq
        if pick >= 0:
            return A.SELL_BUILDING[pick]
    if mortgageable:
        return A.MORTGAGE[min(mortgageable, key=key)]
    if sellback:
        rest = [sq for sq in mine if legal.check_sell_property(rules, obs, seat, sq) is None]
        if rest:
            return A.SELL_PROPERTY[min(rest, key=rules.property_refund.__getitem__)]
    return None


def bid_up_to(high: int, limit: int, step: int) -> A.Action:
    """An auction bid that raises the high bid by `step` without passing `limit`; drop
    out once the high bid has reached it."""
    if high >= limit:
        return A.DROP_OUT
    return A.Bid(min(limit, high + step))


NEVER = 1 << 60  # a cash limit no one reaches
_UNTIL: dict[int, A.Conclude] = {}


def conclude_until(cash: int) -> A.Conclude:
    """`Conclude(until_cash=cash)`, a standing order (see `openmono.actions.Conclude`),
    one object per limit: building one costs more than looking it up."""
    found = _UNTIL.get(cash)
    if found is None:
        if len(_UNTIL) > 4096:
            _UNTIL.clear()
        found = _UNTIL[cash] = A.Conclude(until_cash=cash)
    return found
