"""Shared test helpers: scripted agents, rigged dice and hand-built positions.

A golden test builds a position (`make_game`), rigs the dice, plays a fixed number of
turns (`play`) with scripted agents and asserts exact numbers on the state and events.
Everything here is generic: property tests may import it too.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterable, Mapping, Sequence

import openmono
from openmono import events as E
from openmono.engine import Game
from openmono.hooks import Hooks
from openmono.legal import DEFAULT_ACTION
from openmono.play import GameResult, play_game
from openmono.schema import GameSchema

STANDARD = openmono.standard_schema()

Policy = Callable[[Any], Any]


def sq(name: str | int, schema: GameSchema = STANDARD) -> int:
    """A square index from its name (ints pass through)."""
    return name if isinstance(name, int) else schema.index_of(name)


class Scripted:
    """An agent that plays queued actions, then a policy, then the passive default.

    A queue item `(phase, action)` waits for the next decision in that phase (decisions
    of other phases in between get the policy or default); a bare item is returned at
    the very next decision whatever it is (garbage included, for fault tests). The
    policy may return None to fall back to the phase default (conclude / decline /
    drop out / reject). Every observation is kept in `seen`.
    """

    def __init__(self, *queue: Any, policy: Policy | None = None) -> None:
        self.queue = deque(queue)
        self.policy = policy
        self.seen: list[Any] = []

    def act(self, obs: Any) -> Any:
        self.seen.append(obs)
        if self.queue:
            head = self.queue[0]
            if isinstance(head, tuple) and len(head) == 2 and isinstance(head[0], str):
                if head[0] == obs.phase:
                    self.queue.popleft()
                    return head[1]
            else:
                self.queue.popleft()
                return head
        if self.policy is not None:
            action = self.policy(obs)
            if action is not None:
                return action
        return DEFAULT_ACTION[obs.phase]

    def phases(self) -> list[str]:
        return [o.phase for o in self.seen]


class RiggedDice:
    """A `dice_roll` hook returning the given rolls in order; one roll too many fails."""

    def __init__(self, rolls: Iterable[Sequence[int]]) -> None:
        self.rolls = deque(tuple(r) for r in rolls)

    def __call__(self, game: Game, seat: int, dice: tuple[int, ...]) -> tuple[int, ...]:
        if not self.rolls:
            raise AssertionError("the engine rolled more dice than the test rigged")
        return self.rolls.popleft()


def with_bank(schema: GameSchema, **bank: Any) -> GameSchema:
    """A copy of `schema` with some bank rules changed."""
    return schema.model_copy(update={"bank": schema.bank.model_copy(update=bank)})


def card_index(game: Game, deck: str, text: str) -> int:
    """The index (in the compiled deck) of the first card whose text starts with `text`."""
    cards = game.rules.decks[game.rules.deck_names.index(deck)]
    for c in cards:
        if c.text.startswith(text):
            return c.index
    raise KeyError(f"no card starting with {text!r} in {deck}")


def make_game(
    players: int = 2,
    rolls: Iterable[Sequence[int]] = (),
    *,
    schema: GameSchema = STANDARD,
    turns: int = 1,
    seed: int = 0,
    cash: Mapping[int, int] | None = None,
    position: Mapping[int, str | int] | None = None,
    owner: Mapping[str | int, int] | None = None,
    level: Mapping[str | int, int] | None = None,
    mortgaged: Iterable[str | int] = (),
    in_jail: Mapping[int, int] | None = None,
    jail_cards: Mapping[int, Sequence[str]] | None = None,
    houses_left: int | None = None,
    hotels_left: int | None = None,
    deck_top: Mapping[str, Sequence[str]] | None = None,
) -> Game:
    """A game in a constructed position that ends after `turns` player-turns.

    Building levels take their houses/hotels from the bank's stock (then
    `houses_left`/`hotels_left` override it); `in_jail` maps a seat to the jail turns
    already spent; `jail_cards` gives a seat the get-out-of-jail card of each named
    deck (taken out of that deck); `deck_top` puts the cards whose texts start with the
    given prefixes on top of a deck, in order. Seat 0 plays first.
    """
    schema = with_bank(schema, turn_limit=turns)
    dice = RiggedDice(rolls)
    game = Game(schema, players=players, seed=seed, hooks=Hooks(dice_roll=dice))
    game.rigged = dice  # type: ignore[attr-defined]
    st = game.state
    rules = game.rules
    for seat, amount in (cash or {}).items():
        st.cash[seat] = amount
    for seat, where in (position or {}).items():
        st.position[seat] = sq(where, schema)
    for where, seat in (owner or {}).items():
        st.set_owner(sq(where, schema), seat)
    for where, lv in (level or {}).items():
        i = sq(where, schema)
        st.set_level(i, lv)
        if lv == rules.hotel_level:
            st.hotels_left -= 1
        else:
            st.houses_left -= lv
    for where in mortgaged:
        st.set_mortgaged(sq(where, schema), True)
    for seat, spent in (in_jail or {}).items():
        st.in_jail[seat] = True
        st.jail_turns[seat] = spent
        st.position[seat] = rules.jail
    for seat, decks in (jail_cards or {}).items():
        for deck in decks:
            d = rules.deck_names.index(deck)
            ci = next(c.index for c in rules.decks[d] if c.kind == "get_out_of_jail")
            st.decks[d].remove(ci)
            st.jail_cards[seat].append((d, ci))
    if houses_left is not None:
        st.houses_left = houses_left
    if hotels_left is not None:
        st.hotels_left = hotels_left
    for deck, texts in (deck_top or {}).items():
        order = st.decks[rules.deck_names.index(deck)]
        top = [card_index(game, deck, t) for t in texts]
        order[:] = top + [c for c in order if c not in top]
    return game


def play(game: Game, agents: Mapping[int, Any] | None = None,
         all_dice: bool = True) -> GameResult:
    """Play `game` to its end with seats in order; seats not given play passively.

    With `all_dice`, fail unless every rigged roll was used (the scenario happened).
    """
    agents = dict(agents or {})
    seated = [agents.get(s) or Scripted() for s in range(game.players)]
    result = play_game(game.schema, seated, seed=game.seed, seats=list(range(game.players)),
                       game=game)
    rigged = getattr(game, "rigged", None)
    if all_dice and rigged is not None and rigged.rolls:
        raise AssertionError(f"rigged rolls left unused: {list(rigged.rolls)}")
    return result


def of(game: Game, kind: type) -> list[Any]:
    """The game's events of one type, in order."""
    return [e for e in game.events if type(e) is kind]


def payments(game: Game, reason: str | None = None) -> list[tuple[int, int, int, str, int]]:
    """Every payment as (payer, payee, amount, reason, square), optionally of one reason."""
    return [tuple(e[:5]) for e in of(game, E.Payment) if reason is None or e.reason == reason]


def finite_differences(f: Callable[[], float], x: Any, eps: float = 1e-6) -> Any:
    """Central differences of `f()` with respect to every entry of the array `x` (changed
    in place and restored): the reference for hand-written gradients."""
    import numpy as np
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        up = f()
        x[i] = old - eps
        down = f()
        x[i] = old
        g[i] = (up - down) / (2 * eps)
    return g
