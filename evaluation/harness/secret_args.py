"""Which command-line arguments carry secrets (kept light: the finished-trial check of
`evaluation.trial` imports it without loading Hydra or the engine).

`evaluation.trial` takes these out of the arguments it hands to Hydra, which writes its
arguments and configuration into the run folder (`.hydra/`), and out of `command.json`;
the jobs get them back through `SECRETS_ENV`, an environment variable only the command's
own processes see. A token given under any other spelling (`remote={tokens:[T]}`,
`agent={name:remote,token:T}`, `remote.tokens.0=T`) would reach those files unseen, so
`other_spelling` refuses it before anything is written.
"""

from __future__ import annotations

import re

SECRET_KEYS = ("agent.token", "remote.tokens")
SECRETS_ENV = "_OPENMONO_CLI_SECRETS"
# A `token:` or `tokens:` key inside a dict value (`{name:remote,token:T}`).
_TOKEN_KEY = re.compile(r"(^|[{,\s'\"])tokens?['\"]?\s*:")


def _key(arg: str) -> str:
    return arg.split("=", 1)[0].lstrip("+~").strip()


def is_secret(arg: str) -> bool:
    """True for a `key=value` argument that gives a secret (agent.token, remote.tokens)."""
    return _key(arg) in SECRET_KEYS


def other_spelling(arg: str) -> str | None:
    """The one-line refusal of an argument that carries a token under a spelling other
    than `agent.token=` or `remote.tokens=` (None when it carries none). The message
    never repeats the argument: it holds the secret."""
    if "=" not in arg or is_secret(arg):
        return None
    key, value = _key(arg), arg.split("=", 1)[1]
    for secret in SECRET_KEYS:
        group = secret.split(".")[0]
        below = key.startswith((secret + ".", secret + "["))
        inside = key == group and _TOKEN_KEY.search(value) is not None
        if below or inside:
            return (f"a token given inside {key}=... would be written into the "
                    f"run folder: give it as {secret}=..., a token file "
                    f"({'agent.token_file' if group == 'agent' else 'remote.token_files'}=) "
                    "or the environment ($OPENMONO_TOKEN, $OPENMONO_REMOTE_TOKENS)")
    return None
