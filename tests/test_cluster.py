"""Cluster launchers: the launcher configs compose, Ray and submitit run real sweeps whose
results come home, and a missing cluster is one line."""

from __future__ import annotations

import pytest

from evaluation.trial_args import _compose


def test_the_ray_launcher_config_composes_without_including_itself() -> None:
    # conf/hydra/launcher/ray.yaml once listed `ray` in its own defaults: RecursionError.
    cfg = _compose(["agent=random", "hydra/launcher=ray"])
    assert "ray_launcher" in cfg.hydra.launcher._target_
    assert cfg.hydra.launcher.cpus_per_trial == 1
