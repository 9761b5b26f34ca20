"""The game loop: the official US rules with the papers' phase structure on top.

`Game.run()` is a generator: it yields `(seat, Decision)` whenever a player must
decide and receives the chosen action through `send`. `openmono.play.play_game` drives
it with agent objects as fast as possible; step-wise adapters (RL environments, remote
agents) drive the same generator one decision at a time. Every action is checked by
`openmono.legal.check`; an illegal one is replaced by the phase's default and recorded
as a `Fault` event. A player's standing order (`Conclude(until_cash=...)`, see
`openmono.actions`) answers its management phases without a yield while it holds.

Turn: pre-roll (active player manages: build, sell, mortgage, trade, leave jail) ->
out-of-turn rounds (every other player in seat order) -> roll and move (doubles roll
again, the third double goes to jail) -> landing (rent, tax, cards, buy or auction) ->
post-roll (manage) -> again after doubles. A payment a player cannot make opens a debt
phase; if the player still cannot pay, it goes bankrupt to its creditor.
"""

from __future__ import annotations

import inspect
import random
from typing import Any, Generator

from openmono import actions as A
from openmono import events as E
from openmono import legal
from openmono.compiled import CARD, GO_TO_JAIL, PLUGIN, STREET, TAX, UTILITY, Rules, compile_rules
from openmono.events import BANK
from openmono.game_api import GameAPI
from openmono.hooks import NO_HOOKS, Hooks
from openmono.kinds import CARD_KINDS, SQUARE_KINDS
from openmono.decision import AgentFault, Decision, shared
from openmono.observation import Observation, public_rules
from openmono.observe import extra_legality, observe
from openmono.schema import GameSchema
from openmono.seeding import seed_sequence_words
from openmono.standing import LASTING, StandingOrder
from openmono.state import (NOBODY, GameState, after_build, after_sell_building,
                            has_monopoly, hotel_breakdown, net_worth, owned_in_group,
                            sale_value)

Request = tuple[int, "Decision"]
_new_tuple = tuple.__new__  # builds a NamedTuple (observation, hot events) without its slow __new__
_CORE_ACTIONS = frozenset(A.ACTION_KINDS.values())  # checked before `isinstance`
# Debt actions that always remove something: they never use up a phase's action cap.
_LIQUIDATING = frozenset((A.SellBuilding, A.Mortgage, A.SellProperty))
# The contextless decisions asked at every turn, built once.
_PRE_ROLL = shared("pre_roll")
_OUT_OF_TURN = shared("out_of_turn")
_POST_ROLL = shared("post_roll")

# What a throw of the dice leads to (`Game._roll`).
_MOVE, _AGAIN, _STAY, _PAY_FINE, _SERVED = "move", "again", "stay", "pay_fine", "served"
_BUY: dict[int, Decision] = {}  # per square


class _GameOver(Exception):
    pass


MAX_SEATS = 16


_LAST_WORDS: list = [None, []]


def _seed_words(seed: int, count: int) -> list[int]:
    """The first `count` words of `SeedSequence(seed)`, with a one-seed cache: a game
    asks for its seat order and then for its streams, and hashing the seed is slow."""
    last = _LAST_WORDS
    if last[0] == seed and len(last[1]) >= count and type(seed) is int:
        return last[1]
    words = seed_sequence_words(seed, max(count, 2 + MAX_SEATS + 8))
    last[0], last[1] = seed, words
    return words


def stream_seeds(seed: int, players: int, decks: int) -> dict[str, int]:
    """Independent seeds per purpose, all drawn from one `SeedSequence(seed)`.

    Words of `generate_state` are prefix-stable, and each purpose has a fixed slot
    (dice 0, seats 1, agents 2.., decks after MAX_SEATS agent slots), so the dice
    stream never depends on the number of decks or players: the same game seed rolls
    the same dice with and without a novelty (common random numbers).
    """
    if players > MAX_SEATS:
        raise ValueError(f"at most {MAX_SEATS} players")
    words = _seed_words(seed, 2 + MAX_SEATS + decks)
    out = {"dice": words[0], "seats": words[1]}
    for i in range(players):
        out[f"agent{i}"] = words[2 + i]
    for i in range(decks):
        out[f"deck{i}"] = words[2 + MAX_SEATS + i]
    return out


class Game:
    """One game between `players` seats on a schema."""

    def __init__(self, schema: GameSchema, players: int = 4, seed: int = 0,
                 hooks: Hooks = NO_HOOKS, shown: GameSchema | None = None) -> None:
        """`shown`: the rules agents are shown when they differ from the true ones (a
        novelty under `effects` observability; see `novelties.observability`)."""
        if players < 2:
            raise ValueError("a game needs at least two players")
        self.schema = schema
        self.hooks = hooks
        self.rules: Rules = compile_rules(schema, hooks)
        self.shown = shown
        self.public = public_rules(self.rules if shown is None else compile_rules(shown))
        self.extra_legality = extra_legality(self.rules)  # see `openmono.observe`
        self.players = players
        self.seed = seed
        self.seeds = stream_seeds(seed, players, len(self.rules.decks))
        self.dice_rng = random.Random(self.seeds["dice"])
        self.state = GameState(self.rules, players)
        for i in range(len(self.state.decks)):
            self.state.shuffle(i, random.Random(self.seeds[f"deck{i}"]))
        self.events: list[Any] = []
        self.seen = [0] * players  # per seat: events it has been shown
        # Per seat: the other seats in the order they act after it.
        self._after = [tuple((p + k) % players for k in range(1, players))
                       for p in range(players)]
        self.winner: int | None = None
        self.end_reason: str | None = None
        self.bankrupt_order: list[int] = []
        self.trades = self.auctions = self.faults = self.decisions = 0
        self.turn_boundary: list[Any] = []  # callables run between turns (injection)
        # Per management phase, per seat: its standing order or None (see
        # `A.Conclude.until_cash` and `_stand`).
        self._standing: dict[str, list[StandingOrder | None]] = {
            phase: [None] * players for phase in legal.MANAGE_PHASES}
        # Orders that never lapse (`drive` makes them of fixed Conclude answers).
        self._lasting: dict[str, list[StandingOrder | None]] = {}
        # Per seat: the trade offer waiting for its answer (`trade_answer="next_turn"`).
        self.pending_offers: list[tuple[int, A.OfferTrade] | None] = [None] * players
        self.transform = hooks.observation  # a novelty may change what agents see
        self._turn_end = _acts_at_turn_end(self.rules, hooks)
        self.api = GameAPI(self)  # what plugin hooks and handlers receive

    def replace_rules(self, schema: GameSchema, hooks: Hooks = NO_HOOKS,
                      shown: GameSchema | None = None) -> None:
        """Swap the rules between two turns (mid-game novelty injection).

        The caller repairs `state` to fit the new rules (see `novelties.inject`). Keep
        the derived fields in step with `__init__`.
        """
        self.schema = schema
        self.hooks = hooks
        self.rules = compile_rules(schema, hooks)
        self.shown = shown
        self.public = public_rules(self.rules if shown is None else compile_rules(shown))
        self.extra_legality = extra_legality(self.rules)  # see `openmono.observe`
        self.invalidate_observations()
        self.transform = hooks.observation  # a novelty may change what agents see
        self._turn_end = _acts_at_turn_end(self.rules, hooks)

    # --- observation ----------------------------------------------------------------
    def observe(self, seat: int, d: Decision) -> Observation:
        """What `seat` sees at decision `d` (`openmono.observe.observe`)."""
        return observe(self, seat, d)

    def drive(self, acts: list[Any], fixed: list[dict[str, Any] | None],
              on_fault: Any, on_decision: Any = None) -> None:
        """Play the whole game with one `act(observation)` callable per seat (the loop
        `openmono.play` runs). `fixed[seat]` maps phases to the answers that seat
        declared in advance (see `agents.base`); `on_fault(seat)` is told of every
        fault; `on_decision(seat, phase, action)`, if given, of every answer (logs).
        """
        if on_decision is None:
            # A fixed Conclude out of turn or after the roll is an order that never
            # lapses: the turn loop answers it without a generator round trip. (Logged
            # games go through `on_decision` for every answer, so replays see them.)
            for phase in ("out_of_turn", "post_roll"):
                lasting = [LASTING if answers is not None and answers.get(phase) == A.CONCLUDE
                           else None for answers in fixed]
                if any(lasting):
                    self._lasting[phase] = lasting
                    self._standing[phase][:] = lasting
                    # What is left of those seats' fixed answers stays with this loop.
                    fixed = [answers if order is None
                             else {k: v for k, v in answers.items() if k != phase} or None
                             for answers, order in zip(fixed, lasting)]
        gen = self.run()
        send = gen.send
        see = observe  # (a local: read once per decision)
        try:
            seat, d = next(gen)
            while True:
                answers = fixed[seat]
                if answers is not None and d.phase in answers:
                    action = answers[d.phase]
                    if on_decision is not None:
                        on_decision(seat, d.phase, action)
                    seat, d = send(action)
                    continue
                obs = see(self, seat, d)
                try:
                    action = acts[seat](obs)
                except Exception as exc:  # noqa: BLE001 - an agent must never crash a game
                    action = AgentFault(f"raised {type(exc).__name__}: {exc}")
                if type(action) not in _CORE_ACTIONS and not isinstance(action, A.Action):
                    if not isinstance(action, AgentFault):
                        action = AgentFault(f"returned {type(action).__name__}, not an Action")
                    on_fault(seat)
                if on_decision is not None:
                    on_decision(seat, d.phase, action)
                seat, d = send(action)
        except StopIteration:
            pass

    def invalidate_observations(self) -> None:
        """Call after editing `state` directly (tests, injections) mid-game. Standing
        orders lapse too: they were given under the old state and rules."""
        self.state.touch()
        for phase, orders in self._standing.items():
            orders[:] = self._lasting.get(phase) or [None] * self.players

    def _stand(self, seat: int, d: Decision, action: A.Conclude) -> None:
        """Record the standing order a Conclude carries, if any: the turn loop answers
        for the seat while it `holds` (`openmono.standing`)."""
        until = action.until_cash
        orders = self._standing.get(d.phase)
        if until is None or orders is None:
            return
        st = self.state
        watch = action.watch
        if type(until) is not int or watch not in A.STANDING_WATCH:
            self.faults += 1
            self.events.append(E.Fault(
                seat, d.phase, f"ignored standing order until_cash={until!r}, watch="
                f"{watch!r}: the limit must be an int, watch one of {A.STANDING_WATCH}"))
            return
        if watch == "mine":
            orders[seat] = StandingOrder(until, st.holdings_version, seat)
        else:
            orders[seat] = StandingOrder(until, st.board_version, 0)

    def legal_actions(self, seat: int, d: Decision) -> list[A.Action]:
        return legal.legal_actions(self.rules, self.state, seat, d)

    # --- the decision point -----------------------------------------------------------
    @property
    def stats(self) -> dict[str, int]:
        return {"trades": self.trades, "auctions": self.auctions, "faults": self.faults,
                "decisions": self.decisions}

    def _validate(self, seat: int, d: Decision, action: Any) -> A.Action:
        self.decisions += 1
        if type(action) is AgentFault:
            reason = action.reason
        else:
            try:
                reason = legal.check(self.rules, self.state, seat, d, action)
            except Exception as exc:  # a malformed action must not crash the game
                reason = f"malformed action {action!r}: {exc}"
            if reason is None:
                return action
            reason = f"illegal {getattr(action, 'kind', type(action).__name__)}: {reason}"
        self.faults += 1
        self.events.append(E.Fault(seat, d.phase, reason))
        return legal.DEFAULT_ACTION[d.phase]

    # --- main loop -----------------------------------------------------------------------
    def run(self) -> Generator[Request, Any, None]:
        """The game: turns until one player is left, the turn limit, or a rule ends it.

        This loop keeps only the order of play; each step is a method below. A turn:
        pre-roll (the player manages) -> out-of-turn rounds (every other player in seat
        order, until all pass) -> roll and move (doubles roll again, the third double
        goes to jail) -> landing -> post-roll -> again after doubles -> end of turn.
        The pre- and post-roll asks stay in this frame: they are most decisions of
        every game, and a sub-generator would add its cost to each of them.
        """
        st = self.state
        active = st.active
        cash = st.cash
        plain = A.CONCLUDE
        pre_orders = self._standing["pre_roll"]  # (the lists live as long as the game)
        post_orders = self._standing["post_roll"]
        waiting = self.pending_offers  # offers waiting for their receiver's phase
        try:
            while True:
                if self.turn_boundary:
                    self._between_turns()
                if st.turn >= self.rules.bank.turn_limit:
                    self._finish_by_net_worth()
                    return
                p = st.current
                self.events.append(_new_tuple(E.TurnStarted, (p, st.begin_turn())))
                jailed_at_start = st.in_jail[p]
                # --- pre-roll
                if waiting[p] is not None:
                    yield from self._answer_pending(p)
                order = pre_orders[p]
                pre_acted = False
                if order is not None and order.holds(cash[p]) and not st.in_jail[p]:
                    self.decisions += 1  # p's standing order answers: Conclude
                else:  # (in jail the pre-roll is always asked)
                    pre_orders[p] = None
                    action = yield p, _PRE_ROLL
                    if action is plain:
                        self.decisions += 1
                    else:  # actions, or a Conclude with a standing order
                        pre_acted = yield from self._manage(p, _PRE_ROLL, action)
                # --- out of turn
                yield from self._out_of_turn(p, pre_acted)
                # --- roll, move, land, post-roll; again after doubles
                released_before_roll = jailed_at_start and not st.in_jail[p]
                while True:
                    total, step = self._roll(p, released_before_roll)
                    if step is _SERVED:
                        break
                    if step is _PAY_FINE:
                        yield from self._charge(p, BANK, self.rules.bank.jail_fine, "jail_fine")
                        if not active[p]:
                            break
                        self._release(p, "forced_fine")
                    if step is not _STAY:
                        end = self._move(p, total, "dice", True)
                        if self._lands(p, end):
                            yield from self._land(p, end, total)
                            if not active[p]:
                                break
                    order = post_orders[p]
                    if order is not None and order.holds(cash[p]):
                        self.decisions += 1  # p's standing order answers: Conclude
                    else:
                        post_orders[p] = None
                        action = yield p, _POST_ROLL
                        if action is plain:
                            self.decisions += 1
                        else:  # actions, or a Conclude with a standing order
                            yield from self._manage(p, _POST_ROLL, action)
                    if step is not _AGAIN or st.in_jail[p] or not active[p]:
                        break
                # --- end of turn
                # (Most rule sets do nothing at the end of a turn: no generator for them.)
                if self._turn_end and (yield from self._end_of_turn(p)):
                    return
                st.pass_to(self._next_player(p))
        except _GameOver:
            return

    def _between_turns(self) -> None:
        """Run the callables waiting for a turn boundary (mid-game injections)."""
        # Snapshot first: a callable may re-arm itself for a later boundary.
        pending = self.turn_boundary[:]
        self.turn_boundary.clear()
        for fn in pending:
            fn(self)
        self.invalidate_observations()

    def _roll(self, p: int, released_before_roll: bool) -> tuple[int, object]:
        """Throw the dice for `p` and apply jail and doubles: (dice total, what next:
        `_MOVE`, `_AGAIN` (move, then roll again), `_STAY` (no move), `_PAY_FINE`
        (pay the fine, then move) or `_SERVED` (the turn ends))."""
        st = self.state
        bank = self.rules.bank
        dice = self.rules.roll(self.dice_rng)
        if self.hooks.dice_roll is not None:
            dice = tuple(self.hooks.dice_roll(self.api, p, dice))
        self.events.append(_new_tuple(E.DiceRolled, (p, dice)))
        total = sum(dice)
        double = (dice[0] == dice[1] if len(dice) == 2
                  else len(dice) > 1 and min(dice) == max(dice))
        if st.in_jail[p]:
            if bank.jail == "skip_turn":  # the one turn lost: no move, no post-roll
                self._release(p, "served")
                return total, _SERVED
            st.wait_in_jail(p)
            if double:
                self._release(p, "doubles")
                return total, _MOVE
            if st.jail_turns[p] >= bank.max_jail_turns:
                return total, _PAY_FINE
            return total, _STAY
        if double and bank.doubles_roll_again and (
                bank.jail_exit_roll_again or not released_before_roll):
            if bank.doubles_to_jail and st.count_double() >= bank.doubles_to_jail:
                self._jail(p, "doubles")
                return total, _STAY
            return total, _AGAIN
        return total, _MOVE

    def _lands(self, p: int, sq: int) -> bool:
        """Whether landing on `sq` can do anything (most squares, most of the time,
        do nothing: the turn then skips the landing sub-generator)."""
        rules = self.rules
        if not rules.quiet[sq]:
            return True
        st = self.state
        o = st.owner[sq]
        return rules.is_property[sq] and (o == NOBODY or (o != p and not st.mortgaged[sq]))

    def _end_of_turn(self, p: int) -> Generator[Request, Any, bool]:
        """Negative cash settled, the plugins' end-of-turn effects, the rules that end a
        game between turns; True when the game is over."""
        st = self.state
        bank = self.rules.bank
        if bank.debt == "negative_cash" and st.active[p] and st.cash[p] < 0:
            yield from self._settle_negative_cash(p)
        end_hook = self.hooks.end_of_turn
        if end_hook is not None and st.active[p]:
            yield from _maybe_gen(end_hook(self.api, p))
        decide = self.hooks.game_over
        if decide is not None:
            w = decide(self.api)
            if w is not None:
                self._finish(w, "rule")
                return True
        if bank.cash_cap is not None and max(st.cash) > bank.cash_cap:
            told = self.shown is None or self.shown.bank.cash_cap is not None
            self._finish_by_net_worth("cash_cap" if told else "rule")
            return True
        return False

    def _next_player(self, p: int) -> int:
        """Whose turn follows `p`'s: the next active seat (p itself if it is the last)."""
        active = self.state.active
        for q in self._after[p]:
            if active[q]:
                return q
        return p

    def _out_of_turn(self, p: int, pre_acted: bool) -> Generator[Request, Any, None]:
        """The out-of-turn phases after `p`'s pre-roll: rounds in seat order until all
        pass (`BankRules.out_of_turn_rounds`), or calls (`out_of_turn_calls`)."""
        st = self.state
        bank = self.rules.bank
        if bank.out_of_turn_calls is not None:
            yield from self._out_of_turn_calls(p, bank.out_of_turn_calls, pre_acted)
            return
        active = st.active
        cash = st.cash
        waiting = self.pending_offers
        orders = self._standing["out_of_turn"]
        conclude = A.Conclude
        plain = A.CONCLUDE
        concluded = 0  # decisions answered by Conclude, added to the count once
        for _ in range(bank.out_of_turn_rounds):
            anyone = False
            for q in self._after[p]:
                if active[q]:
                    if waiting[q] is not None:
                        yield from self._answer_pending(q)
                    order = orders[q]
                    if order is not None:
                        # q told us it concludes until its cash reaches a limit or what it
                        # watches changes: answer for it.
                        if order.holds(cash[q]):
                            concluded += 1
                            continue
                        orders[q] = None
                    action = yield q, _OUT_OF_TURN
                    if type(action) is conclude:
                        concluded += 1
                        if action is not plain:
                            self._stand(q, _OUT_OF_TURN, action)
                        continue
                    self.decisions += concluded  # exact even if the game ends in there
                    concluded = 0
                    if (yield from self._manage(q, _OUT_OF_TURN, action)):
                        anyone = True
            if not anyone:
                break
        self.decisions += concluded

    def _finish(self, winner: int, reason: str) -> None:
        self.winner = winner
        self.end_reason = reason
        self.events.append(E.GameOver(winner, reason, self.state.turn))

    def _finish_by_net_worth(self, reason: str = "turn_limit") -> None:
        """Turn limit: highest net worth wins; ties go to more cash, then to the earlier seat."""
        st = self.state
        alive = [s for s in range(self.players) if st.active[s]]
        best = max(alive, key=lambda s: (net_worth(self.rules, st, s), st.cash[s], -s))
        self._finish(best, reason)

    def _out_of_turn_calls(self, p: int, calls: int,
                           pre_acted: bool) -> Generator[Request, Any, None]:
        """Out-of-turn phases bounded by calls (`BankRules.out_of_turn_calls`): cycle
        from the player after `p` through every seat, `p` included, for at most `calls`
        calls (a bankrupt seat uses one up) until as many calls in a row as there are
        players left end without an action; p's pre-roll counts as the first."""
        st = self.state
        active = st.active
        cash = st.cash
        orders = self._standing["out_of_turn"]
        players = self.players
        left = sum(active)
        passes = 0 if pre_acted else 1
        q = p
        count = 0
        while passes != left and count < calls:
            count += 1
            q = (q + 1) % players
            if not active[q]:
                continue
            if self.pending_offers[q] is not None:
                yield from self._answer_pending(q)
            order = orders[q]
            if order is not None:
                if order.holds(cash[q]):
                    self.decisions += 1
                    passes += 1
                    continue
                orders[q] = None
            action = yield q, _OUT_OF_TURN
            if type(action) is A.Conclude:
                self.decisions += 1
                if action is not A.CONCLUDE:
                    self._stand(q, _OUT_OF_TURN, action)
                passes += 1
                continue
            acted = yield from self._manage(q, _OUT_OF_TURN, action)
            passes = 0 if acted else passes + 1
            left = sum(active)

    def _settle_negative_cash(self, seat: int) -> Generator[Request, Any, None]:
        """`debt="negative_cash"`: at the end of its own turn a player below $0 raises
        cash (a debt phase owing $0 more than nothing) or goes bankrupt to the bank."""
        yield from self._raise_cash(seat, 0, BANK)
        if self.state.cash[seat] < 0:
            yield from self._bankrupt(seat, BANK)

    def _manage(self, seat: int, d: Decision, action: Any) -> Generator[Request, Any, bool]:
        """A management phase from its first answer (anything but a plain Conclude):
        execute actions until Conclude, recording the standing order a Conclude may
        carry. Returns whether anything was done."""
        acted = False
        active = self.state.active
        for _ in range(self.rules.bank.max_actions_per_phase):
            action = self._validate(seat, d, action)
            if type(action) is A.Conclude:
                if action.until_cash is not None:
                    self._stand(seat, d, action)
                break
            acted = True
            if d.shared and type(action) is A.OfferTrade:
                d = Decision(d.phase)  # this phase now counts its trade offers
            yield from self._execute(seat, action, d)
            if not active[seat]:
                break
            action = yield seat, d
        return acted

    # --- executing management actions ------------------------------------------------------
    def _execute(self, seat: int, action: A.Action, d: Decision) -> Generator[Request, Any, None]:
        t = type(action)
        st = self.state
        rules = self.rules
        if t is A.Build:
            if rules.bank.building_shortage == "auction" and self._bidders(seat, action.square):
                yield from self._building_auction(seat, action.square)
            else:
                self._build(seat, action.square)
        elif t is A.SellBuilding:
            self._sell_building(seat, action.square, "sold")
        elif t is A.Mortgage:
            sq = action.square
            st.set_mortgaged(sq, True)
            self._pay(BANK, seat, rules.mortgage[sq], "mortgage", sq)
            self.events.append(_new_tuple(E.MortgageChanged, (seat, sq, True)))
        elif t is A.Unmortgage:
            sq = action.square
            self._pay(seat, BANK, rules.unmortgage_cost[sq], "unmortgage", sq)
            st.set_mortgaged(sq, False)
            self.events.append(_new_tuple(E.MortgageChanged, (seat, sq, False)))
        elif t is A.SellProperty:
            sq = action.square
            self._pay(BANK, seat, sale_value(rules, st, sq), "sell_property", sq)
            if st.mortgaged[sq]:  # `BankRules.mortgaged_sellback`: foreclosed
                st.set_mortgaged(sq, False)
                self.events.append(_new_tuple(E.MortgageChanged, (seat, sq, False)))
            self._transfer_property(sq, seat, NOBODY, "sold_to_bank")
        elif t is A.OfferTrade:
            d.count_offer()
            yield from self._trade(seat, action)
        elif t is A.PayJailFine:
            self._pay(seat, BANK, rules.bank.jail_fine, "jail_fine")
            self._release(seat, "fine")
        elif t is A.UseJailCard:
            deck, card = st.give_up_jail_card(seat)
            st.put_back(deck, card)
            self.events.append(_new_tuple(E.JailCardMoved, (seat, BANK, rules.deck_names[deck])))
            self._release(seat, "card")
        else:
            plugin = A.PLUGIN_ACTIONS.get(action.kind)
            if plugin is not None:
                yield from _maybe_gen(plugin[2](self.api, seat, action))

    def _is_hotel(self, sq: int) -> bool:
        return self.state.level[sq] + 1 == self.rules.hotel_level

    def _can_build(self, q: int, hotel: bool) -> list[int]:
        """The streets where `q` could build a house (or a hotel) now."""
        st = self.state
        rules = self.rules
        return [s for s in rules.streets if st.owner[s] == q and self._is_hotel(s) == hotel
                and legal.check_build(rules, st, q, s) is None]

    def _bidders(self, seat: int, sq: int) -> list[int]:
        """The other players a building shortage makes `seat`'s building compete with:
        when the bank has fewer of the kind than the players able to build one now
        (official: such buildings are auctioned), else none."""
        st = self.state
        hotel = self._is_hotel(sq)
        stock = st.hotels_left if hotel else st.houses_left
        if stock >= self.players:
            return []
        able = [q for q in self._after[seat] if st.active[q] and self._can_build(q, hotel)]
        return able if stock < 1 + len(able) else []

    def _building_auction(self, seat: int, sq: int) -> Generator[Request, Any, None]:
        """Auction one building among the players able to build one: `seat`'s request
        stands as a bid at the bank's price; the others, then everyone outbid, may raise
        (English, in seat order) or drop out for good. The winner pays its bid."""
        st = self.state
        rules = self.rules
        hotel = self._is_hotel(sq)
        high, high_bidder = rules.house_cost[sq], seat
        bidders = [seat] + self._bidders(seat, sq)
        asks = 0
        while len(bidders) > 1 and asks < 2000:
            raised = False
            for q in list(bidders):
                if q == high_bidder:
                    continue
                if st.cash[q] <= high:
                    bidders.remove(q)
                    continue
                asks += 1
                d = Decision("building_bid", square=sq, high_bid=high, high_bidder=high_bidder)
                action = self._validate(q, d, (yield q, d))
                if type(action) is A.Bid:
                    high, high_bidder, raised = action.amount, q, True
                else:
                    bidders.remove(q)
            if not raised:
                break
        where = sq
        if high_bidder != seat:
            d = Decision("place_building", square=sq, high_bid=high)
            action = self._validate(high_bidder, d, (yield high_bidder, d))
            where = -1
            if type(action) is A.Build and self._is_hotel(action.square) == hotel:
                where = action.square
            else:
                streets = self._can_build(high_bidder, hotel)
                where = streets[0] if streets else -1
        if where < 0 or st.cash[high_bidder] < high:
            return
        self._build(high_bidder, where, None if high_bidder == seat and high == rules.house_cost[sq]
                    else high)  # no one raised: an ordinary purchase

    def _build(self, seat: int, sq: int, price: int | None = None) -> None:
        st = self.state
        rules = self.rules
        lv, houses_left, hotels_left = after_build(
            rules, st.level[sq], st.houses_left, st.hotels_left)
        st.set_stock(houses_left, hotels_left)
        if price is None:
            self._pay(seat, BANK, rules.house_cost[sq], "build", sq)
        else:
            self._pay(seat, BANK, price, "building_auction", sq)
        st.set_level(sq, lv)
        self.events.append(_new_tuple(E.BuildingChanged, (seat, sq, lv, "built")))

    def _sell_building(self, seat: int, sq: int, reason: str) -> None:
        """Sell one level. A hotel the bank cannot replace by houses is never broken
        down unevenly: the group comes down together (`state.hotel_breakdown`)."""
        st = self.state
        rules = self.rules
        lv = st.level[sq]
        if lv == rules.hotel_level and rules.bank.hotel_sale == "whole":
            st.set_level(sq, 0)
            st.set_stock(st.houses_left, st.hotels_left + 1)
            self._pay(BANK, seat, lv * rules.building_refund[sq], "sell_building", sq)
            self.events.append(_new_tuple(E.BuildingChanged, (seat, sq, 0, reason)))
            return
        if (lv == rules.hotel_level and rules.bank.even_build
                and st.houses_left < rules.hotel_level - 1):
            streets = [m for m in rules.group_members[rules.group_of[sq]]
                       if st.owner[m] == seat and rules.is_street[m]]
            levels, houses_left, hotels_left = hotel_breakdown(
                rules, [st.level[m] for m in streets], streets.index(sq),
                st.houses_left, st.hotels_left)
            st.set_stock(houses_left, hotels_left)
            for m, new in zip(streets, levels):
                old = st.level[m]
                if new != old:
                    st.set_level(m, new)
                    self._pay(BANK, seat, (old - new) * rules.building_refund[m],
                              "sell_building", m)
                    self.events.append(_new_tuple(E.BuildingChanged, (seat, m, new, reason)))
            return
        new, removed, houses_left, hotels_left = after_sell_building(
            rules, lv, st.houses_left, st.hotels_left)
        st.set_stock(houses_left, hotels_left)
        st.set_level(sq, new)
        self._pay(BANK, seat, removed * rules.building_refund[sq], "sell_building", sq)
        self.events.append(_new_tuple(E.BuildingChanged, (seat, sq, new, reason)))

    # --- trades -------------------------------------------------------------------------------
    def _trade(self, seat: int, action: A.OfferTrade) -> Generator[Request, Any, None]:
        # The engine keeps and executes an immutable copy of the terms: the events and
        # the receiver see the same value, and nobody can change it afterwards.
        offer = action.terms()
        to = offer.to
        if self.rules.bank.trade_answer == "next_turn":
            if self.pending_offers[to] is not None:  # one outstanding offer per player
                self.events.append(_new_tuple(E.TradeAnswered, (offer, seat, False)))
                return
            self.events.append(_new_tuple(E.TradeOffered, (offer, seat)))
            self.pending_offers[to] = (seat, offer)
            return
        self.events.append(_new_tuple(E.TradeOffered, (offer, seat)))
        yield from self._answer(seat, offer)

    def _answer_pending(self, to: int) -> Generator[Request, Any, None]:
        """The receiver's answer to the offer that waited for its phase."""
        seat, offer = self.pending_offers[to]
        self.pending_offers[to] = None
        if not self.state.active[seat]:
            self.events.append(_new_tuple(E.TradeAnswered, (offer, seat, False)))
            return
        yield from self._answer(seat, offer)

    def _answer(self, seat: int, offer: A.OfferTrade) -> Generator[Request, Any, None]:
        to = offer.to
        d = Decision("trade_response", offer=offer, offerer=seat)
        answer = yield to, d
        answer = self._validate(to, d, answer)
        accepted = type(answer) is A.AcceptTrade
        if accepted and legal.check_accept(self.rules, self.state, to, seat, offer) is not None:
            accepted = False  # the receiver cannot pay its side: the trade fails
        self.events.append(_new_tuple(E.TradeAnswered, (offer, seat, accepted)))
        if accepted:
            if self.rules.bank.mortgaged_transfer == "choose" and (
                    legal.trade_fees(self.rules, self.state, offer.give + offer.get)):
                lift_to = [sq for sq in offer.give if self.state.mortgaged[sq]]
                lift_seat = [sq for sq in offer.get if self.state.mortgaged[sq]]
                self._execute_trade(seat, offer, fees=False)
                yield from self._receive_mortgaged(to, lift_to, legal_fee=False)
                yield from self._receive_mortgaged(seat, lift_seat, legal_fee=False)
            else:
                self._execute_trade(seat, offer)

    def _receive_mortgaged(self, seat: int, squares: list[int],
                           legal_fee: bool) -> Generator[Request, Any, None]:
        """Official rule for a mortgaged property received: per property, the new owner
        lifts the mortgage at once (mortgage + interest) or pays the interest now. With
        `legal_fee` the interest may open a debt phase (bankruptcy); after a trade the
        receiver's cash was checked when it accepted."""
        st = self.state
        rules = self.rules
        for sq in squares:
            if not st.active[seat] or st.owner[sq] != seat or not st.mortgaged[sq]:
                continue
            d = Decision("lift_mortgage", square=sq)
            action = self._validate(seat, d, (yield seat, d))
            if type(action) is A.Unmortgage:
                self._pay(seat, BANK, rules.unmortgage_cost[sq], "unmortgage", sq)
                st.set_mortgaged(sq, False)
                self.events.append(_new_tuple(E.MortgageChanged, (seat, sq, False)))
            elif legal_fee:
                yield from self._charge(seat, BANK, rules.transfer_fee[sq],
                                        "mortgage_transfer_fee", sq)
            else:
                self._pay(seat, BANK, rules.transfer_fee[sq], "mortgage_transfer_fee", sq)

    def _execute_trade(self, seat: int, offer: A.OfferTrade, fees: bool = True) -> None:
        st = self.state
        rules = self.rules
        to = offer.to
        fees_to = legal.trade_fees(rules, st, offer.give) if fees else 0
        fees_seat = legal.trade_fees(rules, st, offer.get) if fees else 0
        if offer.give_cash:
            self._pay(seat, to, offer.give_cash, "trade")
        if offer.get_cash:
            self._pay(to, seat, offer.get_cash, "trade")
        for sq in offer.give:
            self._transfer_property(sq, seat, to, "trade")
        for sq in offer.get:
            self._transfer_property(sq, to, seat, "trade")
        if fees_to:
            self._pay(to, BANK, fees_to, "mortgage_transfer_fee")
        if fees_seat:
            self._pay(seat, BANK, fees_seat, "mortgage_transfer_fee")
        for _ in range(offer.give_jail_cards):
            self._move_jail_card(seat, to)
        for _ in range(offer.get_jail_cards):
            self._move_jail_card(to, seat)
        self.trades += 1

    def _move_jail_card(self, src: int, dst: int) -> None:
        card = self.state.give_up_jail_card(src)
        self.state.hold_jail_card(dst, card)
        self.events.append(_new_tuple(E.JailCardMoved, (src, dst, self.rules.deck_names[card[0]])))

    # --- money -----------------------------------------------------------------------------------
    def _pay(self, payer: int, payee: int, amount: int, reason: str, sq: int = -1) -> None:
        """Move cash that is known to be there (callers check first)."""
        if amount <= 0:
            return
        self.state.pay(payer, payee, amount)
        self.events.append(_new_tuple(E.Payment, (payer, payee, amount, reason, sq)))

    def charge(self, payer: int, payee: int, amount: int, reason: str,
               sq: int = -1) -> Generator[Request, Any, bool]:
        """Make `payer` pay; a shortfall opens a debt phase, then bankruptcy.

        Returns True when paid. Plugins use this from their handlers with `yield from`.
        """
        return self._charge(payer, payee, amount, reason, sq)

    def pay_from_bank(self, seat: int, amount: int, reason: str, sq: int = -1) -> None:
        """The bank pays `seat`, past its reserve if it has one (`BankRules.bank_cash`).
        For plugin effects and repairs."""
        self._pay(BANK, seat, amount, reason, sq)

    def _charge(self, payer: int, payee: int, amount: int, reason: str,
                sq: int = -1) -> Generator[Request, Any, bool]:
        if amount <= 0:
            return True
        st = self.state
        if payer == BANK:
            self._pay(BANK, payee, amount, reason, sq)
            return True
        if st.cash[payer] < amount and self.rules.bank.debt != "negative_cash":
            yield from self._raise_cash(payer, amount, payee)
            if st.cash[payer] < amount:
                yield from self._bankrupt(payer, payee)
                return False
        if payee != BANK and not st.active[payee]:
            payee = BANK
        self._pay(payer, payee, amount, reason, sq)
        return True

    def _raise_cash(self, seat: int, amount: int, creditor: int) -> Generator[Request, Any, None]:
        """The debt phase. Selling buildings, mortgaging and selling property to the
        bank do not count against `max_actions_per_phase` (each removes something, so
        they end by themselves); when the other actions use the cap up, the engine
        liquidates for a player who can pay (`_force_liquidation`). A Conclude while
        short is the player's own declaration of bankruptcy."""
        st = self.state
        d = Decision("debt", owed=amount, creditor=creditor)
        limit = self.rules.bank.debt_action_limit
        budget = self.rules.bank.max_actions_per_phase if limit is None else limit
        while st.cash[seat] < amount:
            if budget <= 0:
                if limit is None:
                    self._force_liquidation(seat, amount)
                return
            action = yield seat, d
            action = self._validate(seat, d, action)
            t = type(action)
            if t is A.Conclude:
                return
            if t not in _LIQUIDATING or limit is not None:
                budget -= 1
            yield from self._execute(seat, action, d)
            if not st.active[seat]:
                return

    def liquidation_value(self, seat: int) -> int:
        """Cash `seat` could raise from the bank now: every building sold, every
        unmortgaged property mortgaged (or sold, when the bank pays more for it)."""
        rules = self.rules
        st = self.state
        refund = rules.property_refund
        total = 0
        for sq in rules.properties:
            if st.owner[sq] != seat:
                continue
            total += st.level[sq] * rules.building_refund[sq]
            if not st.mortgaged[sq]:
                m = rules.mortgage[sq]
                total += m if refund is None or refund[sq] <= m else refund[sq]
        return total

    def _force_liquidation(self, seat: int, amount: int) -> None:
        """Raise `amount` for a player whose debt phase ran out of actions, if its
        assets cover it: buildings first (evenly, the most expensive group first),
        then mortgages (or sales to the bank when it pays more), in board order."""
        st = self.state
        rules = self.rules
        if st.cash[seat] + self.liquidation_value(seat) < amount:
            return
        while st.cash[seat] < amount:
            built = [sq for sq in rules.streets if st.owner[sq] == seat and st.level[sq]
                     and legal.check_sell_building(rules, st, seat, sq) is None]
            if not built:
                break
            sq = max(built, key=lambda s: (rules.house_cost[s], st.level[s], -s))
            self._sell_building(seat, sq, "forced")
        refund = rules.property_refund
        for sq in rules.properties:
            if st.cash[seat] >= amount:
                return
            if st.owner[sq] != seat or st.mortgaged[sq]:
                continue
            if refund is not None and refund[sq] > rules.mortgage[sq]:
                self._pay(BANK, seat, refund[sq], "sell_property", sq)
                self._transfer_property(sq, seat, NOBODY, "sold_to_bank")
            else:
                st.set_mortgaged(sq, True)
                self._pay(BANK, seat, rules.mortgage[sq], "mortgage", sq)
                self.events.append(_new_tuple(E.MortgageChanged, (seat, sq, True)))

    def _bankrupt(self, seat: int, creditor: int) -> Generator[Request, Any, None]:
        st = self.state
        rules = self.rules
        if creditor != BANK and not st.active[creditor]:
            creditor = BANK
        self.events.append(E.Bankrupt(seat, creditor))
        st.retire(seat)  # out of the game, and out of jail
        self.pending_offers[seat] = None
        self.bankrupt_order.append(seat)
        if rules.bank.debt == "negative_cash":
            # GNOME: the creditor was paid in full; buildings go back to the bank's stock
            # unpaid and the debt dies with the player.
            for sq in rules.streets:
                lv = st.level[sq]
                if st.owner[sq] == seat and lv:
                    if lv == rules.hotel_level:
                        st.set_stock(st.houses_left, st.hotels_left + 1)
                    else:
                        st.set_stock(st.houses_left + lv, st.hotels_left)
                    st.set_level(sq, 0)
                    self.events.append(_new_tuple(E.BuildingChanged, (seat, sq, 0, "bankruptcy")))
            if st.cash[seat] < 0:
                st.set_cash(seat, 0)
        # Buildings go back to the bank for their sell-back value.
        for sq in rules.streets:
            while st.owner[sq] == seat and st.level[sq]:
                self._sell_building(seat, sq, "bankruptcy")
        if st.cash[seat] > 0:
            self._pay(seat, creditor, st.cash[seat], "bankruptcy")
        mine = [sq for sq in rules.properties if st.owner[sq] == seat]
        while st.jail_cards[seat]:
            if creditor == BANK:
                deck, card = st.give_up_jail_card(seat)
                st.put_back(deck, card)
                self.events.append(
                    _new_tuple(E.JailCardMoved, (seat, BANK, rules.deck_names[deck])))
            else:
                self._move_jail_card(seat, creditor)
        alive = [s for s in range(self.players) if st.active[s]]
        if creditor == BANK:
            for sq in mine:
                if st.mortgaged[sq]:
                    st.set_mortgaged(sq, False)
                    self.events.append(_new_tuple(E.MortgageChanged, (seat, sq, False)))
                self._transfer_property(sq, seat, NOBODY, "bankruptcy")
        else:
            fee = legal.trade_fees(rules, st, tuple(mine))
            received = [sq for sq in mine if st.mortgaged[sq]]
            for sq in mine:
                self._transfer_property(sq, seat, creditor, "bankruptcy")
        if len(alive) <= 1:
            self._finish(alive[0] if alive else seat, "bankruptcy")
            raise _GameOver
        if creditor == BANK:
            if rules.bank.bankruptcy_auction:
                for sq in mine:
                    yield from self._auction(sq, seat)
        elif fee:
            if rules.bank.mortgaged_transfer == "choose":
                yield from self._receive_mortgaged(creditor, received, legal_fee=True)
            else:
                yield from self._charge(creditor, BANK, fee, "mortgage_transfer_fee")

    def _transfer_property(self, sq: int, src: int, dst: int, reason: str) -> None:
        self.state.set_owner(sq, dst)
        self.events.append(_new_tuple(E.PropertyTransferred, (sq, src, dst, reason)))

    # --- movement and landing ----------------------------------------------------------------
    def _move(self, p: int, steps: int, reason: str, collect_go: bool) -> int:
        """Move forward `steps` squares, paying the Go salary for each pass; returns the
        square reached (landing effects are separate: `_land`)."""
        st = self.state
        rules = self.rules
        n = rules.n
        start = st.position[p]
        end = (start + steps) % n
        st.move(p, end)
        self.events.append(_new_tuple(E.Moved, (p, start, end, reason)))
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
                    self.events.append(_new_tuple(E.Payment, (BANK, p, salary, "go_salary", go)))
        return end

    def _advance(self, p: int, steps: int, dice_total: int, reason: str,
                 collect_go: bool = True, rent_multiplier: float = 1.0,
                 dice_multiplier: int | None = None) -> Generator[Request, Any, None]:
        end = self._move(p, steps, reason, collect_go)
        yield from self._land(p, end, dice_total, rent_multiplier, dice_multiplier)

    def move_to(self, p: int, target: int,
                collect_go: bool = True) -> Generator[Request, Any, None]:
        """Move forward to `target` and land there (for card and plugin effects)."""
        steps = (target - self.state.position[p]) % self.rules.n
        return self._advance(p, steps, 0, "card", collect_go)

    def land(self, p: int, sq: int, dice_total: int = 0) -> Generator[Request, Any, None]:
        """The landing effect of `sq` for `p`, without moving (for plugin effects)."""
        return self._land(p, sq, dice_total)

    def _land(self, p: int, sq: int, dice_total: int, rent_multiplier: float = 1.0,
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
                    self.events.append(_new_tuple(E.DiceRolled, (p, dice)))
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
                        self.events.append(_new_tuple(E.Payment, (p, owner, rent, "rent", sq)))
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
                yield from _maybe_gen(handler(self.api, p, sq))
        # go, jail (just visiting), free parking: nothing happens.

    def rent(self, sq: int, dice_total: int) -> int:
        """The rent the owner of `sq` charges now (before hooks and card multipliers)."""
        return rent_of(self.rules, self.state.owner, self.state.level, sq, dice_total)

    def _offer_purchase(self, p: int, sq: int) -> Generator[Request, Any, None]:
        rules = self.rules
        d = _BUY.get(sq)
        if d is None:
            d = _BUY[sq] = shared("buy", sq)  # no trades while buying: never mutated
        for _ in range(rules.bank.max_actions_per_phase):
            action = yield p, d
            action = self._validate(p, d, action)
            t = type(action)
            if t is A.Buy:
                self._pay(p, BANK, rules.price[sq], "buy", sq)
                self._transfer_property(sq, NOBODY, p, "bought")
                return
            if t is A.Decline:
                break
            yield from self._execute(p, action, d)
        if rules.bank.auction_on_decline:
            yield from self._auction(sq, p)

    def _auction(self, sq: int, start: int) -> Generator[Request, Any, None]:
        """Auction `sq` to the bank's highest bidder; every solvent player may bid."""
        st = self.state
        self.auctions += 1
        self.events.append(_new_tuple(E.AuctionStarted, (sq,)))
        order = [(start + k) % self.players for k in range(1, self.players + 1)]
        bidders = [q for q in order if st.active[q]]
        high, high_bidder = 0, BANK
        if self.rules.bank.auction == "sealed":
            for q in bidders:
                d = Decision("bid", square=sq, high_bid=0)
                action = self._validate(q, d, (yield q, d))
                if type(action) is A.Bid:
                    self.events.append(_new_tuple(E.BidMade, (q, sq, action.amount)))
                    if action.amount > high:
                        high, high_bidder = action.amount, q
        else:
            asks = 0
            while bidders and not (len(bidders) == 1 and bidders[0] == high_bidder):
                for q in list(bidders):
                    if q == high_bidder:
                        continue
                    if len(bidders) == 1 and high_bidder != BANK:
                        break
                    if st.cash[q] <= high or asks > 2000:
                        bidders.remove(q)
                        continue
                    asks += 1
                    d = Decision("bid", square=sq, high_bid=high, high_bidder=high_bidder)
                    action = self._validate(q, d, (yield q, d))
                    if type(action) is A.Bid:
                        high, high_bidder = action.amount, q
                        self.events.append(_new_tuple(E.BidMade, (q, sq, high)))
                    else:
                        bidders.remove(q)
                if asks > 2000:
                    break
        if high_bidder != BANK and st.cash[high_bidder] >= high:
            self._pay(high_bidder, BANK, high, "auction", sq)
            self._transfer_property(sq, NOBODY, high_bidder, "auction")
            self.events.append(_new_tuple(E.AuctionEnded, (sq, high_bidder, high)))
        else:
            self.events.append(_new_tuple(E.AuctionEnded, (sq, BANK, 0)))

    # --- cards and jail ------------------------------------------------------------------------
    def _draw(self, p: int, deck: int) -> Generator[Request, Any, None]:
        st = self.state
        rules = self.rules
        order = st.decks[deck]
        if not order:
            return
        ci = st.draw(deck, 0 if rules.bank.card_draw == "deck"
                     else self._card_rng(deck).randrange(len(order)))
        card = rules.decks[deck][ci]
        self.events.append(_new_tuple(E.CardDrawn, (p, rules.deck_names[deck], ci, card.text)))
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
            self.events.append(_new_tuple(E.Moved, (p, start, end, "card")))
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
            houses = hotels = 0
            for sq in rules.streets:
                if st.owner[sq] == p and st.level[sq]:
                    if st.level[sq] == rules.hotel_level:
                        hotels += 1
                    else:
                        houses += st.level[sq]
            yield from self._charge(p, BANK, houses * card.per_house + hotels * card.per_hotel,
                                    "card")
        else:
            handler = CARD_KINDS.get(kind)
            if handler is not None:
                yield from _maybe_gen(handler(self.api, p, card))

    def _card_rng(self, deck: int) -> random.Random:
        """The stream of random draws from `deck` (`card_draw="random"`)."""
        rngs = self.__dict__.setdefault("_card_rngs", {})
        rng = rngs.get(deck)
        if rng is None:
            rng = rngs[deck] = random.Random(self.seeds.get(f"deck{deck}", deck) + 1)
        return rng

    def _jail(self, p: int, reason: str) -> None:
        st = self.state
        start = st.position[p]
        st.jail(p, self.rules.jail)
        self.events.append(_new_tuple(E.Moved, (p, start, self.rules.jail, "jail")))
        self.events.append(_new_tuple(E.Jailed, (p, reason)))

    def _release(self, p: int, how: str) -> None:
        st = self.state
        st.release(p)
        self.events.append(_new_tuple(E.Released, (p, how)))

    # --- results -----------------------------------------------------------------------------
    def net_worths(self) -> list[int]:
        """Per seat: cash + properties at price (mortgaged: minus the mortgage) + buildings."""
        rules = self.rules
        st = self.state
        out = list(st.cash)
        owner, level, mortgaged = st.owner, st.level, st.mortgaged
        for sq in rules.properties:
            o = owner[sq]
            if o >= 0:
                out[o] += (rules.price[sq] - (rules.mortgage[sq] if mortgaged[sq]
                                              and rules.bank.net_worth_mortgage else 0)
                           + level[sq] * rules.house_cost[sq])
        return out


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


def _acts_at_turn_end(rules: Rules, hooks: Hooks) -> bool:
    """Whether anything can happen at the end of a turn (`Game._end_of_turn`)."""
    bank = rules.bank
    return (bank.debt == "negative_cash" or bank.cash_cap is not None
            or hooks.end_of_turn is not None or hooks.game_over is not None)


def _maybe_gen(result: Any) -> Generator[Request, Any, Any]:
    if inspect.isgenerator(result):
        return (yield from result)
    return result
