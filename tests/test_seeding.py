"""`openmono.seeding` gives exactly numpy's SeedSequence words (the reference)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.random import SeedSequence

from openmono.seeding import seed_sequence_words


@pytest.mark.parametrize("seed", [0, 1, 2, 41, 2**32 - 1, 2**32, 2**64 - 1, 2**64, 2**200 + 7])
def test_known_edges(seed: int) -> None:
    assert seed_sequence_words(seed, 40) == SeedSequence(seed).generate_state(40).tolist()


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**256), st.integers(min_value=0, max_value=64))
def test_same_words_as_numpy(seed: int, count: int) -> None:
    assert seed_sequence_words(seed, count) == SeedSequence(seed).generate_state(count).tolist()


def test_numpy_integers_are_seeds() -> None:
    assert seed_sequence_words(np.int64(7), 4) == seed_sequence_words(7, 4)


@pytest.mark.parametrize("bad", [-1, 1.5, "7", None])
def test_bad_seeds_are_refused(bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match="seed"):
        seed_sequence_words(bad, 4)  # type: ignore[arg-type]
