"""Turn a novelty name + difficulty + parameter overrides into what a trial needs.

This is the one place the evaluation harness touches the novelty package, so the
trial code stays independent of how plugins are written and found.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass
from typing import Any

from openmono.hooks import Hooks
from openmono.schema import GameSchema


@dataclass(frozen=True)
class NoveltySetup:
    name: str
    category: str
    difficulty: str
    params: dict[str, Any]
    schema: GameSchema
    hooks: Hooks
    ground_truth: list[dict[str, Any]]


class NoveltyError(ValueError):
    """An unknown novelty, a bad parameter, or a plugin that fails to apply."""


def prepare_novelty(name: str, difficulty: str, overrides: dict[str, Any] | None,
                    base: GameSchema, then: list[str] | None = None) -> NoveltySetup:
    """Load, validate and apply a novelty to `base` before any game is played.

    `then` lists further novelties ("name" or "name:difficulty") applied after it, in
    order; a warning is printed for every pair whose order changes the result.
    """
    from novelties.registry import NoveltyLoadError, apply_novelty, compose

    try:
        if not then:
            applied = apply_novelty(name, base, difficulty=difficulty, params=overrides or {})
        else:
            specs = [(name, difficulty, overrides or {})]
            for item in then:
                extra, _, level = str(item).partition(":")
                specs.append((extra, level or difficulty, None))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                applied = compose(base, specs, warn=True)
            for w in caught:
                print(f"warning: {w.message}", file=sys.stderr)
    except NoveltyLoadError as exc:
        raise NoveltyError(str(exc)) from None
    return NoveltySetup(
        name=applied.name,
        category=applied.category,
        difficulty=difficulty,
        params=applied.params,
        schema=applied.schema,
        hooks=applied.hooks,
        ground_truth=[dict(c) for c in applied.ground_truth],
    )
