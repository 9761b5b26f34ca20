"""The conformance suite: every registered novelty plugin (found through the
`openmono.novelties` entry points, so third-party ones too) at every difficulty.

For each: apply gives a valid schema and never mutates its input; games with random and
built-in agents keep every engine invariant; the same seed gives the same game; the
ground truth is non-empty and names real entities; hidden changes never reach an
agent's observation; a mid-game injection leaves a consistent state. Games are short
(turn limit 60) to keep the whole suite fast.
"""

from __future__ import annotations

import json

import pytest

import openmono
from agents.registry import available_agents, make_agent
from novelties.base import DIFFICULTIES
from novelties.ground_truth import entity_exists
from novelties.registry import BROKEN, apply_novelty, available_novelties
from novelties.testing import play_checked
from openmono.compiled import compile_rules
from openmono.schema import HIDDEN_FIELDS, GameSchema

_STD = openmono.standard_schema()
BASE = _STD.model_copy(update={"bank": _STD.bank.model_copy(update={"turn_limit": 60})})
BASE_DUMP = BASE.model_dump_json()
BASE_PUBLIC = BASE.public_dict()
PLUGINS = sorted(available_novelties())
CASES = [(n, d) for n in PLUGINS for d in DIFFICULTIES]
SEATS = [n for n in ("random", "baseline", "random", "fp_c") if n in available_agents()]
SEATS = (SEATS + ["random"] * 4)[:4]


def _seed(name: str, difficulty: str) -> int:
    return (sum(map(ord, name)) * 7 + DIFFICULTIES.index(difficulty)) % 1000


def _agents() -> list:
    return [make_agent(n) for n in SEATS]


def test_every_plugin_loads() -> None:
    assert not BROKEN, f"broken plugin entry points: {BROKEN}"
    assert len(PLUGINS) >= 45


@pytest.mark.parametrize("name,difficulty", CASES)
def test_apply_valid_pure_and_ground_truth(name: str, difficulty: str) -> None:
    prepared = apply_novelty(name, BASE, difficulty)
    assert BASE.model_dump_json() == BASE_DUMP, "apply mutated its input schema"
    schema = prepared.schema
    again = GameSchema.model_validate_json(schema.model_dump_json())
    assert again == schema
    compile_rules(schema, prepared.hooks)
    changes = prepared.changes
    assert changes, "ground truth is empty"
    for c in changes:
        assert entity_exists(c.entity, BASE, schema), f"unknown entity {c.entity!r}"
        assert isinstance(c.visible, bool) and c.attribute
        json.dumps(c.to_json(), default=str)
        if c.entity.split(":")[0] in ("die", "dice", "deck", "card"):
            assert not c.visible or prepared.visibility, "dice/deck change shown"
    if not any(c.visible for c in changes):
        assert schema.public_dict() == BASE_PUBLIC, "a hidden novelty changed the public rules"
    # Deterministic: applying again gives the same schema and changes.
    assert apply_novelty(name, BASE, difficulty).ground_truth == prepared.ground_truth


@pytest.mark.parametrize("name,difficulty", CASES)
def test_games_keep_invariants_deterministic_and_hide_hidden(name: str, difficulty: str) -> None:
    prepared = apply_novelty(name, BASE, difficulty)
    all_hidden = not any(c.visible for c in prepared.changes)
    seen: list[str] = []

    def look(obs) -> None:
        if len(seen) % 40 == 0:
            for attr in HIDDEN_FIELDS + ("fair_dice", "schema"):
                assert not hasattr(obs.rules, attr), f"observation shows {attr}"
            data = obs.to_json()["rules"]
            assert not set(HIDDEN_FIELDS) & set(data)
            if all_hidden:
                assert obs.rules.public_schema == BASE_PUBLIC
        seen.append(obs.phase)

    seed = _seed(name, difficulty)
    first = play_checked(prepared.schema, _agents(), seed, prepared.hooks, on_obs=look)
    assert not first.problems, first.problems
    assert seen, "no observation was checked"
    second = play_checked(prepared.schema, _agents(), seed, prepared.hooks)
    assert second.result.to_json() == first.result.to_json()
    assert second.game.events == first.game.events


@pytest.mark.parametrize("name,difficulty", CASES)
def test_mid_game_injection_is_consistent(name: str, difficulty: str) -> None:
    prepared = apply_novelty(name, BASE, difficulty)
    checked = play_checked(BASE, _agents(), _seed(name, difficulty) + 1, inject=prepared,
                           at_turn=25)
    assert not checked.problems, checked.problems
    report = checked.injection
    if checked.result.turns >= 25:
        assert report.done and report.turn == 25
        assert checked.game.schema is prepared.schema
