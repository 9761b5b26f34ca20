"""`python -m evaluation.impact`: what a novelty costs an agent that ignores it.

    python -m evaluation.impact novelty=group_reassign difficulty=easy games=300 seed=0

A novelty's impact is not how it changes a game among identical agents (by symmetry
it changes nothing), but what it costs the evaluated agent to play by the old rules.
Three versions of the same agent play the same games (paired: the same engine seeds,
seats and dice, the novelty in force from the first game), each against the same
opponents:

- *oracle*: told the true rules: shown them (as under `announced`) and, if it keeps
  beliefs (`tell_rules` or `set_believed_schema`, the planner), believing the novelty's
  whole schema, hidden dice and decks included, and the rule changes its hooks declare
  (as far as the agent can express them: the planner's `charges`).
  Adaptation off, so nothing it infers can overrule the truth.
- *blind*: shown the old rules (`effects`) and not adapting (`adapt=false`).
- *adaptive*: the agent as shipped, shown what `observability` shows.

The cost of ignorance is oracle - blind in post-novelty win rate; the share recovered
is (adaptive - blind) / (oracle - blind). Both come with 95% percentile intervals from
a paired bootstrap over games. Each version plays `trial_games` games with one agent
object (a trial: the adaptive agent's detector accumulates evidence over them), then a
fresh one, so detection delay is paid once per trial, as in a SAIL-ON trial whose
novelty arrives at its first game. With `before=N` each trial first plays N games under
the old rules (not counted, other seeds), so the adaptive agent meets the novelty with
evidence of the world before it, as in a trial whose novelty arrives mid-way.

Prints one JSON line: `oracle`, `blind`, `adaptive` (win rates), `*_worth` (mean final
net worth), `cost`, `cost_ci`, `recovered`, `recovered_ci` (null while the cost's
interval holds 0: a share of nothing), `same_games` (the share of games the three
versions ended alike: same winner and length), `games`, the settings, and `preset`
(the novelty's parameters as played).
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Literal, Sequence

import numpy as np
from pydantic import Field

from openmono_cli import cli, games_field, seed_field, workers_field
from openmono.play import play_game
from openmono.schema import RULE_SETS, GameSchema, SchemaError, rules_schema
from openmono.seeding import game_seed

from agents.registry import UnknownAgentError, make_agent, option_names, resolve, told_rules
from evaluation.harness.cli import Options, UsageError, fail

VERSIONS = ("oracle", "blind", "adaptive")
BEFORE_SERIES = 1_000_003  # the old-rules games' seed series, apart from the measured ones
N_BOOT = 2000


class ImpactOptions(Options):
    """The cost of ignoring a novelty: oracle, blind and adaptive versions of one agent."""

    novelty: str = Field(description="a catalogue novelty (python -m novelties list)")
    difficulty: str = Field("medium", description="the novelty's preset: easy, medium or hard")
    params: dict[str, Any] = Field({}, description="a parameter of the novelty, over its preset")
    agent: str = Field("planner", description="the agent measured (any registered name)")
    agent_params: dict[str, Any] = Field({}, description="its constructor options")
    opponents: list[str] = Field(["baseline"] * 3, description="the other seats")
    observability: Literal["effects", "announced"] = Field(
        "effects", description="what the adaptive version is shown: effects or announced")
    opponents_view: Literal["informed", "shown"] = Field("informed", alias="novelty.opponents",
                                description="what the opponents are shown: informed (the "
                                "true rules) or shown (the old ones)")
    rules: str = Field("standard", description=f"the rule set ({', '.join(RULE_SETS)})")
    games: int = games_field(300, "paired games per version")
    trial_games: int = Field(100, ge=1, description="games one agent object plays (a trial)")
    before: int = Field(0, ge=0, description="games under the old rules each trial opens "
                        "with, not counted (a novelty arriving mid-trial, as in SAIL-ON)")
    seed: int = seed_field(0, "the series: game g plays engine seed game_seed(seed, g)")
    workers: int = workers_field(1, "processes (up to 3: one per version)")


def _world(opts: ImpactOptions) -> tuple[GameSchema, Any]:
    """(the rules before, the applied novelty); bad names are one UsageError line."""
    from evaluation.harness.novelty_setup import NoveltyError, prepare_novelty

    try:
        base = rules_schema(opts.rules)
        for name in (opts.agent, *opts.opponents):
            resolve(name)
        applied = prepare_novelty(opts.novelty, opts.difficulty, opts.params, base)
    except (SchemaError, NoveltyError, UnknownAgentError) as exc:
        raise UsageError(str(exc)) from None
    return base, applied


def version_params(agent: str, params: dict[str, Any], version: str) -> dict[str, Any]:
    """The constructor options of one version: oracle and blind never adapt (an agent
    without an `adapt` option is built as it is)."""
    if version != "adaptive" and "adapt" in (option_names(agent) or []):
        return {**params, "adapt": False}
    return dict(params)


def play_version(opts: ImpactOptions, version: str) -> list[tuple[int, int, int]]:
    """(won, final net worth, turns) of the evaluated agent in each game of one version."""
    from novelties.observability import shown_schema

    base, applied = _world(opts)
    shown_to_agent = version != "oracle" and (version == "blind"
                                              or opts.observability == "effects")
    shown = shown_schema(base, applied.schema) if shown_to_agent else None
    n = 1 + len(opts.opponents)
    informed = range(1, n) if opts.opponents_view == "informed" else ()
    if shown is None and opts.opponents_view == "shown":
        # The agent sees the truth while the opponents keep the old face of the rules.
        shown, informed = shown_schema(base, applied.schema), (0,)
    params = told_rules(opts.agent, version_params(opts.agent, opts.agent_params, version),
                        opts.rules)
    out: list[tuple[int, int, int]] = []
    for first in range(0, opts.games, opts.trial_games):
        agent = make_agent(opts.agent, **params)
        if version == "oracle" and hasattr(agent, "tell_rules"):
            agent.tell_rules(applied.schema, [(c.entity, c.attribute, c.new)
                                              for c in applied.declared])
        elif version == "oracle" and hasattr(agent, "set_believed_schema"):
            agent.set_believed_schema(applied.schema)
        players = [agent, *(make_agent(name) for name in opts.opponents)]
        for g in range(opts.before):  # the world before the change: the evidence it leaves
            play_game(base, players, seed=game_seed(opts.seed + BEFORE_SERIES, first + g))
        for g in range(first, min(first + opts.trial_games, opts.games)):
            result = play_game(applied.schema, players, seed=game_seed(opts.seed, g),
                               hooks=applied.hooks, shown=shown, informed=informed)
            seat = result.seats.index(0)
            out.append((int(result.winner == 0), int(result.net_worths[seat]), result.turns))
    return out


def _paired_ci(stat: Any, samples: Sequence[np.ndarray], seed: int) -> tuple[float, float]:
    """95% percentile interval of `stat` over games resampled in pairs."""
    import warnings

    from scipy.stats import bootstrap

    with warnings.catch_warnings():  # (few distinct resamples: scipy warns, the
        warnings.simplefilter("ignore")  # percentile interval is still the right one)
        ci = bootstrap(tuple(samples), stat, paired=True, vectorized=True,
                       n_resamples=N_BOOT, method="percentile",
                       rng=np.random.default_rng(seed)).confidence_interval
    return float(ci.low), float(ci.high)


def _cost(o: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(o, axis=axis) - np.mean(b, axis=axis)


def _recovered_ci(o: np.ndarray, b: np.ndarray, a: np.ndarray,
                  seed: int) -> tuple[float, float]:
    """95% percentile interval of the share recovered over games resampled in pairs.
    A ratio is undefined in a resample whose cost is 0; those resamples are left out (a
    rare case once the cost's own interval is clear of 0), which scipy's bootstrap
    cannot do, hence the few lines here."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(o), size=(N_BOOT, len(o)))
    cost = o[idx].mean(axis=1) - b[idx].mean(axis=1)
    gain = a[idx].mean(axis=1) - b[idx].mean(axis=1)
    ratio = gain[cost != 0] / cost[cost != 0]
    lo, hi = np.percentile(ratio, [2.5, 97.5])
    return float(lo), float(hi)


def cost_of_ignorance(oracle: Sequence[int], blind: Sequence[int], adaptive: Sequence[int],
                      seed: int = 0) -> dict[str, Any]:
    """Win rates, the cost (oracle - blind) and the share recovered, with paired 95%
    bootstrap intervals; `recovered` is null while the cost's interval holds 0."""
    o, b, a = (np.asarray(x, dtype=float) for x in (oracle, blind, adaptive))
    if not len(o) == len(b) == len(a) > 0:
        raise ValueError("the three versions must have played the same games")
    out: dict[str, Any] = {v: round(float(x.mean()), 4) for v, x in zip(VERSIONS, (o, b, a))}
    cost = float(_cost(o, b))
    if np.array_equal(o, b):
        cost_ci = (cost, cost)
    else:
        cost_ci = _paired_ci(_cost, (o, b), seed)
    out["cost"], out["cost_ci"] = round(cost, 4), [round(x, 4) for x in cost_ci]
    out["recovered"] = out["recovered_ci"] = None
    if cost_ci[0] > 0:
        out["recovered"] = round(float((a.mean() - b.mean()) / cost), 4)
        lo, hi = _recovered_ci(o, b, a, seed)
        out["recovered_ci"] = [round(lo, 4), round(hi, 4)]
    return out


def preset_params(opts: ImpactOptions) -> dict[str, Any]:
    """The novelty's parameters as played: its preset with `params` on top (a record
    keeps them, so that one made before the preset changed is known to be stale)."""
    from novelties.registry import load_novelty

    return load_novelty(opts.novelty, opts.difficulty, opts.params)[1].model_dump(mode="json")


def measure(opts: ImpactOptions) -> dict[str, Any]:
    """The impact record of one novelty preset (the command's JSON line)."""
    _world(opts)  # bad input fails here, before any game
    if opts.workers > 1:
        with ProcessPoolExecutor(min(opts.workers, len(VERSIONS))) as pool:
            played = dict(zip(VERSIONS, pool.map(play_version, [opts] * 3, VERSIONS)))
    else:
        played = {v: play_version(opts, v) for v in VERSIONS}
    won = {v: [w for w, _, _ in played[v]] for v in VERSIONS}
    record = cost_of_ignorance(won["oracle"], won["blind"], won["adaptive"], opts.seed)
    for v in VERSIONS:
        record[f"{v}_worth"] = round(float(np.mean([x for _, x, _ in played[v]])), 1)
    ends = list(zip(*([(w, t) for w, _, t in played[v]] for v in VERSIONS)))
    record["same_games"] = round(sum(len(set(e)) == 1 for e in ends) / len(ends), 4)
    record.update({
        "games": opts.games, "novelty": opts.novelty, "difficulty": opts.difficulty,
        "params": opts.params or None, "preset": preset_params(opts), "agent": opts.agent,
        "agent_params": opts.agent_params or None, "opponents": opts.opponents,
        "observability": opts.observability, "opponents_view": opts.opponents_view,
        "rules": opts.rules, "trial_games": opts.trial_games, "seed": opts.seed,
        "before": opts.before or None})
    return {k: v for k, v in record.items() if v is not None or k.startswith("recovered")}


def main(argv: list[str] | None = None) -> int:
    opts = cli(ImpactOptions, argv, "python -m evaluation.impact")
    try:
        record = measure(opts)
    except UsageError as exc:
        fail(str(exc))
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
