"""Can this machine run the chosen `hydra/launcher=...`? One line if not, before Hydra starts.

Each launcher needs its plugin (and Slurm needs `sbatch`); without them Hydra would end
in a traceback (`RuntimeError: Could not detect "srun"`, `ModuleNotFoundError: ray`).
"""

from __future__ import annotations

import importlib.util
import shutil
from typing import Iterable

# launcher -> (module it needs, pip extra that brings it)
NEEDS = {
    "local": ("hydra_plugins.hydra_joblib_launcher", "sweep"),
    "joblib": ("hydra_plugins.hydra_joblib_launcher", "sweep"),
    "ray": ("ray", "cluster"),
    "slurm": ("hydra_plugins.hydra_submitit_launcher", "cluster"),
    "submitit_slurm": ("hydra_plugins.hydra_submitit_launcher", "cluster"),
    "submitit_local": ("hydra_plugins.hydra_submitit_launcher", "cluster"),
}
SLURM = ("slurm", "submitit_slurm")
# Launchers whose workers run on this machine (they may watch the sweep's parent).
ON_THIS_MACHINE = ("local", "joblib", "submitit_local", "basic")


def chosen(overrides: Iterable[str]) -> str | None:
    """The `hydra/launcher=NAME` of a command line (None: Hydra's default, one by one)."""
    name = None
    for o in overrides:
        key, _, value = o.replace(" ", "").partition("=")
        if key.lstrip("+") == "hydra/launcher":
            name = value
    return name


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def problem(name: str | None) -> str | None:
    """Why `hydra/launcher=name` cannot run here (None: it can)."""
    if name is None or name not in NEEDS:
        return None
    module, extra = NEEDS[name]
    if name in SLURM and shutil.which("sbatch") is None:
        return (f"hydra/launcher={name}: no Slurm found on this machine (no sbatch on PATH); "
                "submit from a Slurm login node, or use hydra/launcher=local (this "
                "machine's cores) or hydra/launcher=ray (a Ray cluster, local or "
                "hydra.launcher.address=...)")
    if not _has(module):
        return (f"hydra/launcher={name} needs {module.split('.')[-1]}: pip install "
                f"\"openmono[{extra}]\"" + ("" if name in ("local", "joblib") else
                                            "; or use hydra/launcher=local"))
    return None
