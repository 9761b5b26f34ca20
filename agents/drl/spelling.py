"""The old `out_dir=` of `agents.drl.train`, read as `out=`.

Every command names its output folder `out=`; the trainer once called it `out_dir=`.
Old commands (and those recorded beside results) keep working: `modern` rewrites the
word before Hydra sees it, and the command prints one note saying how it is written now.
"""

from __future__ import annotations

OLD, NEW = "out_dir", "out"


def modern(argv: list[str]) -> tuple[list[str], list[str]]:
    """`argv` with `out_dir=` (also `+out_dir=`, `~out_dir`) written `out=`; and the old
    words found (for the note)."""
    out, old = [], []
    for arg in argv:
        body = arg.lstrip("+~")
        prefix = arg[: len(arg) - len(body)]
        key, eq, value = body.partition("=")
        if key == OLD:
            old.append(arg)
            arg = f"{prefix}{NEW}{eq}{value}"
        out.append(arg)
    return out, old


def note(old: list[str]) -> str:
    """One line for stderr: what was read, and how it is written now."""
    new, _ = modern(old)
    return f"note: {' '.join(old)} is the old spelling; now: {' '.join(new)}"
