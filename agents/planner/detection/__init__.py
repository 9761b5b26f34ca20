"""The planner's novelty detector: a core (`core.py`: beliefs, the replica of the public
state in `replica.py`, the table of event handlers) and one checker per kind of evidence
(`registry.CHECKERS`; the interface in `checker.py`)."""

from agents.planner.detection.core import NoveltyDetector
from agents.planner.detection.registry import CHECKERS

__all__ = ["CHECKERS", "NoveltyDetector"]
