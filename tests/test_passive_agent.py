"""The null agent: buys when it can, otherwise always the phase's default."""

from __future__ import annotations

import openmono
from agents.passive import PassiveAgent
from agents.registry import make_agent
from openmono import actions as A


def test_passive_games_are_clean_and_long() -> None:
    schema = openmono.standard_schema()
    game = openmono.Game(schema, 4, seed=2)
    result = openmono.play_game(schema, [make_agent("passive") for _ in range(4)], seed=2,
                                game=game)
    assert result.stats["faults"] == 0
    kinds = {e.kind for e in game.events}
    assert "building_changed" not in kinds and "trade_offered" not in kinds
    bought = [e for e in game.events if e.kind == "property_transferred" and e.reason == "bought"]
    assert bought  # it does buy


def test_passive_uses_a_jail_card_instead_of_hoarding_it() -> None:
    schema = openmono.standard_schema()
    game = openmono.Game(schema, 4, seed=0)
    seen = []

    class Spy(PassiveAgent):
        def act(self, obs):
            action = super().act(obs)
            seen.append((obs.phase, obs.in_jail[obs.seat], obs.jail_cards[obs.seat], action))
            return action

    openmono.play_game(schema, [Spy() for _ in range(4)], seed=0, game=game)
    for phase, jailed, cards, action in seen:
        if phase == "pre_roll" and jailed and cards:
            assert action == A.USE_JAIL_CARD
