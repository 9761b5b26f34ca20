"""The documentation's screenshots, re-taken from the pages as they are now.

    python -m evaluation.reports.screenshots out=docs/img

Plays the getting-started trial (`python -m evaluation.trial novelty=rent_hike`: the
planner, 100 games, seed 0) and a small sweep (the planner with and without adaptation
on `group_reassign` and `rent_hike`, `games` games each, trial seed `seed`) with its
comparison, and has headless Chromium photograph three pages: the trial's `report.html`
(`report.png`), the replay of its injection game (`replay.png`) and the sweep's
`compare.html` (`compare.png`). Without Chromium (`apt-get install chromium`) it says
so and exits 2.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from pydantic import Field

from openmono_cli import Options, read_options

ROOT = Path(__file__).resolve().parents[2]
# (page, window size): the screenshots' names and the windows they are taken in
SHOTS = {"report.png": (1000, 1500), "replay.png": (1250, 860), "compare.png": (1600, 1000)}
NOVELTIES = ("group_reassign", "rent_hike")  # the sweep's
MAIN_JOB = ("agent=planner", "novelty=rent_hike", "games=100", "seed=0")  # getting started


def chromium() -> str | None:
    """The Chromium executable, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(browser: str, page: Path, png: Path, size: tuple[int, int]) -> Path:
    """Headless Chromium opens `page` (its scripts run) and writes `png`, `size` pixels."""
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", f"--window-size={size[0]},{size[1]}",
                           f"--screenshot={png}", page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not png.exists():
        raise RuntimeError(f"chromium could not photograph {page} (exit {proc.returncode}): "
                           f"{proc.stderr.strip().splitlines()[-1:] or ''}")
    return png


def _python(*args: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)


def play(trial: Path, sweep: Path, games: int, seed: int) -> None:
    """The getting-started trial in `trial`; the small sweep, then its comparison
    (`compare.html` in `sweep`)."""
    _python("-m", "evaluation.trial", *MAIN_JOB, "progress=false", f"out={trial}")
    _python("-m", "evaluation.trial", "--multirun", "agent=planner", "agent.adapt=true,false",
            f"novelty={','.join(NOVELTIES)}", f"games={games}", f"seed={seed}",
            "progress=false", f"out={sweep}")
    _python("-m", "evaluation.compare", str(sweep))


def replay_page(trial: Path, injected_at: int | None) -> Path:
    """The replay of the injection game, else the first the trial wrote."""
    page = trial / f"replay-{injected_at}.html"
    if page.exists():
        return page
    pages = sorted(trial.glob("replay-*.html"))
    if not pages:
        raise RuntimeError(f"{trial} has no replay page (keep_logs)")
    return pages[0]


def take(out: Path, trial: Path, sweep: Path, browser: str) -> list[Path]:
    """The three screenshots of the played trial and sweep, written to `out`."""
    summary = json.loads((trial / "summary.json").read_text(encoding="utf-8"))
    pages = {"report.png": trial / "report.html",
             "replay.png": replay_page(trial, summary.get("injected_at")),
             "compare.png": sweep / "compare.html"}
    return [screenshot(browser, pages[name], out / name, SHOTS[name]) for name in SHOTS]


class ScreenshotOptions(Options):
    """Re-take the documentation's screenshots (report, replay, compare) with Chromium."""

    out: str = Field("docs/img", description="where report.png, replay.png and compare.png go")
    games: int = Field(30, ge=10, description="games in each trial of the small sweep")
    seed: int = Field(0, description="the sweep's trial seed")
    work: str | None = Field(None, description="an empty folder where the trial and the "
                             "sweep are played (null: a temporary one, removed afterwards)")


def main(argv: list[str] | None = None) -> int:
    args = read_options(ScreenshotOptions, argv, "python -m evaluation.reports.screenshots")
    if isinstance(args, int):
        return args
    browser = chromium()
    if browser is None:
        print("error: no chromium here (apt-get install chromium); the screenshots need "
              "headless Chromium", file=sys.stderr)
        return 2
    out = Path(args.out)
    with tempfile.TemporaryDirectory(prefix="openmono-shots-") as tmp:
        work = Path(args.work) if args.work else Path(tmp)
        trial, sweep = work / "trial", work / "sweep"
        try:
            play(trial, sweep, args.games, args.seed)
            written = take(out, trial, sweep, browser)
        except (subprocess.CalledProcessError, RuntimeError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    for png in written:
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
