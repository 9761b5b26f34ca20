"""The Gymnasium environment `openmono/Monopoly-v0`: one learner, the other seats agents.

The learner is agent 0 of a trial's table (`[learner, *opponents]`, seats shuffled per
episode by its seed, as in `evaluation.trial`); `opponents=` names built-in agents
(`agents.registry`) or passes agent objects. Observation: the 240-dim state (Box);
the legal actions come as `info["action_mask"]` and from `action_masks()` (what
sb3-contrib's MaskablePPO reads). Reward, the invalid-action rule and the decisions
the learner is asked are those of the AEC environment (`envs.aec`), `reward="delta"`
included. An episode is a
whole game: after the learner's bankruptcy the others play it out (cheap) so the game
is the trial's game.

`info["novelty"]` (whether the current episode is played under the novelty) is there
only with `novelty_flag=True`: the ground truth is for "given detection" experiments,
never a default.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agents.drl import encoding as E
from agents.drl.reward import ShareDelta, dense_reward, terminal_reward
from agents.policy import as_index
from agents.registry import make_agent
from envs.aec import check_settings
from envs.episodes import Episodes
from openmono.schema import GameSchema
from envs.render import board_text
from envs.table import Table


class MonopolyEnv(gym.Env):
    """Monopoly for one learner against 1-3 agents (default: three `baseline`)."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, opponents: Sequence[Any] = ("baseline", "baseline", "baseline"),
                 rules: str | GameSchema = "standard", terminal_c: float = 10.0,
                 invalid_penalty: float = -1.0, invalid_action: str = "penalty",
                 skip_forced: bool = True, novelty_flag: bool = False,
                 render_mode: str | None = None, reward: str = "paper") -> None:
        check_settings(invalid_action, terminal_c, invalid_penalty, render_mode,
                       self.metadata["render_modes"], reward)
        if isinstance(opponents, str) or not 1 <= len(opponents) <= 3:
            raise ValueError(f"opponents must list 1 to 3 agents, e.g. ['baseline'] * 3, got "
                             f"{opponents!r}")
        for o in opponents:
            if isinstance(o, str):
                make_agent(o)  # an unknown name fails here, with the valid ones
            elif not callable(getattr(o, "act", None)):
                raise ValueError(f"an opponent must be an agent name or have act(obs), got {o!r}")
        self.opponent_specs = list(opponents)
        self.opponents = self._build_opponents()
        self.terminal_c = float(terminal_c)
        self.invalid_penalty = float(invalid_penalty)
        self.invalid_action = invalid_action
        self.skip_forced = skip_forced
        self.novelty_flag = novelty_flag
        self.render_mode = render_mode
        self.reward = reward
        self._delta = ShareDelta()
        self.episodes = Episodes(rules)
        self.observation_space = spaces.Box(-E.CASH_CLIP, E.CASH_CLIP, (E.STATE_DIM,),
                                            np.float32)
        self.action_space = spaces.Discrete(E.ACTION_DIM)
        self.table: Table | None = None
        self._early_end = False

    def _build_opponents(self) -> list[Any]:
        return [make_agent(o) if isinstance(o, str) else o for o in self.opponent_specs]

    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """`seed` starts a new trial at episode 0 (named opponents are built afresh, as a
        trial builds them); options set the novelty (see `envs.episodes`)."""
        plan = self.episodes.parse(options)
        super().reset(seed=seed)
        game_seed = self.episodes.start(seed, plan, int(self.np_random.integers(2**31)))
        if seed is not None:
            self.opponents = self._build_opponents()
        schema, hooks, shown = self.episodes.world()
        self.table = Table(schema, [None, *self.opponents], game_seed, hooks, shown,
                           self.skip_forced)
        # A game over before the learner's first decision (it was never asked) ends at
        # the first step, whatever the action.
        self._early_end = self.table.over
        self._delta = ShareDelta()
        if not self._early_end and self.reward == "delta":
            self._delta.step(self.table.obs)  # the share the first move starts from
        return self._observation(), self._info()

    def _observation(self) -> np.ndarray:
        table = self.table
        assert table is not None
        if table.over:
            return np.zeros(E.STATE_DIM, dtype=np.float32)
        return table.encode()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner's decision (bool, 2922)."""
        table = self.table
        if table is None or table.over:
            mask = np.zeros(E.ACTION_DIM, dtype=bool)
            mask[E.CONCLUDE] = True  # a game over: any action ends the episode
            return mask
        return table.mask.astype(bool)

    def _info(self, invalid: bool = False) -> dict[str, Any]:
        table = self.table
        assert table is not None
        mask = self.action_masks().astype(np.int8) if table.over else table.mask.copy()
        info: dict[str, Any] = {"action_mask": mask,
                                "seat": table.seat_of(0), "episode_index": self.episodes.episode}
        if table.over:
            info.update(winner=table.result.winner, won=table.result.winner == 0,
                        end_reason=table.result.end_reason, turns=table.result.turns)
        else:
            info["phase"] = table.obs.phase
        if invalid:
            info["invalid_action"] = True
        if self.novelty_flag:
            info["novelty"] = self.episodes.novelty_active
        return info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action and the others' decisions up to the learner's next
        decision or the game's end: (observation, reward, terminated, truncated, info).
        """
        table = self.table
        if table is None:
            raise ValueError("call reset() before step()")
        if self._early_end:
            self._early_end = False
            won = table.result.winner == 0
            return (self._observation(), terminal_reward(won, self.terminal_c), True, False,
                    self._info())
        if table.over:
            raise ValueError("the episode is over: call reset()")
        index = as_index(action)
        if self.invalid_action == "raise" and not table.mask[index]:
            raise ValueError(f"action {index} is outside the action mask of this "
                             f"{table.obs.phase} decision; legal: "
                             f"{np.flatnonzero(table.mask)[:10].tolist()}...")
        legal = table.play(index)
        reward = 0.0 if legal else self.invalid_penalty
        delta = self.reward == "delta"
        if table.over:
            won = table.result.winner == 0
            reward += terminal_reward(won, self.terminal_c)
            reward += self._delta.final(won) if delta else 0.0
        else:
            reward += self._delta.step(table.obs) if delta else dense_reward(table.obs)
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), table.over, False, self._info(not legal)

    def render(self) -> str | None:
        """The text board (`ansi`: returned; `human`: printed)."""
        table = self.table
        if table is None or self.render_mode is None:
            return None
        names = ["learner" if table.agent_at(s) == 0 else
                 f"opponent{table.agent_at(s)}" for s in range(len(table.seats))]
        text = board_text(table.game, names, table.seat, "" if table.over else table.obs.phase)
        if self.render_mode == "human":
            print(text)
            return None
        return text
