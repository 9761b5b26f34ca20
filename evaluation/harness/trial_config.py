"""A trial's configuration, each option declared once.

`TrialConfig` is the one declaration of every option of a trial: a field with its type,
its default and, through `option(...)`, its one-line help, the name a command line types
(`novelty.difficulty` for the field `difficulty`), and whether it names the trial (changes
its games). Everything else is derived from it, so adding an option is one field here
plus its use: the Hydra config of `evaluation.trial` and its `novelty` group
(`evaluation.harness.config_store`), its `--help` (`evaluation.trials.trial_help`), the
command-line check (`evaluation.trials.trial_args`), the trial's identity in `trial.json`
(`identity`) and the options that name no folder (`not_identity`).

An option added later that changes the games declares `omit=`: while it is at its old
behaviour it stays out of `trial.json`, so the folders written before it still resume.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable

from openmono.schema import RULE_SETS

from agents.registry import UnknownAgentError, resolve
from agents.remote.isolated import DEFAULT_CPU_S, DEFAULT_MEMORY_MB, check_limit
from evaluation.harness.hook_watch import DEFAULT_AGENT_BUDGET, DEFAULT_BUDGET
from evaluation.harness.remote_seats import RemoteSeatOptions, checked_tokens

MAX_GAMES = 100_000  # a larger trial asks for allow_huge=true
MAX_SECONDS = 7 * 86_400.0  # a budget above a week is a typo (and inf or 1e300 overflow)
KEEP_LOGS = (True, False, "all", "novelty", "none")
OPPONENTS_VIEWS = ("informed", "shown")  # TrialConfig.opponents_view
SECRET_KEYS = ("token", "tokens")


class TrialError(ValueError):
    """Bad trial configuration; the message names the problem and the valid choices."""


_SAME: Any = object()  # `typed`: the command line's default is the field's


@dataclass(frozen=True)
class Option:
    """What is known of one option besides its field's type and default."""

    help: str
    name: str | None = None  # as typed; None: the field's name
    identity: bool = True  # whether it names the trial (its games depend on it)
    omit: Callable[[Any], bool] | None = None  # left out of trial.json when true
    # The command line's default when it is spelled otherwise (or a function giving it).
    typed: Any = _SAME
    secret: bool = False  # a dict whose `token(s)` never reach a file (`redact`)


def option(default: Any, help: str, **about: Any) -> Any:
    """A TrialConfig field: its default, its help line and `Option`'s other facts."""
    meta = {"option": Option(help, **about)}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: copy.deepcopy(default), metadata=meta)
    return field(default=default, metadata=meta)


def _seconds(value: Any) -> bool:
    """Whether `value` is a usable budget: a number of seconds in (0, a week]."""
    return (not isinstance(value, bool) and isinstance(value, (int, float))
            and 0 < value <= MAX_SECONDS)


def _unshown(cfg: Any) -> bool:
    """`novelty.opponents` makes no difference (announced), or is what folders from
    before the option played (shown)."""
    return cfg.observability == "announced" or cfg.opponents_view == "shown"


@dataclass
class TrialConfig:
    """The options of one SAIL-ON trial (docs/evaluation.md)."""

    agent: str = option("planner", "the evaluated agent (python -m agents list)")
    agent_params: dict[str, Any] = option(
        {}, "a constructor option of the evaluated agent (agent.isolate=process: in a "
        "child process)", name="agent.KEY", secret=True)
    opponents: list[str] = option(["baseline"] * 3, "the other seats' agents; NAME@process "
                                  "plays one in a child process")
    novelty: str | None = option(None, "the novelty injected (python -m novelties list), or "
                                 "none: a control trial", typed="none")
    difficulty: str = option("medium", "the novelty's preset: easy, medium or hard",
                             name="novelty.difficulty")
    observability: str = option(
        "announced", "announced: agents are shown the new rules; effects: they learn them "
        "from outcomes", name="novelty.observability",
        omit=lambda cfg: cfg.observability == "announced")
    opponents_view: str = option(
        "informed", "under effects, what the opponents are shown: informed (the true "
        "rules) or shown (the old ones)", name="novelty.opponents", omit=_unshown)
    novelty_params: dict[str, Any] = option({}, "a parameter of the novelty, over its preset",
                                            name="novelty.params.KEY")
    then: list[str] = option([], "more novelties after the main one, in order: "
                             "[name,name:hard]")
    games: int = option(100, "games in the trial")
    seed: int = option(0, "the trial's seed (game g plays seed game_seed(seed, g))")
    window: tuple[float, float] = option((0.2, 0.6), "the fractions of the trial the "
                                         "injection game is drawn from")
    inject_at: int | None = option(None, "a fixed injection game instead")
    detection: str = option("system", "system: the agent must notice the novelty; given: "
                            "it is told (SAIL-ON)")
    reference: str | None = option("baseline", "plays the evaluated seat on the same seeds "
                                   "before the injection (NRP); null: none")
    progress: bool = option(True, "show a progress bar", identity=False)
    rules: str = option("standard", "the rule set: standard (official US) or gnome "
                        "(GNOME-p3, docs/rules.md)")
    remote: dict[str, Any] = option(
        {}, "the remote seats among opponents: remote.tokens (one each, in order), "
        "remote.token_files, port, host, budget, connect_timeout", name="remote.KEY",
        omit=lambda cfg: not cfg.remote, secret=True,
        typed=lambda: RemoteSeatOptions().remote())
    allow_huge: bool = option(False, f"allow more than {MAX_GAMES:,} games", identity=False)
    hook_budget: float | None = option(
        DEFAULT_BUDGET, "seconds one call of a novelty plugin's hook may take (null: no "
        "limit)", identity=False)
    decision_budget: float | None = option(
        DEFAULT_AGENT_BUDGET, "seconds one decision of an in-process agent may take, then a "
        "fault (null: no limit)", identity=False)
    # The seats built and played in a child process (`agents.remote.isolated`): "agent",
    # "reference", "opponent1".. (1-based, in the order of `opponents`).
    isolate: list[str] = option(
        [], "process: every in-process agent in a child process (docs/agents.md)",
        typed="none", omit=lambda cfg: not cfg.isolate)
    isolate_budget: float = option(30.0, "seconds per decision of an isolated agent (then "
                                   "a fault)", omit=lambda cfg: not cfg.isolate)
    isolate_memory: int | None = option(DEFAULT_MEMORY_MB, "MiB of data memory an isolated "
                                        "agent may use (null: no limit)", identity=False)
    isolate_cpu: int | None = option(DEFAULT_CPU_S, "CPU seconds an isolated agent may use "
                                     "(null: no limit)", identity=False)
    # Which games keep their JSON-lines log in logs/ (for `evaluation.replay`): "novelty"
    # (the last game before the injection and the first two after; a control trial's
    # first game), "all" (true) or "none" (false).
    keep_logs: Any = option("novelty", "games whose log logs/ keeps for python -m "
                            "evaluation.replay: novelty (around the injection), true (all) "
                            "or none", identity=False)
    plots: bool = option(True, "draw the report's plots", identity=False)

    def validate(self) -> None:
        """The one check of a trial's configuration, whoever built it (the Hydra command,
        a sweep, the environments); TrialError names the option and what is valid."""
        self._check_sizes()
        self._check_choices()
        self._check_seats()
        self._check_games()
        self._check_declared()

    def _check_sizes(self) -> None:
        """The number of games and the time budgets."""
        if not isinstance(self.games, int) or self.games <= 0:
            raise TrialError(f"games must be a positive integer, got {self.games!r}")
        if self.games > MAX_GAMES and not self.allow_huge:
            raise TrialError(f"games={self.games} is more than {MAX_GAMES:,} games (days "
                             "of play, and a large games.jsonl); add allow_huge=true if "
                             "that is meant")
        for key in ("hook_budget", "decision_budget"):
            budget = getattr(self, key)
            if budget is not None and not _seconds(budget):
                raise TrialError(f"{key} must be a positive number of seconds (at most "
                                 f"{MAX_SECONDS:g}; or null for none), got {budget!r}")

    def _check_choices(self) -> None:
        """The options that take one of a few words, and at least one opponent."""
        if self.rules not in RULE_SETS:
            raise TrialError(f"unknown rules {self.rules!r}; valid rules: {', '.join(RULE_SETS)}")
        if self.observability not in ("announced", "effects"):
            raise TrialError(f"novelty.observability must be 'announced' or 'effects', got "
                             f"{self.observability!r}")
        if self.opponents_view not in OPPONENTS_VIEWS:
            raise TrialError(f"novelty.opponents must be one of {', '.join(OPPONENTS_VIEWS)}, "
                             f"got {self.opponents_view!r}")
        if self.detection not in ("system", "given"):
            raise TrialError(f"detection must be 'system' or 'given', got {self.detection!r}")
        if not self.opponents:
            raise TrialError("opponents must name at least one agent, e.g. [baseline,baseline]")

    def _check_seats(self) -> None:
        """Every seat names a known agent; remote seats have their own tokens; only
        in-process seats are isolated, within sound budgets and limits."""
        names = [self.agent, *self.opponents] + ([self.reference] if self.reference else [])
        for name in names:
            try:
                resolve(name)
            except UnknownAgentError as exc:
                raise TrialError(str(exc)) from None
        wanted = self.opponents.count("remote")
        try:
            tokens = (checked_tokens(self.remote, wanted)
                      if wanted or self.remote.get("tokens") else [])
        except ValueError as exc:
            raise TrialError(str(exc).replace(f"{wanted} remote seat(s)", f"opponents name "
                                              f"{wanted} remote seat(s)")) from None
        if self.agent == "remote" and self.agent_params.get("token") in tokens:
            raise TrialError("agent.token is also one of remote.tokens: give every remote "
                             "seat its own token")
        if self.reference == "remote":
            raise TrialError("reference cannot be remote: it replays the evaluated seat "
                             "in process")
        roles = ["agent", "reference", *(f"opponent{i + 1}" for i in range(len(self.opponents)))]
        for role in self.isolate:
            if role not in roles:
                raise TrialError(f"cannot isolate {role!r}; seats: {', '.join(roles)}")
        for role, name in (("agent", self.agent), ("reference", self.reference), *(
                (f"opponent{i + 1}", n) for i, n in enumerate(self.opponents))):
            if role in self.isolate and name == "remote":
                raise TrialError(f"{role} is a remote seat, which plays in another process "
                                 "already: isolate only in-process agents")
        if not _seconds(self.isolate_budget):
            raise TrialError(f"isolate_budget must be a positive number of seconds (at "
                             f"most {MAX_SECONDS:g}), got {self.isolate_budget!r}")
        try:
            check_limit(self.isolate_memory, "isolate_memory")
            check_limit(self.isolate_cpu, "isolate_cpu")
        except ValueError as exc:
            raise TrialError(str(exc)) from None

    def _check_games(self) -> None:
        """Which logs are kept, and when the novelty arrives (the window made a pair of
        floats, the hook budget a float)."""
        if self.keep_logs not in KEEP_LOGS:
            raise TrialError(f"keep_logs must be one of true, novelty, none (or all, "
                             f"false), got {self.keep_logs!r}")
        window = self.window
        if (not isinstance(window, (list, tuple)) or len(window) != 2
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                           for x in window)
                or not 0.0 <= window[0] <= window[1] <= 1.0):
            raise TrialError(f"window must be two fractions [lo,hi] with 0 <= lo <= hi <= 1, "
                             f"got {list(window) if isinstance(window, tuple) else window!r}")
        self.window = (float(window[0]), float(window[1]))
        if self.hook_budget is not None:
            self.hook_budget = float(self.hook_budget)
        if self.then and self.novelty is None:
            raise TrialError("`then` adds novelties after the main one: set novelty= too")
        if self.inject_at is not None and not (0 <= self.inject_at < self.games):
            raise TrialError(f"inject_at={self.inject_at} is outside the trial "
                             f"(games 0..{self.games - 1})")

    def _check_declared(self) -> None:
        """What no rule above looked at: each option's declared type."""
        for name, opt in declared():  # what no rule above looked at: its declared type
            value, hint = getattr(self, name), _hints(type(self))[name]
            if not _fits(value, hint):
                raise TrialError(f"{opt.name} must be {_what(hint)}, got {value!r}")



@functools.cache
def _hints(config: type) -> dict[str, Any]:
    return typing.get_type_hints(config)


def _parts(hint: Any) -> list[Any]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return [p for a in typing.get_args(hint) for p in _parts(a)]
    return [hint]


def _fits(value: Any, hint: Any) -> bool:
    """Whether `value` has the declared type (an int is a number, a list a tuple)."""
    if hint is Any:
        return True
    if len(_parts(hint)) > 1:
        return any(_fits(value, p) for p in _parts(hint))
    origin, args = typing.get_origin(hint) or hint, typing.get_args(hint)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint in (int, float, str):  # (a bool is no number here)
        wanted = (int, float) if hint is float else hint
        return isinstance(value, wanted) and not isinstance(value, bool)
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            return False
        if origin is tuple and args and Ellipsis not in args:  # tuple[float, float]
            return len(value) == len(args) and all(map(_fits, value, args))
        return not args or all(_fits(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    return True


def _what(hint: Any) -> str:
    """How the command line writes a value of type `hint` ("an integer or null")."""
    words = {bool: "true or false", int: "an integer", float: "a number", str: "text",
             dict: "KEY=VALUE options", list: "a list [a,b]", tuple: "a list [a,b]"}
    parts = [p for p in _parts(hint) if p is not type(None)]
    said = [words.get(typing.get_origin(p) or p, str(p)) for p in parts]
    return " or ".join(said) + (" or null" if len(parts) < len(_parts(hint)) else "")


def declared() -> list[tuple[str, Option]]:
    """(field, its option) of every TrialConfig option, in declaration order, each
    option named as typed. (Every derived thing reads the declaration through here and
    `default`, at the time it is asked: a test may extend it.)"""
    out = []
    for f in dataclasses.fields(TrialConfig):
        opt = f.metadata["option"]
        out.append((f.name, dataclasses.replace(opt, name=opt.name or f.name)))
    return out


def default(name: str) -> Any:
    """The default of a field, as the command line spells it (`isolate`: none)."""
    f = next(f for f in dataclasses.fields(TrialConfig) if f.name == name)
    opt = f.metadata["option"]
    if opt.typed is not _SAME:
        return opt.typed() if callable(opt.typed) else opt.typed
    value = f.default_factory() if f.default is dataclasses.MISSING else f.default  # type: ignore[misc]
    return list(value) if isinstance(value, tuple) else value


def groups() -> tuple[str, ...]:
    """The options that are Hydra config groups: those other options are written under
    (`agent` for `agent.KEY`, `novelty` for `novelty.difficulty`)."""
    typed = [opt.name or "" for _, opt in declared()]
    return tuple(t for t in typed if any(o.startswith(t + ".") for o in typed))


def not_identity() -> tuple[str, ...]:
    """The options (as typed) that do not change a trial's games: left out of its
    identity and of the names of its folders."""
    return tuple(opt.name or "" for _, opt in declared() if not opt.identity)


def redact(params: dict[str, Any]) -> dict[str, Any]:
    """`params` with the remote seats' tokens hidden: secrets stay out of results."""
    return {k: ("***" if k in SECRET_KEYS and v else v) for k, v in params.items()}


def identity(cfg: TrialConfig) -> dict[str, Any]:
    """The options that name this trial, as `trial.json` holds them (plain JSON): every
    option that changes the games, less those its `omit` leaves out, secrets hidden."""
    data: dict[str, Any] = {}
    for name, opt in declared():
        if not opt.identity or (opt.omit is not None and opt.omit(cfg)):
            continue
        value = getattr(cfg, name)
        data[name] = redact(value) if opt.secret else value
    return json.loads(json.dumps(data))


__all__ = ["KEEP_LOGS", "MAX_GAMES", "MAX_SECONDS", "OPPONENTS_VIEWS",
           "Option", "TrialConfig", "TrialError", "declared", "default",
           "groups", "identity", "not_identity", "option", "redact"]
