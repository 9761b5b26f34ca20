"""`baseline`: GNOME-p3's `background_agent_v3_1` (the SAIL-ON background agent), decision
by decision where our engine can express it. Each rule names the GNOME function it
follows (module `monopoly_simulator.background_agent_v3_1` unless another is named;
`helpers` = `agent_helper_functions`). `S` is the Go salary (GNOME's `go_increment`).

- Jail (`make_pre_roll_move`): with cash >= S, use a card if it has one, else pay the
  fine; otherwise stay.
- Buy (`make_buy_property_decision`): when cash - price >= S, or when the price is
  within its cash and the property completes a set (`helpers.will_property_complete_set`:
  a street group owned but this one; the 4th railroad; the 2nd utility). A
  set-completing property it cannot afford (`make_post_roll_move`): mortgage the
  cheapest property that is not lone and whose mortgage covers the price, else sell
  one to the bank whose refund does, then decide again.
- Bid (`make_bid`): below the list price, bid half way to it if that is below its cash;
  at or above it, only for a set-completing property and while the bid is below its
  cash, a quarter of the way to its cash; otherwise drop out.
- Trade answers (`make_out_of_turn_move`, accept_trade_offer branch): reject offers
  that give nothing, ask more net cash than it has, or name a mortgaged property; count
  sets gained (offered properties that complete a set) and lost (asked properties of its
  full colour sets: railroads and utilities are never counted as sets lost); more lost
  than gained: reject; as many: accept only if the net cash leaves >= S/2, and >= S
  unless the offer's worth (prices + cash) is positive; more gained: accept if it can
  pay.
- Building, when it is not its turn (`helpers.identify_improvement_opportunity`): the
  improvable street of its full colour sets with the largest extra rent minus house
  cost (ties: the later name), that it can pay for; if that one cannot be built now,
  nothing this call. Then unmortgage (`free_mortgage` branch): the first mortgaged
  property by name with cash - 1.1 x mortgage >= S.
- Trade offers, once per own turn (`helpers.identify_property_trade_offer_to_player`,
  `identify_property_trade_wanted_from_player`, `curate_trade_offer_multiple_players`):
  with cash < S, sell each lone street that completes another player's set (1.5 x price,
  at least half that player's cash, never above it), one offer per player; otherwise,
  if an exchange exists (a partner owning a lone street that completes its set and
  lacking one of its lone streets), exchange offers only, one per such partner;
  else buy offers at 1.125 x price while the cash left after all of them stays > S/2
  (cumulative over the offers), else the sell offers. Refused offers are made again the
  next turn (GNOME blocks only a second batch within one turn).
- Debt (`handle_negative_cash_balance`): mortgage the cheapest mortgage when mortgages
  alone cover the shortfall; else sell to the bank (when the rules allow it) the
  cheapest property outside its full colour sets (mortgaged ones first: their value is
  the refund minus 110% of the mortgage), then properties of its sets, each after
  selling that group's buildings (the first built street by name); then buildings by
  street name; then mortgage; then sell anything. A building sale the rules refuse
  ends it (bankrupt), as GNOME's three refused tries do.

Where the engine differs (said here, as the issue asks):
- GNOME makes offers from the player's own out-of-turn call; under the standard rules
  the active player has no out-of-turn phase, so it makes them in its pre-roll (under
  `rules=gnome`, in its out-of-turn calls, as GNOME does).
- An offer waiting for its answer (`rules=gnome`) that reaches it at its own pre-roll
  is rejected: v3_1's pre-roll never accepts (GNOME then drops the offer).
- GNOME's amounts are floats (1.5 x price, half-way bids); ours are whole dollars
  (rounded down; a bid is raised to the least legal amount).
- An exchange's cash both ways is netted into one payment (same effect).
- A mortgaged property is valued at its refund minus 110% of its mortgage, as GNOME
  does, so it is "sold" (foreclosed) first where the rules let the bank take it
  (`mortgaged_sellback`, on under `rules=gnome`); where they do not, the debt order
  skips it. When the building sale it picks is refused (even selling), it concludes
  the debt phase, bankrupt: GNOME would repeat the refused sale until
  `player.handle_negative_cash_balance` stops it after three failures.
- GNOME decides a purchase in the post-roll (`make_post_roll_move`), ours at landing;
  its fallback for a set-completing property it cannot afford (mortgage, else sell, a
  property that is not lone and covers the price) is made in our buy phase, which
  allows raising cash. GNOME's `player._own_or_auction` would hand the property over
  unpaid when its post-roll ran out of actions before the purchase; not reproduced.
- GNOME's counter of failed actions (`UNSUCCESSFUL_LIMIT`) has no counterpart: our
  engine turns an illegal action into a conclusion.
"""

from __future__ import annotations

import math
from itertools import compress
from typing import Any

from openmono import actions as A
from openmono import legal
from openmono.observation import Observation

from agents.policy_helpers import conclude_until, tables
from agents.base import PhaseAgent

CONCLUDE = A.CONCLUDE


def completes_set(rules, owner: tuple[int, ...], seat: int, sq: int) -> bool:
    """`helpers.will_property_complete_set`: every other member of its group is `seat`'s
    (streets); the 4th railroad; the 2nd utility."""
    members = rules.group_members[rules.group_of[sq]]
    if rules.is_street[sq]:
        return all(owner[m] == seat for m in members if m != sq)
    mine = sum(1 for m in members if owner[m] == seat and m != sq)
    return mine == len(members) - 1


def is_lone(rules, owner: tuple[int, ...], seat: int, sq: int) -> bool:
    """`helpers.is_property_lone`: the only property of its group `seat` owns."""
    return all(owner[m] != seat for m in rules.group_members[rules.group_of[sq]] if m != sq)


def full_sets(rules, owner: tuple[int, ...], seat: int) -> frozenset[int]:
    """GNOME's `full_color_sets_possessed`: street groups `seat` owns entirely."""
    return _table(rules, owner)[0].get(seat, _NONE)


_NONE: frozenset[int] = frozenset()
_TABLE: list = [None, None, None]  # owner tuple, rules, its table


def _table(rules, owner: tuple[int, ...]) -> tuple:
    """Per owner tuple (all agents at a table share it): ({seat: full street groups},
    {seat: [(my lone street, partner whose set it completes)]}), streets by name then
    partners by seat. Mortgages and cash are checked where the table is used.

    Worked out again at every change of hands (about 60 a game, each asked of every
    seat) from each group's part, which depends on its owners alone (`_group_part`) and
    is kept per owners (they recur from game to game)."""
    cache = _TABLE
    if cache[0] is owner and cache[1] is rules:
        return cache[2]
    full: dict[int, set[int]] = {}
    sells: dict[int, list[tuple[int, int]]] = {}
    t = tables(rules)
    view = t.group_view
    memos = t.trade_memo
    for g, members in t.street_led_groups:
        holders = view[g](owner)
        part = memos[g].get(holders)
        if part is None:
            part = memos[g][holders] = _group_part(members, holders[:-1])
        if part is _NO_PART:  # (most groups, most of the time)
            continue
        holder, lone = part
        if holder >= 0:
            full.setdefault(holder, set()).add(g)
        for o, entry in lone:
            sells.setdefault(o, []).append(entry)
    names = rules.names
    for lst in sells.values():
        if len(lst) > 1:
            lst.sort(key=lambda t: (names[t[0]], t[1]))
    table = ({s: frozenset(gs) for s, gs in full.items()}, sells)
    cache[0], cache[1], cache[2] = owner, rules, table
    return table


def _group_part(members: tuple[int, ...], holders: tuple[int, ...]) -> tuple[int, tuple]:
    """A street group's part of the trade table: (the seat holding all of it, or -1;
    ((seat, (its lone street, the partner whose set it completes)), ...)). A group
    holds a lone street that completes another seat's set only when it has exactly two
    holders, one of them on a single street."""
    distinct = set(holders)
    if len(distinct) == 1:
        return (holders[0], ()) if holders[0] >= 0 else _NO_PART
    lone = []
    if len(distinct) == 2:
        a, b = distinct
        for o, p in ((a, b), (b, a)):  # o's lone street would complete p's set
            if o >= 0 and p >= 0 and holders.count(o) == 1:
                lone.append((o, (members[holders.index(o)], p)))
    return (-1, tuple(lone)) if lone else _NO_PART


_NO_PART = (-1, ())  # a group with no full set and no lone street completing one


def extra_rent(rules, level: tuple[int, ...], sq: int) -> int:
    """`helpers.asset_incremental_improvement_rent`: rent gained by one more level
    (from an unimproved set street: the 1-house rent minus the doubled rent)."""
    lv = level[sq]
    table = rules.rent[sq]
    if lv == 0:
        return table[1] - 2 * table[0]
    return table[lv + 1] - table[lv]


def improvable(rules, owner, level, mortgaged, sq: int) -> bool:
    """`helpers.can_asset_be_improved` (for a street of a full set)."""
    hotel = rules.hotel_level
    lv = level[sq]
    if mortgaged[sq] or lv >= hotel:
        return False
    if lv == 0:
        return True
    others = tables(rules).group_others[sq]
    for m in others:
        if level[m] == hotel and lv == hotel - 1:
            return True
        if level[m] > lv and level[m] != hotel:
            return True
    return all(level[m] == lv for m in others)


def best_improvement(rules, obs, seat: int) -> int:
    """The street `identify_improvement_opportunity` picks, or -1."""
    return improvements(rules, obs, seat)[0]


def improvements(rules, obs, seat: int) -> tuple[int, int]:
    """(`best_improvement`, the least house cost of the improvable streets of its full
    sets, affordable or not: the cash at which building may become possible; or
    `NO_CASH_LIMIT`), from one pass over its full sets."""
    owner, level, mortgaged = obs.owner, obs.level, obs.mortgaged
    cash = obs.cash[seat]
    best, key = -1, None
    least = A.NO_CASH_LIMIT
    t = tables(rules)
    view = t.group_view
    memos = t.improve_memo
    for g in full_sets(rules, owner, seat):
        group = view[g]
        state = (group(level), group(mortgaged))
        found = memos[g].get(state)
        if found is None:
            found = memos[g][state] = _improvable_streets(rules, owner, level, mortgaged, g)
        for sq, cost, rank in found:
            if cost < least:
                least = cost
            if cost <= cash and (key is None or rank > key):
                best, key = sq, rank
    return best, least


def _improvable_streets(rules, owner, level, mortgaged, g: int) -> tuple:
    """((street, house cost, (extra rent - cost, name)), ...) of a full set's improvable
    streets: it depends on the group's levels and mortgages alone, which recur from game
    to game, so `improvements` keeps it per those."""
    names = rules.names
    house_cost = rules.house_cost
    return tuple((sq, house_cost[sq], (extra_rent(rules, level, sq) - house_cost[sq], names[sq]))
                 for sq in rules.group_members[g]
                 if improvable(rules, owner, level, mortgaged, sq))


def unmortgage_limit(rules, sq: int) -> int:
    """The least whole cash with cash - (1 + interest) x mortgage >= S (GNOME's float test)."""
    owed = rules.mortgage[sq] * (1.0 + rules.bank.mortgage_interest)
    salary = rules.bank.go_salary
    c = math.ceil(owed) + salary
    while c - 1 - owed >= salary:
        c -= 1
    while c - owed < salary:
        c += 1
    return c


def sell_offers(rules, obs, seat: int) -> list[tuple[int, int, int]]:
    """`helpers.identify_property_trade_offer_to_player`: (price, my street, partner),
    highest price first, streets by name then partners in seat order."""
    mortgaged = obs.mortgaged
    out = []
    for sq, p in _table(rules, obs.owner)[1].get(seat, ()):
        if not mortgaged[sq] and obs.active[p]:
            price = rules.price[sq] * 1.5
            if price < obs.cash[p] / 2:
                price = obs.cash[p] / 2
            elif price > obs.cash[p]:
                continue
            out.append((price, sq, p))
    out.sort(key=lambda t: -t[0])  # stable: GNOME's sorted(..., reverse=True) keeps ties in order
    return out


def buy_requests(rules, obs, seat: int) -> list[tuple[float, int, int]]:
    """`helpers.identify_property_trade_wanted_from_player`: (price, street, owner) of
    other players' lone streets that complete my set, at 0.75 x price, cheapest first."""
    mortgaged = obs.mortgaged
    sells = _table(rules, obs.owner)[1]
    out = []
    for p in range(len(obs.cash)):
        if p == seat or not obs.active[p]:
            continue
        for sq, q in sells.get(p, ()):
            if q == seat and not mortgaged[sq]:
                price = rules.price[sq] * 0.75
                if price > obs.cash[seat]:
                    continue
                out.append((price, sq, p))
    out.sort(key=lambda t: t[0])
    return out


def curate_offers(rules, obs, seat: int, offers: list | None = None,
                  requests: list | None = None) -> list[A.OfferTrade]:
    """`helpers.curate_trade_offer_multiple_players` with purpose 1 (cash < S) or 2.
    `offers` and `requests` (default: `sell_offers`, `buy_requests`) let an agent built
    on this one choose other candidates and keep GNOME's curation."""
    salary = rules.bank.go_salary
    cash = obs.cash[seat]
    if offers is None:
        offers = sell_offers(rules, obs, seat)
    if cash < salary:
        return _sells(offers)
    if requests is None:
        requests = buy_requests(rules, obs, seat)
    if not offers and not requests:
        return []
    if not offers:
        return _buys(requests, cash, salary)
    if not requests:
        return _sells(offers)
    out = []
    seen: list[int] = []
    for price, sq, p in requests:
        if p in seen:
            continue
        seen.append(p)
        for sell_price, mine, q in offers:
            if q == p:
                net = int(price) - int(sell_price)  # what I pay, net (0.75 x price)
                out.append(A.OfferTrade(to=p, give=(mine,), get=(sq,),
                                        give_cash=max(net, 0), get_cash=max(-net, 0)))
                break
    return out or _buys(requests, cash, salary)


def _sells(offers) -> list[A.OfferTrade]:
    out, partners = [], []
    for price, sq, p in offers:
        if p not in partners:
            partners.append(p)
            out.append(A.OfferTrade(to=p, give=(sq,), get_cash=int(price)))
    return out


def _buys(requests, cash: int, salary: int) -> list[A.OfferTrade]:
    out, partners, total = [], [], 0.0
    for price, sq, p in requests:
        if p in partners:
            continue
        total += price * 1.5
        if cash - total > salary / 2:
            out.append(A.OfferTrade(to=p, get=(sq,), give_cash=int(price * 1.5)))
            partners.append(p)
        else:
            total -= price * 1.5
    return out


def accept(rules, obs, seat: int, offer: A.OfferTrade) -> bool:
    """The accept_trade_offer branch of `make_out_of_turn_move`."""
    cash = obs.cash[seat]
    salary = rules.bank.go_salary
    offered_cash, wanted_cash = offer.give_cash, offer.get_cash
    if offered_cash <= 0 and not offer.give and (wanted_cash > 0 or offer.get):
        return False
    if wanted_cash - offered_cash > cash:
        return False
    if any(obs.mortgaged[sq] for sq in offer.get + offer.give):
        return False
    worth = (sum(rules.price[sq] for sq in offer.give) + offered_cash
             - sum(rules.price[sq] for sq in offer.get) - wanted_cash)
    gained = sum(1 for sq in offer.give if completes_set(rules, obs.owner, seat, sq))
    mine_full = full_sets(rules, obs.owner, seat)
    lost = sum(1 for sq in offer.get if rules.group_of[sq] in mine_full)
    net_cash = wanted_cash - offered_cash
    if lost > gained:
        return False
    if lost == gained:
        if net_cash >= cash or cash - net_cash < salary / 2:
            return False
        return not (cash - net_cash < salary and worth <= 0)
    return net_cash < cash


_PRE_ROLL_ORDER = A.Conclude(until_cash=A.NO_CASH_LIMIT, watch="cash")


def _turn_just_started(obs: Observation) -> bool:
    """Whether nothing has happened since the seat's turn started: an offer that waited
    for it is answered first, before its pre-roll (which its standing order may answer
    without asking it), and any other answer in its turn follows an event."""
    events = obs.events
    if not events:
        return False
    last = events[-1]
    return last.kind == "turn_started" and last.seat == obs.seat and last.turn == obs.turn


class BaselineAgent(PhaseAgent):
    name = "baseline"
    fixed_answers = {"post_roll": CONCLUDE}  # its post-roll only buys: ours is at landing

    def __init__(self) -> None:
        super().__init__()
        self._offered_turn = -1  # the turn of its last batch of offers (one per turn)
        self._pending: list[A.OfferTrade] = []  # the rest of that batch
        self._pre_roll_turn = -1  # the turn of its last pre-roll decision

    def begin_game(self, seat: int, observation: Any) -> None:
        super().begin_game(seat, observation)
        self._offered_turn = self._pre_roll_turn = -1

    # Every other phase (post_roll, and the engine's rarer ones) gets its default.
    phase_methods = {"pre_roll": "_pre_roll", "out_of_turn": "_out_of_turn", "buy": "_buy",
                     "bid": "_bid", "trade_response": "_answer", "debt": "_debt"}

    def _buy(self, obs: Observation) -> A.Action:
        if self._buys(obs):
            return A.BUY
        rules = obs.rules
        me = obs.seat
        sq = obs.square
        if not completes_set(rules, obs.owner, me, sq):
            return A.DECLINE
        # make_post_roll_move: raise the price by one mortgage (else one sale to the bank)
        # of a property that is not lone, the cheapest that covers the price on its own
        # (helpers.identify_potential_mortgage / identify_potential_sale, lone_constraint)
        price = rules.price[sq]
        owner = obs.owner
        mine = sorted((s for s in rules.properties if owner[s] == me and not obs.mortgaged[s]
                       and not is_lone(rules, owner, me, s)), key=rules.names.__getitem__)
        mortgages = [s for s in mine if rules.mortgage[s] >= price
                     and legal.check_mortgage(rules, obs, me, s) is None]
        if mortgages:
            return A.MORTGAGE[min(mortgages, key=lambda s: rules.mortgage[s])]
        refund = rules.property_refund
        if refund is not None:
            sales = [s for s in mine if refund[s] >= price
                     and legal.check_sell_property(rules, obs, me, s) is None]
            if sales:
                return A.SELL_PROPERTY[min(sales, key=lambda s: refund[s])]
        return A.DECLINE

    def _answer(self, obs: Observation) -> A.Action:
        if obs.current == obs.seat and self._pre_roll_turn != obs.turn and _turn_just_started(obs):
            return A.REJECT  # asked before its pre-roll: make_pre_roll_move ignores offers
        return A.ACCEPT if accept(obs.rules, obs, obs.seat, obs.offer) else A.REJECT

    # --- make_pre_roll_move -------------------------------------------------------------
    def _pre_roll(self, obs: Observation) -> A.Action:
        rules = obs.rules
        me = obs.seat
        self._pre_roll_turn = obs.turn
        if obs.in_jail[me] and obs.cash[me] >= rules.bank.go_salary:
            if legal.jail_card_count(obs, me):
                return A.USE_JAIL_CARD
            if obs.cash[me] >= rules.bank.jail_fine:
                return A.PAY_JAIL_FINE
        if rules.bank.out_of_turn_calls is None:
            return self._offers(obs)  # the standard rules give it no out-of-turn call
        # Out of jail this answer is always Conclude, whatever the board: a standing
        # order that only a rule change ends lets the engine give it (in jail the engine
        # always asks), so its pre-roll may pass unseen.
        return _PRE_ROLL_ORDER

    # --- make_out_of_turn_move ----------------------------------------------------------
    def _out_of_turn(self, obs: Observation) -> A.Action:
        rules = obs.rules
        me = obs.seat
        if obs.current == me:
            return self._offers(obs)
        sq, limit = improvements(rules, obs, me)
        if sq >= 0 and legal.check_build(rules, obs, me, sq) is None:
            return A.BUILD[sq]
        cash = obs.cash[me]
        mortgaged = obs.mortgaged
        owner = obs.owner
        # (the mortgaged squares picked in C, then mine among them, by name as GNOME)
        for m in sorted([s for s in compress(range(len(mortgaged)), mortgaged) if owner[s] == me],
                        key=rules.names.__getitem__):
            need = unmortgage_limit(rules, m)
            if cash >= need:
                return A.UNMORTGAGE[m]
            limit = min(limit, need)
        if sq >= 0:
            return CONCLUDE  # a candidate it cannot build now: ask again next time
        return conclude_until(limit) if limit > cash else CONCLUDE

    def _offers(self, obs: Observation) -> A.Action:
        """One batch of offers per own turn (GNOME returns them as one action list; we
        make them one after another in the same phase)."""
        rules = obs.rules
        if self._offered_turn != obs.turn:
            self._offered_turn = obs.turn
            self._pending = self._curate(obs)
        while self._pending:
            offer = self._pending.pop(0)
            if legal.check(rules, obs, obs.seat, obs, offer) is None:
                return offer
        return CONCLUDE

    def _curate(self, obs: Observation) -> list[A.OfferTrade]:
        """This turn's batch of offers (an agent built on this one widens it)."""
        return curate_offers(obs.rules, obs, obs.seat)

    # --- make_buy_property_decision, make_bid ------------------------------------------
    def _worth_stretching(self, obs: Observation, sq: int) -> bool:
        """A property worth buying below the S cash cushion and bidding above its list
        price for: GNOME's `helpers.will_property_complete_set` (an agent built on this
        one widens it)."""
        return completes_set(obs.rules, obs.owner, obs.seat, sq)

    def _buys(self, obs: Observation) -> bool:
        rules = obs.rules
        me = obs.seat
        price = rules.price[obs.square]
        cash = obs.cash[me]
        if cash - price >= rules.bank.go_salary:
            return True
        return price <= cash and self._worth_stretching(obs, obs.square)

    def _bid(self, obs: Observation) -> A.Action:
        rules = obs.rules
        me = obs.seat
        cash = obs.cash[me]
        current = obs.high_bid
        price = rules.price[obs.square]
        if current < price:
            new = current + (price - current) / 2
            if new >= cash:
                return A.DROP_OUT
        elif current < cash and self._worth_stretching(obs, obs.square):
            new = current + (cash - current) / 4
        else:
            return A.DROP_OUT
        amount = max(int(new), current + 1)
        return A.Bid(amount) if amount <= cash else A.DROP_OUT

    # --- handle_negative_cash_balance --------------------------------------------------
    def _debt(self, obs: Observation) -> A.Action:
        rules = obs.rules
        me = obs.seat
        short = obs.owed - obs.cash[me]
        if short <= 0:
            return CONCLUDE
        owner, level, mortgaged = obs.owner, obs.level, obs.mortgaged
        names = rules.names.__getitem__
        mine = sorted([s for s in rules.properties if owner[s] == me], key=names)
        mortgageable = [s for s in mine if legal.check_mortgage(rules, obs, me, s) is None]
        if mortgageable and sum(rules.mortgage[s] for s in mortgageable) >= short:
            return A.MORTGAGE[min(mortgageable, key=lambda s: rules.mortgage[s])]
        refund = rules.property_refund
        mine_full = full_sets(rules, owner, me)
        if refund is not None:
            # GNOME's value of a sale: the refund, minus 110% of the mortgage when the
            # property is mortgaged (negative: foreclosed first, when the rules allow it)
            lifting = rules.unmortgage_cost

            def value(s: int) -> int:
                return refund[s] - lifting[s] if mortgaged[s] else refund[s]

            lone = [s for s in mine if rules.group_of[s] not in mine_full
                    and legal.check_sell_property(rules, obs, me, s) is None]
            if lone:
                return A.SELL_PROPERTY[min(lone, key=value)]
            foreclose = rules.bank.mortgaged_sellback
            rest = [s for s in mine if (foreclose or not mortgaged[s])
                    and not (rules.is_street[s] and level[s])]
            for s in sorted(rest, key=value):
                built = sorted((m for m in rules.group_members[rules.group_of[s]]
                                if m != s and owner[m] == me and level[m]), key=names)
                if rules.group_of[s] in mine_full and built:
                    return self._sell_building(rules, obs, me, built[0])
                if legal.check_sell_property(rules, obs, me, s) is None:
                    return A.SELL_PROPERTY[s]
        for s in mine:
            if rules.is_street[s] and level[s]:
                return self._sell_building(rules, obs, me, s)
        # (GNOME's second mortgage step has the same "mortgages cover it" test as the first)
        if refund is not None:
            for s in mine:
                if legal.check_sell_property(rules, obs, me, s) is None:
                    return A.SELL_PROPERTY[s]
        return CONCLUDE

    @staticmethod
    def _sell_building(rules, obs, me: int, sq: int) -> A.Action:
        """GNOME's choice; when the rules refuse it, GNOME asks the same again until its
        three failures end the debt phase (bankrupt): we give up at once."""
        if legal.check_sell_building(rules, obs, me, sq) is None:
            return A.SELL_BUILDING[sq]
        return CONCLUDE
