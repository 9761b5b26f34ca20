"""The results pages are renderings of their data (`evaluation.results`)."""

from __future__ import annotations

import json
import shutil

import pytest

from evaluation.sweeps import results
from evaluation.sweeps.results import ResultsError, load_records, render

MEASURED = {"command": ["python -m evaluation.bench games=10 seed=0"], "commit": "abc1234",
            "date": "2026-11-26", "seeds": "0–9", "sample": "10 games",
            "values": {"gps": 317.04, "n": 1000, "rate": {"lo": 0.9}},
            "table": {"columns": ["agents", "games/s"], "rows": [["4 × `baseline`", 317.0]]}}


def _records(tmp_path, body: dict) -> dict:
    path = tmp_path / "page.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    return load_records(path)


def test_values_tables_and_sources_render(tmp_path):
    recs = _records(tmp_path, {"bench": MEASURED})
    page = render("speed", "# Speed\n\nIt plays {{ bench.gps:.0f }} games/s of "
                  "{{ bench.n }} ({{ bench.rate.lo:.0% }}).\n\n{{ table bench }}\n", recs)
    assert "It plays 317 games/s of 1,000 (90%)." in page
    assert "| 4 × `baseline` | 317.0 |" in page and "|---|---:|" in page
    assert "python -m evaluation.bench games=10 seed=0" in page
    assert "commit `abc1234`; 2026-11-26; seeds 0–9; 10 games" in page


@pytest.mark.parametrize("template, complaint", [
    ("{{ nope.gps }}\n{{ source bench }}\n", "no record 'nope'"),
    ("{{ bench.missing }}\n{{ source bench }}\n", "no value 'missing'"),
    ("It plays {{ bench.gps }} games/s.\n", "without their source"),
    ("Nothing here.\n", "records never shown: bench"),
    ("It plays 317.0 games/s.\n{{ source bench }}\n", "typed into the prose"),
    ("A 12% rise.\n{{ source bench }}\n", "typed into the prose"),
    ("{{ bench.gps:.q }}\n{{ source bench }}\n", "bench.gps:.q"),
])
def test_bad_pages_name_the_problem(tmp_path, template, complaint):
    recs = _records(tmp_path, {"bench": MEASURED})
    with pytest.raises(ResultsError, match=complaint.replace("(", r"\(")):
        render("speed", template, recs)


def test_figures_in_code_and_commands_are_not_prose(tmp_path):
    recs = _records(tmp_path, {"bench": MEASURED})
    page = render("speed", "Run `--window 0.3 0.6`:\n\n```\nx=3.5%\n```\n\n{{ source bench }}\n",
                  recs)
    assert "x=3.5%" in page


@pytest.mark.parametrize("change, complaint", [
    ({"commit": None}, "needs its command and commit"),
    ({"command": []}, "needs its command and commit"),
    ({"commit": "HEAD"}, "not a git hash"),
    ({"date": "26 Nov"}, "not YYYY-MM-DD"),
    ({"table": {"columns": ["a", "b"], "rows": [[1]]}}, "row 0 has 1 cells"),
    ({"colour": "red"}, "colour"),
])
def test_records_need_their_provenance(tmp_path, change, complaint):
    body = {k: v for k, v in {**MEASURED, **change}.items() if v is not None}
    with pytest.raises(ResultsError, match=complaint):
        _records(tmp_path, {"bench": body})


def test_a_cited_figure_needs_no_commit(tmp_path):
    recs = _records(tmp_path, {"paper": {"cited": "the hybrid-DRL paper, Table III",
                                         "values": {"hppo": "91.65%"}}})
    page = render("drl", "The paper: {{ paper.hppo }}.\n\n{{ source paper }}\n", recs)
    assert "The paper: 91.65%." in page and "Source: the hybrid-DRL paper, Table III." in page


def test_the_shipped_pages_match_their_data():
    """What `python -m evaluation.results --check` runs in CI."""
    assert results.check(results.pages()) == []


def test_a_number_edited_by_hand_fails_the_check(tmp_path, monkeypatch):
    pages = results.pages()
    target = tmp_path / "results"
    shutil.copytree(results.PAGES, target)
    name = next(n for n, text in pages.items() if any(c.isdigit() for c in text.split("-->", 1)[1]))
    page = target / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    head, body = text.split("-->", 1)
    i = next(i for i, c in enumerate(body) if c.isdigit())
    page.write_text(head + "-->" + body[:i] + str((int(body[i]) + 1) % 10) + body[i + 1:],
                    encoding="utf-8")
    problems = results.check(pages, target)
    assert len(problems) == 1 and name in problems[0]
    assert results.main(["--check"]) == 0  # the repository's own pages are untouched


def test_the_adaptation_table_renders_from_saved_sweeps(tmp_path):
    recs = _records(tmp_path, {"bench": MEASURED})
    page = render("detection", "{{ adaptation_table sailon_planner_effects "
                  "sailon_fixed_effects }}\n\n{{ source bench }}\n", recs)
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == ["planner", "planner(adapt=False)"]
    with pytest.raises(ResultsError, match="no saved sweep"):
        render("detection", "{{ adaptation_table no_such_sweep }}\n\n{{ source bench }}\n",
               recs)
