"""Which command-line arguments carry secrets (kept light: the finished-trial check of
`evaluation.trial` imports it without loading Hydra or the engine).

`evaluation.trial` takes these out of the arguments it hands to Hydra, which writes its
arguments and configuration into the run folder (`.hydra/`), and out of `command.json`;
the jobs get them back through `SECRETS_ENV`, an environment variable only the command's
own processes see.
"""

from __future__ import annotations

SECRET_KEYS = ("agent.token", "remote.tokens")
SECRETS_ENV = "_OPENMONO_CLI_SECRETS"


def is_secret(arg: str) -> bool:
    """True for a `key=value` argument that gives a secret (agent.token, remote.tokens)."""
    return arg.split("=", 1)[0].lstrip("+~") in SECRET_KEYS
