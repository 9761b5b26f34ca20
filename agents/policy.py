"""A policy trained outside openmono, playing as an agent (`agent=policy agent.policy=mod:fn`).

A *policy* is a function `(state, action_mask) -> action index`: `state` is the
240-dim float32 vector and `action_mask` the 2922 int8 flags of the hybrid-DRL paper's
encoding (`agents.drl.encoding`), exactly what the PettingZoo and Gymnasium
environments (`envs/`) hand a learner. Anything trained on those environments plays
here decision for decision as it played there:

- the policy is asked in the phases the encoding expresses (pre-roll, out-of-turn,
  post-roll, buy, trade response) when at least one action is legal (with
  `skip_forced`, the default: at least two; a single legal action is taken for it);
- every other decision (bids, debts, plugin phases) goes to `encoding.fallback_action`;
- an index outside the mask is refused as the engine refuses any illegal action: the
  phase's default action is played and a `Fault` is recorded.

`auto_action` and `answer` are shared with the environments, so the
two can never drift apart.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

import numpy as np

from agents.base import Agent
from agents.drl import encoding as E
from agents.drl.routing import FORCED, NETWORK, route, routed_action
from openmono.engine import AgentFault

Policy = Callable[[np.ndarray, np.ndarray], Any]


def auto_action(obs: Any, enc: E.Encoder, mask: np.ndarray, skip_forced: bool) -> Any:
    """The action taken without asking the policy, or None when the policy decides
    (then `mask`, int8, holds this decision's legal indices). The routing is the DRL
    agents' (`agents.drl.routing`), without the hybrid's rules."""
    how, idx = route(obs, enc, enc.mask, hybrid=False)
    if how == NETWORK or (how == FORCED and not skip_forced):
        np.copyto(mask, enc.mask, casting="unsafe")  # (one pass: True -> 1)
        return None
    return routed_action(obs, how, idx, enc)


def as_index(action: Any) -> int:
    """`action` as an index in 0..2921, or a one-line ValueError."""
    try:
        ok = not isinstance(action, (bool, np.bool_)) and int(action) == action
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok or not 0 <= int(action) < E.ACTION_DIM:
        raise ValueError(f"action must be an integer in 0..{E.ACTION_DIM - 1}, got {action!r}")
    return int(action)


def answer(index: int, obs: Any, enc: E.Encoder, mask: np.ndarray) -> Any:
    """The engine action of a policy's index, or an `AgentFault` (the engine plays the
    phase's default and records a Fault) when the index is outside the mask."""
    if not mask[index]:
        return AgentFault(f"action {index} is outside the action mask of this "
                          f"{obs.phase} decision ({int(mask.sum())} legal)")
    return enc.action_of(index, obs)


def load_policy(spec: str) -> Policy:
    """`module:function` -> the function (one-line ValueError naming what is wrong)."""
    module, sep, attr = str(spec).partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"policy must be 'module:function', got {spec!r}")
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 - any import failure is the user's module
        raise ValueError(f"policy {spec!r}: cannot import {module!r} "
                         f"({type(exc).__name__}: {exc})") from None
    fn = mod
    for part in attr.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            raise ValueError(f"policy {spec!r}: {module!r} has no {attr!r}")
    if not callable(fn):
        raise ValueError(f"policy {spec!r}: {attr!r} is not callable")
    why = _not_a_policy(fn)
    if why:
        raise ValueError(f"policy {spec!r}: {why}; a policy is a function "
                         "(state, action_mask) -> action index")
    return fn  # type: ignore[return-value]


def _not_a_policy(fn: Any) -> str | None:
    """Why `fn` cannot be a policy (None: it may be): a built-in function or class
    (`os:system`, `builtins:print`: every decision a fault, or worse), or one that
    cannot be called with two arguments."""
    if inspect.isbuiltin(fn) or inspect.isclass(fn):
        return f"{getattr(fn, '__name__', fn)!s} is a built-in function or a class"
    try:
        inspect.signature(fn).bind(None, None)
    except TypeError:
        return "it cannot be called with two arguments"
    except ValueError:  # no signature to read: let it play
        pass
    return None


class PolicyAgent(Agent):
    """Plays a `(state, mask) -> index` policy through the paper's encoding."""

    name = "policy"

    def __init__(self, policy: str | None = None, skip_forced: bool = True) -> None:
        super().__init__()
        if policy is None:
            raise ValueError("agent=policy needs agent.policy=module:function, a function "
                             "(state vector, action mask) -> action index")
        self.spec = policy if isinstance(policy, str) else getattr(policy, "__name__", "?")
        self.policy: Policy = load_policy(policy) if isinstance(policy, str) else policy
        self.skip_forced = skip_forced
        self.enc = E.Encoder()
        self.state = np.zeros(E.STATE_DIM, dtype=np.float32)
        self.mask = np.zeros(E.ACTION_DIM, dtype=np.int8)

    def act(self, obs: Any) -> Any:
        """The policy's action for the decisions the encoding can express; the encoding's
        fallback answers the rest (as in training, so a policy plays what it learnt).
        """
        auto = auto_action(obs, self.enc, self.mask, self.skip_forced)
        if auto is not None:
            return auto
        x = self.enc.encode(obs, self.state)
        try:
            index = as_index(self.policy(x.copy(), self.mask.copy()))
        except ValueError as exc:
            return AgentFault(f"policy {self.spec}: {exc}")
        return answer(index, obs, self.enc, self.mask)
