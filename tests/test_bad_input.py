"""Bad input ends in a clear message or a fault event, never in a crash of the game loop.

Malformed schema files fail in `load_schema` with a `SchemaError` whose message names
the file and the field or value at fault; schemas round-trip through JSON; agents that
raise, return garbage, play illegally, overrun their time budget or poke at their
observation get the phase's default action and a Fault event, and the game finishes.
"""

from __future__ import annotations

import copy
import io
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import openmono
from agents.random_agent import RandomAgent
from openmono import actions as A
from openmono.engine import Game
from openmono.events import BANK, Fault, GameOver, Payment
from openmono.schema import GameSchema, SchemaError

STANDARD = openmono.standard_schema()
STD = json.loads(STANDARD.to_json())


def square(data: dict, name: str) -> dict:
    return next(s for s in data["squares"] if s["name"] == name)


def card(data: dict, deck: str, kind: str) -> dict:
    d = next(d for d in data["decks"] if d["name"] == deck)
    return next(c for c in d["cards"] if c["kind"] == kind)


def load_error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "schema.json"
    path.write_text(text)
    with pytest.raises(SchemaError) as info:
        openmono.load_schema(str(path))
    message = str(info.value)
    assert str(path) in message, message
    return message


def broken(edit: Any) -> str:
    data = copy.deepcopy(STD)
    edit(data)
    return json.dumps(data)


# --- malformed schema files ----------------------------------------------------------------

EDITS = {
    # name: (edit of the standard schema, words the message must contain)
    "missing field": (lambda d: d.pop("squares"), ["squares", "required"]),
    "unknown square kind": (lambda d: square(d, "Free Parking").update(kind="casino"),
                            ["squares.20.kind", "casino", "free_parking"]),
    "unknown card kind": (lambda d: card(d, "chance", "collect").update(kind="teleport"),
                          ["teleport", "advance_to"]),
    "wrong rent length": (lambda d: square(d, "Boardwalk").update(rent=[50, 200]),
                          ["Boardwalk", "2 rents"]),
    "card names unknown square": (
        lambda d: card(d, "chance", "advance_to").update(square="Atlantis"),
        ["Atlantis", "unknown square"]),
    "duplicate square names": (lambda d: square(d, "Baltic Avenue").update(
        name="Mediterranean Avenue"), ["duplicate", "Mediterranean Avenue"]),
    "duplicate group names": (lambda d: d["groups"].append(dict(d["groups"][0])),
                              ["duplicate group"]),
    "unknown group": (lambda d: square(d, "Boardwalk").update(group="purple"),
                      ["Boardwalk", "purple"]),
    "unknown deck": (lambda d: square(d, "Chance 1").update(deck="surprise"),
                     ["Chance 1", "surprise"]),
    "negative price": (lambda d: square(d, "Boardwalk").update(price=-400),
                       ["squares.39.price", "greater than or equal"]),
    "wrong type": (lambda d: d["bank"].update(go_salary="lots"), ["bank.go_salary"]),
    "unknown field": (lambda d: d["bank"].update(free_parking_jackpot=True),
                      ["bank.free_parking_jackpot", "not permitted"]),
    "monopoly larger than group": (lambda d: d["groups"][0].update(monopoly_size=3),
                                   ["brown", "3"]),
    "no jail": (lambda d: square(d, "Jail").update(kind="free_parking"), ["jail"]),
    "bad auction mode": (lambda d: d["bank"].update(auction="dutch"),
                         ["bank.auction", "english"]),
    "die weights": (lambda d: d["dice"][0].update(weights=[1, 2]), ["weights", "6 faces"]),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_malformed_schema_file_names_the_problem(tmp_path: Path, case: str) -> None:
    edit, words = EDITS[case]
    message = load_error(tmp_path, broken(edit))
    for word in words:
        assert word in message, (case, word, message)
    assert "Traceback" not in message and len(message) < 1000


@pytest.mark.parametrize("text,word", [
    ("{not json", "JSON"),
    ("", "JSON"),
    ("[1, 2, 3]", "should be an object"),
    ('{"squares": 5, "groups": []}', "squares"),
])
def test_schema_file_that_is_not_a_schema(tmp_path: Path, text: str, word: str) -> None:
    assert word in load_error(tmp_path, text)


def test_unreadable_schema_files(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="does not exist"):
        openmono.load_schema(str(tmp_path / "nowhere.json"))
    with pytest.raises(SchemaError, match="cannot be read"):
        openmono.load_schema(str(tmp_path))  # a directory
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00\x81 not text")
    with pytest.raises(SchemaError, match="cannot be read"):
        openmono.load_schema(str(binary))


def test_unknown_kinds_in_python_data_name_the_kind() -> None:
    data = copy.deepcopy(STD)
    square(data, "Go").update(kind="wormhole")
    with pytest.raises(ValidationError, match="wormhole"):
        GameSchema.model_validate(data)
    data = copy.deepcopy(STD)
    card(data, "community_chest", "pay").update(kind="lottery")
    with pytest.raises(ValidationError, match="lottery"):
        GameSchema.model_validate(data)


# --- round trips ------------------------------------------------------------------------------


def test_standard_schema_round_trips(tmp_path: Path) -> None:
    assert GameSchema.from_json(STANDARD.to_json()) == STANDARD
    path = tmp_path / "standard.json"
    path.write_text(STANDARD.to_json())
    assert openmono.load_schema(str(path)) == STANDARD
    assert GameSchema.model_validate(STANDARD.model_dump()) == STANDARD


@settings(max_examples=12, deadline=None)
@given(
    cash=st.integers(0, 10**6), salary=st.integers(0, 1000),
    interest=st.floats(0, 1, allow_nan=False), sellback=st.none() | st.floats(0, 1),
    auction=st.sampled_from(["english", "sealed"]),
    weights=st.none() | st.lists(st.floats(0.01, 100), min_size=6, max_size=6),
    size=st.none() | st.integers(1, 2), params=st.dictionaries(st.text(max_size=5),
                                                                st.integers() | st.text()),
)
def test_varied_schemas_round_trip(cash: int, salary: int, interest: float,
                                   sellback: float | None, auction: str,
                                   weights: list[float] | None, size: int | None,
                                   params: dict) -> None:
    data = copy.deepcopy(STD)
    data["bank"].update(starting_cash=cash, go_salary=salary, mortgage_interest=interest,
                        property_sellback=sellback, auction=auction)
    data["dice"][1]["weights"] = weights
    data["groups"][0]["monopoly_size"] = size
    square(data, "Go")["params"] = params
    schema = GameSchema.model_validate(data)
    again = GameSchema.from_json(schema.to_json())
    assert again == schema
    assert again.to_json() == schema.to_json()


# --- agents that misbehave ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Teleport(A.Action):
    """An action kind nobody registered."""

    square: int = 0
    kind: ClassVar[str] = "teleport"


GARBAGE = [None, 42, "conclude", {"kind": "conclude"}, A.Conclude, object(), Teleport(3),
           A.Build("Boardwalk"), A.Build(None), A.Mortgage(10**6), A.Bid(1.5), A.Bid(True),
           A.Bid(-1), A.OfferTrade(to="x"), A.OfferTrade(to=1, give=None),
           A.OfferTrade(to=1, give=("a",)), A.OfferTrade(to=1, give_cash=1.5),
           A.OfferTrade(to=99, give_cash=1), A.OfferTrade(to=1, get=(39, 39))]


class Garbage(RandomAgent):
    """Cycles through garbage answers on every other decision."""

    def __init__(self) -> None:
        super().__init__()
        self.n = 0

    def act(self, obs: Any) -> Any:
        self.n += 1
        if self.n % 2:
            return GARBAGE[(self.n // 2) % len(GARBAGE)]
        return super().act(obs)


class Raiser(RandomAgent):
    def act(self, obs: Any) -> Any:
        if self.rng.random() < 0.5:
            raise ValueError("agent bug")
        return super().act(obs)

    def begin_game(self, seat: int, obs: Any) -> None:
        raise RuntimeError("broken begin_game")

    def end_game(self, result: Any) -> None:
        raise RuntimeError("broken end_game")


class AlwaysRaises:
    """Not even an Agent subclass: every call fails."""

    def act(self, obs: Any) -> Any:
        raise KeyError("nothing works")


def play(agents: list[Any], seed: int = 0, **kwargs: Any) -> tuple[Game, Any]:
    schema = STANDARD.model_copy(update={"bank": STANDARD.bank.model_copy(
        update={"turn_limit": 200})})
    game = Game(schema, players=len(agents), seed=seed)
    result = openmono.play_game(schema, agents, seed=seed, game=game, **kwargs)
    assert isinstance(game.events[-1], GameOver)
    assert result.winner_seat == game.winner and result.end_reason in ("bankruptcy",
                                                                       "turn_limit")
    # The books still balance from Payment events alone.
    cash = [schema.bank.starting_cash] * len(agents)
    for e in game.events:
        if type(e) is Payment:
            if e.payer != BANK:
                cash[e.payer] -= e.amount
            if e.payee != BANK:
                cash[e.payee] += e.amount
    assert cash == game.state.cash and min(cash) >= 0
    return game, result


def fault_seats(game: Game) -> set[int]:
    return {e.seat for e in game.events if type(e) is Fault}


def test_garbage_answers_are_faults_and_the_game_goes_on() -> None:
    agents = [RandomAgent(), Garbage(), RandomAgent()]
    game, result = play(agents, seed=4, shuffle_seats=False)
    faults = [e for e in game.events if type(e) is Fault]
    assert fault_seats(game) == {1}
    assert len(faults) >= len(GARBAGE)  # every garbage answer was refused
    assert result.agent_faults[1] > 0 and result.agent_faults[0] == result.agent_faults[2] == 0
    reasons = " ".join(e.reason for e in faults)
    for word in ("NoneType", "not an Action", "not an action", "malformed", "integer"):
        assert word in reasons, word
    assert game.stats["faults"] == len(faults)


def test_raising_agents_are_faults_and_the_game_goes_on() -> None:
    agents = [Raiser(), RandomAgent(), AlwaysRaises(), RandomAgent()]
    game, result = play(agents, seed=2, shuffle_seats=False)
    faults = [e for e in game.events if type(e) is Fault]
    assert fault_seats(game) <= {0, 2} and fault_seats(game)
    assert any("raised ValueError: agent bug" in e.reason for e in faults)
    assert all(e.reason.startswith("raised") for e in faults)
    assert result.agent_faults[1] == result.agent_faults[3] == 0


def test_an_agent_that_always_raises_only_hurts_itself() -> None:
    game, result = play([AlwaysRaises(), RandomAgent()], seed=9, shuffle_seats=False)
    assert fault_seats(game) == {0}
    assert result.agent_faults[0] == sum(1 for e in game.events if type(e) is Fault)


def test_time_budget_overrun_is_a_fault() -> None:
    class Slow(RandomAgent):
        def act(self, obs: Any) -> Any:
            if obs.turn in (3, 4):
                time.sleep(0.02)  # well over the budget below
            return super().act(obs)

    game, result = play([Slow(), RandomAgent()], seed=1, shuffle_seats=False,
                        time_budget=0.005)
    budget = [e for e in game.events if type(e) is Fault and "budget" in e.reason]
    assert budget and {e.seat for e in budget} <= {0, 1}
    assert any(e.seat == 0 for e in budget)
    assert result.agent_faults[0] >= 1


def test_agent_cannot_change_the_game_through_its_observation() -> None:
    """Writes to the observation fail inside the agent (a fault), never reach the engine."""

    class Vandal(RandomAgent):
        tries: ClassVar[list[str]] = []

        def act(self, obs: Any) -> Any:
            for name, attack in (
                ("nearest", lambda: obs.rules.nearest.__setitem__("railroad", (0,) * 40)),
                ("rules attr", lambda: setattr(obs.rules, "price", (0,) * 40)),
                ("cash", lambda: obs.cash.__setitem__(obs.seat, 10**9)),
                ("field", lambda: setattr(obs, "cash", (10**9,) * 4)),
            ):
                try:
                    attack()
                    Vandal.tries.append(name)
                except (TypeError, AttributeError):
                    pass
            return super().act(obs)

    clean, _ = play([RandomAgent(), RandomAgent()], seed=6)
    vandal, _ = play([Vandal(), RandomAgent()], seed=6)
    assert Vandal.tries == []
    assert [tuple(e) for e in vandal.events] == [tuple(e) for e in clean.events]
    nearest = vandal.rules.nearest["railroad"]
    assert len(set(nearest)) == 4  # still the four railroads


def test_garbage_in_a_logged_game_does_not_break_the_log() -> None:
    buf = io.StringIO()
    play([Garbage(), Raiser(), RandomAgent()], seed=3, log=buf)
    records = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert records[-1]["type"] == "result"
    kinds = {r["action"]["kind"] for r in records if r["type"] == "decision"}
    assert "__fault__" in kinds and "teleport" in kinds
