"""Results nobody can lose or quietly change (issue 29, findings 1-4 and 7): one run per
folder, atomic rewrites, a resume that checks the record sequence, `--fresh` that deletes
only what the sweep made, and a digest chain that names an edited game."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from evaluation.sweeps import detection_sweep
from evaluation.store import records
from evaluation.harness.runner import run_trial
from evaluation.harness.trial_config import TrialConfig, TrialError
from evaluation.harness.trial_folder import GAMES_FILE, SUMMARY_FILE

ROOT = Path(__file__).resolve().parents[1]
FAST = ["agent=random", "opponents=[random,random,random]", "reference=random",
        "progress=false", "plots=false"]
CFG = dict(agent="random", opponents=["random"] * 3, reference="random", progress=False)
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True) if path.exists() else []


def _start(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "evaluation.trial", *args], cwd=cwd,
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_lines(paths: list[Path], n: int, proc: subprocess.Popen,
                    deadline: float = 120) -> None:
    """Until one of `paths` holds `n` lines (the first command is writing)."""
    end = time.time() + deadline
    while time.time() < end and proc.poll() is None:
        if any(len(_lines(p)) >= n for p in paths):
            return
        time.sleep(0.05)
    proc.kill()
    pytest.fail("the first command did not start writing")


# --- finding 1: one run per folder -----------------------------------------------------------
def test_1_a_second_identical_trial_while_the_first_writes_leaves_one_runs_games(
        tmp_path: Path) -> None:
    """Failed before the lock: both commands appended into one games.jsonl (39 lines for
    a 20-game trial) and both exited 1."""
    args = [*FAST, "games=40", "seed=3"]
    ref = subprocess.run([sys.executable, "-m", "evaluation.trial", *args,
                          f"hydra.run.dir={tmp_path / 'ref'}"], cwd=tmp_path, env=ENV,
                         capture_output=True, text=True, timeout=300)
    assert ref.returncode == 0, ref.stderr
    run = tmp_path / "run"
    first = _start(*args, f"hydra.run.dir={run}", cwd=tmp_path)
    _wait_for_lines([run / GAMES_FILE], 2, first)
    second = _start(*args, f"hydra.run.dir={run}", cwd=tmp_path)  # same command, or a resume
    out2, err2 = second.communicate(timeout=300)
    out1, err1 = first.communicate(timeout=300)
    assert first.returncode == 0, err1
    assert second.returncode in (0, 2), err2
    if second.returncode == 2:
        said = [ln for ln in err2.splitlines() if ln.strip()]
        assert len(said) == 1 and said[0].startswith("error: ") and "in use" in said[0], err2
        assert "Traceback" not in err2
    assert (run / GAMES_FILE).read_bytes() == (tmp_path / "ref" / GAMES_FILE).read_bytes()


def _sweep_games(root: Path) -> dict[str, bytes]:
    return {f.parent.name: f.read_bytes() for f in root.glob("multirun/*/*/games.jsonl")}


def test_1_two_identical_sweeps_started_together_leave_one_sweeps_games(
        tmp_path: Path) -> None:
    """Failed before the lock: every trial of two identical --multirun commands ended with
    the lines of both."""
    sweep = ["--multirun", "hydra/launcher=local", "hydra.launcher.n_jobs=1", *FAST,
             "seed=0,1", "games=25"]
    (tmp_path / "ref").mkdir()
    ref = subprocess.run([sys.executable, "-m", "evaluation.trial", *sweep],
                         cwd=tmp_path / "ref", env=ENV, capture_output=True, text=True,
                         timeout=300)
    assert ref.returncode == 0, ref.stderr[-2000:]
    expected = _sweep_games(tmp_path / "ref")
    assert len(expected) == 2
    (tmp_path / "run").mkdir()
    first = _start(*sweep, cwd=tmp_path / "run")
    end = time.time() + 120
    while time.time() < end and not any(d.count(b"\n") >= 2 for d in
                                        _sweep_games(tmp_path / "run").values()):
        time.sleep(0.05)
    second = _start(*sweep, cwd=tmp_path / "run")
    out2, err2 = second.communicate(timeout=300)
    out1, err1 = first.communicate(timeout=300)
    assert first.returncode == 0, err1[-2000:]
    assert second.returncode in (0, 2), err2[-2000:]
    if second.returncode == 2:
        said = [ln for ln in err2.splitlines() if ln.strip()]
        assert len(said) == 1 and "in use" in said[0], err2
    assert _sweep_games(tmp_path / "run") == expected


def test_1_two_identical_detection_sweeps_started_together_leave_one_sweeps_games(
        tmp_path: Path) -> None:
    def sweep(out: Path) -> list[str]:
        return [sys.executable, "-m", "evaluation.detection_sweep", "agent=random",
                "per_cell=0", "controls=2", "games=60", "workers=1",
                f"out={out}"]

    def games(out: Path) -> dict[str, bytes]:
        return {str(p.parent.relative_to(out)): p.read_bytes() for p in out.rglob(GAMES_FILE)}

    ref = subprocess.run(sweep(tmp_path / "ref"), env=ENV, capture_output=True, text=True,
                         timeout=300)
    assert ref.returncode == 0, ref.stderr[-2000:]
    out = tmp_path / "run"
    first = subprocess.Popen(sweep(out), env=ENV, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    end = time.time() + 120
    while time.time() < end and not any(d.count(b"\n") >= 2 for d in games(out).values()):
        time.sleep(0.05)
    second = subprocess.run(sweep(out), env=ENV, capture_output=True, text=True, timeout=300)
    first.communicate(timeout=300)
    assert first.returncode == 0
    assert second.returncode == 2 and "in use" in second.stderr, second.stderr[-2000:]
    assert games(out) == games(tmp_path / "ref") and len(games(out)) == 2


def test_1_a_detection_sweep_folder_in_use_is_refused(tmp_path: Path, capsys) -> None:
    from evaluation.store.folder_lock import FolderBusy, folder_lock

    out = tmp_path / "sweep"
    args = ["agent=random", "per_cell=0", "controls=1", "games=2",
            "workers=1", f"out={out}"]
    with folder_lock(out, "detection sweep"):
        assert detection_sweep.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "in use" in err[0] and str(out) in err[0]
    assert not (out / "sweep.json").exists()
    assert detection_sweep.main(args) == 0  # released: the same command runs
    with pytest.raises(FolderBusy):  # and a lock is exclusive within a process too
        with folder_lock(out, "a"), folder_lock(out, "b", reentrant=False):
            pass


def test_1_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    """The kernel drops an flock when its process dies, whatever killed it."""
    from evaluation.store.folder_lock import folder_lock

    run = tmp_path / "run"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom evaluation.store.folder_lock import "
         "folder_lock\nwith folder_lock(sys.argv[1], 'test'):\n    print('held', flush=True)"
         "\n    time.sleep(600)\n", str(run)], env=ENV, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    from evaluation.store.folder_lock import FolderBusy

    with pytest.raises(FolderBusy, match=f"pid {holder.pid}"):
        with folder_lock(run, "trial"):
            pass
    holder.kill()
    holder.wait()
    with folder_lock(run, "trial"):
        pass


# --- finding 2: rewrites are atomic ----------------------------------------------------------
# Runs a resume and kills the process right after its n-th change to a file of the run
# folder (an open for writing, a rename, a removal) has completed, like a SIGKILL would.
KILLER = r"""
import os, sys
folder, n = os.path.realpath(sys.argv[1]), int(sys.argv[2])
seen = [0]

def inside(path):
    try:
        return os.path.realpath(os.fspath(path)).startswith(folder + os.sep)
    except TypeError:
        return False

def die(frame, event, arg):
    os._exit(137)

def hook(event, args):
    if event == "open":
        path, mode, flags = args
        writes = (any(c in mode for c in "wax+") if isinstance(mode, str)
                  else bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_TRUNC)))
        hit = writes and inside(path)
    elif event in ("os.rename", "os.remove", "os.truncate"):
        hit = inside(args[0])
    else:
        return
    if hit:
        seen[0] += 1
        if seen[0] == n:
            sys.setprofile(die)  # dies at the next call: this change has been made

sys.addaudithook(hook)
from evaluation.harness.runner import TrialConfig, run_trial
run_trial(TrialConfig(**eval(sys.argv[3])), folder)
print("finished")
"""


def test_2_a_kill_at_any_moment_of_a_resume_keeps_every_recorded_game(tmp_path: Path) -> None:
    """Failed before: the resume rewrote games.jsonl in place (open('w')), and a kill
    right after that open left it empty (290 games lost)."""
    cfg = dict(CFG, games=4, seed=2)
    run_trial(TrialConfig(**cfg), tmp_path / "full")
    full = _lines(tmp_path / "full" / GAMES_FILE)
    partial = tmp_path / "partial"
    partial.mkdir()
    for name in ("trial.json", GAMES_FILE):
        shutil.copy(tmp_path / "full" / name, partial / name)
    # Two recorded games and a torn third line: the resume has something to repair.
    (partial / GAMES_FILE).write_bytes(b"".join(full[:2]) + full[2][:40])
    finished = False
    for n in range(1, 40):
        run = tmp_path / f"kill{n}"
        shutil.copytree(partial, run)
        proc = subprocess.run([sys.executable, "-c", KILLER, str(run), str(n), repr(cfg)],
                              env=ENV, capture_output=True, text=True, timeout=120)
        now = _lines(run / GAMES_FILE)
        whole = [ln for ln in now if ln.endswith(b"\n")]
        assert whole[:2] == full[:2], (n, proc.stderr[-1000:])  # nothing recorded is lost
        assert whole == full[:len(whole)], n
        if proc.returncode == 0:
            assert "finished" in proc.stdout and now == full
            finished = True
            break
        assert proc.returncode == 137, proc.stderr[-2000:]
        run_trial(TrialConfig(**cfg), run)  # and every killed state resumes to the same bytes
        assert _lines(run / GAMES_FILE) == full, n
    assert finished


# --- finding 3: the record sequence is checked -----------------------------------------------
def test_3_a_duplicated_line_is_dropped_and_the_missing_game_played(tmp_path: Path) -> None:
    """Failed before: [0, 1, 2, 2, 3] resumed as if five games were recorded, never played
    game 4, recorded game 2 twice and crashed at summary time."""
    cfg = dict(CFG, games=6, seed=4)
    run_trial(TrialConfig(**cfg), tmp_path / "full")
    full = _lines(tmp_path / "full" / GAMES_FILE)
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(tmp_path / "full" / "trial.json", run / "trial.json")
    (run / GAMES_FILE).write_bytes(b"".join([*full[:3], full[2], full[3]]))
    run_trial(TrialConfig(**cfg), run)
    assert (run / GAMES_FILE).read_bytes() == b"".join(full)


@pytest.mark.parametrize("shape,line,words", [
    ("gap", 3, ["game 2", "missing"]),
    ("swap", 2, ["game 2", "expected game 1"]),
    ("changed duplicate", 3, ["game 1"]),
    ("garbage", 2, ["not a JSON record"]),
])
def test_3_a_sequence_that_cannot_be_repaired_is_refused_in_one_line(
        tmp_path: Path, shape: str, line: int, words: list[str]) -> None:
    cfg = dict(CFG, games=5, seed=4)
    run_trial(TrialConfig(**cfg), tmp_path / "full")
    full = _lines(tmp_path / "full" / GAMES_FILE)
    other = json.loads(full[1])
    other["turns"] += 1
    lines = {"gap": [full[0], full[1], full[3]],
             "swap": [full[0], full[2], full[1]],
             "changed duplicate": [full[0], full[1],
                                   (json.dumps(other, sort_keys=True, separators=(",", ":"))
                                    + "\n").encode()],
             "garbage": [full[0], b"{oops\n", full[2]]}[shape]
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(tmp_path / "full" / "trial.json", run / "trial.json")
    (run / GAMES_FILE).write_bytes(b"".join(lines))
    before = (run / GAMES_FILE).read_bytes()
    with pytest.raises(TrialError) as info:
        run_trial(TrialConfig(**cfg), run)
    message = str(info.value)
    assert "\n" not in message and f"{run / GAMES_FILE} line {line}" in message, message
    for word in words:
        assert word in message, (word, message)
    assert (run / GAMES_FILE).read_bytes() == before  # refused: untouched


# --- finding 4: --fresh deletes only what the sweep made -------------------------------------
def test_4_fresh_keeps_files_the_sweep_did_not_make(tmp_path: Path) -> None:
    """Failed before: --fresh removed the whole --out folder, unrelated files included."""
    out = tmp_path / "sweep"
    args = ["agent=random", "per_cell=0", "controls=1", "games=2",
            "workers=1", f"out={out}"]
    assert detection_sweep.main(args) == 0
    trial = next(out.rglob("games.jsonl")).parent
    (trial / "stale.txt").write_text("from the last sweep")
    (out / "notes.txt").write_text("mine")
    (out / "mine").mkdir()
    (out / "mine" / "data.csv").write_text("1,2\n")
    assert detection_sweep.main([*args, "fresh=true"]) == 0
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "mine" / "data.csv").read_text() == "1,2\n"
    assert not (trial / "stale.txt").exists()  # the sweep's own trial was made afresh
    assert (trial / "games.jsonl").exists() and (out / "sweep.json").exists()


def test_4_fresh_refuses_a_folder_holding_trials_it_did_not_make(tmp_path: Path,
                                                                 capsys) -> None:
    out = tmp_path / "sweep"
    args = ["agent=random", "per_cell=0", "controls=1", "games=2",
            "workers=1", f"out={out}"]
    assert detection_sweep.main(args) == 0
    for marker in out.rglob(".made-by-sweep"):  # as a folder from elsewhere would be
        marker.unlink()
    before = sorted(str(p) for p in out.rglob("*"))
    capsys.readouterr()
    assert detection_sweep.main([*args, "fresh=true"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "fresh=true" in err[0], err
    assert sorted(str(p) for p in out.rglob("*")) == before


# --- finding 7: edited results are named -----------------------------------------------------
def _edit(path: Path, index: int, change) -> None:
    lines = _lines(path)
    record = json.loads(lines[index])
    change(record)
    lines[index] = (json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n").encode()
    path.write_bytes(b"".join(lines))


def test_7_a_flipped_result_is_named_when_the_summary_is_rebuilt(tmp_path: Path) -> None:
    """Failed before: flipping `won` in game 1 and deleting summary.json gave a summary
    with one more win, silently."""
    cfg = TrialConfig(**CFG, games=4, seed=1)
    summary = run_trial(cfg, tmp_path)
    assert summary["wins"] < 4
    lost = next(i for i, ln in enumerate(_lines(tmp_path / GAMES_FILE))
                if not json.loads(ln)["won"])
    _edit(tmp_path / GAMES_FILE, lost, lambda r: r.update(won=True))
    (tmp_path / SUMMARY_FILE).unlink()
    with pytest.raises(TrialError) as info:
        run_trial(cfg, tmp_path)
    message = str(info.value)
    assert f"game {lost}" in message and "\n" not in message, message
    assert not (tmp_path / SUMMARY_FILE).exists()


def _verify(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evaluation.verify", *args], env=ENV,
                          capture_output=True, text=True, timeout=120)


def test_7_verify_names_an_edit_a_deletion_and_a_reordering(tmp_path: Path) -> None:
    run_trial(TrialConfig(**CFG, games=5, seed=2), tmp_path / "run")
    run = tmp_path / "run"
    ok = _verify(str(run))
    assert ok.returncode == 0 and ok.stdout.startswith("ok: "), ok
    clean = (run / GAMES_FILE).read_bytes()
    lines = _lines(run / GAMES_FILE)
    cases = {"edit": (lambda: _edit(run / GAMES_FILE, 3, lambda r: r.update(turns=1)), "game 3"),
             "delete": (lambda: (run / GAMES_FILE).write_bytes(b"".join(lines[:2] + lines[3:])),
                        "game 2"),
             "reorder": (lambda: (run / GAMES_FILE).write_bytes(
                 b"".join([lines[0], lines[2], lines[1], *lines[3:]])), "game 1"),
             "last line": (lambda: (run / GAMES_FILE).write_bytes(b"".join(lines[:4])),
                           "summary")}
    for name, (spoil, word) in cases.items():
        spoil()
        res = _verify(str(run))
        assert res.returncode == 1, (name, res)
        assert word in res.stdout + res.stderr, (name, res)
        (run / GAMES_FILE).write_bytes(clean)
    assert _verify(str(run)).returncode == 0
    bad = _verify(str(tmp_path / "nothing"))
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr


def test_7_folders_without_digests_still_load(tmp_path: Path, capsys) -> None:
    """A games.jsonl written before digests: resumed and summarized as it is, with a
    warning; `verify` says it cannot be checked."""
    cfg = dict(CFG, games=5, seed=3)
    run_trial(TrialConfig(**cfg), tmp_path / "full")
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(tmp_path / "full" / "trial.json", run / "trial.json")
    old = []
    for ln in _lines(tmp_path / "full" / GAMES_FILE)[:3]:
        record = json.loads(ln)
        record.pop("digest", None)
        old.append((json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n").encode())
    (run / GAMES_FILE).write_bytes(b"".join(old))
    capsys.readouterr()
    summary = run_trial(TrialConfig(**cfg), run)
    assert summary["games"] == 5
    assert "no digests" in capsys.readouterr().err
    assert all("digest" not in json.loads(ln) for ln in _lines(run / GAMES_FILE))
    res = _verify(str(run))
    assert res.returncode == 1 and "no digests" in res.stdout


def test_7_a_game_from_another_trial_is_named(tmp_path: Path) -> None:
    """The chain starts from trial.json (canonical: same games, same bytes, however the
    configuration was spelled); a record moved in from another trial fails on its seed."""
    run_trial(TrialConfig(**CFG, games=3, seed=1), tmp_path / "a")
    run_trial(TrialConfig(**CFG, games=3, seed=2), tmp_path / "b")
    shutil.copy(tmp_path / "b" / GAMES_FILE, tmp_path / "a" / GAMES_FILE)
    res = _verify(str(tmp_path / "a"))
    assert res.returncode == 1 and "line 1 (game 0)" in res.stdout and "another trial" in res.stdout


# --- the checker itself, on any damage --------------------------------------------------------
IDENT = {"seed": 7}


def _chain(n: int) -> list[bytes]:
    out, head = [], records.chain_start(IDENT)  # the chain starts from trial.json
    for g in range(n):
        text, head = records.line({"game": g, "seed": records.game_seed(7, g), "won": g % 2 == 0},
                                  head)
        out.append(text.encode())
    return out


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 8), data=st.data())
def test_load_keeps_every_intact_record_or_names_a_line(tmp_path_factory, n: int, data) -> None:
    """Whatever is done to a chain (lines repeated, dropped, swapped, edited, a torn tail):
    `load` returns a prefix of the true records whose lines are the true lines, or refuses
    naming a line; exact repeats and a torn tail are the only things it repairs."""
    lines = _chain(n)
    damaged = list(lines)
    ops = data.draw(st.lists(st.sampled_from(["repeat", "drop", "swap", "edit"]), max_size=3))
    for op in ops:
        i = data.draw(st.integers(0, len(damaged) - 1)) if damaged else 0
        if not damaged:
            break
        if op == "repeat":
            damaged.insert(i, damaged[i])
        elif op == "drop":
            del damaged[i]
        elif op == "swap" and i + 1 < len(damaged):
            damaged[i], damaged[i + 1] = damaged[i + 1], damaged[i]
        elif op == "edit":
            damaged[i] = damaged[i].replace(b'"won":true', b'"won":false')
    tail = data.draw(st.binary(max_size=30).filter(lambda b: b"\n" not in b))
    path = tmp_path_factory.mktemp("g") / GAMES_FILE
    path.write_bytes(b"".join(damaged) + tail)
    try:
        games = records.load(path, IDENT)
    except records.RecordsError as exc:
        assert str(path) in str(exc) and " line " in str(exc) and "\n" not in str(exc)
        return
    k = len(games.records)
    assert [ln.encode() for ln in games.lines] == lines[:k]
    assert games.head == (records.chain_start(IDENT) if k == 0
                          else games.records[-1]["digest"])
    assert games.torn == bool(tail)
    # Only repeats and the tail were dropped: the file held exactly these lines otherwise.
    unique = [ln for j, ln in enumerate(damaged) if j == 0 or ln != damaged[j - 1]]
    assert unique == lines[:k]
