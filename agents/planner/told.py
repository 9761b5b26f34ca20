"""Numbers a rule change charges while the board still prints the old ones, written into
the planner's believed schema when it is told them.

A hidden attribute novelty (a rent, a tax, a railroad step, a utility multiplier charged
at a new value behind the old board) declares each change as `square:NAME` with an
attribute ending in ``(charged)`` and the whole new value (`novelties.base.HookChange`).
The schema can hold those values, so a planner told the rules should value the game by
them: without this, an agent told the truth would play exactly as one kept blind, and
the cost of ignoring such a novelty would read zero by construction.
"""

from __future__ import annotations

from typing import Any, Iterable

from openmono.schema import GameSchema

CHARGED = " (charged)"


def _field(attribute: str) -> str | None:
    """The square's field a charged attribute sets: its tax, or its rent table (the rent,
    the rent at one level, by railroads owned, or the utility's dice multipliers)."""
    if not attribute.endswith(CHARGED):
        return None
    what = attribute[: -len(CHARGED)]
    if what == "tax":
        return "tax"
    if what.startswith("rent") or what == "dice multiplier":
        return "rent"
    return None


def charged_schema(schema: GameSchema, changes: Iterable[tuple[str, str, Any]]) -> GameSchema:
    """`schema` with every charged square value of `changes` written in (the others, and
    values of the wrong shape, left as they are)."""
    edits: dict[str, dict[str, Any]] = {}
    for entity, attribute, new in changes:
        field = _field(attribute)
        if field is None or not entity.startswith("square:"):
            continue
        if field == "tax" and isinstance(new, (int, float)):
            edits.setdefault(entity[len("square:"):], {})["tax"] = int(new)
        elif field == "rent" and isinstance(new, (list, tuple)) and new:
            edits.setdefault(entity[len("square:"):], {})["rent"] = tuple(int(v) for v in new)
    if not edits:
        return schema
    squares = tuple(sq.model_copy(update=edits[sq.name]) if sq.name in edits else sq
                    for sq in schema.squares)
    return schema.model_copy(update={"squares": squares})
