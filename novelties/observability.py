"""How much of a novelty agents are shown: `announced` or `effects`.

- `announced`: the public rules agents see change at injection (the board, the rule
  sheet and the plugin's announced parameters show the new values).
- `effects`: the public rules stay those of the world before the novelty; agents learn
  only from outcomes - payments, moves, draws, dice, refused actions.

Under `effects` the rules *shown* are built by `shown_schema(before, after)`: the new
board's frame (how many squares, which index is which square) with every square shown
as it was before - same name, kind, group, prices, rents, fees, announced parameters -
and the bank rules of before. Only what cannot be hidden without making the state
unreadable is shown as it now is: the number and order of the squares (an observation
lists owners, buildings and positions per square index), and squares that did not exist
before at all (a longer board). `Game(shown=...)` also turns the reasons of payments that
a plugin makes into the generic categories `rule_charge` / `rule_payout`, so a new
payment does not name its rule.

Legality under `effects`: the engine judges every action by the true rules; an agent's
`legal_actions()` are worked out from the rules it is shown, so an action they list may
be refused (a `Fault` event with the reason, and the phase's default action) - which is
itself an outcome the agent can learn from. Rule hooks that forbid actions are reported
as data (`Observation.refused`, parameter-free) in both levels.
"""

from __future__ import annotations

from typing import Any

from openmono.schema import GameSchema

from novelties.base import NoveltyError

OBSERVABILITY = ("announced", "effects")


def check_observability(value: Any) -> str:
    """`value` when it is an observability level, else a `NoveltyError` naming the levels."""
    if value not in OBSERVABILITY:
        raise NoveltyError(f"unknown novelty.observability {value!r}; "
                           f"choose one of: {', '.join(OBSERVABILITY)}")
    return value


def shown_schema(before: GameSchema, after: GameSchema) -> GameSchema:
    """The rules shown to agents under `effects` (see the module docstring)."""
    if after == before:
        return before
    old_by_name = {s.name: s for s in before.squares}
    after_names = {s.name for s in after.squares}
    # An old square whose name vanished is shown in place of the new square at its index
    # (a renamed or replaced square keeps its old face).
    vanished = {i: s for i, s in enumerate(before.squares) if s.name not in after_names}
    squares = []
    for i, sq in enumerate(after.squares):
        if sq.name in old_by_name:
            squares.append(old_by_name[sq.name])
        elif i in vanished:
            squares.append(vanished.pop(i))
        else:
            squares.append(sq)  # a square that did not exist before
    groups = {g.name: g for g in before.groups}  # old groups first, in their order
    for g in after.groups:
        groups.setdefault(g.name, g)
    used = {s.group for s in squares if s.group is not None}
    data = before.model_dump()
    data["squares"] = [s.model_dump() for s in squares]
    data["groups"] = [g.model_dump() for g in groups.values() if g.name in used]
    try:
        return GameSchema.model_validate(data)
    except ValueError:
        # Should the old face not fit the new frame (a card of the old decks pointing at
        # a square that is gone), the novelty is shown as it is rather than guessed.
        return after
