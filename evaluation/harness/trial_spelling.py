"""The old `trial.X=` spelling of `evaluation.trial`'s options, read as the new `X=`,
and the trial folders' names, old and new.

The trial's own options were a `trial:` group (`trial.games=100 trial.seed=1`); they are
top-level now, spelled as in every other command (`games=100 seed=1 progress=false`).
Old commands, and the commands recorded beside results, keep working: `modern` rewrites
them before Hydra sees them, and the folders they named (`multirun/sweep-<hash>` and its
`trial.seed=0,...` subfolders) are found again by `legacy_sweep_dir` and `sweep_subdir`,
so an old sweep resumes where it stopped instead of starting over beside itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

# The options that moved from `trial.X` to `X`.
MOVED = ("games", "seed", "window", "inject_at", "progress", "plots", "allow_huge",
         "hook_budget", "isolate", "isolate_budget", "keep_logs")
OLD = "trial."


def _split(arg: str) -> tuple[str, str, str]:
    """(prefix such as '+' or '~', key, rest from '=' on)."""
    body = arg.lstrip("+~")
    prefix = arg[: len(arg) - len(body)]
    key, eq, value = body.partition("=")
    return prefix, key, eq + value


RENAMES = {OLD + name: name for name in MOVED}


def modern(argv: list[str]) -> tuple[list[str], list[str]]:
    """`argv` with every `trial.X=` written `X=`; and the old words found (for a note).
    (`openmono_cli` only when there is an old word: a finished trial answers without
    importing the engine.)"""
    if not any(_split(arg)[1] in RENAMES for arg in argv):
        return list(argv), []
    from openmono_cli import respell

    return respell(argv, RENAMES)


def note(old: list[str]) -> str:
    """One line for stderr: what was read, and how it is written now."""
    from openmono_cli import respelled_note

    return respelled_note(old, RENAMES)


def legacy(argv: list[str]) -> list[str]:
    """The same options as the old spelling would have written them (for old folders)."""
    out = []
    for arg in argv:
        prefix, key, rest = _split(arg)
        out.append(f"{prefix}{OLD}{key}{rest}" if key in MOVED and rest else arg)
    return out


def _items(dirname: str) -> list[str]:
    """Hydra's override_dirname split at its commas (not those inside [..])."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(dirname):
        depth += ch in "[{("
        depth -= ch in "]})"
        if ch == "," and depth == 0:
            items.append(dirname[start:i])
            start = i + 1
    items.append(dirname[start:])
    return [i for i in items if i]


# Options that named a sweep job's folder until they were found to change no trial's games
# (they are `identity=False` in TrialConfig): a job folder named with them is found again.
NAMED_BEFORE = ("decision_budget", "isolate_memory", "isolate_cpu")


def sweep_subdir(sweep_dir: str, dirname: str, task: Any = ()) -> str:
    """A sweep job's folder (the `sweep_subdir` resolver of conf/trial.yaml): Hydra's
    override_dirname, or the folder an older sweep gave the same job (in the old
    spelling, or named with `NAMED_BEFORE` options among `task`, the job's overrides)
    if that one exists and the new one does not."""
    if (Path(sweep_dir) / dirname).exists():
        return dirname
    named = [str(o) for o in task or () if _split(str(o))[1] in NAMED_BEFORE]
    before = sorted([*_items(dirname), *named])  # (Hydra sorts the words it joins)
    for old in (",".join(before), ",".join(sorted(legacy(_items(dirname)))),
                ",".join(sorted(legacy(before)))):
        if old != dirname and (Path(sweep_dir) / old).exists():
            return old
    return dirname


def novelty_dir(name: str | None, difficulty: str | None) -> str:
    """The run folder of a novelty: `rent_hike-hard`, or `none` for a control trial."""
    if name in (None, "none"):
        return "none"
    return f"{name}-{difficulty or 'medium'}"


# What may not stand in a folder's name on some filesystem: a colon (Windows, and
# `module:Class` names), separators, the characters Windows refuses, whitespace.
_UNSAFE = re.compile(r'[:/\\<>"|?*\s\x00-\x1f]')


def safe_name(name: str) -> str:
    """`name` with every character unsafe in a folder name written `.`, so
    `my_module:Cautious` gets the folder `my_module.Cautious` (registry names are unchanged)."""
    return _UNSAFE.sub(".", name)


def trial_dir(agent: str, novelty: str | None, difficulty: str | None, seed: Any) -> str:
    """A trial's default run folder (the `trial_dir` resolver of conf/trial.yaml):
    `outputs/trial/AGENT/NOVELTY-DIFFICULTY/seedN`, its names made safe. A folder written
    under the unsafe name before (a colon in it) is used while the safe one does not exist,
    so an old trial resumes where it stopped instead of starting over beside itself."""
    raw = f"outputs/trial/{agent}/{novelty_dir(novelty, difficulty)}/seed{seed}"
    safe = (f"outputs/trial/{safe_name(agent)}/{safe_name(novelty_dir(novelty, difficulty))}"
            f"/seed{seed}")
    if raw != safe and Path(raw).is_dir() and not Path(safe).exists():
        return raw
    return safe
