"""The cost of ignoring a novelty (`evaluation.impact`) and who is shown what
(`novelty.opponents`): the seats the engine informs, the pairing of the three versions,
the statistics and the command's JSON line."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

import openmono
from agents.base import Agent
from evaluation.sweeps import impact
from evaluation.sweeps.impact import ImpactOptions, cost_of_ignorance, play_version
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig, TrialError
from novelties import apply_novelty
from novelties.observability import shown_schema
from openmono import actions as A
from openmono.engine import Game
from openmono.hooks import NO_HOOKS
from openmono.play import play_game

BASE = openmono.standard_schema()
REASSIGN = apply_novelty("group_reassign", BASE, "easy")


class RulesSeen(Agent):
    """Concludes everything; remembers the rules of each observation it was handed."""

    def __init__(self) -> None:
        self.seen: list = []

    def act(self, obs):  # noqa: ANN001
        self.seen.append(obs.rules)
        return A.DECLINE if obs.phase == "buy" else obs.legal_actions()[0]


# --- the engine: per-seat views ------------------------------------------------------
def test_informed_seats_see_the_true_rules_the_others_the_shown_ones():
    shown = shown_schema(BASE, REASSIGN.schema)
    game = Game(REASSIGN.schema, players=4, seed=1, shown=shown, informed=frozenset({1, 3}))
    true = Game(REASSIGN.schema, players=4, seed=1).public
    old = Game(shown, players=4, seed=1).public
    assert true.group_members != old.group_members  # the novelty is visible in the rules
    assert [p.group_members for p in game.publics] == [
        old.group_members, true.group_members, old.group_members, true.group_members]


def test_play_game_informs_agents_by_index_whatever_their_seats():
    shown = shown_schema(BASE, REASSIGN.schema)
    true = Game(REASSIGN.schema, players=4, seed=1).public.group_members
    for seed in range(4):  # seats are shuffled per seed
        agents = [RulesSeen() for _ in range(4)]
        log = io.StringIO()
        play_game(REASSIGN.schema, agents, seed=seed, shown=shown, informed=(2,), log=log)
        for i, agent in enumerate(agents):
            assert agent.seen
            assert all((r.group_members == true) == (i == 2) for r in agent.seen), (seed, i)
        header = json.loads(log.getvalue().splitlines()[0])
        assert header["informed"] == [header["seats"].index(2)]


# --- the trial option ------------------------------------------------------------------
FAST = dict(agent="random", opponents=["random"] * 3, reference="random", progress=False,
            novelty="group_reassign", difficulty="easy", observability="effects", inject_at=0)


def test_opponents_view_is_validated_and_recorded(tmp_path: Path):
    with pytest.raises(TrialError, match="informed, shown"):
        TrialConfig(**FAST, opponents_view="all").validate()
    summary = run_trial(TrialConfig(**FAST, games=2), tmp_path / "informed")
    assert summary["opponents_view"] == "informed"
    ident = json.loads((tmp_path / "informed" / "trial.json").read_text())
    assert ident["opponents_view"] == "informed"


def test_a_folder_from_before_the_option_resumes_as_shown(tmp_path: Path):
    """Trial folders from before the option played with the opponents shown the old
    rules: their identity has no key, which is what `shown` writes."""
    run_trial(TrialConfig(**FAST, games=2, opponents_view="shown"), tmp_path)
    assert "opponents_view" not in json.loads((tmp_path / "trial.json").read_text())
    run_trial(TrialConfig(**FAST, games=2, opponents_view="shown"), tmp_path)  # the same
    with pytest.raises(TrialError, match="opponents_view"):
        run_trial(TrialConfig(**FAST, games=2), tmp_path)


# --- the three versions ------------------------------------------------------------------
def _opts(**kw) -> ImpactOptions:
    return ImpactOptions(**{"novelty": "group_reassign", "difficulty": "easy", "games": 4,
                            "trial_games": 2, **kw})


def test_with_nothing_changed_the_three_versions_play_the_same_games(monkeypatch):
    """The pairing: same seeds, seats and dice for every version, so a novelty that
    changes nothing leaves the three versions' games identical."""
    world = impact._world

    def unchanged(opts):
        base, applied = world(opts)
        return base, dataclasses.replace(applied, schema=base, hooks=NO_HOOKS)

    monkeypatch.setattr(impact, "_world", unchanged)
    opts = _opts(games=6, trial_games=3)
    played = [play_version(opts, v) for v in impact.VERSIONS]
    assert played[0] == played[1] == played[2]
    assert len({turns for _, _, turns in played[0]}) > 1  # six different games


def test_versions_play_alike_until_the_first_decision_that_differs():
    """Oracle and blind share every event of a game up to a decision they answer
    differently: nothing but the agent's answers (no seat, seed or dice) tells the two
    apart."""
    from novelties.observability import shown_schema as face

    logs = {}
    for version, shown, believe in (("oracle", None, True),
                                    ("blind", face(BASE, REASSIGN.schema), False)):
        from agents.planner.agent import PlannerAgent
        from agents.baseline import BaselineAgent

        agent = PlannerAgent(adapt=False)
        if believe:
            agent.set_believed_schema(REASSIGN.schema)
        log = io.StringIO()
        play_game(REASSIGN.schema, [agent] + [BaselineAgent() for _ in range(3)], seed=7,
                  shown=shown, informed=(1, 2, 3), log=log)
        logs[version] = [json.loads(line) for line in log.getvalue().splitlines()[1:]]
    pairs = list(zip(logs["oracle"], logs["blind"]))
    first = next(i for i, (a, b) in enumerate(pairs) if a != b)
    a, b = pairs[first]
    assert first > 0 and a["type"] == b["type"] == "decision"
    assert a["seat"] == b["seat"] and a["phase"] == b["phase"] and a["action"] != b["action"]


def test_cost_and_recovery_statistics():
    same = cost_of_ignorance([1, 0, 1, 1], [1, 0, 1, 1], [1, 0, 1, 1])
    assert same["cost"] == 0 and same["cost_ci"] == [0, 0]
    assert same["recovered"] is None and same["recovered_ci"] is None
    oracle, blind = [1] * 40, [1, 0] * 20
    half = cost_of_ignorance(oracle, blind, [1, 1, 1, 0] * 10, seed=3)
    assert half["cost"] == 0.5 and 0 < half["cost_ci"][0] < 0.5 < half["cost_ci"][1]
    assert half["recovered"] == 0.5
    lo, hi = half["recovered_ci"]
    assert 0 <= lo < 0.5 < hi <= 1
    with pytest.raises(ValueError, match="same games"):
        cost_of_ignorance([1], [1, 0], [1])


def test_the_command_prints_one_json_line(capsys):
    assert impact.main(["novelty=rent_hike", "difficulty=easy", "games=2", "trial_games=1",
                        "seed=5"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    record = json.loads(out[0])
    for key in ("oracle", "blind", "adaptive", "cost", "cost_ci", "recovered",
                "recovered_ci", "games", "same_games", "oracle_worth"):
        assert key in record, key
    assert record["games"] == 2 and record["opponents_view"] == "informed"


@pytest.mark.parametrize("argv, needle", [
    (["difficulty=easy"], "novelty is required"),
    (["novelty=nope"], "unknown novelty"),
    (["novelty=rent_hike", "observability=hidden"], "'effects' or 'announced'"),
    (["novelty=rent_hike", "novelty.opponents=all"], "'informed' or 'shown'"),
    (["novelty=rent_hike", "agent=nobody"], "nobody"),
])
def test_bad_input_is_one_line(argv, needle, capsys):
    with pytest.raises(SystemExit) as exc:
        impact.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and needle in err[0]


def test_a_biting_preset_costs_the_blind_planner_games():
    """group_reassign (easy) moves streets between colour groups: a planner that values
    the old groups builds on sets it does not hold. On a small fixed sample its cost of
    ignorance is positive with an interval clear of 0."""
    record = impact.measure(_opts(games=24, trial_games=24, seed=11))
    assert record["oracle"] > record["blind"]
    assert record["cost_ci"][0] > 0



def test_a_biting_class_preset_costs_the_blind_planner_and_the_told_one_avoids_it():
    """building_tax (easy) charges 200 a house and 800 a hotel on tax squares, a rule no
    schema writes: the oracle is told it through the rules the plugin declares, values
    buildings by it, and beats the blind planner on a small fixed sample."""
    record = impact.measure(_opts(novelty="building_tax", games=24, trial_games=24, seed=11))
    assert record["oracle"] > record["blind"]
    assert record["cost_ci"][0] > 0

# --- the catalogue screen -------------------------------------------------------------
def test_the_screen_resumes_and_writes_the_measured_file(tmp_path: Path):
    from evaluation.sweeps.impact_screen import RECORDS, ScreenOptions, screen, write_measured
    from novelties.measured import DATA_FILE

    opts = ScreenOptions(novelties=["rent_hike"], presets=["easy"], games=2, trial_games=1,
                         out=str(tmp_path))
    assert screen(opts) == 1
    with (tmp_path / RECORDS).open("a") as fh:
        fh.write('{"novelty": "rent_hi')  # a line cut by a kill
    assert screen(opts) == 0  # done already: nothing re-played
    assert screen(opts.model_copy(update={"seed": 7})) == 1  # other settings: measured
    data_file = tmp_path / "measured.json"
    data_file.write_text(DATA_FILE.read_text())
    assert write_measured(opts, data_file) == 1
    cell = json.loads(data_file.read_text())["plugins"]["rent_hike"]["easy"]
    assert cell["ignorance"]["games"] == 2 and cell["ignorance"]["seed"] == 1000
    assert cell["ignorance"]["command"] == ("python -m evaluation.impact novelty=rent_hike "
                                            "difficulty=easy games=2 seed=1000 trial_games=1")
    assert "bites" not in cell["flags"]


def test_a_screen_does_not_overwrite_a_larger_measurement(tmp_path: Path):
    """The band is measured on 1,000 games of other seeds; a later 300-game screen of
    the whole catalogue must not replace it in the measured file."""
    from evaluation.sweeps.impact_screen import ScreenOptions, screen, write_measured
    from novelties.measured import DATA_FILE

    opts = ScreenOptions(novelties=["rent_hike"], presets=["easy"], games=2, trial_games=1,
                         out=str(tmp_path))
    assert screen(opts) == 1
    data = json.loads(DATA_FILE.read_text())
    band = {"cost": 0.2, "cost_ci": [0.15, 0.25], "games": 1000, "seed": 2000}
    data["plugins"]["rent_hike"]["easy"]["ignorance"] = band
    data_file = tmp_path / "measured.json"
    data_file.write_text(json.dumps(data))
    assert write_measured(opts, data_file) == 0
    assert json.loads(data_file.read_text())["plugins"]["rent_hike"]["easy"]["ignorance"] == band


def test_a_record_of_a_preset_since_changed_is_not_written(tmp_path: Path):
    """A record names the parameters its preset had; once the preset changes, the old
    record is stale and is neither written into the measured file nor shown."""
    from evaluation.sweeps.impact_screen import (RECORDS, ScreenOptions, page_table,
                                                  read_records, screen, write_measured)
    from novelties.measured import DATA_FILE

    opts = ScreenOptions(novelties=["rent_hike"], presets=["easy"], games=2, trial_games=1,
                         out=str(tmp_path))
    assert screen(opts) == 1
    (record,) = read_records(tmp_path / RECORDS)
    assert record["preset"] == {"factor": 1.5, "groups": "all", "printed": True}
    record["preset"] = {**record["preset"], "factor": 9.0}  # as if the preset had changed
    (tmp_path / RECORDS).write_text(json.dumps(record) + "\n")
    data_file = tmp_path / "measured.json"
    data_file.write_text(DATA_FILE.read_text())
    assert write_measured(opts, data_file) == 0
    assert page_table(read_records(tmp_path / RECORDS))["rows"] == []


def test_a_preset_bites_only_when_measured_large_and_clear_of_ten_points():
    from novelties.measured import bites, cost_text

    def cell(cost, lo, games=1000):
        return {"ignorance": {"cost": cost, "cost_ci": [lo, cost + 0.05], "games": games}}

    assert bites(cell(0.2, 0.12))
    assert not bites(cell(0.2, 0.09))  # the interval reaches below 10 points
    assert not bites(cell(0.14, 0.11))  # too small
    assert not bites(cell(0.3, 0.2, games=300))  # a screen, not the band's sample
    assert not bites({}) and cost_text({}) == "?"
    assert cost_text(cell(0.2, 0.12)) == "+20 [+12,+25]"


def test_a_sweep_selects_the_biting_band(monkeypatch):
    from evaluation.measures import detection_bands
    from evaluation.sweeps import detection_plan

    big = {"ignorance": {"cost": 0.3, "cost_ci": [0.2, 0.4], "games": 1000}}
    small = {"ignorance": {"cost": 0.02, "cost_ci": [-0.01, 0.05], "games": 1000}}
    cells = {("group_reassign", "easy"): big, ("rent_hike", "easy"): small}
    monkeypatch.setattr(detection_bands, "load_cells", lambda path=None: cells)
    assert detection_plan.chosen_cells(["bites"]) == [("group_reassign", "easy")]
    monkeypatch.setattr(detection_bands, "load_cells", lambda path=None: {})
    with pytest.raises(ValueError, match="no cell chosen"):
        detection_plan.chosen_cells(["bites"])


@pytest.mark.parametrize("view", ["informed", "shown"])
def test_verify_recomputes_what_the_opponents_were_shown(tmp_path: Path, view):
    from evaluation.reports.verify import check_trial

    run_trial(TrialConfig(**FAST, games=2, opponents_view=view), tmp_path)
    code, line = check_trial(tmp_path)
    assert code == 0, line


def test_a_sweep_names_what_the_opponents_are_shown():
    """New sweeps under effects inform the opponents (or not, by option); a spec or a
    saved sweep from before the option played with them shown the old rules."""
    from evaluation.sweeps import detection_plan, detection_report, detection_trials

    specs = detection_plan.plan(1, 0, 0, 4, (0.3, 0.6), "planner", "effects")
    assert {s["opponents_view"] for s in specs} == {"informed"}
    specs = detection_plan.plan(1, 0, 0, 4, (0.3, 0.6), "planner", "effects", opponents_view="shown")
    assert detection_trials.trial_for(specs[0], "out")[1].opponents_view == "shown"
    old = {k: v for k, v in specs[0].items() if k != "opponents_view"}
    assert detection_trials.trial_for(old, "out")[1].opponents_view == "shown"
    assert "opponents_view" not in detection_plan.plan(1, 0, 0, 4, (0.3, 0.6), "planner")[0]
    saved = {"args": {"observability": "effects"}, "trials": []}
    assert detection_report.saved_args(saved).opponents_view == "shown"


def test_the_page_table_sorts_by_cost_and_flags_what_bites():
    from evaluation.sweeps.impact import preset_params
    from evaluation.sweeps.impact_screen import page_table

    def rec(name, cost, lo, games=1000, difficulty="easy"):
        preset = preset_params(ImpactOptions(novelty=name, difficulty=difficulty))
        return {"novelty": name, "difficulty": difficulty, "oracle": 0.9,
                "blind": 0.9 - cost, "adaptive": 0.9, "cost": cost,
                "cost_ci": [lo, cost + 0.03], "recovered": 1.0, "recovered_ci": [0.9, 1.0],
                "games": games, "preset": preset}

    table = page_table([rec("group_split", 0.05, 0.01), rec("group_merge", 0.20, 0.16),
                        rec("board_shuffle", 0.30, 0.2, games=100),
                        rec("group_split", 0.12, 0.11), rec("rent_collapse", 0.10, 0.05),
                        rec("hotel_upkeep", 0.01, -0.01)])
    # by category (class, attribute, representation), then the largest cost first
    assert [r[:2] for r in table["rows"]] == [
        ["class", "`hotel_upkeep`"], ["attribute", "`rent_collapse`"],
        ["representation", "`board_shuffle`"], ["representation", "`group_merge`"],
        ["representation", "`group_split`"]]
    assert [r[-1] for r in table["rows"]][2:] == ["no", "yes", "no"]  # few games; bites; low
    assert table["rows"][4][6] == "+12 (+11 to +15)"  # the newest record of a preset


def test_games_before_the_novelty_are_played_and_not_counted(monkeypatch):
    """`before=N`: each trial opens with N games under the old rules (its own seeds), so
    the adaptive version meets the novelty with evidence of the world before it; they
    are not counted, and the record names the option."""
    schemas = []
    real = impact.play_game

    def spy(schema, players, **kw):
        schemas.append(schema)
        return real(schema, players, **kw)

    monkeypatch.setattr(impact, "play_game", spy)
    opts = _opts(games=4, trial_games=2, before=3)
    base, applied = impact._world(opts)
    played = play_version(opts, "adaptive")
    assert len(played) == 4
    assert [s == base for s in schemas] == ([True] * 3 + [False] * 2) * 2
    monkeypatch.setattr(impact, "play_game", real)
    record = impact.measure(_opts(games=2, trial_games=2, before=1))
    assert record["before"] == 1 and "before" not in impact.measure(_opts(games=2,
                                                                          trial_games=2))


def test_old_screen_records_count_as_without_games_before(tmp_path: Path):
    from evaluation.sweeps.impact_screen import ScreenOptions, _matches

    from evaluation.sweeps.impact import preset_params

    opts = ScreenOptions(games=2)
    old = {k: getattr(opts, k) for k in ("games", "seed", "agent", "observability",
                                         "opponents_view", "trial_games", "rules")}
    old.update(novelty="rent_hike", difficulty="easy",
               preset=preset_params(ImpactOptions(novelty="rent_hike", difficulty="easy")))
    assert _matches(old, opts)
    assert not _matches(old, opts.model_copy(update={"before": 5}))
