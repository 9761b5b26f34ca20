"""`hydra/launcher=ray`: every trial of a sweep is a Ray task, and its results come home.

Hydra finds launchers in the `hydra_plugins` namespace, hence this small module. The
jobs are prepared at home exactly as Hydra prepares any job (`run_job` makes the trial's
folder and writes `.hydra/`), but instead of playing the trial there the job hands it
to `evaluation.trials.ray_trials`, which plays it on the cluster and streams its files back.
Why not hydra-ray-launcher: it runs the job on the worker, so the results stay on the
worker's disk, it pins cloudpickle<3 and pulls boto3 and ray[default] (docs/scaling.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from hydra.core.hydra_config import HydraConfig
from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, JobStatus, run_job, setup_globals
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, OmegaConf, open_dict


class RayLauncher(Launcher):
    def __init__(self, address: str | None = None, cpus_per_trial: float = 1,
                 num_cpus: int | None = None, max_resubmits: int = 3,
                 chunk_seconds: float = 1.0, state_seconds: float = 30.0,
                 init: Any = None) -> None:
        self.options = dict(address=address, cpus_per_trial=cpus_per_trial,
                            num_cpus=num_cpus, max_resubmits=max_resubmits,
                            chunk_seconds=chunk_seconds, state_seconds=state_seconds,
                            init=OmegaConf.to_container(init) if init is not None else None)
        self.config: DictConfig | None = None
        self.hydra_context: HydraContext | None = None
        self.task_function: TaskFunction | None = None

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction,
              config: DictConfig) -> None:
        self.config = config
        self.hydra_context = hydra_context
        self.task_function = task_function

    def launch(self, job_overrides: Sequence[Sequence[str]],
               initial_job_idx: int) -> Sequence[JobReturn]:
        from evaluation.trials.ray_trials import RayOptions, RemoteTrial, run_trials
        from evaluation.trials.trial import config_from_hydra

        assert self.config is not None and self.hydra_context is not None
        setup_globals()
        Path(str(self.config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
        trials: list[RemoteTrial] = []

        def prepare(cfg: DictConfig) -> None:
            tcfg = config_from_hydra(cfg)
            tcfg.progress = False
            out = Path(HydraConfig.get().runtime.output_dir)
            trials.append(RemoteTrial(out, tcfg, bool(cfg.plots)))

        state = Singleton.get_state()
        returns = []
        for idx, overrides in enumerate(job_overrides):
            idx += initial_job_idx
            sweep_config = self.hydra_context.config_loader.load_sweep_config(
                self.config, list(overrides))
            with open_dict(sweep_config):
                sweep_config.hydra.job.id = f"ray_{idx}"
                sweep_config.hydra.job.num = idx
            # At home: the trial's folder and .hydra/, as for any Hydra job.
            returns.append(run_job(hydra_context=self.hydra_context, task_function=prepare,
                                   config=sweep_config, job_dir_key="hydra.sweep.dir",
                                   job_subdir_key="hydra.sweep.subdir",
                                   configure_logging=False))
            Singleton.set_state(state)
        prepared = [r for r in returns if r.status == JobStatus.COMPLETED]
        if len(prepared) == len(returns):
            run_trials(trials, RayOptions(**self.options))
        return returns
