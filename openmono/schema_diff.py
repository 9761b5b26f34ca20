"""Diffing schema dicts into (entity, attribute, old, new) records.

One vocabulary for every layer: the novelty package derives its ground truth with it
and an agent characterizes what it saw with it, so the two can be compared without
either importing the other. Entities are `"<kind>:<name>"` (square:Boardwalk,
group:orange, ...); a vanished or new item has the attribute `exists`.
"""

from __future__ import annotations

from typing import Any

Raw = tuple[str, str, Any, Any]


def pair_by_name(olds: list[dict], news: list[dict]) -> tuple[list, list, list]:
    """(pairs, removed, added) of named items; an old item whose name vanished pairs with
    the unmatched new item at the same index (a rename)."""
    new_by = {d["name"]: d for d in news}
    old_names = {d["name"] for d in olds}
    free = {i: d for i, d in enumerate(news) if d["name"] not in old_names}
    pairs, removed = [], []
    for i, d in enumerate(olds):
        if d["name"] in new_by:
            pairs.append((d, new_by[d["name"]]))
        elif i in free:
            pairs.append((d, free.pop(i)))
        else:
            removed.append(d)
    return pairs, removed, list(free.values())


def diff_fields(entity: str, a: dict, b: dict, raw: list[Raw]) -> None:
    """Append one record per key whose value differs between `a` and `b`."""
    for key in list(a) + [k for k in b if k not in a]:
        if a.get(key) != b.get(key):
            raw.append((entity, key, a.get(key), b.get(key)))


def diff_named(olds: list[dict], news: list[dict], kind: str, raw: list[Raw]) -> list:
    """Diff two lists of named items; returns the (old, new) pairs that matched."""
    pairs, removed, added = pair_by_name(olds, news)
    for a, b in pairs:
        diff_fields(f"{kind}:{a['name']}", a, b, raw)
    for a in removed:
        raw.append((f"{kind}:{a['name']}", "exists", a, None))
    for b in added:
        raw.append((f"{kind}:{b['name']}", "exists", None, b))
    return pairs
