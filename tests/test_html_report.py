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
from evaluation.harness.runner import GAMES_FILE, TrialConfig, read_records, run_trial

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


def test_the_page_shows_the_summary_the_games_and_the_ground_truth(tmp_path) -> None:
    out = _trial(tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    page = (out / "report.html").read_text()
    shown = _parse(page)
    assert shown.rows == [list(r) for r in summary_rows(summary)]
    assert shown.dots == len(read_records(out / GAMES_FILE)) == 12
    truth = _parse(page, "truth").rows
    assert len(truth) == 1 + len(summary["ground_truth"]) and truth[1][1] == "rent (charged)"
    rates = _parse(page, "rates").rows
    assert rates[0][1].startswith(f"{summary['pre_wins']} / {summary['pre_games']} =")
    # self-contained: nothing fetched from anywhere
    assert not re.search(r'(src|href)="(https?:)?//', page)


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
    assert dom.rows == [list(r) for r in summary_rows(summary)]
    assert dom.dots == 12
    assert 'class="sortable"' in page and "th class=\"sort\"" in page


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


def test_compare_html_lists_every_trial_and_links_its_report(tmp_path) -> None:
    from evaluation.reports import compare

    root = _sweep(tmp_path)
    assert compare.main([str(root)]) == 0
    page = (root / "compare.html").read_text()
    trials = _parse(page, "trials").rows
    assert len(trials) == 1 + 12
    links = re.findall(r'href="([^"]+/report\.html)"', page)
    assert len(links) == 12 and all((root / link).exists() for link in links)
    groups = _parse(page, "groups").rows
    assert len(groups) == 1 + 4 and all(row[4] == "3" for row in groups[1:])
    assert len(_parse(page, "cells").rows) == 1 + 4  # agent x category x difficulty


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (apt-get install chromium)")
def test_chromium_filters_the_sweep_page_from_its_address(tmp_path) -> None:
    from evaluation.reports import compare

    root = _sweep(tmp_path)
    assert compare.main([str(root)]) == 0
    url = (root / "compare.html").as_uri() + "#agent=passive&novelty=rent_hike"
    _, page, console = browser_dom(url)
    assert console == []
    assert re.search(r'<b id="shown">3</b>', page)
    hidden = re.findall(r'<tr data-agent="[^"]*" data-novelty="[^"]*" data-difficulty="[^"]*" '
                        r'style="display: none;"', page)
    assert len(hidden) == 9 + 3  # trials, and the other agent-novelty groups
