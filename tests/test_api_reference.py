"""The API reference (docs/api/, rendered by mkdocstrings) documents every public object,
and every public object it documents says what it is for, with types in its signature.

The pages name modules and classes with `::: dotted.path` lines; this test reads those
lines and walks what mkdocstrings renders from them (a module's `__all__`, else the
public classes and functions it defines; a class's public methods and properties), so
the check and the pages cannot drift apart. CI runs it with the tests, before the docs
build, so it needs nothing from the `docs` extra.

Two packages outside the reference are held to the same rule, since adopters read them
as worked examples: the built-in plugins (`novelties.catalogue`) and the planner agent
with its detector (`agents.planner`). There every public class, function and method
says what it is for; a method that overrides a documented one may rely on that
docstring (what `help()` and mkdocstrings show for it).
"""

from __future__ import annotations

import doctest
import functools
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api"
# The packages the reference covers, whole ...
PACKAGES = ("openmono", "novelties", "envs")
# ... and the modules it covers in the other packages.
MODULES = ("agents.base", "agents.registry", "agents.policy", "agents.policy_helpers",
           "evaluation.harness.runner", "evaluation.harness.trial_config",
           "evaluation.reports.report")
# Modules of those packages left out, each with why (docs/api/index.md says so too).
LEFT_OUT = {
    "openmono.cli": "a forwarder to `openmono_cli`, the commands' command-line layer",
    "novelties.__main__": "the `python -m novelties` command (docs/novelties.md)",
}
DIRECTIVE = re.compile(r"^::: ([\w.]+)\n((?:    .*\n)*)", re.M)


def directives() -> list[tuple[str, Any]]:
    """(path, members option) of every `::: path` in the reference: members is None
    (all public), False (the docstring only) or a list of names."""
    found = []
    for page in sorted(API.glob("*.md")):
        for path, opts in DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            m = re.search(r"members:\s*(.+)", opts)
            members: Any = None
            if m:
                value = m.group(1).strip()
                members = False if value == "false" else [
                    v.strip() for v in value.strip("[]").split(",") if v.strip()]
            found.append((path, members))
    return found


def resolve(path: str) -> Any:
    """The object a dotted path names: a module, or an attribute of one."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def own_doc(obj: Any) -> str:
    """The object's own docstring: not inherited, and not the one `dataclass` or
    `NamedTuple` writes from the signature."""
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__") or ""
        return "" if doc.startswith(f"{obj.__name__}(") else doc.strip()
    return (getattr(obj, "__doc__", None) or "").strip()


def module_members(mod: Any) -> list[str]:
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n, o in vars(mod).items() if not n.startswith("_")
                 and (inspect.isclass(o) or inspect.isfunction(o))
                 and getattr(o, "__module__", None) == mod.__name__]
    return [n for n in names if inspect.isclass(getattr(mod, n))
            or inspect.isfunction(getattr(mod, n))]


def class_members(cls: type) -> Iterator[tuple[str, Any]]:
    """Public methods, properties and nested classes defined in the class itself."""
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, (classmethod, staticmethod)):
            value = value.__func__
        if isinstance(value, property):
            value = value.fget
        if isinstance(value, functools.cached_property):
            value = value.func
        if inspect.isfunction(value) and value.__qualname__.startswith(cls.__qualname__):
            yield name, value
        elif inspect.isclass(value) and value.__qualname__.startswith(cls.__qualname__ + "."):
            yield name, value


def documented() -> Iterator[tuple[str, Any]]:
    """(dotted name, object) of everything the reference renders."""
    for path, members in directives():
        obj = resolve(path)
        yield path, obj
        if members is False:
            continue
        if inspect.ismodule(obj):
            for name in members if members is not None else module_members(obj):
                item = getattr(obj, name)
                yield f"{path}.{name}", item
                if inspect.isclass(item):
                    for sub, value in class_members(item):
                        yield f"{path}.{name}.{sub}", value
        elif inspect.isclass(obj):
            for sub, value in class_members(obj):
                if members is None or sub in members:
                    yield f"{path}.{sub}", value


def covered_modules() -> set[str]:
    names = set(MODULES)
    for package in PACKAGES:
        for f in (ROOT / package).glob("*.py"):
            names.add(package if f.stem == "__init__" else f"{package}.{f.stem}")
    return names - set(LEFT_OUT)


def test_every_directive_resolves() -> None:
    paths = [p for p, _ in directives()]
    assert len(paths) > 30
    for p in paths:
        resolve(p)
    assert len(paths) == len(set(paths)), "a path is documented twice"


def test_every_module_is_in_the_reference() -> None:
    named = {p for p, _ in directives()}
    missing = sorted(m for m in covered_modules() if m not in named)
    assert not missing, f"modules no page of docs/api/ documents: {missing}"


def test_every_documented_object_has_a_docstring() -> None:
    missing = sorted({name for name, obj in documented() if not own_doc(obj)})
    assert not missing, ("public objects in the API reference without a docstring "
                         f"(say what each is for): {missing}")


# Packages outside the reference whose public objects must still say what they are for.
EXAMPLE_PACKAGES = ("novelties.catalogue", "agents.planner")


def package_objects(package: str) -> Iterator[tuple[str, Any, type | None]]:
    """(dotted name, object, the class defining it or None) of every public class and
    function defined in a module of `package` (its private modules too: `_common` is
    for plugin authors), and of the public methods, properties and nested classes those
    classes define."""
    pkg = importlib.import_module(package)
    mods = [pkg] + [importlib.import_module(m.name)
                    for m in pkgutil.walk_packages(pkg.__path__, package + ".")]
    for mod in mods:
        for name, obj in vars(mod).items():
            if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if getattr(obj, "__module__", None) != mod.__name__:
                continue  # imported: checked where it is defined
            yield f"{mod.__name__}.{name}", obj, None
            if inspect.isclass(obj):
                for sub, value in class_members(obj):
                    yield f"{mod.__name__}.{name}.{sub}", value, obj


def inherits_doc(cls: type, name: str) -> bool:
    """Whether `name` overrides a method of a base class of `cls` that has a docstring."""
    for base in cls.__mro__[1:]:
        if name in vars(base):
            value = vars(base)[name]
            if isinstance(value, (classmethod, staticmethod)):
                value = value.__func__
            if isinstance(value, property):
                value = value.fget
            return bool((getattr(value, "__doc__", None) or "").strip())
    return False


def undocumented(package: str) -> list[str]:
    """The public objects of `package` with no docstring of their own or inherited."""
    return sorted(name for name, obj, owner in package_objects(package)
                  if not own_doc(obj) and not (
                      owner is not None and inherits_doc(owner, name.rsplit(".", 1)[1])))


@pytest.mark.parametrize("package", EXAMPLE_PACKAGES)
def test_every_public_object_of_the_example_packages_has_a_docstring(package: str) -> None:
    found = list(package_objects(package))
    assert len(found) > 200, f"the walk of {package} found only {len(found)} objects"
    missing = undocumented(package)
    assert not missing, (f"public objects of {package} without a docstring (say what each "
                         f"is for, in the game's terms): {missing}")


def test_the_package_walk_finds_a_missing_docstring() -> None:
    """The check itself: an undocumented override of an undocumented method is caught,
    one of a documented method is not, and a cached property is walked."""

    class Base:
        def told(self) -> None:
            """Documented."""

        def quiet(self) -> None:
            pass

    class Child(Base):
        """Documented."""

        def told(self) -> None:
            pass

        def quiet(self) -> None:
            pass

        @functools.cached_property
        def lazy(self) -> int:
            return 1

    assert inherits_doc(Child, "told") and not inherits_doc(Child, "quiet")
    assert not inherits_doc(Child, "new")
    assert [n for n, _ in class_members(Child)] == ["told", "quiet", "lazy"]
    assert not own_doc(Child.told) and not own_doc(vars(Child)["lazy"].func)


def unannotated(fn: Any) -> list[str]:
    """The parameters (and `return`) of a function that carry no type annotation."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    missing = [p.name for i, p in enumerate(params) if p.annotation is inspect.Parameter.empty
               and not (i == 0 and p.name in ("self", "cls"))]
    if sig.return_annotation is inspect.Signature.empty and fn.__name__ != "__init__":
        missing.append("return")
    return missing


def test_every_documented_function_has_types_in_its_signature() -> None:
    missing = sorted({f"{name}({', '.join(unannotated(obj))})" for name, obj in documented()
                      if inspect.isfunction(obj) and unannotated(obj)})
    assert not missing, f"annotate these parameters (the reference shows the types): {missing}"


def test_the_walk_finds_a_missing_docstring() -> None:
    """The check itself: an undocumented method, dataclass and NamedTuple are caught."""
    from dataclasses import dataclass
    from typing import NamedTuple

    @dataclass
    class Plain:
        x: int = 0

    class Pair(NamedTuple):
        a: int

    class Host:
        """Documented."""

        def quiet(self) -> None:
            pass

    assert not own_doc(Plain) and not own_doc(Pair) and own_doc(Host)
    assert [n for n, _ in class_members(Host)] == ["quiet"] and not own_doc(Host.quiet)
    assert unannotated(Host.quiet) == [] and unannotated(lambda x: x) == ["x", "return"]


@pytest.mark.parametrize("path", ["agents.base.Agent.act", "novelties.base.Novelty.apply",
                                  "openmono.hooks.Hooks"])
def test_what_authors_write_has_a_working_example(path: str) -> None:
    """The methods users write, and the hook API (whose example uses the `GameAPI`), show
    an example; it runs as written."""
    obj = resolve(path)
    tests = doctest.DocTestFinder(recurse=False).find(obj, path, module=inspect.getmodule(obj))
    examples = [ex for t in tests for ex in t.examples]
    assert examples, f"{path} has no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for t in tests:
        runner.run(t)
    assert runner.failures == 0, f"{path}: its example fails (run it with doctest)"


def test_the_python_trial_example_runs(tmp_path, monkeypatch) -> None:
    """docs/api/trials.md's snippet, as written, in a scratch folder."""
    text = (API / "trials.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code.replace("games=20", "games=2"), "trials.md", "exec"), {})
    for name in ("summary.json", "report.md", "report.html"):
        assert (tmp_path / "outputs" / "my_trial" / name).exists(), name
