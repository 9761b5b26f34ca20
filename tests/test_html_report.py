"""`report.html`: written with every trial, self-contained, and showing in a real browser
(headless Chromium, where one is installed) what `summary.json` and `games.jsonl` hold,
with no console error."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from evaluation.reports.report import summary_rows
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig
from evaluation.harness.trial_folder import GAMES_FILE, read_records

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def browser_dom(url: str) -> tuple[int, str, list[str]]:
    """Headless Chromium opens `url` and runs its scripts: (exit code, the DOM it built,
    the console's lines)."""
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--enable-logging=stderr", "--v=0", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.returncode, proc.stdout, console


class _Cells(HTMLParser):
    """Text of each row of the table with the given id, and the SVG's game dots."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id, self.inside, self.rows, self.dots = table_id, 0, [], 0
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == self.table_id:
            self.inside = 1
        elif tag == "tr" and self.inside:
            self.rows.append([])
        elif tag in ("td", "th") and self.inside:
            self._cell = []
        if tag == "circle" and "game" in (a.get("class") or "").split():
            self.dots += 1

    def handle_endtag(self, tag):
        if tag == "table" and self.inside:
            self.inside = 0
        elif tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _trial(tmp_path: Path, **kw) -> Path:
    from evaluation.reports.report import write_report

    out = tmp_path / "trial"
    cfg = TrialConfig(**{"agent": "random", "opponents": ["random"] * 3, "reference": "random",
                         "progress": False, "games": 12, "seed": 4, "novelty": "rent_hike",
                         "inject_at": 5, **kw})
    summary = run_trial(cfg, out)
    write_report(str(out), summary, plots=False)
    return out


def _parse(page: str, table: str = "summary") -> _Cells:
    p = _Cells(table)
    p.feed(page)
    return p


def _measures(page: str) -> list[list[str]]:
    return _parse(page).rows[1:]  # (the header row)


def test_the_page_shows_the_summary_the_games_and_the_ground_truth(tmp_path) -> None:
    out = _trial(tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    page = (out / "report.html").read_text()
    shown = _parse(page)
    assert _measures(page) == [list(r) for r in summary_rows(summary)]
    assert shown.dots == len(read_records(out / GAMES_FILE)) == 12
    changes = _parse(page, "changes").rows + _parse(page, "changes-more").rows
    entities = {c["entity"] for c in summary["ground_truth"]}
    assert len([r for r in changes if len(r) == 5]) == len(entities)  # one row per entity
    assert changes[2][1] == "rent (charged)"
    # the pre- and post-novelty win rates, with their counts' Wilson intervals, once
    rows = {r[0]: r for r in _measures(page)}
    pre = rows["pre-novelty win rate (PNWP)"]
    assert pre[1] == f"{100 * summary['pre_wins'] / summary['pre_games']:.1f}%"
    assert re.fullmatch(r"\d+\.\d–\d+\.\d%", pre[2])
    assert page.count(">post-novelty win rate<") == 2  # its row, its definition
    # self-contained: nothing fetched from anywhere
    assert not re.search(r'(src|href)="(https?:)?//', page)


def test_every_measure_links_to_its_definition_and_the_glossary_is_named(tmp_path) -> None:
    out = _trial(tmp_path)
    page = (out / "report.html").read_text()
    links = re.findall(r'<td><a href="#([^"]+)">', page)
    assert len(links) == len(_measures(page)) and "def-nrp" in links
    for anchor in links:
        assert f'<dt id="{anchor}">' in page
    assert "docs/glossary.md" in page


def test_nrp_gets_an_interval_from_the_counts() -> None:
    from evaluation.reports.trial_intervals import intervals

    counts = {"post_wins": 10, "post_games": 12, "ref_pre_wins": 2, "ref_pre_games": 8}
    lo, hi = intervals(counts)["nrp"]
    point = (10 / 12) / (2 / 8)
    assert lo < point < hi
    # more games, the same rates: a narrower interval
    lo2, hi2 = intervals({k: 10 * v for k, v in counts.items()})["nrp"]
    assert lo < lo2 < point < hi2 < hi
    assert "nrp" not in intervals({**counts, "ref_pre_wins": 0})  # NRP undefined
    rows = {r[0]: r for r in summary_rows({"nrp": point, **counts})}
    assert rows["novelty reaction performance (NRP)"][2] == f"{lo:.2f}–{hi:.2f}"


def _marks(page: str, svg: str) -> dict[str, float]:
    part = page[page.index(f"id={svg}") if f"id={svg}" in page else page.index(f'id="{svg}"'):]
    part = part[:part.index("</svg>")]
    return {m: float(x) for m, x in re.findall(r'class="mark (\w+)" x1="([\d.]+)"', part)}


def _delay_0(tmp_path: Path) -> Path:
    """A trial whose agent first reports after the very game the novelty arrived in."""
    from evaluation.reports import html_report

    out = _trial(tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    summary.update(first_detection=summary["injected_at"], detection_delay=0, nda=1)
    html_report.write(out, summary, read_records(out / GAMES_FILE))
    return out


def test_at_delay_0_the_injection_and_the_first_report_are_apart(tmp_path) -> None:
    from evaluation.reports.html_report import LOSS

    page = (_delay_0(tmp_path) / "report.html").read_text()
    for svg in ("wins", "confidence"):
        marks = _marks(page, svg)
        assert marks["first_detection"] - marks["injected_at"] > 20  # a game's width
    labels = re.findall(r'<text class="label (\w+)"[^>]*text-anchor="(\w+)"', page)
    assert ("injected_at", "end") in labels  # its label left of its line, the other right
    strokes = re.findall(r'class="mark \w+"[^>]*stroke="([^"]+)"', page)
    assert strokes and LOSS not in strokes  # red means a lost game, nothing else
    assert re.findall(r'class="ytick"[^>]*>([^<]+)<', page)[:3] == ["0%", "50%", "100%"]


def test_a_control_trial_has_no_novelty_caption(tmp_path) -> None:
    out = _trial(tmp_path, novelty=None, inject_at=None, reference=None)
    page = (out / "report.html").read_text()
    assert "injected_at" not in re.sub(r"<pre id=config>.*?</pre>", "", page, flags=re.S)
    assert "the novelty, from the game" not in page and "control trial" in page


def test_a_resumed_trial_rewrites_the_page(tmp_path) -> None:
    out = _trial(tmp_path, games=6)
    assert _parse((out / "report.html").read_text()).dots == 6
    out = _trial(tmp_path, games=6)  # complete: the page is written again, the same
    assert _parse((out / "report.html").read_text()).dots == 6


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (apt-get install chromium)")
def test_chromium_opens_the_page_from_disk_with_no_console_error(tmp_path) -> None:
    out = _trial(tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    code, page, console = browser_dom((out / "report.html").as_uri())
    assert code == 0
    assert console == []
    dom = _parse(page)  # the page as the browser built it, scripts run
    assert dom.rows[1:] == [list(r) for r in summary_rows(summary)]
    assert dom.dots == 12
    assert 'class="sortable"' in page and "th class=\"sort\"" in page


def _colour_columns(png: Path, colour: str, box: tuple[int, int, int, int]) -> set[int]:
    """The pixel columns inside `box` where `colour` (give or take anti-aliasing) shows."""
    from PIL import Image

    want = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    img = Image.open(png).convert("RGB")
    x0, y0, x1, y1 = box
    return {x for x in range(x0, x1) for y in range(y0, y1)
            if sum(abs(a - b) for a, b in zip(img.getpixel((x, y)), want)) < 60}


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (apt-get install chromium)")
def test_chromium_shows_both_the_injection_and_the_first_report_at_delay_0(tmp_path) -> None:
    from evaluation.reports.report import INJECTED, REPORTED

    out = _delay_0(tmp_path)
    png = tmp_path / "page.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--window-size=900,2400", f"--screenshot={png}",
                    (out / "report.html").as_uri()], capture_output=True, timeout=120,
                   check=True)
    whole = (0, 0, 900, 2400)
    injected, reported = _colour_columns(png, INJECTED, whole), _colour_columns(
        png, REPORTED, whole)
    assert injected and reported  # each mark has pixels of its own colour: none is hidden
    assert injected - reported and reported - injected


def _sweep(tmp_path: Path) -> Path:
    """12 short trials: 2 agents x 2 novelties x 3 seeds, each with its report."""
    from evaluation.reports.report import write_report

    root = tmp_path / "sweep"
    for agent in ("random", "passive"):
        for novelty in ("rent_hike", "board_shuffle"):
            for seed in range(3):
                out = root / agent / novelty / f"seed{seed}"
                s = run_trial(TrialConfig(agent=agent, opponents=["random"] * 3,
                                          reference=None, progress=False, games=4, seed=seed,
                                          novelty=novelty, inject_at=2, keep_logs="none"), out)
                write_report(str(out), s, plots=False)
    return root


class _Shown(HTMLParser):
    """Per table id, the rows a reader sees: (the row's data-* attributes, its cells),
    leaving out rows and bodies the page's script hid."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[tuple[dict[str, str], list[str]]]] = {}
        self.table: str | None = None
        self.hidden_body = self.hidden_row = self.in_head = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        hidden = "none" in a.get("style", "").replace(" ", "")
        if tag == "table":
            self.table = a.get("id")
            self.tables.setdefault(self.table, [])
        elif tag == "thead":
            self.in_head = True
        elif tag == "tbody":
            self.hidden_body, self.in_head = hidden, False
        elif tag == "tr" and self.table and not self.in_head:
            self.hidden_row = hidden or self.hidden_body
            if not self.hidden_row:
                self.tables[self.table].append(
                    ({k: v for k, v in a.items() if k.startswith("data-")}, []))
        elif tag == "td" and self.table and not self.in_head and not self.hidden_row:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.tables[self.table][-1][1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self.table = None
        elif tag == "thead":
            self.in_head = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _shown(page: str) -> dict[str, list[tuple[dict[str, str], list[str]]]]:
    p = _Shown()
    p.feed(page)
    return p.tables


def test_compare_html_lists_every_trial_and_links_its_report(tmp_path) -> None:
    from evaluation.reports import compare

    root = _sweep(tmp_path)
    assert compare.main([str(root)]) == 0
    page = (root / "compare.html").read_text()
    shown = _shown(page)  # as the page is written: before its script runs
    assert len(shown["trials"]) == 12
    links = re.findall(r'href="([^"]+/report\.html)"', page)
    assert len(links) == 12 and all((root / link).exists() for link in links)
    assert len(shown["groups"]) == 4 and all(cells[4] == "3" for _, cells in shown["groups"])
    assert len(shown["cells"]) == 4  # agent x category x difficulty, over every trial
    assert len(shown["plot"]) == 4  # win rate, NDA and NRP drawn per agent x novelty
    assert all(page.count(f'aria-label="{v}') for v in ("0.0% (0.0–56.1%)",))
    # the title says whose sweep it is and what they were shown
    assert re.search(r"<h1>Sweep: passive, random · observability \w+ · 12 trials", page)


def test_one_trial_intervals_are_not_printed_as_zero_width(tmp_path) -> None:
    from evaluation.reports import compare

    rows = compare.compare([{**_one_summary(), "detection_delay": 5, "nda": 1,
                             "first_detection": 7}])
    line = compare.table_lines(rows)[2]
    assert "5 [" not in line and "5.00 [5.00, 5.00]" not in line
    assert "| 5 |" in line  # the delay of one trial: a value, no interval


def _one_summary() -> dict:
    return {"agent": "planner", "novelty": "rent_hike", "difficulty": "medium",
            "category": "attribute", "injected_at": 2, "nda": 0, "false_positive_rate": 0,
            "detection_delay": None, "pre_wins": 1, "pre_games": 2, "post_wins": 3,
            "post_games": 4, "ref_pre_wins": 1, "ref_pre_games": 2, "nrp": 1.5,
            "first_detection": None}


def test_one_vocabulary_in_the_terminal_markdown_and_html(tmp_path) -> None:
    from evaluation.reports import compare, compare_html, vocabulary

    rows = compare.compare([_one_summary()])
    md = "\n".join(compare.table_lines(rows))
    page = compare_html.render(rows, [_one_summary()], tmp_path)
    for key in ("nda", "false_positive_rate", "detection_delay", "pnwp", "post_win_rate",
                "nrp"):
        assert vocabulary.MEASURES[key].short in md and vocabulary.MEASURES[key].short in page
    assert "75.0%" in md and "75.0%" in page  # the post-novelty win rate: percent in both
    assert " AN" not in page and "attribute" in page


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (apt-get install chromium)")
def test_chromium_filters_the_sweep_page_from_its_address(tmp_path) -> None:
    from evaluation.reports import compare

    root = _sweep(tmp_path)
    assert compare.main([str(root)]) == 0
    url = (root / "compare.html").as_uri() + "#agent=passive&novelty=rent_hike"
    _, page, console = browser_dom(url)
    assert console == []
    assert re.search(r'<b id="shown">3</b>', page)
    shown = _shown(page)
    # every table and both plots narrowed: only the passive agent's rows are shown ...
    for table in ("groups", "plot", "cells", "bands", "band-plot", "trials"):
        assert shown[table], table
        assert {row[0].get("data-agent") for row in shown[table]} == {"passive"}, table
    # ... rows of one novelty only that novelty's, and tables pooled over trials pooled
    # over the three rent_hike trials the filters keep
    for table in ("groups", "plot", "trials"):
        assert {row[0]["data-novelty"] for row in shown[table]} == {"rent_hike"}, table
    for table in ("cells", "bands", "band-plot"):
        trials_col = 3 if table == "cells" else 2
        assert sum(int(cells[trials_col]) for _, cells in shown[table]) == 3, table
