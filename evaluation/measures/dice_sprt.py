"""The ideal sequential test on dice: how many rolls until a novelty of the dice shows.

A novelty that changes only the dice (weights, faces, how many dice, a roll hook) makes
every roll an independent draw from a new distribution P1 instead of the standard P0.
Coupled seeds say nothing here: the two worlds' rolls differ at once, yet one roll of a
fair game proves nothing. An observer that knows P0 and P1 exactly does best with Wald's
sequential probability ratio test (SPRT); at error rates alpha (calling a standard game
novel) and beta (missing the novelty) its expected number of rolls under P1 is, by Wald's
approximation,

    E1[N] = ((1 - beta) ln((1 - beta) / alpha) + beta ln(beta / (1 - alpha))) / KL(P1 || P0)

A roll P0 cannot produce (a face 7, three dice) proves the novelty with no error: when
`q` = P1(roll impossible under P0) > 0 we take the first such roll, after 1/q rolls on
average (the possible rolls' weaker evidence is left out: an upper bound).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Mapping

from openmono.schema import GameSchema

Dist = dict[tuple[int, ...], float]
ALPHA = BETA = 0.01


def roll_dist(schema: GameSchema) -> Dist:
    """The exact distribution of one throw of all the schema's dice (faces in order)."""
    dists = [d.probabilities() for d in schema.dice]
    out: Dist = {}
    for combo in itertools.product(*(d.items() for d in dists)):
        faces = tuple(f for f, _ in combo)
        out[faces] = out.get(faces, 0.0) + math.prod(p for _, p in combo)
    return out


def sticky_doubles(base: Dist, chance: float) -> Dist:
    """`sticky_doubles`: a throw that is not a double becomes (first die, first die)."""
    out: Dist = {}
    for faces, p in base.items():
        if min(faces) == max(faces):
            out[faces] = out.get(faces, 0.0) + p
        else:
            out[faces] = out.get(faces, 0.0) + p * (1 - chance)
            double = (faces[0],) * len(faces)
            out[double] = out.get(double, 0.0) + p * chance
    return out


def broken_double(base: Dist, face: int, chance: float) -> Dist:
    """`broken_double`: a double of `face` becomes (face, the next lower face) with
    probability `chance` (the hook's rule)."""
    out: Dist = {}
    for faces, p in base.items():
        if len(faces) == 2 and faces == (face, face):
            out[faces] = out.get(faces, 0.0) + p * (1 - chance)
            broken = (face, face - 1)
            out[broken] = out.get(broken, 0.0) + p * chance
        else:
            out[faces] = out.get(faces, 0.0) + p
    return out


def rethrown_sevens(base: Dist, chance: float) -> Dist:
    """`rethrown_sevens`: a throw summing to 7 is thrown again, once, with probability
    `chance` (the hook's rule)."""
    seven = sum(p for faces, p in base.items() if sum(faces) == 7)
    return {faces: p * (1 - chance * (sum(faces) == 7)) + chance * seven * p
            for faces, p in base.items()}


def jail_dice(base: Dist, chance: float, faces: tuple[int, ...]) -> Dist:
    """`jail_dice`, for a throw from jail: a double (of the first die) with probability
    `chance`, else the throw with a double turned into a fixed non-double (the hook's rule)."""
    out: Dist = {}
    for (a, b), p in base.items():
        out[(a, a)] = out.get((a, a), 0.0) + p * chance
        if a != b:
            key = (a, b)
        else:
            others = [f for f in faces if f != a]
            key = (a, others[(a - 1) % len(others)]) if others else (a, b)
        out[key] = out.get(key, 0.0) + p * (1 - chance)
    return out


def wald_numerator(alpha: float = ALPHA, beta: float = BETA) -> float:
    return (1 - beta) * math.log((1 - beta) / alpha) + beta * math.log(beta / (1 - alpha))


def compare(p0: Dist, p1: Dist) -> dict[str, float]:
    """q, P1's mass outside P0's support; when q = 0, KL(P1||P0) and the variance of
    the per-throw log-likelihood ratio (kl = var = 0 when q > 0: the test then waits for
    an impossible throw and the weaker evidence of the others is left out)."""
    q = min(1.0, sum(p for k, p in p1.items() if p > 0 and p0.get(k, 0.0) <= 0))
    kl = var = 0.0
    if q <= 1e-12:
        q = 0.0
        terms = [(p, math.log(p / p0[k])) for k, p in p1.items() if p > 0]
        kl = sum(p * x for p, x in terms)
        var = sum(p * x * x for p, x in terms) - kl ** 2
    return {"kl": kl, "var": max(var, 0.0), "q": q}


def expected_rolls(p0: Dist, p1: Dist, alpha: float = ALPHA, beta: float = BETA) -> float:
    """Expected rolls until the ideal test decides for the novelty (inf: never)."""
    c = compare(p0, p1)
    wald = wald_numerator(alpha, beta) / c["kl"] if c["kl"] > 1e-15 else math.inf
    proof = 1 / c["q"] if c["q"] > 0 else math.inf
    return min(wald, proof)


def detected_within(p0: Dist, p1: Dist, rolls: float, alpha: float = ALPHA,
                    beta: float = BETA) -> float:
    """Probability that the test has decided for the novelty within `rolls` rolls: an
    impossible roll seen, or the log-likelihood ratio past ln((1-beta)/alpha) (normal
    approximation of its sum)."""
    if rolls <= 0:
        return 0.0
    c = compare(p0, p1)
    proof = 1 - max(0.0, 1 - c["q"]) ** rolls
    if c["kl"] <= 1e-15:
        return proof
    bound = math.log((1 - beta) / alpha)
    mean, sd = rolls * c["kl"], math.sqrt(rolls * c["var"])
    wald = (1.0 if mean >= bound else 0.0) if sd == 0 else _phi((mean - bound) / sd)
    return max(proof, wald)


def _phi(z: float) -> float:
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def novel_roll_dist(name: str, params: Mapping[str, Any], base: GameSchema,
                    schema: GameSchema) -> tuple[Dist, str] | None:
    """(P1, which throws it applies to: "all" or "jail") for a novelty of the dice we can
    write out exactly, else None. Schema dice are exact; the two built-in roll hooks are
    written out here (`sticky_doubles`, `broken_double`, `rethrown_sevens`, `jail_dice`)."""
    if name == "sticky_doubles":
        return sticky_doubles(roll_dist(schema), float(params["chance"])), "all"
    if name == "broken_double":
        return broken_double(roll_dist(schema), int(params["face"]),
                             float(params["chance"])), "all"
    if name == "rethrown_sevens":
        return rethrown_sevens(roll_dist(schema), float(params["chance"])), "all"
    if name == "jail_dice":
        return jail_dice(roll_dist(schema), float(params["chance"]),
                         tuple(schema.dice[1].faces)), "jail"
    if schema.dice != base.dice:
        return roll_dist(schema), "all"
    return None
