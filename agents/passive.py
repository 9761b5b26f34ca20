"""`passive`: buys what it lands on when it can pay, otherwise takes the phase's default
(conclude, decline, drop out, reject). It never builds, trades or mortgages by choice.

The null agent: it makes the engine's own cost visible (`python -m evaluation.bench
agents=[passive,passive,passive,passive] engine_only=true`) and games with it run to
the turn limit, which exercises long games.
"""

from __future__ import annotations

from openmono import actions as A
from openmono.legal import DEFAULT_ACTION
from openmono.observation import Observation

from agents.base import Agent


class PassiveAgent(Agent):
    name = "passive"

    def act(self, obs: Observation) -> A.Action:
        phase = obs.phase
        if phase == "buy" and obs.cash[obs.seat] >= obs.rules.price[obs.square]:
            return A.BUY
        if phase == "pre_roll" and obs.in_jail[obs.seat] and obs.jail_cards[obs.seat]:
            return A.USE_JAIL_CARD  # otherwise its cards would pile up outside the decks
        return DEFAULT_ACTION.get(phase, A.CONCLUDE)
