"""Fill Hydra's `agent` and `novelty` config groups from the registries.

Every registered agent becomes `agent=NAME` (its constructor's keyword defaults become
overridable keys, e.g. `agent.adapt=false`, with `agent.isolate`), and every novelty plugin found through the
`openmono.novelties` entry points (or loaded as `module.path:ClassName`) becomes `novelty=NAME` with `novelty.difficulty` and
one `novelty.params.KEY` per parameter (null = the difficulty preset's value). So a
plugin from another package is usable on the command line without writing any YAML.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from hydra.core.config_store import ConfigStore

from agents.registry import AGENTS
from evaluation.harness.trial_spelling import novelty_dir, safe_name, sweep_subdir, trial_dir


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except TypeError:
        return False


def agent_defaults(factory: Any) -> dict[str, Any]:
    """Keyword parameters with JSON-able defaults of an agent's constructor."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return {}
    out = {}
    for p in sig.parameters.values():
        if p.default is not inspect.Parameter.empty and _jsonable(p.default) and p.name != "name":
            out[p.name] = p.default
    return out


__all__ = ["agent_defaults", "novelty_dir", "register_groups", "safe_name", "trial_dir"]

_registered: tuple | None = None  # what the store holds: a command validates, then runs


def register_groups() -> None:
    """Store the groups, once per process for the same agents and plugins (a command
    composes its configuration several times; storing ~100 nodes costs half a second)."""
    global _registered
    from omegaconf import OmegaConf

    try:
        from novelties.registry import BY_PATH, available_novelties
        plugins = {**available_novelties(), **BY_PATH}  # (`module:Class` once loaded)
    except ImportError:  # the novelty package is optional for control trials
        plugins = {}
    key = (tuple((n, id(f)) for n, f in AGENTS.items()),
           tuple((n, id(p)) for n, p in plugins.items()))
    if key == _registered:
        return
    OmegaConf.register_new_resolver("novelty_dir", novelty_dir, replace=True)
    OmegaConf.register_new_resolver("trial_dir", trial_dir, replace=True)
    OmegaConf.register_new_resolver("sweep_subdir", sweep_subdir, replace=True)
    cs = ConfigStore.instance()
    for name, factory in AGENTS.items():
        # `isolate`: the harness's own option (none or process), never the agent's; null
        # when not given, so that an `agent.isolate=none` contradicting `isolate=process`
        # is told apart and refused.
        cs.store(group="agent", name=name, node={"name": name, "isolate": None,
                                                 **agent_defaults(factory)})
    cs.store(group="novelty", name="none", node={
        "name": "none", "difficulty": None, "observability": "announced",
        "opponents": "informed", "params": {}})
    for name, plugin in plugins.items():
        fields = getattr(getattr(plugin, "Params", None), "model_fields", {}) or {}
        cs.store(group="novelty", name=name, node={
            "name": name, "difficulty": "medium", "observability": "announced",
            "opponents": "informed", "params": {k: None for k in fields}})
    _registered = key
