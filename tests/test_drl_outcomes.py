"""The DRL agents' model of what the table shows (`agents/drl/outcomes.py`): silent on
games without a novelty, contradicted by a changed rule, and its statistics saved with
every game's record."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import openmono
from agents.baseline import BaselineAgent
from agents.base import NoveltyReport
from agents.drl.outcomes import CALIBRATION_GAMES, OutcomeModel, combine
from agents.drl.train import world
from openmono import events as E
from openmono.protocol import ReportModel

STD = openmono.standard_schema()


class Watcher(BaselineAgent):
    """`baseline` that shows every observation to a model (no fixed answers)."""

    def __init__(self, model: OutcomeModel) -> None:
        super().__init__()
        self.model = model
        self.fixed_answers = None

    def begin_game(self, seat, observation) -> None:
        super().begin_game(seat, observation)
        self.model.begin_game(observation)

    def act(self, obs):
        self.model.observe(obs)
        return super().act(obs)

    def end_game(self, result) -> None:
        self.model.end_game()


def _play(model: OutcomeModel, games: int, first_seed: int, world_=(STD, None)) -> None:
    schema, hooks = world_
    for g in range(games):
        extra = {} if hooks is None else {"hooks": hooks}
        openmono.play_game(schema, [Watcher(model)] + [BaselineAgent() for _ in range(3)],
                           seed=first_seed + g, **extra)


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 10**6))
@example(1806)  # with 5 calibration games no unmortgage was seen, then one came 3 turns running
def test_no_contradiction_without_a_novelty(seed: int) -> None:
    """With the calibration the agents ship (15 games). A standard payment reason never
    seen while calibrating counts once it recurs (`_kind`); unmortgage, the rarest, is
    missing from about one `baseline` game in four, so from all 15 about once in 10^9."""
    model = OutcomeModel(calibration_games=CALIBRATION_GAMES)
    _play(model, CALIBRATION_GAMES + 20, seed)
    assert model.contradictions == 0, model.first
    assert model.alarm_game is None
    assert model.evidence()["firm_contexts"] > 50


@pytest.mark.parametrize("novelty", ["rent_hike", "board_shuffle", "go_salary", "rent_levy",
                                     "building_stock"])
def test_a_changed_rule_is_contradicted_after_calibration(novelty: str) -> None:
    """A changed amount (rents), a moved board, a salary taken away (`go_salary` hard: no
    payment at all), a new payment (a levy on rents) and a smaller bank (`building_stock`
    hard: seen only in the bank's count of houses and hotels)."""
    model = OutcomeModel(calibration_games=6)
    _play(model, 6, 0)
    assert model.contradictions == 0
    hard = novelty in ("go_salary", "building_stock")
    _play(model, 4, 100, world(novelty, "hard" if hard else "medium"))
    assert model.contradictions >= model.alarm
    assert model.alarm_game is not None and 7 <= model.alarm_game <= 10
    assert combine(NoveltyReport(), model).detected


@pytest.mark.parametrize("novelty,difficulty", [
    ("reworded_cards", "hard"), ("hidden_opponent_jail", "hard"),
    ("hidden_opponent_jail", "easy"), ("hidden_hotels", "medium")])
def test_what_the_table_shows_is_contradicted(novelty: str, difficulty: str) -> None:
    """Representation novelties: a card reads otherwise at the same index; an opponent
    moved to jail is not jailed, or is shown free while its events jailed it (and pays
    a jail fine while shown free); a hotel shown as four houses leaves the bank's
    buildings plus the board's more houses and fewer hotels than the bank started with."""
    model = OutcomeModel(calibration_games=6)
    _play(model, 6, 0)
    assert model.contradictions == 0
    _play(model, 8, 100, world(novelty, difficulty))
    assert model.alarm_game is not None and 7 <= model.alarm_game <= 14, model.first


def _obs(events=(), cash=(1500, 1500), plugin_actions=(), refused=frozenset()):
    return SimpleNamespace(rules=STD_RULES, cash=cash, events=tuple(events),
                           houses_left=32, hotels_left=12, in_jail=(False,) * len(cash),
                           active=(True,) * len(cash),
                           owner=(-1,) * 40, level=(0,) * 40, mortgaged=(False,) * 40,
                           plugin_actions=plugin_actions, refused=refused)


STD_RULES = openmono.engine.Game(STD, players=2, seed=0).observe(
    *next(openmono.engine.Game(STD, players=2, seed=0).run())).rules


def test_while_learning_a_context_with_two_outcomes_is_dropped_for_good() -> None:
    model = OutcomeModel(calibration_games=1)
    model.begin_game(_obs())
    tax = [E.Payment(0, E.BANK, 200, "tax", 4), E.Payment(0, E.BANK, 100, "tax", 4)]
    model.observe(_obs(tax))
    model.end_game()  # calibration over
    model.begin_game(_obs())
    model.observe(_obs([E.Payment(0, E.BANK, 300, "tax", 4)] * 3))
    assert model.contradictions == 0 and model.table[("tax", 4)] is None
    # a firm context (seen twice alike) is contradicted, once per sighting
    model.observe(_obs([E.Payment(0, E.BANK, 75, "tax", 38)] * 2))
    model.observe(_obs([E.Payment(0, E.BANK, 100, "tax", 38)] * 2))
    assert model.contradictions == 2
    model.end_game()
    assert model.alarm_game == 2


def test_street_repairs_are_assessed_on_the_buildings_at_the_draw() -> None:
    """A sale to pay the card comes between the draw and the payment: the card's amount
    is filed under the buildings the drawer had when it drew."""
    model = OutcomeModel(calibration_games=1)  # still learning: a second amount would drop it
    model.begin_game(_obs())
    board = dict(owner=(-1,) * 37 + (0, -1, 0), level=(0,) * 37 + (1, 0, 2))
    model.owner, model.level = list(board["owner"]), list(board["level"])
    first = _obs([E.CardDrawn(0, "community_chest", 13, "repairs"),
                  E.Payment(0, E.BANK, 120, "card")] * 2)
    model.observe(SimpleNamespace(**{**vars(first), **board}))
    sale = _obs([E.CardDrawn(0, "community_chest", 13, "repairs"),
                 E.Payment(E.BANK, 0, 100, "sell_building", 39),
                 E.BuildingChanged(0, 39, 1, "sold"),
                 E.Payment(0, E.BANK, 120, "card")])
    model.observe(SimpleNamespace(**{**vars(sale), **board}))
    assert model.table[("card", ("community_chest", 13), True, False, 3, 0)] == [120, 3]
    assert model.table[("sell_building", 39)] == [100.0, 1]


def test_a_new_payment_reason_is_surprising_when_it_recurs_turn_after_turn() -> None:
    """A rule's new payment (a levy on rents, say) shows turn after turn; a rare reason
    the calibration missed shows in a turn or two, perhaps in a burst (the transfer fees
    of one bankruptcy): only the first counts, once per game."""
    model = OutcomeModel(calibration_games=1)
    model.begin_game(_obs())
    model.observe(_obs([E.TurnStarted(0, 1), E.Payment(0, E.BANK, 200, "tax", 4)]))
    model.end_game()
    for game in range(2):
        model.begin_game(_obs())
        burst = [E.TurnStarted(0, 1)] + [E.Payment(1, E.BANK, 5, "transfer_fee", 3)] * 6
        model.observe(_obs(burst + [E.TurnStarted(1, 2), E.Payment(1, E.BANK, 5,
                                                                    "transfer_fee", 3)]))
        assert model.contradictions == game  # two turns: not yet
        for turn in range(3, 6):
            model.observe(_obs([E.TurnStarted(0, turn), E.Payment(0, 1, 3 + turn, "levy", 4)]))
        assert model.contradictions == game + 1  # once per game, in its third turn
        model.end_game()
    assert model.alarm_game == 3


def test_a_new_plugin_action_is_surprising_only_after_calibration() -> None:
    model = OutcomeModel(calibration_games=1)
    model.begin_game(_obs())
    model.observe(_obs(plugin_actions=(SimpleNamespace(kind="old_trick"),)))
    model.end_game()
    model.begin_game(_obs())
    model.observe(_obs(plugin_actions=(SimpleNamespace(kind="old_trick"),)))
    assert model.contradictions == 0
    model.observe(_obs(plugin_actions=(SimpleNamespace(kind="new_trick"),)))
    model.observe(_obs(refused=frozenset({3})))
    assert model.contradictions == 2


def test_the_report_carries_the_statistics_and_the_wire_accepts_them() -> None:
    model = OutcomeModel(calibration_games=2)
    report = combine(NoveltyReport(False, 0.2, evidence={"surprise": -3.0}), model)
    data = report.to_json()
    assert data["evidence"] == {"surprise": -3.0, "contradictions": 0.0,
                                "contradictions_total": 0.0, "firm_contexts": 0.0}
    assert not report.detected and report.confidence == 0.2
    assert ReportModel.model_validate(json.loads(json.dumps(data))).evidence == data["evidence"]
    assert "evidence" not in NoveltyReport().to_json()  # no statistics: nothing added


def test_every_game_record_keeps_the_detector_statistics(tmp_path) -> None:
    """So a new decision rule can be scored offline on old trials."""
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig
    from evaluation.harness.trial_folder import GAMES_FILE, read_records

    run_trial(TrialConfig(agent="hybrid_ddqn", opponents=["fp_a", "fp_b", "fp_c"],
                          reference=None, progress=False, games=3, seed=1), tmp_path)
    records = read_records(tmp_path / GAMES_FILE)
    assert len(records) == 3
    for r in records:
        ev = r["report"]["evidence"]
        assert {"surprise", "mean_reward", "contradictions", "firm_contexts"} <= set(ev)
        assert ev["contradictions"] == 0
