"""The shared ownership facts of the rule-based agents: the incremental update (used
when a few squares changed hands since the last owner tuple) always equals a full
recount, and never changes an answer already handed out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import openmono
from agents import policy_helpers as H
from openmono.compiled import compile_rules
from openmono.observation import public_rules

RULES = public_rules(compile_rules(openmono.standard_schema()))
PROPS = RULES.properties

changes = st.lists(st.tuples(st.sampled_from(PROPS), st.integers(-1, 3)), min_size=1,
                   max_size=7)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(changes, min_size=1, max_size=40))
def test_incremental_ownership_equals_a_full_recount(steps):
    owner = [-1] * RULES.n
    H.tables(RULES).owner_key = None
    for step in steps:
        for sq, seat in step:
            owner[sq] = seat
        t = tuple(owner)
        counts, held = H.ownership(RULES, t, 4)
        full_counts, full_held = H._ownership_full(RULES, t, 4)
        assert counts == full_counts and held == full_held
        assert H.ownership(RULES, t, 4)[0] is counts  # the same tuple is a cache hit


def test_an_answer_handed_out_is_never_mutated():
    owner = [-1] * RULES.n
    H.tables(RULES).owner_key = None
    first = H.ownership(RULES, tuple(owner), 4)
    before = ([row[:] for row in first[0]], list(first[1]))
    owner[PROPS[0]] = 2
    second = H.ownership(RULES, tuple(owner), 4)
    assert second[0][2] != before[0][2]  # the update happened...
    assert ([row[:] for row in first[0]], list(first[1])) == before  # ...on copies


def test_each_rules_keeps_its_own_ownership_cache():
    """Two rule sets at two tables do not evict each other's answers (the cache lives
    with the rules' tables, not in a module global)."""
    other = public_rules(compile_rules(openmono.standard_schema()))
    owner = tuple([-1] * RULES.n)
    a = H.ownership(RULES, owner, 4)
    b = H.ownership(other, owner, 3)
    assert H.ownership(RULES, owner, 4) is a and H.ownership(other, owner, 3) is b


def test_a_full_cache_keeps_the_rules_in_play():
    """With the per-rules cache full (many rule sets seen before, as late in a long test
    run), a new rule set evicts the least recently asked one, not the tables in play."""
    H._TABLES.clear()
    H._LAST_TABLES[:] = [None, None]
    H.tables(RULES)
    keep = []
    while len(H._TABLES) <= 64:  # full: the next new rules must evict one
        keep.append(public_rules(compile_rules(openmono.standard_schema())))
        H.tables(keep[-1])
    owner = tuple([-1] * RULES.n)
    a = H.ownership(RULES, owner, 4)
    other = public_rules(compile_rules(openmono.standard_schema()))
    H.ownership(other, owner, 3)
    assert H.ownership(RULES, owner, 4) is a
