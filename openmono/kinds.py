"""Registries of square kinds and card kinds: the engine's class-novelty extension points.

Core kinds are handled inline by the engine (their handler here is None). A plugin adds
a kind with `register_square_kind` / `register_card_kind`, giving a handler the engine
calls when a player lands on such a square or draws such a card. A handler has the
signature `handler(game, seat, square_or_card)`, where `game` is an
`openmono.game_api.GameAPI`, and may be a generator function (it then can
`yield from game.charge(...)` and the API's other decision-taking calls).
"""

from __future__ import annotations

from typing import Any, Callable

Handler = Callable[..., Any]

CORE_SQUARE_KINDS = (
    "go",
    "street",
    "railroad",
    "utility",
    "tax",
    "card",
    "jail",
    "go_to_jail",
    "free_parking",
)
CORE_CARD_KINDS = (
    "advance_to",
    "advance_to_nearest",
    "move_back",
    "collect",
    "pay",
    "collect_from_each",
    "pay_each",
    "repairs",
    "go_to_jail",
    "get_out_of_jail",
)

SQUARE_KINDS: dict[str, Handler | None] = {k: None for k in CORE_SQUARE_KINDS}
CARD_KINDS: dict[str, Handler | None] = {k: None for k in CORE_CARD_KINDS}


def register_square_kind(name: str, on_land: Handler) -> None:
    """Add a square kind; `on_land(game, seat, square_index)` runs when a move ends on it."""
    _register(SQUARE_KINDS, CORE_SQUARE_KINDS, "square", name, on_land)


def register_card_kind(name: str, on_draw: Handler) -> None:
    """Add a card kind; `on_draw(game, seat, card)` runs when it is drawn."""
    _register(CARD_KINDS, CORE_CARD_KINDS, "card", name, on_draw)


def _register(
    table: dict[str, Handler | None], core: tuple[str, ...], what: str, name: str, fn: Handler
) -> None:
    if name in core:
        raise ValueError(f"{name!r} is a core {what} kind and cannot be replaced")
    if not callable(fn):
        raise TypeError(f"the handler for {what} kind {name!r} must be callable")
    existing = table.get(name)
    if existing is not None and existing is not fn:
        raise ValueError(f"{what} kind {name!r} is already registered by another handler")
    table[name] = fn
