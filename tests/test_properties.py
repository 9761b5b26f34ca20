"""Property tests: the engine's invariants hold after every decision of random games.

Games are driven through `Game.run()` directly so the invariants can be checked at every
decision, not only at the end: the books balance from Payment events alone, ownership
and buildings stay within the rules and the bank's stock, nobody holds negative cash,
bankrupt players own nothing, and the enumerated legal actions are exactly what
`legal.check` (the engine's gate) accepts. Schemas vary a little (cash, stock, salary,
doubles, auctions, property sell-back, monopoly sizes) so the rules' options are covered.
Some decisions are replaced by random (often illegal) actions: the engine must refuse
exactly those `check` refuses, with a Fault event, and the invariants must still hold.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import openmono
from agents.random_agent import RandomAgent
from openmono import actions as A
from openmono import legal
from openmono.engine import AgentFault, Decision, Game
from openmono.events import BANK, Fault, GameOver, Payment, event_to_json
from openmono.schema import GameSchema
from openmono.state import NOBODY, has_monopoly

STANDARD = openmono.standard_schema()
_STD = STANDARD.model_dump(mode="json")
MAX_DECISIONS = 200_000  # a game that needs more has not terminated

# --- schemas ---------------------------------------------------------------------------------


BANK_VARIANTS = st.fixed_dictionaries({
    "starting_cash": st.sampled_from([150, 400, 800, 1500, 3000]),
    "go_salary": st.sampled_from([0, 50, 200, 400]),
    "jail_fine": st.sampled_from([0, 50, 200]),
    "max_jail_turns": st.integers(1, 3),
    "house_stock": st.sampled_from([0, 1, 3, 8, 32]),
    "hotel_stock": st.sampled_from([0, 1, 2, 12]),
    "doubles_roll_again": st.booleans(),
    "doubles_to_jail": st.integers(0, 3),
    "auction": st.sampled_from(["english", "sealed"]),
    "auction_on_decline": st.booleans(),
    "property_sellback": st.sampled_from([None, 0.5]),
    "building_sellback": st.sampled_from([0.0, 0.5, 1.0]),
    "mortgage_interest": st.sampled_from([0.0, 0.1, 0.25]),
    "even_build": st.booleans(),
    "trade_mortgaged": st.booleans(),
    "mortgage_beside_buildings": st.booleans(),
    "build_beside_mortgaged": st.booleans(),
    "out_of_turn_rounds": st.integers(0, 2),
    "turn_limit": st.integers(10, 120),
})
GROUP_SIZES = {g.name: len(STANDARD.group_members(g.name)) for g in STANDARD.groups}
# Some groups get a monopoly size smaller than the group (1 = any single street).
MONOPOLY_SIZES = st.dictionaries(
    st.sampled_from(sorted(GROUP_SIZES)), st.integers(1, 4), max_size=4
).map(lambda d: {g: min(n, GROUP_SIZES[g]) for g, n in d.items()})
VARIANTS = st.tuples(BANK_VARIANTS, MONOPOLY_SIZES)


def make_schema(variant: tuple[dict, dict]) -> GameSchema:
    """The standard board with the bank rules and monopoly sizes of `variant`."""
    bank, sizes = variant
    groups = [{**g, "monopoly_size": sizes.get(g["name"], g["monopoly_size"])}
              for g in _STD["groups"]]
    return GameSchema.model_validate({**_STD, "bank": {**_STD["bank"], **bank},
                                      "groups": groups})


# --- invariants ------------------------------------------------------------------------------


class Books:
    """Cash per seat recomputed from Payment events alone."""

    def __init__(self, game: Game) -> None:
        self.cash = [game.rules.bank.starting_cash] * game.players
        self.seen = 0

    def update(self, game: Game) -> None:
        players = game.players
        for ev in game.events[self.seen:]:
            if type(ev) is Payment:
                assert isinstance(ev.amount, int) and ev.amount > 0, ev
                assert ev.payer != ev.payee, ev
                assert ev.payer == BANK or 0 <= ev.payer < players, ev
                assert ev.payee == BANK or 0 <= ev.payee < players, ev
                if ev.payer != BANK:
                    self.cash[ev.payer] -= ev.amount
                if ev.payee != BANK:
                    self.cash[ev.payee] += ev.amount
        self.seen = len(game.events)
        assert self.cash == game.state.cash, "cash changed without a Payment event"


def check_state(game: Game) -> None:
    """Every invariant of a state between decisions (and at the end)."""
    rules = game.rules
    s = game.state
    b = rules.bank
    n = rules.n
    players = game.players
    assert all(isinstance(c, int) and c >= 0 for c in s.cash), s.cash
    assert len(s.owner) == len(s.level) == len(s.mortgaged) == n
    houses = hotels = 0
    for sq in range(n):
        o, lv, m = s.owner[sq], s.level[sq], s.mortgaged[sq]
        if not rules.is_property[sq]:
            assert o == NOBODY and lv == 0 and not m, f"non-property {sq} is owned or built"
            continue
        assert o == NOBODY or (0 <= o < players and s.active[o]), f"square {sq} owner {o}"
        if m:
            assert o != NOBODY, f"unowned square {sq} is mortgaged"
        assert 0 <= lv <= rules.max_level, f"square {sq} level {lv}"
        if lv:
            assert rules.is_street[sq] and o != NOBODY, f"buildings on {sq}"
            g = rules.group_of[sq]
            assert rules.group_buildable[g] and has_monopoly(rules, s.owner, o, g), (
                f"buildings on {sq} without a monopoly")
            assert not m, f"buildings on mortgaged {sq}"
            if rules.group_need[g] == len(rules.group_members[g]) and not (
                    b.mortgage_beside_buildings or b.build_beside_mortgaged):
                # (With a smaller monopoly size a builder may receive a mortgaged member
                # by trade or bankruptcy; it then cannot build more until it unmortgages.
                # GNOME's options allow mortgages and buildings side by side.)
                for mem in rules.group_members[g]:
                    assert not (s.owner[mem] == o and s.mortgaged[mem]), (
                        f"buildings on {sq} in a group with a mortgaged street {mem}")
            if lv == rules.hotel_level:
                hotels += 1
            else:
                houses += lv
    assert s.houses_left >= 0 and s.hotels_left >= 0
    assert s.houses_left + houses == b.house_stock, "houses created or lost"
    assert s.hotels_left + hotels == b.hotel_stock, "hotels created or lost"
    # Every card of every deck is in the deck or in exactly one player's hand.
    for d, deck in enumerate(rules.decks):
        held = [c for p in range(players) for dd, c in s.jail_cards[p] if dd == d]
        assert sorted(s.decks[d] + held) == list(range(len(deck))), f"deck {d} lost a card"
    for p in range(players):
        assert 0 <= s.position[p] < n
        if s.active[p]:
            if s.in_jail[p]:
                assert s.position[p] == rules.jail
                # (== max only while raising cash for the forced fine)
                assert 0 <= s.jail_turns[p] <= b.max_jail_turns
            else:
                assert s.jail_turns[p] == 0
        else:
            assert s.cash[p] == 0, f"bankrupt seat {p} kept cash"
            assert not s.jail_cards[p], f"bankrupt seat {p} kept a jail card"
            assert not s.in_jail[p]
            assert p not in s.owner, f"bankrupt seat {p} still owns a square"
    assert s.turn <= b.turn_limit


def candidate_actions(n: int) -> list[A.Action]:
    """A broad universe of discrete actions, legal or not (incl. off-board squares)."""
    out: list[A.Action] = [A.CONCLUDE, A.BUY, A.DECLINE, A.DROP_OUT, A.PAY_JAIL_FINE,
                           A.USE_JAIL_CARD, A.ACCEPT, A.REJECT]
    for sq in range(-1, n + 1):
        out += [A.Build(sq), A.SellBuilding(sq), A.Mortgage(sq), A.Unmortgage(sq),
                A.SellProperty(sq)]
    return out


UNIVERSE = candidate_actions(len(STANDARD.squares))


def check_decision(game: Game, seat: int, d: Decision, via_obs: bool = True) -> Any:
    """Decision-level invariants, and legal set == accepted set. Returns the observation.

    With `via_obs` the observation's own check must agree with the engine's on every
    candidate (it reads counts of jail cards and public data only).
    """
    rules = game.rules
    s = game.state
    assert s.active[seat], "an inactive seat was asked to decide"
    assert "go_to_jail" not in [rules.kind_names[pos] for pos in s.position]
    if d.phase == "debt":
        assert s.cash[seat] < d.owed, "a debt phase for a player who can pay"
    if d.phase == "buy":
        assert s.owner[d.square] == NOBODY and s.position[seat] == d.square
    if d.phase == "bid":
        assert s.owner[d.square] == NOBODY
    if d.phase == "trade_response":
        assert d.offer.to == seat
    obs = game.observe(seat, d)
    enumerated = obs.legal_actions()
    assert enumerated == legal.legal_actions(rules, s, seat, d)
    assert len(set(enumerated)) == len(enumerated), "an action is listed twice"
    for a in enumerated:
        assert legal.check(rules, s, seat, d, a) is None, (d.phase, a)
    core = {a for a in enumerated if a.kind in A.CORE_ACTION_KINDS and type(a) is not A.Bid}
    accepted = set()
    for a in UNIVERSE:
        ok = legal.check(rules, s, seat, d, a) is None
        if via_obs:
            assert ok == obs.is_legal(a), (d.phase, a)
        if ok:
            accepted.add(a)
    assert accepted == core, (d.phase, accepted ^ core)
    # Bids: the cheapest legal bid is enumerated exactly when one exists.
    cash = s.cash[seat]
    low = d.high_bid + 1
    bids = [a for a in enumerated if type(a) is A.Bid]
    if d.phase in ("bid", "building_bid") and cash >= low:  # building_bid: a shortage
        assert bids == [A.Bid(low)]
        assert legal.check(rules, s, seat, d, A.Bid(cash)) is None
    else:
        assert not bids
        assert legal.check(rules, s, seat, d, A.Bid(max(low, 1))) is not None
    assert legal.check(rules, s, seat, d, A.Bid(d.high_bid)) is not None
    assert legal.check(rules, s, seat, d, A.Bid(cash + 1)) is not None
    return obs


def random_offer(rng: random.Random, game: Game, seat: int) -> A.OfferTrade:
    """An arbitrary, often illegal, trade offer."""
    props = game.rules.properties
    return A.OfferTrade(
        to=rng.randrange(-1, game.players + 1),
        give=tuple(rng.sample(props, rng.randint(0, 2))),
        get=tuple(rng.sample(props, rng.randint(0, 2))),
        give_cash=rng.choice([0, 0, 10, 500, 10**6, -5]),
        get_cash=rng.choice([0, 0, 10, 500]),
        give_jail_cards=rng.choice([0, 0, 1]),
        get_jail_cards=rng.choice([0, 0, 1]),
    )


def drive(schema: GameSchema, seed: int, players: int = 4, chaos: float = 0.0,
          trade_rate: float = 0.05, checks: bool = True) -> Game:
    """Play a game with random agents, checking everything at every decision.

    With probability `chaos` a decision is answered by an arbitrary action instead; the
    engine must then record a Fault exactly when `legal.check` refuses it.
    """
    game = Game(schema, players=players, seed=seed)
    agents = [RandomAgent(trade_rate=trade_rate) for _ in range(players)]
    for i, agent in enumerate(agents):
        agent.seed(game.seeds[f"agent{i}"])
        agent.begin_game(i, game.observe(i, Decision("begin_game")))
    rng = random.Random(seed)
    books = Books(game)
    gen = game.run()
    seat, d = next(gen)
    for _ in range(MAX_DECISIONS):
        books.update(game)
        if checks:
            check_state(game)
            obs = check_decision(game, seat, d, via_obs=rng.random() < 0.25)
        else:
            obs = game.observe(seat, d)
        if chaos and rng.random() < chaos:
            pick = rng.random()
            if pick < 0.15:
                action: Any = random_offer(rng, game, seat)
            elif pick < 0.2:
                action = AgentFault("test fault")
            elif pick < 0.22:
                action = rng.choice([None, "conclude", 7, A.Bid("many")])
            else:
                action = rng.choice(UNIVERSE)
            legal_now = (not isinstance(action, AgentFault)
                         and legal.check(game.rules, game.state, seat, d, action) is None)
        else:
            action = agents[seat].act(obs)
            legal_now = True
        before = len(game.events)
        try:
            request = gen.send(action)
        except StopIteration:
            request = None
        # One action is validated per send: a Fault, first of the new events, iff illegal.
        new = game.events[before:]
        faults = [e for e in new if type(e) is Fault]
        if legal_now:
            assert not faults, f"a legal action was refused: {action!r} {faults}"
        else:
            assert faults and new[0] == faults[0], f"an illegal action ran: {action!r}"
        if request is None:
            break
        seat, d = request
    else:
        raise AssertionError("the game did not terminate")
    books.update(game)
    check_state(game)
    assert isinstance(game.events[-1], GameOver)
    assert sum(isinstance(e, GameOver) for e in game.events) == 1
    assert game.winner is not None and game.state.active[game.winner]
    assert game.state.turn <= schema.bank.turn_limit
    if game.end_reason == "bankruptcy":
        assert sum(game.state.active) == 1
    return game


# --- properties ------------------------------------------------------------------------------

SEEDS = st.integers(0, 2**32 - 1)
FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(variant=VARIANTS, seed=SEEDS, players=st.integers(2, 4))
def test_invariants_hold_at_every_decision(variant: tuple, seed: int, players: int) -> None:
    drive(make_schema(variant), seed, players, trade_rate=0.15)


@settings(FAST, max_examples=25)
@given(variant=VARIANTS, seed=SEEDS)
def test_illegal_actions_are_refused_and_invariants_hold(variant: tuple, seed: int) -> None:
    drive(make_schema(variant), seed, 4, chaos=0.3)


@settings(max_examples=5, deadline=None)
@given(seed=SEEDS, players=st.integers(2, 4))
def test_standard_games_to_the_end(seed: int, players: int) -> None:
    """Whole standard games (turn limit 1000), checked at every decision."""
    drive(STANDARD, seed, players)


def _log(schema: GameSchema, seed: int) -> list[dict]:
    agents = [RandomAgent(trade_rate=0.1) for _ in range(4)]
    game = Game(schema, players=4, seed=seed)
    openmono.play_game(schema, agents, seed=seed, game=game)
    return [event_to_json(e) for e in game.events]


@settings(max_examples=10, deadline=None)
@given(variant=VARIANTS, seed=SEEDS)
def test_same_seed_same_event_log(variant: tuple, seed: int) -> None:
    schema = make_schema(variant)
    first = _log(schema, seed)
    assert first == _log(schema, seed)
    assert first != _log(schema, seed + 1)


def test_invariant_checks_can_fail() -> None:
    """The checks above are not vacuous: a corrupted state is caught."""
    game = Game(STANDARD, players=4, seed=1)
    books = Books(game)
    game.state.cash[0] += 1
    try:
        books.update(game)
    except AssertionError:
        pass
    else:
        raise AssertionError("a cash change without a Payment went unnoticed")
    game = Game(STANDARD, players=4, seed=1)
    game.state.set_level(1, 1)
    game.state.set_owner(1, 0)
    try:
        check_state(game)
    except AssertionError:
        pass
    else:
        raise AssertionError("a house without a monopoly went unnoticed")
