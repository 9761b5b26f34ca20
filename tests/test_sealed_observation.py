"""The observation is a sealed value: nothing reachable from it is mutable, callable,
engine-side or hidden, and an agent that writes into everything it can reach (a vandal)
plays exactly the game its well-behaved twin plays - for the standard rules and for
every catalogue plugin at its hard preset."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import openmono
from agents.base import Agent
from agents.baseline import BaselineAgent
from agents.random_agent import RandomAgent
from novelties import apply_novelty, available_novelties
from novelties.catalogue._common import set_bank
from openmono import actions as A
from openmono import legal
from openmono.compiled import compile_rules
from openmono.engine import Game
from openmono.hooks import NO_HOOKS
from openmono.observation import PUBLIC_RULES_FIELDS, PublicRules
from openmono.play import play_game
from openmono.seal import unsealed

BASE = set_bank(openmono.standard_schema(), turn_limit=100)
ROOT = Path(__file__).resolve().parents[1]


def _worlds() -> list[tuple[str, Any, Any]]:
    out = [("standard", BASE, NO_HOOKS)]
    for name in sorted(available_novelties()):
        prepared = apply_novelty(name, BASE, "hard")
        out.append((name, prepared.schema, prepared.hooks))
    return out


WORLDS = _worlds()
IDS = [w[0] for w in WORLDS]


class Sealed(Agent):
    """Checks every observation it is handed, then lets `inner` answer."""

    def __init__(self, inner: Agent, problems: list[str]) -> None:
        super().__init__()
        self.inner = inner
        self.problems = problems
        self.rules_seen: set[int] = set()
        self.keep: list[Any] = []

    def _check(self, obs: Any) -> None:
        if id(obs.rules) not in self.rules_seen:
            self.rules_seen.add(id(obs.rules))
            self.keep.append(obs.rules)
            self.problems.extend(unsealed(obs.rules, "obs.rules"))
        self.problems.extend(unsealed(obs._replace(rules=None), "obs"))
        self.problems.extend(unsealed(tuple(obs.legal_actions()), "obs.legal_actions()"))

    def seed(self, seed: int) -> None:
        self.inner.seed(seed)

    def begin_game(self, seat: int, observation: Any) -> None:
        self._check(observation)
        self.inner.begin_game(seat, observation)

    def act(self, obs: Any) -> A.Action:
        self._check(obs)
        return self.inner.act(obs)


@pytest.mark.parametrize("name,schema,hooks", WORLDS, ids=IDS)
def test_everything_reachable_from_an_observation_is_sealed(name, schema, hooks):
    problems: list[str] = []
    agents = [Sealed(BaselineAgent(), problems), Sealed(RandomAgent(), problems),
              BaselineAgent(), Sealed(RandomAgent(), problems)]
    play_game(schema, agents, seed=11, hooks=hooks)
    assert not problems[:5]


def test_public_rules_are_the_allow_list_and_the_public_schema():
    rules = compile_rules(openmono.standard_schema())
    game = Game(openmono.standard_schema(), players=4, seed=0)
    pub = game.public
    assert pub._fields == PUBLIC_RULES_FIELDS + ("bank", "public_json")
    assert pub.public_schema == openmono.standard_schema().public_dict()
    assert "dice" not in pub.public_schema and "decks" not in pub.public_schema
    assert not hasattr(pub, "roll") and not hasattr(pub, "hooks") and not hasattr(pub, "quiet")
    assert pub.price == rules.price and pub.bank.jail_fine == 50


def test_the_walk_fails_on_a_leak():
    """Putting back what once leaked (the dice roll, a live hook, the engine's own bank
    table) into an observation is caught."""
    game = Game(openmono.standard_schema(), players=4, seed=0)
    seat, d = next(game.run())
    obs = game.observe(seat, d)
    assert unsealed(obs) == []
    engine = game.rules
    for leak in (engine.roll, lambda *a: None, engine.bank, engine, game.state, [1, 2],
                 {"x": 1}):
        leaky = obs._replace(rules=obs.rules._replace(nearest=leak))
        assert unsealed(leaky), f"{type(leak).__name__} not caught"


# --- the vandal -------------------------------------------------------------------------
JUNK = 7


def _vandalise(root: Any, done: set[int], keep: list[Any]) -> None:
    """Write into and call everything reachable from `root` (and keep what was reached
    alive, so ids are not reused)."""
    stack = [root]
    while stack:
        obj = stack.pop()
        if isinstance(obj, (type(None), bool, int, float, str, bytes, type)):
            continue
        if id(obj) in done:
            continue
        done.add(id(obj))
        keep.append(obj)
        for name in dir(obj):
            if name.startswith("__"):
                continue
            try:
                value = getattr(obj, name)
            except Exception:  # noqa: BLE001
                continue
            for write in (setattr, object.__setattr__):
                try:
                    write(obj, name, JUNK)
                except Exception:  # noqa: BLE001
                    pass
            if callable(value):  # call it (for its effects; what it returns is new)
                try:
                    value()
                except Exception:  # noqa: BLE001
                    pass
                continue
            stack.append(value)
        for method, args in (("__setitem__", (0, JUNK)), ("__setitem__", ("bank", JUNK)),
                             ("append", (JUNK,)), ("extend", ((JUNK,),)), ("update", ({},)),
                             ("add", (JUNK,)), ("clear", ()), ("pop", ()), ("popitem", ())):
            fn = getattr(obj, method, None)
            if fn is not None:
                try:
                    fn(*args)
                except Exception:  # noqa: BLE001
                    pass
        if isinstance(obj, (tuple, list, frozenset, set)):
            stack.extend(obj)
        elif isinstance(obj, (dict, MappingProxyType)):
            stack.extend(obj.values())
        elif dataclasses.is_dataclass(obj):
            stack.extend(getattr(obj, f.name) for f in dataclasses.fields(obj))


class Vandal(Agent):
    """Tries to change the game through everything its observations reach (and through
    the actions it handed over before), then answers as `inner` would."""

    def __init__(self, inner: Agent) -> None:
        super().__init__()
        self.inner = inner
        self.done: set[int] = set()
        self.keep: list[Any] = []
        self.last: Any = None

    def seed(self, seed: int) -> None:
        self.inner.seed(seed)

    def begin_game(self, seat: int, observation: Any) -> None:
        _vandalise(observation, self.done, self.keep)
        self.inner.begin_game(seat, observation)

    def act(self, obs: Any) -> A.Action:
        if self.last is not None and dataclasses.is_dataclass(self.last):
            for f in dataclasses.fields(self.last):
                try:
                    object.__setattr__(self.last, f.name, JUNK)
                except Exception:  # noqa: BLE001
                    pass
        _vandalise(obs, self.done, self.keep)
        answer = self.inner.act(obs)
        # Hand over a copy (the inner agent's own objects, such as the module's shared
        # CONCLUDE, are not the engine's to protect), and write into it next time.
        self.last = legal.fresh(answer)
        return self.last


def _events(schema, hooks, vandal: bool) -> list:
    agents: list[Agent] = [BaselineAgent(), RandomAgent(), BaselineAgent(), RandomAgent()]
    if vandal:
        agents[1] = Vandal(agents[1])
        agents[2] = Vandal(agents[2])
    game = Game(schema, players=4, seed=5, hooks=hooks)
    result = play_game(schema, agents, seed=5, hooks=hooks, game=game)
    return [tuple(e) for e in game.events] + [(result.winner, result.turns)]


@pytest.mark.parametrize("name,schema,hooks", WORLDS, ids=IDS)
def test_a_vandal_cannot_change_the_game(name, schema, hooks):
    assert _events(schema, hooks, True) == _events(schema, hooks, False)


# --- plugins use the game API only ----------------------------------------------------
_NAMEDTUPLE_API = ("_replace", "_fields", "_asdict", "_make")  # public, despite the "_"


def _private_uses(path: Path) -> list[str]:
    out = []
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        attr = node.attr
        dunder = attr.startswith("__") and attr.endswith("__")
        private = (attr.startswith("_") and (not dunder or attr == "__dict__")
                   and attr not in _NAMEDTUPLE_API)
        owner = node.value.id if isinstance(node.value, ast.Name) else None
        if private and owner not in ("self", "cls"):
            out.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{attr}")
    return out


def test_no_novelty_module_touches_a_private_engine_attribute():
    found = [u for p in sorted((ROOT / "novelties").rglob("*.py")) for u in _private_uses(p)]
    assert found == []


def test_the_private_attribute_check_can_fail(tmp_path):
    bad = tmp_path / "plugin.py"
    bad.write_text("def landing(game, seat, sq):\n    return game._land(seat, sq, 0)\n")
    bad2 = tmp_path / "plugin2.py"
    bad2.write_text("def hook(game):\n    return game.__dict__\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert _private_uses(bad) and _private_uses(bad2)
    finally:
        ROOT = old


def test_public_rules_cannot_be_written():
    pub = Game(openmono.standard_schema(), players=4, seed=0).public
    assert isinstance(pub, PublicRules)
    with pytest.raises(AttributeError):
        pub.bank.jail_fine = 1
    with pytest.raises(AttributeError):
        object.__setattr__(pub.bank, "jail_fine", 1)
    with pytest.raises(TypeError):
        pub.nearest["railroad"] = ()
