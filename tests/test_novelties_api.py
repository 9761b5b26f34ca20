"""The plugin API: discovery, loading and errors, ground truth, composition, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pytest
from pydantic import ValidationError

import openmono
from novelties import compose, describe, load_novelty
from novelties.__main__ import main, parse_value
from novelties.base import Applied, Novelty, NoveltyError, NoveltyParams, replace
from novelties.composition import NoveltyOrderWarning, order_warnings
from novelties.ground_truth import diff_schemas, entity_exists
from novelties.registry import BROKEN, apply_novelty, available_novelties
from novelties.testing import temporary_plugins
from openmono.schema import Die

STD = openmono.standard_schema()


# --- catalogue and discovery ------------------------------------------------------------
def test_catalogue_counts_as_listed_by_the_cli(capsys) -> None:
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    # The rows of `describe()`, each with the measured columns (tests/test_difficulty.py)
    # and its card's path (tests/test_novelty_cards.py).
    assert [{k: v for k, v in r.items() if k not in ("measured", "card")}
            for r in rows] == describe()
    assert len(rows) >= 45
    for category in ("class", "attribute", "representation"):
        assert sum(r["category"] == category for r in rows) >= 15, category
    for r in rows:
        assert set(r) == {"name", "category", "difficulties", "description", "measured",
                          "card"}
        assert r["difficulties"] == ["easy", "medium", "hard"]
        assert "hard" in r["description"], f"{r['name']}: say what makes hard hard"
    must = {"rent_hike", "property_prices", "house_costs", "tax_amounts", "go_salary",
            "starting_cash", "jail_fine", "mortgage_value", "mortgage_interest",
            "building_limit", "building_stock", "sellback", "card_amounts",
            "card_destinations", "deck_composition", "dice_weights", "extra_die",
            "fewer_dice", "odd_faces", "more_sides", "toll_square", "jail_visit_fee",
            "wealth_tax", "building_tax", "bank_loan", "auction_rules", "trade_rules",
            "wealth_victory", "board_shuffle", "group_shuffle", "group_reassign",
            "monopoly_size", "board_stretch", "renamed_properties", "hidden_opponent_cash",
            "wrong_colours"}
    assert must <= {r["name"] for r in rows}


def test_list_table(capsys) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["name", "category", "difficulties", "detect"]
    assert out[0].split()[-1] == "description"
    assert any(line.startswith("rent_hike ") and "attribute" in line for line in out)


def test_load_novelty_merges_overrides_on_the_preset() -> None:
    plugin, params = load_novelty("rent_hike", "medium", {"factor": 4})
    assert plugin.name == "rent_hike"
    assert params.factor == 4.0 and params.printed is False and params.groups == "all"
    _, medium = load_novelty("rent_hike")  # the default preset
    assert medium.factor == 3.0 and medium.printed is False


@pytest.mark.parametrize("name,difficulty,params,expect", [
    ("rent_hke", "easy", None, ["unknown novelty 'rent_hke'", "rent_hike",
                                "python -m novelties list"]),
    ("rent_hike", "extreme", None, ["no difficulty 'extreme'", "easy, medium, hard"]),
    ("rent_hike", "medium", {"factor": -2}, ["invalid parameter", "factor"]),
    ("rent_hike", "medium", {"fctor": 2}, ["invalid parameter", "fctor"]),
    ("rent_hike", "medium", {"groups": ["pink", "mauve"]}, ["'mauve'", "groups: brown"]),
])
def test_bad_input_is_a_short_message(name, difficulty, params, expect) -> None:
    with pytest.raises(NoveltyError) as info:
        apply_novelty(name, STD, difficulty, params)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 400
    for part in expect:
        assert part in msg


def test_cli_errors_exit_2_without_traceback() -> None:
    proc = subprocess.run([sys.executable, "-m", "novelties", "show", "rent_hke"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "rent_hike" in proc.stderr and "python -m novelties list" in proc.stderr


@pytest.mark.parametrize("argv", [["show", "rent_hike", "factor=0"], ["show"], ["frob"],
                                  ["show", "rent_hike", "nonsense"]])
def test_cli_bad_arguments(argv, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")


def test_cli_show_rent_hike_medium(capsys) -> None:
    assert main(["show", "rent_hike", "difficulty=medium"]) == 0
    out = capsys.readouterr().out
    assert "square:Boardwalk" in out and "rent (charged)" in out and "hidden" in out
    assert main(["show", "rent_hike", "novelty.params.factor=2", "groups=[red]", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["params"]["groups"] == ["red"] and data["params"]["factor"] == 2
    assert {c["entity"] for c in data["changes"]} == {
        "square:Kentucky Avenue", "square:Indiana Avenue", "square:Illinois Avenue"}


def test_parse_value() -> None:
    assert parse_value("3") == 3 and parse_value("1.5") == 1.5 and parse_value("true") is True
    assert parse_value("[red,green]") == ["red", "green"] and parse_value("a,b") == ["a", "b"]
    assert parse_value("all") == "all" and parse_value('["x"]') == ["x"]


_BROKEN_SRC = '''
from novelties.base import Novelty, NoveltyParams

class Raises(Novelty):
    name = "raises"
    category = "class"
    description = "always fails; hard too"
    presets = {"easy": {}, "medium": {}, "hard": {}}

    def apply(self, schema, params):
        raise RuntimeError("boom")

class NotAPlugin:
    pass
'''


def test_broken_third_party_plugins_fail_cleanly(tmp_path, capsys) -> None:
    eps = {"raises": "brokenpkg:Raises", "notaplugin": "brokenpkg:NotAPlugin",
           "missing": "no_such_module:Thing", "rent_hike": "brokenpkg:Raises"}
    with temporary_plugins(tmp_path, {"brokenpkg": _BROKEN_SRC}, eps, dist="broken"):
        names = available_novelties()
        assert "raises" in names and "rent_hike" in names
        assert set(BROKEN) == {"notaplugin", "missing", "rent_hike@brokenpkg:Raises"}
        assert names["rent_hike"].__module__ == "novelties.catalogue.money"  # not shadowed
        with pytest.raises(NoveltyError, match="failed in apply: RuntimeError: boom"):
            apply_novelty("raises", STD, "easy")
        with pytest.raises(NoveltyError, match="installed but broken"):
            load_novelty("missing")
        assert main(["show", "raises"]) == 2
        assert "boom" in capsys.readouterr().err
        assert main(["list"]) == 0
        assert "could not be loaded" in capsys.readouterr().err
    assert "raises" not in available_novelties() and not BROKEN


def test_apply_must_return_a_schema() -> None:
    class Bad(Novelty):
        name = "bad"
        category = "class"
        description = "returns junk; hard too"
        presets = {"easy": {}, "medium": {}, "hard": {}}

        def apply(self, schema, params):
            return {"not": "a schema"}

    with pytest.raises(NoveltyError, match="must return a GameSchema"):
        Bad().run_apply(STD, NoveltyParams())


def test_replace_validates() -> None:
    sq = STD.squares[1]
    assert replace(sq, price=70).price == 70 and sq.price == 60
    with pytest.raises(ValidationError):
        replace(sq, price=-1)
    with pytest.raises(ValidationError):  # the schema-level check: rent table length
        replace(STD, bank=replace(STD.bank, max_houses=3))


# --- ground truth ---------------------------------------------------------------------------
def test_diff_names_renames_order_size_and_hidden_fields() -> None:
    sq = list(STD.squares)
    sq[1] = replace(sq[1], name="Copper Row")
    sq[3], sq[6] = sq[6], sq[3]
    new = replace(STD, squares=tuple(sq), dice=STD.dice + (Die(),),
                  bank=replace(STD.bank, go_salary=100))
    changes = {(c.entity, c.attribute): c for c in diff_schemas(STD, new)}
    assert changes[("square:Mediterranean Avenue", "name")].new == "Copper Row"
    assert changes[("board", "order")].visible
    assert changes[("bank", "go_salary")].old == 200
    assert changes[("dice", "count")].new == 3 and not changes[("dice", "count")].visible
    assert not changes[("die:2", "exists")].visible
    assert len(changes) == 5
    assert diff_schemas(STD, STD) == []


def test_diff_removed_and_added_squares_and_cards() -> None:
    sq = [s for s in STD.squares if s.name != "Baltic Avenue"]
    sq.append(replace(STD.squares[20], name="Lot"))
    chance = STD.decks[0]
    new = replace(STD, squares=tuple(sq), decks=(replace(chance, cards=chance.cards[1:]),)
                  + STD.decks[1:])
    changes = {(c.entity, c.attribute) for c in diff_schemas(STD, new)}
    assert ("square:Baltic Avenue", "exists") in changes
    assert ("square:Lot", "exists") in changes
    assert ("card:chance:Advance to Go (Collect $200)", "exists") in changes


def test_entity_exists() -> None:
    assert entity_exists("square:Boardwalk", STD)
    assert entity_exists("card:chance:Go Back 3 Spaces", STD)
    assert entity_exists("rule:rent", STD) and entity_exists("observation:cash", STD)
    assert entity_exists("die:1", STD) and not entity_exists("die:2", STD)
    assert not entity_exists("square:Nowhere", STD) and not entity_exists("thing", STD)


def test_ground_truth_is_json_and_dict_able() -> None:
    p = apply_novelty("card_amounts", STD, "easy")
    assert all(not c.visible for c in p.changes)  # decks are hidden
    assert dict(p.changes[0]) == p.changes[0].to_json() == p.ground_truth[0]
    json.dumps(p.ground_truth)


# --- composition ----------------------------------------------------------------------------
def test_composition_order() -> None:
    commuting = [("rent_hike", "easy", None), ("board_shuffle", "easy", None)]
    assert order_warnings(STD, commuting) == []
    both = compose(STD, commuting)
    assert both.name == "rent_hike+board_shuffle"
    assert {c.entity for c in both.changes} >= {"board", "square:Boardwalk"}
    # A printed rent factor and a new building limit do not commute (tables are rebuilt).
    clash = [("rent_hike", "easy", None), ("building_limit", "hard", None)]
    msgs = order_warnings(STD, clash)
    assert msgs and "different schema" in msgs[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compose(STD, clash)
    assert any(issubclass(w.category, NoveltyOrderWarning) for w in caught)
    # Two rent hooks: the order may matter and cannot be compared.
    hooks = [("rent_hike", "medium", None), ("no_rent_in_jail", "hard", None)]
    assert any("'rent' rule hook" in m for m in order_warnings(STD, hooks))
    combined = compose(STD, hooks, warn=False)
    assert combined.hooks.rent is not None
    assert isinstance(combined, Applied)
