"""The arrows of the layers (docs/architecture.md) only point down.

openmono imports nothing above it; novelties and agents import only openmono (and
agents never novelties: an agent must not see a novelty's ground truth); evaluation may
import everything but envs; envs (the RL environments, on top) may import everything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {
    "openmono": {"openmono"},
    "novelties": {"openmono", "novelties"},
    "agents": {"openmono", "agents"},
    "evaluation": {"openmono", "novelties", "agents", "evaluation", "conf"},
}
PROJECT = {"openmono", "novelties", "agents", "evaluation", "conf", "envs"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & PROJECT


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_point_down(package: str) -> None:
    bad = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        wrong = _imports(path) - ALLOWED[package]
        if wrong:
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"{package} must not import {bad}"
