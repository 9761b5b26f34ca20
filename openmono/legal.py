"""Legality of actions: one check used by the engine, the observation and the agents.

`check` returns None for a legal action and a short reason otherwise. `legal_actions`
enumerates every legal action without parameters, plus the cheapest legal bid; trade
offers are parametric, so they are announced by `can_offer_trade` and checked by
`check` (the engine never executes anything `check` refuses).

Both take a *view* (a GameState or an Observation: anything with cash, owner, level,
mortgaged, houses_left, hotels_left, in_jail, jail_cards, active) and a *context* (the
decision: phase, square, high_bid, owed, offers_made). An Observation is both.

Plugins add legality in two ways: a `building_allowed` rule hook and new action kinds
with their own checks. Both run only with the engine's compiled rules
(`rules.plugin_checks`); the public rules agents hold carry neither, and the engine
hands each observation the outcome as data (`Observation.refused`, `.plugin_actions`).
A plugin's refusal reaches agents as `PLUGIN_REFUSAL`, whatever its text says, so no
hidden parameter leaks through a refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Protocol

from openmono import actions as A
from openmono.compiled import Rules
from openmono.state import View, sale_value


class Context(Protocol):
    """The decision a legality check is asked in: a `Decision` (engine-side) or an
    `Observation` (an agent's)."""

    phase: str
    square: int
    high_bid: int
    offers_made: int


MANAGE_PHASES = frozenset(("pre_roll", "out_of_turn", "post_roll"))
RAISE_CASH_PHASES = frozenset(("pre_roll", "out_of_turn", "post_roll", "debt", "buy"))
# The phases in which some rule set allows trade offers; `BankRules.trade_phases` says
# which of them the game in play does (GNOME: not after the roll, not in debt).
TRADE_PHASES = frozenset(("pre_roll", "out_of_turn", "post_roll", "debt"))
PHASES = ("pre_roll", "out_of_turn", "post_roll", "buy", "bid", "trade_response", "debt",
          "lift_mortgage", "building_bid", "place_building")
BID_PHASES = frozenset(("bid", "building_bid"))

# What a plugin's refusal says to agents (its own text may name hidden parameters).
BANK_SHORT = "the bank has not the cash to pay it"
PLUGIN_REFUSAL = "a rule of this game forbids it now"

# What a phase does when the agent faults: the harmless default.
DEFAULT_ACTION = {
    "pre_roll": A.CONCLUDE,
    "out_of_turn": A.CONCLUDE,
    "post_roll": A.CONCLUDE,
    "debt": A.CONCLUDE,
    "buy": A.DECLINE,
    "bid": A.DROP_OUT,
    "trade_response": A.REJECT,
    "lift_mortgage": A.CONCLUDE,  # keep the mortgage, pay the interest now
    "building_bid": A.DROP_OUT,
    "place_building": A.CONCLUDE,  # the engine places it on the first street it may
}


def jail_card_count(view: View, seat: int) -> int:
    """How many get-out-of-jail cards `seat` holds (a count or a tuple of decks)."""
    c = view.jail_cards[seat]
    return c if isinstance(c, int) else len(c)


def _own_group_levels(rules: Rules, view: View, seat: int, group: int) -> list[int]:
    owner = view.owner
    level = view.level
    return [level[m] for m in rules.group_members[group] if owner[m] == seat]


def _group_has_buildings(rules: Rules, view: View, seat: int, group: int) -> bool:
    if group < 0:
        return False
    owner = view.owner
    level = view.level
    for m in rules.group_members[group]:
        if owner[m] == seat and level[m]:
            return True
    return False


def _group_facts(rules: Rules, owner: Sequence[int], level: Sequence[int],
                 mortgaged: Sequence[bool], seat: int, g: int) -> tuple[int, int, bool, bool]:
    """One pass over group `g`: (members `seat` owns, their lowest level, whether one
    of them is mortgaged, whether the group has a hotel)."""
    count = 0
    low = rules.max_level
    hotel = rules.hotel_level
    blocked = hotels = False
    for m in rules.group_members[g]:
        lv = level[m]
        if lv == hotel:
            hotels = True
        if owner[m] == seat:
            count += 1
            if mortgaged[m]:
                blocked = True
            if lv < low:
                low = lv
    return count, low, blocked, hotels


def build_blocked(rules: Rules, owner: Sequence[int], level: Sequence[int],
                  mortgaged: Sequence[bool], seat: int, sq: int) -> str | None:
    """Why the board alone (owners, levels, mortgages) bars `seat` from building on `sq`,
    whatever its cash, the bank's stock and the plugins; None when it does not.
    `check_build` is this and those; agents that cache their build candidates per board
    use it so that they apply the same rules."""
    if not (0 <= sq < rules.n) or not rules.is_street[sq]:
        return "not a street"
    if owner[sq] != seat:
        return "you do not own it"
    g = rules.group_of[sq]
    if g < 0 or not rules.group_buildable[g]:
        return "you have no monopoly on its group"
    count, low, blocked, hotels = _group_facts(rules, owner, level, mortgaged, seat, g)
    if count < rules.group_need[g]:
        return "you have no monopoly on its group"
    lv = level[sq]
    if lv >= rules.max_level:
        return "it is fully built"
    if blocked:
        # `BankRules.build_beside_mortgaged` (GNOME): only the street itself is barred;
        # the mortgaged street's level (0) still counts for even building below.
        if not rules.bank.build_beside_mortgaged:
            return "a property of the group is mortgaged"
        if mortgaged[sq]:
            return "it is mortgaged"
    if rules.bank.even_build and lv > low:
        return "build evenly: another street of the group has fewer buildings"
    if hotels and lv + 1 < rules.hotel_level and rules.bank.hotel_sale == "whole":
        # GNOME's `improve_property`: no house while the group has a hotel (hotels sold
        # whole leave empty lots beside hotels)
        return "no house beside a hotel"
    return None


def buildable_streets(rules: Rules, owner: Sequence[int], level: Sequence[int],
                      mortgaged: Sequence[bool], seat: int, g: int) -> list[int]:
    """The streets of group `g` on which `build_blocked` finds nothing, in group order,
    from one pass over the group (agents list their build candidates with it).

    Examples:
        >>> import openmono
        >>> from openmono.compiled import compile_rules
        >>> rules = compile_rules(openmono.standard_schema())
        >>> owner = [-1] * rules.n; level = [0] * rules.n; mortgaged = [False] * rules.n
        >>> for sq in (1, 3): owner[sq] = 0
        >>> level[1] = 1
        >>> buildable_streets(rules, owner, level, mortgaged, 0, rules.group_of[1])
        [3]
    """
    if g < 0 or not rules.group_buildable[g]:
        return []
    count, low, blocked, hotels = _group_facts(rules, owner, level, mortgaged, seat, g)
    bank = rules.bank
    if count < rules.group_need[g] or (blocked and not bank.build_beside_mortgaged):
        return []
    even = bank.even_build
    whole = hotels and bank.hotel_sale == "whole"
    hotel = rules.hotel_level
    members = rules.group_members[g]
    top = rules.max_level
    is_street = rules.is_street
    out = []
    for m in members:
        lv = level[m]
        if (is_street[m] and owner[m] == seat and lv < top and not (blocked and mortgaged[m])
                and not (even and lv > low) and not (whole and lv + 1 < hotel)):
            out.append(m)
    return out


def check_build(rules: Rules, view: View, seat: int, sq: int) -> str | None:
    """Why `seat` may not build on `sq` now (None when it may)."""
    problem = build_blocked(rules, view.owner, view.level, view.mortgaged, seat, sq)
    if problem is not None:
        return problem
    if view.cash[seat] < rules.house_cost[sq]:
        return "not enough cash"
    if view.level[sq] + 1 == rules.hotel_level:
        if view.hotels_left < 1:
            return "the bank has no hotels left"
    elif view.houses_left < 1:
        return "the bank has no houses left"
    extra = rules.building_allowed
    if extra is not None and extra(rules, view, seat, sq) is not None:
        return PLUGIN_REFUSAL
    return None


def check_sell_building(rules: Rules, view: View, seat: int, sq: int) -> str | None:
    """Why `seat` may not sell a building on `sq` now (None when it may)."""
    if not (0 <= sq < rules.n) or not rules.is_street[sq]:
        return "not a street"
    if view.owner[sq] != seat:
        return "you do not own it"
    lv = view.level[sq]
    if lv <= 0:
        return "it has no buildings"
    g = rules.group_of[sq]
    if rules.bank.even_build and lv < max(_own_group_levels(rules, view, seat, g)):
        return "sell evenly: another street of the group has more buildings"
    whole = lv == rules.hotel_level and rules.bank.hotel_sale == "whole"
    if whole:
        for other in _own_group_levels(rules, view, seat, g):
            if other and other != lv:
                return "a hotel is sold whole only when the group's other streets have " \
                       "hotels or nothing"
    if view.bank_cash is not None and view.bank_cash < (
            lv if whole else 1) * rules.building_refund[sq]:
        return BANK_SHORT
    return None


def check_mortgage(rules: Rules, view: View, seat: int, sq: int) -> str | None:
    """Why `seat` may not mortgage `sq` now (None when it may)."""
    if not (0 <= sq < rules.n) or not rules.is_property[sq]:
        return "not a property"
    if view.owner[sq] != seat:
        return "you do not own it"
    if view.mortgaged[sq]:
        return "already mortgaged"
    if rules.bank.mortgage_beside_buildings:
        # (GNOME) only the street itself must be bare; it is one of the group's streets
        # this seat owns, so the whole group is bare when it has no buildings.
        if view.level[sq]:
            return "sell its buildings first"
    elif _group_has_buildings(rules, view, seat, rules.group_of[sq]):
        return "sell the group's buildings first"
    if view.bank_cash is not None and view.bank_cash < rules.mortgage[sq]:
        return BANK_SHORT
    return None


def check_unmortgage(rules: Rules, view: View, seat: int, sq: int) -> str | None:
    """Why `seat` may not lift the mortgage on `sq` now (None when it may)."""
    if not (0 <= sq < rules.n) or not rules.is_property[sq]:
        return "not a property"
    if view.owner[sq] != seat:
        return "you do not own it"
    if not view.mortgaged[sq]:
        return "not mortgaged"
    if view.cash[seat] < rules.unmortgage_cost[sq]:
        return "not enough cash"
    return None


def check_sell_property(rules: Rules, view: View, seat: int, sq: int) -> str | None:
    """Why `seat` may not sell `sq` back to the bank now (None when it may)."""
    if rules.property_refund is None:
        return "the rules do not let the bank buy property"
    if not (0 <= sq < rules.n) or not rules.is_property[sq]:
        return "not a property"
    if view.owner[sq] != seat:
        return "you do not own it"
    if view.mortgaged[sq] and not rules.bank.mortgaged_sellback:
        return "unmortgage it first"
    if _group_has_buildings(rules, view, seat, rules.group_of[sq]):
        return "sell the group's buildings first"
    if view.bank_cash is not None and view.bank_cash < sale_value(rules, view, sq):
        return BANK_SHORT
    return None


def _check_tradeable(rules: Rules, view: View, seat: int, squares: tuple[int, ...]) -> str | None:
    if len(set(squares)) != len(squares):
        return "a property is listed twice"
    for sq in squares:
        if not isinstance(sq, int) or not (0 <= sq < rules.n) or not rules.is_property[sq]:
            return f"{sq!r} is not a property"
        if view.owner[sq] != seat:
            return f"seat {seat} does not own square {sq}"
        if view.mortgaged[sq] and not rules.bank.trade_mortgaged:
            return "mortgaged properties cannot be traded"
        if _group_has_buildings(rules, view, seat, rules.group_of[sq]):
            return "properties of a group with buildings cannot be traded"
    return None


def check_offer(rules: Rules, view: View, seat: int, offer: A.OfferTrade) -> str | None:
    """Whether `seat` may make this offer now (the receiver's cash is checked on accept)."""
    to = offer.to
    if not isinstance(to, int) or not (0 <= to < len(view.cash)) or to == seat:
        return "trade partner is not another seat"
    if not view.active[to]:
        return "trade partner is bankrupt"
    for v in (offer.give_cash, offer.get_cash, offer.give_jail_cards, offer.get_jail_cards):
        if not isinstance(v, int) or v < 0:
            return "cash and card counts must be non-negative integers"
    if not (offer.give or offer.get or offer.give_cash or offer.get_cash
            or offer.give_jail_cards or offer.get_jail_cards):
        return "an empty trade"
    if offer.give_cash > view.cash[seat]:
        return "you cannot offer more cash than you have"
    if (offer.give_jail_cards or offer.get_jail_cards) and not rules.bank.trade_jail_cards:
        return "the rules do not allow trading get-out-of-jail cards"
    if offer.give_jail_cards > jail_card_count(view, seat):
        return "you do not hold that many get-out-of-jail cards"
    if offer.get_jail_cards > jail_card_count(view, to):
        return "the partner does not hold that many get-out-of-jail cards"
    reason = _check_tradeable(rules, view, seat, offer.give) or _check_tradeable(
        rules, view, to, offer.get
    )
    if reason is None and offer.give_cash + trade_fees(rules, view, offer.get) > view.cash[seat]:
        return "you cannot pay the cash and the mortgage interest this trade needs"
    return reason


def trade_fees(rules: Rules, view: View, squares: tuple[int, ...]) -> int:
    """Interest the receiver of mortgaged properties pays the bank at once."""
    mortgaged = view.mortgaged
    return sum(rules.transfer_fee[sq] for sq in squares if mortgaged[sq])


def check_accept(rules: Rules, view: View, seat: int, offerer: int,
                 offer: A.OfferTrade) -> str | None:
    """Whether the trade can still execute when `seat` (the receiver) accepts it."""
    reason = check_offer(rules, view, offerer, offer)
    if reason:
        return reason
    if offer.get_cash + trade_fees(rules, view, offer.give) > view.cash[seat] + offer.give_cash:
        return "you cannot pay the cash (and mortgage interest) this trade asks"
    return None


def check(rules: Rules, view: View, seat: int, ctx: Context, action: A.Action) -> str | None:
    """None when `action` is legal for `seat` in the decision `ctx`; else why not."""
    phase = ctx.phase
    t = type(action)
    if t is A.Conclude:
        return (None if phase in MANAGE_PHASES or phase == "debt" or phase == "lift_mortgage"
                or phase == "place_building" else f"cannot conclude in {phase}")
    if t is A.Build:
        if phase not in rules.bank.improve_phases and phase != "place_building":
            return f"cannot build in {phase}"
        return check_build(rules, view, seat, action.square)
    # (The rest in order of frequency: bids and purchases are next most common.)
    if t is A.Buy:
        if phase != "buy":
            return "nothing to buy"
        return None if view.cash[seat] >= rules.price[ctx.square] else "not enough cash"
    if t is A.Decline:
        return None if phase == "buy" else "nothing to decline"
    if t is A.Bid:
        if phase not in BID_PHASES:
            return "no auction"
        amt = action.amount
        if type(amt) is not int and (not isinstance(amt, int) or isinstance(amt, bool)):
            return "a bid must be an integer"
        if amt <= ctx.high_bid:
            return f"a bid must exceed {ctx.high_bid}"
        return None if amt <= view.cash[seat] else "you cannot bid more than your cash"
    if t is A.DropOut:
        return None if phase in BID_PHASES else "no auction"
    if t is A.Mortgage:
        if phase not in RAISE_CASH_PHASES:
            return f"cannot mortgage in {phase}"
        return check_mortgage(rules, view, seat, action.square)
    if t is A.SellBuilding:
        if phase not in RAISE_CASH_PHASES:
            return f"cannot sell buildings in {phase}"
        return check_sell_building(rules, view, seat, action.square)
    if t is A.Unmortgage:
        if phase == "lift_mortgage":
            if action.square != ctx.square:
                return f"you may lift only square {ctx.square}"
        elif phase not in rules.bank.improve_phases:
            return f"cannot unmortgage in {phase}"
        return check_unmortgage(rules, view, seat, action.square)
    if t is A.SellProperty:
        if phase not in RAISE_CASH_PHASES:
            return f"cannot sell property in {phase}"
        return check_sell_property(rules, view, seat, action.square)
    if t is A.OfferTrade:
        if phase not in rules.bank.trade_phases:
            return f"cannot offer a trade in {phase}"
        if ctx.offers_made >= rules.bank.max_trade_offers_per_phase:
            return "no more trade offers this phase"
        return check_offer(rules, view, seat, action)
    if t is A.PayJailFine:
        if phase != "pre_roll" or not view.in_jail[seat]:
            return "not in jail (or not before the roll)"
        return None if view.cash[seat] >= rules.bank.jail_fine else "not enough cash"
    if t is A.UseJailCard:
        if phase != "pre_roll" or not view.in_jail[seat]:
            return "not in jail (or not before the roll)"
        return None if jail_card_count(view, seat) else "no get-out-of-jail card"
    if t is A.AcceptTrade or t is A.RejectTrade:
        return None if phase == "trade_response" else "no trade offer to answer"
    plugin = A.PLUGIN_ACTIONS.get(getattr(action, "kind", None))
    if plugin is not None and isinstance(action, A.Action):
        phases, plugin_check, _ = plugin
        if phase not in phases:
            return f"cannot {action.kind} in {phase}"
        if not rules.plugin_checks:
            return f"{action.kind} is judged by the engine"
        return None if plugin_check(rules, view, seat, action) is None else PLUGIN_REFUSAL
    return f"not an action: {action!r}"


def fresh(action: A.Action) -> A.Action:
    """A new action equal to `action` (what agents are handed is never shared)."""
    return type(action)(*[getattr(action, f.name) for f in fields(action)])


def legal_actions(rules: Rules, view: View, seat: int, ctx: Context) -> list[A.Action]:
    """Every legal parameter-free action, plus the minimum bid in an auction.

    The actions are new objects: an agent that writes into one changes nobody else's.
    """
    phase = ctx.phase
    out: list[A.Action] = []
    if phase == "trade_response":
        return [A.AcceptTrade(), A.RejectTrade()]
    if phase == "lift_mortgage":
        lift = A.Unmortgage(ctx.square)
        return [A.Conclude()] + ([lift] if check(rules, view, seat, ctx, lift) is None else [])
    if phase == "place_building":
        return [A.Conclude()] + [A.Build(s) for s in rules.streets if view.owner[s] == seat
                                 and check_build(rules, view, seat, s) is None]
    if phase in BID_PHASES:
        out.append(A.DropOut())
        if view.cash[seat] > ctx.high_bid:
            out.append(A.Bid(ctx.high_bid + 1))
        return out
    if phase == "buy":
        out.append(A.Decline())
        if view.cash[seat] >= rules.price[ctx.square]:
            out.append(A.Buy())
    else:
        out.append(A.Conclude())
    if phase == "pre_roll" and view.in_jail[seat]:
        if view.cash[seat] >= rules.bank.jail_fine:
            out.append(A.PayJailFine())
        if jail_card_count(view, seat):
            out.append(A.UseJailCard())
    _property_actions(rules, view, seat, phase in rules.bank.improve_phases, out)
    if rules.plugin_checks:
        out.extend(plugin_actions(rules, view, seat, ctx))
    return out


def _square_action(cls: type) -> tuple:
    """(cls, the setter of its `square` slot): `_property_actions` builds these frozen
    actions without the dataclass `__init__`, which sets each field through
    `object.__setattr__` (the same object, in about 60% of the time)."""
    return cls, cls.__dict__["square"].__set__


_BUILD, _UNMORTGAGE, _SELL_BUILDING, _MORTGAGE, _SELL_PROPERTY = map(_square_action, (
    A.Build, A.Unmortgage, A.SellBuilding, A.Mortgage, A.SellProperty))
_new = object.__new__


def _property_actions(rules: Rules, view: View, seat: int, manage: bool, out: list) -> None:
    """Append, per property `seat` owns in board order: Build and Unmortgage (when
    `manage`), SellBuilding, Mortgage, SellProperty, each exactly when its `check_*`
    accepts it.

    This is most of a `random` agent's time, so the checks' common refusals are
    answered here from facts gathered once per group (does the seat hold a buildable
    monopoly, any building), and the full `check_*` runs only past them
    (`tests/test_legal_actions.py` compares it with the checks one by one).
    """
    owner = view.owner
    level = view.level
    mortgaged = view.mortgaged
    my_cash = view.cash[seat]
    bank_cash = view.bank_cash
    bank = rules.bank
    is_street = rules.is_street
    group_of = rules.group_of
    members = rules.group_members
    unmortgage_cost = rules.unmortgage_cost
    mortgage = rules.mortgage
    beside_buildings = bank.mortgage_beside_buildings
    refund = rules.property_refund
    unmortgage, set_unmortgage = _UNMORTGAGE  # (the two most frequent: built inline)
    mortgage_cls, set_mortgage = _MORTGAGE
    groups: dict[int, tuple[bool, bool]] = {}  # group -> (buildable monopoly, any building)
    for sq in rules.properties:
        if owner[sq] != seat:
            continue
        g = group_of[sq]
        facts = groups.get(g)
        if facts is None:
            if g < 0:
                facts = (False, False)
            else:
                count = 0
                built = False
                for m in members[g]:
                    if owner[m] == seat:
                        count += 1
                        if level[m]:
                            built = True
                facts = (rules.group_buildable[g] and count >= rules.group_need[g], built)
            groups[g] = facts
        street = is_street[sq]
        if manage:
            if street and facts[0] and check_build(rules, view, seat, sq) is None:
                out.append(_make(_BUILD, sq))
            if mortgaged[sq] and my_cash >= unmortgage_cost[sq]:  # = check_unmortgage
                a = _new(unmortgage)  # = Unmortgage(sq), see `_square_action`
                set_unmortgage(a, sq)
                out.append(a)
        if street and level[sq] and check_sell_building(rules, view, seat, sq) is None:
            out.append(_make(_SELL_BUILDING, sq))
        # = check_mortgage
        if not mortgaged[sq] and not (facts[1] and (not beside_buildings or level[sq])) and (
                bank_cash is None or bank_cash >= mortgage[sq]):
            a = _new(mortgage_cls)  # = Mortgage(sq), see `_square_action`
            set_mortgage(a, sq)
            out.append(a)
        if refund is not None and check_sell_property(rules, view, seat, sq) is None:
            out.append(_make(_SELL_PROPERTY, sq))


def _make(kind: tuple, sq: int) -> A.Action:
    """`kind[0](sq)` for a `_square_action` pair."""
    a = _new(kind[0])
    kind[1](a, sq)
    return a


def plugin_actions(rules: Rules, view: View, seat: int, ctx: Context) -> list[A.Action]:
    """The parameter-free plugin actions legal now (engine-side: runs plugin code)."""
    phase = ctx.phase
    out: list[A.Action] = []
    for kind, (phases, plugin_check, _) in A.PLUGIN_ACTIONS.items():
        if phase in phases:
            cls = A.ACTION_KINDS[kind]
            try:
                candidate = cls()
            except TypeError:
                continue  # parametric plugin action: announced by the plugin itself
            if plugin_check(rules, view, seat, candidate) is None:
                out.append(candidate)
    return out


def can_offer_trade(rules: Rules, view: View, seat: int, ctx: Context) -> bool:
    """Whether an offer may be made now (its terms are `check_offer`'s): the phase is one
    of the rules' `trade_phases` and this phase's offers are not used up."""
    return (ctx.phase in rules.bank.trade_phases
            and ctx.offers_made < rules.bank.max_trade_offers_per_phase)
