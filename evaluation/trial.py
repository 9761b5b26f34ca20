"""`python -m evaluation.trial`: one SAIL-ON trial, configured with Hydra.

    python -m evaluation.trial novelty=rent_hike
    python -m evaluation.trial agent=baseline novelty=rent_hike novelty.difficulty=hard \
        novelty.params.factor=3 trial.games=30 trial.seed=1
    python -m evaluation.trial --multirun agent=baseline,random novelty=rent_hike,none \
        trial.seed=0,1 hydra/launcher=joblib

Writes games.jsonl, summary.json, report.md and plots into Hydra's run directory
(re-running into it resumes) and prints the summary as a small table.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import hydra
from omegaconf import DictConfig, OmegaConf

from evaluation.config_store import register_groups
from evaluation.runner import TrialConfig, TrialError, run_trial

register_groups()


def config_from_hydra(cfg: DictConfig) -> TrialConfig:
    data: dict[str, Any] = OmegaConf.to_container(cfg, resolve=True)  # type: ignore[assignment]
    agent = dict(data["agent"])
    novelty = dict(data["novelty"])
    trial = data["trial"]
    name = novelty.get("name")
    params = {k: v for k, v in (novelty.get("params") or {}).items() if v is not None}
    return TrialConfig(
        agent=agent.pop("name"),
        agent_params=agent,
        opponents=list(data["opponents"]),
        novelty=None if name in (None, "none") else name,
        difficulty=novelty.get("difficulty") or "medium",
        observability=novelty.get("observability") or "announced",
        novelty_params=params,
        then=[str(t) for t in (data.get("then") or [])],
        games=trial["games"],
        seed=trial["seed"],
        window=tuple(trial["window"]),
        inject_at=trial["inject_at"],
        detection=data["detection"],
        reference=data["reference"] or None,
        progress=trial["progress"],
        rules=str(data.get("rules") or "standard"),
    )


@hydra.main(version_base=None, config_path="../conf", config_name="trial")
def main(cfg: DictConfig) -> None:
    from hydra.core.hydra_config import HydraConfig

    from evaluation.novelty_setup import NoveltyError
    from evaluation.report import print_summary, write_report

    out_dir = HydraConfig.get().runtime.output_dir
    try:
        tcfg = config_from_hydra(cfg)
        summary = run_trial(tcfg, out_dir)
    except (TrialError, NoveltyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    write_report(out_dir, summary, plots=bool(cfg.trial.plots))
    print_summary(summary, out_dir)


def _check_run_dir(argv: list[str]) -> None:
    """Hydra creates the run directory before our code runs: check it first, so an
    unwritable one is a short message rather than a traceback."""
    for arg in argv:
        if arg.startswith("hydra.run.dir="):
            path = arg.split("=", 1)[1]
            try:
                os.makedirs(path, exist_ok=True)
                probe = os.path.join(path, ".write_test")
                with open(probe, "w"):
                    pass
                os.remove(probe)
            except OSError as exc:
                print(f"error: cannot write to the output directory {path!r}: "
                      f"{exc.strerror}", file=sys.stderr)
                sys.exit(2)


if __name__ == "__main__":
    _check_run_dir(sys.argv[1:])
    main()
