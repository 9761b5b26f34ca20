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


# --- inside evaluation/: its sub-packages, lowest first (docs/architecture.md) ----------------
# Each may import the ones before it (and itself), never one after it: no cycle, no climb back
# up. `sweeps` and `games` both sit on `trials` and do not import each other. The modules
# left at the top of evaluation/ forward commands to their homes (`evaluation.trial` ->
# `evaluation.trials.trial`) and nothing imports them.
EVALUATION_ORDER = ("store", "measures", "harness", "reports", "trials")
EVALUATION_TOP = ("sweeps", "games")
EVALUATION_ALLOWED = {
    **{pkg: set(EVALUATION_ORDER[:i + 1]) for i, pkg in enumerate(EVALUATION_ORDER)},
    **{pkg: {*EVALUATION_ORDER, pkg} for pkg in EVALUATION_TOP},
}


def _evaluation_imports(path: Path) -> set[str]:
    """The second component of every `evaluation.X` a module imports (`store`,
    `harness`, ... or a top-level module's name), relative imports resolved."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]  # ("evaluation", "store")
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name.split(".") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            names = [module] if len(module) > 1 else [module + [a.name] for a in node.names]
        else:
            continue
        found.update(parts[1] for parts in names if parts[0] == "evaluation" and len(parts) > 1)
    return found


def test_every_evaluation_subpackage_has_its_place() -> None:
    found = {p.parent.name for p in (ROOT / "evaluation").glob("*/__init__.py")}
    assert found == set(EVALUATION_ALLOWED), "place a new sub-package in EVALUATION_ORDER"


@pytest.mark.parametrize("package", sorted(EVALUATION_ALLOWED))
def test_evaluation_subpackages_import_only_those_below(package: str) -> None:
    bad = {}
    for path in sorted((ROOT / "evaluation" / package).rglob("*.py")):
        wrong = _evaluation_imports(path) - EVALUATION_ALLOWED[package]
        if wrong:
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"evaluation/{package} must not import {bad}"


def test_nothing_imports_the_forwarding_modules() -> None:
    """`evaluation/X.py` at the top only keeps `python -m evaluation.X` working."""
    top = {p.stem for p in (ROOT / "evaluation").glob("*.py")} - {"__init__"}
    bad = {}
    for package in PROJECT - {"conf"}:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.parent == ROOT / "evaluation":
                continue
            wrong = _evaluation_imports(path) & top
            if wrong:
                bad[str(path.relative_to(ROOT))] = sorted(wrong)
    for path in sorted((ROOT / "tests").rglob("*.py")):
        wrong = _evaluation_imports(path) & top - {"timing"}
        if wrong and path.name != "test_moved_modules.py":
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"import from the new homes, not the forwarders: {bad}"
