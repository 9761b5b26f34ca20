"""The game loop: the official US rules with the papers' phase structure on top.

`Game.run()` is a generator: it yields `(seat, Decision)` whenever a player must
decide and receives the chosen action through `send`. One driver runs it, `Game.steps`:
it answers the seats with agents and yields at each decision of an outside seat (a
learner in `envs.table`); `Game.drive`, behind `openmono.play.play_game`, runs it to the
end with agent objects as fast as possible. Every action is checked by
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

import random
from typing import Any, Generator

from openmono import actions as A
from openmono import events as E
from openmono import legal
from openmono.compiled import Rules, compile_rules
from openmono.decision import AgentFault, Decision, DecisionTimeout, shared
from openmono.events import BANK
from openmono.flow import GameOver, Request, maybe_gen, new_tuple
from openmono.game_api import GameAPI
from openmono.holdings import Holdings
from openmono.hooks import NO_HOOKS, Hooks
from openmono.money import Money
from openmono.moves import Moves, rent_of
from openmono.observation import Observation, public_rules
from openmono.observe import extra_legality, observe
from openmono.schema import GameSchema
from openmono.seeding import seed_sequence_words
from openmono.standing import LASTING, UNCHANGING, StandingOrder
from openmono.state import NOBODY, GameState, net_worth, sale_value
from openmono.trading import Trading

__all__ = ["AgentFault", "Decision", "Game", "Request", "rent_of", "stream_seeds"]

_CORE_ACTIONS = frozenset(A.ACTION_KINDS.values())  # checked before `isinstance`
# The contextless decisions asked at every turn, built once.
_PRE_ROLL = shared("pre_roll")
_OUT_OF_TURN = shared("out_of_turn")
_POST_ROLL = shared("post_roll")
# What a throw of the dice leads to (`Game._roll`).
_MOVE, _AGAIN, _STAY, _PAY_FINE, _SERVED = "move", "again", "stay", "pay_fine", "served"


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


class Game(Money, Holdings, Trading, Moves):
    """One game between `players` seats on a schema.

    This class keeps the order of play (`run`, `drive`), the decision point and the
    game's record; the rules of money, holdings, trades and moves are its parts in
    `openmono.money`, `.holdings`, `.trading` and `.moves`, and every change they make
    to the position goes through `GameState`'s methods.
    """

    def __init__(self, schema: GameSchema, players: int = 4, seed: int = 0,
                 hooks: Hooks = NO_HOOKS, shown: GameSchema | None = None,
                 informed: frozenset[int] = frozenset()) -> None:
        """`shown`: the rules agents are shown when they differ from the true ones (a
        novelty under `effects` observability; see `novelties.observability`);
        `informed`: the seats shown the true rules all the same (opponents that read the
        live board, as GNOME's background agents do, or an oracle)."""
        if players < 2:
            raise ValueError("a game needs at least two players")
        self.schema = schema
        self.hooks = hooks
        self.rules: Rules = compile_rules(schema, hooks)
        self.players = players
        self.informed = informed
        self._show(shown)
        self.extra_legality = extra_legality(self.rules)  # see `openmono.observe`
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
        self._show(shown)
        self.extra_legality = extra_legality(self.rules)  # see `openmono.observe`
        self.invalidate_observations()
        self.transform = hooks.observation  # a novelty may change what agents see
        self._turn_end = _acts_at_turn_end(self.rules, hooks)

    def _show(self, shown: GameSchema | None) -> None:
        """The public rules each seat is shown: the true ones, or `shown` to every seat
        not `informed`."""
        self.shown = shown
        if shown is None:
            self.public = public_rules(self.rules)
            self.publics = (self.public,) * self.players
            return
        self.public = public_rules(compile_rules(shown))
        true = public_rules(self.rules) if self.informed else self.public
        self.publics = tuple(true if s in self.informed else self.public
                             for s in range(self.players))

    # --- observation ----------------------------------------------------------------
    def observe(self, seat: int, d: Decision) -> Observation:
        """What `seat` sees at decision `d` (`openmono.observe.observe`)."""
        return observe(self, seat, d)

    def drive(self, acts: list[Any], fixed: list[dict[str, Any] | None],
              on_fault: Any, on_decision: Any = None) -> None:
        """Play the whole game with one `act(observation)` callable per seat (the loop
        `openmono.play` runs): `steps` run to the end, every seat answered in place.
        `fixed[seat]` maps phases to the answers that seat declared in advance (see
        `agents.base`); `on_fault(seat)` is told of every fault; `on_decision(seat,
        phase, action)`, if given, of every answer (logs).
        """
        if on_decision is None:
            fixed = self._fixed_concludes_stand(fixed)
        for seat, _ in self.steps(acts, fixed, on_fault, on_decision):
            raise ValueError(f"seat {seat} has no act: `drive` answers every seat")

    def _fixed_concludes_stand(self, fixed: list[dict[str, Any] | None]
                               ) -> list[dict[str, Any] | None]:
        """A fixed Conclude out of turn or after the roll as an order that never lapses:
        the turn loop answers it without a generator round trip. Returns what is left of
        the fixed answers. (Logged games go through `on_decision` for every answer, so
        replays see them: `drive` does this only when nothing is logged.)"""
        for phase in ("out_of_turn", "post_roll"):
            lasting = [LASTING if answers is not None and answers.get(phase) == A.CONCLUDE
                       else None for answers in fixed]
            if any(lasting):
                self._lasting[phase] = lasting
                self._standing[phase][:] = lasting
                # What is left of those seats' fixed answers stays with the driver.
                fixed = [answers if order is None
                         else {k: v for k, v in answers.items() if k != phase} or None
                         for answers, order in zip(fixed, lasting)]
        return fixed

    def steps(self, acts: list[Any], fixed: list[dict[str, Any] | None], on_fault: Any,
              on_decision: Any = None) -> Generator[tuple[int, Observation], Any, None]:
        """The one game driver: runs `run()`, answering each decision of a seat from
        `fixed[seat]` (phase -> action) or with `acts[seat](observation)`, and yields
        `(seat, observation)` at a decision of an *outside* seat, one whose `acts[seat]`
        is None (a learner in `envs.table`), resuming with the action sent. `drive` is
        this with no outside seat. Whatever answers, an exception or a non-action is the
        phase default and a fault: `on_fault(seat)` is told; `on_decision(seat, phase,
        action)`, if given, of every answer.
        """
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
                act = acts[seat]
                if act is None:
                    action = yield seat, obs
                else:
                    try:
                        action = act(obs)
                    except (Exception, SystemExit, DecisionTimeout) as exc:  # noqa: BLE001
                        # an agent must never crash a game, sys.exit included, nor hang
                        # it (a try costs nothing until it catches: zero-cost
                        # exceptions). Ctrl-C is left to stop the run.
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
        elif watch == "board":
            orders[seat] = StandingOrder(until, st.board_version, 0)
        else:  # "cash"
            orders[seat] = StandingOrder(until, UNCHANGING, 0)

    def legal_actions(self, seat: int, d: Decision) -> list[A.Action]:
        """The legal actions of `seat` at decision `d` (engine-side, by the true rules)."""
        return legal.legal_actions(self.rules, self.state, seat, d)

    # --- the decision point -----------------------------------------------------------
    @property
    def stats(self) -> dict[str, int]:
        """Counts of the game so far: trades, auctions, faults and decisions."""
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
        conclude = A.Conclude
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
                self.events.append(new_tuple(E.TurnStarted, (p, st.begin_turn())))
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
                    if type(action) is conclude:  # (= _manage's answer, without it)
                        self.decisions += 1
                        if action is not plain:
                            self._stand(p, _PRE_ROLL, action)
                    else:
                        pre_acted = yield from self._manage(p, _PRE_ROLL, action)
                # --- out of turn
                calls = self.rules.bank.out_of_turn_calls
                if calls is None:
                    yield from self._out_of_turn(p)
                else:  # (chosen here: one generator fewer per out-of-turn answer)
                    yield from self._out_of_turn_calls(p, calls, pre_acted)
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
                        if type(action) is conclude:
                            self.decisions += 1
                            if action is not plain:
                                self._stand(p, _POST_ROLL, action)
                        else:
                            yield from self._manage(p, _POST_ROLL, action)
                    if step is not _AGAIN or st.in_jail[p] or not active[p]:
                        break
                # --- end of turn
                # (Most rule sets do nothing at the end of a turn: no generator for them.)
                if self._turn_end and (yield from self._end_of_turn(p)):
                    return
                st.pass_to(self._next_player(p))
        except GameOver:
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
        self.events.append(new_tuple(E.DiceRolled, (p, dice)))
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
            yield from maybe_gen(end_hook(self.api, p))
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

    def _out_of_turn(self, p: int) -> Generator[Request, Any, None]:
        """The out-of-turn phases after `p`'s pre-roll in rounds, in seat order until
        all pass (`BankRules.out_of_turn_rounds`; `_out_of_turn_calls` when the rules
        bound them by calls)."""
        st = self.state
        bank = self.rules.bank
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
        players left end without an action; p's pre-roll counts as the first. A standing
        order covers other players' turns only: p's own out-of-turn calls are where it
        trades (GNOME asks the active player too), so p is always asked there, which
        ends its order."""
        st = self.state
        active = st.active
        cash = st.cash
        orders = self._standing["out_of_turn"]
        waiting = self.pending_offers
        conclude = A.Conclude
        plain = A.CONCLUDE
        players = self.players
        left = sum(active)
        passes = 0 if pre_acted else 1
        q = p
        count = 0
        concluded = 0  # decisions answered by Conclude, added to the count once
        while passes != left and count < calls:
            count += 1
            q += 1
            if q == players:
                q = 0
            if not active[q]:
                continue
            if waiting[q] is not None:
                self.decisions += concluded  # exact even if the game ends in there
                concluded = 0
                yield from self._answer_pending(q)
            order = orders[q]
            if order is not None:
                if q != p and order.holds(cash[q]):
                    concluded += 1
                    passes += 1
                    continue
                orders[q] = None  # (p's own calls are always asked: its order ends)
            action = yield q, _OUT_OF_TURN
            if type(action) is conclude:
                concluded += 1
                if action is not plain:
                    self._stand(q, _OUT_OF_TURN, action)
                passes += 1
                continue
            self.decisions += concluded
            concluded = 0
            acted = yield from self._manage(q, _OUT_OF_TURN, action)
            passes = 0 if acted else passes + 1
            left = sum(active)
        self.decisions += concluded

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
        else:
            # The answer after the last allowed action is dropped (GNOME asks once more,
            # then ends the phase), but a standing order it carries is a promise about
            # later answers, true whenever given: it stands.
            if type(action) is A.Conclude and action.until_cash is not None:
                self._stand(seat, d, action)
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
            self.events.append(new_tuple(E.MortgageChanged, (seat, sq, True)))
        elif t is A.Unmortgage:
            sq = action.square
            self._pay(seat, BANK, rules.unmortgage_cost[sq], "unmortgage", sq)
            st.set_mortgaged(sq, False)
            self.events.append(new_tuple(E.MortgageChanged, (seat, sq, False)))
        elif t is A.SellProperty:
            sq = action.square
            self._pay(BANK, seat, sale_value(rules, st, sq), "sell_property", sq)
            if st.mortgaged[sq]:  # `BankRules.mortgaged_sellback`: foreclosed
                st.set_mortgaged(sq, False)
                self.events.append(new_tuple(E.MortgageChanged, (seat, sq, False)))
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
            self.events.append(new_tuple(E.JailCardMoved, (seat, BANK, rules.deck_names[deck])))
            self._release(seat, "card")
        else:
            plugin = A.PLUGIN_ACTIONS.get(action.kind)
            if plugin is not None:
                yield from maybe_gen(plugin[2](self.api, seat, action))

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


def _acts_at_turn_end(rules: Rules, hooks: Hooks) -> bool:
    """Whether anything can happen at the end of a turn (`Game._end_of_turn`)."""
    bank = rules.bank
    return (bank.debt == "negative_cash" or bank.cash_cap is not None
            or hooks.end_of_turn is not None or hooks.game_over is not None)
