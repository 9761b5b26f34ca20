"""`planner`: the value-function agent of the planner paper (one-step look-ahead on V).

Every decision simulates each legal move on a light copy of the public state
(`simulate`), drops the moves that break the paper's two bankruptcy conditions
(`pruning`) and takes the argmax of V(s') (`value`); doing nothing is always a
candidate. Per phase:

- buy: buy when V(bought) > V(not bought) and the purchase is safe.
- bid: once per auction, the limit is the highest price at which buying still beats not
  buying and stays safe (binary search: V and the safety margins fall with the price);
  then it raises the high bid by `bid_step` x list price up to that limit.
- pre-roll / out-of-turn / post-roll: the best single build, sale, mortgage or
  unmortgage until doing nothing is best (at most `max_manage_actions` per phase); a
  cheap test concludes at once when nothing can be built or unmortgaged. With
  `finance_builds` (off by default), in its own turn, "mortgage the properties outside
  its sets that cost least V, then build" is one more candidate (a plan one step
  cannot see).
- jail: V of paying the fine or using a card (the turn starts free from the jail
  square) against V of staying (the turn starts in jail). Optionally, while at least
  `jail_leave_unowned` (a fraction) of the properties are unowned, it leaves whenever
  that is safe (V has no term for the purchases a free turn allows).
- debt: the raising move that loses the least V, until the debt is covered; give up at
  once when selling everything would not cover it.
- trades (rule-based, as in the paper): accept when V improves by `trade_margin` and
  the trade is safe (and, with `protect_sets`, when it does not hand an opponent a new
  set unless g1 gains one too). In its own pre-roll it offers cash for an opponent's
  property (never one of the owner's sets) in a group where g1 holds a member and
  lacks at most `offer_reach` (set-completing and set-advancing), or, with
  `offer_block`, one another opponent needs to complete a set. Of those whose offer V
  values above `trade_margin` and pruning keeps, the best is offered, opening at
  `offer_start` x list price and raising by `offer_step` x list price after each
  refusal (remembered per owner and property until ownership changes), at most
  `max_offers_per_turn` offers a turn.

The paper fixes V and the pruning conditions but not these thresholds; the defaults
come from paired-seed tuning against `baseline` (docs/results/agents.md, "Where the strength comes from").
`adapt` switches novelty adaptation on or off: the detector (`agents/planner/detect.py`)
always watches and reports; with `adapt` the agent also values the game by the rules
the detector now believes (`set_believed_schema`), without it by the standard rules.

Valuation uses the *believed* schema (`believed`, the standard game until novelty
detection changes it with `set_believed_schema`); legality always uses the real rules
in the observation.
"""

from __future__ import annotations

from typing import Any, Iterable

from openmono import actions as A
from openmono import legal
from openmono.observation import Observation
from openmono.schema import GameSchema, rules_schema

from agents.base import NoveltyReport, PhaseAgent
from agents.planner.charges import NO_CHARGES, Charges, charges_from
from agents.planner.pruning import allowed
from agents.planner.detect import NoveltyDetector
from agents.planner.simulate import SimState, apply, buy, trade
from agents.planner.told import charged_schema
from agents.policy_helpers import bid_up_to
from agents.planner.value import K_LOOPS, K_TURNS, Evaluator, Tables, Terms, tables_for

CONCLUDE = A.CONCLUDE
MANAGE = frozenset(("pre_roll", "out_of_turn", "post_roll"))


class PlannerAgent(PhaseAgent):
    """The planner paper's agent: one-step look-ahead on a value function of the rules it
    believes, with a novelty detector that changes those beliefs (see module): the built-in
    agent that detects a novelty and adapts its play to it."""

    name = "planner"

    def __init__(self, adapt: bool = True, k_turns: int = K_TURNS, k_loops: int = K_LOOPS,
                 cash_min: int = 100, mortgage_scale: float = 0.5,
                 worst_min_prob: float = 0.02, bid_step: float = 0.05,
                 max_manage_actions: int = 16, min_gain: float = 1.0,
                 trade_margin: float = 1.0, protect_sets: bool = True,
                 max_offers_per_turn: int = 3, offer_start: float = 0.1,
                 offer_step: float = 0.5, retry_turns: int = 0,
                 jail_leave_unowned: float | None = None, finance_builds: bool = False,
                 offer_reach: int = 2, offer_block: bool = True,
                 rules: str | None = None) -> None:
        super().__init__()
        # The rules it is told it plays (a packaged rule set; a trial tells it its own):
        # its prior beliefs, against which a novelty is a change.
        prior = rules_schema(rules or "standard")
        self.adapt = adapt
        self.k_turns = k_turns
        self.k_loops = k_loops
        self.cash_min = cash_min
        self.mortgage_scale = mortgage_scale
        self.worst_min_prob = worst_min_prob
        self.bid_step = bid_step
        self.max_manage_actions = max_manage_actions
        self.min_gain = min_gain
        self.trade_margin = trade_margin
        self.protect_sets = protect_sets
        self.max_offers_per_turn = max_offers_per_turn
        self.offer_start = offer_start
        self.offer_step = offer_step
        self.retry_turns = retry_turns
        self.jail_leave_unowned = jail_leave_unowned
        self.finance_builds = finance_builds
        self.offer_reach = offer_reach
        self.offer_block = offer_block
        self.believed: GameSchema = prior
        self._prior = prior
        self.charges: Charges = NO_CHARGES  # rule charges on buildings it believes in
        # The detector lives as long as the agent (a whole trial): its evidence about
        # dice and decks accumulates over games.
        self.detector = NoveltyDetector(prior)
        self._belief_version = self.detector.version
        self.errors = 0  # decisions that raised and fell back to the phase default
        self._tables: Tables | None = None
        self._fitted: GameSchema | None = None
        self._reset()

    # --- beliefs ------------------------------------------------------------------------
    def set_believed_schema(self, schema: GameSchema) -> None:
        """Replace the rules the agent believes (novelty adaptation calls this)."""
        self.believed = schema
        self._tables = None
        self._fitted = None

    def set_believed_charges(self, charges: Charges) -> None:
        """Believe these rule charges on buildings (a class rule the schema cannot
        write: `agents.planner.charges`)."""
        self.charges = charges
        self._tables = None

    def tell_rules(self, schema: GameSchema, changes: Iterable[tuple[str, str, Any]]) -> None:
        """Be told the rules in force: the schema, and the rule changes (entity,
        attribute, new value) it cannot hold, as far as the planner can express them: the
        values charged behind the old board go into the schema, rule charges into
        `Charges`."""
        changes = list(changes)
        self.set_believed_schema(charged_schema(schema, changes))
        self.set_believed_charges(charges_from(changes, schema))

    def tables(self, obs: Observation | None = None) -> Tables:
        """The value tables (landing weights, rents, charges) of the believed rules, rebuilt
        only when the beliefs or the board size change: the costly part of a decision,
        shared by every move it values."""
        t = self._tables
        if t is None or (obs is not None and t.n != len(obs.owner)):
            schema = self.believed
            if obs is not None and len(schema.squares) != len(obs.owner):
                schema = self._fit(obs)
            t = self._tables = tables_for(schema, self.k_turns, self.k_loops,
                                          charges=self.charges)
        return t

    def _after(self, t: Tables, st: SimState, me: int, action: A.Action) -> SimState:
        """`st` after a management move, a believed build fee paid."""
        new = apply(t.rules, st, me, action)
        if type(action) is A.Build and t.charges.build_fee:
            new.cash[me] -= t.charges.fee_for(new.level[action.square])
        return new

    def _fit(self, obs: Observation) -> GameSchema:
        """A schema for a board the beliefs do not fit (another size): the public rules
        with the believed dice and, when they still apply, the believed decks."""
        if self._fitted is not None and len(self._fitted.squares) == len(obs.owner):
            return self._fitted
        public = dict(obs.rules.public_schema)
        public["dice"] = [d.model_dump() for d in self.believed.dice]
        try:
            fitted = GameSchema.model_validate(
                {**public, "decks": [d.model_dump() for d in self.believed.decks]})
        except ValueError:
            squares = [dict(s, kind="free_parking", deck=None) if s["kind"] == "card" else s
                       for s in public["squares"]]
            fitted = GameSchema.model_validate({**public, "squares": squares, "decks": []})
        self._fitted = fitted
        return fitted

    def _played(self, obs: Observation) -> Any:
        """The rules the planner plays by: those it is shown, until it believes others
        (a novelty it detected, or was told): then its believed rules decide which sets
        it holds and which moves it tries. (The engine still judges every move; under
        `effects` the rules shown are the old ones, so a set a novelty made would
        otherwise never be built on.)"""
        if self.believed is self._prior:
            return obs.rules
        return self.tables(obs).rules

    def _legal(self, obs: Observation, rules: Any) -> list[A.Action]:
        """The moves legal under `rules` (the observation's own list for the rules
        shown), less the builds a rule of the game refused."""
        if rules is obs.rules:
            return obs.legal_actions()
        out = legal.legal_actions(rules, obs, obs.seat, obs)
        if obs.refused:
            out = [a for a in out if not (a.kind == "build" and a.square in obs.refused)]
        return out

    # --- game lifecycle -------------------------------------------------------------------
    def _reset(self) -> None:
        self._phase_key: tuple = ()
        self._phase_actions = 0
        self._financing_key: tuple = ()
        self._bid_key: tuple = ()
        self._bid_limit = 0
        self._offer_turn = -1
        self._offers_this_turn = 0
        self._pending: tuple | None = None  # (to, square, amount) of the last offer
        self._asks: dict[tuple[int, int], tuple[int, int]] = {}  # (to, sq) -> (next ask, turn)
        self._my_turns = 0
        self._sets_key: Any = None
        self._sets_rules: Any = None
        self._sets: list[int] = []
        self._targets_key: Any = None
        self._targets_rules: Any = None
        self._targets: list[tuple[int, int]] = []

    def begin_game(self, seat: int, observation: Observation) -> None:
        """Forget the last game's decision state and show the detector the first observation
        (a rule change between games shows here)."""
        super().begin_game(seat, observation)
        self._reset()
        self._observe(observation)

    def end_game(self, result: Any) -> None:
        """Let the detector close the game's statistics (the dice test, hidden rules) and,
        with `adapt`, play the next game by what it now believes."""
        try:
            self.detector.end_game(result)
        except Exception:  # noqa: BLE001 - detection must never cost a game
            self.errors += 1
        self._adopt()

    def novelty_report(self) -> NoveltyReport:
        """The detector's report: whether the rules changed, how sure it is, and what
        changed."""
        return self.detector.report()

    def novelty_announced(self) -> None:
        """Told a novelty arrives now ("given detection"): the detector's statistics start
        afresh."""
        self.detector.announce()

    def _observe(self, obs: Observation) -> None:
        """Feed the detector; with `adapt`, value the game by what it now believes."""
        try:
            self.detector.observe(obs)
        except Exception:  # noqa: BLE001
            self.errors += 1
        self._adopt()

    def _adopt(self) -> None:
        det = self.detector
        if self.adapt and det.version != self._belief_version:
            self._belief_version = det.version
            self.set_believed_schema(det.believed_schema)
            # (getattr: a detector pickled before rule beliefs has none)
            self.set_believed_charges(charges_from(getattr(det, "rule_beliefs", ())))

    phase_methods = {"pre_roll": "_manage", "out_of_turn": "_manage",
                     "post_roll": "_manage", "buy": "_buy", "bid": "_bid",
                     "trade_response": "_answer", "debt": "_debt"}

    def act(self, obs: Observation) -> A.Action:
        """Feed the detector, then decide by phase; a rule its beliefs do not cover falls
        back to the phase's default move rather than faulting the game."""
        self._observe(obs)
        try:
            return self.dispatch(obs)
        except Exception:  # noqa: BLE001 - a rule the beliefs do not cover must not fault
            self.errors += 1
            return legal.DEFAULT_ACTION.get(obs.phase, CONCLUDE)

    # --- helpers ------------------------------------------------------------------------
    def _setup(self, obs: Observation) -> tuple[Tables, SimState, Evaluator, Terms]:
        t = self.tables(obs)
        st = SimState.from_obs(obs)
        ev = Evaluator(t, st, obs.seat, self.worst_min_prob)
        return t, st, ev, ev.terms(st)

    def _ok(self, base: Terms, after: Terms) -> bool:
        return allowed(base, after, self.cash_min, self.mortgage_scale)

    def _max_price(self, ev: Evaluator, base: Terms, make, lo: int, hi: int,
                   margin: float = 0.0) -> int:
        """The largest x in [lo, hi] with V(make(x)) > V + margin and the move safe;
        lo - 1 when there is none. V and both safety margins fall as x grows."""
        def good(x: int) -> bool:
            after = ev.terms(make(x))
            return after.value > base.value + margin and self._ok(base, after)

        if hi < lo or not good(lo):
            return lo - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if good(mid):
                lo = mid
            else:
                hi = mid - 1
        return lo

    # --- buying and auctions --------------------------------------------------------------
    def _buy(self, obs: Observation) -> A.Action:
        if obs.cash[obs.seat] < obs.rules.price[obs.square]:
            return A.DECLINE
        t, st, ev, base = self._setup(obs)
        sq = obs.square
        after = ev.terms(buy(st, obs.seat, sq, t.rules.price[sq]))
        if after.value > base.value and self._ok(base, after):
            return A.BUY
        return A.DECLINE

    def _bid(self, obs: Observation) -> A.Action:
        me = obs.seat
        sq = obs.square
        key = (obs.turn, sq, obs.cash[me], obs.owner)
        if key != self._bid_key:
            self._bid_key = key
            t, st, ev, base = self._setup(obs)
            self._bid_limit = self._max_price(
                ev, base, lambda x: buy(st, me, sq, x), 1, obs.cash[me])
        return bid_up_to(obs.high_bid, self._bid_limit,
                         max(1, int(obs.rules.price[sq] * self.bid_step)))

    # --- management phases ------------------------------------------------------------------
    def _manage(self, obs: Observation) -> A.Action:
        me = obs.seat
        key = (obs.turn, obs.phase)
        if key != self._phase_key:
            self._phase_key = key
            self._phase_actions = 0
            if obs.phase == "pre_roll":
                self._my_turns += 1
        if self._phase_actions >= self.max_manage_actions:
            return CONCLUDE
        action: A.Action | None = None
        if obs.phase == "pre_roll":
            if obs.in_jail[me]:
                action = self._jail(obs)
            if action is None:
                action = self._offer(obs)
        if action is None:
            if not self._can_improve(obs):
                return CONCLUDE
            action = self._best_move(obs)
        if action is not CONCLUDE:
            self._phase_actions += 1
        return action

    def _my_sets(self, obs: Observation) -> list[int]:
        """Buildable groups where g1 holds a set (cached per ownership tuple)."""
        rules = self._played(obs)
        if obs.owner is not self._sets_key or rules is not self._sets_rules:
            owner = obs.owner
            me = obs.seat
            self._sets_key = owner
            self._sets_rules = rules
            self._sets = [
                g for g, members in enumerate(rules.group_members)
                if members and rules.group_buildable[g]
                and sum(owner[m] == me for m in members) >= rules.group_need[g]]
        return self._sets

    def _can_improve(self, obs: Observation) -> bool:
        """Cheap test: something can be built or unmortgaged with the cash at hand (or,
        with `finance_builds` in g1's own turn, a set street is not fully built)."""
        rules = self._played(obs)
        me = obs.seat
        cash = obs.cash[me]
        owner = obs.owner
        level = obs.level
        mortgaged = obs.mortgaged
        top = rules.max_level
        finance = self.finance_builds and obs.phase != "out_of_turn"
        hotel = rules.hotel_level
        for g in self._my_sets(obs):
            for m in rules.group_members[g]:
                lv = level[m]
                if owner[m] != me or lv >= top:
                    continue
                if (obs.hotels_left if lv + 1 == hotel else obs.houses_left) < 1:
                    continue
                if finance or (not mortgaged[m] and rules.house_cost[m] <= cash):
                    return True
        cost = rules.unmortgage_cost
        for sq in rules.properties:
            if owner[sq] == me and mortgaged[sq] and cost[sq] <= cash:
                return True
        return False

    def _best_move(self, obs: Observation) -> A.Action:
        t, st, ev, base = self._setup(obs)
        me = obs.seat
        key = (obs.turn, obs.phase)
        financing = self._financing_key == key
        best: A.Action = CONCLUDE
        best_v = base.value + self.min_gain
        for action in self._legal(obs, self._played(obs)):
            kind = type(action)
            if kind not in (A.Build, A.Unmortgage, A.SellBuilding, A.Mortgage):
                continue
            if financing and kind is A.Unmortgage:
                continue
            after = ev.terms(self._after(t, st, me, action))
            if after.value > best_v and self._ok(base, after):
                best, best_v = action, after.value
        if best is CONCLUDE and self.finance_builds and obs.phase != "out_of_turn":
            step = self._financed_build(obs, t, st, ev, base, best_v)
            if step is not None:
                self._financing_key = key
                return step
        return best

    def _financed_build(self, obs: Observation, t: Tables, st: SimState, ev: Evaluator,
                        base: Terms, best_v: float) -> A.Action | None:
        """The first mortgage of a plan "mortgage lone properties, then build", when the
        plan beats doing nothing and is safe (a move one-step look-ahead cannot see)."""
        rules = self._played(obs)
        me = obs.seat
        sets = self._my_sets(obs)
        if not sets:
            return None
        in_sets = {m for g in sets for m in rules.group_members[g]}
        loans = []
        for sq in rules.properties:
            if (obs.owner[sq] == me and sq not in in_sets
                    and legal.check_mortgage(rules, obs, me, sq) is None):
                after = ev.terms(apply(t.rules, st, me, A.Mortgage(sq)))
                loans.append((base.value - after.value, sq))
        if not loans:
            return None
        loans.sort()
        best_plan: A.Action | None = None
        for g in sets:
            members = [m for m in rules.group_members[g] if obs.owner[m] == me]
            if any(obs.mortgaged[m] for m in members):
                continue
            low = min(obs.level[m] for m in members)
            if low >= rules.max_level:
                continue
            sq = min((m for m in members if obs.level[m] == low),
                     key=lambda m: t.rules.house_cost[m])
            cost = t.rules.house_cost[sq]
            s = st
            first = None
            for _, loan in loans:
                s = apply(t.rules, s, me, A.Mortgage(loan))
                first = first if first is not None else loan
                if s.cash[me] < cost or legal.check_build(rules, s, me, sq) is not None:
                    continue
                after = ev.terms(self._after(t, s, me, A.Build(sq)))
                if self._ok(base, after):  # enough loans for a safe build
                    if after.value > best_v:
                        best_plan, best_v = A.Mortgage(first), after.value
                    break
        return best_plan

    # --- jail ----------------------------------------------------------------------------------
    def _jail(self, obs: Observation) -> A.Action | None:
        """Pay or use a card when V of a free turn beats V of a turn in jail."""
        me = obs.seat
        can_pay = obs.is_legal(A.PAY_JAIL_FINE)
        can_card = obs.jail_cards[me] > 0
        if not (can_pay or can_card):
            return None
        t, st, ev, base = self._setup(obs)
        free = ev.with_my_state(t.jail)
        best: A.Action | None = None
        best_v = base.value
        props = obs.rules.properties
        early = self.jail_leave_unowned
        if early is not None and props and (
                sum(obs.owner[sq] < 0 for sq in props) >= early * len(props)):
            best_v = float("-inf")  # early game: a free turn can buy what V cannot see yet
        options = ([A.USE_JAIL_CARD] if can_card else []) + ([A.PAY_JAIL_FINE] if can_pay else [])
        for action in options:
            after = free.terms(apply(t.rules, st, me, action))
            if after.value > best_v and self._ok(base, after):
                best, best_v = action, after.value
        return best

    # --- debt ----------------------------------------------------------------------------------
    def _debt(self, obs: Observation) -> A.Action:
        me = obs.seat
        rules = self._played(obs)
        cash = obs.cash[me]
        if cash >= obs.owed:
            return CONCLUDE
        if cash + _liquidation(rules, obs, me) < obs.owed:
            return CONCLUDE  # hopeless: selling everything would not cover the debt
        t, st, ev, base = self._setup(obs)
        best: A.Action = CONCLUDE
        best_v = float("-inf")
        for action in self._legal(obs, rules):
            if type(action) not in (A.SellBuilding, A.Mortgage, A.SellProperty):
                continue
            v = ev.terms(apply(t.rules, st, me, action)).value
            if v > best_v:
                best, best_v = action, v
        return best

    # --- trades ------------------------------------------------------------------------------
    def _answer(self, obs: Observation) -> A.Action:
        me = obs.seat
        offer = obs.offer
        offerer = obs.offerer
        rules = self._played(obs)
        if legal.check_accept(rules, obs, me, offerer, offer) is not None:
            return A.REJECT
        if self.protect_sets and _hands_over_set(rules, obs.owner, me, offerer, offer):
            return A.REJECT
        t, st, ev, base = self._setup(obs)
        after = ev.terms(trade(t.rules, st, offerer, offer))
        if after.value > base.value + self.trade_margin and self._ok(base, after):
            return A.ACCEPT
        return A.REJECT

    def _note_answer(self, obs: Observation) -> None:
        """Learn whether the last offer was refused (then ask more next time)."""
        to, sq, amount = self._pending
        self._pending = None
        if obs.owner[sq] == obs.seat:
            self._asks.pop((to, sq), None)
            return
        price = self.tables(obs).rules.price[sq]
        nxt = max(amount + 1, amount + int(price * self.offer_step))
        self._asks[(to, sq)] = (nxt, self._my_turns)

    def _targets_for(self, obs: Observation) -> list[tuple[int, int]]:
        """(owner, square) pairs worth an offer (cached per ownership tuple): see the
        module docstring for which."""
        rules = self._played(obs)
        if obs.owner is self._targets_key and rules is self._targets_rules:
            return self._targets
        self._targets_rules = rules
        owner = obs.owner
        me = obs.seat
        out = []
        players = len(obs.cash)
        for g, members in enumerate(rules.group_members):
            need = rules.group_need[g]
            if need < 2:
                continue
            counts = [0] * players
            for m in members:
                if owner[m] >= 0:
                    counts[owner[m]] += 1
            mine = counts[me]
            if mine >= need:
                continue
            toward = mine > 0 and need - mine <= self.offer_reach
            for m in members:
                o = owner[m]
                if o < 0 or o == me or not obs.active[o] or counts[o] >= need:
                    continue  # nobody's, or the owner holds a set here: it will not sell
                block = self.offer_block and any(
                    counts[q] == need - 1 for q in range(players) if q != me and q != o)
                if toward or block:
                    out.append((o, m))
        self._targets_key = owner
        self._targets = out
        self._asks = {k: v for k, v in self._asks.items() if owner[k[1]] == k[0]}
        return out

    def _offer(self, obs: Observation) -> A.Action | None:
        if self._pending is not None:
            self._note_answer(obs)
        if self._offer_turn != obs.turn:
            self._offer_turn = obs.turn
            self._offers_this_turn = 0
        if self._offers_this_turn >= self.max_offers_per_turn or not obs.can_offer_trade:
            return None
        targets = self._targets_for(obs)
        if not targets:
            return None
        me = obs.seat
        rules = self._played(obs)
        setup = None
        best = None
        best_gain = 0.0
        for to, sq in targets:
            ask, when = self._asks.get((to, sq), (0, -1))
            if when >= 0 and self._my_turns - when < self.retry_turns:
                continue
            if setup is None:
                setup = self._setup(obs)
            t, st, ev, base = setup
            amount = max(ask, int(t.rules.price[sq] * self.offer_start))
            offer = A.OfferTrade(to, get=(sq,), give_cash=amount)
            if legal.check_offer(rules, obs, me, offer) is not None:
                continue
            after = ev.terms(trade(t.rules, st, me, offer))
            gain = after.value - base.value - self.trade_margin
            if gain > best_gain and self._ok(base, after):
                best, best_gain = offer, gain
        if best is None:
            return None
        self._pending = (best.to, best.get[0], best.give_cash)
        self._offers_this_turn += 1
        return best


def _liquidation(rules, obs: Observation, seat: int) -> int:
    """Cash the bank would give for everything `seat` owns (buildings, mortgages, sales)."""
    total = 0
    refund = rules.property_refund
    for sq in rules.properties:
        if obs.owner[sq] != seat:
            continue
        lv = obs.level[sq]
        total += lv * rules.building_refund[sq]
        if not obs.mortgaged[sq]:
            total += max(rules.mortgage[sq], refund[sq] if refund is not None else 0)
    return total


def _hands_over_set(rules, owner: tuple[int, ...], me: int, offerer: int,
                    offer: A.OfferTrade) -> bool:
    """Whether accepting gives the offerer a set it lacks while g1 gains none."""
    new = list(owner)
    for sq in offer.give:
        new[sq] = me
    for sq in offer.get:
        new[sq] = offerer

    def sets(own, seat: int) -> int:
        return sum(1 for g, members in enumerate(rules.group_members)
                   if members and sum(own[m] == seat for m in members) >= rules.group_need[g])

    return sets(new, offerer) > sets(owner, offerer) and sets(new, me) <= sets(owner, me)
