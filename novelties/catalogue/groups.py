"""Representation novelties on the colour groups: which streets form a set, how
many a monopoly needs, groups merged or split.

Public schema changes (agents see the new groups); the smallest, `group_split`, moves
one group's last street into a group of its own.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field, field_validator

from openmono.schema import GameSchema, Group

from novelties.base import Novelty, NoveltyParams, replace
from novelties.catalogue._common import Groups, select_groups
from novelties.catalogue.board import _reorder


class _Within(NoveltyParams):
    groups: Groups = "all"
    seed: int = 0


class GroupShuffle(Novelty):
    """Members of a group trade places within the group's spots: the group's footprint
    stays, but which street lies where (and so which is landed on most) changes."""

    name = "group_shuffle"
    category = "representation"
    description = ("Members of a group swap positions among the group's squares; hard "
                   "does it for every group (railroads and utilities too).")
    Params = _Within
    presets = {"easy": {"groups": ["dark_blue"]},
               "medium": {"groups": ["light_blue", "orange", "red", "green"]},
               "hard": {"groups": "all"}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with each chosen group's members permuted among their own positions (a
        permutation that moves at least one)."""
        rng = random.Random(params.seed)
        order = list(range(len(schema.squares)))
        for g in select_groups(schema, params.groups):
            spots = schema.group_members(g)
            if len(spots) < 2:
                continue
            perm = spots[:]
            rng.shuffle(perm)
            if perm == spots:
                perm = perm[1:] + perm[:1]
            for a, b in zip(spots, perm):
                order[a] = b
        return _reorder(schema, order)


class _Reassign(NoveltyParams):
    swaps: int = Field(ge=1, le=20)
    seed: int = 0


class GroupReassign(Novelty):
    """Streets change colour groups, keeping their price and rent: the sets worth
    completing, and the trades that complete them, are no longer the printed ones."""

    name = "group_reassign"
    category = "representation"
    description = ("Pairs of streets swap colour groups (prices and rents stay with the "
                   "street); easy swaps six pairs (most sets are new), hard two pairs.")
    Params = _Reassign
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"swaps": 6}, "medium": {"swaps": 3}, "hard": {"swaps": 2}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with `swaps` random pairs of streets from different groups exchanging
        groups."""
        rng = random.Random(params.seed)
        groups = [s.group for s in schema.squares]
        streets = [i for i, s in enumerate(schema.squares) if s.kind == "street"]
        for _ in range(params.swaps):
            a = rng.choice(streets)
            others = [b for b in streets if groups[b] != groups[a]]
            if not others:
                raise ValueError("all streets are in one group")
            b = rng.choice(others)
            groups[a], groups[b] = groups[b], groups[a]
        return replace(schema, squares=tuple(
            replace(s, group=groups[i]) if groups[i] != s.group else s
            for i, s in enumerate(schema.squares)))


class _SetSize(NoveltyParams):
    groups: Groups = "all"
    change: int = Field(-1, ge=-5, le=5)


class MonopolySize(Novelty):
    """Fewer (or more) streets of a group make a set: building can start earlier (or later)
    than an agent waiting for the whole group expects, and single streets become
    set-makers worth bidding for."""

    name = "monopoly_size"
    category = "representation"
    description = ("How many streets of a group make a set changes by `change`; easy lets a "
                   "single street of the two-street groups (and two of three) be a set; hard "
                   "changes only orange and red.")
    Params = _SetSize
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"groups": "all"},
               "medium": {"groups": ["light_blue", "pink", "orange", "red", "yellow", "green"]},
               "hard": {"groups": ["orange", "red"]}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The groups with their set size moved by `change`, kept between one street and the
        whole group."""
        chosen = set(select_groups(schema, params.groups, streets_only=True))
        new_groups = []
        for g in schema.groups:
            if g.name in chosen:
                members = len(schema.group_members(g.name))
                need = g.monopoly_size or members
                size = max(1, min(members, need + params.change))
                if size != need:
                    g = replace(g, monopoly_size=size)
            new_groups.append(g)
        return replace(schema, groups=tuple(new_groups))


class _Merge(NoveltyParams):
    merges: list[list[str]]

    @field_validator("merges")
    @classmethod
    def _pairs(cls, merges: list[list[str]]) -> list[list[str]]:
        if not merges or any(len(m) < 2 for m in merges):
            raise ValueError("each merge needs at least two groups")
        return merges


class GroupMerge(Novelty):
    """Colour groups merge into bigger sets: monopolies get rarer and dearer to complete, so
    an agent trading for the old small sets never gets to build."""

    name = "group_merge"
    category = "representation"
    description = ("Colour groups merge into bigger sets (named after the first); easy makes "
                   "two sets of five streets (monopolies become rare), medium also merges red "
                   "with yellow, hard merges the two cheap groups only.")
    Params = _Merge
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"merges": [["brown", "light_blue"], ["green", "dark_blue"]]},
               "medium": {"merges": [["brown", "light_blue"], ["red", "yellow"]]},
               "hard": {"merges": [["brown", "light_blue"]]}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with each merge's groups folded into its first; a group merged twice is
        refused."""
        into: dict[str, str] = {}
        for merge in params.merges:
            select_groups(schema, merge)
            for g in merge[1:]:
                if g in into or g in [m[0] for m in params.merges]:
                    raise ValueError(f"group {g!r} is merged twice")
                into[g] = merge[0]
        squares = tuple(replace(s, group=into[s.group]) if s.group in into else s
                        for s in schema.squares)
        groups = tuple(g for g in schema.groups if g.name not in into)
        return replace(schema, squares=squares, groups=groups)


class _Split(NoveltyParams):
    group: str


class GroupSplit(Novelty):
    """A colour group's last street becomes a group of its own: both sets get smaller and
    easier to complete, so streets an agent treats as half a set are whole sets."""

    name = "group_split"
    category = "representation"
    description = ("A colour group's last street becomes a group of its own (both sets get "
                   "smaller); easy splits brown, the cheapest set, into two one-street sets; "
                   "hard splits light blue.")
    Params = _Split
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"group": "brown"}, "medium": {"group": "green"},
               "hard": {"group": "light_blue"}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The board with the group's last street moved to a new group of its own
        (`<group>_annex`)."""
        groups = {g.name: g for g in schema.groups}
        if params.group not in groups:
            raise ValueError(f"unknown group {params.group!r}; groups: {', '.join(groups)}")
        members = schema.group_members(params.group)
        if len(members) < 2 or any(schema.squares[m].kind != "street" for m in members):
            raise ValueError(f"group {params.group!r} is not a colour group of 2+ streets")
        g = groups[params.group]
        if g.monopoly_size is not None:
            raise ValueError(f"group {params.group!r} has its own set size already")
        annex = f"{g.name}_annex"
        if annex in groups:
            raise ValueError(f"a group is already named {annex!r}")
        last = members[-1]
        squares = tuple(replace(s, group=annex) if k == last else s
                        for k, s in enumerate(schema.squares))
        k = [x.name for x in schema.groups].index(g.name)
        new_groups = schema.groups[:k + 1] + (Group(name=annex, color=g.color),) \
            + schema.groups[k + 1:]
        return replace(schema, squares=squares, groups=new_groups)
