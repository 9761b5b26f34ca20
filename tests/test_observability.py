"""Observability levels: under `effects` agents are shown the rules as they were, and
learn of a novelty only through outcomes - events, refusals and new legal actions."""

from __future__ import annotations

from typing import Any

import pytest

import openmono
import openmono.hooks
from agents.base import Agent
from agents.baseline import BaselineAgent
from agents.random_agent import RandomAgent
from novelties import apply_novelty, available_novelties
from novelties.base import NoveltyError
from novelties.catalogue._common import set_bank
from novelties.inject import inject_now
from novelties.observability import check_observability, shown_schema
from openmono.engine import Game
from openmono.play import play_game

BASE = set_bank(openmono.standard_schema(), turn_limit=120)
STRUCTURAL = {"board_extend", "board_reverse", "board_shuffle", "board_stretch",
              "group_shuffle", "jail_relocated", "square_nudge"}  # the board's frame itself changes
# (what the observation-transform plugins change is what agents are shown, by design)


def _cases() -> list[tuple[str, str]]:
    out = []
    for name, cls in sorted(available_novelties().items()):
        if name in STRUCTURAL:
            continue
        for difficulty in ("easy", "hard"):
            p = apply_novelty(name, BASE, difficulty)
            if p.hooks.observation is None:
                out.append((name, difficulty))
    return out


CASES = _cases()


def test_effects_show_the_old_public_rules_for_all_but_structural_changes():
    for name in sorted(available_novelties()):
        for difficulty in ("easy", "medium", "hard"):
            p = apply_novelty(name, BASE, difficulty)
            shown = shown_schema(BASE, p.schema)
            same = shown.public_dict() == BASE.public_dict()
            assert same or name in STRUCTURAL, (name, difficulty)
            assert len(shown.squares) == len(p.schema.squares)


def test_a_bad_level_is_refused():
    assert check_observability("effects") == "effects"
    with pytest.raises(NoveltyError, match="announced, effects"):
        check_observability("hidden")


class Recorder(Agent):
    def __init__(self, inner: Agent, seen: list) -> None:
        super().__init__()
        self.inner, self.seen = inner, seen

    def seed(self, seed: int) -> None:
        self.inner.seed(seed)

    def begin_game(self, seat: int, obs: Any) -> None:
        self.inner.begin_game(seat, obs)

    def act(self, obs: Any) -> Any:
        self.seen.append(obs)
        return self.inner.act(obs)


def _observations(schema, hooks, shown) -> list:
    seen: list = []
    agents = [Recorder(BaselineAgent(), seen), Recorder(RandomAgent(), seen),
              BaselineAgent(), RandomAgent()]
    play_game(schema, agents, seed=21, hooks=hooks, shown=shown)
    return seen


# What may differ first: what happened (events), what is refused or newly allowed, and
# the decision asked (its phase and context: a sealed auction asks for a bid at 0).
INITIAL_STATE = ("cash", "houses_left", "hotels_left")
# (The bank's building stock is an outcome too: under building_limit the 4th level is a
# hotel, so building it returns 3 houses where the standard game takes a 4th; the
# building event is the same `level 4` in both games. Seen since issue 15's baseline.)
OUTCOMES = ("events", "refused", "plugin_actions", "phase", "seat", "square", "high_bid",
            "high_bidder", "owed", "creditor", "offer", "offerer", "houses_left",
            "hotels_left")


@pytest.mark.parametrize("name,difficulty", CASES, ids=[f"{n}-{d}" for n, d in CASES])
def test_under_effects_observations_differ_first_through_outcomes(name, difficulty):
    """Two games on one seed, standard and with the novelty under `effects`: the agents'
    observations are identical until one carries a changed outcome."""
    p = apply_novelty(name, BASE, difficulty)
    plain = _observations(BASE, openmono.hooks.NO_HOOKS, None)
    novel = _observations(p.schema, p.hooks, shown_schema(BASE, p.schema))
    for i, (a, b) in enumerate(zip(plain, novel)):
        if a != b:
            differ = [f for f in a._fields if getattr(a, f) != getattr(b, f)]
            # The starting position is itself an outcome (starting cash, the bank's
            # building stock), seen at the first decision.
            seen = OUTCOMES + (INITIAL_STATE if i == 0 else ())
            assert any(f in seen for f in differ), differ
            break


def test_payments_of_a_plugin_do_not_name_their_rule_under_effects():
    p = apply_novelty("jail_visit_fee", BASE, "easy")
    game = Game(p.schema, 4, seed=1, hooks=p.hooks, shown=shown_schema(BASE, p.schema))
    play_game(p.schema, [RandomAgent() for _ in range(4)], seed=1, hooks=p.hooks, game=game)
    reasons = {e.reason for e in game.events if e.kind == "payment"}
    assert "visit_fee" not in reasons and "rule_charge" in reasons
    announced = Game(p.schema, 4, seed=1, hooks=p.hooks)
    play_game(p.schema, [RandomAgent() for _ in range(4)], seed=1, hooks=p.hooks,
              game=announced)
    assert "visit_fee" in {e.reason for e in announced.events if e.kind == "payment"}


def test_mid_game_injection_under_effects_keeps_the_shown_rules():
    p = apply_novelty("rent_hike", BASE, "easy")  # a printed change
    game = Game(BASE, 4, seed=2)
    shown_before = game.public
    inject_now(game, p, observability="effects")
    assert game.rules.rent != shown_before.rent
    assert game.public.rent == shown_before.rent
    assert game.public.public_schema == BASE.public_dict()
    inject_now(Game(BASE, 4, seed=2), p)  # announced: the default


def test_a_logged_effects_game_replays_with_its_shown_rules():
    import io

    from openmono.play import replay

    p = apply_novelty("go_landing_bonus", BASE, "easy")
    log = io.StringIO()
    game = Game(p.schema, 4, seed=4, hooks=p.hooks, shown=shown_schema(BASE, p.schema))
    play_game(p.schema, [RandomAgent() for _ in range(4)], seed=4, hooks=p.hooks, game=game,
              log=log)
    again, _ = replay(log.getvalue().splitlines(), hooks=p.hooks)
    assert again.shown == game.shown and again.events == game.events


def test_a_trial_runs_under_effects_and_refuses_a_bad_level(tmp_path):
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig, TrialError

    cfg = TrialConfig(agent="baseline", novelty="go_salary", difficulty="easy",
                      observability="effects", games=3, inject_at=1, progress=False)
    summary = run_trial(cfg, tmp_path / "t")
    assert summary["observability"] == "effects" and summary["games"] == 3
    with pytest.raises(TrialError, match="announced' or 'effects'"):
        run_trial(TrialConfig(novelty="go_salary", observability="loud", games=3,
                              progress=False), tmp_path / "u")
    assert not (tmp_path / "u").exists()


def test_a_cash_cap_end_does_not_name_its_rule_under_effects():
    """A game ended by an unannounced cash cap reaches agents (GameOver, end_reason) as
    the generic "rule"; announced, or part of the base rules, it keeps its name."""
    capped = set_bank(BASE, cash_cap=1600)  # the first Go salary ends the game
    agents = [RandomAgent() for _ in range(4)]
    shown = Game(capped, 4, seed=3, shown=BASE)
    play_game(capped, agents, seed=3, game=shown)
    told = Game(capped, 4, seed=3)
    play_game(capped, agents, seed=3, game=told)
    assert told.end_reason == "cash_cap"
    assert shown.end_reason == "rule"
    assert [e.reason for e in shown.events if isinstance(e, openmono.events.GameOver)] == ["rule"]
