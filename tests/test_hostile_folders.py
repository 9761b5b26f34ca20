"""A folder someone sends you cannot hurt you (issue 52, findings 1-4 and 6): links and
special files in a run folder, forged measures, report-less "complete" runs, a sweep's
`fresh=true` and script in the pages."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

import openmono
from evaluation.reports import replay, replay_page
from openmono.schema import GameSchema


# --- finding 6: script in replay-K.html and compare.html ---------------------------------------
class _Tags(HTMLParser):
    """Every start tag and its attributes, as a browser's parser would see them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def _tags(page: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def _no_script_injected(page: str) -> None:
    """No element or event handler that the page's own template does not hold."""
    for tag, attrs in _tags(page):
        assert tag != "img", (tag, attrs)
        assert not any(name.startswith("on") for name, _ in attrs), (tag, attrs)


PAYLOAD = '"><img src=x onerror=alert(1)>'


def test_a_crafted_log_runs_no_script_in_the_replay() -> None:
    schema = json.loads(openmono.standard_schema().to_json())
    schema["groups"][0]["color"] = "#fff" + PAYLOAD
    street = next(i for i, s in enumerate(schema["squares"]) if s.get("group"))
    schema["squares"][street]["price"] = PAYLOAD
    header = {"type": "header", "seed": PAYLOAD, "players": 2, "seats": [0, 1],
              "schema": schema}
    before = json.loads(openmono.standard_schema().to_json())
    before["groups"][0]["color"] = "#000" + PAYLOAD
    page = replay_page.render(header, [], None, {"title": "t", "notes": []}, before)
    _no_script_injected(page)


def test_a_group_colour_must_be_a_colour() -> None:
    data = json.loads(openmono.standard_schema().to_json())
    data["groups"][0]["color"] = "#fff" + PAYLOAD
    with pytest.raises(ValueError, match="#rrggbb"):
        GameSchema.model_validate(data)
    for good in ("", "#abc", "#A1b2C3", "navy"):
        data["groups"][0]["color"] = good
        assert GameSchema.model_validate(data).groups[0].color == good


def test_a_log_named_with_a_non_ascii_digit_is_not_a_kept_game(tmp_path: Path) -> None:
    logs = tmp_path / replay.LOGS
    logs.mkdir()
    for name in ("game-².jsonl", "game-٣.jsonl", "game-01.jsonl", "game-4.jsonl"):
        (logs / name).write_text("")
    assert replay.kept_games(tmp_path) == [4]


def test_a_run_folder_named_javascript_is_no_link_to_script(tmp_path: Path) -> None:
    from evaluation.reports import compare_html

    trial = tmp_path / "javascript:alert(1)"
    trial.mkdir()
    (trial / "report.html").write_text("")
    summary = {"agent": "random", "novelty": "none", "games": 1, "seed": 0, "_dir": str(trial)}
    page = compare_html.render([], [summary], tmp_path)
    hrefs = [v for tag, attrs in _tags(page) if tag == "a" for k, v in attrs if k == "href"]
    assert len(hrefs) == 1
    assert ":" not in hrefs[0].split("/")[0], hrefs
    assert (tmp_path / __import__("urllib.parse").parse.unquote(hrefs[0])).exists()


# --- finding 4: fresh=true deletes only this sweep's own trials ----------------------------------
SWEEP = ["agent=random", "per_cell=0", "controls=1", "games=2", "workers=1"]


def _tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): None if p.is_dir() else p.read_bytes()
            for p in sorted(root.rglob("*"))}


def test_fresh_keeps_other_sweeps_and_stray_marks(tmp_path: Path) -> None:
    from evaluation.sweeps import detection_sweep
    from evaluation.sweeps import detection_folders

    root = tmp_path / "detection_sweep"
    other = root / "passive"  # another agent's sweep, under this one's out=
    assert detection_sweep.main([*SWEEP, "agent=passive", f"out={other}"]) == 0
    stray = root / "precious"
    stray.mkdir()
    (stray / detection_folders.MARK).touch()  # a stray mark is no licence to delete
    (stray / "data.csv").write_text("1,2\n")
    kept = {**{f"passive/{k}": v for k, v in _tree(other).items()},
            **{f"precious/{k}": v for k, v in _tree(stray).items()}}
    assert detection_sweep.main([*SWEEP, f"out={root}"]) == 0
    trial = next(p.parent for p in root.glob("control/*/*/games.jsonl"))
    (trial / "stale.txt").write_text("from the last run of this sweep")
    assert detection_sweep.main([*SWEEP, f"out={root}", "fresh=true"]) == 0
    after = _tree(root)
    assert {k: after.get(k) for k in kept} == kept
    assert not (trial / "stale.txt").exists() and (trial / "games.jsonl").exists()


def test_fresh_refuses_another_agents_trial_where_it_would_play(tmp_path: Path,
                                                                capsys) -> None:
    from evaluation.sweeps import detection_sweep

    out = tmp_path / "sweep"
    assert detection_sweep.main([*SWEEP, "agent=passive", f"out={out}"]) == 0
    before = _tree(out)
    capsys.readouterr()
    assert detection_sweep.main([*SWEEP, f"out={out}", "fresh=true"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "passive" in err[0], err
    assert _tree(out) == before


# --- finding 3: "complete" only with its report -------------------------------------------------
FAST = ["agent=random", "opponents=[random,random,random]", "reference=random",
        "progress=false", "plots=false", "games=3", "novelty=rent_hike", "inject_at=1"]


def _killed_before_its_report(run: Path, capsys) -> None:
    """The folder a kill between summary.json and the report leaves (and the temporary
    files killed atomic writes leave)."""
    from evaluation.trials import trial as trial_cli

    assert trial_cli.cli([*FAST, f"hydra.run.dir={run}"]) == 0
    capsys.readouterr()
    for name in ("report.md", "report.html", "command.json", *(
            p.name for p in run.glob("replay-*.html"))):
        (run / name).unlink()
    (run / ".report.md.99999999-1.tmp").write_text("half a rep")
    (run / "logs" / ".game-1.jsonl.99999999-1.tmp").write_text("half a lo")


@pytest.mark.parametrize("how", ["missing", "older"])
def test_a_trial_killed_before_its_report_gets_it_on_the_next_run(tmp_path: Path, capsys,
                                                                  how: str) -> None:
    import os

    from evaluation.trials import trial as trial_cli

    run = tmp_path / "run"
    _killed_before_its_report(run, capsys)
    if how == "older":  # a report from before the summary was last written
        for name in ("report.md", "report.html"):
            (run / name).write_text("old")
            os.utime(run / name, ns=(1, 1))
    assert trial_cli.cli([*FAST, f"hydra.run.dir={run}"]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("complete: 3 ") and "report" in said.err, said
    assert "NDA" in (run / "report.html").read_text()
    assert (run / "report.md").read_text().startswith("# Trial report")
    assert all((run / f"replay-{g}.html").exists() for g in replay.kept_games(run))
    assert (run / "command.json").exists()
    assert not [p for p in run.rglob("*.tmp")]


# --- finding 1: links and special files in a run folder -----------------------------------------
ROOT = Path(__file__).resolve().parents[1]


def _command(module: str, *args: str, cwd: Path) -> "subprocess.CompletedProcess[str]":
    """`python -m module args` with 3 GiB of address space: a file that never ends (a link
    to /dev/zero) gives MemoryError instead of taking the machine; the timeout is only a
    guard for a FIFO that would hang the old code forever, not a measure."""
    import os
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=120, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        pytest.fail(f"python -m {module} {' '.join(args)} hung")


def _one_line_refusal(proc: "subprocess.CompletedProcess[str]", *words: str) -> None:
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode != 0 and len(lines) == 1, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


LINK_ARGS = ["agent=random", "opponents=[random,random,random]", "reference=random",
             "progress=false", "plots=false", "games=2"]


def _partial_trial(tmp_path: Path, capsys) -> Path:
    """A trial folder its run left partial (its games, no summary: the next run resumes)."""
    from evaluation.trials import trial as trial_cli

    run = tmp_path / "run"
    assert trial_cli.cli([*LINK_ARGS, f"hydra.run.dir={run}"]) == 0
    capsys.readouterr()
    for name in ("summary.json", "command.json", "report.md", "report.html"):
        (run / name).unlink()
    return run


@pytest.mark.parametrize("where", [".lock", ".hydra/config.yaml", "logs"])
def test_a_link_in_a_run_folder_is_refused_before_anything_is_written(
        tmp_path: Path, capsys, where: str) -> None:
    import shutil

    run = _partial_trial(tmp_path, capsys)
    victim = tmp_path / "victim"
    if where == "logs":
        shutil.rmtree(run / "logs", ignore_errors=True)
        victim.mkdir()
        (victim / "mine.txt").write_text("precious\n")
    else:
        (run / where).unlink(missing_ok=True)
        victim.write_text("precious\n")
    (run / where).symlink_to(victim)
    before = _tree(tmp_path / "victim") if victim.is_dir() else victim.read_bytes()
    proc = _command("evaluation.trial", *LINK_ARGS, f"hydra.run.dir={run}", cwd=tmp_path)
    _one_line_refusal(proc, where, "link")
    assert proc.returncode == 2
    assert (_tree(victim) if victim.is_dir() else victim.read_bytes()) == before


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_special_games_file_is_refused_by_the_trial_and_verify(tmp_path: Path, capsys,
                                                                 special: str) -> None:
    import os

    run = _partial_trial(tmp_path, capsys)
    (run / "games.jsonl").unlink()
    if special == "fifo":
        os.mkfifo(run / "games.jsonl")
    else:
        (run / "games.jsonl").symlink_to(special)
    proc = _command("evaluation.trial", *LINK_ARGS, f"hydra.run.dir={run}", cwd=tmp_path)
    _one_line_refusal(proc, "games.jsonl")
    assert proc.returncode == 2
    proc = _command("evaluation.verify", str(run), cwd=tmp_path)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    said = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    assert len(said) == 1 and "games.jsonl" in said[0], said


# --- finding 2: verify recomputes the measures and binds the configuration ----------------------
VERIFIED = dict(agent="random", opponents=["random"] * 3, reference="random", progress=False,
                games=6, seed=4, novelty="rent_hike", difficulty="hard", inject_at=2)


@pytest.fixture(scope="module")
def verified_trial(tmp_path_factory) -> Path:
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig

    run = tmp_path_factory.mktemp("verified") / "run"
    run_trial(TrialConfig(**VERIFIED), run)
    return run


def _copy(run: Path, tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(run, tmp_path / "run", ignore=shutil.ignore_patterns(".lock"))
    return tmp_path / "run"


def _forged(value):
    """Another value of the same kind: what a forger would write instead."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if value is None:
        return 0.5
    return [value]


def _summary_fields() -> list[str]:
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return sorted(run_trial(TrialConfig(**{**VERIFIED, "games": 3, "inject_at": 1}),
                                Path(tmp) / "run"))


@pytest.mark.parametrize("field", [f for f in _summary_fields() if f != "seconds"])
def test_verify_names_any_forged_field_of_the_summary(verified_trial: Path, tmp_path: Path,
                                                      field: str) -> None:
    from evaluation.reports import verify

    run = _copy(verified_trial, tmp_path)
    assert verify.check_trial(run)[0] == verify.OK
    summary = json.loads((run / "summary.json").read_text())
    summary[field] = _forged(summary[field])
    (run / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    code, line = verify.check_trial(run)
    assert code == verify.TAMPERED and field in line and "\n" not in line, line


@pytest.mark.parametrize("change", [{"agent": "baseline"}, {"difficulty": "easy"},
                                    {"opponents": ["random"] * 2}, {"reference": None}])
def test_verify_names_an_edited_configuration(verified_trial: Path, tmp_path: Path,
                                              change: dict) -> None:
    """trial.json (and summary.json with it) edited: the chain starts from trial.json."""
    from evaluation.reports import verify

    run = _copy(verified_trial, tmp_path)
    for name in ("trial.json", "summary.json"):
        data = json.loads((run / name).read_text())
        data.update(change)
        (run / name).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    code, line = verify.check_trial(run)
    assert code == verify.TAMPERED and "trial.json" in line, line


def test_a_folder_of_the_older_chain_still_resumes_and_verifies(verified_trial: Path,
                                                              tmp_path: Path) -> None:
    """A games.jsonl whose chain starts from the constant of before (folders written
    until issue 52): resumed in its own format, and verify says it is the older one."""
    from evaluation.store import records
    from evaluation.reports import verify
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig

    run = _copy(verified_trial, tmp_path)
    head, lines = records.CHAIN_START, []
    for raw in (run / "games.jsonl").read_text().splitlines()[:4]:
        text, head = records.line(json.loads(raw), head)
        lines.append(text)
    (run / "games.jsonl").write_text("".join(lines))
    (run / "summary.json").unlink()
    run_trial(TrialConfig(**VERIFIED), run)
    code, line = verify.check_trial(run)
    assert code == verify.OK and "older format" in line.replace(str(run), "DIR"), line
    games = records.load(run / "games.jsonl", json.loads((run / "trial.json").read_text()))
    assert games.older and len(games.records) == VERIFIED["games"]
    assert games.head == json.loads((run / "summary.json").read_text())["games_digest"]


_COLOUR_SRC = '''
from novelties.base import Novelty, replace

class Paint(Novelty):
    name = "paint"
    category = "attribute"
    description = "repaints the first colour group with markup"
    presets = {"easy": {}, "medium": {}, "hard": {}}

    def apply(self, schema, params):
        first = replace(schema.groups[0], color='#fff"><img src=x onerror=alert(1)>')
        return replace(schema, groups=(first, *schema.groups[1:]))
'''


def test_a_plugin_painting_markup_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    from evaluation.trials import trial as trial_cli
    from novelties.testing import temporary_plugins

    run = tmp_path / "run"
    with temporary_plugins(tmp_path / "plugins", {"paintpkg": _COLOUR_SRC},
                           {"paint": "paintpkg:Paint"}, dist="paint"):
        code = trial_cli.cli([*LINK_ARGS, "novelty=paint", f"hydra.run.dir={run}"])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1, err
    assert "paint" in err[0] and "#rrggbb" in err[0] and "Traceback" not in err[0], err
    assert not (run / "games.jsonl").exists()


_PLAIN_SRC = '''
from novelties.base import Novelty

class Plain(Novelty):
    name = "plain"
    category = "attribute"
    description = "changes nothing"
    presets = {"easy": {}, "medium": {}, "hard": {}}

    def apply(self, schema, params):
        return schema
'''


def test_verify_without_the_trials_novelty_says_it_cannot_check(tmp_path: Path) -> None:
    """The measures depend on the novelty's ground truth: without its plugin `verify`
    says so in one line (exit 2) rather than vouching for the summary."""
    from evaluation.reports import verify
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_config import TrialConfig
    from novelties.testing import temporary_plugins

    with temporary_plugins(tmp_path / "plugins", {"plainpkg": _PLAIN_SRC},
                           {"plain": "plainpkg:Plain"}, dist="plain"):
        run_trial(TrialConfig(**{**VERIFIED, "novelty": "plain"}), tmp_path / "run")
        assert verify.check_trial(tmp_path / "run")[0] == verify.OK
    code, line = verify.check_trial(tmp_path / "run")
    assert code == verify.BAD_INPUT and "plain" in line and "\n" not in line, line


def test_a_link_in_a_sweep_folder_is_refused_before_hydra_writes(tmp_path: Path,
                                                                  capsys) -> None:
    from evaluation.trials import trial as trial_cli

    sweep = tmp_path / "sweep"
    sweep.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (sweep / "multirun.yaml").symlink_to(victim)
    code = trial_cli.cli(["--multirun", *LINK_ARGS, "seed=0,1", "hydra/launcher=local",
                          f"hydra.sweep.dir={sweep}"])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and "multirun.yaml" in err[0] and "link" in err[0], err
    assert victim.read_text() == "precious\n"
    assert sorted(p.name for p in sweep.iterdir()) == ["multirun.yaml"]


def test_compare_refuses_a_forged_summary(verified_trial: Path, tmp_path: Path,
                                          capsys) -> None:
    from evaluation.reports import compare

    run = _copy(verified_trial, tmp_path)
    assert compare.main([str(tmp_path)]) == 0
    summary = json.loads((run / "summary.json").read_text())
    summary["nda"] = 1 - summary["nda"]
    (run / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    capsys.readouterr()
    assert compare.main([str(tmp_path)]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "nda" in err[0] and err[0].startswith("error: "), err
