"""A planner told the rules believes the values a hidden attribute novelty charges behind
the old board (`agents.planner.told`), so the impact tool's oracle really is informed."""

from __future__ import annotations

import pytest

import openmono
from agents.planner.agent import PlannerAgent
from agents.planner.told import charged_schema
from novelties.base import DIFFICULTIES
from novelties.registry import apply_novelty, describe

STANDARD = openmono.standard_schema()


def _charged_presets() -> list[tuple[str, str]]:
    out = []
    for item in describe():
        for difficulty in DIFFICULTIES:
            applied = apply_novelty(item["name"], STANDARD, difficulty)
            if any(c.attribute.endswith("(charged)") for c in applied.declared):
                out.append((item["name"], difficulty))
    return out


CHARGED = _charged_presets()


def test_the_catalogue_has_hidden_charged_values() -> None:
    names = {name for name, _ in CHARGED}
    assert {"rent_hike", "tax_amounts", "level_rent", "railroad_rents",
            "utility_multiplier"} <= names


@pytest.mark.parametrize(("name", "difficulty"), CHARGED)
def test_a_told_planner_believes_every_charged_value(name: str, difficulty: str) -> None:
    applied = apply_novelty(name, STANDARD, difficulty)
    agent = PlannerAgent(adapt=False)
    agent.tell_rules(applied.schema, [(c.entity, c.attribute, c.new) for c in applied.declared])
    believed = {sq.name: sq for sq in agent.believed.squares}
    for c in applied.declared:
        if not c.attribute.endswith("(charged)"):
            continue
        sq = believed[c.entity.removeprefix("square:")]
        if c.attribute.startswith("tax"):
            assert sq.tax == c.new
        else:
            assert list(sq.rent) == list(c.new)
    assert agent.believed != applied.schema  # the board itself still shows the old values


def test_other_changes_and_odd_values_leave_the_schema_alone() -> None:
    changes = [("rule:end_of_turn", "hotel upkeep", {"hotels": 1, "fee": 300}),
               ("square:Boardwalk", "rent (charged)", "a lot"),
               ("square:Luxury Tax", "tax (charged)", [1, 2]),
               ("square:Boardwalk", "price", 500)]
    assert charged_schema(STANDARD, changes) is STANDARD
