"""The planner's colour-set inference (`agents.planner.detection.groups`): from builds and
unimproved rents it recovers which set each street belongs to, and it stays silent when
the sets did not change."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import openmono
from agents.baseline import BaselineAgent
from agents.planner.agent import PlannerAgent
from agents.planner.detect import NoveltyDetector
from agents.planner.detection.groups import GroupChecker
from novelties.observability import shown_schema
from novelties.registry import apply_novelty
from openmono.compiled import compile_rules
from openmono.play import play_game

STANDARD = openmono.standard_schema()


def partition(schema) -> set[frozenset[str]]:
    sets: dict[str, set[str]] = {}
    for s in schema.squares:
        if s.kind == "street":
            sets.setdefault(s.group, set()).add(s.name)
    return {frozenset(v) for v in sets.values()}


def constraints_of(truth, holdings: list[frozenset[int]]) -> set:
    """What builds and rents would show in world `truth` for these holdings."""
    R = compile_rules(truth)
    out = set()
    for held in holdings:
        for s in held:
            g = R.group_of[s]
            is_set = all(m in held for m in R.group_members[g])
            mask = sum(1 << t for t in held)
            out.add((s, mask, is_set, is_set))  # a set shows as a build too
    return out


@pytest.mark.parametrize("name", ["group_reassign", "group_merge"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_the_search_recovers_the_true_sets(name, seed):
    truth = apply_novelty(name, STANDARD, "easy").schema
    R = compile_rules(truth)
    rng = random.Random(seed)
    holdings = []
    groups = [m for m in R.group_members if m and R.is_street[m[0]]]
    for _ in range(150):  # random holdings, most of them including a whole true set
        held = set(rng.sample(R.streets, rng.randint(2, 8)))
        draw = rng.random()
        if draw < 0.7:
            held.update(rng.choice(groups))
        elif draw < 0.85:  # all of a set but one: what tells a set from its parts
            group = rng.choice(groups)
            left_out = rng.choice(group)
            held.update(m for m in group if m != left_out)
            held.discard(left_out)
        holdings.append(frozenset(held))
    checker = NoveltyDetector(STANDARD).checker(GroupChecker)
    checker.constraints = dict.fromkeys(constraints_of(truth, holdings), 0)
    found = checker.search()
    assert found is not None
    names = checker.det.R.names
    sets: dict[int, set[str]] = {}
    for s, g in found.items():
        sets.setdefault(g, set()).add(names[s])
    assert {frozenset(v) for v in sets.values()} == partition(truth)


def test_constraints_of_the_standard_sets_change_nothing():
    R = compile_rules(STANDARD)
    rng = random.Random(3)
    holdings = [frozenset(rng.sample(R.streets, 6)) for _ in range(80)]
    checker = NoveltyDetector(STANDARD).checker(GroupChecker)
    checker.constraints = dict.fromkeys(constraints_of(STANDARD, holdings), 0)
    assert checker.adopt() is False and checker.det.group_override == {}


def _play(name: str | None, difficulty: str, games: int, seed: int) -> PlannerAgent:
    agent = PlannerAgent()
    schema, hooks, shown = STANDARD, None, None
    if name is not None:
        applied = apply_novelty(name, STANDARD, difficulty)
        schema, hooks, shown = applied.schema, applied.hooks, shown_schema(STANDARD,
                                                                             applied.schema)
    for g in range(games):
        play_game(schema, [agent] + [BaselineAgent() for _ in range(3)], seed=seed + g,
                  shown=shown, informed=(1, 2, 3), **({"hooks": hooks} if hooks else {}))
    return agent


@pytest.mark.parametrize("name, difficulty", [(None, ""), ("rent_hike", "medium"),
                                              ("monopoly_size", "easy")])
def test_no_sets_are_moved_where_none_moved(name, difficulty):
    agent = _play(name, difficulty, 8, seed=4_000)
    assert not [c for c in agent.novelty_report().changes if c.attribute == "group"]
    assert agent.detector.group_override == {}


def test_under_effects_the_planner_learns_the_new_sets():
    """group_reassign moves eight streets between sets; opponents shown the true rules
    build on the true sets. The planner believes the true partition within a few games
    and names moved streets in the ground truth's vocabulary."""
    applied = apply_novelty("group_reassign", STANDARD, "easy")
    agent = _play("group_reassign", "easy", 8, seed=5_000)
    assert partition(agent.believed) == partition(applied.schema)
    moved = {c["entity"] for c in applied.ground_truth if c["attribute"] == "group"}
    named = {c.entity for c in agent.novelty_report().changes if c.attribute == "group"}
    assert named and named <= moved | {f"square:{s.name}" for s in STANDARD.squares}
    assert len(named & moved) >= len(moved) // 2


@pytest.mark.parametrize("difficulty", ["medium", "hard"])
def test_under_effects_the_planner_learns_how_many_streets_make_a_set(difficulty):
    """monopoly_size makes two streets of a three-street group a set: rents doubled on
    two of three (and builds there) are read as a smaller set, not as a rent factor."""
    applied = apply_novelty("monopoly_size", STANDARD, difficulty)
    truth = {g.name: g.monopoly_size for g in applied.schema.groups if g.monopoly_size}
    agent = _play("monopoly_size", difficulty, 10, seed=5_000)
    believed = {g.name: g.monopoly_size for g in agent.believed.groups if g.monopoly_size}
    assert believed and all(truth.get(name) == k for name, k in believed.items())
    named = {c.entity for c in agent.novelty_report().changes
             if c.attribute == "monopoly_size"}
    assert named <= {f"group:{name}" for name in truth}


def test_a_change_in_the_middle_of_a_trial_is_learnt_too():
    """The novelty arrives after games the old sets explained (a SAIL-ON trial): the
    constraints of those games must not block the new partition. (They filled the store
    and contradicted the new sets, so the planner never adopted them mid-trial.)"""
    applied = apply_novelty("group_reassign", STANDARD, "easy")
    agent = PlannerAgent()
    for g in range(12):  # the old world first
        play_game(STANDARD, [agent] + [BaselineAgent() for _ in range(3)], seed=6_000 + g)
    shown = shown_schema(STANDARD, applied.schema)
    for g in range(12, 22):
        play_game(applied.schema, [agent] + [BaselineAgent() for _ in range(3)],
                  seed=6_000 + g, shown=shown, informed=(1, 2, 3))
    assert partition(agent.detector.believed_schema) == partition(applied.schema)
