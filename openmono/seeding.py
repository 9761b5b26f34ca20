"""The first words of `numpy.random.SeedSequence(seed).generate_state(n)`, in plain Python.

Every game hashes its seed into independent streams (dice, seats, decks, agents).
numpy's SeedSequence is the reference (tests compare the two word for word); this
version exists because a game is a few milliseconds and numpy's call, arriving with
cold caches once per game, cost about 50 µs of it. Same algorithm: the entropy is
mixed into a pool of four 32-bit words, then the pool is hashed into the output words.
"""

from __future__ import annotations

from operator import index

_MASK = 0xFFFFFFFF
_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_L = 0xCA01F9DD
_MIX_R = 0x4973F715
_POOL = 4


def _words(seed: int) -> list[int]:
    """`seed` as little-endian 32-bit words (0 is one word), as numpy coerces it."""
    if type(seed) is not int:
        try:
            seed = index(seed)  # numpy integers and the like
        except TypeError:
            raise TypeError(f"a game seed must be an int, got {seed!r}") from None
    if seed < 0:
        raise ValueError(f"a game seed must be non-negative, got {seed}")
    words = []
    while True:
        words.append(seed & _MASK)
        seed >>= 32
        if not seed:
            return words


def game_seed(series: int, game: int) -> int:
    """The engine seed of game `game` of a series (a trial, an environment's episodes):
    `SeedSequence([series, game])`'s first word, so series 0, 1, 2 ... are independent
    streams and a resumed series replays its games exactly.

    Examples:
        >>> game_seed(0, 0) == game_seed(0, 0) != game_seed(1, 0)
        True
    """
    return seed_sequence_words((series, game), 1)[0]


TRAINING_BLOCK = 1_000_000


def training_seed(seed: int, game: int) -> int:
    """The engine seed of game `game` of a training run with seed `seed` (>= 1): a range of
    engine seeds, `seed * 1,000,000 + game`, rather than a hashed stream, so that no
    training game can be an evaluation game (evaluation ranges lie below 1,000,000,
    tournaments name their engine seeds directly: `seed=200000 games=1000` plays seeds
    200,000 to 200,999).

    Examples:
        >>> training_seed(2, 17)
        2000017
    """
    return seed * TRAINING_BLOCK + game


def seed_sequence_words(seed: int | tuple[int, ...], count: int) -> list[int]:
    """`SeedSequence(seed).generate_state(count)` (uint32 words) as a list of ints; `seed`
    an int or a tuple of ints (their words in order, as numpy reads a list)."""
    entropy = _words(seed) if not isinstance(seed, tuple) else [w for s in seed for w in _words(s)]
    entropy += [0] * (_POOL - len(entropy))
    # hashmix(value): value ^= h; h *= MULT_A; value *= h; value ^= value >> 16 (mod 2**32)
    h = _INIT_A
    pool = []
    for value in entropy[:_POOL]:
        value ^= h
        h = (h * _MULT_A) & _MASK
        value = (value * h) & _MASK
        pool.append(value ^ (value >> 16))
    # mix(x, y) = (MIX_L * x - MIX_R * y) ^ (... >> 16), every pool word into every other,
    # then any entropy beyond the pool into every pool word.
    sources = [(src, None) for src in range(_POOL)] + [(-1, v) for v in entropy[_POOL:]]
    for src, extra in sources:
        for dst in range(_POOL):
            if dst == src:
                continue
            value = (pool[src] if extra is None else extra) ^ h
            h = (h * _MULT_A) & _MASK
            value = (value * h) & _MASK
            value ^= value >> 16
            r = (_MIX_L * pool[dst] - _MIX_R * value) & _MASK
            pool[dst] = r ^ (r >> 16)
    out = []
    h = _INIT_B
    for i in range(count):
        v = pool[i & 3] ^ h
        h = (h * _MULT_B) & _MASK
        v = (v * h) & _MASK
        out.append(v ^ (v >> 16))
    return out
