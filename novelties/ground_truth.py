"""Ground truth of a novelty: which entities and attributes changed, and can agents see it.

A change record is `{entity, attribute, old, new, visible, description}`. Schema changes
come from diffing the old and new schema; hook changes are what the plugin declares.

Entity names (`entity_exists` checks them):
  square:NAME  group:NAME  board  bank  dice  die:I  deck:NAME  card:DECK:TEXT
  rule:HOOK (a `Hooks` field)  action:KIND  observation:FIELD

Squares and groups are matched by name; a square whose name disappeared is paired with
the unmatched new square at the same index (a rename). A changed square order is one
`board/order` record. Visibility: an entity is hidden when the schema field it lives in
is in `openmono.schema.HIDDEN_FIELDS` (dice, decks), unless the plugin overrides it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Iterator, Mapping

from openmono.actions import ACTION_KINDS
from openmono.hooks import Hooks
from openmono.observation import Observation
from openmono.schema import HIDDEN_FIELDS, GameSchema
from openmono.schema_diff import diff_fields, diff_named

# Entity type -> the schema field it lives in (for the default visibility).
_FIELD_OF = {"square": "squares", "board": "squares", "group": "groups", "bank": "bank",
             "dice": "dice", "die": "dice", "deck": "decks", "card": "decks"}


@dataclass(frozen=True)
class Change:
    """One ground-truth change: `entity` and `attribute` (the naming in the module
    docstring), the values before and after, whether an agent can read it off its
    observation, and the plugin's note.
    """
    entity: str
    attribute: str
    old: Any
    new: Any
    visible: bool
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        """The change as a JSON-ready dict (what trials record)."""
        return asdict(self)

    # Mapping protocol, so `dict(change)` works like `change.to_json()`.
    def keys(self) -> list[str]:
        """The field names, so `dict(change)` works like `change.to_json()`."""
        return [f.name for f in fields(self)]

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:  # pragma: no cover - dict() uses keys()
        return iter(self.keys())


def default_visible(entity: str, overrides: Mapping[str, bool] | None = None) -> bool:
    """Whether a change to `entity` can be read off an observation: the plugin's
    longest matching override, else shown unless it lives in a hidden schema field.
    """
    if overrides:
        best = max((p for p in overrides if entity.startswith(p)), key=len, default=None)
        if best is not None:
            return bool(overrides[best])
    kind = entity.split(":", 1)[0]
    return _FIELD_OF.get(kind, "") not in HIDDEN_FIELDS


def diff_schemas(old: GameSchema, new: GameSchema,
                 visibility: Mapping[str, bool] | None = None) -> list[Change]:
    """Every difference between two schemas, as change records."""
    o = old.model_dump(mode="json")
    n = new.model_dump(mode="json")
    raw: list[tuple[str, str, Any, Any]] = []
    _diff_squares(o["squares"], n["squares"], raw)
    diff_named(o["groups"], n["groups"], "group", raw)
    _diff_dice(o["dice"], n["dice"], raw)
    _diff_decks(o["decks"], n["decks"], raw)
    for key in o["bank"]:
        if o["bank"][key] != n["bank"].get(key):
            raw.append(("bank", key, o["bank"][key], n["bank"].get(key)))
    return [Change(e, a, ov, nv, default_visible(e, visibility)) for e, a, ov, nv in raw]


def ground_truth(old: GameSchema, applied: Any) -> list[Change]:
    """Schema diff plus the plugin's declared hook changes (`applied` is an `Applied`)."""
    out = diff_schemas(old, applied.schema, applied.visibility)
    for h in applied.declared:
        out.append(Change(h.entity, h.attribute, h.old, h.new, h.visible, h.description))
    return out


def _diff_squares(olds: list[dict], news: list[dict], raw: list) -> None:
    pairs = diff_named(olds, news, "square", raw)
    renamed = {a["name"]: b["name"] for a, b in pairs}
    old_order = [renamed.get(d["name"], d["name"]) for d in olds]
    new_order = [d["name"] for d in news]
    if len(olds) != len(news):
        raw.append(("board", "size", len(olds), len(news)))
    common = set(old_order) & set(new_order)
    if [x for x in old_order if x in common] != [x for x in new_order if x in common]:
        raw.append(("board", "order", [d["name"] for d in olds], new_order))


def _diff_dice(olds: list[dict], news: list[dict], raw: list) -> None:
    if len(olds) != len(news):
        raw.append(("dice", "count", len(olds), len(news)))
    for i in range(max(len(olds), len(news))):
        a = olds[i] if i < len(olds) else None
        b = news[i] if i < len(news) else None
        if a is None or b is None:
            raw.append((f"die:{i}", "exists", a, b))
        else:
            diff_fields(f"die:{i}", a, b, raw)


def _diff_decks(olds: list[dict], news: list[dict], raw: list) -> None:
    new_by = {d["name"]: d for d in news}
    old_names = {d["name"] for d in olds}
    for d in olds:
        if d["name"] not in new_by:
            raw.append((f"deck:{d['name']}", "exists", d, None))
            continue
        _diff_cards(d["name"], d["cards"], new_by[d["name"]]["cards"], raw)
    for d in news:
        if d["name"] not in old_names:
            raw.append((f"deck:{d['name']}", "exists", None, d))


def _diff_cards(deck: str, olds: list[dict], news: list[dict], raw: list) -> None:
    if len(olds) == len(news):
        for a, b in zip(olds, news):
            diff_fields(f"card:{deck}:{a['text']}", a, b, raw)
        return
    new_by = {c["text"]: c for c in news}
    old_texts = {c["text"] for c in olds}
    for a in olds:
        b = new_by.get(a["text"])
        if b is None:
            raw.append((f"card:{deck}:{a['text']}", "exists", a, None))
        else:
            diff_fields(f"card:{deck}:{a['text']}", a, b, raw)
    for b in news:
        if b["text"] not in old_texts:
            raw.append((f"card:{deck}:{b['text']}", "exists", None, b))


def entity_exists(entity: str, *schemas: GameSchema) -> bool:
    """Whether a ground-truth entity names something real in one of `schemas`."""
    kind, _, rest = entity.partition(":")
    if kind in ("board", "bank", "dice") and not rest:
        return True
    if kind == "square":
        return any(rest == s.name for sc in schemas for s in sc.squares)
    if kind == "group":
        return any(rest == g.name for sc in schemas for g in sc.groups)
    if kind == "die":
        return rest.isdigit() and any(int(rest) < len(sc.dice) for sc in schemas)
    if kind == "deck":
        return any(rest == d.name for sc in schemas for d in sc.decks)
    if kind == "card":
        deck, _, text = rest.partition(":")
        return any(d.name == deck and any(c.text == text for c in d.cards)
                   for sc in schemas for d in sc.decks)
    if kind == "rule":
        return rest in {f.name for f in fields(Hooks)}
    if kind == "action":
        return rest in ACTION_KINDS
    if kind == "observation":
        return rest in Observation._fields
    return False


def format_changes(changes: list[Change]) -> str:
    """A plain-text table of change records (for `python -m novelties show`)."""
    if not changes:
        return "(no changes)"
    rows = [("entity", "attribute", "old", "new", "visible")]
    for c in changes:
        rows.append((c.entity, c.attribute, _brief(c.old), _brief(c.new),
                     "yes" if c.visible else "hidden"))
    widths = [min(max(len(r[i]) for r in rows), 48) for i in range(4)]
    lines = []
    for r in rows:
        cells = [r[i][:widths[i]].ljust(widths[i]) for i in range(4)] + [r[4]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _brief(value: Any) -> str:
    text = "-" if value is None else str(value)
    return text if len(text) <= 48 else text[:45] + "..."
