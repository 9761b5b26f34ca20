"""A finished game is freed by reference counting alone.

`play_game` runs the cyclic collector rarely while a game is played and counts on the
finished game dying by reference counting (see `openmono.play`). A reference cycle
through the game (its plugin API pointing back at it, a hook holding the game) would
leave every event, observation part and state list of every game to the collector, which
then scans them all: a cost per game the benchmarks showed before these tests.
"""

from __future__ import annotations

import gc
import weakref

import pytest

import openmono
from agents.random_agent import RandomAgent
from novelties.registry import apply_novelty
from openmono.engine import Game
from openmono.hooks import NO_HOOKS

STD = openmono.standard_schema()


def _freed_without_collector(schema, hooks) -> bool:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        game = Game(schema, players=4, seed=11, hooks=hooks)
        openmono.play_game(schema, [RandomAgent() for _ in range(4)], seed=11, game=game)
        ref = weakref.ref(game)
        del game
        return ref() is None
    finally:
        if was_enabled:
            gc.enable()


def test_a_standard_game_dies_by_reference_counting():
    assert _freed_without_collector(STD, NO_HOOKS)


@pytest.mark.parametrize("novelty", ["bank_loan", "rent_hike"])
def test_a_game_with_plugin_hooks_dies_by_reference_counting(novelty):
    applied = apply_novelty(novelty, STD, "medium")
    assert _freed_without_collector(applied.schema, applied.hooks)


def test_the_plugin_api_outliving_its_game_says_so():
    game = Game(STD, players=4, seed=2)
    api = game.api
    assert api.players == 4
    del game
    with pytest.raises(ReferenceError):
        api.players  # noqa: B018 - the read is the point
