"""The hybrid-DRL paper's state (240) and action (2922) spaces, computed from an observation.

State (section IV-A), float32, seats relative to the deciding agent (index 0 = me,
1..3 = the next seats in turn order):

- 4 players x [position / board size, cash / 1500 (clipped to [-10, 10]), in jail,
  holds a get-out-of-jail card] = 16
- 28 properties x [owner one-hot over the 4 relative seats (all zero = bank),
  mortgaged, part of a monopoly, houses / max houses, hotel built] = 224

Properties are identified by *name*, in the board order of the standard US game
(`PROPERTY_NAMES`), so a reordered board keeps every slot meaning the same property.
A property whose name is unknown (a renamed or added property) takes the first free
slot of its class (street / other) in board order; properties beyond the 28 slots are
not encoded and their actions are not expressible. Missing properties leave their slot
at zero. Players beyond 4 are not encoded (and cannot be trade partners of the network).

Actions (Table I; layout in `docs/drl.md`): exchange offers 2268, sell offers 252, buy
offers 252, improve 44, sell building 44, mortgage 28, free mortgage 28, skip, conclude,
use card, pay fine, accept offer, buy property. Table I's rows add up to 2950, 28 more
than the 2922 the paper states (and its network outputs); the row we leave out is
"sell property to the bank", which the official rules (and this engine by default)
never allow. The fallback policy still sells property in debt when a novelty allows it.

`skip` is the "pass" of the phases that have one besides concluding: out-of-turn
(Conclude), buy (Decline) and trade_response (Reject); `conclude` is Conclude in the
pre-roll and post-roll. This makes index <-> engine action exact per phase.

Decisions the space cannot express (bids, debt steps, other phases, or no legal action
in the space) go to `fallback_action`, never to an exception.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import openmono
from openmono import actions as A
from openmono.observation import PublicRules

STATE_DIM = 240
FEATURES = ("paper", "extended")
# `extended` adds what the paper's state leaves out (docs/drl.md, State): the phase
# (5, one-hot over NETWORK_PHASES_ORDER), the agent's offers in a row (1), the pending
# offer (28 slots, +1 got / -1 given, and its net cash / 1500) and the square on offer
# in the buy phase (28 slots, one-hot).
EXTRA_DIM = 5 + 1 + 29 + 28
NETWORK_PHASES_ORDER = ("pre_roll", "out_of_turn", "post_roll", "buy", "trade_response")


def state_dim(features: str) -> int:
    """The length of the state vector for a feature set."""
    if features not in FEATURES:
        raise ValueError(f"unknown features {features!r}; valid: {', '.join(FEATURES)}")
    return STATE_DIM + (EXTRA_DIM if features == "extended" else 0)

ACTION_DIM = 2922
N_SLOTS = 28
N_STREET_SLOTS = 22
N_OPP = 3
N_REL = 4
CASH_SCALE = 1500.0
CASH_CLIP = 10.0
CASH_LEVELS = ((3, 4), (1, 1), (5, 4))  # 0.75, 1, 1.25 x price, rounded down to a dollar

# Action layout: [start, stop) of each block.
EXCHANGE = 0  # (opponent, property given, property got != given): 3 x 28 x 27
SELL_OFFER = EXCHANGE + N_OPP * N_SLOTS * (N_SLOTS - 1)  # (opponent, given, cash level)
BUY_OFFER = SELL_OFFER + N_OPP * N_SLOTS * 3  # (opponent, got, cash level)
IMPROVE = BUY_OFFER + N_OPP * N_SLOTS * 3  # 22 streets: house, then 22: hotel
SELL_BUILDING = IMPROVE + 2 * N_STREET_SLOTS  # same layout as IMPROVE
MORTGAGE = SELL_BUILDING + 2 * N_STREET_SLOTS
FREE_MORTGAGE = MORTGAGE + N_SLOTS
SKIP = FREE_MORTGAGE + N_SLOTS
CONCLUDE = SKIP + 1
USE_CARD = CONCLUDE + 1
PAY_FINE = USE_CARD + 1
ACCEPT = PAY_FINE + 1
BUY = ACCEPT + 1
assert BUY + 1 == ACTION_DIM
BLOCKS = (("exchange_offer", EXCHANGE), ("sell_offer", SELL_OFFER), ("buy_offer", BUY_OFFER),
          ("improve", IMPROVE), ("sell_building", SELL_BUILDING), ("mortgage", MORTGAGE),
          ("free_mortgage", FREE_MORTGAGE), ("skip", SKIP), ("conclude", CONCLUDE),
          ("use_card", USE_CARD), ("pay_fine", PAY_FINE), ("accept", ACCEPT), ("buy", BUY))


def block_of(index: int) -> str:
    """The name of the block of Table I an action index lies in (e.g. "sell_offer")."""
    if not 0 <= index < ACTION_DIM:
        raise ValueError(f"action index {index} outside 0..{ACTION_DIM - 1}")
    name = BLOCKS[0][0]
    for block, start in BLOCKS:
        if index >= start:
            name = block
    return name

# Phases the network decides; every other decision goes to the fallback policy.
NETWORK_PHASES = frozenset(("pre_roll", "out_of_turn", "post_roll", "buy", "trade_response"))
# The network's phases in which an offer can be legal; whether the rules in play allow
# one now is `obs.can_offer_trade` (`BankRules.trade_phases`: not after the roll under
# `rules=gnome`), which the mask reads too.
TRADE_PHASES = frozenset(("pre_roll", "out_of_turn", "post_roll"))
_SKIP_ACTION = {"out_of_turn": A.CONCLUDE, "buy": A.DECLINE, "trade_response": A.REJECT}

_STD = openmono.standard_schema()
PROPERTY_NAMES: tuple[str, ...] = tuple(
    s.name for s in _STD.squares if s.kind in ("street", "railroad", "utility"))
STREET_NAMES: tuple[str, ...] = tuple(s.name for s in _STD.squares if s.kind == "street")
IS_STREET_SLOT = tuple(n in STREET_NAMES for n in PROPERTY_NAMES)
STREET_SLOT_OF = {PROPERTY_NAMES.index(n): i for i, n in enumerate(STREET_NAMES)}
SLOT_OF_STREET = tuple(PROPERTY_NAMES.index(n) for n in STREET_NAMES)  # its inverse
assert len(PROPERTY_NAMES) == N_SLOTS and len(STREET_NAMES) == N_STREET_SLOTS




def _exchange_index(opp: int, give: int, get: int) -> int:
    return EXCHANGE + (opp * N_SLOTS + give) * (N_SLOTS - 1) + (get if get < give else get - 1)


def _offer_views(m: np.ndarray) -> tuple:
    """A scratch (opponent, give, get) grid and its off-diagonal view in the exchange
    block's order, then the exchange, sell and buy blocks of `m` as views."""
    grid = np.zeros((N_OPP, N_SLOTS, N_SLOTS), dtype=bool)
    off_diagonal = grid.reshape(N_OPP, -1)[:, 1:].reshape(N_OPP, N_SLOTS - 1, N_SLOTS + 1)
    return (grid, off_diagonal[:, :, :N_SLOTS],
            m[EXCHANGE:SELL_OFFER].reshape(N_OPP, N_SLOTS - 1, N_SLOTS),
            m[SELL_OFFER:BUY_OFFER].reshape(N_OPP, N_SLOTS, 3),
            m[BUY_OFFER:IMPROVE].reshape(N_OPP, N_SLOTS, 3))


def cash_level(price: int, k: int) -> int:
    num, den = CASH_LEVELS[k]
    return price * num // den


class Layout:
    """One board's mapping between squares and the 28 named slots (built per rule set)."""

    def __init__(self, rules: Any) -> None:
        self.key = (tuple(rules.names), tuple(rules.is_property), tuple(rules.is_street),
                    tuple(rules.price), tuple(rules.mortgage), rules.bank.mortgage_interest,
                    rules.bank.trade_mortgaged, rules.hotel_level)
        self.rules_obj = rules
        self.n = rules.n
        self.hotel_level = rules.hotel_level
        self.max_houses = max(1, rules.max_level - (1 if rules.hotel_level > 0 else 0))
        self.trade_mortgaged = bool(rules.bank.trade_mortgaged)
        slot_sq = [-1] * N_SLOTS
        wanted = {name: j for j, name in enumerate(PROPERTY_NAMES)}
        unnamed = []
        for sq in rules.properties:
            j = wanted.pop(rules.names[sq], None)
            if j is None:
                unnamed.append(sq)
            else:
                slot_sq[j] = sq
        for sq in unnamed:  # unknown names: first free slot of the same class
            street = bool(rules.is_street[sq])
            for j in range(N_SLOTS):
                if slot_sq[j] < 0 and IS_STREET_SLOT[j] == street:
                    slot_sq[j] = sq
                    break
        self.slot_sq = np.array(slot_sq, dtype=np.int64)
        self.slot_sq_list = tuple(slot_sq)  # (Python ints for `action_of`: no numpy scalars)
        self.slot_of = {sq: j for j, sq in enumerate(slot_sq) if sq >= 0}
        self.present = self.slot_sq >= 0
        safe = np.where(self.present, self.slot_sq, 0)
        self.safe_sq = safe
        interest = rules.bank.mortgage_interest
        price = np.array([rules.price[s] if s >= 0 else 0 for s in slot_sq], dtype=np.int64)
        self.price = price
        self.levels = np.array([[cash_level(int(p), k) for k in range(3)] for p in price],
                               dtype=np.int64)  # (28, 3)
        self.levels_list = tuple(map(tuple, self.levels.tolist()))
        self.fee = np.array([math.ceil(round(rules.mortgage[s] * interest, 6)) if s >= 0 else 0
                             for s in slot_sq], dtype=np.int64)
        # Group bookkeeping for monopoly flags and "group has buildings".
        self.groups = [tuple(m) for m in rules.group_members]
        self.group_of_slot = np.array([rules.group_of[s] if s >= 0 else -1 for s in slot_sq])
        self.group_need = tuple(rules.group_need)
        # Per slot, the squares of its group (padded with the slot's own square), so
        # "does the owner have buildings in this group" is one vectorised test.
        width = max([len(m) for m in self.groups] + [1])
        gm = np.tile(self.safe_sq[:, None], (1, width))
        valid = np.zeros((N_SLOTS, width), dtype=bool)
        need = np.full(N_SLOTS, 10**6)
        for j in range(N_SLOTS):
            g = int(self.group_of_slot[j])
            if g >= 0 and self.present[j]:
                gm[j, :len(self.groups[g])] = self.groups[g]
                valid[j, :len(self.groups[g])] = True
                need[j] = rules.group_need[g]
        self.group_sq = gm
        self.group_valid = valid
        self.slot_need = need
        # Per square, the present slots whose row of `group_sq` holds it: a building there
        # makes those of them its owner owns untradeable (`_board_trades`).
        touched: dict[int, list[int]] = {}
        for j in range(N_SLOTS):
            if self.present[j]:
                for sq in dict.fromkeys(int(x) for x in gm[j]):
                    touched.setdefault(sq, []).append(j)
        self.slots_touched = {sq: tuple(js) for sq, js in touched.items()}
        self.absent = ~self.present if not self.present.all() else None
        self.no_fee = np.zeros(N_SLOTS, dtype=np.int64)
        self.no_fee.flags.writeable = False
        self.plain_buy_price = self.levels.copy()  # the buy-offer cash with no fee
        self.plain_buy_price.flags.writeable = False
        # The same per square, as Python tuples (`Encoder._update_properties`).
        self.set_of_sq = {int(self.slot_sq[j]): (self.groups[int(self.group_of_slot[j])],
                                                 int(need[j]))
                          for j in range(N_SLOTS)
                          if self.present[j] and self.group_of_slot[j] >= 0}
        self.squares = tuple(self.slot_of)
        self.owner_cols = np.arange(16, STATE_DIM, 8)
        self.street_slot_of_sq = {sq: STREET_SLOT_OF[j] for sq, j in self.slot_of.items()
                                  if IS_STREET_SLOT[j] and rules.is_street[sq]}

    def matches(self, rules: Any) -> bool:
        if rules is self.rules_obj:
            return True
        return Layout(rules).key == self.key


def _immutable_board(obs: Any) -> bool:
    """Whether the observation's per-square fields are tuples (then the same objects
    mean the same contents, and `Encoder` may keep what it computed from them)."""
    return type(obs.owner) is type(obs.level) is type(obs.mortgaged) is tuple


# Types whose values cannot change under a kept key (the engine's observations hold only
# these; one holding a list, say a hand-made one, is encoded afresh every time).
_IMMUTABLE = frozenset((tuple, int, str, float, bool, type(None), frozenset, PublicRules,
                        A.TradeTerms))


def _memo_key(obs: Any, extra: tuple = ()) -> tuple:
    """What the mask and the state of a decision depend on: the observation without its
    turn, current player, events, pending offer and offer count (then `extra`). A key is
    kept only when `_memo_safe` says its parts cannot change under it."""
    return obs[:3] + obs[5:17] + obs[18:19] + obs[26:] + extra


def _offers_feature(offers_in_a_row: int) -> float:
    """The extended state's offers-in-a-row feature (capped at 10 offers)."""
    return min(offers_in_a_row, 10) / 10


def _simple_key(obs: Any) -> tuple:
    """What the legal actions other than offers depend on (`legal.legal_actions` with
    the public rules, and their indices): the phase, the decider's own cash, jail and
    cards, the board and the bank's stock; not the others' cash or positions."""
    me = obs.seat
    return (obs.rules, obs.phase, me, obs.square, obs.cash[me], obs.in_jail[me],
            obs.jail_cards[me], obs.owner, obs.level, obs.mortgaged, obs.houses_left,
            obs.hotels_left, obs.bank_cash, obs.refused, obs.plugin_actions)


def _memo_safe(key: tuple) -> bool:
    """Whether every part of `key` is immutable (a list could change after it was kept)."""
    return _IMMUTABLE.issuperset(map(type, key))


class Encoder:
    """Encodes observations and maps actions for one agent; rebuilds its layout when the
    rules change (a novelty injected mid-game)."""

    def __init__(self, features: str = "paper") -> None:
        self.features = features
        self.dim = state_dim(features)
        self.layout: Layout | None = None
        self.state = np.zeros(self.dim, dtype=np.float32)
        self.mask = np.zeros(ACTION_DIM, dtype=bool)
        # What did not change since the last decision is not rebuilt: the engine replaces
        # its per-square tuples (owner, level, mortgaged) only when a square changes, so
        # the same tuple objects mean the same board. Each cache holds its key's objects
        # (compared with `is`) and the result.
        self._props_key: tuple = ()
        self._props = np.zeros(N_SLOTS * 8, dtype=np.float32)
        self._trade_key: tuple = ()
        self._trade = np.zeros(IMPROVE, dtype=bool)
        self._trade_views = _offer_views(self._trade)
        self._opponents_key: tuple = ()
        self._to: np.ndarray | None = None
        self._to_ok: np.ndarray | None = None
        self._board_key: tuple = ()
        self._board: tuple = ()
        # The last decision's actions other than offers (`_simple_key`), and its state
        # (`_memo_key`): a learner's rejected offers leave it deciding again on the same
        # position, and an out-of-turn decision often finds its own affairs unchanged.
        self._simple_key: tuple = ()
        self._simple = np.zeros(ACTION_DIM - IMPROVE, dtype=bool)
        self._state_key: tuple = ()
        self._state_memo = np.zeros(self.dim, dtype=np.float32)

    def layout_for(self, rules: Any) -> Layout:
        lay = self.layout
        if lay is None or rules is not lay.rules_obj:
            new = Layout(rules)
            if lay is None or new.key != lay.key:
                lay = new
            else:
                lay.rules_obj = rules
            self.layout = lay
        return lay

    # -- state -----------------------------------------------------------------------
    def encode(self, obs: Any, out: np.ndarray | None = None, offers_in_a_row: int = 0
               ) -> np.ndarray:
        """The state of `obs` for the deciding seat (written into `out`): the paper's 240
        floats, then the extended features if this encoder has them."""
        x = self.state if out is None else out
        extended = self.features == "extended"
        # (offers_in_a_row is written last, outside the key: it changes with every offer
        # while the rest of the state often does not.)
        memo = _memo_key(obs, (obs.offer,))
        if memo == self._state_key:
            x[:] = self._state_memo
            if extended:
                x[STATE_DIM + 5] = _offers_feature(offers_in_a_row)
            return x
        lay = self.layout_for(obs.rules)
        if extended:
            x[STATE_DIM:] = 0.0
            self._extra(obs, lay, x[STATE_DIM:], offers_in_a_row)
        me = obs.seat
        players = len(obs.cash)
        head = [0.0] * 16  # (filled as a list and written at once: fewer numpy item writes)
        # (The fields read once, not once per seat.)
        active, position, cash, in_jail, cards = (obs.active, obs.position, obs.cash,
                                                  obs.in_jail, obs.jail_cards)
        n = lay.n
        for r in range(min(N_REL, players)):
            s = (me + r) % players
            if not active[s]:
                continue
            b = 4 * r
            head[b] = position[s] / n
            head[b + 1] = min(CASH_CLIP, max(-CASH_CLIP, cash[s] / CASH_SCALE))
            head[b + 2] = 1.0 if in_jail[s] else 0.0
            jc = cards[s]
            head[b + 3] = 1.0 if (jc if isinstance(jc, int) else len(jc)) else 0.0
        x[:16] = head
        key = self._props_key
        if not (key and key[0] is lay and key[1] is obs.owner and key[2] is obs.level
                and key[3] is obs.mortgaged and key[4] == me and key[5] == players):
            # Mostly a few squares changed since this encoder's last board: their rows
            # are rewritten; many changed squares, or another layout or seat, start afresh.
            if not (key and key[0] is lay and key[4] == me and key[5] == players
                    and _immutable_board(obs)
                    and self._update_properties(obs, lay, me, players, key[1:4],
                                                self._props)):
                self._encode_properties(obs, lay, me, players, self._props)
            # (Only immutable tuples can stand for their contents.)
            self._props_key = ((lay, obs.owner, obs.level, obs.mortgaged, me, players)
                               if _immutable_board(obs) else ())
        x[16:STATE_DIM] = self._props
        self._state_key = memo if _memo_safe(memo) else ()
        self._state_memo[:] = x
        return x

    @staticmethod
    def _update_properties(obs: Any, lay: Layout, me: int, players: int, before: tuple,
                           out: np.ndarray) -> bool:
        """`_encode_properties` from the block of the board `before` (its owner, level
        and mortgaged tuples): the rows of the squares that changed are rewritten, and
        the complete-set column of their sets. False, and nothing written, when more
        than `FEW_CHANGES` squares changed (a fresh block is then cheaper)."""
        owner, level, mortgaged = obs.owner, obs.level, obs.mortgaged
        changed = changed_squares(lay.squares, (owner, level, mortgaged), before)
        if len(changed) > FEW_CHANGES:
            return False
        slot_of = lay.slot_of
        max_houses = lay.max_houses
        hotel = lay.hotel_level
        for sq in changed:
            b = 8 * slot_of[sq]
            out[b:b + 8] = 0.0
            o = owner[sq]
            if o < 0:
                continue  # an unowned row is all zero
            rel = (o - me) % players
            if rel < N_REL:
                out[b + rel] = 1.0
            if mortgaged[sq]:
                out[b + 4] = 1.0
            lv = level[sq]
            out[b + 6] = min(lv, max_houses) / max_houses
            if hotel > 0 and lv >= hotel:
                out[b + 7] = 1.0
        sets = lay.set_of_sq
        for m in {m for sq in changed if sq in sets for m in sets[sq][0]}:
            j = slot_of.get(m)
            if j is None:
                continue
            o = owner[m]
            members, need = sets[m]
            complete = o >= 0 and sum(owner[x] == o for x in members) >= need
            out[8 * j + 5] = 1.0 if complete else 0.0
        return True

    @staticmethod
    def _encode_properties(obs: Any, lay: Layout, me: int, players: int,
                           out: np.ndarray) -> None:
        """The 28 x 8 property block of the state (written into `out`): the owner's
        seat relative to `me` (columns 0-3), then the board's own columns
        (`_board_columns`)."""
        o, owned, board = _board_columns(obs, lay)
        props = out.reshape(N_SLOTS, 8)
        props[:, :4] = 0.0
        rel = (o - me) % players
        hot = owned & (rel < N_REL)
        props[np.flatnonzero(hot), rel[hot]] = 1.0
        props[:, 4:] = board

    @staticmethod
    def _extra(obs: Any, lay: Layout, x: np.ndarray, offers_in_a_row: int) -> None:
        phase = obs.phase
        if phase in NETWORK_PHASES_ORDER:
            x[NETWORK_PHASES_ORDER.index(phase)] = 1.0
        x[5] = _offers_feature(offers_in_a_row)
        offer = obs.offer if phase == "trade_response" else None
        if offer is not None:
            for sq in offer.give:  # the offerer gives: I would get it
                j = lay.slot_of.get(sq)
                if j is not None:
                    x[6 + j] = 1.0
            for sq in offer.get:
                j = lay.slot_of.get(sq)
                if j is not None:
                    x[6 + j] = -1.0
            x[34] = min(CASH_CLIP, max(-CASH_CLIP,
                                       (offer.give_cash - offer.get_cash) / CASH_SCALE))
        if phase == "buy":
            j = lay.slot_of.get(obs.square)
            if j is not None:
                x[35 + j] = 1.0

    # -- actions ---------------------------------------------------------------------
    def index_of(self, action: Any, obs: Any) -> int | None:
        """The index of an engine action in this decision, or None if not expressible."""
        return self._index(action, obs, self.layout_for(obs.rules))

    def _index(self, action: Any, obs: Any, lay: Layout) -> int | None:
        """`index_of` on this decision's layout (the most frequent kinds tested first)."""
        phase = obs.phase
        t = type(action)
        if t is A.Mortgage or t is A.Unmortgage:
            j = lay.slot_of.get(action.square)
            if j is None:
                return None
            return (MORTGAGE if t is A.Mortgage else FREE_MORTGAGE) + j
        if t is A.Conclude:
            if phase in ("pre_roll", "post_roll"):
                return CONCLUDE
            return SKIP if phase == "out_of_turn" else None
        if t is A.Decline:
            return SKIP if phase == "buy" else None
        if t is A.RejectTrade:
            return SKIP if phase == "trade_response" else None
        if t is A.Buy:
            return BUY
        if t is A.AcceptTrade:
            return ACCEPT
        if t is A.UseJailCard:
            return USE_CARD
        if t is A.PayJailFine:
            return PAY_FINE
        if t is A.Build or t is A.SellBuilding:
            k = lay.street_slot_of_sq.get(action.square)
            if k is None:
                return None
            lv = obs.level[action.square]
            hotel = (lv + 1 if t is A.Build else lv) == lay.hotel_level
            return (IMPROVE if t is A.Build else SELL_BUILDING) + k + (
                N_STREET_SLOTS if hotel else 0)
        if t is A.OfferTrade:
            return self._offer_index(action, obs, lay)
        return None

    def _offer_index(self, o: A.OfferTrade, obs: Any, lay: Layout) -> int | None:
        players = len(obs.cash)
        if not isinstance(o.to, int) or not 0 <= o.to < players or o.to == obs.seat:
            return None
        opp = (o.to - obs.seat) % players - 1
        if opp >= N_OPP or o.give_jail_cards or o.get_jail_cards:
            return None
        give = tuple(lay.slot_of.get(s, -1) for s in o.give)
        get = tuple(lay.slot_of.get(s, -1) for s in o.get)
        if -1 in give or -1 in get:
            return None
        if len(give) == 1 and len(get) == 1 and not o.give_cash and not o.get_cash:
            return _exchange_index(opp, give[0], get[0]) if give[0] != get[0] else None
        if len(give) == 1 and not get and not o.give_cash:
            for k in range(3):
                if o.get_cash == lay.levels[give[0], k]:
                    return SELL_OFFER + (opp * N_SLOTS + give[0]) * 3 + k
        if len(get) == 1 and not give and not o.get_cash:
            for k in range(3):
                if o.give_cash == lay.levels[get[0], k]:
                    return BUY_OFFER + (opp * N_SLOTS + get[0]) * 3 + k
        return None

    def action_of(self, index: int, obs: Any) -> A.Action:
        """The engine action of an index in this decision (the inverse of `index_of`)."""
        lay = self.layout_for(obs.rules)
        slot_sq, levels = lay.slot_sq_list, lay.levels_list
        i = int(index)
        if i < SELL_OFFER:
            opp, rest = divmod(i - EXCHANGE, N_SLOTS * (N_SLOTS - 1))
            give, g = divmod(rest, N_SLOTS - 1)
            get = g if g < give else g + 1
            return A.OfferTrade(to=self._seat_of(opp, obs), give=(slot_sq[give],),
                                get=(slot_sq[get],))
        if i < BUY_OFFER:
            opp, rest = divmod(i - SELL_OFFER, N_SLOTS * 3)
            j, k = divmod(rest, 3)
            return A.OfferTrade(to=self._seat_of(opp, obs), give=(slot_sq[j],),
                                get_cash=levels[j][k])
        if i < IMPROVE:
            opp, rest = divmod(i - BUY_OFFER, N_SLOTS * 3)
            j, k = divmod(rest, 3)
            return A.OfferTrade(to=self._seat_of(opp, obs), get=(slot_sq[j],),
                                give_cash=levels[j][k])
        if i < MORTGAGE:
            build = i < SELL_BUILDING
            k = (i - (IMPROVE if build else SELL_BUILDING)) % N_STREET_SLOTS
            sq = slot_sq[SLOT_OF_STREET[k]]
            return A.BUILD[sq] if build else A.SELL_BUILDING[sq]
        if i < FREE_MORTGAGE:
            return A.MORTGAGE[slot_sq[i - MORTGAGE]]
        if i < SKIP:
            return A.UNMORTGAGE[slot_sq[i - FREE_MORTGAGE]]
        if i == SKIP:
            return _SKIP_ACTION.get(obs.phase, A.CONCLUDE)
        return {CONCLUDE: A.CONCLUDE, USE_CARD: A.USE_JAIL_CARD, PAY_FINE: A.PAY_JAIL_FINE,
                ACCEPT: A.ACCEPT, BUY: A.BUY}[i]

    @staticmethod
    def _seat_of(opp: int, obs: Any) -> int:
        return (obs.seat + opp + 1) % len(obs.cash)

    # -- masks -----------------------------------------------------------------------
    def legal_mask(self, obs: Any, out: np.ndarray | None = None) -> np.ndarray:
        """True for every index whose action the engine accepts now (all False outside
        the network's phases)."""
        m = self.mask if out is None else out
        if obs.phase not in NETWORK_PHASES:
            m[:] = False
            return m
        lay = self.layout_for(obs.rules)
        m[IMPROVE:] = self._simple_actions(obs, lay)
        if obs.phase in TRADE_PHASES and obs.can_offer_trade:
            me = obs.seat
            key = self._trade_key
            if not (key and key[0] is lay and key[1] is obs.owner and key[2] is obs.level
                    and key[3] is obs.mortgaged and key[4] == me
                    and key[5] == obs.cash[me] and key[6] == obs.active):
                self._trade_key = ((lay, obs.owner, obs.level, obs.mortgaged, me,
                                    obs.cash[me], obs.active)
                                   if _immutable_board(obs) else ())
                trade = self._trade
                trade[:] = False
                self._trade_mask(obs, lay, trade)
            m[:IMPROVE] = self._trade  # the offers' blocks come first (EXCHANGE..BUY_OFFER)
        else:
            m[:IMPROVE] = False
        return m

    def _simple_actions(self, obs: Any, lay: Layout) -> np.ndarray:
        """The mask from IMPROVE on (every action but offers, which `legal_actions` does
        not list): the engine's legal actions mapped to indices, kept while `_simple_key`
        stays the same (a shared array: copy it)."""
        key = _simple_key(obs)
        if key == self._simple_key:
            return self._simple
        simple = self._simple
        simple[:] = False
        index = self._index
        for a in obs.legal_actions():
            i = index(a, obs, lay)
            if i is not None:  # (never an offer: offers are not in the list)
                simple[i - IMPROVE] = True
        self._simple_key = key if _memo_safe(key) else ()
        return simple

    def _trade_mask(self, obs: Any, lay: Layout, m: np.ndarray) -> None:
        """The offer blocks (exchange, sell, buy) for every opponent at once, written into
        their (opponent, ...) views of `m`; what depends on the board alone is kept while
        the board stays the same."""
        me = obs.seat
        players = len(obs.cash)
        cash = obs.cash[me]
        if cash < 0:
            return  # an offer of no cash would already offer more than it has
        key = self._board_key
        if not (key and key[0] is lay and key[1] is obs.owner and key[2] is obs.level
                and key[3] is obs.mortgaged and key[4] == me):
            self._board_key = ((lay, obs.owner, obs.level, obs.mortgaged, me)
                               if _immutable_board(obs) else ())
            self._board = self._tradeable(obs, lay, me)
        mine, own, tradeable, fee, buy_price = self._board
        to = self._opponents(me, players, obs.active)
        if to is None:
            return
        # A dozen whole-block numpy calls into kept views: at these sizes a call costs its
        # overhead, not its elements.
        grid, off_diagonal, exchange, sell, buy = (
            self._trade_views if m is self._trade else _offer_views(m))
        theirs = tradeable & (own == to)  # (opponents, 28)
        # exchange: give j (mine), get q (theirs), pay q's mortgage fee. The 28 x 28 grid
        # has a False diagonal (mine and theirs are disjoint); its off-diagonal entries in
        # row order, which is the block's order, are the grid's flat entries from the
        # second on, taken 28 of every 29 (`off_diagonal`, a view of `grid`).
        # (No mortgage on the board: every fee is 0 <= cash, and two calls are saved.)
        payable = theirs if fee is lay.no_fee else theirs & (fee <= cash)
        mine_col = mine[:, None]
        np.logical_and(mine_col, payable[:, None, :], out=grid)
        np.copyto(exchange, off_diagonal)
        # sell: give j (mine) for cash, to any opponent still playing
        np.logical_and(self._to_ok, mine_col, out=sell)
        # buy: get q (theirs) for a cash level plus its fee
        np.logical_and(theirs[:, :, None], buy_price <= cash, out=buy)

    def _opponents(self, me: int, players: int, active: tuple) -> np.ndarray | None:
        """The seat of each opponent slot as a (3, 1) array, -3 where nobody plays there
        (a seat beyond the table or out of the game); None when nobody does."""
        key = (me, players, active)
        if key != self._opponents_key:
            seats = [(me + opp + 1) % players if opp < players - 1 else -3
                     for opp in range(N_OPP)]
            seats = [s if s >= 0 and active[s] else -3 for s in seats]
            self._opponents_key = key
            self._to = np.array(seats)[:, None] if max(seats) >= 0 else None
            # (whether each slot's opponent plays, shaped for the sell block: kept with it)
            self._to_ok = None if self._to is None else (self._to >= 0)[:, :, None]
        return self._to

    @staticmethod
    def _tradeable(obs: Any, lay: Layout, me: int) -> tuple:
        """(mine, owner per slot, tradeable, transfer fee per slot, the cash a buy offer
        pays per slot and cash level): a property is tradeable by its owner when its
        group carries none of the owner's buildings (and, if mortgaged, the rules allow
        trading mortgaged property)."""
        own, tradeable, fee, buy_price = _board_trades(obs, lay)
        return tradeable & (own == me), own, tradeable, fee, buy_price


# Above this many changed squares a board is worked out afresh, not from the last one
# (`Encoder._update_properties`, the reward's `_property_totals`).
FEW_CHANGES = 6


def changed_squares(squares: Any, now: tuple, before: tuple) -> set[int]:
    """The `squares` where two boards differ; `now` and `before` hold the same per-square
    fields in the same order (the tuples that are the same object are not compared)."""
    changed: set[int] = set()
    for new, old in zip(now, before):
        if new is not old:
            changed.update(sq for sq in squares if new[sq] != old[sq])
    return changed

# What the board alone decides, for every seat's encoder: at a table of learners (the AEC
# environment) each seat encodes the same board in turn. Kept for the last board, keyed
# by the rules and the engine's per-square tuples (the same objects: the same board).
_LAST_COLUMNS: list = [(), ()]
_LAST_TRADES: list = [(), ()]


def _board_key(obs: Any) -> tuple:
    """The key of the last board kept, or () when a field is not a tuple (a list could
    change under it)."""
    if _immutable_board(obs):
        return (obs.rules, obs.owner, obs.level, obs.mortgaged)
    return ()


def _same_board(key: tuple, obs: Any) -> bool:
    return bool(key) and key[0] is obs.rules and key[1] is obs.owner and (
        key[2] is obs.level and key[3] is obs.mortgaged)


def _board_columns(obs: Any, lay: Layout) -> tuple:
    """(owner per slot, owned per slot, the 28 x 4 columns 4-7 of the property block:
    mortgaged, in a complete set, houses, hotel), whoever decides."""
    if _same_board(_LAST_COLUMNS[0], obs):
        return _LAST_COLUMNS[1]
    sq = lay.safe_sq
    owner = np.array(obs.owner)
    level = np.array(obs.level)[sq]
    o = owner[sq]
    owned = (o >= 0) & lay.present
    board = np.zeros((N_SLOTS, 4), dtype=np.float32)
    board[:, 0] = owned & np.array(obs.mortgaged)[sq]
    count = ((owner[lay.group_sq] == o[:, None]) & lay.group_valid).sum(axis=1)
    board[:, 1] = owned & (count >= lay.slot_need)
    board[:, 2] = np.where(owned, np.minimum(level, lay.max_houses) / lay.max_houses, 0.0)
    if lay.hotel_level > 0:
        board[:, 3] = owned & (level >= lay.hotel_level)
    for a in (o, owned, board):
        a.flags.writeable = False  # shared by every seat's encoder
    _LAST_COLUMNS[:] = [_board_key(obs), (o, owned, board)]
    return o, owned, board


def _board_trades(obs: Any, lay: Layout) -> tuple:
    """(owner per slot, tradeable, transfer fee, buy-offer cash per slot and level): the
    board's part of `Encoder._tradeable`, whoever decides. A property is untradeable when
    its group carries buildings of its owner's, or when it is mortgaged and the rules
    forbid trading mortgaged property."""
    if _same_board(_LAST_TRADES[0], obs):
        return _LAST_TRADES[1]
    owner, level, mortgaged = obs.owner, obs.level, obs.mortgaged
    sq = lay.safe_sq
    own = np.array(owner)[sq]
    if lay.absent is not None:
        own[lay.absent] = -2
    if any(mortgaged):
        mort = np.array(mortgaged)[sq]
        fee = lay.fee * mort
        buy_price = lay.levels + fee[:, None]
        tradeable = np.ones(N_SLOTS, dtype=bool) if lay.trade_mortgaged else ~mort
    else:  # most boards: the fee-free arrays, kept
        fee, buy_price = lay.no_fee, lay.plain_buy_price
        tradeable = np.ones(N_SLOTS, dtype=bool)
    if any(level):  # buildings are few: mark their owners' slots of the group by hand
        touched = lay.slots_touched
        for s, lv in enumerate(level):
            if lv > 0:
                o = owner[s]
                for j in touched.get(s, ()):
                    if own[j] == o:
                        tradeable[j] = False
    out = (own, tradeable, fee, buy_price)
    for a in out:
        a.flags.writeable = False  # shared by every seat's encoder
    _LAST_TRADES[:] = [_board_key(obs), out]
    return out


# -- the fallback policy -------------------------------------------------------------------
BID_RESERVE = 200  # cash kept after a winning bid (the hybrid buy rule's margin)


def fallback_action(obs: Any) -> A.Action:
    """What a DRL agent does where its network cannot decide.

    - bid: raise by one while the bid stays at or below the printed price and leaves
      `BID_RESERVE` cash (the hybrid buy rule); else drop out.
    - debt: until the debt is covered, mortgage the property with the lowest mortgage
      value, else sell the cheapest building, else sell the cheapest property to the
      bank (if the rules allow); conclude when covered or nothing is left.
    - anything else (a plugin phase, or no legal action in the space): the phase's
      default action if legal, else the first legal action, else Conclude.
    """
    rules = obs.rules
    legal = obs.legal_actions()
    phase = obs.phase
    me = obs.seat
    cash = obs.cash[me]
    if phase == "bid":
        bid = obs.high_bid + 1
        price = rules.price[obs.square] if 0 <= obs.square < rules.n else 0
        if bid <= price and cash - bid >= BID_RESERVE:
            for a in legal:
                if type(a) is A.Bid:
                    return a
        return A.DROP_OUT
    if phase == "debt":
        if cash >= obs.owed:
            return A.CONCLUDE
        best = None
        for a in legal:
            t = type(a)
            if t is A.Mortgage:
                key = (0, rules.mortgage[a.square], a.square)
            elif t is A.SellBuilding:
                key = (1, rules.house_cost[a.square], a.square)
            elif t is A.SellProperty:
                key = (2, rules.price[a.square], a.square)
            else:
                continue
            if best is None or key < best[0]:
                best = (key, a)
        return A.CONCLUDE if best is None else best[1]
    from openmono.legal import DEFAULT_ACTION
    default = DEFAULT_ACTION.get(phase)
    if default is not None and default in legal:
        return default
    return legal[0] if legal else A.CONCLUDE
