"""The DRL state/action encoding: exact action maps, masks equal to the engine's legality,
and survival under every catalogue novelty."""

from __future__ import annotations

import random

import numpy as np
import pytest

import openmono
from agents.base import Agent
from agents.drl import encoding as E
from agents.random_agent import RandomAgent
from novelties.registry import apply_novelty, available_novelties
from openmono import actions as A

STD = openmono.standard_schema()


class Explorer(Agent):
    """Plays uniformly over the encoded legal actions (fallback elsewhere) and keeps
    every observation it sees, so positions come from real games in every phase."""

    def __init__(self, rng_seed: int, keep: bool = True) -> None:
        super().__init__()
        self.enc = E.Encoder()
        self.r = random.Random(rng_seed)
        self.keep = keep
        self.seen: list = []

    def act(self, obs):
        if self.keep:
            self.seen.append(obs)
        x = self.enc.encode(obs)
        assert x.shape == (E.STATE_DIM,) and x.dtype == np.float32 and np.isfinite(x).all()
        m = self.enc.legal_mask(obs)
        assert m.shape == (E.ACTION_DIM,)
        if not m.any():
            return E.fallback_action(obs)
        idx = np.flatnonzero(m)
        trades = idx[idx < E.IMPROVE]
        if len(trades) and self.r.random() < 0.3:  # reach trade_response phases often
            return self.enc.action_of(int(self.r.choice(trades)), obs)
        return self.enc.action_of(int(self.r.choice(idx)), obs)


def _positions(games: int = 6, seed: int = 0, turn_limit: int = 150, schema=STD, hooks=None):
    seen = []
    for g in range(games):
        agents = [Explorer(seed * 100 + g), Explorer(seed * 100 + g + 50),
                  RandomAgent(trade_rate=0.2), RandomAgent()]
        sch = schema.model_copy(update={"bank": schema.bank.model_copy(
            update={"turn_limit": turn_limit})})
        kw = {} if hooks is None else {"hooks": hooks}
        res = openmono.play_game(sch, agents, seed=seed * 1000 + g, **kw)
        assert res.agent_faults[:2] == [0, 0], "the encoded actions must all be legal"
        seen += agents[0].seen + agents[1].seen
    return seen


POSITIONS = _positions(games=4, turn_limit=120)


def test_dimensions_and_layout() -> None:
    assert E.STATE_DIM == 240 and E.ACTION_DIM == 2922
    assert (E.SELL_OFFER - E.EXCHANGE, E.BUY_OFFER - E.SELL_OFFER, E.IMPROVE - E.BUY_OFFER) == (
        2268, 252, 252)
    assert (E.SELL_BUILDING - E.IMPROVE, E.MORTGAGE - E.SELL_BUILDING) == (44, 44)
    assert (E.FREE_MORTGAGE - E.MORTGAGE, E.SKIP - E.FREE_MORTGAGE) == (28, 28)
    assert E.PROPERTY_NAMES[0] == "Mediterranean Avenue" and E.PROPERTY_NAMES[-1] == "Boardwalk"


def test_positions_cover_every_network_phase() -> None:
    phases = {o.phase for o in POSITIONS}
    assert E.NETWORK_PHASES <= phases, phases


def test_round_trip_of_every_legal_engine_action() -> None:
    enc = E.Encoder()
    checked = 0
    for k, obs in enumerate(POSITIONS):
        if obs.phase not in E.NETWORK_PHASES:
            continue
        mask = enc.legal_mask(obs).copy()
        for a in obs.legal_actions():
            i = enc.index_of(a, obs)
            if type(a) is A.SellProperty:
                assert i is None  # not in the 2922 space (docs/drl.md)
                continue
            assert i is not None, (obs.phase, a)
            assert enc.action_of(i, obs) == a and mask[i]
            checked += 1
        # every masked index maps to a legal action that maps back to it
        for i in np.flatnonzero(mask) if k % 8 == 0 else ():
            a = enc.action_of(int(i), obs)
            assert obs.is_legal(a), (obs.phase, a, obs.why_illegal(a))
            assert enc.index_of(a, obs) == i
    assert checked > 1000


def test_mask_equals_engine_legality_over_the_whole_space() -> None:
    """On a sample of positions in every network phase: index i is in the mask exactly
    when its action is legal for the engine and is the action's own index."""
    enc = E.Encoder()
    rng = random.Random(3)
    by_phase: dict[str, list] = {}
    for o in POSITIONS:
        by_phase.setdefault(o.phase, []).append(o)
    sample = []
    for phase in E.NETWORK_PHASES:
        pool = by_phase[phase]
        sample += rng.sample(pool, min(12, len(pool)))
    trading = [o for o in POSITIONS if o.phase in E.TRADE_PHASES
               and sum(x >= 0 for x in o.owner) > 12]
    sample += rng.sample(trading, min(15, len(trading)))
    for obs in sample:
        mask = enc.legal_mask(obs).copy()
        for i in range(E.ACTION_DIM):
            a = enc.action_of(i, obs)
            expected = obs.is_legal(a) and enc.index_of(a, obs) == i
            assert mask[i] == expected, (obs.phase, i, a, obs.why_illegal(a))


def test_offer_masks_follow_a_ban_on_trading_mortgaged_property() -> None:
    """With `trade_mortgaged: false` a mortgaged property is in no offer the mask allows,
    exactly as the engine decides (the default rules trade it with its fee)."""
    schema = STD.model_copy(update={"bank": STD.bank.model_copy(
        update={"trade_mortgaged": False})})
    enc = E.Encoder()
    trading = [o for o in _positions(games=3, seed=4, turn_limit=150, schema=schema)
               if o.phase in E.TRADE_PHASES and o.can_offer_trade and any(o.mortgaged)]
    assert len(trading) > 20
    for obs in random.Random(5).sample(trading, 20):
        mask = enc.legal_mask(obs).copy()
        for i in range(E.IMPROVE):  # the offer blocks
            a = enc.action_of(i, obs)
            assert mask[i] == (obs.is_legal(a) and enc.index_of(a, obs) == i), (i, a)


def test_trade_offers_map_exactly() -> None:
    enc = E.Encoder()
    obs = next(o for o in POSITIONS if o.phase == "pre_roll")
    me = obs.seat
    to = (me + 2) % 4
    park, boardwalk = STD.index_of("Park Place"), STD.index_of("Boardwalk")
    for offer, block in [
        (A.OfferTrade(to, give=(park,), get=(boardwalk,)), E.EXCHANGE),
        (A.OfferTrade(to, give=(park,), get_cash=350 * 3 // 4), E.SELL_OFFER),
        (A.OfferTrade(to, get=(boardwalk,), give_cash=400 * 5 // 4), E.BUY_OFFER),
    ]:
        i = enc.index_of(offer, obs)
        assert i is not None and block <= i and enc.action_of(i, obs) == offer
    # outside the space: two properties, cash with an exchange, a jail card, odd cash
    for offer in [A.OfferTrade(to, give=(park, boardwalk)),
                  A.OfferTrade(to, give=(park,), get=(boardwalk,), give_cash=10),
                  A.OfferTrade(to, give=(park,), give_jail_cards=1),
                  A.OfferTrade(to, give=(park,), get_cash=351)]:
        assert enc.index_of(offer, obs) is None


def test_state_fields_by_hand() -> None:
    enc = E.Encoder()
    obs = next(o for o in POSITIONS if o.phase == "pre_roll" and o.turn > 30)
    x = enc.encode(obs).copy()
    me = obs.seat
    assert x[0] == pytest.approx(obs.position[me] / 40)
    assert x[1] == pytest.approx(min(10, obs.cash[me] / 1500))
    for j, name in enumerate(E.PROPERTY_NAMES):
        sq = STD.index_of(name)
        o = obs.owner[sq]
        one_hot = x[16 + 8 * j: 16 + 8 * j + 4]
        if o < 0:
            assert not one_hot.any()
        else:
            assert one_hot[(o - me) % 4] == 1 and one_hot.sum() == 1
        assert x[16 + 8 * j + 4] == float(obs.mortgaged[sq])


def test_reordered_board_keeps_slots_by_name() -> None:
    prepared = apply_novelty("board_shuffle", STD, "hard")
    from openmono.compiled import compile_rules
    lay = E.Layout(compile_rules(prepared.schema))
    names = compile_rules(prepared.schema).names
    for j, name in enumerate(E.PROPERTY_NAMES):
        assert names[int(lay.slot_sq[j])] == name


@pytest.mark.parametrize("name", sorted(available_novelties()))
def test_every_catalogue_novelty(name: str) -> None:
    """No crash, fixed shapes and legal encoded actions under every plugin (hard preset,
    where the changes are largest)."""
    prepared = apply_novelty(name, STD, "hard")
    seen = _positions(games=1, seed=7, turn_limit=25, schema=prepared.schema,
                      hooks=prepared.hooks)
    assert seen
    enc = E.Encoder()
    for obs in seen[::7]:
        mask = enc.legal_mask(obs)
        for i in np.flatnonzero(mask):
            assert obs.is_legal(enc.action_of(int(i), obs))


def _reference_state(obs) -> np.ndarray:
    """The state spelled out field by field (docs/drl.md), for the standard board."""
    r = obs.rules
    x = np.zeros(240, dtype=np.float32)
    me, n = obs.seat, len(obs.cash)
    for k in range(min(4, n)):
        s = (me + k) % n
        if obs.active[s]:
            x[4 * k: 4 * k + 4] = [obs.position[s] / r.n, min(10, max(-10, obs.cash[s] / 1500)),
                                   obs.in_jail[s], obs.jail_cards[s] > 0]
    max_houses = r.hotel_level - 1
    for j, name in enumerate(E.PROPERTY_NAMES):
        sq = r.names.index(name)
        o = obs.owner[sq]
        if o < 0:
            continue
        b = 16 + 8 * j
        x[b + (o - me) % n] = 1
        x[b + 4] = obs.mortgaged[sq]
        g = r.group_of[sq]
        x[b + 5] = sum(obs.owner[m] == o for m in r.group_members[g]) >= r.group_need[g]
        x[b + 6] = min(obs.level[sq], max_houses) / max_houses
        x[b + 7] = obs.level[sq] == r.hotel_level
    return x


def test_state_equals_the_field_by_field_reference() -> None:
    enc = E.Encoder()
    built = 0
    for obs in POSITIONS[::3]:
        x = enc.encode(obs)
        assert np.allclose(x, _reference_state(obs)), obs.turn
        built += any(obs.level)
    assert built > 10


def test_masks_follow_the_gnome_mortgage_and_building_options() -> None:
    """Under `rules=gnome` a street is mortgaged beside built ones and built beside a
    mortgaged one (docs/rules.md); the mask follows the engine, and whole games under
    those rules map every legal action."""
    from helpers import make_game

    from openmono.engine import Decision

    enc = E.Encoder()
    light_blue = {"Oriental Avenue": 0, "Vermont Avenue": 0, "Connecticut Avenue": 0}
    for schema, legal in ((STD, False), (openmono.gnome_schema(), True)):
        g = make_game(schema=schema, owner=light_blue, level={"Oriental Avenue": 1})
        obs = g.observe(0, Decision("pre_roll"))
        assert enc.legal_mask(obs)[enc.index_of(A.Mortgage(9), obs)] == legal
        g = make_game(schema=schema, owner=light_blue, mortgaged=["Connecticut Avenue"])
        obs = g.observe(0, Decision("pre_roll"))
        assert enc.legal_mask(obs)[enc.index_of(A.Build(6), obs)] == legal
        assert not enc.legal_mask(obs)[enc.index_of(A.Build(9), obs)]
    for obs in _positions(games=2, turn_limit=120, schema=openmono.gnome_schema()):
        if obs.phase not in E.NETWORK_PHASES:
            continue
        mask = enc.legal_mask(obs)
        for a in obs.legal_actions():
            i = enc.index_of(a, obs)
            if type(a) is not A.SellProperty:
                assert i is not None and mask[i] and enc.action_of(i, obs) == a


def test_blocks_of_the_action_space() -> None:
    """Each block's first and last index, and the ends of the space."""
    from agents.drl.encoding import BLOCKS, block_of

    starts = [start for _, start in BLOCKS]
    assert starts == sorted(starts) and starts[0] == 0
    for (name, start), nxt in zip(BLOCKS, [*starts[1:], E.ACTION_DIM]):
        assert block_of(start) == name and block_of(nxt - 1) == name
    assert block_of(E.SKIP) == "skip" and block_of(E.BUY) == "buy"
    assert block_of(E.SELL_OFFER - 1) == "exchange_offer"
    with pytest.raises(ValueError, match="outside"):
        block_of(E.ACTION_DIM)


def test_timing_counts_every_network_choice_by_block() -> None:
    from evaluation.timing import time_agent

    row = time_agent("hybrid_ddqn", games=1, seed=2)
    assert row["network_decisions"] > 0
    assert sum(row["choices"].values()) == row["network_decisions"]
    assert "buy" not in row["choices"] and "accept" not in row["choices"]  # the hybrid's rules


def test_timing_times_any_agent() -> None:
    from evaluation.timing import time_agent

    row = time_agent("planner", games=1, seed=0, opponents=("baseline",) * 3)
    assert row["decisions"] > 0 and row["median_us"] > 0 and "choices" not in row


def test_the_last_decision_is_kept_only_for_immutable_observations() -> None:
    """The encoder keeps the last mask and state for a decision on the same position; an
    observation holding lists (a hand-made one) is computed afresh each time, so a list
    changed in place is seen."""
    from openmono.engine import Game

    game = Game(STD, players=4, seed=3)
    seat, decision = next(game.run())
    obs = game.observe(seat, decision)
    enc = E.Encoder()
    x = enc.encode(obs).copy()
    m = enc.legal_mask(obs).copy()
    assert np.array_equal(enc.encode(obs), x) and np.array_equal(enc.legal_mask(obs), m)
    cash = list(obs.cash)
    listed = obs._replace(cash=cash)
    assert np.array_equal(enc.encode(listed), x)
    cash[seat] = 0  # in place: no money, so no unmortgage, no buy offers
    fresh = E.Encoder()
    assert np.array_equal(enc.encode(listed), fresh.encode(listed))
    assert enc.encode(listed)[1] == 0.0
    assert np.array_equal(enc.legal_mask(listed), fresh.legal_mask(listed))
