"""The words of an `evaluation.trial` command line: flags apart from overrides, `out=`
spelled as Hydra's folder option, and the sweep folder a command names.

Nothing here loads Hydra: splitting and naming are plain string work.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Iterable

from evaluation.harness.secret_args import SECRET_KEYS
from evaluation.harness.trial_config import TrialConfig, not_identity
from evaluation.trials.composed import CommandError

# Flags that only print something (Hydra runs no job for them): passed through as they are.
INFO_FLAGS = {"--help", "-h", "--hydra-help", "--version", "--cfg", "-c", "--info", "-i",
              "--shell-completion", "-sc", "--resolve", "--package", "-p"}
MULTIRUN_FLAGS = {"--multirun", "-m"}
DEBUG_FLAG = "--debug"


def not_naming() -> tuple[str, ...]:
    """The words that do not change a trial's results, so they do not name a sweep
    either (`startswith` prefixes)."""
    return (*(f"{name}=" for name in not_identity()), "hydra.", *SECRET_KEYS)


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
