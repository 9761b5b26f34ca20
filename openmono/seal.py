"""Check that a value handed to agents is sealed: immutable plain data, all the way down.

`unsealed(obs)` walks everything reachable from a value through its data (tuple and
NamedTuple items, frozenset members, read-only mapping keys and values, frozen dataclass
fields) and lists every object that is not immutable plain data: a list or dict, an
engine object, a callable (function, method, closure, class), an RNG. The test suite
runs it on every observation of games under every plugin; a plugin author can run it on
what an observation transform returns.

Examples:
    >>> from types import MappingProxyType
    >>> unsealed((1, "a", frozenset({2}), MappingProxyType({"k": (3.0, None)})))
    []
    >>> unsealed({"x": [1]}, "obs")
    ['obs: dict is mutable or not plain data']
    >>> unsealed((1, len), "obs")
    ['obs[1]: builtin_function_or_method is callable']
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any

_LEAVES = (type(None), bool, int, float, str, bytes)


def unsealed(value: Any, path: str = "value", limit: int = 20) -> list[str]:
    """Where `value` is not immutable plain data (at most `limit` problems)."""
    problems: list[str] = []
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack and len(problems) < limit:
        obj, where = stack.pop()
        if isinstance(obj, _LEAVES):
            continue
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        kind = type(obj).__name__
        if callable(obj):
            problems.append(f"{where}: {kind} is callable")
        elif isinstance(obj, tuple):
            names = getattr(obj, "_fields", None)
            for i, item in enumerate(obj):
                label = f".{names[i]}" if names and i < len(names) else f"[{i}]"
                stack.append((item, where + label))
        elif isinstance(obj, frozenset):
            stack.extend((item, f"{where}{{member}}") for item in obj)
        elif isinstance(obj, MappingProxyType):
            for k, v in obj.items():
                stack.append((k, f"{where} key"))
                stack.append((v, f"{where}[{k!r}]"))
        elif dataclasses.is_dataclass(obj) and type(obj).__dataclass_params__.frozen:
            for f in dataclasses.fields(obj):
                stack.append((getattr(obj, f.name), f"{where}.{f.name}"))
        else:
            problems.append(f"{where}: {kind} is mutable or not plain data")
    return problems
