"""Check a whole `evaluation.trial` command line before Hydra starts writing anything.

Hydra creates the run directory and writes `.hydra/*.yaml` into it before the app's own
code runs, so a refused run would otherwise touch (or create) output folders. Here the
overrides are parsed, every sweep is expanded, each job's configuration is composed
with Hydra's compose API (which writes nothing) and checked in full: unknown config
groups and options, unknown keys with or without `+`, types and ranges (each job's
configuration read into its TrialConfig: `evaluation.trials.composed`), the agent's and the
novelty's parameters, and the output folder (writable, and not holding another trial).
Every problem is one `CommandError` line naming the key, the value and what is valid.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Iterable

from evaluation.harness.secret_args import SECRET_KEYS, SECRETS_ENV, is_secret, other_spelling
from evaluation.harness.runner import (CONFIG_FILE, GAMES_FILE, TrialConfig, TrialError,
                                       read_identity, read_records)
from evaluation.harness.trial_config import default, not_identity
from evaluation.trials.composed import GROUPS, CommandError, trial_config  # noqa: F401

CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")
# Flags that only print something (Hydra runs no job for them): passed through as they are.
INFO_FLAGS = {"--help", "-h", "--hydra-help", "--version", "--cfg", "-c", "--info", "-i",
              "--shell-completion", "-sc", "--resolve", "--package", "-p"}
MULTIRUN_FLAGS = {"--multirun", "-m"}
DEBUG_FLAG = "--debug"


def not_naming() -> tuple[str, ...]:
    """The words that do not change a trial's results, so they do not name a sweep
    either (`startswith` prefixes)."""
    return (*(f"{name}=" for name in not_identity()), "hydra.", *SECRET_KEYS)


MAX_JOBS = 10_000


@dataclass
class Job:
    overrides: list[str]
    config: TrialConfig
    out_dir: Path
    plots: bool


@dataclass
class Command:
    overrides: list[str]
    multirun: bool = False
    debug: bool = False
    info: bool = False
    flags: list[str] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    sweep_dir: Path | None = None

    def hydra_argv(self) -> list[str]:
        """The arguments handed on to Hydra (the sweep folder made explicit)."""
        argv = list(self.flags) + list(self.overrides)
        if self.multirun and self.sweep_dir is not None and not _given(self.overrides,
                                                                      "hydra.sweep.dir"):
            argv.append(f"hydra.sweep.dir={self.sweep_dir}")
        return argv


def _given(overrides: Iterable[str], key: str) -> bool:
    return any(o.lstrip("+~").split("=", 1)[0] == key for o in overrides)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = get_close_matches(word, list(choices), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def split_argv(argv: list[str]) -> Command:
    cmd = Command(overrides=[])
    for arg in argv:
        if arg == DEBUG_FLAG:
            cmd.debug = True
        elif arg in MULTIRUN_FLAGS:
            cmd.multirun = True
            cmd.flags.append(arg)
        elif arg.startswith("-") and not arg.startswith(("--cfg=", "--package=", "--info=")):
            if arg in INFO_FLAGS:
                cmd.info = True
                cmd.flags.append(arg)
            else:
                raise CommandError(f"unknown flag {arg!r}; flags: --multirun (-m), --debug, "
                                   f"--help, --cfg job, --info")
        else:
            if arg.startswith(("--cfg=", "--package=", "--info=")):
                cmd.info = True
                cmd.flags.append(arg)
            else:
                cmd.overrides.append(arg)
    return cmd


# --- Hydra's pieces, loaded lazily -----------------------------------------------------------------
def _options(group: str) -> list[str]:
    from hydra.core.config_store import ConfigStore

    from evaluation.harness.config_store import register_groups

    register_groups()
    return sorted(n[: -len(".yaml")] for n in ConfigStore.instance().list(group))


def _parse(overrides: list[str]) -> list[Any]:
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    parser = OverridesParser.create()
    parsed = []
    for text in overrides:
        if "=" not in text and not text.startswith("~"):
            raise CommandError(f"expected key=value, got {text!r} (e.g. games=30)")
        try:
            parsed.extend(parser.parse_overrides([text]))
        except OverrideParseException as exc:
            first = str(exc).strip().splitlines()[0]
            raise CommandError(f"cannot read {text!r}: {first}") from None
    return parsed


def _values(ov: Any) -> list[str]:
    from hydra.core.override_parser.types import ValueType

    key = ov.key_or_group
    if ov.value_type is ValueType.GLOB_CHOICE_SWEEP:
        if key not in GROUPS:
            raise CommandError(f"glob() sweeps work for agent= and novelty= only, not {key}")
        return list(ov.value().filter(_options(key)))
    if ov.is_sweep_override():
        if ov.value_type is ValueType.INTERVAL_SWEEP:
            raise CommandError(f"{key}: interval() sweeps need an optimizing sweeper; "
                               "list the values (a,b,c) or use range(lo,hi)")
        return list(ov.sweep_string_iterator())
    return [ov.get_value_element_as_str()]


def expand(overrides: list[str], multirun: bool) -> list[list[str]]:
    """One override list per job (a plain run is one job); keys checked for groups."""
    lists: list[list[str]] = []
    for ov in _parse(overrides):
        key = ov.key_or_group
        if ov.is_delete() and not key.startswith("hydra"):
            raise CommandError(f"cannot delete {key!r} (~{key}); set it instead, e.g. "
                               f"{key}=null")
        values = [] if ov.is_delete() else _values(ov)
        values = [v.replace("\\:", ":") for v in values]  # Hydra escapes a colon it prints
        if len(values) > 1 and not multirun:
            raise CommandError(f"{key} has several values ({','.join(values)}): add "
                               "--multirun to sweep them")
        if key == "agent":
            _outside_agents(values)
        if key == "novelty":
            _outside_novelties(values)
        if key in GROUPS:
            options = _options(key)
            for v in values:
                if v not in options:
                    raise CommandError(f"unknown {key} {v!r}{did_you_mean(v, options)}; "
                                       f"choices: {', '.join(options)}")
        prefix = ov.get_key_element()
        lists.append([prefix] if ov.is_delete() else [f"{prefix}={v}" for v in values])
    jobs = [list(combo) for combo in itertools.product(*lists)]
    if len(jobs) > MAX_JOBS:
        raise CommandError(f"the sweep has {len(jobs)} jobs, more than {MAX_JOBS}")
    return jobs


# --- one job ------------------------------------------------------------------------------------
def _paths(node: Any, prefix: str = "") -> set[str]:
    out = set()
    for k, v in node.items():
        path = f"{prefix}{k}"
        out.add(path)
        if isinstance(v, dict) and k != "hydra":
            out |= _paths(v, path + ".")
    return out


_BASE_KEYS: dict[tuple[str, str], set[str]] = {}


def _compose(overrides: list[str], hydra_config: bool = True) -> Any:
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from evaluation.harness.config_store import register_groups

    register_groups()
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
            return compose("trial", overrides=overrides, return_hydra_config=hydra_config)
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
        first = lines[0] if lines else type(exc).__name__
        key = next((o.split("=")[0].lstrip("+~") for o in overrides
                    if o.split("=")[0].lstrip("+~") in first), None)
        if key and key.startswith("hydra") and "Could not override" in first:
            raise CommandError(f"unknown Hydra option {key!r}; see python -m evaluation.trial "
                               "--hydra-help") from None
        if key and "Could not find" in first:
            value = next((o.split("=", 1)[1] for o in overrides
                          if o.split("=")[0].lstrip("+~") == key), "?")
            choices = _group_choices(key)
            raise CommandError(f"unknown {key} {value!r}{did_you_mean(value, choices)}; "
                               f"choices: {', '.join(choices) or '(none found)'}") from None
        raise CommandError(first.rstrip(".")) from None
    finally:
        GlobalHydra.instance().clear()


def _group_choices(group: str) -> list[str]:
    """The options of a config group: this project's YAML files and Hydra's plugins'."""
    from hydra.core.config_store import ConfigStore

    names = {p.stem for p in (Path(CONF_DIR) / group).glob("*.yaml")}
    try:
        names |= {n.rsplit(".", 1)[0] for n in ConfigStore.instance().list(group)}
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    return sorted(names)


def _outside_agents(values: list[str]) -> None:
    """Unknown or broken agents fail here in one line listing the available ones, and
    `agent=module.path:ClassName` is loaded now, so it becomes a config option like a
    registered agent."""
    from agents.registry import UnknownAgentError, resolve

    for v in values:
        try:
            resolve(v)
        except UnknownAgentError as exc:
            raise CommandError(str(exc)) from None


def _outside_novelties(values: list[str]) -> None:
    """`novelty=module.path:ClassName` is loaded now (or refused in one line), so it
    becomes a config option like a plugin registered by an entry point."""
    from novelties.base import NoveltyError
    from novelties.registry import load_path

    for v in values:
        if ":" in v:
            try:
                load_path(v)
            except NoveltyError as exc:
                raise CommandError(str(exc)) from None


def _known_keys(agent: str, novelty: str) -> set[str]:
    """Every key path the configuration has with this agent and novelty."""
    from omegaconf import OmegaConf

    if (agent, novelty) not in _BASE_KEYS:
        cfg = _compose([f"agent={agent}", f"novelty={novelty}"], hydra_config=False)
        _BASE_KEYS[(agent, novelty)] = _paths(OmegaConf.to_container(cfg, resolve=False))
    return _BASE_KEYS[(agent, novelty)]


def _choice(job: list[str], group: str) -> str:
    for o in job:
        k, _, v = o.partition("=")
        if k.lstrip("+") == group:
            return v
    return str(default(group))


def _check_keys(job: list[str]) -> None:
    agent = _choice(job, "agent")
    novelty = _choice(job, "novelty")
    known = _known_keys(agent, novelty)
    for o in job:
        raw = o.split("=", 1)[0]
        key = raw.lstrip("+~")
        if key.startswith("hydra") or key in GROUPS:
            continue
        if key not in known:
            where = ""
            if key.startswith("agent."):
                where = f" for agent={agent}"
            elif key.startswith("novelty."):
                where = f" for novelty={novelty}"
            parent = key.rsplit(".", 1)[0] + "." if "." in key else ""
            leaf = sorted(k for k in known if k.startswith(parent)
                          and k.count(".") == key.count("."))
            if not leaf:
                leaf = sorted(k for k in known if "." not in k)
            shown = ", ".join(leaf[:12]) + (", ..." if len(leaf) > 12 else "")
            raise CommandError(f"unknown option {raw!r}{where}{did_you_mean(key, known)}; "
                               f"valid: {shown}")
        if raw.startswith("+"):
            raise CommandError(f"{key} already exists: write {key}=... without '+'")


def check_world(cfg: TrialConfig) -> None:
    """The agents can be built with their options, the novelty applies, and every remote
    seat's address can be listened on (probed without sending anything)."""
    from agents.registry import make_agent, told_rules
    from evaluation.harness.remote_seats import RemoteError, check_addresses, make_agents
    from evaluation.harness.novelty_setup import NoveltyError, prepare_novelty
    from openmono import rules_schema

    try:
        params = told_rules(cfg.agent, cfg.agent_params, cfg.rules)
        if "agent" in cfg.isolate:  # never built in the harness, so checked in a child
            from agents.remote.isolated import check_in_child

            check_in_child(cfg.agent, params)
        else:
            make_agent(cfg.agent, **params)
    except Exception as exc:  # noqa: BLE001 - any failure to build is a bad option
        # The exception names the bad option; the full option dict would bury it.
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CommandError(f"agent={cfg.agent} cannot be built: {first}") from None
    if "remote" in cfg.opponents:
        try:  # (only the remote seats: an isolated opponent is never built in the harness)
            make_agents([n for n in cfg.opponents if n == "remote"], cfg.remote)
        except ValueError as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise CommandError(f"remote opponents cannot be seated: {first}") from None
    seats = []
    if cfg.agent == "remote":
        seats.append((str(cfg.agent_params.get("host") or "127.0.0.1"),
                      int(cfg.agent_params.get("port", 7300))))
    if "remote" in cfg.opponents:
        seats.append((str(cfg.remote.get("host") or "127.0.0.1"),
                      int(cfg.remote.get("port", 7300))))
    try:
        check_addresses(seats)
    except RemoteError as exc:
        raise CommandError(str(exc)) from None
    if cfg.novelty is not None:
        try:
            prepare_novelty(cfg.novelty, cfg.difficulty, cfg.novelty_params,
                            rules_schema(cfg.rules),
                            then=cfg.then)
        except NoveltyError as exc:
            raise CommandError(str(exc).splitlines()[0]) from None


def check_out_dir(out: Path, cfg: TrialConfig) -> None:
    """Writable without creating anything, and not holding a different trial."""
    from evaluation.store.folder_lock import unsafe_entry
    from evaluation.harness.runner import _trial_identity

    probe = out
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise CommandError(f"cannot write to the output directory {str(out)!r}: "
                           f"{str(probe)!r} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise CommandError(f"cannot write to the output directory {str(out)!r}: permission "
                           f"denied on {str(probe)!r}")
    problem = unsafe_entry(out)  # before Hydra writes .hydra/ through a link in it
    if problem:
        raise CommandError(problem)
    try:
        old = read_identity(out / CONFIG_FILE)
        ident = _trial_identity(cfg)
        if old is not None and old != ident:
            diff = sorted(k for k in ident if old.get(k) != ident[k])
            raise CommandError(f"{out} holds a trial with a different configuration "
                               f"({', '.join(diff)} differ); choose another hydra.run.dir or "
                               "delete that directory")
        done = len(read_records(out / GAMES_FILE))
    except TrialError as exc:
        raise CommandError(str(exc)) from None
    if done > cfg.games:
        raise CommandError(f"{out / GAMES_FILE} already holds {done} games, more than "
                           f"games={cfg.games}; use a new output directory")


def hide_secrets(cmd: Command) -> None:
    """Take the secrets out of `cmd.overrides` into this process's environment, where
    the jobs read them back (`trial_config`): Hydra then writes none of them into
    `.hydra/`, logs or folder names, and `command.json` never sees them."""
    import json

    given = {}
    for job in cmd.jobs:
        found = {}
        if any(is_secret(o) and o.lstrip("+").startswith("agent.token=") for o in job.overrides):
            found["agent.token"] = job.config.agent_params.get("token", "")
        if any(is_secret(o) and o.lstrip("+").startswith("remote.tokens=")
               for o in job.overrides):
            found["remote.tokens"] = list(job.config.remote.get("tokens") or [])
        if given and found != given:
            raise CommandError("agent.token and remote.tokens cannot be swept: give one "
                               "value for the whole sweep")
        given = found
    if given:
        os.environ[SECRETS_ENV] = json.dumps(given)
    else:  # (none from an earlier command of this process either)
        os.environ.pop(SECRETS_ENV, None)
    cmd.overrides = [o for o in cmd.overrides if not is_secret(o)]


def _named(key: str, value: Any) -> str:
    """A folder option that names a folder: an empty one would write into the current
    directory."""
    text = "" if value is None else str(value)
    if not text.strip():
        raise CommandError(f"{key} is empty: name a folder, e.g. {key}=outputs/my-trial")
    return text


def _check_snapshot_key() -> None:
    """A weak or exposed snapshot key is refused before anything is written."""
    from evaluation.store.seal import KeyProblem, snapshot_key

    try:
        snapshot_key()
    except KeyProblem as exc:
        raise CommandError(str(exc)) from None


def _sweep_named(words: list[str]) -> Path:
    digest = hashlib.sha1("\n".join(sorted(words)).encode()).hexdigest()[:10]
    return Path("multirun") / f"sweep-{digest}"


def sweep_dir_for(overrides: list[str]) -> Path:
    """A stable sweep folder named after the command: same overrides, same folder (the
    folder of the same command in the old `trial.X` spelling, if only that one exists)."""
    from evaluation.harness.trial_spelling import legacy, modern

    keep = [o for o in modern(overrides)[0] if not o.lstrip("+").startswith(not_naming())]
    new, old = (_sweep_named(words) for words in (keep, legacy(keep)))
    return old if old != new and old.exists() and not new.exists() else new


def out_spelled(argv: list[str]) -> list[str]:
    """`out=DIR`, the folder option every command takes, as Hydra's `hydra.run.dir=DIR`
    (with --multirun: `hydra.sweep.dir=DIR`); CommandError when it is empty or the
    folder is also named the other way."""
    words = [a for a in argv if a.lstrip("+").split("=", 1)[0] == "out"]
    if not words:
        return list(argv)
    key = "hydra.sweep.dir" if any(a in MULTIRUN_FLAGS for a in argv) else "hydra.run.dir"
    value = words[-1].split("=", 1)[1] if "=" in words[-1] else ""
    if len(words) > 1 or _given(argv, key):
        raise CommandError(f"out= names the folder {key}= names: give one of them, once")
    if not value.strip():
        raise CommandError("out is empty: name a folder, e.g. out=outputs/my-trial")
    return [f"{key}={value}" if a in words else a for a in argv]


def check_command(argv: list[str]) -> Command:
    """Everything the command would run, checked; raises CommandError on the first problem."""
    from omegaconf import OmegaConf

    from evaluation.harness.trial_spelling import modern

    cmd = split_argv(out_spelled(modern(argv)[0]))
    if cmd.info:
        return cmd
    for arg in cmd.overrides:
        why = other_spelling(arg)
        if why:
            raise CommandError(why)
    _check_snapshot_key()
    if cmd.multirun:
        from evaluation.harness.launchers import chosen, problem

        why = problem(chosen(cmd.overrides))
        if why:
            raise CommandError(why)
    hydra_part = [o for o in cmd.overrides if o.lstrip("+~").startswith("hydra")]
    if cmd.multirun and not _given(cmd.overrides, "hydra.sweep.dir"):
        cmd.sweep_dir = sweep_dir_for(cmd.overrides)
        hydra_part = hydra_part + [f"hydra.sweep.dir={cmd.sweep_dir}"]
    for job in expand(cmd.overrides, cmd.multirun):
        task = [o for o in job if not o.lstrip("+~").startswith("hydra")]
        _check_keys(task)
        cfg = _compose(task + [o for o in job if o not in task] + [
            o for o in hydra_part if o not in job])
        data = OmegaConf.to_container(cfg, resolve=False)
        data.pop("hydra", None)
        try:
            resolved = OmegaConf.to_container(OmegaConf.create(data), resolve=True)
        except Exception as exc:  # noqa: BLE001 - an interpolation the user wrote
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise CommandError(f"cannot resolve the configuration: {first}") from None
        tcfg, plots = trial_config(resolved)  # type: ignore[arg-type]
        check_world(tcfg)
        if cmd.multirun:
            _named("hydra.sweep.dir", cfg.hydra.sweep.dir)
            out = Path(str(cfg.hydra.sweep.dir)) / _named("hydra.sweep.subdir",
                                                           cfg.hydra.sweep.subdir)
            cmd.sweep_dir = Path(str(cfg.hydra.sweep.dir))
        else:
            out = Path(_named("hydra.run.dir", cfg.hydra.run.dir))
        check_out_dir(out, tcfg)
        cmd.jobs.append(Job(task, tcfg, out, plots))
    return cmd
