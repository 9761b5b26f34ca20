"""Turn a novelty name + difficulty + parameter overrides into what a trial needs.

This is the one place the evaluation harness touches the novelty package, so the
trial code stays independent of how plugins are written and found.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from typing import Any

from openmono.schema import GameSchema

from novelties.base import Applied, NoveltyError

__all__ = ["Applied", "NoveltyError", "prepare_novelty"]


def novelty_specs(name: str, difficulty: str, overrides: dict[str, Any] | None,
                  then: list[str] | None = None) -> list[tuple[str, str, dict[str, Any] | None]]:
    """(name, difficulty, overrides) of the novelty and of each one `then` adds after it
    ("name" or "name:difficulty", a name being a plugin's or a `module:Class` path), in
    order."""
    from novelties.base import DIFFICULTIES
    from novelties.registry import available_novelties

    specs: list[tuple[str, str, dict[str, Any] | None]] = [(name, difficulty, overrides or {})]
    for item in then or []:
        extra, _, level = str(item).rpartition(":")
        if level not in DIFFICULTIES and extra not in available_novelties():
            extra, level = str(item), ""  # no difficulty: the colon, if any, is the path's
        specs.append((extra, level or difficulty, None))
    return specs


def prepare_novelty(name: str, difficulty: str, overrides: dict[str, Any] | None,
                    base: GameSchema, then: list[str] | None = None) -> Applied:
    """Load, validate and apply a novelty to `base` before any game is played.

    `then` lists further novelties ("name" or "name:difficulty") applied after it, in
    order; a warning is printed for every pair whose order changes the result.
    """
    from novelties import apply_novelty, compose

    if not then:
        return apply_novelty(name, base, difficulty=difficulty, params=overrides or {})
    specs = novelty_specs(name, difficulty, overrides, then)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        applied = compose(base, specs, warn=True)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    return dataclasses.replace(applied, difficulty=difficulty)
