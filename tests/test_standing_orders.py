"""Standing orders: `Conclude(until_cash=..., watch=...)` in a management phase.

The engine answers Conclude for the seat, without asking, while its cash stays below
the limit and what it watches (its own properties, or every property) is unchanged;
a pre-roll in jail is always asked, and so, under rules with out-of-turn calls (GNOME's),
is the player whose turn it is in those calls (which ends its order). The contract is checked from the agent's side: an
agent that keeps its own orders (and answers Conclude itself while one holds) plays the
same game whether the engine skips those decisions or asks them all, is never asked
while one of its orders holds, and receives every event.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

import openmono
from agents.baseline import BaselineAgent
from agents.random_agent import RandomAgent
from openmono import actions as A
from openmono import events as E
from openmono.engine import Game
from openmono.legal import MANAGE_PHASES

STANDARD = openmono.standard_schema()
GNOME = openmono.gnome_schema()
RULES = {"standard": STANDARD, "gnome": GNOME}


class Orders(RandomAgent):
    """A random agent that often answers a management phase with a standing order and
    keeps its own copy of each order, dropped when the events it observes show a
    watched property changing (never for `watch="cash"`). While its copy holds it answers Conclude itself (and
    counts the ask as needless: the engine should have answered); otherwise it decides
    as `random`, drawing from its stream only then.

    With `strip=True` it returns plain Conclude instead of the order, so the engine
    asks every decision: the game must be the same."""

    def __init__(self, strip: bool = False) -> None:
        super().__init__(trade_rate=0.05)
        self.strip = strip
        self.orders: dict[str, tuple[int, str]] = {}
        self.needless = 0
        self.given = 0
        self.events: list[Any] = []

    def _note(self, obs: Any) -> None:
        """Drop the orders that the new events end."""
        me = obs.seat
        for e in obs.events:
            t = type(e)
            if t is E.PropertyTransferred:
                mine = me in (e.from_seat, e.to_seat)
            elif t is E.BuildingChanged or t is E.MortgageChanged:
                mine = e.seat == me
            else:
                continue
            for phase, (_, watch) in list(self.orders.items()):
                if (mine and watch == "mine") or watch == "board":
                    del self.orders[phase]

    def _holds(self, obs: Any) -> bool:
        order = self.orders.get(obs.phase)
        if order is None or (obs.phase == "pre_roll" and obs.in_jail[obs.seat]):
            return False
        if (obs.phase == "out_of_turn" and obs.current == obs.seat
                and obs.rules.bank.out_of_turn_calls is not None):
            return False  # its own turn's out-of-turn calls are always asked
        return obs.cash[obs.seat] < order[0]

    def act(self, obs: Any) -> A.Action:
        self.events.extend(obs.events)
        self._note(obs)
        if obs.phase not in MANAGE_PHASES:
            return super().act(obs)
        if self._holds(obs):
            self.needless += 1
            return A.CONCLUDE
        self.orders.pop(obs.phase, None)
        if self.rng.random() < 0.5:
            cash = obs.cash[obs.seat]
            until = A.NO_CASH_LIMIT if self.rng.random() < 0.2 else cash + self.rng.randint(1, 300)
            watch = self.rng.choice(("mine", "board", "cash"))
            self.orders[obs.phase] = (until, watch)
            self.given += 1
            return A.CONCLUDE if self.strip else A.Conclude(until_cash=until, watch=watch)
        return super().act(obs)


def _play(agents: list[Any], seed: int, rules: str = "standard") -> tuple[Any, Game]:
    schema = RULES[rules]
    game = Game(schema, len(agents), seed=seed)
    result = openmono.play_game(schema, agents, seed=seed, game=game)
    return result, game


@pytest.mark.parametrize("rules", sorted(RULES))
@pytest.mark.parametrize("seed", range(6))
def test_same_game_with_and_without_the_engine_answering(seed: int, rules: str) -> None:
    skipping = [Orders() for _ in range(4)]
    asking = [Orders(strip=True) for _ in range(4)]
    r1, g1 = _play(skipping, seed, rules)
    r2, g2 = _play(asking, seed, rules)
    assert r1.to_json() == r2.to_json()
    assert g1.events == g2.events
    assert g1.decisions == g2.decisions  # skipped decisions still count
    assert r1.stats["faults"] == 0
    assert sum(a.given for a in skipping) > 50
    # The engine skipped real decisions, and never asked one an order covered.
    assert sum(a.needless for a in asking) > 0
    assert sum(a.needless for a in skipping) == 0
    for agent in skipping:  # every event reaches the agent, in order
        assert agent.events == g1.events[:len(agent.events)]


@pytest.mark.parametrize("name", ["baseline", "baseline_v0", "fp_a", "fp_b", "fp_c",
                                  "fp_plus_a", "fp_plus_b", "fp_plus_c"])
@pytest.mark.parametrize("rules", sorted(RULES))
@pytest.mark.parametrize("seed", range(3))
def test_built_in_orders_change_nothing(name: str, seed: int, rules: str,
                                        monkeypatch: Any) -> None:
    """The agents that give standing orders play the same games when their orders
    become plain Concludes (at the source, so that no code path of theirs changes but
    the order): each limit they give is one below which they really conclude."""
    from agents import baseline, baseline_v0, fixed_policy_plus, policy_helpers
    from agents.registry import make_agent

    r1, g1 = _play([make_agent(name) for _ in range(4)], seed, rules)
    assert any(type(e).__name__ == "TurnStarted" for e in g1.events)
    for module in (policy_helpers, baseline, baseline_v0, fixed_policy_plus):
        monkeypatch.setattr(module, "conclude_until", lambda cash: A.CONCLUDE)
    r2, g2 = _play([make_agent(name) for _ in range(4)], seed, rules)
    assert r1.to_json() == r2.to_json()
    assert g1.events == g2.events


def test_baseline_orders_answer_most_out_of_turn_calls_under_gnome_rules() -> None:
    """GNOME's background agent, asked out of turn on another player's turn, mostly has
    nothing to build or unmortgage: `baseline` says so once with an order, and the
    engine answers the calls after it."""
    agents = [BaselineAgent() for _ in range(4)]
    asked = []
    for agent in agents:
        act = agent.act

        def counting(obs: Any, act: Any = act) -> A.Action:
            if obs.phase == "out_of_turn" and obs.current != obs.seat:
                asked.append(obs.seat)
            return act(obs)
        agent.act = counting  # type: ignore[method-assign]
    result, game = _play(agents, 1, "gnome")
    calls_on_others_turns = 3 * result.turns  # at least: one per other player a turn
    assert len(asked) < calls_on_others_turns / 3


def _default(d: Any) -> A.Action:
    if d.phase in MANAGE_PHASES or d.phase == "debt":
        return A.CONCLUDE
    return A.DECLINE if d.phase == "buy" else A.DROP_OUT if d.phase == "bid" else A.REJECT


def test_an_order_lapses_when_cash_reaches_the_limit() -> None:
    game = Game(STANDARD, 2, seed=3)
    gen = game.run()
    seat, d = next(gen)
    asks: list[tuple[int, int]] = []  # (turn, seat 1's cash) at each out-of-turn ask
    for _ in range(400):
        action = _default(d)
        if d.phase == "out_of_turn" and seat == 1:
            asks.append((game.state.turn, game.state.cash[1]))
            if len(asks) == 2:
                break
            action = A.Conclude(until_cash=game.state.cash[1] + 2)
        elif d.phase == "out_of_turn" and seat == 0 and asks:
            game.pay_from_bank(1, 1, "test")  # one below the limit, then at it
        seat, d = gen.send(action)
    (turn1, cash1), (turn2, cash2) = asks
    assert cash2 == cash1 + 2 and turn2 > turn1 + 1  # skipped while it had cash1 + 1


def test_an_order_lapses_when_the_seat_properties_change() -> None:
    game = Game(STANDARD, 2, seed=5)
    gen = game.run()
    seat, d = next(gen)
    asked = 0
    changed = False
    for _ in range(2000):
        action = _default(d)
        if d.phase == "out_of_turn" and seat == 1:
            asked += 1
            action = A.Conclude(until_cash=A.NO_CASH_LIMIT)
        elif asked == 1 and not changed and d.phase == "out_of_turn":
            # Give seat 1 a property through the state's setter, as a plugin would.
            game.state.set_owner(1, 1)
            changed = True
        try:
            seat, d = gen.send(action)
        except StopIteration:
            break
    # Asked once, once more after the change, then never again: nothing of seat 1's
    # changes (everyone declines, auctions have no bidder, seat 1 has the cash).
    assert changed and asked == 2


def test_a_cash_order_outlasts_property_changes() -> None:
    """`watch="cash"`: the seat's own properties change and the order still holds."""
    game = Game(STANDARD, 2, seed=5)
    gen = game.run()
    seat, d = next(gen)
    asked = flips = 0
    for _ in range(2000):
        action = _default(d)
        if d.phase == "out_of_turn" and seat == 1:
            asked += 1
            action = A.Conclude(until_cash=A.NO_CASH_LIMIT, watch="cash")
        elif asked and d.phase == "out_of_turn":
            flips += 1  # seat 1 gains and loses a property, as a plugin could make it
            game.state.set_owner(1, 1 if flips % 2 else -1)
        try:
            seat, d = gen.send(action)
        except StopIteration:
            break
    assert asked == 1 and flips > 10


def test_pre_roll_in_jail_is_always_asked() -> None:
    game = Game(STANDARD, 2, seed=0)
    gen = game.run()
    seat, d = next(gen)
    st = game.state
    asks = jailed_asks = 0
    turns: dict[int, bool] = {}  # seat 0's turns -> in jail at their first decision
    for _ in range(5000):
        if st.current == 0 and st.turn not in turns:
            turns[st.turn] = st.in_jail[0]
        if d.phase == "pre_roll" and seat == 0:
            asks += 1
            jailed_asks += st.in_jail[0]
            action: A.Action = A.Conclude(until_cash=A.NO_CASH_LIMIT, watch="board")
        else:
            action = _default(d)
        try:
            seat, d = gen.send(action)
        except StopIteration:
            break
    jailed = sum(turns.values())
    assert jailed > 0 and jailed_asks == jailed
    assert asks < len(turns)  # out of jail, the order answered


@pytest.mark.parametrize("order", [A.Conclude(until_cash="lots"),  # type: ignore[arg-type]
                                   A.Conclude(until_cash=500, watch="nothing")])
def test_a_malformed_order_is_a_fault_not_a_crash(order: A.Conclude) -> None:
    class Odd(RandomAgent):
        def act(self, obs: Any) -> A.Action:
            return order if obs.phase == "out_of_turn" else super().act(obs)

    agents = [Odd(), RandomAgent(), Odd(), RandomAgent()]
    result, game = _play(agents, 2)
    assert result.stats["faults"] > 0
    assert any(type(e).__name__ == "Fault" and "standing order" in e.reason
               for e in game.events)


def test_orders_are_logged_and_replay() -> None:
    buf = io.StringIO()
    agents = [BaselineAgent(), Orders(), BaselineAgent(), Orders()]
    result = openmono.play_game(STANDARD, agents, seed=4, log=buf)
    lines = buf.getvalue().splitlines()
    assert any('"until_cash"' in line for line in lines)
    game, replayed = openmono.replay(lines)
    assert replayed.to_json() == result.to_json()


def test_conclude_round_trips_through_json() -> None:
    for action in (A.CONCLUDE, A.Conclude(until_cash=250),
                   A.Conclude(until_cash=A.NO_CASH_LIMIT, watch="board")):
        assert A.action_from_json(action.to_json()) == action
    assert A.CONCLUDE.to_json() == {"kind": "conclude"}
