"""Where a remote seat's secret comes from, so that it need not be typed on a command
line (which the harness would otherwise have to keep out of its records).

A seat's token is, in order: the value given (`agent.token=`), the first line of a
token file (`agent.token_file=PATH`), or the environment variable `$OPENMONO_TOKEN`
(the same variable the client reads). Remote opponents take `remote.tokens=[...]`,
`remote.token_files=[...]` or `$OPENMONO_REMOTE_TOKENS` (comma-separated), one per
remote opponent in order.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

TOKEN_ENV = "OPENMONO_TOKEN"
TOKENS_ENV = "OPENMONO_REMOTE_TOKENS"


def read_token_file(path: str | os.PathLike[str], option: str = "token_file") -> str:
    """The secret in `path` (its first line, without surrounding blanks); ValueError in
    one line when it cannot be read or is empty."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or type(exc).__name__
        raise ValueError(f"{option}: cannot read the token file {str(path)!r}: {why}") from None
    token = (text.splitlines() or [""])[0].strip()
    if not token:
        raise ValueError(f"{option}: the token file {str(path)!r} is empty: write the seat's "
                         "secret on its first line")
    return token


def seat_token(token: Any = "", token_file: Any = "") -> str:
    """One seat's token: given, else from its file, else `$OPENMONO_TOKEN` ("" if none)."""
    if token not in (None, ""):
        return str(token)
    if token_file not in (None, ""):
        return read_token_file(str(token_file))
    return os.environ.get(TOKEN_ENV, "")


def seat_tokens(tokens: Sequence[Any] | None = None,
                token_files: Sequence[Any] | None = None) -> list[str]:
    """The remote opponents' tokens: given, else from their files, else
    `$OPENMONO_REMOTE_TOKENS` (comma-separated); [] if none."""
    if tokens:
        return [str(t) for t in tokens]
    if token_files:
        return [read_token_file(str(f), f"remote.token_files[{i}]")
                for i, f in enumerate(token_files)]
    given = os.environ.get(TOKENS_ENV, "")
    return [t.strip() for t in given.split(",")] if given.strip() else []
