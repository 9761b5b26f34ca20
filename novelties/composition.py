"""Several novelties in a given order, and a check whether the order matters.

Novelties apply one after the other, each to the schema the previous one produced; their
hooks chain in the same order. Two orders can give different games: `rent_hike` after
`board_shuffle` is the same game as before it, but two rent hooks (or a rent factor and a
building-limit change that rebuilds rent tables) may not commute. `order_warnings`
applies the novelties in other orders and reports every pair whose order changes the
schema, the declared changes, or that both install the same rule hook (which cannot be
compared, so it is reported as "may matter").
"""

from __future__ import annotations

import dataclasses
import itertools
import warnings
from typing import Any, Mapping, Sequence

from openmono.hooks import NO_HOOKS, Hooks
from openmono.schema import GameSchema

from novelties.base import Applied, NoveltyError
from novelties.registry import get_novelty, load_novelty
from novelties.ground_truth import ground_truth

Spec = tuple[str, str, Mapping[str, Any] | None]


class NoveltyOrderWarning(UserWarning):
    """The order in which novelties are applied changes (or may change) the result."""


def _run(base: GameSchema, specs: Sequence[Spec], hooks: Hooks) -> tuple[Applied, list, dict]:
    schema = base
    declared: list = []
    visibility: dict[str, bool] = {}
    installed: dict[str, list[str]] = {}
    for name, difficulty, params in specs:
        plugin, p = load_novelty(name, difficulty, params)
        applied = plugin.run_apply(schema, p)
        schema = applied.schema
        hooks = hooks.combine(applied.hooks)
        declared.extend(applied.declared)
        visibility.update(applied.visibility)
        for h in applied.hooks.installed():
            installed.setdefault(h, []).append(name)
    return Applied(schema, hooks, tuple(declared), visibility), declared, installed


def compose(base: GameSchema, specs: Sequence[Spec], hooks: Hooks = NO_HOOKS,
            warn: bool = True) -> Applied:
    """Apply several novelties in order: (name, difficulty, params) each.

    Hooks chain in the same order (`Hooks.combine`). With `warn`, a
    `NoveltyOrderWarning` is issued for every pair whose order changes the result
    (`order_warnings`).
    """
    if not specs:
        raise NoveltyError("compose needs at least one novelty")
    applied, _, _ = _run(base, specs, hooks)
    if warn:
        for msg in order_warnings(base, specs):
            warnings.warn(msg, NoveltyOrderWarning, stacklevel=2)
    names = [s[0] for s in specs]
    cats = list(dict.fromkeys(get_novelty(n).category for n in names))
    params = {}
    for name, difficulty, p in specs:
        params[name] = get_novelty(name).make_params(difficulty, p).model_dump(mode="json")
    return dataclasses.replace(applied, name="+".join(names), category="+".join(cats),
                               difficulty="+".join(s[1] for s in specs), params=params,
                               changes=tuple(ground_truth(base, applied)))


def order_warnings(base: GameSchema, specs: Sequence[Spec]) -> list[str]:
    """Messages for every pair of novelties whose relative order matters (or may)."""
    if len(specs) < 2:
        return []
    ref, ref_declared, installed = _run(base, specs, NO_HOOKS)
    out: list[str] = []
    for hook, users in installed.items():
        if len(set(users)) > 1:
            out.append(f"{' and '.join(users)} both install the {hook!r} rule hook; "
                       "their order may change the game")
    if len(specs) <= 4:
        orders = list(itertools.permutations(range(len(specs))))[1:]
    else:  # adjacent swaps only, to stay cheap
        orders = []
        for i in range(len(specs) - 1):
            idx = list(range(len(specs)))
            idx[i], idx[i + 1] = idx[i + 1], idx[i]
            orders.append(tuple(idx))
    for order in orders:
        other = [specs[i] for i in order]
        label = " then ".join(s[0] for s in other)
        try:
            alt, alt_declared, _ = _run(base, other, NO_HOOKS)
        except NoveltyError as exc:
            out.append(f"the order {label} fails: {exc}")
            continue
        if alt.schema != ref.schema:
            out.append(f"the order {label} gives a different schema than "
                       f"{' then '.join(s[0] for s in specs)}")
        elif sorted(map(repr, alt_declared)) != sorted(map(repr, ref_declared)):
            out.append(f"the order {label} declares different rule changes")
    return out
