"""The value-function planner (issue 6). `landing` is its model of where players go."""

from agents.planner.landing import (landing_model, landing_probabilities, roll_distribution,
                                    stationary_distribution, visit_probabilities)

__all__ = ["landing_model", "landing_probabilities", "roll_distribution",
           "stationary_distribution", "visit_probabilities"]
