"""The PettingZoo AEC environment: four learners (`player_0` .. `player_3`) at one table.

Each agent decides where the hybrid-DRL paper's encoding can express the decision
(`agents.policy`): observation `{"observation": 240 floats, "action_mask": 2922 int8}`,
action `Discrete(2922)`. Its other decisions (bids, debts, plugin phases, a single legal
action) are answered for it by the same rules `agent=policy` follows in a trial.

Rewards (the paper's, `agents.drl.reward`): when an agent is about to decide again, it
receives eq. 4 (its net worth over the other active players') for the move it made
last; when it goes bankrupt, `-terminal_c`; at the game's end the winner gets
`+terminal_c` and the others `-terminal_c`. With `reward="delta"` the in-game reward is
instead the change of the agent's share of the table's net worth since its last
decision, and its game ends with 1 (won) or 0 minus its last share, so a game's return
is won - s_0 (+-terminal_c) however many steps it took (`agents.drl.reward`). An index outside the mask is refused as
the engine refuses any illegal action (the phase's default action is played and a
`Fault` recorded) and costs `invalid_penalty`; `invalid_action="raise"` raises a
ValueError instead and leaves the game where it was.

No parallel API: one seat decides at a time (a trade offer is answered before the
offerer goes on, out-of-turn rounds go seat by seat, an auction bids in turn), so a
step in which every agent acts at once is not a move of this game (docs/env.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from agents.drl import encoding as E
from agents.drl.reward import SHAPINGS, ShareDelta, dense_reward, terminal_reward
from agents.policy import as_index
from envs.episodes import Episodes
from openmono.schema import GameSchema
from envs.render import board_text
from envs.table import Table

INVALID_ACTIONS = ("penalty", "raise")


def observation_space() -> spaces.Dict:
    """Every player's observation space: the 240-float state and the action mask."""
    return spaces.Dict({
        "observation": spaces.Box(-E.CASH_CLIP, E.CASH_CLIP, (E.STATE_DIM,), np.float32),
        "action_mask": spaces.Box(0, 1, (E.ACTION_DIM,), np.int8),
    })


def check_settings(invalid_action: str, terminal_c: float, invalid_penalty: float,
                   render_mode: str | None, modes: list[str], reward: str = "paper") -> None:
    """Refuse a bad environment option with a one-line ValueError naming the valid ones."""
    if reward not in SHAPINGS:
        raise ValueError(f"reward must be one of {', '.join(SHAPINGS)}, got {reward!r}")
    if invalid_action not in INVALID_ACTIONS:
        raise ValueError(f"invalid_action must be one of {', '.join(INVALID_ACTIONS)}, got "
                         f"{invalid_action!r}")
    for name, value in (("terminal_c", terminal_c), ("invalid_penalty", invalid_penalty)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a number, got {value!r}")
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be one of {', '.join(modes)} or None, got "
                         f"{render_mode!r}")


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Monopoly for 2-4 learners; `env()` wraps it in PettingZoo's standard wrappers."""

    metadata = {"render_modes": ["ansi", "human"], "name": "openmono_v0",
                "is_parallelizable": False}

    def __init__(self, players: int = 4, rules: str | GameSchema = "standard",
                 terminal_c: float = 10.0, invalid_penalty: float = -1.0,
                 invalid_action: str = "penalty", skip_forced: bool = True,
                 render_mode: str | None = None, reward: str = "paper") -> None:
        super().__init__()
        if isinstance(players, bool) or players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4 (the encoding's seats), got {players!r}")
        check_settings(invalid_action, terminal_c, invalid_penalty, render_mode,
                       self.metadata["render_modes"], reward)
        self.reward = reward
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = []
        self.render_mode = render_mode
        self.terminal_c = float(terminal_c)
        self.invalid_penalty = float(invalid_penalty)
        self.invalid_action = invalid_action
        self.skip_forced = skip_forced
        self.episodes = Episodes(rules)
        self._obs_space = observation_space()
        self._act_space = spaces.Discrete(E.ACTION_DIM)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._zero_mask = np.zeros(E.ACTION_DIM, dtype=np.int8)
        self._entropy = np.random.default_rng()
        self.table: Table | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        """The observation space of `agent` (the same for every player)."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """The action space of `agent`: `Discrete(2922)`."""
        return self._act_space

    # -- episodes ---------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """`seed` starts a new trial at episode 0; options set the novelty (see
        `envs.episodes`): {"novelty", "difficulty", "params", "at_episode",
        "observability", "then"}."""
        plan = self.episodes.parse(options)
        game_seed = self.episodes.start(seed, plan, int(self._entropy.integers(2**31)))
        schema, hooks, shown = self.episodes.world()
        self.table = Table(schema, [None] * len(self.possible_agents), game_seed, hooks,
                           shown, self.skip_forced)
        self.agents = list(self.possible_agents)
        self._seat = {a: self.table.seat_of(i) for i, a in enumerate(self.possible_agents)}
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._info(a) for a in self.agents}
        self._acted: set[str] = set()
        self._delta = {a: ShareDelta() for a in self.agents}
        self._states = {a: np.zeros(E.STATE_DIM, dtype=np.float32) for a in self.agents}
        self.agent_selection = self.agents[0]
        self._settle(None, 0.0)

    def _info(self, agent: str) -> dict[str, Any]:
        assert self.table is not None
        return {"seat": self._seat[agent], "episode_index": self.episodes.episode}

    def _settle(self, actor: str | None, penalty: float) -> None:
        """Rewards, terminations and the next agent after the game moved on."""
        table = self.table
        assert table is not None
        rewards = dict.fromkeys(self.agents, 0.0)
        if actor is not None:
            rewards[actor] += penalty
        c = self.terminal_c
        if table.over:
            winner = self.possible_agents[table.result.winner]
            for a in self.agents:
                if not self.terminations[a]:
                    rewards[a] += terminal_reward(a == winner, c) + self._final(a, a == winner)
                    self.terminations[a] = True
                self.infos[a] = {**self._info(a), "winner": winner,
                                 "end_reason": table.result.end_reason}
        else:
            active = table.game.state.active
            for a in self.agents:
                if not self.terminations[a] and not active[self._seat[a]]:
                    rewards[a] += terminal_reward(False, c) + self._final(a, False)
                    self.terminations[a] = True
            deciding = self.possible_agents[table.agent_at(table.seat)]
            if self.reward == "delta":
                step = self._delta[deciding].step(table.obs)  # 0 before its first move
                rewards[deciding] += step if deciding in self._acted else 0.0
            elif deciding in self._acted:
                rewards[deciding] += dense_reward(table.obs)
            self._states[deciding] = table.encode()
            self.agent_selection = deciding
        self.rewards = rewards
        self._accumulate_rewards()
        self._deads_step_first()

    def _final(self, agent: str, won: bool) -> float:
        """`delta`: the end of the game pays won (1 or 0) minus the last share."""
        return self._delta[agent].final(won) if self.reward == "delta" else 0.0

    # -- the AEC API ------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """`agent`'s state at its last decision, and the mask (all zero when it is not deciding)."""
        table = self.table
        deciding = (table is not None and not table.over and not self.terminations.get(agent)
                    and agent == self.possible_agents[table.agent_at(table.seat)])
        return {"observation": self._states[agent].copy(),
                "action_mask": table.mask.copy() if deciding else self._zero_mask.copy()}

    def step(self, action: Any) -> None:
        """Play the selected agent's action (None for a finished agent) and move to the
        next decision."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        assert table is not None
        index = as_index(action)
        if self.invalid_action == "raise" and not table.mask[index]:
            raise ValueError(f"action {index} is outside the action mask of {agent}'s "
                             f"{table.obs.phase} decision; legal: "
                             f"{np.flatnonzero(table.mask)[:10].tolist()}...")
        self._cumulative_rewards[agent] = 0.0
        legal = table.play(index)
        self._acted.add(agent)
        self.infos[agent] = {**self._info(agent), "invalid_action": not legal}
        self._settle(agent, 0.0 if legal else self.invalid_penalty)
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The text board (`ansi`: returned; `human`: printed)."""
        if self.render_mode is None:
            import warnings
            warnings.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        table = self.table
        if table is None:
            return None
        names = [self.possible_agents[table.agent_at(s)] for s in range(len(table.seats))]
        text = board_text(table.game, names, table.seat,
                          "" if table.over else table.obs.phase)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Drop the game in progress."""
        self.table = None


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper, with the reads of every step (`last()` and
    the `agent_iter` loop's `agents` and `agent_selection`) passed straight to the
    environment: through the wrapper's two `__getattr__` calls each they took a
    twentieth of a step. Before `reset` they fail as the wrapper's own reads do."""

    def _ready(self, name: str) -> AECEnv:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return self.env

    @property
    def agents(self) -> list[str]:
        """The live agents (an error before `reset`)."""
        return self._ready("agents").agents

    @property
    def agent_selection(self) -> str:
        """The agent to act next (an error before `reset`)."""
        return self._ready("agent_selection").agent_selection

    def last(self, observe: bool = True) -> tuple:
        """The selected agent's (observation, reward, terminated, truncated, info)."""
        return self._ready("agent_selection").last(observe)


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment inside PettingZoo's order-enforcing wrapper. (Its
    `AssertOutOfBoundsWrapper` is left out: `step` already refuses an action outside
    0..2921 with a ValueError naming the range, and each wrapper adds a Python call to
    every attribute read, a tenth of a step.)"""
    return OrderEnforcing(raw_env(**kwargs))
