"""The files a user needs before adopting a release: licence, citation, changelog.

Why: a tool without a licence may not be reused, a research tool is cited, and a version
that moves needs a note saying what moved. pyproject.toml is the one place the version is
written; everything else must agree with it.
"""

from __future__ import annotations

import re
import tomllib
from datetime import date
from importlib.metadata import version
from pathlib import Path

import yaml

import openmono

ROOT = Path(__file__).resolve().parents[1]
CFF_REQUIRED = ("cff-version", "message", "title", "authors")
# Keep a Changelog: "## [1.2.3] - 2026-01-31" (or "## [Unreleased]").
ENTRY = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?\s*$", re.M)


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_the_licence_is_mit_and_declared_in_pyproject() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "openmono contributors" in text
    assert _project()["license"] == {"text": "MIT"}


def test_the_citation_parses_and_names_this_version() -> None:
    cff = _citation()
    missing = [key for key in CFF_REQUIRED if key not in cff]
    assert not missing, f"CITATION.cff lacks {missing}"
    assert cff["cff-version"] == "1.2.0"
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    assert str(cff["version"]) == _project()["version"]
    assert cff["license"] == "MIT"
    date.fromisoformat(str(cff["date-released"]))


def test_the_changelog_has_a_dated_entry_for_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    entries = {m["version"]: m["date"] for m in ENTRY.finditer(text)}
    current = _project()["version"]
    assert current in entries, f"CHANGELOG.md has no '## [{current}] - YYYY-MM-DD' entry"
    assert entries[current], f"the entry for {current} has no date"
    assert str(_citation()["date-released"]) == entries[current]


def test_the_changelog_lists_versions_newest_first() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = [m["version"] for m in ENTRY.finditer(text) if m["version"] != "Unreleased"]
    keys = [tuple(int(p) for p in v.split(".")) for v in released]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)


def test_the_package_reports_the_version_of_pyproject() -> None:
    """A stale install (pyproject bumped, `pip install -e .` not run again) fails here."""
    assert openmono.__version__ == version("openmono") == _project()["version"], (
        "the installed metadata is stale: run pip install -e . again")
