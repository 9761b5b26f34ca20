"""Novelty detection and characterization for the planner (planner paper, "Novelty
Detection and adaptation").

The detector lives in `agents.planner.detection`: a core (the believed rules, the
replica of the public state rebuilt from the events, a table of event handlers) and one
checker per kind of evidence (rents, taxes and their hidden factors, prices, bank rules,
cards, dice, movement, refusals, unknown payments, game endings, what the observation
hides). This module keeps the name everyone imports:

    from agents.planner.detect import NoveltyDetector
"""

from agents.planner.detection import CHECKERS, NoveltyDetector
from agents.planner.detection.core import KNOWN_EVENTS, WINDOWS

__all__ = ["CHECKERS", "KNOWN_EVENTS", "NoveltyDetector", "WINDOWS"]
