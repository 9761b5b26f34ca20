"""When offers, buildings and lifted mortgages may be made (`BankRules.trade_phases`,
`improve_phases`), and that every shipped agent and the DRL action mask follow it: under
`rules=gnome` none of them after the roll, no offer in debt, and no agent faults trying.
Also: docs/rules.md's table of differences names every schema field in which `gnome`
differs from `standard`, so a new difference cannot go unlisted."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import STANDARD, make_game
from hypothesis import given, settings
from hypothesis import strategies as st

import openmono
from agents.drl import encoding as ENC
from agents.registry import make_agent, told_rules
from openmono import actions as A
from openmono import legal
from openmono.engine import Decision
from openmono.legal import PHASES
from openmono.schema import MANAGE_PHASES, TRADE_PHASES, BankRules, GameSchema

GNOME = openmono.gnome_schema()
RULES_MD = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def test_the_phases_are_validated():
    assert STANDARD.bank.trade_phases == ("pre_roll", "out_of_turn", "post_roll", "debt")
    assert GNOME.bank.trade_phases == ("pre_roll", "out_of_turn")
    with pytest.raises(ValueError, match="named twice"):
        BankRules(trade_phases=("pre_roll", "pre_roll"))
    with pytest.raises(ValueError):
        BankRules(trade_phases=("buy",))
    assert BankRules(trade_phases=()).trade_phases == ()  # a game without trading


@settings(max_examples=40, deadline=None)
@given(trade=st.lists(st.sampled_from(TRADE_PHASES), unique=True),
       improve=st.lists(st.sampled_from(MANAGE_PHASES), unique=True),
       phase=st.sampled_from(PHASES), made=st.integers(0, 7))
def test_actions_are_legal_exactly_in_the_phases_the_rules_name(trade, improve, phase, made):
    """Whatever phases a schema names: engine check, observation, `legal_actions` and
    `can_offer_trade` agree; an offer is legal exactly in `trade_phases` (while the
    phase's offers last), a building and a lifted mortgage exactly in `improve_phases`."""
    schema = STANDARD.model_copy(update={"bank": STANDARD.bank.model_copy(
        update={"trade_phases": tuple(trade), "improve_phases": tuple(improve)})})
    g = make_game(2, schema=schema, owner={"Baltic Avenue": 1, "Park Place": 0,
                                           "Boardwalk": 0, "Reading Railroad": 0},
                  mortgaged=["Reading Railroad"])
    d = Decision(phase)
    for _ in range(made):
        d.count_offer()
    obs = g.observe(0, d)
    offer = A.OfferTrade(to=1, get=(3,), give_cash=100)
    expected = phase in trade and made < schema.bank.max_trade_offers_per_phase
    assert (legal.check(g.rules, g.state, 0, d, offer) is None) == expected
    assert obs.is_legal(offer) == expected and obs.can_offer_trade == expected
    for action in (A.Build(37), A.Unmortgage(5)):
        # (a building won at a building auction is placed in its own phase)
        expected = phase in improve or (phase == "place_building" and type(action) is A.Build)
        assert (legal.check(g.rules, g.state, 0, d, action) is None) == expected
        if phase != "trade_response":  # (its legal actions are the answers only)
            assert (action in obs.legal_actions()) == expected


# --- the DRL action mask ---------------------------------------------------------------------

def _bits(schema: GameSchema, phase: str) -> tuple[int, int]:
    """(offer indexes, build and lift-mortgage indexes) the mask allows seat 0 in
    `phase`, holding a set and a mortgaged railroad."""
    g = make_game(3, schema=schema, owner={"Baltic Avenue": 1, "Oriental Avenue": 2,
                                           "Park Place": 0, "Boardwalk": 0,
                                           "Reading Railroad": 0},
                  mortgaged=["Reading Railroad"])
    m = ENC.Encoder().legal_mask(g.observe(0, Decision(phase)))
    improve = m[ENC.IMPROVE:ENC.SELL_BUILDING].sum() + m[ENC.FREE_MORTGAGE:ENC.SKIP].sum()
    return int(m[:ENC.IMPROVE].sum()), int(improve)


@pytest.mark.parametrize("phase", ["pre_roll", "out_of_turn", "post_roll"])
def test_the_drl_mask_offers_and_builds_only_where_the_rules_allow(phase):
    offers, improve = _bits(STANDARD, phase)
    assert offers > 0 and improve == 3  # two streets to build, one mortgage to lift
    offers, improve = _bits(GNOME, phase)
    assert (offers > 0, improve > 0) == ((True, True) if phase != "post_roll" else (False, False))


# --- every shipped agent, whole games --------------------------------------------------------

class Watch:
    """Passes every call through to `agent`, counting the phases of its offers."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.offers: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)

    def act(self, obs: Any) -> Any:
        action = self.agent.act(obs)
        if type(action) is A.OfferTrade:
            self.offers[obs.phase] += 1
        return action


# Every shipped agent that makes offers, against fp_a, baseline and fp_b (GNOME's accept
# rule: they take most offers, so the agent keeps trading).
AGENTS = ["baseline", "fp_a", "fp_c", "fp_plus_a", "baseline_v0", "planner", "hybrid_ppo", "ppo",
          "hybrid_ddqn", "ddqn", "random"]


@pytest.mark.parametrize("name", AGENTS)
def test_no_agent_offers_where_the_gnome_rules_forbid_it(name):
    schema = GNOME.model_copy(update={"bank": GNOME.bank.model_copy(
        update={"turn_limit": 160})})
    params = {"trade_rate": 0.3} if name == "random" else {}
    watched = Counter[str]()
    faults = 0
    for seed in range(3):
        me = Watch(make_agent(name, **told_rules(name, dict(params), "gnome")))
        others = [make_agent(n) for n in ("fp_a", "baseline", "fp_b")]
        res = openmono.play_game(schema, [me, *others], seed=seed)
        watched += me.offers
        faults += res.agent_faults[0]
    assert faults == 0
    assert sum(watched.values()) > 0  # it traded: the check below was put to it
    assert set(watched) <= set(GNOME.bank.trade_phases), watched


# --- docs/rules.md: the table of differences -------------------------------------------------

# Table rows about a field both rule sets set alike: a GNOME behaviour without a setting
# of its own (the turn limit is a safety net; GNOME has none).
SAME_IN_BOTH = {"turn_limit"}


def _table_options() -> set[str]:
    text = RULES_MD.read_text()
    table = text.split("## Differences, each a schema option", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and not set(cells[1]) <= set("-: "):
            names.update(re.findall(r"`([a-z_]+)`", cells[1]))
    return names


def _differing(a: GameSchema, b: GameSchema) -> set[str]:
    bank = {f for f in BankRules.model_fields
            if getattr(a.bank, f) != getattr(b.bank, f)}
    top = {f for f in GameSchema.model_fields
           if f not in ("name", "bank") and getattr(a, f) != getattr(b, f)}
    return bank | top


def test_the_rules_table_lists_every_difference_between_the_rule_sets():
    listed = _table_options()
    differing = _differing(STANDARD, GNOME)
    assert "trade_phases" in differing and "decks" in differing
    assert differing - listed == set(), "differences missing from docs/rules.md"
    fields = set(BankRules.model_fields) | set(GameSchema.model_fields)
    assert listed - fields == set(), "table rows naming no schema field"
    assert listed - differing == SAME_IN_BOTH, "table rows for fields set alike"
