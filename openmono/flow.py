"""The plumbing the parts of the game loop share: what a request is, how a game stops
early, how a hook's optional generator is run, and the fast NamedTuple constructor."""

from __future__ import annotations

import inspect
from typing import Any, Generator

from openmono.decision import Decision

Request = tuple[int, Decision]  # what `Game.run` yields: the seat to decide, and what
new_tuple = tuple.__new__  # builds a NamedTuple (observation, hot events) without its slow __new__


class GameOver(Exception):
    """Raised inside the game loop when the game ends in the middle of a turn
    (the last bankruptcy); `Game.run` returns on it."""


def maybe_gen(result: Any) -> Generator[Request, Any, Any]:
    """`yield from` a hook's result when it is a generator (it asks decisions); else
    return it as it is."""
    if inspect.isgenerator(result):
        return (yield from result)
    return result
