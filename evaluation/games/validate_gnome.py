"""Cross-validation: four `baseline` under `rules=gnome` against GNOME-p3 running its own
four `background_agent_v3_1`.

    python -m evaluation.validate_gnome games=1000 seed=0 gnome=/path/to/GNOME-p3

`gnome=` points at a checkout of https://github.com/mayankkejriwal/GNOME-p3 (optional:
without it only our side is played). Each side plays `games` games; per game we record
the game length in player-turns, how it ended (bankruptcy / cash_cap / turn_limit), the
trades and auctions, the winner's place in the playing order, the properties bought
from the bank and the building levels added (`out=FILE` keeps them, a JSON line per game
and side). The table compares the distributions with
two-sample tests (Mann-Whitney U for counts, chi-square for categories) and is printed
as Markdown; the last line is JSON. GNOME has no turn limit: its games longer than ours
(`turn_limit` of the gnome rules) are compared as reaching it (length and end reason). GNOME runs in a subprocess with the checkout on its
path, its functions counted by wrapping, never changed. The games are played in
`rounds` blocks, ours then GNOME's, so that a drift in the machine's speed meets both
sides alike (the speed ratio is of CPU time, each game's set-up included).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

from pydantic import Field

from openmono_cli import Options, UsageError, cli, fail, games_field, out_field, seed_field


class GnomeOptions(Options):
    """Four baseline under rules=gnome against GNOME-p3's own four background agents."""

    games: int = games_field(200, "games each side plays")
    seed: int = seed_field()
    gnome: str = Field("", description="a GNOME-p3 checkout (empty: play only our side)")
    out: str = out_field("", "a file that keeps one JSON line per game and side (empty: none)")
    rounds: int = Field(5, ge=1, description="blocks of games, each played by our side "
                        "then GNOME's: the machine's speed drifts, and both sides meet it "
                        "alike")


MEASURES = ("turns", "trades", "auctions", "bought", "built", "mortgaged", "sold", "razed")
LABELS = {"turns": "turns", "trades": "trades", "auctions": "auctions",
          "bought": "properties bought from the bank", "built": "building levels added",
          "mortgaged": "mortgages", "sold": "properties sold (or foreclosed) to the bank",
          "razed": "building sales"}


def play_ours(games: int, seed: int) -> list[dict[str, Any]]:
    """Four `baseline` under the gnome rules, seats in playing order."""
    from openmono import events as E
    from openmono import gnome_schema, play_game
    from openmono.engine import Game

    from agents.baseline import BaselineAgent

    schema = gnome_schema()
    out = []
    for g in range(games):
        t0, c0 = time.perf_counter(), time.process_time()
        game = Game(schema, players=4, seed=seed + g)
        result = play_game(schema, [BaselineAgent() for _ in range(4)], seed=seed + g,
                           seats=[0, 1, 2, 3], game=game)
        timing = {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0}
        evs = game.events
        out.append({**timing,
            "turns": result.turns, "end": result.end_reason, "winner": result.winner,
            "trades": game.trades, "auctions": game.auctions,
            "bought": sum(1 for e in evs if type(e) is E.Payment and e.reason == "buy"),
            "built": sum(1 for e in evs if type(e) is E.BuildingChanged and e.reason == "built"),
            "mortgaged": sum(1 for e in evs if type(e) is E.MortgageChanged and e.mortgaged),
            "sold": sum(1 for e in evs
                        if type(e) is E.PropertyTransferred and e.reason == "sold_to_bank"),
            "razed": sum(1 for e in evs if type(e) is E.BuildingChanged and e.reason == "sold"),
        })
    return out


_DRIVER = r'''
import json, sys, time, types
sys.path.insert(0, sys.argv[1])
try:
    import xlsxwriter  # noqa: F401  (GNOME imports it for optional history files)
except ImportError:
    sys.modules["xlsxwriter"] = types.ModuleType("xlsxwriter")
import os
from monopoly_simulator import gameplay, action_choices, background_agent_v3_1
from monopoly_simulator.agent import Agent
from monopoly_simulator.bank import Bank

count = {}
def counted(module, name, key, ok=lambda r: True):
    inner = getattr(module, name)
    def wrapper(*a, **k):
        r = inner(*a, **k)
        if ok(r):
            count[key] = count.get(key, 0) + 1
        return r
    setattr(module, name, wrapper)
success = lambda r: r == 1
counted(gameplay, "roll_die", "turns")
counted(action_choices, "accept_trade_offer", "trades", success)
counted(action_choices, "buy_property", "bought", success)
counted(action_choices, "improve_property", "built", success)
counted(action_choices, "mortgage_property", "mortgaged", success)
counted(action_choices, "sell_property", "sold", success)
counted(action_choices, "sell_house_hotel", "razed", success)
inner_auction = Bank.auction
def auction(*a, **k):
    count["auctions"] = count.get("auctions", 0) + 1
    return inner_auction(*a, **k)
Bank.auction = staticmethod(auction)
schema = os.path.join(sys.argv[1], "monopoly_game_schema_v1-2.json")
games, seed = int(sys.argv[2]), int(sys.argv[3])
for g in range(games):
    count.clear()
    t0, c0 = time.perf_counter(), time.process_time()
    agents = {f"player_{i}": Agent(**background_agent_v3_1.decision_agent_methods)
              for i in range(1, 5)}
    elements = gameplay.set_up_board(schema, agents)
    for a in agents.values():
        a.startup(elements)
    winner = gameplay.simulate_game_instance(elements, np_seed=seed + g)
    timing = {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0}
    names = [p.player_name for p in elements["players"]]
    lost = sum(p.status == "lost" for p in elements["players"])
    row = {k: count.get(k, 0) for k in ("turns", "trades", "auctions", "bought", "built",
                                        "mortgaged", "sold", "razed")}
    row["end"] = "bankruptcy" if lost == 3 else "cash_cap"
    row["winner"] = names.index(winner) if winner in names else -1
    row.update(timing)
    print(json.dumps(row), flush=True)
'''


def play_gnome(checkout: str, games: int, seed: int) -> list[dict[str, Any]]:
    """GNOME-p3's own game with four background_agent_v3_1, one JSON line per game."""
    if not os.path.isfile(os.path.join(checkout, "monopoly_simulator", "gameplay.py")):
        raise UsageError(f"gnome={checkout!r} is not a GNOME-p3 checkout "
                         "(no monopoly_simulator/gameplay.py in it)")
    proc = subprocess.run([sys.executable, "-c", _DRIVER, checkout, str(games), str(seed)],
                          capture_output=True, text=True, cwd=checkout)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 and not rows:
        raise UsageError(f"GNOME-p3 failed: {proc.stderr.strip().splitlines()[-1:]}")
    return rows


def blocks(games: int, rounds: int) -> list[tuple[int, int]]:
    """(first game, games) of `rounds` consecutive blocks as even as they come.

    >>> blocks(7, 3)
    [(0, 3), (3, 2), (5, 2)]
    """
    rounds = min(rounds, games)
    size, extra = divmod(games, rounds)
    out, start = [], 0
    for b in range(rounds):
        n = size + (b < extra)
        out.append((start, n))
        start += n
    return out


def censor(rows: list[dict], turn_limit: int) -> list[dict]:
    """GNOME's games as our turn limit would have ended them: a game longer than the
    limit counts as reaching it (GNOME itself has no limit)."""
    return [dict(r, turns=turn_limit, end="turn_limit") if r["turns"] > turn_limit else r
            for r in rows]


def compare(ours: list[dict], theirs: list[dict]) -> list[dict[str, Any]]:
    """Per measure: means (sd) both sides and a two-sample test."""
    import numpy as np
    from scipy import stats

    rows = []
    for m in MEASURES:
        a = np.array([r[m] for r in ours], float)
        b = np.array([r[m] for r in theirs], float)
        p = stats.mannwhitneyu(a, b).pvalue if len(b) else float("nan")
        rows.append({"measure": f"{LABELS[m]} per game", "ours": _ms(a), "gnome": _ms(b) if len(b) else "-",
                     "test": "Mann-Whitney U", "p": p})
    for key, cats in (("end", ("bankruptcy", "cash_cap", "turn_limit")), ("winner", (0, 1, 2, 3))):
        ca = [sum(r[key] == c for r in ours) for c in cats]
        cb = [sum(r[key] == c for r in theirs) for c in cats]
        keep = [i for i in range(len(cats)) if ca[i] + cb[i] > 0]
        p = (stats.chi2_contingency([[ca[i] for i in keep], [cb[i] for i in keep]])[1]
             if theirs and len(keep) > 1 else float("nan"))
        label = "end reason" if key == "end" else "winner's place in the order"
        rows.append({"measure": label,
                     "ours": _shares(cats, ca), "gnome": _shares(cats, cb) if theirs else "-",
                     "test": "chi-square", "p": p})
    return rows


def speed(ours: list[dict], theirs: list[dict]) -> dict[str, Any]:
    """Games and player-turns per CPU second of each side, counting only the games
    (set-up of each game included; start-up, imports and our statistics left out), and
    ours over GNOME's. GNOME has no turn limit, so player-turns/s is the fairer ratio."""
    out: dict[str, Any] = {}
    for side, rows in (("ours", ours), ("gnome", theirs)):
        cpu = sum(r["cpu"] for r in rows)
        out[side] = {"games": len(rows), "cpu_seconds": round(cpu, 3),
                     "seconds": round(sum(r["seconds"] for r in rows), 3),
                     "games_per_cpu_s": len(rows) / cpu if cpu else None,
                     "turns_per_cpu_s": sum(r["turns"] for r in rows) / cpu if cpu else None}
    if theirs and out["gnome"]["cpu_seconds"]:
        for k in ("games_per_cpu_s", "turns_per_cpu_s"):
            out[f"ratio_{k}"] = out["ours"][k] / out["gnome"][k]
    return out


def _ms(x) -> str:
    """mean (sd); median [quartiles]"""
    import numpy as np

    if len(x) < 2:
        return f"{x.mean():.1f}"
    q1, med, q3 = np.percentile(x, [25, 50, 75])
    return f"{x.mean():.1f} ({x.std(ddof=1):.1f}); {med:g} [{q1:g}–{q3:g}]"


def _shares(cats, counts) -> str:
    total = sum(counts) or 1
    return ", ".join(f"{c}: {n / total:.1%}" for c, n in zip(cats, counts) if n)


def main(argv: list[str] | None = None) -> int:
    cfg = cli(GnomeOptions, argv, "python -m evaluation.validate_gnome")
    try:
        ours: list[dict[str, Any]] = []
        theirs: list[dict[str, Any]] = []
        wall = {"ours": 0.0, "gnome": 0.0}
        for start, count in blocks(cfg.games, cfg.rounds if cfg.gnome else 1):
            t0 = time.perf_counter()
            ours += play_ours(count, cfg.seed + start)
            t1 = time.perf_counter()
            if cfg.gnome:
                theirs += play_gnome(cfg.gnome, count, cfg.seed + start)
            wall["ours"] += t1 - t0
            wall["gnome"] += time.perf_counter() - t1
    except UsageError as exc:
        fail(str(exc))
        return 2
    if cfg.out:
        from evaluation.store.atomic import atomic_write

        atomic_write(cfg.out, "".join(
            json.dumps({"side": side, "seed": cfg.seed + g, **r}) + "\n"
            for side, games in (("openmono", ours), ("gnome", theirs))
            for g, r in enumerate(games)))
    from openmono import gnome_schema

    longer = sum(1 for r in theirs if r["turns"] > gnome_schema().bank.turn_limit)
    rows = compare(ours, censor(theirs, gnome_schema().bank.turn_limit))
    fast = speed(ours, theirs)
    print(f"games: ours {len(ours)} ({wall['ours']:.0f} s), GNOME-p3 {len(theirs)} "
          f"({wall['gnome']:.0f} s), in {cfg.rounds if cfg.gnome else 1} alternating blocks;"
          f" seeds {cfg.seed}..{cfg.seed + cfg.games - 1}; GNOME games past our turn"
          f" limit ({longer}) count as reaching it")
    for side, label in (("ours", "ours"), ("gnome", "GNOME-p3")):
        if fast[side]["cpu_seconds"]:
            print(f"speed, {label}: {fast[side]['games_per_cpu_s']:.1f} games and "
                  f"{fast[side]['turns_per_cpu_s']:,.0f} player-turns per CPU second")
    if "ratio_games_per_cpu_s" in fast:
        print(f"speed, ours over GNOME-p3: {fast['ratio_games_per_cpu_s']:.2f}x games/s, "
              f"{fast['ratio_turns_per_cpu_s']:.2f}x player-turns/s")
    print()
    print("| measure | openmono baseline, rules=gnome | GNOME-p3 background_agent_v3_1 "
          "| test | p |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['measure']} | {r['ours']} | {r['gnome']} | {r['test']} | {r['p']:.3g} |")
    print(json.dumps({"games_ours": len(ours), "games_gnome": len(theirs), "seed": cfg.seed,
                      "rows": rows, "speed": fast}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
