"""The old `trial.X=` spelling of `evaluation.trial`'s options, read as the new `X=`.

The trial's own options were a `trial:` group (`trial.games=100 trial.seed=1`); they are
top-level now, spelled as in every other command (`games=100 seed=1 progress=false`).
Old commands, and the commands recorded beside results, keep working: `modern` rewrites
them before Hydra sees them, and the folders they named (`multirun/sweep-<hash>` and its
`trial.seed=0,...` subfolders) are found again by `legacy_sweep_dir` and `sweep_subdir`,
so an old sweep resumes where it stopped instead of starting over beside itself.
"""

from __future__ import annotations

from pathlib import Path

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
    (`openmono.cli` only when there is an old word: a finished trial answers without
    importing the engine.)"""
    if not any(_split(arg)[1] in RENAMES for arg in argv):
        return list(argv), []
    from openmono.cli import respell

    return respell(argv, RENAMES)


def note(old: list[str]) -> str:
    """One line for stderr: what was read, and how it is written now."""
    from openmono.cli import respelled_note

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


def sweep_subdir(sweep_dir: str, dirname: str) -> str:
    """A sweep job's folder (the `sweep_subdir` resolver of conf/trial.yaml): Hydra's
    override_dirname, or the folder an old-spelling sweep gave the same job if that one
    exists and the new one does not."""
    old = ",".join(sorted(legacy(_items(dirname))))
    if old != dirname and not (Path(sweep_dir) / dirname).exists() \
            and (Path(sweep_dir) / old).exists():
        return old
    return dirname
