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


def test_a_page_splits_its_detail_onto_another_page(tmp_path):
    recs = _records(tmp_path, {"bench": MEASURED})
    split = results.render_pages(
        "speed", "# Speed\n\n{{ bench.gps:.0f }} games/s\n\n{{ source bench }}\n\n"
        "{{ page speed-detail }}\n# Detail\n\n{{ table bench }}\n", recs)
    assert list(split) == ["speed", "speed-detail"]
    assert "| agents | games/s |" not in split["speed"]
    assert "| agents | games/s |" in split["speed-detail"]
    assert split["speed-detail"].startswith("<!-- Rendered by")
    assert "docs/data/results/speed.md" in split["speed-detail"]
    assert render("speed", "{{ source bench }}\n\n{{ page x }}\nmore\n", recs).rstrip() \
        .endswith("Measured: commit `abc1234`; 2026-11-26; seeds 0–9; 10 games.")
    # a figure needs its source on the page that shows it
    with pytest.raises(ResultsError, match="without their source \\(on the page speed-detail\\)"):
        results.render_pages("speed", "{{ source bench }}\n\n{{ page speed-detail }}\n"
                             "{{ bench.gps:.0f }} games/s\n", recs)
    for bad in ("{{ page speed }}", "{{ page x }}\n{{ page x }}", "{{ page Bad_Name }}"):
        with pytest.raises(ResultsError, match="a page name"):
            results.render_pages("speed", f"{{{{ source bench }}}}\n\n{bad}\n", recs)


def _headings(text: str) -> list[tuple[int, str]]:
    """(line number, heading) of each Markdown heading outside code fences."""
    out, fence = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            out.append((n, line))
    return out


@pytest.mark.parametrize("page", sorted(p.name for p in results.PAGES.glob("*.md")))
def test_no_results_page_repeats_a_heading(page):
    """Two sections of one page are told apart by their headings (and their anchors)."""
    heads = [h for _, h in _headings((results.PAGES / page).read_text(encoding="utf-8"))]
    repeated = sorted({h for h in heads if heads.count(h) > 1})
    assert repeated == [], f"docs/results/{page} repeats {repeated}"


def test_the_detection_page_leads_with_its_summary_and_splits_off_the_sweeps():
    page = (results.PAGES / "detection.md").read_text(encoding="utf-8")
    lines = page.splitlines()
    first_table = next(n for n, line in enumerate(lines, 1) if line.startswith("| "))
    sections = [n for n, h in _headings(page) if h.startswith("##")]
    assert first_table < sections[0], "the summary table comes before any section"
    header = lines[first_table - 1]
    for column in ("NDA", "post-novelty win rate", "NRP"):
        assert column in header
    agents = [line.split("`")[1] for line in lines[first_table + 1:]
              if line.startswith("| `")][:5]
    assert agents == ["planner", "planner(adapt=False)", "detect_baseline", "hybrid_ddqn",
                      "hybrid_ppo"]
    # its source (command, commit, seeds) follows the table before any section
    assert "```bash" in "\n".join(lines[first_table:sections[0]])
    assert "Measured: commit `" in "\n".join(lines[first_table:sections[0]])
    # the per-sweep sections live on their own page, linked and in the nav
    assert not [h for _, h in _headings(page) if h.startswith("### `")]
    assert "(detection-sweeps.md)" in page
    sweeps = (results.PAGES / "detection-sweeps.md").read_text(encoding="utf-8")
    per_sweep = [h for _, h in _headings(sweeps) if h.startswith("### `")]
    assert len(per_sweep) >= 20
    assert all("(seeds " in h for h in per_sweep)
    assert sweeps.count("Measured: commit `") >= 1
    nav = (results.ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "results/detection-sweeps.md" in nav
