"""The engine's state is written by the state's own methods only, and openmono has no
import cycle (a sibling of test_layers.py, issue 28).

Outside `openmono/` (agents, novelties, evaluation, envs, examples), no module may
assign, augment, delete or mutate in place a field of the engine's `GameState`, nor
append to a game's event list: a mid-game repair (`novelties/inject.py`) goes through
`GameState`'s methods, `Game.pay_from_bank` and `GameAPI.emit`. Inside `openmono/`,
only `state.py` writes those fields, so the state's versions (what observations and
standing orders are stamped with) cannot be bypassed. Tests may set up positions by
hand (then `touch()`), so `tests/` is not scanned.

What counts as the engine's state in the source: an expression ending in `.state`, a
name bound to one (`st = game.state`), and a parameter annotated `GameState`; a name
bound to one of their fields (`cash = st.cash`) is followed too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from openmono.state import GameState

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ("agents", "novelties", "evaluation", "envs", "examples", "conf", "hydra_plugins")
FIELDS = frozenset(n for n in GameState.__slots__ if not n.startswith("_")) - {"players"}
MUTATORS = frozenset(("append", "extend", "insert", "pop", "remove", "clear", "sort",
                      "reverse", "__setitem__", "__delitem__", "__iadd__"))


def _is_state(node: ast.AST, names: set[str]) -> bool:
    """`<anything>.state`, or a name bound to the engine's state."""
    if isinstance(node, ast.Attribute) and node.attr == "state":
        return True
    return isinstance(node, ast.Name) and node.id in names


def _field_of_state(node: ast.AST, names: set[str], fields: set[str]) -> str | None:
    """The state field `node` denotes (`st.cash`, `st.cash[0]`, `cash` bound to it)."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr in FIELDS and _is_state(node.value, names):
        return node.attr
    if isinstance(node, ast.Name) and node.id in fields:
        return node.id
    return None


def _writes(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for every write to the engine's state or a game's events."""
    found: list[tuple[int, str]] = []
    scopes = [n for n in ast.walk(tree)
              if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope in scopes:
        names: set[str] = set()
        fields: set[str] = set()
        if not isinstance(scope, ast.Module):
            for arg in scope.args.args + scope.args.kwonlyargs:
                if arg.annotation is not None and "GameState" in ast.unparse(arg.annotation):
                    names.add(arg.arg)
        body = list(ast.walk(scope))
        for node in body:  # aliases first (a name's binding comes before its use)
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                if isinstance(target, ast.Name):
                    if _is_state(value, names):
                        names.add(target.id)
                    elif (isinstance(value, ast.Attribute) and value.attr in FIELDS
                          and _is_state(value.value, names)):
                        fields.add(target.id)
        for node in body:
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = list(node.targets)
            flat: list[ast.AST] = []
            for t in targets:
                flat.extend(t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])
            for t in flat:
                if isinstance(t, ast.Name):
                    continue  # rebinding a local name writes nothing
                field = _field_of_state(t, names, fields)
                if field is not None:
                    found.append((node.lineno, f"writes state.{field}"))
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in MUTATORS):
                owner = node.func.value
                field = _field_of_state(owner, names, fields)
                if field is not None:
                    found.append((node.lineno, f"mutates state.{field}"))
                if isinstance(owner, ast.Attribute) and owner.attr == "events" and not (
                        isinstance(owner.value, ast.Name) and owner.value.id == "self"):
                    found.append((node.lineno, "appends to a game's events"))
    return sorted(set(found))


def _scan(paths: list[Path]) -> dict[str, list[tuple[int, str]]]:
    bad = {}
    for path in paths:
        writes = _writes(ast.parse(path.read_text(encoding="utf-8")))
        if writes:
            bad[str(path.relative_to(ROOT))] = writes
    return bad


@pytest.mark.parametrize("package", OUTSIDE)
def test_nothing_outside_openmono_writes_engine_state(package: str) -> None:
    paths = sorted((ROOT / package).rglob("*.py")) if (ROOT / package).exists() else []
    bad = _scan(paths)
    assert not bad, f"engine state written from outside openmono/ (use GameState's methods): {bad}"


def test_inside_openmono_only_the_state_writes_its_fields() -> None:
    paths = [p for p in sorted((ROOT / "openmono").rglob("*.py")) if p.name != "state.py"]
    bad = {k: [w for w in v if w[1] != "appends to a game's events"]
           for k, v in _scan(paths).items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"engine state written around GameState's methods: {bad}"


def test_the_scan_sees_the_writes_it_forbids() -> None:
    code = '''
def repair(game, rules):
    st = game.state
    st.cash[0] += 5
    game.state.houses_left = 3
    cash = st.cash
    cash[1] = 0
    st.jail_cards[0].append((0, 1))
    st.owner, st.level = (), ()
    game.events.append(None)
    st.set_level(1, 0)  # a method: allowed
    n = st.turn  # reading: allowed

def remap(state: GameState) -> None:
    state.position[0] = 3
'''
    found = [what for _, what in _writes(ast.parse(code))]
    assert found.count("writes state.cash") == 2
    assert "writes state.houses_left" in found
    assert "mutates state.jail_cards" in found
    assert "writes state.owner" in found and "writes state.level" in found
    assert "appends to a game's events" in found
    assert "writes state.position" in found
    assert len(found) == 8


def _openmono_imports(path: Path) -> set[str]:
    """Every openmono module `path` imports, at any depth of the file (TYPE_CHECKING
    blocks included: a cycle there is a cycle in the design)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("openmono."))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "openmono":
                out.update(f"openmono.{a.name}" for a in node.names)
            elif node.module.startswith("openmono."):
                out.add(node.module)
    return out


def test_openmono_has_no_import_cycle() -> None:
    modules = {f"openmono.{p.stem}": p for p in (ROOT / "openmono").glob("*.py")
               if p.stem != "__init__"}
    graph = {m: {i for i in _openmono_imports(p) if i in modules and i != m}
             for m, p in modules.items()}
    state: dict[str, int] = {}  # 1: on the path, 2: done
    cycles: list[list[str]] = []

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycles.append(path[path.index(n):] + [n] if n in path else [m, n])
            elif n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, f"import cycles in openmono: {cycles}"
