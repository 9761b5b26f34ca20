"""Hypothesis profiles: `HYPOTHESIS_PROFILE=long python -m pytest -q` runs the property
tests with many more examples (each test's own count times `HYPOTHESIS_SCALE`, 20 by
default); the default profile keeps the suite a few minutes long."""

from __future__ import annotations

import os

from hypothesis import settings

SCALE = int(os.environ.get("HYPOTHESIS_SCALE", "20"))
settings.register_profile("default", settings.get_profile("default"))
settings.register_profile("long", max_examples=100 * SCALE, deadline=None)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")
settings.load_profile(PROFILE)


def pytest_collection_modifyitems(config, items) -> None:  # noqa: ANN001 - pytest hook
    """Under the long profile, scale the example count that a test fixes in its code."""
    if PROFILE != "long":
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and getattr(test, "hypothesis", None) is not None:
            test._hypothesis_internal_use_settings = settings(
                own, max_examples=own.max_examples * SCALE, deadline=None)
