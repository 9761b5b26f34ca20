"""`openmono.seeding` gives exactly numpy's SeedSequence words (the reference)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.random import SeedSequence

from openmono.seeding import game_seed, seed_sequence_words, training_seed


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


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**70), st.integers(min_value=0, max_value=2**40))
def test_game_seed_is_numpys_seed_sequence_of_the_pair(series: int, game: int) -> None:
    """Trials recorded before `game_seed` moved here (numpy's SeedSequence([series, game]))
    replay the same games."""
    assert game_seed(series, game) == int(SeedSequence([series, game]).generate_state(1)[0])


def test_training_seeds_never_reach_an_evaluation_range() -> None:
    assert training_seed(1, 0) == 1_000_000 and training_seed(3, 9_999) == 3_009_999
