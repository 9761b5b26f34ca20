"""Named rule hooks: the places a class novelty may change how the game runs.

The engine calls a hook only when one is installed (`None` means the standard rule), so
the standard game pays nothing for them. Several plugins' hooks chain with `combine`.
`game` below is the plugin's door into the running game, an `openmono.game_api.GameAPI`
(never the engine itself); `building_allowed` runs engine-side with the compiled rules
and the state, and agents see only that building is refused, not why.

- dice_roll(game, seat, dice) -> dice                 after every roll
- landing(game, seat, square) -> bool | generator     before the standard landing
                                                      effect; True skips it
- passing_go(game, seat, amount) -> amount            salary paid when passing Go
- rent(game, payer, square, amount) -> amount         rent about to be charged
- tax(game, seat, square, amount) -> amount           tax about to be charged
- building_allowed(rules, view, seat, square) -> str | None   extra build condition
- end_of_turn(game, seat) -> None | generator         after a player's turn
- observation(obs) -> obs                              what an agent is shown
- game_over(game) -> int | None                        a winner to end the game now
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable, Optional

Fn = Optional[Callable[..., Any]]


@dataclass(frozen=True)
class Hooks:
    """The rule hooks a novelty installs, one field per hook (None: the standard rule).

    The module docstring lists each hook's signature. A hook that acts on the game
    receives a `GameAPI` as `game`; one that charges or moves a seat does it with
    `yield from` (the hook is then a generator).

    Examples:
        Go pays a bonus of 100 to whoever lands on it, and rents double:

        >>> import openmono
        >>> def go_bonus(game, seat, square):
        ...     if square == 0:
        ...         game.pay(seat, 100, "go_bonus", square)
        ...     return False  # the standard landing effect too
        >>> hooks = Hooks(landing=go_bonus,
        ...               rent=lambda game, payer, square, amount: 2 * amount)
        >>> hooks.installed()
        ['landing', 'rent']
        >>> class First:
        ...     def act(self, observation):
        ...         return observation.legal_actions()[0]
        >>> schema = openmono.standard_schema()
        >>> game = openmono.Game(schema, 4, seed=5, hooks=hooks)
        >>> _ = openmono.play_game(schema, [First() for _ in range(4)], seed=5, game=game)
        >>> bonuses = [e for e in game.events if e.kind == "payment" and e.reason == "go_bonus"]
        >>> len(bonuses) > 0 and all(e.amount == 100 for e in bonuses)
        True

        Hooks of several plugins chain with `combine`:

        >>> both = hooks.combine(Hooks(rent=lambda game, payer, square, amount: amount + 10))
        >>> both.rent(None, 0, 1, 6)
        22
    """

    dice_roll: Fn = None
    landing: Fn = None
    passing_go: Fn = None
    rent: Fn = None
    tax: Fn = None
    building_allowed: Fn = None
    end_of_turn: Fn = None
    observation: Fn = None
    game_over: Fn = None

    def installed(self) -> list[str]:
        """The names of the hooks set, in field order."""
        return [f.name for f in fields(self) if getattr(self, f.name) is not None]

    def combine(self, later: Hooks) -> Hooks:
        """Both sets of hooks; where both define one, `later` runs on `self`'s result."""
        merged = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(later, f.name)
            merged[f.name] = _chain(f.name, a, b) if a and b else (a or b)
        return Hooks(**merged)


def _chain(name: str, first: Callable[..., Any], second: Callable[..., Any]) -> Callable[..., Any]:
    if name in ("dice_roll", "passing_go", "rent", "tax"):
        # The transformed value is always the last argument.
        return lambda *args: second(*args[:-1], first(*args))
    if name == "observation":
        return lambda obs: second(first(obs))
    if name == "building_allowed":
        return lambda rules, view, seat, sq: first(rules, view, seat, sq) or second(
            rules, view, seat, sq)
    if name == "game_over":
        return lambda game: first(game) if first(game) is not None else second(game)

    def both(*args: Any) -> Any:
        import inspect

        r1 = first(*args)
        if inspect.isgenerator(r1):
            def gen():
                yield from r1
                r2 = second(*args)
                if inspect.isgenerator(r2):
                    yield from r2
            return gen()
        if name == "landing" and r1 is True:
            return True
        return second(*args)

    return both


NO_HOOKS = Hooks()
