"""Cluster launchers: the launcher configs compose, Ray and submitit run real sweeps whose
results come home, a trial whose worker dies resumes from what reached home, and a
missing cluster is one line.

The Ray and submitit tests need the `cluster` extra (`pip install -e ".[dev,cluster]"`)
and skip with one line without it; CI does not install it (docs/scaling.md says why).
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluation.trials.ray_trials import HomeFolder, play_streaming
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig
from evaluation.trials.sweep_guard import descendants
from evaluation.trials.trial_keys import _compose

ROOT = Path(__file__).resolve().parents[1]
HAS_RAY = importlib.util.find_spec("ray") is not None
HAS_SUBMITIT = importlib.util.find_spec("hydra_plugins.hydra_submitit_launcher") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="ray is not installed (pip install -e "
                               "'.[cluster]')")
needs_submitit = pytest.mark.skipif(not HAS_SUBMITIT, reason="hydra-submitit-launcher is not "
                                    "installed (pip install -e '.[cluster]')")
SWEEP = ["agent=random,baseline", "seed=0,1", "novelty=rent_hike", "games=4",
         "inject_at=2", "plots=false", "opponents=[random,random,random]",
         "reference=random"]


def _trial(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evaluation.trial", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _results(sweep: Path) -> dict[str, tuple[str, dict]]:
    """Per trial folder: its games.jsonl and its summary without the wall time."""
    out = {}
    for summary in sorted(sweep.rglob("summary.json")):
        data = json.loads(summary.read_text())
        data.pop("seconds")
        out[summary.parent.name] = ((summary.parent / "games.jsonl").read_text(), data)
    return out


def test_the_ray_launcher_config_composes_without_including_itself() -> None:
    # conf/hydra/launcher/ray.yaml once listed `ray` in its own defaults: RecursionError.
    cfg = _compose(["agent=random", "hydra/launcher=ray"])
    assert "ray_launcher" in cfg.hydra.launcher._target_
    assert cfg.hydra.launcher.cpus_per_trial == 1


def test_slurm_without_slurm_is_one_line_naming_local_and_ray(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()}
    env["PATH"] = str(Path(sys.executable).parent)  # no sbatch here, whatever the machine
    proc = subprocess.run([sys.executable, "-m", "evaluation.trial", "--multirun",
                           "hydra/launcher=slurm", "agent=random,baseline", "games=2",
                           f"hydra.sweep.dir={tmp_path / 's'}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "no Slurm" in lines[0] or "pip install" in lines[0]
    if HAS_SUBMITIT:
        assert "hydra/launcher=local" in lines[0] and "hydra/launcher=ray" in lines[0]
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("state_seconds,how", [(0.0, "agents restored"),
                                               (3600.0, "re-playing them")])
def test_a_trial_resumes_from_what_reached_home(tmp_path: Path, state_seconds: float,
                                                how: str) -> None:
    """The Ray task's body without Ray: a worker that died after a few chunks is
    replaced by one that starts from the home folder; nothing lost, nothing twice,
    whether the agents' snapshot had reached home or not."""
    cfg = TrialConfig(agent="baseline", novelty="rent_hike", games=12, inject_at=5, seed=3,
                      progress=False)
    run_trial(cfg, tmp_path / "local")
    expected = (tmp_path / "local" / "games.jsonl").read_text()

    home = HomeFolder(tmp_path / "home")
    chunks = list(play_streaming(cfg, False, {}, chunk_seconds=0.0,
                                 state_seconds=state_seconds))
    assert chunks[-1].get("done") and len(chunks) > 6
    for chunk in chunks[:5]:  # the worker dies here: five chunks reached home
        home.receive(chunk)
    reached = home.games()
    assert 0 < reached < cfg.games
    with (home.out / "games.jsonl").open("ab") as fh:
        fh.write(b'{"game": 99, "cut sh')  # what a kill mid-write leaves
    for chunk in play_streaming(cfg, False, home.resume_files(), chunk_seconds=0.0,
                                state_seconds=state_seconds):
        home.receive(chunk)
    assert (home.out / "games.jsonl").read_text() == expected
    assert json.loads((home.out / "summary.json").read_text())["games"] == cfg.games
    log = (home.out / "trial.log").read_text()
    assert f"{reached} games from home" in log and how in log


@needs_ray
def test_a_ray_sweep_on_a_real_local_cluster_matches_joblib(tmp_path: Path) -> None:
    local = _trial("--multirun", "hydra/launcher=local", "hydra.launcher.n_jobs=2", *SWEEP,
                   f"hydra.sweep.dir={tmp_path / 'joblib'}")
    assert local.returncode == 0, local.stderr[-2000:]
    ray = _trial("--multirun", "hydra/launcher=ray", "hydra.launcher.num_cpus=2", *SWEEP,
                 f"hydra.sweep.dir={tmp_path / 'ray'}")
    assert ray.returncode == 0, ray.stderr[-2000:]
    assert "4 of 4 trials complete" in ray.stdout
    a, b = _results(tmp_path / "joblib"), _results(tmp_path / "ray")
    assert len(a) == 4 and a == b
    for trial in (tmp_path / "ray").iterdir():
        if trial.is_dir():
            assert (trial / ".hydra" / "config.yaml").exists()
            assert "playing on" in (trial / "trial.log").read_text()
    again = _trial("--multirun", "hydra/launcher=ray", "hydra.launcher.num_cpus=2", *SWEEP,
                   f"hydra.sweep.dir={tmp_path / 'ray'}")
    assert again.returncode == 0 and "complete: all 4 trials" in again.stdout


def _ray_tasks(pid: int) -> list[int]:
    """The Ray workers below `pid` that are running a trial."""
    out = []
    for child in descendants(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as fh:
                if fh.read().startswith(b"ray::play_streaming"):
                    out.append(child)
        except OSError:
            pass
    return out


@needs_ray
def test_a_killed_ray_worker_is_resubmitted_and_nothing_is_lost_or_twice(
        tmp_path: Path) -> None:
    args = ["agent=planner", "seed=5", "novelty=rent_hike", "games=16",
            "inject_at=6", "plots=false"]
    run_trial(TrialConfig(agent="planner", novelty="rent_hike", games=16, inject_at=6, seed=5,
                          progress=False), tmp_path / "local")
    expected = (tmp_path / "local" / "games.jsonl").read_text()
    sweep = tmp_path / "ray"
    driver = subprocess.Popen(
        [sys.executable, "-m", "evaluation.trial", "--multirun", "hydra/launcher=ray",
         "hydra.launcher.num_cpus=2", "hydra.launcher.chunk_seconds=0", *args,
         f"hydra.sweep.dir={sweep}"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        killed = None
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and killed is None:
            games = list(sweep.rglob("games.jsonl"))
            if games and games[0].read_bytes().count(b"\n") >= 3:
                workers = _ray_tasks(driver.pid)
                if workers:
                    os.kill(workers[0], signal.SIGKILL)
                    killed = games[0].read_bytes().count(b"\n")
            if driver.poll() is not None:
                break
            time.sleep(0.05)
        out, err = driver.communicate(timeout=300)
    finally:
        if driver.poll() is None:
            driver.kill()
    (sweep / "driver.err").write_text(err)  # kept for a look (docs/scaling.md quotes it)
    assert killed is not None and killed < 16, f"the worker was not killed mid-trial: {err}"
    assert driver.returncode == 0, err[-2000:]
    assert "worker lost" in err and "resubmitted, resuming from" in err
    home = next(sweep.rglob("games.jsonl"))
    assert home.read_text() == expected  # every game once, as an uninterrupted run
    assert "1 of 1 trials complete" in out
    log = (home.parent / "trial.log").read_text()
    assert "worker lost" in log and log.count("playing on") == 1  # the lost one's log is lost
    assert "playing on" in log.split("worker lost")[1]


@needs_submitit
def test_submitit_local_runs_a_two_trial_sweep(tmp_path: Path) -> None:
    proc = _trial("--multirun", "hydra/launcher=submitit_local", "agent=random,baseline",
                  "novelty=rent_hike", "games=4", "inject_at=2",
                  "plots=false", "opponents=[random,random,random]", "reference=random",
                  f"hydra.sweep.dir={tmp_path / 's'}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "2 of 2 trials complete" in proc.stdout
    summaries = sorted((tmp_path / "s").rglob("summary.json"))
    assert len(summaries) == 2
    assert all(json.loads(s.read_text())["games"] == 4 for s in summaries)


def test_the_reaper_ends_what_a_sigkilled_driver_leaves(tmp_path: Path) -> None:
    """A local Ray cluster's agents outlive a SIGKILLed driver; the reaper ends them."""
    code = ("import subprocess, sys, time\n"
            "from evaluation.trials.sweep_guard import reap_when_gone\n"
            "reap_when_gone()\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(120)\n")
    driver = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True)
    child = int(driver.stdout.readline())
    time.sleep(1.5)  # the reaper has seen the child
    driver.kill()
    driver.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(child, signal.SIGKILL)
    pytest.fail("the orphaned child outlived its SIGKILLed parent")


@pytest.fixture(scope="module")
def ray_here():
    """A real local Ray cluster of 2 CPUs in this process, shut down after the module."""
    import ray

    ray.init(num_cpus=2, object_store_memory=80 * 2**20, include_dashboard=False,
             log_to_driver=False)
    yield ray
    ray.shutdown()


@needs_ray
def test_detection_sweep_on_ray_matches_the_local_pool(tmp_path: Path, ray_here) -> None:
    from evaluation.sweeps import detection_sweep

    args = ["agent=detect_baseline", "per_cell=0", "controls=2", "games=3",
            "seed=4"]
    assert detection_sweep.main([*args, "workers=1", f"out={tmp_path / 'pool'}"]) == 0
    assert detection_sweep.main([*args, "ray=auto", f"out={tmp_path / 'ray'}"]) == 0
    pool = sorted((tmp_path / "pool").rglob("games.jsonl"))
    ray = sorted((tmp_path / "ray").rglob("games.jsonl"))
    assert len(pool) == 2 and [p.relative_to(tmp_path / "pool") for p in pool] == [
        r.relative_to(tmp_path / "ray") for r in ray]
    assert [p.read_text() for p in pool] == [r.read_text() for r in ray]
    assert json.loads((tmp_path / "ray" / "sweep.json").read_text())["trials"][0]["games"] == 3


@needs_ray
def test_a_tournament_on_ray_plays_the_same_games(ray_here) -> None:
    from evaluation.games import tournament

    names = ["fp_a", "fp_b", "fp_c", "baseline"]
    here = tournament.run_tournament(names, games=3, runs=3, seed=2)
    there = tournament.run_tournament(names, games=3, runs=3, seed=2, ray="auto")
    for key in ("wins", "wins_per_run", "end_reasons", "turns_per_game", "trades_per_game"):
        assert here[key] == there[key], key
