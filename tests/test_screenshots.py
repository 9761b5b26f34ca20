"""`python -m evaluation.reports.screenshots`: the docs' screenshots from the pages."""

from __future__ import annotations

import pytest

from evaluation.reports import screenshots


def test_without_chromium_it_says_so_in_one_line_and_exits_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(screenshots.shutil, "which", lambda name: None)
    assert screenshots.main([f"out={tmp_path}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "chromium" in err[0]
    assert list(tmp_path.iterdir()) == []  # nothing played, nothing written


def test_the_three_screenshots_are_the_ones_the_docs_show():
    from pathlib import Path

    docs = Path(screenshots.ROOT, "docs")
    shown = " ".join(p.read_text(encoding="utf-8") for p in docs.glob("*.md"))
    for name in screenshots.SHOTS:
        assert f"img/{name}" in shown
        assert (docs / "img" / name).exists()
    assert "python -m evaluation.reports.screenshots" in shown


@pytest.mark.skipif(screenshots.chromium() is None, reason="no chromium here")
def test_a_page_is_photographed_at_the_window_size(tmp_path):
    from PIL import Image

    page = tmp_path / "page.html"
    page.write_text("<!doctype html><title>t</title><p style='color:#c00'>hello</p>",
                    encoding="utf-8")
    png = screenshots.screenshot(screenshots.chromium(), page, tmp_path / "out" / "p.png",
                                 (320, 200))
    assert Image.open(png).size == (320, 200)
