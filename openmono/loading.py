"""Objects named `module.path:Attr` on a command line (an agent or a novelty plugin from
a file of one's own), imported with the reason for a failure in one line."""

from __future__ import annotations

import importlib
from typing import Any


class PathError(LookupError):
    """`module.path:Attr` cannot be imported; the message is the reason, in one line."""


def import_path(name: str) -> Any:
    """The object `module.path:Attr.Sub` names; any failure becomes a one-line PathError
    (a user's module may raise anything while it is imported)."""
    module, _, attr = name.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except Exception as exc:  # noqa: BLE001 - any failure is a bad name, said in one line
        raise PathError(f"{type(exc).__name__}: {exc}".splitlines()[0]) from None
    return obj
