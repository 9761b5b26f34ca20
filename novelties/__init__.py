"""Novelty plugins: the API (`novelties.base`), discovery through the `openmono.novelties`
entry points (`novelties.registry`), ground truth, composition, mid-game injection and
the built-in catalogue (`novelties.catalogue`). See docs/novelties.md.

This package imports `openmono` only; agents never import it (they must not see the
ground truth of a novelty).
"""

from novelties.base import (CATEGORIES, DIFFICULTIES, Applied, HookChange, Novelty,
                            NoveltyError, NoveltyParams, replace)
from novelties.composition import compose
from novelties.registry import (apply_novelty, available_novelties, describe, get_novelty,
                                load_novelty)

__all__ = [
    "CATEGORIES", "DIFFICULTIES", "Applied", "HookChange", "Novelty", "NoveltyError",
    "NoveltyParams", "apply_novelty", "available_novelties", "compose",
    "describe", "get_novelty", "load_novelty", "replace",
]
