"""A trial option is declared once (`evaluation.harness.trial_config.TrialConfig`), and its
Hydra config, `--help`, command-line check and identity all come from there (issue 53);
trial folders written before the declaration moved still resume and verify."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.harness import config_store, trial_config
from evaluation.harness.trial_config import TrialConfig
from evaluation.harness.trial_folder import _trial_identity
from evaluation.trials import trial_args, trial_command, trial_keys
from evaluation.trials.composed import CommandError
from evaluation.trials.trial_help import trial_help

OLD_TRIAL = Path(__file__).with_name("old_trial")  # written by the code of 9f3e7db
FAST = ["agent=random", "opponents=[random,random,random]", "reference=random",
        "progress=false"]

# The identities (trial.json, less the novelty's preset) the code before the declaration
# (9f3e7db) gave these configurations: a folder it wrote must resume, so they must not move.
BEFORE = {
    "control": (dict(agent="random", opponents=["random"] * 3, games=5), {
        "agent": "random", "agent_params": {}, "detection": "system", "difficulty": "medium",
        "games": 5, "inject_at": None, "novelty": None, "novelty_params": {},
        "opponents": ["random", "random", "random"], "reference": "baseline",
        "rules": "standard", "seed": 0, "then": [], "window": [0.2, 0.6]}),
    "novelty": (dict(agent="baseline", novelty="rent_hike", difficulty="hard",
                     novelty_params={"factor": 3}, then=["go_salary:easy"], window=(0.1, 0.5),
                     inject_at=2, games=8, seed=7, observability="effects",
                     opponents_view="informed", reference=None, detection="given",
                     rules="gnome"), {
        "agent": "baseline", "agent_params": {}, "detection": "given", "difficulty": "hard",
        "games": 8, "inject_at": 2, "novelty": "rent_hike", "novelty_params": {"factor": 3},
        "observability": "effects", "opponents": ["baseline", "baseline", "baseline"],
        "opponents_view": "informed", "reference": None, "rules": "gnome", "seed": 7,
        "then": ["go_salary:easy"], "window": [0.1, 0.5]}),
    "shown": (dict(agent="baseline", novelty="rent_hike", observability="effects",
                   opponents_view="shown"), {
        "agent": "baseline", "agent_params": {}, "detection": "system", "difficulty": "medium",
        "games": 100, "inject_at": None, "novelty": "rent_hike", "novelty_params": {},
        "observability": "effects", "opponents": ["baseline", "baseline", "baseline"],
        "reference": "baseline", "rules": "standard", "seed": 0, "then": [],
        "window": [0.2, 0.6]}),
    "remote": (dict(agent="remote", agent_params={"token": "s1", "port": 7301},
                    opponents=["remote", "baseline"],
                    remote={"tokens": ["s2"], "port": 7302, "host": "127.0.0.1", "budget": 2.0,
                            "connect_timeout": 30.0}), {
        "agent": "remote", "agent_params": {"port": 7301, "token": "***"},
        "detection": "system", "difficulty": "medium", "games": 100, "inject_at": None,
        "novelty": None, "novelty_params": {}, "opponents": ["remote", "baseline"],
        "reference": "baseline", "remote": {"budget": 2.0, "connect_timeout": 30.0,
                                            "host": "127.0.0.1", "port": 7302, "tokens": "***"},
        "rules": "standard", "seed": 0, "then": [], "window": [0.2, 0.6]}),
    "isolated": (dict(agent="random", isolate=["agent", "opponent1"], isolate_budget=12.5,
                      isolate_memory=100, isolate_cpu=60, hook_budget=None, decision_budget=5.0,
                      keep_logs="all", progress=False, allow_huge=True, games=3, plots=False), {
        "agent": "random", "agent_params": {}, "detection": "system", "difficulty": "medium",
        "games": 3, "inject_at": None, "isolate": ["agent", "opponent1"],
        "isolate_budget": 12.5, "novelty": None, "novelty_params": {},
        "opponents": ["baseline", "baseline", "baseline"], "reference": "baseline",
        "rules": "standard", "seed": 0, "then": [], "window": [0.2, 0.6]}),
}


@pytest.mark.parametrize("case", sorted(BEFORE))
def test_the_identity_is_the_one_of_before(case: str) -> None:
    """Byte for byte as written (an int stays an int): the records' chain starts from it."""
    config, before = BEFORE[case]
    ident = _trial_identity(TrialConfig(**config))
    assert ("novelty_preset" in ident) == (config.get("novelty") is not None)
    ident.pop("novelty_preset", None)
    assert json.dumps(ident, sort_keys=True) == json.dumps(before, sort_keys=True)


def test_the_hydra_config_is_the_one_of_before(tmp_path: Path, monkeypatch) -> None:
    """What conf/trial.yaml composed before the options moved into the declaration (the
    planner's own options aside: they are the agent's)."""
    from omegaconf import OmegaConf

    monkeypatch.chdir(tmp_path)
    composed = OmegaConf.to_container(trial_keys._compose([], hydra_config=False))
    assert composed.pop("agent")["name"] == "planner"
    assert composed == {
        "allow_huge": False, "decision_budget": 60.0, "detection": "system", "games": 100,
        "hook_budget": 10.0, "inject_at": None, "isolate": "none", "isolate_budget": 30.0,
        "isolate_cpu": 86400, "isolate_memory": 4096, "keep_logs": "novelty",
        "novelty": {"difficulty": None, "name": "none", "observability": "announced",
                    "opponents": "informed", "params": {}},
        "opponents": ["baseline", "baseline", "baseline"], "plots": True, "progress": True,
        "reference": "baseline", "remote": {"budget": 2.0, "connect_timeout": 30.0,
                                            "host": "127.0.0.1", "port": 7300,
                                            "token_files": [], "tokens": []},
        "rules": "standard", "seed": 0, "then": [], "window": [0.2, 0.6]}


def test_a_folder_written_before_resumes_and_verifies(tmp_path: Path, monkeypatch,
                                                      capsys) -> None:
    """A trial folder the code of before wrote (tests/old_trial: 3 games, of which the
    last is cut here) resumes under its own command, to the same games and summary, and
    `verify` finds it intact; its trial.json is not rewritten."""
    from evaluation.reports import verify
    from evaluation.trials import trial

    run = tmp_path / "run"
    shutil.copytree(OLD_TRIAL, run)
    games = (run / "games.jsonl").read_text().splitlines(keepends=True)
    (run / "games.jsonl").write_text("".join(games[:2]))
    (run / "summary.json").unlink()
    monkeypatch.chdir(tmp_path)
    code = trial.cli(["agent=random", "opponents=[random,random,random]", "reference=random",
                      "games=3", "seed=5", "progress=false", "plots=false", "keep_logs=none",
                      f"out={run}"])
    assert code == 0, capsys.readouterr().err
    assert (run / "trial.json").read_bytes() == (OLD_TRIAL / "trial.json").read_bytes()
    assert (run / "games.jsonl").read_text() == "".join(games)
    old, new = (json.loads((d / "summary.json").read_text()) for d in (OLD_TRIAL, run))
    old.pop("seconds"), new.pop("seconds")
    assert new == old
    assert verify.check_trial(run)[0] == verify.OK


# --- one declaration: an option added there is everywhere ---------------------------------------
@pytest.fixture(params=[True, False], ids=["names-the-trial", "does-not"])
def dummy(request, monkeypatch) -> bool:
    """TrialConfig with one more option, `dummy_option: int = 7`, declared as an option
    is (the one place); everything derived is asked afresh."""
    extended = dataclasses.make_dataclass(
        "TrialConfig", [("dummy_option", int, trial_config.option(
            7, "a dummy option for the test", identity=request.param))],
        bases=(trial_config.TrialConfig,))
    monkeypatch.setattr(trial_config, "TrialConfig", extended)
    monkeypatch.setattr(trial_keys, "_BASE_KEYS", {})
    config_store._registered = None  # (stored afresh, and again after the test)
    yield request.param
    config_store._registered = None


def test_a_new_option_is_in_the_config_help_identity_and_hydra(dummy: bool, tmp_path: Path,
                                                               monkeypatch) -> None:
    from omegaconf import OmegaConf

    monkeypatch.chdir(tmp_path)
    assert "dummy_option=7" in trial_help()
    composed = OmegaConf.to_container(trial_keys._compose([], hydra_config=False))
    assert composed["dummy_option"] == 7
    job = trial_args.check_command([*FAST, "games=2", "dummy_option=9"]).jobs[0]
    assert job.config.dummy_option == 9
    assert trial_args.check_command([*FAST, "games=2"]).jobs[0].config.dummy_option == 7
    assert ("dummy_option" in _trial_identity(job.config)) is dummy
    assert ("dummy_option" in trial_config.not_identity()) is not dummy
    assert ("dummy_option" in config_store.exclude_keys()) is not dummy
    assert any("dummy_option=9".startswith(w) for w in trial_command.not_naming()) is not dummy
    with pytest.raises(CommandError, match="dummy_option must be an integer"):
        trial_args.check_command([*FAST, "games=2", "dummy_option=abc"])


def test_the_identity_lists_agree() -> None:
    """The options a folder's name leaves out are those its identity leaves out."""
    names = set(trial_config.not_identity())
    assert names == {"progress", "allow_huge", "hook_budget", "decision_budget",
                     "isolate_memory", "isolate_cpu", "keep_logs", "plots"}
    assert names <= set(config_store.exclude_keys())
    assert {f"{n}=" for n in names} <= set(trial_command.not_naming())
    ident = _trial_identity(TrialConfig(agent="random"))
    assert not names & set(ident)


# --- the command line --------------------------------------------------------------------------
def test_help_lists_every_option_with_its_default(capsys) -> None:
    from evaluation.trials import trial

    assert trial.cli(["--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: python -m evaluation.trial")
    for name, opt in trial_config.declared():
        shown = (opt.name or name).replace(".KEY", ".KEY=")
        assert shown in text, shown
    assert "isolate=none" in text and "novelty=none" in text and "out=" in text
    assert "== Config ==" not in text  # (Hydra's raw dump: --hydra-help, --cfg job)


def test_out_names_the_run_folder(tmp_path: Path, monkeypatch) -> None:
    """docs/evaluation.md: every command takes out=; a trial refused it."""
    monkeypatch.chdir(tmp_path)
    job = trial_args.check_command([*FAST, "games=2", "out=here/run"]).jobs[0]
    assert job.out_dir == Path("here/run")
    sweep = trial_args.check_command(["--multirun", *FAST, "games=2", "seed=0,1",
                                      "out=here/sweep"])
    assert sweep.sweep_dir == Path("here/sweep")
    assert [j.out_dir.parent for j in sweep.jobs] == [Path("here/sweep")] * 2
    for bad, word in (("out=", "empty"), ("out= ", "empty")):
        with pytest.raises(CommandError, match=word):
            trial_args.check_command([*FAST, bad])
    with pytest.raises(CommandError, match="give one"):
        trial_args.check_command([*FAST, "out=a", "hydra.run.dir=b"])
    assert list(tmp_path.iterdir()) == []


def test_a_job_folder_named_with_decision_budget_is_found_again(tmp_path: Path) -> None:
    """decision_budget and the isolate limits named sweep job folders until they were left
    out with the other options that change no games: such a folder is used again."""
    from evaluation.harness.trial_spelling import sweep_subdir

    name = "agent=random,seed=0"
    assert sweep_subdir(str(tmp_path), name, ["seed=0", "decision_budget=5"]) == name
    (tmp_path / "agent=random,decision_budget=5,seed=0").mkdir()
    assert sweep_subdir(str(tmp_path), name, ["agent=random", "seed=0", "decision_budget=5"]) \
        == "agent=random,decision_budget=5,seed=0"
    (tmp_path / name).mkdir()
    assert sweep_subdir(str(tmp_path), name, ["decision_budget=5"]) == name


# --- the identity, for any configuration --------------------------------------------------------
_NAMES = st.sampled_from(["baseline", "random", "passive"])


@st.composite
def _configs(draw) -> TrialConfig:
    games = draw(st.integers(1, 1000))
    lo = draw(st.floats(0, 1))
    return TrialConfig(
        agent=draw(_NAMES), opponents=draw(st.lists(_NAMES, min_size=1, max_size=3)),
        games=games, seed=draw(st.integers(0, 10**9)),
        window=(lo, draw(st.floats(lo, 1))),
        inject_at=draw(st.none() | st.integers(0, games - 1)),
        detection=draw(st.sampled_from(["system", "given"])),
        reference=draw(st.none() | _NAMES), rules=draw(st.sampled_from(["standard", "gnome"])),
        observability=draw(st.sampled_from(["announced", "effects"])),
        opponents_view=draw(st.sampled_from(["informed", "shown"])),
        isolate=draw(st.lists(st.sampled_from(["agent", "opponent1"]), unique=True)),
        isolate_budget=draw(st.floats(0.5, 100)),
        progress=draw(st.booleans()), plots=draw(st.booleans()),
        hook_budget=draw(st.none() | st.floats(0.5, 100)),
        keep_logs=draw(st.sampled_from(["novelty", "none", True])))


@settings(max_examples=60, deadline=None)
@given(_configs(), _configs())
def test_the_identity_is_the_games_options_and_reads_back(cfg: TrialConfig,
                                                          other: TrialConfig) -> None:
    """trial.json reads back into the same trial (`verify` and `compare` rebuild it so), and
    the options that do not change the games do not change it."""
    from evaluation.harness.summary import config_of

    cfg.validate()
    ident = _trial_identity(cfg)
    assert _trial_identity(config_of(ident)) == ident
    quiet = {name: getattr(other, name) for name in
             ("progress", "plots", "hook_budget", "keep_logs", "allow_huge", "decision_budget",
              "isolate_memory", "isolate_cpu")}
    assert _trial_identity(dataclasses.replace(cfg, **quiet)) == ident
