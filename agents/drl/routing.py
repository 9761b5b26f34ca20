"""Which decisions go to a network, in one place.

The shipped DRL agents (`agent.py`), behaviour cloning (`imitate.py`), a user's policy
(`agents/policy.py`) and the environments' outside seats route every decision through
`route`, so they agree on what the network is asked:

- `RULE`: a phase the encoding has no actions for (bids, debts, plugin phases): the
  agent plays `encoding.fallback_action`;
- `HYBRID`: *buy* and *trade_response* of a hybrid agent: its fixed rule (`hybrid.py`);
- `NONE`: an encoded phase with no legal encoded action: `fallback_action` too;
- `FORCED`: exactly one legal action (no need to ask);
- `NETWORK`: the network chooses among the legal indices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.drl import encoding as E
from agents.drl.hybrid import accept_decision, buy_decision

RULE, HYBRID, NONE, FORCED, NETWORK = "rule", "hybrid", "none", "forced", "network"
HYBRID_PHASES = frozenset(("buy", "trade_response"))


def route(obs: Any, enc: E.Encoder, mask: np.ndarray, hybrid: bool = False
          ) -> tuple[str, np.ndarray | None]:
    """(how, legal indices) of this decision; fills `mask` (bool, 2922) with the legal
    mask in an encoded phase (a hybrid's BUY and ACCEPT cleared: its rule decides them)."""
    phase = obs.phase
    if phase not in E.NETWORK_PHASES:
        return RULE, None
    if hybrid and phase in HYBRID_PHASES:
        return HYBRID, None
    legal = enc.legal_mask(obs, mask)
    if hybrid:
        legal[E.BUY] = legal[E.ACCEPT] = False
    idx = legal.nonzero()[0]  # (a 1-D mask: flatnonzero's ravel is two Python calls more)
    if len(idx) == 0:
        return NONE, idx
    return (FORCED if len(idx) == 1 else NETWORK), idx


def routed_action(obs: Any, how: str, idx: np.ndarray | None, enc: E.Encoder) -> Any:
    """The action of a decision the network is not asked (`how` is not `NETWORK`)."""
    if how == HYBRID:
        return buy_decision(obs) if obs.phase == "buy" else accept_decision(obs)
    if how == FORCED:
        return enc.action_of(int(idx[0]), obs)
    return E.fallback_action(obs)
