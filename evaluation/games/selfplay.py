"""Self-play study: four copies of one agent, per game how it ended and whether anyone
ever held a colour set (why do self-play games reach the turn limit?).

    python -m evaluation.selfplay agent=planner games=100 seed=0 rules=standard
    python -m evaluation.selfplay agent=planner games=100 seed=0 agent.protect_sets=false

`agent.NAME=VALUE` options go to every copy's constructor. Per game: the end reason, the turns, the
accepted trades, the building levels standing at the end and the turn at which a
player first held a complete colour group (streets only; -1: never). The table shows
shares with 95% Wilson intervals; the last line is JSON (`out=FILE` keeps the rows).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from openmono_cli import Options, UsageError, cli, fail, games_field, out_field, seed_field
from openmono.schema import RULE_SETS

from evaluation.measures.intervals import wilson_interval


class SelfplayOptions(Options):
    """Four copies of one agent: how each game ended, and whether anyone held a colour set."""

    agent: str = Field("planner", description="the agent every seat plays")
    params: dict[str, Any] = Field({}, json_schema_extra={"prefix": "agent"},
                                   description="a constructor option of every copy")
    games: int = games_field(100)
    seed: int = seed_field()
    rules: str = Field("standard", description=f"the rule set ({', '.join(RULE_SETS)})")
    out: str = out_field("", "a file that keeps one JSON line per game (empty: none)")


def first_set_turn(rules, game, owner: tuple[int, ...] | None = None) -> int:
    """The turn at which some player first owned every street of a colour group, from
    the game's transfers (`owner`: the owners before its first event; default nobody)."""
    from openmono import events as E
    from openmono.state import NOBODY

    owner = list(owner) if owner is not None else [NOBODY] * rules.n
    turn = 0
    groups = [g for g in range(len(rules.group_members))
              if all(rules.is_street[m] for m in rules.group_members[g])]
    for e in game.events:
        t = type(e)
        if t is E.TurnStarted:
            turn = e.turn
        elif t is E.PropertyTransferred:
            owner[e.square] = e.to_seat
            g = rules.group_of[e.square]
            if e.to_seat != NOBODY and g in groups and all(
                    owner[m] == e.to_seat for m in rules.group_members[g]):
                return turn
    return -1


def play(agent: str, games: int, seed: int, rules: str, params: dict) -> list[dict]:
    from openmono import play_game, rules_schema
    from openmono.engine import Game

    from agents.registry import make_agent

    schema = rules_schema(rules)
    rows = []
    for g in range(games):
        game = Game(schema, players=4, seed=seed + g)
        res = play_game(schema, [make_agent(agent, **params) for _ in range(4)],
                        seed=seed + g, game=game)
        rows.append({"seed": seed + g, "end": res.end_reason, "turns": res.turns,
                     "trades": game.trades, "levels": sum(game.state.level),
                     "first_set": first_set_turn(game.rules, game)})
    return rows


def summary(rows: list[dict]) -> dict[str, Any]:
    n = len(rows)
    out: dict[str, Any] = {"games": n}
    for key, test in (("turn_limit", lambda r: r["end"] == "turn_limit"),
                      ("cash_cap", lambda r: r["end"] == "cash_cap"),
                      ("no_set_ever", lambda r: r["first_set"] < 0)):
        k = sum(1 for r in rows if test(r))
        lo, hi = wilson_interval(k, n)
        out[key] = {"count": k, "share": round(k / n, 4), "ci95": [round(lo, 4), round(hi, 4)]}
    limit = [r for r in rows if r["end"] == "turn_limit"]
    out["no_set_among_turn_limit"] = sum(1 for r in limit if r["first_set"] < 0)
    out["trades_per_game"] = round(sum(r["trades"] for r in rows) / n, 2)
    out["turns_per_game"] = round(sum(r["turns"] for r in rows) / n, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    cfg = cli(SelfplayOptions, argv, "python -m evaluation.selfplay")
    try:
        from openmono.schema import SchemaError, rules_schema
        try:
            rules_schema(cfg.rules)
        except SchemaError as exc:
            raise UsageError(str(exc)) from None
        from agents.registry import UnknownAgentError
        try:
            rows = play(cfg.agent, cfg.games, cfg.seed, cfg.rules, dict(cfg.params))
        except (UnknownAgentError, TypeError) as exc:
            raise UsageError(str(exc)) from None
    except UsageError as exc:
        fail(str(exc))
        return 2
    if cfg.out:
        from evaluation.store.atomic import atomic_write

        atomic_write(cfg.out, "".join(json.dumps(r) + "\n" for r in rows))
    s = summary(rows)
    for key in ("turn_limit", "cash_cap", "no_set_ever"):
        c = s[key]
        print(f"{key:12s} {c['count']:4d} / {s['games']}  {c['share']:.1%} "
              f"(95% CI {c['ci95'][0]:.1%}–{c['ci95'][1]:.1%})")
    print(f"turn-limit games in which no one ever held a set: {s['no_set_among_turn_limit']}")
    print(json.dumps({"agent": cfg.agent, "params": cfg.params, "rules": cfg.rules,
                      "seed": cfg.seed, **s}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
