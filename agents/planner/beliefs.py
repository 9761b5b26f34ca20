"""Belief helpers for novelty detection (`agents.planner.detection`): diffing the
public rules, rebuilding the believed schema, summarising dice evidence, round factors.

Everything here works on what an agent may see: the public schema dicts of
`Observation.rules.public_schema` and the agent's own believed `GameSchema`. The change
vocabulary (entity `square:NAME`, `group:NAME`, `board`, `bank`, `die:I`, `card:DECK:TEXT`,
...; attribute = the schema field) is the one the evaluation's ground truth uses, so a
reported change can be scored against it.
"""

from __future__ import annotations

import math

from pydantic import ValidationError

from openmono.kinds import CARD_KINDS, SQUARE_KINDS
from openmono.schema import Card, Deck, Die, GameSchema
from openmono.schema_diff import Raw, diff_named

BANK = -1


# --- diffing public schemas -----------------------------------------------------------------


def label_permutation(old: dict, new: dict) -> dict[str, str]:
    """{real group: shown label} when the new public rules only relabel whole groups
    among the old group names (every member of a group shows one other old name): the
    partition into sets is unchanged, only the labels moved. Empty otherwise."""
    old_names = [g["name"] for g in old["groups"]]
    if sorted(old_names) != sorted(g["name"] for g in new["groups"]):
        return {}
    new_sq = {s["name"]: s for s in new["squares"]}
    shown: dict[str, set[str]] = {}
    for s in old["squares"]:
        t = new_sq.get(s["name"])
        if t is None or (s.get("group") is None) != (t.get("group") is None):
            return {}
        if s.get("group") is not None:
            shown.setdefault(s["group"], set()).add(t["group"])
    if any(len(v) != 1 for v in shown.values()):
        return {}
    label = {g: next(iter(v)) for g, v in shown.items()}
    if sorted(label.values()) != sorted(label) or all(k == v for k, v in label.items()):
        return {}
    return {k: v for k, v in label.items() if k != v}


def unlabel(old: dict, new: dict, label: dict[str, str]) -> dict:
    """`new` with a label permutation undone (group names and colours as in `old`)."""
    back = {v: k for k, v in label.items()}
    colour = {g["name"]: g.get("color") for g in old["groups"]}
    out = dict(new)
    groups = []
    for g in new["groups"]:
        g = dict(g)
        real = back.get(g["name"], g["name"])
        if real != g["name"]:
            g["name"] = real
            g["color"] = colour.get(real, g.get("color"))
        groups.append(g)
    out["groups"] = groups
    out["squares"] = [dict(s, group=back.get(s["group"], s["group"]))
                      if s.get("group") is not None else s for s in new["squares"]]
    return out


def diff_public(old: dict, new: dict) -> tuple[list[Raw], dict[str, str]]:
    """Every difference between two public schema dicts as change records, plus the
    square renames found ({old name: new name})."""
    raw: list[Raw] = []
    label = label_permutation(old, new)
    if label:
        for real, shown in label.items():
            raw.append((f"group:{real}", "label shown", real, shown))
        new = unlabel(old, new, label)
    pairs = diff_named(old["squares"], new["squares"], "square", raw)
    renamed = {a["name"]: b["name"] for a, b in pairs if a["name"] != b["name"]}
    old_order = [renamed.get(d["name"], d["name"]) for d in old["squares"]]
    new_order = [d["name"] for d in new["squares"]]
    if len(old["squares"]) != len(new["squares"]):
        raw.append(("board", "size", len(old["squares"]), len(new["squares"])))
    common = set(old_order) & set(new_order)
    if [x for x in old_order if x in common] != [x for x in new_order if x in common]:
        raw.append(("board", "order", [d["name"] for d in old["squares"]], new_order))
    diff_named(old["groups"], new["groups"], "group", raw)
    for key, value in old["bank"].items():
        if value != new["bank"].get(key):
            raw.append(("bank", key, value, new["bank"].get(key)))
    for key in new.keys() - old.keys() - {"squares", "groups", "bank"}:
        raw.append(("rules", key, None, new[key]))
    return raw, renamed


# --- rebuilding the believed schema -------------------------------------------------------
def merge_public(public: dict, dice: tuple[Die, ...], decks: tuple[Deck, ...],
                 renamed: dict[str, str] | None = None) -> GameSchema:
    """A schema with the public fields of `public` and the believed (hidden) dice and
    decks. Cards follow renamed squares; cards that no longer fit the board are dropped
    (a deck left empty keeps a no-op card); unknown square kinds count as empty squares."""
    renamed = renamed or {}
    squares = []
    for s in public["squares"]:
        if s.get("kind") not in SQUARE_KINDS:
            s = dict(s, kind="free_parking")
        squares.append(s)
    names = {s["name"] for s in squares}
    kinds = {s["kind"] for s in squares}
    new_decks = []
    for d in decks:
        cards = []
        for c in d.cards:
            sq = renamed.get(c.square, c.square) if c.square else c.square
            if sq is not None and sq not in names:
                continue
            if c.target_kind is not None and c.target_kind not in kinds:
                continue
            if c.kind not in CARD_KINDS:
                continue
            cards.append(c if sq == c.square else c.model_copy(update={"square": sq}))
        if not cards:
            cards = [Card(text=d.cards[0].text, kind="collect", amount=0)]
        new_decks.append(Deck(name=d.name, cards=tuple(cards)))
    deck_names = {d.name for d in new_decks}
    for s in squares:
        if s["kind"] == "card" and s.get("deck") not in deck_names:
            new_decks.append(Deck(name=s["deck"], cards=(Card(text="?", kind="collect"),)))
            deck_names.add(s["deck"])
    data = dict(public, squares=squares,
                dice=[d.model_dump() for d in dice], decks=[d.model_dump() for d in new_decks])
    try:
        return GameSchema.model_validate(data)
    except ValidationError:
        # Last resort: the board as shown, plain dice, no decks (card squares do nothing).
        squares = [dict(s, kind="free_parking", deck=None) if s["kind"] == "card" else s
                   for s in squares]
        return GameSchema.model_validate(dict(public, squares=squares,
                                              dice=[d.model_dump() for d in dice], decks=[]))


def regroup(schema: GameSchema, group_of: dict[str, str],
            need_of: dict[str, int] | None = None) -> GameSchema:
    """`schema` with the streets named in `group_of` moved to those colour groups, and
    the groups in `need_of` made sets by that many streets (unchanged when it does not
    validate: a belief never breaks the rules)."""
    if not group_of and not need_of:
        return schema
    need_of = need_of or {}
    squares = tuple(s.model_copy(update={"group": group_of[s.name]})
                    if s.name in group_of and s.group is not None else s
                    for s in schema.squares)
    groups = tuple(g.model_copy(update={"monopoly_size": need_of[g.name]})
                   if g.name in need_of else g for g in schema.groups)
    try:
        return GameSchema.model_validate({**schema.model_dump(),
                                          "squares": [s.model_dump() for s in squares],
                                          "groups": [g.model_dump() for g in groups]})
    except ValidationError:
        return schema


def scale(value: int, factor: float) -> int:
    """A printed value times a factor, rounded (how a scaled rule would be printed)."""
    return max(0, int(round(value * factor)))


def nice_factor(lo: float, hi: float) -> float:
    """The value in [lo, hi) with the fewest decimals (a rule's factor is a round number)."""
    for digits in range(0, 5):
        q = 10 ** digits
        v = math.ceil(lo * q - 1e-9) / q
        if v < hi:
            return v
    return (lo + hi) / 2


# --- dice ---------------------------------------------------------------------------------
def chi_square(counts: dict[int, int], probs: dict[int, float]) -> tuple[float, int, int]:
    """Pearson's statistic of `counts` against `probs`, its degrees of freedom and the
    sample size. Values with probability 0 are handled elsewhere (exact evidence)."""
    n = sum(counts.values())
    stat = 0.0
    cells = 0
    for v, p in probs.items():
        if p <= 0:
            continue
        e = n * p
        d = counts.get(v, 0) - e
        stat += d * d / e if e > 0 else 0.0
        cells += 1
    return stat, max(cells - 1, 0), n


def map_weights(counts: dict[int, int], probs: dict[int, float],
                strength: float) -> dict[int, float]:
    """MAP face probabilities under a Dirichlet prior centred on `probs` with `strength`
    pseudo-counts (alpha_j = 1 + strength * p_j): (n_j + strength p_j) / (n + strength)."""
    values = sorted(set(probs) | set(counts))
    n = sum(counts.values())
    return {v: (counts.get(v, 0) + strength * probs.get(v, 0.0)) / (n + strength)
            for v in values}


def sparse_weights(counts: dict[int, int], faces: tuple[int, ...], z: float = 4.0) -> list[float]:
    """Relative face weights with the unbiased faces at exactly 1.0: faces whose count
    differs significantly (|z| > `z`) from the pooled rate of the others are biased,
    the rest are pooled. A compact summary of a MAP estimate for reporting."""
    values = list(dict.fromkeys(faces))
    mult = {v: faces.count(v) for v in values}
    biased: set[int] = set()
    while True:
        base = [v for v in values if v not in biased]
        if not base:
            break
        n_base = sum(counts.get(v, 0) for v in base)
        m_base = sum(mult[v] for v in base)
        n = sum(counts.get(v, 0) for v in values)
        if n == 0:
            break
        rate = n_base / m_base  # count per physical face among unbiased ones
        worst, worst_z = None, z
        for v in base:
            e = rate * mult[v]
            if e <= 0:
                continue
            zz = abs(counts.get(v, 0) - e) / math.sqrt(e)
            if zz > worst_z:
                worst, worst_z = v, zz
        if worst is None or len(base) <= 1:
            break
        biased.add(worst)
    base = [v for v in values if v not in biased]
    n_base = sum(counts.get(v, 0) for v in base)
    m_base = sum(mult[v] for v in base) or 1
    rate = n_base / m_base if n_base else 1.0
    out = []
    for f in faces:
        out.append(1.0 if f not in biased else round(counts.get(f, 0) / mult[f] / rate, 2))
    return out


def face_layout(values: list[int], believed_faces: int) -> list[int]:
    """Faces of a die from the values seen: when k distinct values fit a die of the
    believed number of faces evenly, it is read as that die with values repeated."""
    values = sorted(values)
    if values and believed_faces % len(values) == 0 and len(values) < believed_faces:
        return values * (believed_faces // len(values))
    return values
