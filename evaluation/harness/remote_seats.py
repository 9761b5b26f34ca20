"""Remote seats in the evaluation entry points: build, open, and close them.

Every entry point that seats agents (trial, tournament, bench, detection sweep) names a
remote seat `remote`; its tokens and options come from `remote.*` (`remote.tokens`
one per remote seat, in order, or `remote.token_files`, or `$OPENMONO_REMOTE_TOKENS`:
`agents.remote.tokens`). Each remote seat listens before any waits for its client, so
clients may connect in any order.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from pydantic import Field

from openmono_cli import Options, option_names

from agents.registry import make_agent
from agents.remote.isolated import split_name
from agents.remote.server import RemoteError, probe_listen
from agents.remote.tokens import seat_tokens

class RemoteSeatOptions(Options):
    """The `remote.*` options of the small command-line tools (bench, tournament)."""

    remote_tokens: list[str] = Field([], alias="remote.tokens", description="one token per "
                                     "remote seat, in order")
    remote_token_files: list[str] = Field([], alias="remote.token_files", description="files "
                                          "holding those tokens (kept off the command line)")
    remote_port: int = Field(7300, alias="remote.port", description="the port remote seats "
                             "listen on")
    remote_host: str = Field("127.0.0.1", alias="remote.host", description="the address remote "
                             "seats listen on")
    remote_budget: float = Field(2.0, alias="remote.budget", description="seconds a "
                                 "remote client may take per decision")
    remote_connect_timeout: float = Field(30.0, alias="remote.connect_timeout",
                                          description="seconds to wait for a remote client")

    def remote(self) -> dict[str, Any]:
        """The `remote.KEY` options as {KEY: value}, what `make_agents` takes."""
        return {key[len("remote."):]: self[key] for key in option_names(type(self))
                if key.startswith("remote.")}


def make_agents(names: Sequence[str], remote: dict[str, Any],
                per_name: dict[str, dict[str, Any]] | None = None,
                isolate: bool | Sequence[bool] = False,
                isolate_budget: float | None = None,
                isolate_limits: dict[str, Any] | None = None) -> list[Any]:
    """The agents by name, every seat of a name built with `per_name[name]`; `remote`
    seats take their tokens from `remote["tokens"]` (or `remote["token_files"]`, or
    `$OPENMONO_REMOTE_TOKENS`: `checked_tokens`). A seat named `NAME@process`, or any
    in-process seat when `isolate` is true (or true at its index), is built and played
    in a child process (`agents.remote.isolated`)."""
    options = {k: v for k, v in remote.items() if k not in ("tokens", "token_files")}
    split = [split_name(n) for n in names]
    if ("remote", True) in split:
        raise ValueError("remote@process: a remote seat plays in another process already; "
                         "write remote")
    wanted = list(names).count("remote")
    tokens = checked_tokens(remote, wanted) if wanted else []
    flags = [isolate] * len(names) if isinstance(isolate, bool) else list(isolate)
    given = iter(tokens)
    seats = []
    for (base, suffixed), flag in zip(split, flags):
        if base == "remote":
            seats.append(make_agent(base, token=next(given), **options))
        else:
            seats.append(build_seat(base, (per_name or {}).get(base, {}), flag or suffixed,
                                    isolate_budget, isolate_limits))
    return seats


def build_seat(name: str, params: dict[str, Any], isolate: bool,
               budget: float | None = None, limits: dict[str, Any] | None = None) -> Any:
    """One in-process agent, or (isolate) the same agent in a child process (with the
    child's resource `limits`: memory_mb, cpu_s); the harness never builds an isolated
    agent itself."""
    if not isolate:
        return make_agent(name, **params)
    from agents.remote.isolated import IsolatedAgent

    return IsolatedAgent(name, params, **({} if budget is None else {"budget": budget}),
                         **(limits or {}))


def checked_tokens(remote: dict[str, Any], wanted: int) -> list[str]:
    """One non-empty token per remote seat, no two alike; ValueError in one line else."""
    tokens = seat_tokens(remote.get("tokens"), remote.get("token_files"))
    if wanted != len(tokens):
        raise ValueError(f"{wanted} remote seat(s) but remote.tokens gives {len(tokens)} "
                         "token(s): give one token per remote seat, e.g. remote.tokens=[s1,s2] "
                         "or remote.token_files=[f1,f2]")
    for i, token in enumerate(tokens):
        if not token.strip():
            raise ValueError(f"remote.tokens[{i}] is empty: give each remote seat a secret")
    if len(set(tokens)) != len(tokens):
        raise ValueError("remote.tokens gives two remote seats the same token: give each its "
                         "own (a client finds its seat by its token)")
    return tokens


def check_addresses(seats: Sequence[tuple[str, int]]) -> None:
    """RemoteError (one line) unless every (host, port) can be listened on now."""
    for host, port in dict.fromkeys(seats):
        probe_listen(host, port)


def open_remote_seats(agents: Sequence[Any]) -> None:
    """Every remote seat listens first, then each waits (bounded) for its client."""
    seats = [a for a in agents if hasattr(a, "wait_for_client")]
    for seat in seats:
        seat.listen()
    for seat in seats:
        seat.wait_for_client()


def close_remote_seats(agents: Sequence[Any]) -> None:
    """Close every remote seat (and reap every isolated agent's child), even when one
    of them fails to close."""
    errors = []
    for a in agents:
        if hasattr(a, "wait_for_client"):
            try:
                a.close()
            except BaseException as exc:  # noqa: BLE001 - the others are closed first
                errors.append(exc)
    if errors:
        raise errors[0]


@contextmanager
def seated(agents: Sequence[Any], error: type[Exception] | None = None) -> Iterator[None]:
    """Open the remote seats among `agents` for the block, and always close them; a
    client that never comes raises `error` (one line) when given, else RemoteError."""
    try:
        try:
            open_remote_seats(agents)
        except RemoteError as exc:
            if error is None:
                raise
            raise error(str(exc)) from None
        yield
    finally:
        close_remote_seats(agents)


def remote_faults(agents: Sequence[Any]) -> dict[str, int]:
    """The faults of the remote seats among `agents` in their last game, by kind."""
    total: dict[str, int] = {}
    for a in agents:
        for kind, n in (getattr(a, "game_faults", None) or {}).items():
            total[kind] = total.get(kind, 0) + n
    return dict(sorted(total.items()))


__all__ = ["RemoteSeatOptions", "RemoteError", "build_seat", "check_addresses", "checked_tokens",
           "close_remote_seats", "make_agents",
           "open_remote_seats", "remote_faults", "seated"]
