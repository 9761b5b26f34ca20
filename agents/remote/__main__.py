"""`python -m agents.remote serve AGENT --port P --token T [--host H] [KEY=VALUE ...]`:
play a registered agent (or `module.path:ClassName`) for one remote seat; KEY=VALUE
pairs go to the agent's constructor, as `agent.KEY=VALUE` does in a trial.
`python -m agents.remote check AGENT [KEY=VALUE ...]` only builds it (the harness checks
an isolated agent's options this way, without building it in its own process)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import NoReturn

from agents.registry import UnknownAgentError, make_agent


def _value(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return text


class _Parser(argparse.ArgumentParser):
    """Bad input is one `error:` line and exit 2, as every command answers it."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message} ({self.prog} --help lists the options)", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m agents.remote",
                description="Play an agent for a remote seat of the harness.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="connect to the harness and play until it says bye")
    s.add_argument("agent", help="a registered agent name or module.path:ClassName")
    s.add_argument("options", nargs="*", metavar="KEY=VALUE", help="the agent's options")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=7300)
    s.add_argument("--token", default=os.environ.get("OPENMONO_TOKEN", ""),
                   help="the seat's token (default: $OPENMONO_TOKEN)")
    given = s.add_mutually_exclusive_group()
    given.add_argument("--token-file", default=None, metavar="PATH",
                       help="a file holding the seat's token (kept out of the process list)")
    given.add_argument("--token-stdin", action="store_true",
                       help="read the token from the first line of stdin (a pipe no other "
                            "process can read afterwards: the harness's isolated seats)")
    s.add_argument("--connect-timeout", type=float, default=30.0,
                   help="seconds to keep trying to reach the harness")
    s.add_argument("--quiet", action="store_true",
                   help="say nothing when done (the harness's isolated seats use it)")
    s.add_argument("--forever", action="store_true",
                   help="after the harness says bye, connect again for its next trial (a "
                        "sweep); stop when none comes within --connect-timeout")
    c = sub.add_parser("check", help="build the agent with its options, then exit (0: it "
                                     "builds; 2: one line saying why not)")
    c.add_argument("agent")
    c.add_argument("options", nargs="*", metavar="KEY=VALUE")
    return p


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line, with the agent's KEY=VALUE options anywhere after its name (as
    the docs write `serve cautious --port 7300 max_price=150`: argparse alone stops
    collecting positionals at the first option)."""
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    stray = [r for r in rest if "=" not in r or r.startswith("-")]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    args.options = [*getattr(args, "options", []), *rest]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.command == "serve" and args.token_file:
        from agents.remote.tokens import read_token_file

        try:
            args.token = read_token_file(args.token_file, "--token-file")
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    params = {}
    for opt in args.options:
        key, eq, raw = opt.partition("=")
        if not eq:
            print(f"error: expected KEY=VALUE for the agent's options, got {opt!r}",
                  file=sys.stderr)
            return 2
        params[key] = _value(raw)
    try:
        agent = make_agent(args.agent, **params)
    except UnknownAgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except TypeError as exc:
        print(f"error: bad options for agent {args.agent!r}: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - any failure to build, in one line
        first = f"{type(exc).__name__}: {exc}".splitlines()[0]
        print(f"error: agent {args.agent!r} cannot be built: {first}", file=sys.stderr)
        return 2
    if args.command == "check":
        return 0
    if args.token_stdin:
        args.token = sys.stdin.readline().strip()
    from agents.remote.client import Refused, serve

    games = trials = 0
    try:
        while True:
            try:
                if trials:
                    agent = make_agent(args.agent, **params)  # a fresh agent per trial
                games += serve(agent, args.host, args.port, args.token,
                               connect_timeout=args.connect_timeout, name=args.agent)
            except OSError:
                if args.forever and trials:
                    break  # the sweep is over
                raise
            trials += 1
            if not args.forever:
                break
    except Refused as exc:
        print(f"error: the harness refused this client: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: cannot reach the harness at {args.host}:{args.port}: {exc}",
              file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"played {games} games", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
