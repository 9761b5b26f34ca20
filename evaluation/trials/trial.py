"""`python -m evaluation.trial`: one SAIL-ON trial, configured with Hydra.

    python -m evaluation.trial novelty=rent_hike
    python -m evaluation.trial agent=baseline novelty=rent_hike novelty.difficulty=hard \
        novelty.params.factor=3 games=30 seed=1
    python -m evaluation.trial --multirun agent=baseline,random novelty=rent_hike,none \
        seed=0,1 hydra/launcher=local

Writes games.jsonl, summary.json, report.md, report.html and plots into Hydra's run
directory (`out=DIR` names it; re-running into it resumes; a finished trial only says
"complete") and prints the summary as a small table. The whole command line is checked
before Hydra starts (`evaluation.trials.trial_args`), so a refused command writes nothing;
`--debug` shows tracebacks; `--help` lists the options (`evaluation.trials.trial_help`).
The old spelling `trial.games=30` (the trial's options were a `trial:` group) is read as
`games=30`, with a note (`evaluation.harness.trial_spelling`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evaluation.harness.trial_config import TrialConfig


def config_from_hydra(cfg: Any) -> TrialConfig:
    from omegaconf import OmegaConf

    from evaluation.trials.composed import trial_config

    data: dict[str, Any] = OmegaConf.to_container(cfg, resolve=True)  # type: ignore[assignment]
    data.pop("hydra", None)
    return trial_config(data)[0]


def _debug() -> bool:
    return os.environ.get("HYDRA_FULL_ERROR") == "1"


def run_job(cfg: Any) -> None:
    """The Hydra task: play or resume one trial into the run directory."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from evaluation.trials import sweep_guard
    from evaluation.reports.report import print_summary, write_report
    from evaluation.harness.trial_config import TrialError
    from evaluation.trials.composed import CommandError

    hc = HydraConfig.get()
    out_dir = Path(hc.runtime.output_dir)
    multirun = hc.mode == RunMode.MULTIRUN
    log = None
    if multirun:
        sweep_guard.watch_parent()
        log = (out_dir / "trial.log").open("a", encoding="utf-8")
    with contextlib.ExitStack() as stack:
        if log is not None:
            stack.enter_context(log)
            stack.enter_context(contextlib.redirect_stdout(log))
            stack.enter_context(contextlib.redirect_stderr(log))
        try:
            summary = _play_or_answer(cfg, out_dir, multirun, stack)
            if summary is None:
                return
        except KeyboardInterrupt:
            # Ctrl-C, or an agent raising KeyboardInterrupt (the two look alike): one line,
            # not a traceback; every finished game is already on disk.
            if _debug():
                traceback.print_exc()
            line = (f"interrupted: the {_recorded(out_dir)} recorded games in {out_dir} are "
                    "kept; re-run the same command to resume")
            print(line, file=sys.stderr)
            if multirun:  # (stderr is the trial's log)
                print(line, file=sys.__stderr__)
            sys.exit(130)
        except (TrialError, CommandError) as exc:
            if _debug():
                traceback.print_exc()
            print(f"error: {exc}", file=sys.stderr)
            if multirun:
                print(f"error: {out_dir}: {exc}", file=sys.__stderr__)
                return
            sys.exit(2)
        write_report(str(out_dir), summary, plots=bool(cfg.plots))
        print_summary(summary, str(out_dir))
        if not multirun:
            _remember_command(out_dir, sys.argv[1:])


def _play_or_answer(cfg: Any, out_dir: Path, multirun: bool,
                    stack: contextlib.ExitStack) -> dict[str, Any] | None:
    """The trial played (or resumed) into `out_dir`, held by this run through `stack`:
    its summary; None when the folder already holds it finished (its report written
    again if a kill left none)."""
    from evaluation.reports.report import write_report
    from evaluation.store.report_files import report_current
    from evaluation.harness.runner import run_trial
    from evaluation.harness.trial_folder import complete_summary, trial_lock

    tcfg = config_from_hydra(cfg)
    if multirun:
        tcfg.progress = False
    # One run per folder, until its report is written (evaluation.store.folder_lock).
    stack.enter_context(trial_lock(out_dir))
    done = complete_summary(tcfg, out_dir)
    if done is not None:
        if not report_current(out_dir):  # killed before its report was written
            write_report(str(out_dir), done, plots=bool(cfg.plots))
            print(f"wrote the report of {out_dir} again: the last run stopped "
                  "before it was written", file=sys.stderr)
            if not multirun:
                _remember_command(out_dir, sys.argv[1:])
        print(f"complete: {done['games']} of {tcfg.games} games in {out_dir}")
        return None
    return run_trial(tcfg, out_dir)


def _recorded(out_dir: Path) -> int:
    """How many finished games `out_dir` holds (its complete lines)."""
    try:
        return (out_dir / "games.jsonl").read_bytes().count(b"\n")
    except OSError:
        return 0


# --- a finished trial answers at once ----------------------------------------------------------
COMMAND_FILE = "command.json"


def _normal(argv: list[str]) -> list[str]:
    """The arguments that make the trial, secrets left out (they never reach a file)."""
    from evaluation.harness.secret_args import is_secret

    return sorted(a for a in argv if a != "--debug" and not is_secret(a))


def _remember_command(out_dir: Path, argv: list[str]) -> None:
    from evaluation.store.atomic import atomic_write

    atomic_write(out_dir / COMMAND_FILE, json.dumps({"argv": _normal(argv)}) + "\n")


def _guess_run_dir(argv: list[str]) -> Path | None:
    """The run folder of a plain command, from the conf's template (None if unsure)."""
    opts = {}
    for a in argv:
        if a.startswith("-") or "=" not in a:
            return None
        k, _, v = a.partition("=")
        opts[k] = v
    if "hydra.run.dir" in opts:
        return Path(opts["hydra.run.dir"])
    from evaluation.harness.trial_spelling import trial_dir

    return Path(trial_dir(opts.get("agent", "planner"), opts.get("novelty", "none"),
                          opts.get("novelty.difficulty"), opts.get("seed", "0")))


def finished(argv: list[str]) -> Path | None:
    """The folder of this very command's finished trial, without loading Hydra or agents."""
    from evaluation.store.atomic import read_regular
    from evaluation.store.folder_lock import unsafe_entry

    run_dir = _guess_run_dir([a for a in argv if a != "--debug"])
    if run_dir is None or unsafe_entry(run_dir):  # (refused once the command is checked)
        return None
    try:
        said = json.loads(read_regular(run_dir / COMMAND_FILE).decode("utf-8"))
        summary = json.loads(read_regular(run_dir / "summary.json").decode("utf-8"))
        games = read_regular(run_dir / "games.jsonl").count(b"\n")
    except (OSError, ValueError):
        return None
    from evaluation.harness.trial_spelling import modern

    from evaluation.store.report_files import report_current

    recorded = said.get("argv")
    if not isinstance(recorded, list) or games != summary.get("games") or (
            _normal(modern(recorded)[0]) != _normal(argv)) or not report_current(run_dir):
        return None
    return run_dir


# --- the command ---------------------------------------------------------------------------
def _hydra_main(argv: list[str]) -> None:
    import hydra

    from evaluation.harness.config_store import register_groups

    register_groups()
    sys.argv = [sys.argv[0], *argv]
    conf = str(Path(__file__).resolve().parents[2] / "conf")  # (as a file, wherever run_job is)
    hydra.main(version_base=None, config_path=conf, config_name="trial")(run_job)()


def cli(argv: list[str]) -> int:
    argv, code = _answered_at_once(argv)
    if code is not None:
        return code
    from evaluation.harness.secret_args import is_secret
    from evaluation.trials.composed import CommandError
    from evaluation.trials.trial_args import check_command, hide_secrets

    try:
        cmd = check_command(argv)
        hide_secrets(cmd)
    except CommandError as exc:
        if _debug():
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    code = _answered_before_hydra(cmd)
    if code is not None:
        return code
    if cmd.multirun and not cmd.info:
        from evaluation.trials import sweep_guard

        return sweep_guard.run_sweep(cmd, _hydra_main)
    _hydra_main([a for a in argv if a != "--debug" and not is_secret(a)])
    return 0


def _answered_at_once(argv: list[str]) -> tuple[list[str], int | None]:
    """The command in today's spelling (`out=` as Hydra's folder option), and the exit
    code when it is answered before any check: --help, a bad `out=`, or this very
    command's finished trial (None: go on)."""
    from evaluation.harness.trial_spelling import modern, note

    argv, old = modern(argv)
    if old:
        print(note(old), file=sys.stderr)
    if "--debug" in argv:
        os.environ["HYDRA_FULL_ERROR"] = "1"
    if any(a in ("--help", "-h", "help") for a in argv):  # (Hydra's own: --hydra-help)
        from evaluation.trials.trial_help import trial_help

        print(trial_help())
        return argv, 0
    if any(a.lstrip("+").startswith("out=") for a in argv):
        from evaluation.trials.composed import CommandError
        from evaluation.trials.trial_command import out_spelled

        try:
            argv = out_spelled(argv)
        except CommandError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return argv, 2
    done = finished(argv)
    if done is not None:
        summary = json.loads((done / "summary.json").read_text(encoding="utf-8"))
        print(f"complete: {summary['games']} games in {done} (summary.json, report.md, "
              "report.html); "
              "delete that folder to play the trial again")
        return argv, 0
    return argv, None


def _answered_before_hydra(cmd: Any) -> int | None:
    """The exit code of a checked command answered before Hydra starts: a sweep folder
    that is not safe to write (2), a single trial already finished (0), or an output
    folder that cannot be made (2); None: start Hydra."""
    if cmd.multirun and not cmd.info and cmd.sweep_dir is not None:
        from evaluation.store.folder_lock import unsafe_entry

        problem = unsafe_entry(cmd.sweep_dir)  # (each job's folder: `check_out_dir`)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    if not cmd.multirun and not cmd.info:
        from evaluation.store.report_files import report_current
        from evaluation.harness.trial_folder import complete_summary

        job = cmd.jobs[0]
        if complete_summary(job.config, job.out_dir) is not None and report_current(
                job.out_dir):
            # Finished: answer without starting Hydra, which would rewrite .hydra/ in it.
            # (Without a current report: Hydra's job writes it, under the folder's lock.)
            print(f"complete: {job.config.games} games in {job.out_dir} (summary.json, "
                  "report.md, report.html); delete that folder to play the trial again")
            return 0
    if not cmd.info:
        made = cmd.sweep_dir if cmd.multirun else cmd.jobs[0].out_dir
        try:  # the command is valid: its folder may be made now
            made.mkdir(parents=True, exist_ok=True)
            probe = made / f".write_test.{os.getpid()}"
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            print(f"error: cannot write to the output directory {str(made)!r}: "
                  f"{exc.strerror}", file=sys.stderr)
            return 2
    return None

if __name__ == "__main__":
    sys.exit(cli(sys.argv[1:]))
