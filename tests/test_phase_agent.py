"""`agents.base.PhaseAgent`: one method per phase, the phase's default for the rest."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from openmono import actions as A
from agents.base import PhaseAgent


class Buyer(PhaseAgent):
    phase_methods = {"buy": "_buy"}

    def _buy(self, obs):
        return A.BUY


def test_named_phases_go_to_their_method_and_the_rest_to_the_phase_default() -> None:
    agent = Buyer()
    assert agent.act(SimpleNamespace(phase="buy")) is A.BUY
    assert agent.act(SimpleNamespace(phase="bid")) == A.DROP_OUT
    assert agent.dispatch(SimpleNamespace(phase="out_of_turn")) == A.CONCLUDE


def test_a_phase_a_plugin_invents_gets_its_first_legal_action() -> None:
    obs = SimpleNamespace(phase="plugin_phase", legal_actions=lambda: [A.REJECT, A.ACCEPT])
    assert Buyer().act(obs) == A.REJECT


def test_an_unknown_phase_name_in_phase_methods_is_refused_at_class_creation() -> None:
    with pytest.raises(TypeError, match="unknown phases"):
        type("Bad", (PhaseAgent,), {"phase_methods": {"buy_now": "_buy"}})
