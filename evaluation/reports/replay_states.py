"""A replay's states: the players' cash, positions and holdings after every event of a
kept game log, folded here in Python from the opening position (the page only shows
them; `tests/test_replay_page.py` checks the fold against the engine)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from openmono_cli import UsageError

from evaluation.store.atomic import read_regular

BANK = -1


def fold(header: dict[str, Any], events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Cash and positions after every event (step 0: the opening), and the board
    (owner, level, mortgaged) at each step where it changed."""
    schema = header["schema"]
    n_sq, n = len(schema["squares"]), header["players"]
    go = next((i for i, s in enumerate(schema["squares"]) if s["kind"] == "go"), 0)
    cash = [schema["bank"]["starting_cash"]] * n
    pos, jailed, out = [go] * n, [False] * n, [False] * n
    owner, level, mortgaged = [-1] * n_sq, [0] * n_sq, [False] * n_sq
    steps = {"cash": [list(cash)], "position": [list(pos)], "jailed": [list(jailed)],
             "out": [list(out)], "board": [[0, list(owner), list(level), list(mortgaged)]],
             "turn": [0]}
    turn = 0
    for i, e in enumerate(events, start=1):
        kind = e["kind"]
        board = False
        if kind == "payment":
            if e["payer"] != BANK:
                cash[e["payer"]] -= e["amount"]
            if e["payee"] != BANK:
                cash[e["payee"]] += e["amount"]
        elif kind == "moved":
            pos[e["seat"]] = e["end"]
        elif kind == "jailed":
            jailed[e["seat"]] = True
        elif kind == "released":
            jailed[e["seat"]] = False
        elif kind == "bankrupt":
            out[e["seat"]] = True
        elif kind == "turn_started":
            turn = e["turn"]
        elif kind == "property_transferred":
            owner[e["square"]], board = e["to_seat"], True
        elif kind == "building_changed":
            level[e["square"]], board = e["level"], True
        elif kind == "mortgage_changed":
            mortgaged[e["square"]], board = e["mortgaged"], True
        steps["cash"].append(list(cash))
        steps["position"].append(list(pos))
        steps["jailed"].append(list(jailed))
        steps["out"].append(list(out))
        steps["turn"].append(turn)
        if board:
            steps["board"].append([i, list(owner), list(level), list(mortgaged)])
    return steps


def read_log(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """(header, events, result) of a game log; one-line errors for a bad file."""
    try:
        lines = read_regular(path).decode("utf-8", "replace").splitlines()  # no link, FIFO
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return read_log_lines(lines, str(path))


def read_log_lines(lines: Sequence[str], path: str = "log") -> tuple[
        dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    header, events, result = None, [], None
    for k, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            raise UsageError(f"{path}:{k}: not a JSON line") from None
        if rec.get("type") == "header":
            header = rec
        elif rec.get("type") == "event":
            events.append(rec)
        elif rec.get("type") == "result":
            result = rec
    if header is None:
        raise UsageError(f"{path}: not a game log (no header line)")
    return header, events, result
