"""One job's configuration composed with Hydra's compose API (which writes nothing),
and its keys checked: an unknown key, group or option is one line naming what is valid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluation.harness.trial_config import default
from evaluation.trials.composed import GROUPS, CommandError
from evaluation.trials.trial_command import did_you_mean

CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")


# --- one job ------------------------------------------------------------------------------------
def _paths(node: Any, prefix: str = "") -> set[str]:
    out = set()
    for k, v in node.items():
        path = f"{prefix}{k}"
        out.add(path)
        if isinstance(v, dict) and k != "hydra":
            out |= _paths(v, path + ".")
    return out


_BASE_KEYS: dict[tuple[str, str], set[str]] = {}


def _compose(overrides: list[str], hydra_config: bool = True) -> Any:
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from evaluation.harness.config_store import register_groups

    register_groups()
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
            return compose("trial", overrides=overrides, return_hydra_config=hydra_config)
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
        first = lines[0] if lines else type(exc).__name__
        key = next((o.split("=")[0].lstrip("+~") for o in overrides
                    if o.split("=")[0].lstrip("+~") in first), None)
        if key and key.startswith("hydra") and "Could not override" in first:
            raise CommandError(f"unknown Hydra option {key!r}; see python -m evaluation.trial "
                               "--hydra-help") from None
        if key and "Could not find" in first:
            value = next((o.split("=", 1)[1] for o in overrides
                          if o.split("=")[0].lstrip("+~") == key), "?")
            choices = _group_choices(key)
            raise CommandError(f"unknown {key} {value!r}{did_you_mean(value, choices)}; "
                               f"choices: {', '.join(choices) or '(none found)'}") from None
        raise CommandError(first.rstrip(".")) from None
    finally:
        GlobalHydra.instance().clear()


def _group_choices(group: str) -> list[str]:
    """The options of a config group: this project's YAML files and Hydra's plugins'."""
    from hydra.core.config_store import ConfigStore

    names = {p.stem for p in (Path(CONF_DIR) / group).glob("*.yaml")}
    try:
        names |= {n.rsplit(".", 1)[0] for n in ConfigStore.instance().list(group)}
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    return sorted(names)


def _known_keys(agent: str, novelty: str) -> set[str]:
    """Every key path the configuration has with this agent and novelty."""
    from omegaconf import OmegaConf

    if (agent, novelty) not in _BASE_KEYS:
        cfg = _compose([f"agent={agent}", f"novelty={novelty}"], hydra_config=False)
        _BASE_KEYS[(agent, novelty)] = _paths(OmegaConf.to_container(cfg, resolve=False))
    return _BASE_KEYS[(agent, novelty)]


def _choice(job: list[str], group: str) -> str:
    for o in job:
        k, _, v = o.partition("=")
        if k.lstrip("+") == group:
            return v
    return str(default(group))


def _check_keys(job: list[str]) -> None:
    agent = _choice(job, "agent")
    novelty = _choice(job, "novelty")
    known = _known_keys(agent, novelty)
    for o in job:
        raw = o.split("=", 1)[0]
        key = raw.lstrip("+~")
        if key.startswith("hydra") or key in GROUPS:
            continue
        if key not in known:
            where = ""
            if key.startswith("agent."):
                where = f" for agent={agent}"
            elif key.startswith("novelty."):
                where = f" for novelty={novelty}"
            parent = key.rsplit(".", 1)[0] + "." if "." in key else ""
            leaf = sorted(k for k in known if k.startswith(parent)
                          and k.count(".") == key.count("."))
            if not leaf:
                leaf = sorted(k for k in known if "." not in k)
            shown = ", ".join(leaf[:12]) + (", ..." if len(leaf) > 12 else "")
            raise CommandError(f"unknown option {raw!r}{where}{did_you_mean(key, known)}; "
                               f"valid: {shown}")
        if raw.startswith("+"):
            raise CommandError(f"{key} already exists: write {key}=... without '+'")
