"""The trial's seats, from their names in the config to their closing: the evaluated
agent, its opponents and the reference agent, in this process, isolated in a child or
remote (`remote_seats`); and what the harness asks of a seat beside `act`.

One owner, so that a reader follows a seat from `cfg.agent` to `close` in one file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ContextManager

from openmono.decision import DecisionTimeout

from agents.registry import told_rules
from evaluation.harness.remote_seats import build_seat, make_agents, seated
from evaluation.harness.trial_config import TrialConfig, TrialError


@dataclass(frozen=True)
class Seats:
    """The trial's players: the evaluated agent, its opponents and the reference agent
    (None without one); a resume may replace them with their snapshot."""

    agent: Any
    opponents: tuple[Any, ...]
    reference: Any

    def snapshot(self) -> tuple[Any, list[Any], Any]:
        """What `_save_agents` pickles (and `_resume` gives back)."""
        return self.agent, list(self.opponents), self.reference

    def seated(self) -> list[Any]:
        """Every seat that plays: the agent, the opponents, the reference if any."""
        return [self.agent, *self.opponents,
                *([self.reference] if self.reference is not None else [])]


def build_seats(cfg: TrialConfig) -> Seats:
    """The seats the config names, built (a child started for each isolated one); a bad
    agent name or parameter is a one-line TrialError."""
    budget = cfg.isolate_budget
    limits = {"memory_mb": cfg.isolate_memory, "cpu_s": cfg.isolate_cpu}
    try:
        agent = build_seat(cfg.agent, told_rules(cfg.agent, cfg.agent_params, cfg.rules),
                           "agent" in cfg.isolate, budget, limits)
    except TypeError as exc:
        raise TrialError(f"bad parameters for agent {cfg.agent!r}: {exc}") from None
    except ValueError as exc:
        raise TrialError(str(exc).splitlines()[0]) from None
    opponents = make_agents(cfg.opponents, cfg.remote, isolate=[
        f"opponent{i + 1}" in cfg.isolate for i in range(len(cfg.opponents))],
        isolate_budget=budget, isolate_limits=limits)
    reference = (build_seat(cfg.reference, {}, "reference" in cfg.isolate, budget, limits)
                 if cfg.reference else None)
    return Seats(agent, tuple(opponents), reference)


def seats_open(seats: Seats) -> ContextManager[None]:
    """The remote seats connected for the body; every child and listener is closed
    whatever happens (Ctrl-C included)."""
    return seated(seats.seated(), TrialError)


AGENT_METHODS = ("act", "begin_game", "end_game", "novelty_report", "novelty_announced")


def _act_codes(seats: list[Any]) -> dict[Any, str]:
    """The code objects of each in-process seat's methods the harness calls (`act`, the
    game and report hooks) -> their names: what the watchdog times against
    `decision_budget` (remote and isolated seats keep their own budgets)."""
    from agents.remote.seat import RemoteAgent

    out: dict[Any, str] = {}
    for seat in seats:
        if seat is None or isinstance(seat, RemoteAgent):
            continue
        for method in AGENT_METHODS:
            code = getattr(getattr(type(seat), method, None), "__code__", None)
            if code is not None:
                out[code] = f"{type(seat).__module__}.{type(seat).__qualname__}.{method}"
    return out


def _other_process(seats: Seats) -> bool:
    """Whether a seat plays in another process (isolated, or a remote client)."""
    from agents.remote.seat import RemoteAgent

    return any(isinstance(s, RemoteAgent) for s in (seats.agent, *seats.opponents,
                                                     seats.reference))


def _shaped(saved: Any, seats: Seats) -> bool:
    """Whether an unpickled snapshot has the shape `Seats.snapshot` gives: (agent,
    [opponents], reference), each of the very class the trial built for that seat."""
    if not isinstance(saved, tuple) or len(saved) != 3 or not isinstance(saved[1], list):
        return False
    agent, opponents, reference = saved
    return (type(agent) is type(seats.agent) and len(opponents) == len(seats.opponents)
            and all(type(o) is type(b) for o, b in zip(opponents, seats.opponents))
            and type(reference) is type(seats.reference))


def _counts(seat: Any) -> bool:
    """Whether the seat's record carries remote faults."""
    if not hasattr(seat, "game_faults"):
        return False
    return not getattr(seat, "isolated", False) or any(seat.game_faults.values())


def _safe(agent: Any, method: str) -> None:
    fn = getattr(agent, method, None)
    if fn is not None:
        try:
            fn()
        except (Exception, SystemExit, DecisionTimeout):  # noqa: BLE001 - an agent's hook
            # stops nothing (DecisionTimeout: it ran past decision_budget)
            pass
