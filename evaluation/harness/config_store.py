"""Fill Hydra's config of `evaluation.trial` from the trial's options and the registries.

The options are those `evaluation.harness.trial_config.TrialConfig` declares: stored as the
`trial_options` node (with the default agent and novelty) that `conf/trial.yaml` starts
from, and as the keys of every `novelty=NAME` node (`novelty.difficulty`, ...).

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
from evaluation.harness.secret_args import SECRET_KEYS
from evaluation.harness.trial_config import declared, default, groups, not_identity
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


def _names() -> list[tuple[str, str]]:
    return [(name, opt.name or name) for name, opt in declared()]


def trial_node() -> dict[str, Any]:
    """The trial's options as Hydra's config, defaults as typed (`isolate: none`), the
    groups' defaults in its defaults list; a `KEY` option is a mapping (`remote:`)."""
    grouped = groups()
    node: dict[str, Any] = {"defaults": [{g: default(n) for n, t in _names() if t == g}
                                         for g in grouped] + ["_self_"]}
    for name, typed in _names():
        head = typed.removesuffix(".KEY")
        if typed in grouped or head.split(".")[0] in grouped:
            continue  # (a group's keys are its nodes': `novelty_node`, the agents')
        node[head] = default(name)
    return node


def novelty_node(name: str, params: Any) -> dict[str, Any]:
    """`novelty=NAME`: its name and every `novelty.X` option (`params`: one key per
    parameter, null = the preset's value); a control trial has no difficulty."""
    node: dict[str, Any] = {"name": name}
    for field, typed in _names():
        if typed.startswith("novelty."):
            key = typed.split(".")[1]
            node[key] = ({k: None for k in params} if typed.endswith(".KEY")
                         else default(field))
    if name == "none":
        node["difficulty"] = None  # (novelty.difficulty without a novelty is refused)
    return node


def exclude_keys() -> list[str]:
    """The options that name no sweep job's folder: those that do not change a trial's
    games, the secrets, and the launcher's parallelism."""
    return [*not_identity(), "hydra.launcher.n_jobs", *SECRET_KEYS]


__all__ = ["agent_defaults", "novelty_dir", "novelty_node", "register_groups", "safe_name",
           "trial_dir", "trial_node"]

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
    OmegaConf.register_new_resolver("exclude_keys", exclude_keys, replace=True)
    cs = ConfigStore.instance()
    cs.store(name="trial_options", node=trial_node())
    for name, factory in AGENTS.items():
        # `isolate`: the harness's own option (none or process), never the agent's; null
        # when not given, so that an `agent.isolate=none` contradicting `isolate=process`
        # is told apart and refused.
        cs.store(group="agent", name=name, node={"name": name, "isolate": None,
                                                 **agent_defaults(factory)})
    cs.store(group="novelty", name="none", node=novelty_node("none", {}))
    for name, plugin in plugins.items():
        fields = getattr(getattr(plugin, "Params", None), "model_fields", {}) or {}
        cs.store(group="novelty", name=name, node=novelty_node(name, fields))
    _registered = key
