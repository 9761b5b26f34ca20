"""The agent protocol: every agent, built-in or user-written, implements this.

`act(observation) -> Action` is the only required method. The observation says the
phase (`openmono.legal.PHASES`: pre_roll, out_of_turn, post_roll, buy, bid,
trade_response, debt, and the rarer lift_mortgage, building_bid, place_building) and carries
the events since the agent's previous decision and its legal actions
(`observation.legal_actions()`). `novelty_report()` is read by the harness after every
game of a trial: an agent that never looks for novelties reports nothing.

Optional, for speed: `fixed_answers`, a mapping from phase to the action an agent
always gives in that phase whatever it observes (`baseline` never acts after its roll:
`{"post_roll": CONCLUDE}`). The game driver then answers for it without building an
observation or calling `act`; the events of those decisions arrive with the agent's
next observation, so it misses nothing. Declare only what `act` would really answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, runtime_checkable

from openmono.actions import Action
from openmono.legal import DEFAULT_ACTION, PHASES
from openmono.observation import Observation


@dataclass(frozen=True)
class NoveltyChange:
    """One characterised change: which entity, which attribute, and its new value."""

    entity: str
    attribute: str
    new_value: Any = None
    old_value: Any = None


@dataclass(frozen=True)
class NoveltyReport:
    """What an agent tells the harness after a game: whether it believes a novelty is
    in force, how sure it is (0..1), the changes it characterised, and (optional) its
    detector's statistics, kept with the game's record so another decision rule can be
    scored offline.
    """
    detected: bool = False
    confidence: float = 0.0
    changes: tuple[NoveltyChange, ...] = field(default_factory=tuple)
    # the detector's own statistics after this game (name -> number), saved with the
    # game's record so another decision rule can be scored offline on old trials
    evidence: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence must be in [0, 1], got {self.confidence}")

    def to_json(self) -> dict[str, Any]:
        """The report as the JSON the trial records (and the remote protocol sends)."""
        return {
            "detected": self.detected,
            "confidence": self.confidence,
            "changes": [vars(c) for c in self.changes],
            **({"evidence": dict(self.evidence)} if self.evidence else {}),
        }


NO_NOVELTY = NoveltyReport()


@runtime_checkable
class AgentProtocol(Protocol):
    """The whole of what the harness needs of an agent: `act`. (Subclass `Agent` for
    the optional hooks with defaults.)
    """

    def act(self, observation: Observation) -> Action:
        """The action for this decision; see `Agent.act`."""


class Agent:
    """A base class that makes every hook but `act` optional.

    `self.rng` is a `random.Random` seeded by the game (its own stream), so agents that
    randomise stay reproducible.
    """

    name = "agent"
    fixed_answers: Mapping[str, Action] | None = None

    def __init__(self) -> None:
        self._rng = random.Random(0)
        self._rng_seed: int | None = None
        self.seat = -1

    def seed(self, seed: int) -> None:
        """Set the seed of `self.rng` for the next game (the harness calls it before
        `begin_game`, so a randomising agent replays the same games).
        """
        # Seeding a Mersenne Twister costs microseconds per game; agents that never
        # draw (baseline, fixed policies) should not pay it, so it happens on first use.
        self._rng_seed = seed

    @property
    def rng(self) -> random.Random:
        """The agent's own `random.Random`, seeded by the game (on first use: seeding
        costs time)."""
        if self._rng_seed is not None:
            self._rng.seed(self._rng_seed)
            self._rng_seed = None
        return self._rng

    def begin_game(self, seat: int, observation: Observation) -> None:
        """Called once before each game with the agent's seat and a first observation."""
        self.seat = seat

    def act(self, observation: Observation) -> Action:  # pragma: no cover - abstract
        """The action for this decision: one of `observation.legal_actions()`.

        The observation is all the agent is told (its phase, the state, the events
        since its last decision, the public rules); an illegal or failing answer
        costs a counted fault and the phase's default action, never the game.

        Examples:
            An agent that buys whatever it can and otherwise takes the first
            legal action, playing a whole game:

            >>> import openmono
            >>> from openmono.actions import Buy
            >>> class Buyer(Agent):
            ...     def act(self, observation):
            ...         legal = observation.legal_actions()
            ...         return next((a for a in legal if isinstance(a, Buy)), legal[0])
            >>> result = openmono.play_game(openmono.standard_schema(),
            ...                             [Buyer() for _ in range(4)], seed=1)
            >>> result.winner in range(4)
            True
        """
        raise NotImplementedError

    def end_game(self, result: Any) -> None:
        """Called once after each game with its `openmono.play.GameResult`."""
        pass

    def novelty_report(self) -> NoveltyReport:
        """What the agent believes about a novelty, read by the harness after every game.
        The default reports none; a detecting agent returns a `NoveltyReport`.
        """
        return NO_NOVELTY

    def novelty_announced(self) -> None:
        """Called in the "given detection" condition when the novelty arrives."""


def _phase_default(phase: str) -> Any:
    default = DEFAULT_ACTION.get(phase)

    def answer(self: Any, obs: Observation) -> Action:
        return default if default is not None else obs.legal_actions()[0]

    return answer


class _Answers(dict):
    """Phase -> the function answering it; a phase no agent knows (a plugin's) gets
    that phase's default answer."""

    def __missing__(self, phase: str) -> Any:
        return _phase_default(phase)


class PhaseAgent(Agent):
    """An agent with one method per phase, named in `phase_methods`.

    `phase_methods` maps a phase (`openmono.legal.PHASES`) to the name of the method
    that answers it (one method may serve several phases); a phase it leaves out, or
    one a plugin invents, gets the phase's default action. `act` dispatches;
    an agent that does work before every decision overrides `act` and ends with
    `return self.dispatch(obs)`.
    """

    phase_methods: Mapping[str, str] = {}
    _answer_of: _Answers = _Answers()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        unknown = set(cls.phase_methods) - set(PHASES)
        if unknown:
            raise TypeError(f"{cls.__name__}.phase_methods names unknown phases "
                            f"{sorted(unknown)}; phases: {', '.join(PHASES)}")
        cls._answer_of = _Answers({phase: getattr(cls, cls.phase_methods[phase])
                                   if phase in cls.phase_methods else _phase_default(phase)
                                   for phase in PHASES})

    def dispatch(self, obs: Observation) -> Action:
        """Answer with the method `phase_methods` names for the observation's phase."""
        return self._answer_of[obs.phase](self, obs)

    act = dispatch  # (one call per decision, not two: most agents' act only dispatches)
