"""`legal.legal_actions` lists exactly the actions the checks accept, in board order.

The enumeration answers the checks' common refusals from facts gathered once per group
(issue 28's speed work); here it is compared, at every decision of random games under
random bank rules (GNOME's options, a bank that runs short, monopoly sizes) and on the
agents' public view as well as the engine's state, with the plain loop over
`legal.check_*` it replaced.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import openmono
from agents.random_agent import RandomAgent
from openmono import actions as A
from openmono import legal
from openmono.engine import Game
from test_properties import VARIANTS, make_schema


def reference(rules, view, seat: int, manage: bool) -> list:
    """The per-property part of `legal_actions`, one `check_*` per candidate."""
    out = []
    for sq in rules.properties:
        if view.owner[sq] != seat:
            continue
        if manage:
            if rules.is_street[sq] and legal.check_build(rules, view, seat, sq) is None:
                out.append(A.Build(sq))
            if legal.check_unmortgage(rules, view, seat, sq) is None:
                out.append(A.Unmortgage(sq))
        if legal.check_sell_building(rules, view, seat, sq) is None:
            out.append(A.SellBuilding(sq))
        if legal.check_mortgage(rules, view, seat, sq) is None:
            out.append(A.Mortgage(sq))
        if (rules.property_refund is not None
                and legal.check_sell_property(rules, view, seat, sq) is None):
            out.append(A.SellProperty(sq))
    return out


def _compare_game(schema, seed: int, bank_cash: int | None = None) -> int:
    game = Game(schema, 4, seed=seed)
    if bank_cash is not None:
        game.state.bank_cash = bank_cash
        game.invalidate_observations()
    agents = [RandomAgent(trade_rate=0.1) for _ in range(4)]
    for i, agent in enumerate(agents):
        agent.seed(seed * 7 + i)
    gen = game.run()
    compared = 0
    try:
        seat, d = next(gen)
        while True:
            obs = game.observe(seat, d)
            for rules, view in ((game.rules, game.state), (obs.rules, obs)):
                for manage in (True, False):
                    fast: list = []
                    legal._property_actions(rules, view, seat, manage, fast)
                    assert fast == reference(rules, view, seat, manage)
            compared += 1
            seat, d = gen.send(agents[seat].act(obs))
    except StopIteration:
        pass
    return compared


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=VARIANTS, seed=st.integers(0, 2**32 - 1),
       bank_cash=st.sampled_from([None, 0, 300, 2000]))
def test_the_enumeration_agrees_with_the_checks(variant: tuple, seed: int,
                                                 bank_cash: int | None) -> None:
    assert _compare_game(make_schema(variant), seed, bank_cash) > 0


def test_standard_and_gnome_games_agree() -> None:
    assert _compare_game(openmono.standard_schema(), 3) > 100
    assert _compare_game(openmono.gnome_schema(), 4) > 100


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=VARIANTS, data=st.data())
def test_buildable_streets_are_the_streets_build_blocked_passes(variant: tuple, data) -> None:
    """`legal.buildable_streets` (one pass over a group, what agents list their builds
    from) against `legal.build_blocked` street by street, on any board (owners, levels
    up to hotels, mortgages) under random bank rules, hotels sold by level or whole."""
    from openmono.compiled import compile_rules

    bank, sizes = variant
    bank = {**bank, "hotel_sale": data.draw(st.sampled_from(("levels", "whole")))}
    rules = compile_rules(make_schema((bank, sizes)))
    owner, level, mortgaged = [-1] * rules.n, [0] * rules.n, [False] * rules.n
    for sq in rules.properties:
        owner[sq] = data.draw(st.integers(-1, 2))
        mortgaged[sq] = owner[sq] >= 0 and data.draw(st.booleans())
        if rules.is_street[sq]:
            level[sq] = data.draw(st.sampled_from((0, 0, 1, 3, rules.max_level)))
    for seat in range(3):
        for g, members in enumerate(rules.group_members):
            assert legal.buildable_streets(rules, owner, level, mortgaged, seat, g) == [
                sq for sq in members
                if legal.build_blocked(rules, owner, level, mortgaged, seat, sq) is None]
