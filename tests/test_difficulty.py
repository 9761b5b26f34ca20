"""Measured difficulty (`evaluation.difficulty`): the coupled and analytic detectability,
the paired impact, flags and order, the data file and the columns of `novelties list`."""

from __future__ import annotations

import json
import math

import pytest

import openmono
from evaluation.measures import dice_sprt
from evaluation.sweeps.difficulty import main
from evaluation.sweeps.difficulty_cells import measure_cell
from evaluation.sweeps.difficulty_games import Standard, first_difference, geometric_median
from novelties.__main__ import main as novelties_main
from novelties.measured import NOT_MEASURED, order_verdict
from novelties.registry import available_novelties
from novelties.testing import temporary_plugins

BASE = openmono.standard_schema()

NOTHING = '''
from novelties.base import Novelty, NoveltyParams

class Nothing(Novelty):
    name = "nothing"
    category = "attribute"
    description = "Changes nothing at all."
    Params = NoveltyParams
    presets = {"easy": {}, "medium": {}, "hard": {}}

    def apply(self, schema, params):
        return schema
'''


@pytest.fixture(scope="module")
def standard() -> Standard:
    return Standard(BASE, range(3))


def test_a_rent_change_is_seen_in_the_first_game_and_shortens_it(standard):
    cell = measure_cell("rent_hike", "medium", standard)
    assert cell["method"] == "coupled" and cell["games"] == 3
    assert cell["detected_games"] == 3 and cell["detectability_games_median"] == 1
    assert cell["detected_within_100"] == 1.0 and "instant" in cell["flags"]
    lo, hi = cell["impact_length_ci"]
    assert lo <= cell["impact_length"] <= hi and cell["impact_length"] < 0  # triple rents


def test_a_novelty_that_changes_nothing_is_never_detected_and_has_no_impact(tmp_path, standard,
                                                                          capsys):
    with temporary_plugins(tmp_path, {"nothing_plugin": NOTHING},
                           {"nothing": "nothing_plugin:Nothing"}):
        cell = measure_cell("nothing", "hard", standard)
        assert cell["detected_games"] == 0 and cell["detectability_games_median"] is None
        assert cell["detected_within_100"] == 0 and cell["detectability_decisions"] is None
        assert cell["impact_length"] == 0 and cell["impact_length_ci"] == [0, 0]
        assert cell["impact_winrate"] == 0
        assert {"never_seen", "no_impact", "inert"} <= set(cell["flags"])
        # An unmeasured plugin (a user's own) says how to measure it.
        capsys.readouterr()
        assert novelties_main(["list"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("nothing "))
    assert NOT_MEASURED.format(name="nothing") in line


def test_dice_weights_use_the_analytic_test_with_wald_s_figure(standard):
    cell = measure_cell("dice_weights", "easy", standard)
    assert cell["method"] == "analytic"
    # One die shows 6 with weight 4: P1(6) = 4/9, other faces 1/9 each, vs 1/6.
    kl = 4 / 9 * math.log((4 / 9) / (1 / 6)) + 5 / 9 * math.log((1 / 9) / (1 / 6))
    assert cell["kl_per_roll"] == pytest.approx(kl, abs=1e-4)
    assert cell["expected_rolls"] == pytest.approx(dice_sprt.wald_numerator() / kl, rel=1e-3)
    assert math.isfinite(cell["detectability_decisions"])
    assert cell["detectability_games_median"] == max(
        1, math.ceil(cell["expected_rolls"] / cell["rolls_per_game"]))


def test_an_impossible_roll_proves_the_novelty_at_once():
    p0 = dice_sprt.roll_dist(BASE)
    one_die = {(f,): 1 / 6 for f in range(1, 7)}
    assert dice_sprt.expected_rolls(p0, one_die) == pytest.approx(1)
    assert dice_sprt.expected_rolls(p0, p0) == math.inf
    assert dice_sprt.detected_within(p0, p0, 1000) == 0
    sticky = dice_sprt.sticky_doubles(p0, 0.05)
    assert sum(p for k, p in sticky.items() if k[0] == k[1]) == pytest.approx(
        1 / 6 + 5 / 6 * 0.05)
    assert dice_sprt.detected_within(p0, sticky, 10) < 0.5 < dice_sprt.detected_within(
        p0, sticky, 10_000)


def test_a_broken_double_moves_a_share_of_one_throw_only():
    p0 = dice_sprt.roll_dist(BASE)
    broken = dice_sprt.broken_double(p0, 6, 0.25)
    assert sum(broken.values()) == pytest.approx(1)
    assert broken[(6, 6)] == pytest.approx(0.75 / 36)
    assert broken[(6, 5)] == pytest.approx(1.25 / 36)
    assert {k: v for k, v in broken.items() if k not in ((6, 6), (6, 5))} == {
        k: v for k, v in p0.items() if k not in ((6, 6), (6, 5))}


def test_rethrown_sevens_thins_the_sevens_and_keeps_the_rest_in_proportion():
    p0 = dice_sprt.roll_dist(BASE)
    p1 = dice_sprt.rethrown_sevens(p0, 0.15)
    assert sum(p1.values()) == pytest.approx(1)
    assert sum(p for k, p in p1.items() if sum(k) == 7) == pytest.approx(
        (1 / 6) * 0.85 + 0.15 / 36)
    assert p1[(6, 6)] / p0[(6, 6)] == pytest.approx(p1[(1, 2)] / p0[(1, 2)])


def test_first_difference_and_the_geometric_median():
    assert first_difference([1, 2, 3], [1, 2, 3]) is None
    assert first_difference([1, 2, 3], [1, 5, 3]) == 1
    assert first_difference([1, 2], [1, 2, 3]) == 2  # a game that ends differently
    assert geometric_median(1.0) == 1 and geometric_median(0.0) is None
    assert geometric_median(0.5) == 1 and geometric_median(0.1) == 7


def _cell(decisions):
    return {"detectability_decisions": decisions}


def test_the_order_of_presets_by_measured_detectability():
    assert order_verdict({"easy": _cell(5), "medium": _cell(50), "hard": _cell(None)}) == \
        "ordered"
    assert order_verdict({"easy": _cell(1), "medium": _cell(1), "hard": _cell(1.5)}) == "tied"
    verdict = order_verdict({"easy": _cell(50), "medium": _cell(5), "hard": _cell(500)})
    assert verdict == "unordered: medium easier to see than easy"


def test_the_cli_is_resumable_and_refuses_bad_input(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["plugin=[go_salary]", "games=2", f"out={out}", "progress=false"]) == 0
    data = json.loads(out.read_text())
    assert set(data["plugins"]["go_salary"]) == {"easy", "medium", "hard"}
    assert "go_salary" in data["order"]
    assert main(["--plugin", "go_salary", "--games", "2", "--out", str(out),
                 "--no-progress"]) == 0
    assert "0 cell(s) measured" in capsys.readouterr().out
    assert main(["plugin=[go_salry]", f"out={out}"]) == 2
    assert "unknown novelty 'go_salry'" in capsys.readouterr().err


def test_the_cli_measures_only_the_presets_asked_for(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["--plugin", "go_salary", "--preset", "hard", "--games", "2", "--out", str(out),
                 "--no-progress"]) == 0
    assert set(json.loads(out.read_text())["plugins"]["go_salary"]) == {"hard"}
    assert main(["preset=[hardest]", f"out={out}"]) == 2
    err = capsys.readouterr().err
    assert "'hardest'" in err and "'easy', 'medium' or 'hard'" in err


def test_novelties_list_shows_measured_columns_for_the_whole_catalogue(capsys):
    assert novelties_main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    measured = [r for r in rows if r["measured"]["note"] is None]
    assert len(measured) >= 80 and len(rows) == len(available_novelties())
    for r in measured:
        assert len(r["measured"]["detectability"].split(" / ")) == 3
        assert len(r["measured"]["impact"].split(" / ")) == 3
    assert novelties_main(["list"]) == 0
    text = capsys.readouterr().out
    assert "detect e/m/h (games)" in text.splitlines()[0] and "Δturns e/m/h" in text
    assert "not measured" not in text


def test_the_docs_table_is_written_once_and_replaced_in_place(tmp_path, standard):
    from evaluation.sweeps.difficulty_table import TABLE_BEGIN, write_docs

    cells = {d: measure_cell("go_salary", d, standard) for d in ("easy", "medium", "hard")}
    data = {"settings": {"games": 3, "seed": 0}, "plugins": {"go_salary": cells},
            "order": {"go_salary": order_verdict(cells)}}
    doc = tmp_path / "n.md"
    doc.write_text("# Novelties\n")
    write_docs(data, doc)
    write_docs(data, doc)
    text = doc.read_text()
    assert text.count(TABLE_BEGIN) == 1 and text.count("| `go_salary` |") == 3
