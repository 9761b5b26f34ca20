"""Every observation shows the state as it is at that decision.

The engine shares one snapshot of the state (per-player lists, per-square tuples,
the bank's stock) between decisions with no change
in between (a change counter stamps it); this checks, at every decision of many chaotic
games and under novelties that move players or cards, that no change slips past it.
"""

from __future__ import annotations

import random

import pytest

import openmono
from agents.random_agent import RandomAgent
from openmono.engine import AgentFault, Game
from openmono.hooks import NO_HOOKS


def _check_game(schema, hooks, seed: int) -> int:
    game = Game(schema, 4, seed=seed, hooks=hooks)
    agents = [RandomAgent(trade_rate=0.2) for _ in range(4)]
    for i, a in enumerate(agents):
        a.seed(seed * 10 + i)
    rng = random.Random(seed)
    gen = game.run()
    checked = 0
    try:
        seat, d = next(gen)
        while True:
            obs = game.observe(seat, d)
            st = game.state
            if hooks.observation is None:
                assert obs.cash == tuple(st.cash)
            assert obs.position == tuple(st.position)
            assert obs.in_jail == tuple(st.in_jail)
            assert obs.jail_turns == tuple(st.jail_turns)
            assert obs.jail_cards == tuple(len(c) for c in st.jail_cards)
            assert obs.active == tuple(st.active)
            assert obs.owner == st.owner and obs.level == st.level
            assert obs.mortgaged == st.mortgaged
            assert (obs.houses_left, obs.hotels_left) == (st.houses_left, st.hotels_left)
            assert (obs.phase, obs.square, obs.high_bid, obs.high_bidder, obs.owed,
                    obs.creditor, obs.offer, obs.offerer, obs.offers_made) == (
                d.phase, d.square, d.high_bid, d.high_bidder, d.owed, d.creditor, d.offer,
                d.offerer, d.offers_made)
            checked += 1
            action = agents[seat].act(obs) if rng.random() > 0.05 else AgentFault("chaos")
            seat, d = gen.send(action)
    except StopIteration:
        pass
    return checked


@pytest.mark.parametrize("seed", range(6))
def test_observations_match_the_state_at_every_decision(seed: int) -> None:
    assert _check_game(openmono.standard_schema(), NO_HOOKS, seed) > 100


@pytest.mark.parametrize("name", ["jail_relocated", "board_stretch", "deck_composition",
                                  "bank_loan", "toll_square", "jail_turns"])
def test_under_novelties_that_move_players_or_cards(name: str) -> None:
    from novelties.registry import apply_novelty

    p = apply_novelty(name, openmono.standard_schema(), "hard")
    assert _check_game(p.schema, p.hooks, 7) > 50


class _Checking(RandomAgent):
    """A random agent that checks each observation it is given against the state."""

    def __init__(self, game: Game, seat_events: dict[int, list]) -> None:
        super().__init__(trade_rate=0.2)
        self.game = game
        self.seen = seat_events
        self.checked = 0

    def act(self, obs):
        st = self.game.state
        assert (obs.turn, obs.current) == (st.turn, st.current)
        assert obs.cash == tuple(st.cash) and obs.position == tuple(st.position)
        assert obs.in_jail == tuple(st.in_jail) and obs.jail_turns == tuple(st.jail_turns)
        assert obs.jail_cards == tuple(len(c) for c in st.jail_cards)
        assert obs.active == tuple(st.active)
        assert (obs.owner, obs.level, obs.mortgaged) == (st.owner, st.level, st.mortgaged)
        assert (obs.houses_left, obs.hotels_left) == (st.houses_left, st.hotels_left)
        self.seen.setdefault(obs.seat, []).extend(obs.events)
        self.checked += 1
        return super().act(obs)


@pytest.mark.parametrize("seed", range(3))
def test_the_game_drivers_observations_match_the_state(seed: int) -> None:
    """`play_game` without a log builds observations inline (`Game.drive`): the same
    checks, and every seat is shown every event exactly once, in order."""
    schema = openmono.standard_schema()
    game = Game(schema, 4, seed=seed)
    seen: dict[int, list] = {}
    agents = [_Checking(game, seen) for _ in range(4)]
    openmono.play_game(schema, agents, seed=seed, game=game)
    assert sum(a.checked for a in agents) > 100
    for events in seen.values():
        assert events == game.events[:len(events)]
