"""`python -m evaluation.kill_loop`: SIGKILL a resuming trial again and again; lose nothing.

    python -m evaluation.kill_loop kills=50 games=100 seed=0 out=/tmp/kill_loop

Not a test (it takes minutes): a check of the claim that no recorded game is ever lost.
It plays the trial once without interruption (`ref/`), then runs the same command into
`run/` and SIGKILLs it at a random moment (from before its imports finish to a few
games in, so most kills land in start-up and resume: folder lock, checks, repairs),
`kills` times. Before some resumes it damages the file the way a kill mid-write would
(half of the next line) or repeats the last line, so the repair path (an atomic rewrite)
is under fire too. After every kill it checks that the complete lines are a prefix of
the reference and that none recorded before that run went missing. Then it lets the
trial finish and compares the folder with the reference: games.jsonl and trial.json
byte for byte, summary.json but for its wall time, and `evaluation.verify` on both.
Exit 0 when all held, 1 when a game was lost or the folders differ.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from pydantic import Field

from openmono_cli import Options, cli, out_field, seed_field


class KillOptions(Options):
    """SIGKILL a resuming trial again and again; check that no recorded game is lost."""

    kills: int = Field(50, ge=1, description="times the resuming trial is killed")
    games: int = Field(100, ge=2, description="games of the trial")
    seed: int = seed_field(what="the trial's seed (and the kills' random delays)")
    out: str = out_field("outputs/kill_loop", "the folder of the reference and killed runs")

AGENTS = ["agent=random", "opponents=[random,random,random]", "reference=random",
          "progress=false", "plots=false"]


def _command(games: int, seed: int, folder: Path) -> list[str]:
    return [sys.executable, "-m", "evaluation.trial", *AGENTS, f"games={games}",
            f"seed={seed}", f"hydra.run.dir={folder}"]


def _lines(path: Path) -> list[bytes]:
    try:
        return path.read_bytes().splitlines(keepends=True)
    except FileNotFoundError:
        return []


def _whole(path: Path) -> list[bytes]:
    """The complete lines, an exact repeat of the line before dropped (as a resume does)."""
    out: list[bytes] = []
    for ln in _lines(path):
        if ln.endswith(b"\n") and not (out and ln == out[-1]):
            out.append(ln)
    return out


def _env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[2])
    return {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _summary(folder: Path) -> dict:
    data = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    data.pop("seconds", None)
    return data


def _play_reference(games: int, seed: int, ref: Path) -> tuple[list[bytes], float, float] | None:
    """The uninterrupted run into `ref`: its lines, the seconds until its first line and
    the seconds a game (None, and one error line, when it fails)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(_command(games, seed, ref), env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    first = None
    while proc.poll() is None:
        if first is None and _whole(ref / "games.jsonl"):
            first = time.perf_counter() - t0
        time.sleep(0.01)
    if proc.returncode != 0:
        print(f"error: the reference run failed: {proc.stderr.read().decode()[-500:]}",
              file=sys.stderr)
        return None
    total = time.perf_counter() - t0
    reference = _lines(ref / "games.jsonl")
    startup = first or total
    per_game = max((total - startup) / max(games - 1, 1), 1e-3)
    print(f"reference: {games} games in {total:.1f} s (first line after {startup:.2f} s, "
          f"{per_game * 1000:.0f} ms a game)")
    return reference, startup, per_game


def run(kills: int, games: int, seed: int, out: Path) -> int:
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    ref, folder = out / "ref", out / "run"
    played = _play_reference(games, seed, ref)
    if played is None:
        return 1
    reference, startup, per_game = played
    done = killed = damaged = lost = early = 0
    while killed < kills:
        before = _whole(folder / "games.jsonl")
        ends_whole = _lines(folder / "games.jsonl")[-1:] == before[-1:]
        if before and ends_whole and len(before) < games and rng.random() < 0.3:
            damaged += 1
            with (folder / "games.jsonl").open("ab") as fh:  # what a kill mid-write leaves
                nxt = reference[len(before)]
                fh.write(nxt[: rng.randrange(1, len(nxt) - 1)] if rng.random() < 0.5
                         else before[-1])
        delay = rng.uniform(0.2 * startup, startup + 3 * per_game)
        child = subprocess.Popen(_command(games, seed, folder), env=_env(),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        try:
            child.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            killed += 1
        after = _whole(folder / "games.jsonl")
        if child.returncode != 0:
            early += len(after) <= len(before)
        if len(after) < len(before) or after != reference[: len(after)]:
            lost += 1
            print(f"LOST: {len(before)} complete lines before kill {killed}, {len(after)} "
                  "after, or lines that differ from the reference")
        done = len(after)
        if child.returncode == 0 and done == games:
            print(f"the trial finished after {killed} kills; starting it again from nothing")
            shutil.rmtree(folder)
    final = subprocess.run(_command(games, seed, folder), env=_env(), capture_output=True,
                           text=True)
    same = (final.returncode == 0
            and (folder / "games.jsonl").read_bytes() == (ref / "games.jsonl").read_bytes()
            and (folder / "trial.json").read_bytes() == (ref / "trial.json").read_bytes()
            and _summary(folder) == _summary(ref))
    verified = subprocess.run([sys.executable, "-m", "evaluation.verify", str(ref), str(folder)],
                              env=_env(), capture_output=True, text=True)
    print(f"kills: {killed} (SIGKILL, random delays from seed {seed}; {early} before the run "
          f"added a game: start-up, lock, checks, repairs); damaged before a resume: "
          f"{damaged}; games: {games} (trial seed {seed}); recorded games lost: {lost}; final "
          f"folder equals the uninterrupted run: {'yes' if same else 'NO'}; verify: "
          f"{'ok' if verified.returncode == 0 else verified.stdout.strip()}")
    return 0 if same and not lost and verified.returncode == 0 else 1


def main(argv: list[str] | None = None) -> int:
    cfg = cli(KillOptions, argv, "python -m evaluation.kill_loop")
    return run(cfg.kills, cfg.games, cfg.seed, Path(cfg.out))


if __name__ == "__main__":
    raise SystemExit(main())
