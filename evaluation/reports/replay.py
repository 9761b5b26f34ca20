"""A game replay in the browser: `replay-K.html` from a kept game log.

    python -m evaluation.replay RUN_DIR game=K

reads `RUN_DIR/logs/game-K.jsonl` (a trial keeps the logs of the games around the
injection: `keep_logs`) and writes `RUN_DIR/replay-K.html`, one self-contained
page: the board drawn from the game's own schema (a novelty's board as it was played,
its changed squares outlined, and a button that shows them as the rules had them), the
players' cash, positions, holdings and buildings after every event, the event list,
and controls to step, jump to a turn or play. `#step=N` in the address opens step N.

The states are computed here, in Python, by folding the logged events from the opening
position (`fold`); the page only shows them. `tests/test_replay_page.py` checks the fold
against the engine replaying the same log at every decision, and the page in headless
Chromium.

This module is the command and the trial folder's side (which games, which files, the
titles and notes); the states are folded in `replay_states`, the board drawn in
`replay_board` and the page put together in `replay_page`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import Field

from openmono_cli import Options, UsageError, read_options

from evaluation.reports.replay_board import changed_squares, truth_by_square
from evaluation.reports.replay_page import render
from evaluation.reports.replay_states import read_log
from evaluation.store.atomic import atomic_write, read_regular
from evaluation.store.report_files import LOGS, kept_logs


def log_path(run_dir: str | Path, game: int) -> Path:
    return Path(run_dir) / LOGS / f"game-{game}.jsonl"


def page_path(run_dir: str | Path, game: int) -> Path:
    return Path(run_dir) / f"replay-{game}.html"


def write(run_dir: str | Path, game: int) -> Path:
    """replay-K.html for game K of a trial folder (its kept log, its record)."""
    run = Path(run_dir)
    header, events, result = read_log(log_path(run, game))
    info: dict[str, Any] = {"title": f"Game {game}", "notes": []}
    record, summary = _record(run, game), _summary(run)
    before, truth = None, None
    if record is not None:
        info["title"] = (f"Game {game} of {summary.get('agent', 'the trial')} vs "
                         f"{', '.join(summary.get('opponents', []))}")
        info["seat_names"] = [record["seats"][s] if s < len(record.get("seats", [])) else s
                              for s in range(header["players"])]
        info["notes"].append(f"the evaluated agent sits at P{record['agent_seat']}")
    if summary.get("injected_at") is not None and record is not None:
        inj = summary["injected_at"]
        if record.get("novelty_active"):
            before, truth = _base_schema(run), summary.get("ground_truth") or []
            names = [s["name"] for s in header["schema"]["squares"]]
            count = len(changed_squares(header["schema"], before,
                                        truth_by_square(truth, names)))
            outlined = (f"the {count} squares it changed are outlined in red (the button "
                        "shows them as the rules had them)" if count else
                        "it changes no square: see the events")
            info["notes"].append(f"novelty {summary.get('novelty')} active in this game "
                                 f"(injected before game {inj}); {outlined}")
        else:
            info["notes"].append(f"before the novelty (injected before game {inj})")
    if summary.get("first_detection") == game:
        info["notes"].append("the agent first reported a novelty after this game")
    path = page_path(run, game)
    atomic_write(path, render(header, events, result, info, before, truth))
    return path


def _summary(run: Path) -> dict[str, Any]:
    try:
        return json.loads(read_regular(run / "summary.json").decode("utf-8"))
    except (OSError, ValueError):
        return {}


def _record(run: Path, game: int) -> dict[str, Any] | None:
    try:
        for line in read_regular(run / "games.jsonl").decode("utf-8").splitlines():
            rec = json.loads(line)
            if rec.get("game") == game:
                return rec
    except (OSError, ValueError):
        pass
    return None


def _base_schema(run: Path) -> dict[str, Any] | None:
    """The trial's rules before the novelty (its rule set), as JSON data."""
    try:
        rules = json.loads(read_regular(run / "trial.json").decode("utf-8")).get(
            "rules", "standard")
        from openmono import rules_schema

        return json.loads(rules_schema(rules).to_json())
    except Exception:  # noqa: BLE001 - no comparison board is no reason to fail the page
        return None


def kept_games(run_dir: str | Path) -> list[int]:
    """The games whose log the trial folder keeps (`logs/game-K.jsonl`)."""
    return kept_logs(run_dir)


class ReplayOptions(Options):
    """A game replay in the browser: RUN_DIR/replay-K.html from a kept game log."""

    positional = ("run",)
    run: str = Field(description="a trial folder")
    game: int = Field(-1, description="a game whose log the trial kept (keep_logs)")


def main(argv: list[str] | None = None) -> int:
    cfg = read_options(ReplayOptions, argv, "python -m evaluation.replay")
    if isinstance(cfg, int):
        return cfg
    try:
        run = Path(cfg.run)
        kept = kept_games(run)
        if cfg.game not in kept:
            raise UsageError(f"{run}: no log of game {cfg.game}; kept: "
                             f"{', '.join(map(str, kept)) or 'none'} (keep_logs)")
        path = write(run, cfg.game)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)  # one line, no traceback
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
