"""The episodes of an environment as the games of a trial: seeds, the novelty, options.

An environment is a trial that never ends. `reset(seed=S)` starts it (episode 0);
every `reset()` without a seed plays the next episode. Episode e is game e of a trial
with `seed=S`: seed `openmono.seeding.game_seed(S, e)`, seats shuffled by that
seed. A novelty set through `reset(options={"novelty": ..., "difficulty": ...,
"at_episode": K})` is applied to every episode from K on, as `inject_at=K` does
(the counter counts from the last seeded reset). Options stay in force until another
reset changes them; `{"novelty": None}` removes the novelty.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, Mapping

from evaluation.harness.novelty_setup import Applied, NoveltyError, prepare_novelty
from openmono.hooks import NO_HOOKS, Hooks
from openmono.schema import RULE_SETS, GameSchema, rules_schema
from openmono.seeding import game_seed

OPTIONS = ("novelty", "difficulty", "params", "at_episode", "observability", "then")


@dataclasses.dataclass(frozen=True)
class NoveltyPlan:
    """A novelty applied from episode `at_episode` on."""

    applied: Applied
    at_episode: int
    shown: GameSchema | None  # the rules agents see under `effects` observability


class Episodes:
    """The episode counter, the trial seed and the novelty of one environment."""

    def __init__(self, rules: str | GameSchema = "standard") -> None:
        """`rules`: a packaged rule set (standard, gnome) or a schema of your own."""
        if isinstance(rules, GameSchema):
            self.base = rules
        elif rules in RULE_SETS:
            self.base = rules_schema(rules)
        else:
            raise ValueError(f"unknown rules {rules!r}; valid rules: {', '.join(RULE_SETS)} "
                             "or a GameSchema")
        self.trial_seed: int | None = None
        self.episode = -1  # the episode being played (-1: none yet)
        self.plan: NoveltyPlan | None = None

    def parse(self, options: Mapping[str, Any] | None) -> NoveltyPlan | None:
        """The novelty plan `options` ask for (the current one if they name no novelty).
        Raises a one-line ValueError; nothing changes until `start` is called."""
        if not options:
            return self.plan
        if not isinstance(options, Mapping):
            raise ValueError(f"options must be a dict, got {type(options).__name__}")
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            # A warning, not an error: PettingZoo's api_test resets with {"options": 1}.
            warnings.warn(f"ignored unknown reset option {unknown[0]!r}; valid options: "
                          f"{', '.join(OPTIONS)}", stacklevel=3)
            options = {k: v for k, v in options.items() if k in OPTIONS}
            if not options:
                return self.plan
        if "novelty" not in options:
            extra = sorted(set(options) - {"novelty"})
            raise ValueError(f"reset option {extra[0]!r} needs 'novelty' too, e.g. "
                             "options={'novelty': 'rent_hike', 'at_episode': 10}")
        name = options["novelty"]
        if name is None or name == "none":
            return None
        if not isinstance(name, str):
            raise ValueError(f"novelty must be a novelty name or None, got {name!r}")
        at = options.get("at_episode", 0)
        if isinstance(at, bool) or not isinstance(at, int) or at < 0:
            raise ValueError(f"at_episode must be an integer >= 0, got {at!r}")
        difficulty = options.get("difficulty", "medium")
        params = options.get("params") or {}
        if not isinstance(params, Mapping):
            raise ValueError(f"params must be a dict of the novelty's parameters, got {params!r}")
        then = list(options.get("then") or [])
        observability = options.get("observability", "announced")
        if observability not in ("announced", "effects"):
            raise ValueError(f"observability must be 'announced' or 'effects', got "
                             f"{observability!r}")
        try:
            applied = prepare_novelty(name, str(difficulty), dict(params), self.base, then=then)
        except NoveltyError as exc:
            raise ValueError(str(exc)) from None
        except ValueError as exc:  # a plugin's parameter validation
            raise ValueError(f"novelty {name!r}: {str(exc).splitlines()[0]}") from None
        shown = None
        if observability == "effects":
            from novelties.observability import shown_schema
            shown = shown_schema(self.base, applied.schema)
        return NoveltyPlan(applied, at, shown)

    def start(self, seed: int | None, plan: NoveltyPlan | None, fallback_seed: int) -> int:
        """Begin the next episode (episode 0 of a new trial when `seed` is given);
        returns its game seed."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
            self.trial_seed, self.episode = seed, 0
        else:
            if self.trial_seed is None:
                self.trial_seed = fallback_seed
            self.episode += 1
        self.plan = plan
        return game_seed(self.trial_seed, self.episode)

    @property
    def novelty_active(self) -> bool:
        """Whether the episode in progress is played under the novelty."""
        return self.plan is not None and self.episode >= self.plan.at_episode

    def world(self) -> tuple[GameSchema, Hooks, GameSchema | None]:
        """The schema, hooks and shown rules of the current episode."""
        if self.novelty_active:
            assert self.plan is not None
            return self.plan.applied.schema, self.plan.applied.hooks, self.plan.shown
        return self.base, NO_HOOKS, None
