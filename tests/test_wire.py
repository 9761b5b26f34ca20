"""`observation_from_json(obs.to_json()) == obs` at every decision: a remote agent sees
exactly what an in-process agent sees."""

from __future__ import annotations

import json

import pytest

import openmono
from agents.random_agent import RandomAgent
from openmono.schema import rules_schema
from openmono.wire import RulesCache, observation_from_json


def short(schema, turns: int = 60):  # type: ignore[no-untyped-def]
    """The game cut to `turns` player-turns: enough decisions, seconds per test."""
    return schema.model_copy(update={"bank": schema.bank.model_copy(
        update={"turn_limit": turns})})


class Checking(RandomAgent):
    """A random agent that checks every observation survives the wire."""

    def __init__(self) -> None:
        super().__init__()
        self.cache = RulesCache()
        self.checked = 0

    def act(self, obs):  # type: ignore[no-untyped-def]
        if self.checked % 50 == 0:  # the whole to_json now and then (the rules are slow)
            data = json.loads(json.dumps(obs.to_json()))
        else:  # as the protocol sends it: the rules apart, once
            data = json.loads(json.dumps(obs.to_json(with_rules=False)))
            data["rules"], data["deck_names"] = self.cache._key
        back = observation_from_json(data, self.cache)
        assert back == obs, [f for f in obs._fields if getattr(back, f) != getattr(obs, f)]
        assert back.legal_actions() == obs.legal_actions()
        self.checked += 1
        return super().act(obs)


@pytest.mark.parametrize("rules,seed", [("standard", 3), ("gnome", 4)])
def test_every_observation_round_trips(rules: str, seed: int) -> None:
    agents = [Checking() for _ in range(4)]
    openmono.play_game(short(rules_schema(rules)), agents, seed=seed)
    assert sum(a.checked for a in agents) > 100


@pytest.mark.parametrize("novelty", ["renamed_deck", "board_shuffle", "trade_rules",
                                     "bank_loan", "hidden_opponent_cash"])
def test_round_trip_under_novelties(novelty: str) -> None:
    from evaluation.harness.novelty_setup import prepare_novelty

    applied = prepare_novelty(novelty, "hard", {}, rules_schema("standard"))
    agents = [Checking() for _ in range(4)]
    openmono.play_game(short(applied.schema), agents, seed=5, hooks=applied.hooks)
    assert sum(a.checked for a in agents) > 50
