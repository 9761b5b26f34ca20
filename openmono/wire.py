"""`Observation.to_json()` read back: the observation a remote agent rebuilds.

A client in another process receives an observation as JSON (`Observation.to_json()`)
and rebuilds the same sealed value here, so an agent written against `Observation`
(every built-in agent) plays over the wire exactly as it does in process:
`observation_from_json(obs.to_json()) == obs` (tests/test_wire.py checks this at every
decision of many games). The public rules are compiled again from the public schema,
once per rule set (`RulesCache`); the hidden parts the public schema lacks (dice,
deck contents) are filled with placeholders that no public field depends on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from openmono import actions as A
from openmono import events as E
from openmono.compiled import compile_rules
from openmono.observation import Observation, PublicRules, make_public_rules
from openmono.schema import GameSchema

EVENT_KINDS: dict[str, type] = {
    cls.kind: cls for cls in vars(E).values()
    if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")
    and isinstance(getattr(cls, "kind", None), str)
}
_TERMS_FIELDS = {"offer"}  # event fields holding trade terms


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def terms_from_json(data: dict[str, Any]) -> A.TradeTerms:
    """`TradeTerms` read back from their JSON."""
    return A.TradeTerms(**{k: _tuples(v) for k, v in data.items() if k != "kind"})


def event_from_json(data: dict[str, Any]) -> NamedTuple:
    """One event from `event_to_json`; an unknown kind fails naming it."""
    cls = EVENT_KINDS.get(data.get("kind"))  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"unknown event kind {data.get('kind')!r}")
    values = []
    for name in cls._fields:  # type: ignore[attr-defined]
        v = data[name]
        if name in _TERMS_FIELDS and isinstance(v, dict):
            v = terms_from_json(v)
        values.append(_tuples(v))
    return cls(*values)


def _plugin_action_class(kind: str) -> type[A.Action]:
    """A parameter-free action class for a plugin kind this process does not know."""
    known = A.ACTION_KINDS.get(kind)
    if known is not None:
        return known
    cls = dataclass(frozen=True, slots=True)(type(f"PluginAction_{kind}", (A.Action,),
                                                   {"kind": kind, "__annotations__": {}}))
    return cls


def action_from_wire(data: dict[str, Any]) -> A.Action:
    """An action from its JSON; plugin kinds unknown here become parameter-free actions."""
    kind = data.get("kind")
    if kind not in A.ACTION_KINDS and isinstance(kind, str):
        return _plugin_action_class(kind)()
    return A.action_from_json(data)


def rules_from_public(public: dict[str, Any], deck_names: list[str] | None = None
                      ) -> PublicRules:
    """The public rules compiled from the public schema (dice and deck contents, which
    it lacks, get placeholders; the deck order comes from `deck_names`)."""
    names = list(deck_names or [])
    for sq in public.get("squares", ()):
        deck = sq.get("deck")
        if deck and deck not in names:
            names.append(deck)
    placeholder = {"text": "placeholder", "kind": "collect", "amount": 0}
    full = dict(public, decks=[{"name": n, "cards": [placeholder]} for n in names])
    full.pop("dice", None)
    return make_public_rules(compile_rules(GameSchema.model_validate(full)))


class RulesCache:
    """The last rules rebuilt, kept while the public schema stays the same."""

    def __init__(self) -> None:
        self._key: Any = None
        self._rules: PublicRules | None = None

    def get(self, public: dict[str, Any], deck_names: list[str] | None) -> PublicRules:
        """The `PublicRules` of these public rules, rebuilt only when they change."""
        key = (public, deck_names)
        if self._rules is None or key != self._key:
            self._rules = rules_from_public(public, deck_names)
            self._key = key
        return self._rules


def observation_from_json(data: dict[str, Any], cache: RulesCache | None = None
                          ) -> Observation:
    """The `Observation` whose `to_json()` gave `data`."""
    rules = (cache or RulesCache()).get(data.get("rules"), data.get("deck_names"))
    values: dict[str, Any] = {}
    for name in Observation._fields:
        if name == "rules":
            values[name] = rules
        elif name == "events":
            values[name] = tuple(event_from_json(e) for e in data["events"])
        elif name == "offer":
            values[name] = None if data["offer"] is None else terms_from_json(data["offer"])
        elif name == "refused":
            values[name] = frozenset(data["refused"])
        elif name == "plugin_actions":
            values[name] = tuple(action_from_wire(a) for a in data["plugin_actions"])
        else:
            values[name] = _tuples(data[name])
    return Observation(**values)
