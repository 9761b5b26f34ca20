"""The registered DRL agents: shipped weights load and play, bad weights fail in one
line naming the file, the hybrid rules, and the surprise detector."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import make_game

import openmono
from agents.drl import encoding as E
from agents.drl.agent import WEIGHTS_DIR, DRLAgent
from agents.drl.hybrid import accept_decision, buy_decision, sets_gained
from agents.drl.surprise import SurpriseDetector
from agents.registry import AgentLoadError, make_agent
from openmono import actions as A
from openmono.engine import Decision

STD = openmono.standard_schema()
NAMES = ["ppo", "hybrid_ppo", "ddqn", "hybrid_ddqn"]
SHORT = STD.model_copy(update={"bank": STD.bank.model_copy(update={"turn_limit": 120})})


@pytest.mark.parametrize("name", NAMES)
def test_shipped_weights_load_and_play(name: str) -> None:
    assert (WEIGHTS_DIR / f"{name}.npz").is_file()
    agent = make_agent(name)
    res = openmono.play_game(SHORT, [agent, make_agent("fp_a"), make_agent("fp_b"),
                                     make_agent("fp_c")], seed=3)
    assert res.agent_faults == [0, 0, 0, 0]
    assert agent.network_decisions > 0
    report = agent.novelty_report()
    assert 0.0 <= report.confidence <= 1.0


def test_user_weights_and_bad_files(tmp_path) -> None:
    ok = make_agent("hybrid_ppo", weights=str(WEIGHTS_DIR / "ppo.npz"))
    assert ok.name == "hybrid_ppo"
    missing = tmp_path / "nope.npz"
    with pytest.raises(AgentLoadError) as e:
        make_agent("ppo", weights=str(missing))
    assert str(missing) in str(e.value) and "\n" not in str(e.value)
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(AgentLoadError) as e:
        make_agent("ddqn", weights=str(corrupt))
    assert str(corrupt) in str(e.value) and "\n" not in str(e.value)
    # a PPO file given to a DDQN agent: arrays missing
    with pytest.raises(AgentLoadError, match="missing array"):
        make_agent("ddqn", weights=str(WEIGHTS_DIR / "ppo.npz"))
    wrong = tmp_path / "wrong.npz"
    with np.load(WEIGHTS_DIR / "ddqn.npz") as d:
        arrays = {k: d[k] for k in d.files}
    arrays["q.W0"] = arrays["q.W0"][:, :10]
    np.savez(wrong, **arrays)
    with pytest.raises(AgentLoadError) as e:
        make_agent("hybrid_ddqn", weights=str(wrong))
    assert str(wrong) in str(e.value) and "shape" in str(e.value)


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="unknown detector"):
        DRLAgent("ppo", "hybrid", detector="magic")
    with pytest.raises(ValueError, match="unknown variant"):
        DRLAgent("ppo", "halfway")


def _buy_obs(cash: int, owner: dict, square: str):
    game = make_game(players=2, cash={0: cash}, owner=owner)
    return game.observe(0, Decision("buy", square=STD.index_of(square)))


def test_hybrid_buy_rule() -> None:
    # completes the brown set: buy when affordable, even with little left
    assert buy_decision(_buy_obs(70, {"Mediterranean Avenue": 0}, "Baltic Avenue")) == A.BUY
    assert buy_decision(_buy_obs(50, {"Mediterranean Avenue": 0}, "Baltic Avenue")) == A.DECLINE
    # otherwise only with $200 to spare
    assert buy_decision(_buy_obs(599, {}, "Boardwalk")) == A.DECLINE
    assert buy_decision(_buy_obs(600, {}, "Boardwalk")) == A.BUY


def _offer_obs(offer, owner):
    game = make_game(players=2, cash={0: 1500, 1: 1500}, owner=owner)
    return game.observe(0, Decision("trade_response", offer=offer, offerer=1))


def test_hybrid_accept_rule() -> None:
    park, bw = STD.index_of("Park Place"), STD.index_of("Boardwalk")
    med, baltic = STD.index_of("Mediterranean Avenue"), STD.index_of("Baltic Avenue")
    # gives me the dark-blue set for Mediterranean and $300: more sets -> accept
    offer = A.OfferTrade(0, give=(bw,), get=(med,), get_cash=300)
    assert accept_decision(_offer_obs(offer, {park: 0, med: 0, bw: 1})) == A.ACCEPT
    # same sets, net worth (eq. 5) 400 - (60 + 300) > 0 -> accept; 400 - 460 < 0 -> reject
    assert accept_decision(_offer_obs(offer, {med: 0, bw: 1})) == A.ACCEPT
    worse = A.OfferTrade(0, give=(bw,), get=(med,), get_cash=400)
    assert accept_decision(_offer_obs(worse, {med: 0, bw: 1})) == A.REJECT
    # breaks my brown set even though it pays well -> reject
    breaks = A.OfferTrade(0, give_cash=1000, get=(med,))
    assert accept_decision(_offer_obs(breaks, {med: 0, baltic: 0})) == A.REJECT


def _complete_sets(rules, owner, seat, gains=(), losses=()) -> int:
    """The paper's count over the whole board (what `sets_gained` differences)."""
    return sum(1 for g, members in enumerate(rules.group_members) if members and sum(
        1 for m in members if (owner[m] == seat and m not in losses) or m in gains
    ) >= rules.group_need[g])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_sets_gained_counts_only_the_groups_that_move(data) -> None:
    rules = openmono.compile_rules(openmono.standard_schema())
    props = list(rules.properties)
    owner = [-1] * rules.n
    for sq in props:
        owner[sq] = data.draw(st.integers(-1, 3))
    owner = tuple(owner)
    seat = data.draw(st.integers(0, 3))
    gains = data.draw(st.lists(st.sampled_from(props), max_size=3))
    losses = data.draw(st.lists(st.sampled_from(props), max_size=3))
    assert sets_gained(rules, owner, seat, gains, losses) == (
        _complete_sets(rules, owner, seat, set(gains), set(losses))
        - _complete_sets(rules, owner, seat))


def test_hybrid_never_lets_the_network_buy_or_accept() -> None:
    agent = make_agent("hybrid_ppo", detector="none")
    seen = []
    original = agent.enc.legal_mask

    def spy(obs, out=None):
        m = original(obs, out)
        seen.append(obs.phase)
        return m
    agent.enc.legal_mask = spy
    openmono.play_game(SHORT, [agent, make_agent("random"), make_agent("random"),
                               make_agent("random")], seed=5)
    assert seen and not {"buy", "trade_response"} & set(seen)
    obs = _buy_obs(1500, {}, "Boardwalk")
    assert agent.act(obs) == buy_decision(obs)


def test_surprise_detector_stays_quiet_then_alarms() -> None:
    rng = np.random.default_rng(0)
    det = SurpriseDetector()
    confidences = []
    for g in range(80):
        det.begin_game()
        shift = 0.0 if g < 50 else 3.0  # the model's errors triple after game 50
        for _ in range(30):
            det.observe(prediction=rng.normal(0, 1 + shift), reward=rng.normal(0.5, 0.05))
        det.end_game(won=False)
        confidences.append(det.report().confidence)
        if g < 50:
            assert not det.report().detected
    rep = det.report()
    assert rep.detected and det.alarm_game is not None and 50 < det.alarm_game <= 60
    assert confidences[-1] >= confidences[det.alarm_game - 1] > confidences[40]


def test_encoder_fallback_in_bids_and_debt() -> None:
    game = make_game(players=2, cash={0: 100}, owner={"Boardwalk": 0})
    obs = game.observe(0, Decision("debt", owed=300, creditor=1))
    assert E.fallback_action(obs) == A.MORTGAGE[STD.index_of("Boardwalk")]
    game = make_game(players=2, cash={0: 500})
    obs = game.observe(0, Decision("bid", square=STD.index_of("Baltic Avenue"), high_bid=10))
    assert E.fallback_action(obs) == A.Bid(11)
    obs = game.observe(0, Decision("bid", square=STD.index_of("Baltic Avenue"), high_bid=60))
    assert E.fallback_action(obs) == A.DROP_OUT


def _false_alarm_rate(draw, trials: int = 400, games: int = 100) -> float:
    """Share of simulated control trials (i.i.d. games, no novelty) with an alarm."""
    rng = np.random.default_rng(1)
    alarms = 0
    for _ in range(trials):
        det = SurpriseDetector()
        for _ in range(games):
            det.add_game(*draw(rng))
        alarms += det.alarm_game is not None
    return alarms / trials


def test_surprise_detector_keeps_its_budget_on_skewed_games() -> None:
    """A game's mean reward is right-skewed (a won game's eq. 4 share is several times a
    lost one's, as in real hybrid_ppo control trials: median 0.3, max 3): the detector's
    false alarms must stay within its 5% budget per 100-game trial whatever the shape,
    not only for normal statistics."""
    def skewed(rng):
        return rng.normal(-4.0, 0.4), 0.25 + rng.pareto(1.5) * 0.1

    def normal(rng):
        return rng.normal(-4.0, 0.4), rng.normal(0.4, 0.1)

    assert _false_alarm_rate(skewed) <= 0.06
    assert _false_alarm_rate(normal) <= 0.06


def test_detector_none_as_the_command_line_gives_it() -> None:
    """`agent.hybrid_ppo.detector=none` reaches the agent as None (the command-line parser
    reads none/null as None); it must mean no detector, not an unknown one."""
    from evaluation.harness.cli import AgentOptions
    from openmono_cli import parse

    options = parse(AgentOptions, ["agent.hybrid_ppo.detector=none"]).agent
    agent = make_agent("hybrid_ppo", **options["hybrid_ppo"])
    assert agent.detector is None


@pytest.mark.parametrize("name", ["ddqn", "hybrid_ddqn"])
def test_a_playing_ddqn_takes_its_best_q_value(name: str) -> None:
    """Outside training a DDQN exploits (epsilon 0). A learner loaded from weights has
    taken no training step, so its schedule's epsilon is eps_start = 1: a playing agent
    that followed the schedule would act uniformly at random whatever its weights."""
    agent = make_agent(name, detector="none")
    learner = agent.learner
    took_best: list[bool] = []
    choose = learner.choose

    def spy(x, idx, rng, greedy):
        i, q = choose(x, idx, rng, greedy)
        took_best.append(i == int(idx[np.argmax(learner.q_values(x, idx))]))
        return i, q

    learner.choose = spy
    openmono.play_game(SHORT, [agent, make_agent("fp_a"), make_agent("fp_b"),
                               make_agent("fp_c")], seed=5)
    assert len(took_best) > 20 and all(took_best)


@pytest.mark.parametrize("seed", [0, 1])
def test_an_untrained_standard_ppo_buys_what_it_can_afford(seed: int) -> None:
    """The untrained policy's start (the prior) must not bias it against buying: Decline
    shares its index with pass/conclude (SKIP), whose prior is high, so BUY needs one at
    least as high, or a from-scratch agent never buys and never wins."""
    from agents.drl.agent import make_learner

    agent = DRLAgent("ppo", "standard", learner=make_learner("ppo", seed=seed),
                     detector="none")
    obs = _buy_obs(1500, {}, "Illinois Avenue")
    buys = sum(agent.act(obs) == A.BUY for _ in range(200))
    assert buys >= 100


def test_an_offer_cost_charges_each_offer_and_nothing_else() -> None:
    """`ppo.offer_cost`: the same training game (no update inside it) records the same
    actions, and each offer's reward is lower by exactly the cost."""
    from agents.drl import encoding as E
    from agents.drl.agent import make_learner

    def rewards(cost: float) -> tuple[list[int], list[float]]:
        learner = make_learner("ppo", seed=3, offer_cost=cost)
        agent = DRLAgent("ppo", "hybrid", learner=learner, training=True, detector="none")
        openmono.play_game(SHORT, [agent, make_agent("fp_a"), make_agent("fp_b"),
                                   make_agent("fp_c")], seed=11)
        return list(learner.actions), list(learner.rewards)

    free_actions, free = rewards(0.0)
    actions, charged = rewards(0.25)
    assert actions == free_actions
    offers = [a < E.IMPROVE for a in actions]
    assert sum(offers) > 0
    assert charged == pytest.approx([r - 0.25 * o for r, o in zip(free, offers)])


@pytest.mark.parametrize("name", ["hybrid_ppo", "ddqn"])
def test_the_detector_sees_each_decisions_own_estimate(name: str, monkeypatch) -> None:
    """The detector gets, in order, one estimate per network decision: PPO's critic value of
    that decision's state (computed in one batch at the game's end) or DDQN's chosen
    Q-value; the same numbers a pass per decision gives."""
    agent = make_agent(name, detector="surprise")
    states, fed, chosen = [], [], []
    encode, choose = agent.enc.encode, agent.learner.choose

    def spy_encode(*a):
        x = encode(*a)
        states.append(x.copy())
        return x

    def spy_choose(*a, **k):
        out = choose(*a, **k)
        chosen.append(out[1])
        return out
    monkeypatch.setattr(agent.enc, "encode", spy_encode)
    monkeypatch.setattr(agent.learner, "choose", spy_choose)
    monkeypatch.setattr(agent.detector, "observe", lambda p, r, level=None: fed.append(p))
    openmono.play_game(SHORT, [agent, make_agent("fp_a"), make_agent("fp_b"),
                               make_agent("fp_c")], seed=5)
    assert len(fed) == len(states) == agent.network_decisions > 10
    if name == "ddqn":
        assert fed == chosen
    else:
        one_by_one = [float(agent.learner.critic.forward_one(x)[0]) for x in states]
        assert fed == pytest.approx(one_by_one, rel=1e-4, abs=1e-5)
