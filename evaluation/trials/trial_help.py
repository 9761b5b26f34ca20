"""`python -m evaluation.trial --help`: the trial's options listed as every command lists
its own (`openmono_cli.help_text`), made from their one declaration
(`evaluation.harness.trial_config.TrialConfig`), with the Hydra flags the trial adds."""

from __future__ import annotations

from typing import Any

from pydantic import Field, create_model

from openmono_cli import Options, help_text, out_field

from evaluation.harness.trial_config import declared, default

PROG = "python -m evaluation.trial"
FLAGS = """
flags:
  --multirun (-m)     a sweep: options given as a,b or range(lo,hi) (hydra/launcher=local|ray|slurm)
  --debug             show tracebacks
  --cfg job           print the composed configuration; --hydra-help: Hydra's own help
  old spelling: trial.games=N is read as games=N (with a note)"""


def options_model() -> type[Options]:
    """The trial's options as an options model: one field per declared option, named as
    typed (`novelty.difficulty`), a `KEY` option a group (`novelty.params.KEY=`)."""
    fields: dict[str, Any] = {}
    for name, opt in declared():
        typed = opt.name or name
        if typed.endswith(".KEY"):
            fields[name] = (dict[str, Any], Field({}, description=opt.help, json_schema_extra={
                "prefix": typed.removesuffix(".KEY")}))
        else:
            fields[name] = (Any, Field(default(name), alias=typed, description=opt.help))
    fields["out"] = (str | None, out_field(None, "the run folder (default outputs/trial/"
                                           "AGENT/NOVELTY-DIFFICULTY/seedN); with --multirun, "
                                           "the sweep's"))
    return create_model("TrialOptions", __base__=Options, __doc__=(
        "One SAIL-ON trial: the agent plays `games` games, a novelty injected part-way "
        "(docs/evaluation.md)."), **fields)


def trial_help() -> str:
    """The help text: usage, every option with its default and help line, the flags and
    the agents to choose from."""
    from agents.registry import AGENTS

    return (help_text(options_model(), PROG) + "\n" + FLAGS + "\n\nagents: "
            f"{', '.join(sorted(AGENTS))} (or module.path:ClassName); novelties: python -m "
            "novelties list")
