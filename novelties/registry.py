"""Finding plugins: the `openmono.novelties` entry-point group, or a `module.path:ClassName`.

The built-in catalogue registers through the same group (see pyproject.toml), so a
plugin in another installed package is found and used exactly like ours. A plugin in a
file of one's own, importable but not installed, is named by its path
(`novelty=my_plugin:SpeedTrap`), as an agent is; it is not part of the catalogue. Every error
(unknown name, bad parameter, plugin failing in apply) is a `NoveltyError` with a short
message; an unknown name lists the close matches and says how to list the catalogue.
"""

from __future__ import annotations

import dataclasses
import difflib
from importlib.metadata import entry_points
from typing import Any, Mapping

from openmono.loading import PathError, import_path
from openmono.schema import GameSchema

from novelties.base import Applied, Novelty, NoveltyError, NoveltyParams, validate_class
from novelties.ground_truth import ground_truth

GROUP = "openmono.novelties"
LIST_HINT = "python -m novelties list"

_CACHE: dict[str, type[Novelty]] | None = None
BROKEN: dict[str, str] = {}  # entry-point name -> why it could not be loaded
BY_PATH: dict[str, type[Novelty]] = {}  # `module.path:ClassName` -> plugin class, once loaded


def refresh() -> None:
    """Forget the loaded plugins (after installing a package or changing sys.path)."""
    global _CACHE
    _CACHE = None
    BROKEN.clear()
    BY_PATH.clear()


def available_novelties() -> dict[str, type[Novelty]]:
    """name -> plugin class for every loadable entry point, sorted by name.

    Entry points that fail to import or are not valid plugins are left out and recorded
    in `BROKEN` (shown by `python -m novelties list`).
    """
    global _CACHE
    if _CACHE is None:
        found: dict[str, type[Novelty]] = {}
        values: dict[str, str] = {}
        problems: dict[tuple[str, str], str] = {}
        for ep in sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
            if ep.name in found:
                if values[ep.name] != ep.value:  # (the same one twice is harmless)
                    problems[ep.name, ep.value] = (
                        f"the name {ep.name!r} is already taken by {values[ep.name]}; "
                        f"{ep.value} is ignored")
                continue
            try:
                cls = ep.load()
            except Exception as exc:  # noqa: BLE001 - a broken package must not hide the rest
                problems[ep.name, ep.value] = (
                    f"cannot import {ep.value}: {type(exc).__name__}: {exc}")
                continue
            why = validate_class(cls)
            if why is None and cls.name != ep.name:
                why = f"its name {cls.name!r} differs from the entry-point name"
            if why is not None:
                problems[ep.name, ep.value] = f"{ep.value} is not a usable novelty: {why}"
                continue
            found[ep.name] = cls
            values[ep.name] = ep.value
        for (name, value), why in problems.items():
            # Keyed by name when no plugin of that name works (so get_novelty can say so).
            BROKEN[f"{name}@{value}" if name in found or name in BROKEN else name] = why
        _CACHE = found
    return dict(_CACHE)


def load_path(name: str) -> type[Novelty]:
    """The plugin class `module.path:ClassName`, imported and checked like an entry point;
    a NoveltyError in one line says why it cannot be used."""
    if name in BY_PATH:
        return BY_PATH[name]
    try:
        obj = import_path(name)
    except PathError as exc:
        raise NoveltyError(f"cannot load novelty {name!r} ({exc})") from None
    why = validate_class(obj)
    if why is not None:
        raise NoveltyError(f"novelty {name!r} is not a usable plugin: {why}")
    BY_PATH[name] = obj
    return obj


def get_novelty(name: str) -> Novelty:
    """A fresh plugin instance by name (or `module.path:ClassName`); unknown names list
    close matches."""
    plugins = available_novelties()
    cls = plugins.get(name)
    if cls is None and ":" in str(name):
        return load_path(name)()
    if cls is None:
        if name in BROKEN:
            raise NoveltyError(f"novelty {name!r} is installed but broken: {BROKEN[name]}")
        close = difflib.get_close_matches(str(name), list(plugins), n=3, cutoff=0.5)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise NoveltyError(f"unknown novelty {name!r}.{hint} List them with: {LIST_HINT}")
    return cls()


def load_novelty(name: str, difficulty: str = "medium",
                 params: Mapping[str, Any] | None = None) -> tuple[Novelty, NoveltyParams]:
    """(plugin, validated params): the preset for `difficulty` with `params` on top."""
    plugin = get_novelty(name)
    return plugin, plugin.make_params(difficulty, params)


def apply_novelty(name: str, base: GameSchema, difficulty: str = "medium",
                  params: Mapping[str, Any] | None = None) -> Applied:
    """Load, validate and apply one novelty (fails with a NoveltyError, before any game)."""
    plugin, p = load_novelty(name, difficulty, params)
    applied = plugin.run_apply(base, p)
    return dataclasses.replace(applied, name=name, category=plugin.category,
                               difficulty=difficulty, params=p.model_dump(mode="json"),
                               changes=tuple(ground_truth(base, applied)))


def describe(plugins: Mapping[str, type[Novelty]] | None = None) -> list[dict[str, Any]]:
    """The catalogue as JSON-ready rows: name, category, difficulties, description."""
    plugins = available_novelties() if plugins is None else plugins
    return [{"name": n, "category": c.category, "difficulties": c.difficulties(),
             "description": c.description} for n, c in sorted(plugins.items())]
