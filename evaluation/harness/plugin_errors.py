"""A novelty plugin that fails during a game, named in one line: which plugin, which
hook, which game; the recorded games are kept, so the trial resumes once it is fixed."""

from __future__ import annotations

import linecache
import traceback
from typing import Any

from openmono.hooks import Hooks
from openmono.seeding import game_seed

from evaluation.harness.hook_watch import HookTimeout
from evaluation.harness.trial_config import TrialConfig, TrialError


class PluginError(TrialError):
    """A novelty plugin raised inside a hook during a game; the recorded games are kept."""


def _hook_codes(hooks: Hooks | None) -> dict[Any, str]:
    """The code object of every installed hook -> the hook's name."""
    out: dict[Any, str] = {}
    if hooks is None:
        return out
    for name in hooks.installed():
        fn = getattr(hooks, name)
        fn = getattr(fn, "__func__", fn)
        code = getattr(fn, "__code__", None) or getattr(
            getattr(type(fn).__call__, "__func__", type(fn).__call__), "__code__", None)
        if code is not None:
            out[code] = name
    return out


def _plugin_error(cfg: TrialConfig, g: int, hooks: Hooks | None, exc: BaseException,
                  kept: int) -> TrialError:
    """One line: which plugin, which hook, which game; the trial stays resumable."""
    codes = _hook_codes(hooks)
    hook = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code in codes:
            hook = codes[frame.f_code]
        elif hook is None and hooks is not None:
            # Chained hooks run through closures: name the hook the engine called.
            line = linecache.getline(frame.f_code.co_filename, lineno)
            hook = next((h for h in hooks.installed() if f".{h}(" in line or
                         f".{h}\n" in line), None)
    kept_games = max(kept, g)
    what = f": {type(exc).__name__}: {exc}".splitlines()[0]
    did = "raised"
    if isinstance(exc, HookTimeout):
        hook = exc.hook or hook
        did, what = f"ran past the {exc.budget:g}s budget of a hook call", ""
    elif isinstance(exc, SystemExit):
        did, what = f"called sys.exit({exc.code!r})", ""
    if hooks is not None and cfg.novelty is not None:
        names = "+".join([cfg.novelty, *cfg.then])
        where = f"novelty plugin {names!r} {did}" + (f" in its {hook!r} hook" if hook else "")
    else:
        where = f"the game {did}"
    fix = ("fix it (or raise hook_budget)" if isinstance(exc, HookTimeout)
           else "fix it")
    return PluginError(f"{where} during game {g} (seed {game_seed(cfg.seed, g)}){what}; "
                       f"the {kept_games} recorded games are kept: {fix} and re-run the same "
                       "command to resume (--debug shows the traceback)")
