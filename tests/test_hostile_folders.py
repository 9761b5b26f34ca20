"""A folder someone sends you cannot hurt you (issue 52, findings 1-4 and 6): links and
special files in a run folder, forged measures, report-less "complete" runs, a sweep's
`fresh=true` and script in the pages."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

import openmono
from evaluation import replay
from openmono.schema import GameSchema


# --- finding 6: script in replay-K.html and compare.html ---------------------------------------
class _Tags(HTMLParser):
    """Every start tag and its attributes, as a browser's parser would see them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def _tags(page: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def _no_script_injected(page: str) -> None:
    """No element or event handler that the page's own template does not hold."""
    for tag, attrs in _tags(page):
        assert tag != "img", (tag, attrs)
        assert not any(name.startswith("on") for name, _ in attrs), (tag, attrs)


PAYLOAD = '"><img src=x onerror=alert(1)>'


def test_a_crafted_log_runs_no_script_in_the_replay() -> None:
    schema = json.loads(openmono.standard_schema().to_json())
    schema["groups"][0]["color"] = "#fff" + PAYLOAD
    street = next(i for i, s in enumerate(schema["squares"]) if s.get("group"))
    schema["squares"][street]["price"] = PAYLOAD
    header = {"type": "header", "seed": PAYLOAD, "players": 2, "seats": [0, 1],
              "schema": schema}
    before = json.loads(openmono.standard_schema().to_json())
    before["groups"][0]["color"] = "#000" + PAYLOAD
    page = replay.render(header, [], None, {"title": "t", "notes": []}, before)
    _no_script_injected(page)


def test_a_group_colour_must_be_a_colour() -> None:
    data = json.loads(openmono.standard_schema().to_json())
    data["groups"][0]["color"] = "#fff" + PAYLOAD
    with pytest.raises(ValueError, match="#rrggbb"):
        GameSchema.model_validate(data)
    for good in ("", "#abc", "#A1b2C3", "navy"):
        data["groups"][0]["color"] = good
        assert GameSchema.model_validate(data).groups[0].color == good


def test_a_log_named_with_a_non_ascii_digit_is_not_a_kept_game(tmp_path: Path) -> None:
    logs = tmp_path / replay.LOGS
    logs.mkdir()
    for name in ("game-².jsonl", "game-٣.jsonl", "game-01.jsonl", "game-4.jsonl"):
        (logs / name).write_text("")
    assert replay.kept_games(tmp_path) == [4]


def test_a_run_folder_named_javascript_is_no_link_to_script(tmp_path: Path) -> None:
    from evaluation import compare_html

    trial = tmp_path / "javascript:alert(1)"
    trial.mkdir()
    (trial / "report.html").write_text("")
    summary = {"agent": "random", "novelty": "none", "games": 1, "seed": 0, "_dir": str(trial)}
    page = compare_html.render([], [summary], tmp_path)
    hrefs = [v for tag, attrs in _tags(page) if tag == "a" for k, v in attrs if k == "href"]
    assert len(hrefs) == 1
    assert ":" not in hrefs[0].split("/")[0], hrefs
    assert (tmp_path / __import__("urllib.parse").parse.unquote(hrefs[0])).exists()
