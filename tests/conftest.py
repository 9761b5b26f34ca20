"""Hypothesis profiles: `HYPOTHESIS_PROFILE=long python -m pytest -q` runs the property
tests with many more examples (each test's own count times `HYPOTHESIS_SCALE`, 20 by
default); the default profile keeps the suite a few minutes long."""

from __future__ import annotations

import os
import sys

# One BLAS/OpenMP thread for the test process and every process it starts (they inherit
# the environment). The networks and matrices here are tiny: a second BLAS thread only
# adds hand-offs, and on a busy 2-core machine its spinning made the DDQN training test
# 7x slower (111 s against 15 s). It must be set before numpy loads OpenBLAS; an explicit
# setting in the environment wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
assert "numpy" not in sys.modules, "numpy was imported before tests/conftest.py"

from hypothesis import settings  # noqa: E402

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
