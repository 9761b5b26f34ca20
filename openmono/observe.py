"""One `observe`: the Observation a seat is handed at a decision, built by field name.

Every observation an agent receives is built here, from the state
(`GameState.players_view()` and the board fields), the events since the seat's last
decision, and the decision's context (`Decision.context`); the groups of fields are
named in `openmono.observation` and checked against the Observation when it is
imported. What a plugin adds to legality is worked out here, engine-side, and carried
as data; a novelty's observation transform (`Hooks.observation`) comes last.

Examples:
    >>> import openmono
    >>> from openmono.engine import Game
    >>> game = Game(openmono.standard_schema(), players=4, seed=1)
    >>> seat, decision = next(game.run())
    >>> obs = observe(game, seat, decision)
    >>> obs.phase, obs.cash, obs.square
    ('pre_roll', (1500, 1500, 1500, 1500), -1)
"""

from __future__ import annotations

from typing import Callable, Protocol

from openmono import actions as A
from openmono import legal
from openmono.compiled import Rules
from openmono.decision import Decision
from openmono.observation import CONTEXT_FIELDS, PLAYER_FIELDS, Observation, PublicRules
from openmono.state import GameState


class Table(Protocol):
    """What `observe` reads of a running game (`openmono.engine.Game` is one)."""

    rules: Rules  # the true rules (plugin legality)
    publics: tuple[PublicRules, ...]  # per seat: the rules it is shown
    state: GameState
    events: list
    seen: list[int]  # per seat: how many events it has been shown
    extra_legality: bool
    transform: Callable[[Observation], Observation] | None


_new_tuple = tuple.__new__  # builds the NamedTuple without its slow keyword __new__
if (len(PLAYER_FIELDS), len(CONTEXT_FIELDS)) != (6, 10):  # `observe` indexes both groups
    raise ImportError("observe's display no longer matches the Observation's groups")


def observe(game: Table, seat: int, d: Decision) -> Observation:
    """What `seat` sees now at decision `d` (it consumes the seat's new events)."""
    st = game.state
    evs = game.events
    now = len(evs)
    seen = game.seen
    start = seen[seat]
    seen[seat] = now
    # The groups of `openmono.observation`, in order: HEAD_FIELDS, PLAYER_FIELDS (the
    # state's cached tuples; read before calling, as a call per observation shows),
    # BOARD_FIELDS, events, CONTEXT_FIELDS (the decision's `context`, in that order).
    # tests/test_observation_consistency.py compares every field with the state by name.
    # (One tuple display, its parts indexed: no joined tuples made and dropped.)
    pv = st.shown_players or st.players_view()
    c = d.context
    obs = _new_tuple(Observation, (
        game.publics[seat], seat, d.phase, st.turn, st.current,
        pv[0], pv[1], pv[2], pv[3], pv[4], pv[5],
        st.owner, st.level, st.mortgaged, st.houses_left, st.hotels_left, st.bank_cash,
        tuple(evs[start:]) if start < now else (),
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]))
    if game.extra_legality:
        obs = plugin_legality(game, obs, seat, d)
    transform = game.transform
    return obs if transform is None else transform(obs)


def plugin_legality(game: Table, obs: Observation, seat: int, d: Decision) -> Observation:
    """What a plugin adds to legality, worked out engine-side (plugin code never reaches
    an agent): the streets its building rule forbids now, the plugin actions legal now."""
    rules, st = game.rules, game.state
    refused = d.refused
    if rules.building_allowed is not None and d.phase in legal.MANAGE_PHASES:
        hook = rules.building_allowed
        refused = frozenset(sq for sq in rules.streets if st.owner[sq] == seat
                            and hook(rules, st, seat, sq) is not None)
    extra = tuple(legal.plugin_actions(rules, st, seat, d)) if A.PLUGIN_ACTIONS else ()
    if refused or extra:
        return obs._replace(refused=refused, plugin_actions=extra)
    return obs


def extra_legality(rules: Rules) -> bool:
    """Whether plugin code adds to legality in games on these rules (or may: plugin
    action kinds are registered process-wide)."""
    return rules.building_allowed is not None or bool(A.PLUGIN_ACTIONS)
