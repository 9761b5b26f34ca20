"""The arrows of the layers (docs/architecture.md) only point down.

openmono imports nothing above it (and the command-line layer `openmono_cli` beside it
imports nothing of the project); novelties and agents import only openmono (and
agents never novelties: an agent must not see a novelty's ground truth); evaluation may
import everything but envs; envs (the RL environments, on top) may import everything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# `openmono_cli`, the one command-line layer, sits beside the engine, not in it: it imports
# nothing of the project, and every layer's commands may use it.
ALLOWED = {
    "openmono_cli": set(),
    "openmono": {"openmono", "openmono_cli"},
    "novelties": {"openmono", "novelties", "openmono_cli"},
    "agents": {"openmono", "agents", "openmono_cli"},
    "evaluation": {"openmono", "novelties", "agents", "evaluation", "conf", "openmono_cli"},
}
PROJECT = {"openmono", "openmono_cli", "novelties", "agents", "evaluation", "conf", "envs"}


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


# Modules that still import the command-line layer by its old engine name, left to those who
# are editing them (issue 53: a one-line import each); nothing else may.
def test_the_command_line_layer_is_imported_from_outside_the_engine() -> None:
    """`openmono/cli.py` only forwards to `openmono_cli` for code outside the project."""
    bad = []
    for package in sorted(PROJECT - {"conf"}) + ["tests"]:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            if rel == "openmono/cli.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if isinstance(node, ast.ImportFrom) and node.module == "openmono":
                    names += [f"openmono.{a.name}" for a in node.names]
                if "openmono.cli" in names:
                    bad.append(rel)
    assert not bad, f"import openmono_cli, not openmono.cli: {bad}"
