"""The glossary page and the pages' vocabulary say the same: every measure and term the
pages define has its heading in `docs/glossary.md`, and every output formats a measure
in its one unit."""

from __future__ import annotations

import re
from pathlib import Path

from evaluation.reports import vocabulary

GLOSSARY = Path(__file__).resolve().parents[1] / vocabulary.GLOSSARY


def _headings() -> set[str]:
    return {h.strip().lower() for h in re.findall(r"^## (.+)$", GLOSSARY.read_text(), re.M)}


def test_the_glossary_defines_every_term_the_pages_use() -> None:
    headings = _headings()
    for term in ("pnwp", "nda", "nrp", "detection delay", "observability", "band",
                 "cost of ignorance", *vocabulary.TERMS):
        assert term in headings, term


def test_the_glossary_is_in_the_site_nav_and_linked_from_the_guides() -> None:
    root = GLOSSARY.parents[1]
    assert "glossary.md" in (root / "mkdocs.yml").read_text()
    assert "glossary.md" in (root / "docs" / "evaluation.md").read_text()


def test_each_unit_has_one_form() -> None:
    assert vocabulary.value("pnwp", 0.875) == "87.5%"
    assert vocabulary.value("nrp", 10 / 3) == "3.33"
    assert vocabulary.value("detection_delay", 0) == "0"
    assert vocabulary.value("nda", None) == "-"
    assert vocabulary.with_interval("pnwp", 0.875, 0.529, 0.978) == "87.5% (52.9–97.8%)"
    assert vocabulary.with_interval("detection_delay", 5, 5, 5) == "5"  # no zero width
    assert vocabulary.interval("nrp", 0.8, None) == "0.80 or more"
    assert vocabulary.category("AN") == vocabulary.category("attribute") == "attribute"
