"""The novelty cards (docs/cards/novelties/) are renderings of the catalogue and
`novelties/data/measured.json`: a card edited by hand, or a preset or measurement
changed without re-rendering, fails here. Re-render with `python -m novelties cards`."""

from __future__ import annotations

import json
from pathlib import Path

from novelties import cards
from novelties.__main__ import main

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / cards.CARDS_DIR


def test_committed_cards_are_current() -> None:
    assert cards.stale(OUT) == [], "novelty cards not current: run python -m novelties cards"


def test_a_card_shows_presets_measurements_and_what_hides_it() -> None:
    data = {"settings": {"games": 7, "seed": 3}, "plugins": {}, "order": {}}
    text = cards.card("rent_hike", data)
    assert "Not measured" in text and '"factor": 3.0' in text
    assert "both: no change can be read off the observation even when announced" in text
    assert "| hard | `{\"factor\": 2.0" in text and "`effects` (`announced` shows 12 of 12" in text
    measured = json.loads((ROOT / "novelties" / "data" / "measured.json").read_text())
    cell = measured["plugins"]["rent_hike"]["hard"]
    data = {"settings": {"games": 7, "seed": 3}, "order": {},
            "plugins": {"rent_hike": {"hard": {**cell, "ignorance": {
                "oracle": 0.9, "blind": 0.5, "cost": 0.4, "cost_ci": [0.3, 0.5],
                "games": 1000, "agent": "planner", "observability": "effects",
                "command": "python -m evaluation.impact novelty=rent_hike"}}}}}
    text = cards.card("rent_hike", data)
    assert "| easy | not measured |" in text  # a preset without a cell
    assert "+40 [+30,+50]" in text and "90.0% told the rules, 50.0%" in text
    stale = {"rent_hike": {"easy": {**cell, "params": {"factor": 9}}}}
    assert "stale: measured with" in cards.card("rent_hike", {**data, "plugins": stale})


def test_check_names_a_card_edited_by_hand(tmp_path, capsys) -> None:
    assert main(["cards", f"out={tmp_path}"]) == 0
    assert main(["cards", f"out={tmp_path}", "check=true"]) == 0
    (tmp_path / "go_salary.md").write_text("edited", encoding="utf-8")
    (tmp_path / "gone.md").write_text("a plugin that no longer exists", encoding="utf-8")
    capsys.readouterr()
    assert main(["cards", f"out={tmp_path}", "check=true"]) == 1
    out = capsys.readouterr().out
    assert "go_salary.md" in out and "gone.md" in out and "python -m novelties cards" in out
    assert main(["cards", "colour=red"]) == 2


def test_list_names_each_card(capsys) -> None:
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    for r in rows:
        assert (ROOT / r["card"]).is_file()
    assert main(["list"]) == 0
    assert "docs/cards/novelties/" in capsys.readouterr().out.splitlines()[-1]
