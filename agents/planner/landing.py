"""Where a player will be: a Markov chain of whole turns built from the believed rules.

The planner's rent terms need, for every player, the odds of each square over the next
k turns. They follow from the rules alone (dice, doubles, jail, go-to-jail, movement
cards, board order), so they are computed here once per set of rules and cached: a
novelty that changes rents does not trigger a rebuild, one that changes the dice does.
The planner passes the schema it *believes*; this module never looks at a real game.

Vocabulary, used in every docstring below:

- A **move** is one change of square that ends with a landing effect: the dice move
  of one roll, or a card's advance_to / advance_to_nearest / move_back. Rent is paid at
  the end of a move. Being sent to jail is not a move (nothing is paid in jail).
- A **turn** is everything one player does between two other players' turns: up to
  `bank.doubles_to_jail` rolls while doubles roll again (each roll one dice move plus
  any card moves), or, in jail, one attempt to roll doubles. A turn *ends* where the
  player is when it stops rolling: on a square, or in jail.

Chain states (turn starts): 0..n-1 = on that square and free; n + j = in jail having
already failed j attempts (j = 0..max_jail_turns-1). A player in jail rolls once per
turn: doubles free it and it moves by that roll, without rolling again; after
`max_jail_turns` failed attempts it pays and moves by the last roll. That is the "long
stay" strategy the always-conclude and baseline agents follow; `stay_in_jail=False`
models a player who pays at once (its turn after being jailed is an ordinary turn from
the jail square). Reported per-square results fold the jail states into the jail
square (in jail + just visiting together).

Cards are drawn uniformly with probability count / deck size (the standard approximation
of drawing without replacement); get-out-of-jail cards are modelled as staying in the
deck. Plugin card and square kinds are assumed not to move the player.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from openmono.compiled import compile_rules
from openmono.schema import GameSchema

__all__ = [
    "LandingModel",
    "landing_model",
    "landing_probabilities",
    "visit_probabilities",
    "stationary_distribution",
    "roll_distribution",
]

_CESARO_DOUBLINGS = 20  # 2**20 turns for the fallback long-run average


class LandingModel:
    """The turn chain of one set of rules (immutable arrays; build with `landing_model`).

    - `P` (S x S): turn-start state -> next turn-start state.
    - `W` (S x n): expected number of moves ending on each square during one turn.
    - `R` (S x n+1): expected number of rolls ending on each square (column n: in jail,
      including failed attempts) during one turn.
    - `mid_P[d]`, `mid_W[d]` (n x S, n x n): the rest of a turn whose player stands on a
      square having rolled d >= 1 doubles and is about to roll again (with no limit on
      doubles, `unlimited_doubles`, every d uses the entry for 1).
    """

    def __init__(self, n: int, jail: int, go: int, max_jail: int, P: np.ndarray,
                 W: np.ndarray, R: np.ndarray, mid_P: dict[int, np.ndarray],
                 mid_W: dict[int, np.ndarray], unlimited_doubles: bool = False) -> None:
        self.n = n
        self.jail = jail
        self.go = go
        self.max_jail = max_jail
        self.size = n + max_jail
        self.P = _frozen(P)
        self.W = _frozen(W)
        self.R = _frozen(R)
        self.mid_P = {d: _frozen(m) for d, m in mid_P.items()}
        self.mid_W = {d: _frozen(m) for d, m in mid_W.items()}
        self.unlimited_doubles = unlimited_doubles
        self._results: dict[tuple[Any, ...], np.ndarray] = {}

    def state(self, start: int, jail_turns: int | None = None) -> int:
        """Chain index of a turn start: on `start`, or in jail after `jail_turns` failures."""
        if jail_turns is None:
            if not 0 <= start < self.n:
                raise ValueError(f"start square {start} is not on a board of {self.n} squares")
            return start
        if not 0 <= jail_turns < self.max_jail:
            raise ValueError(f"jail_turns must be in 0..{self.max_jail - 1}, got {jail_turns}")
        return self.n + jail_turns

    def fold(self, dist: np.ndarray) -> np.ndarray:
        """Per-square view of state distributions: jail states added to the jail square."""
        out = dist[..., : self.n].copy()
        out[..., self.jail] += dist[..., self.n:].sum(axis=-1)
        return out

    def first_turn(self, start: int, jail_turns: int | None,
                   doubles: int) -> tuple[np.ndarray, np.ndarray]:
        """(state distribution at the end, expected moves per square) of the current turn."""
        if doubles:
            if jail_turns is not None:
                raise ValueError("a player in jail has no doubles pending")
            d = 1 if self.unlimited_doubles else doubles
            if doubles < 0 or d not in self.mid_P:
                raise ValueError(f"no roll follows {doubles} doubles under these rules")
            self.state(start)
            return self.mid_P[d][start], self.mid_W[d][start]
        s = self.state(start, jail_turns)
        return self.P[s], self.W[s]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=float)
    a.setflags(write=False)
    return a


# --- dice --------------------------------------------------------------------------------
def roll_distribution(schema: GameSchema) -> dict[int, tuple[float, float]]:
    """total -> (P(total and not a double), P(total and a double)) for one roll.

    A double is all dice showing the same value (never with one die), as in the engine.
    """
    per_die = []
    for die in schema.dice:
        w = die.weights if die.weights is not None else (1.0,) * len(die.faces)
        s = float(sum(w))
        d: dict[int, float] = {}
        for f, x in zip(die.faces, w):
            d[f] = d.get(f, 0.0) + x / s
        per_die.append(d)
    totals = {0: 1.0}
    for d in per_die:
        nxt: dict[int, float] = {}
        for t, p in totals.items():
            for f, q in d.items():
                nxt[t + f] = nxt.get(t + f, 0.0) + p * q
        totals = nxt
    doubles: dict[int, float] = {}
    if len(per_die) > 1:
        for v in set(per_die[0]).intersection(*per_die[1:]):
            doubles[v * len(per_die)] = float(np.prod([d[v] for d in per_die]))
    return {
        t: (max(p - doubles.get(t, 0.0), 0.0), doubles.get(t, 0.0))
        for t, p in sorted(totals.items())
        if p > 0.0
    }


# --- building the chain ---------------------------------------------------------------
def _circulant(n: int, dist: dict[int, float]) -> np.ndarray:
    """M[s, e] = probability of moving from s to e with steps drawn from `dist`."""
    row = np.zeros(n)
    for t, p in dist.items():
        row[t % n] += p
    idx = (np.arange(n)[None, :] - np.arange(n)[:, None]) % n
    return row[idx]


def _resolve_landings(schema: GameSchema) -> tuple[np.ndarray, np.ndarray]:
    """For a move ending on each square: (final outcome, expected moves per square).

    Outcome matrix L is n x (n+1): column n is "sent to jail". Card moves chain (a card
    can send the player to another card square), so both come from one linear system.
    """
    rules = compile_rules(schema)
    n = rules.n
    Q = np.zeros((n, n))  # card moves: landing on s leads to a move ending on t
    B = np.zeros((n, n + 1))  # landing on s stops here (or in jail)
    for s, kind in enumerate(rules.kind_names):
        if kind == "go_to_jail":
            B[s, n] = 1.0
            continue
        deck = rules.deck_of[s]
        if kind != "card" or deck < 0 or not rules.decks[deck]:
            B[s, s] = 1.0
            continue
        cards = rules.decks[deck]
        p = 1.0 / len(cards)  # physical cards: `count` already unfolded
        for c in cards:
            if c.kind == "advance_to":
                Q[s, c.square] += p
            elif c.kind == "advance_to_nearest":
                Q[s, rules.nearest[c.target_kind][s]] += p
            elif c.kind == "move_back":
                Q[s, (s - c.amount) % n] += p
            elif c.kind == "go_to_jail":
                B[s, n] += p
            else:
                B[s, s] += p
    A = np.eye(n) - Q
    try:
        VL = np.linalg.solve(A, np.eye(n))
    except np.linalg.LinAlgError:
        raise ValueError("the movement cards can send a player round a loop forever") from None
    if not np.all(np.isfinite(VL)) or VL.min() < -1e-9:
        raise ValueError("the movement cards can send a player round a loop forever")
    return VL @ B, VL


def _build(schema: GameSchema, stay_in_jail: bool) -> LandingModel:
    rules = compile_rules(schema)
    n, jail, bank = rules.n, rules.jail, schema.bank
    m = bank.max_jail_turns
    S = n + m
    rolls = roll_distribution(schema)
    Mnd = _circulant(n, {t: p for t, (p, _) in rolls.items()})
    Md = _circulant(n, {t: p for t, (_, p) in rolls.items()})
    pd = float(sum(p for _, p in rolls.values()))
    L, VL = _resolve_landings(schema)
    Lz = np.zeros((n, S))
    Lz[:, : n + 1] = L  # "sent to jail" = state n (in jail, no attempt yet)
    And, Ad = Mnd @ Lz, Md @ Lz
    Vnd, Vd = Mnd @ VL, Md @ VL
    # Roll-end counts: the same outcomes folded to n squares + "in jail" (column n).
    Rnd, Rd = And[:, : n + 1].copy(), Ad[:, : n + 1].copy()
    cont = Ad[:, :n]  # a double that leaves the player free: it rolls again from there
    Ad_end = Ad.copy()
    Ad_end[:, :n] = 0.0
    eye = np.eye(n)

    D = bank.doubles_to_jail
    mid_P: dict[int, np.ndarray] = {}
    mid_W: dict[int, np.ndarray] = {}
    if not bank.doubles_roll_again or pd == 0.0:
        E, W, R = And + Ad, Vnd + Vd, Rnd + Rd
    elif D == 0:  # doubles roll again without limit
        A = eye - cont
        if pd >= 1.0 - 1e-12:
            raise ValueError("every roll is a double and doubles roll again forever")
        E = np.linalg.solve(A, And + Ad_end)
        W = np.linalg.solve(A, Vnd + Vd)
        R = np.linalg.solve(A, Rnd + Rd)
        mid_P[1], mid_W[1] = E, W
    else:
        # d doubles rolled so far this turn; the D-th double goes straight to jail.
        E = And.copy()
        E[:, n] += pd
        W = Vnd
        R = Rnd.copy()
        R[:, n] += pd
        for d in range(D - 1, 0, -1):
            mid_P[d], mid_W[d] = E, W
            E = And + Ad_end + cont @ E
            W = Vnd + Vd + cont @ W
            R = Rnd + Rd + cont @ R  # every roll's outcome counts, free or jailed
    P = np.zeros((S, S))
    Wt = np.zeros((S, n))
    Rt = np.zeros((S, n + 1))
    P[:n], Wt[:n], Rt[:n] = E, W, R
    for j in range(m):
        row = n + j
        if not stay_in_jail:
            P[row], Wt[row], Rt[row] = E[jail], W[jail], R[jail]
        elif j == m - 1:  # last attempt: doubles or not, pay and move by the roll
            P[row] = And[jail] + Ad[jail]
            Wt[row] = Vnd[jail] + Vd[jail]
            Rt[row] = Rnd[jail] + Rd[jail]
        else:
            P[row] = Ad[jail]
            P[row, row + 1] += 1.0 - pd
            Wt[row] = Vd[jail]
            Rt[row] = Rd[jail]
            Rt[row, n] += 1.0 - pd
    unlimited = bool(bank.doubles_roll_again and pd > 0.0 and D == 0)
    return LandingModel(n, jail, rules.go, m, P, Wt, Rt, mid_P, mid_W, unlimited)


# --- cache -----------------------------------------------------------------------------
_BY_ID: dict[tuple[int, bool], tuple[GameSchema, LandingModel]] = {}
_BY_RULES: dict[tuple[Any, ...], LandingModel] = {}
_CACHE_LIMIT = 256


def _rules_key(schema: GameSchema, stay_in_jail: bool) -> tuple[Any, ...]:
    """Only what moves players: a change of rents or prices keeps the cached chain."""
    names = {s.name: i for i, s in enumerate(schema.squares)}
    return (
        tuple((s.kind, s.deck) for s in schema.squares),
        tuple((d.faces, d.weights) for d in schema.dice),
        tuple(
            (d.name, tuple((c.kind, names.get(c.square or "", -1), c.target_kind, c.amount,
                            c.count) for c in d.cards))
            for d in schema.decks
        ),
        schema.bank.doubles_roll_again,
        schema.bank.doubles_to_jail,
        schema.bank.max_jail_turns,
        stay_in_jail,
    )


def landing_model(schema: GameSchema, stay_in_jail: bool = True) -> LandingModel:
    """The (cached) turn chain for the rules in `schema` — real or believed.

    Memoised by schema identity (the schema is kept alive so its id stays unique) and by
    the movement-relevant rules, so equal rules in a new schema object reuse the chain.
    """
    idk = (id(schema), stay_in_jail)
    hit = _BY_ID.get(idk)
    if hit is not None and hit[0] is schema:
        return hit[1]
    key = _rules_key(schema, stay_in_jail)
    model = _BY_RULES.get(key)
    if model is None:
        if len(_BY_RULES) >= _CACHE_LIMIT:
            _BY_RULES.clear()
        model = _BY_RULES[key] = _build(schema, stay_in_jail)
    if len(_BY_ID) >= _CACHE_LIMIT:
        _BY_ID.clear()
    _BY_ID[idk] = (schema, model)
    return model


# --- public queries ----------------------------------------------------------------------
def landing_probabilities(schema: GameSchema, start: int, turns: int, *,
                          jail_turns: int | None = None, doubles: int = 0,
                          stay_in_jail: bool = True) -> np.ndarray:
    """(turns x n) P(the k-th turn from now *ends* on each square), k = 1..turns.

    The player's turn starts on `start` (free), or in jail after `jail_turns` failed
    attempts, or (`doubles` >= 1) it is in the middle of its turn on `start` after that
    many doubles, about to roll again — then row 0 is where the current turn ends. Each
    row sums to 1; the jail square holds in-jail and just-visiting together. Squares
    passed through within a turn (before a double's re-roll, or before a card move) do
    not count: see `visit_probabilities`. The array is cached and read-only.
    """
    if turns < 0:
        raise ValueError(f"turns must not be negative, got {turns}")
    model = landing_model(schema, stay_in_jail)
    key = ("end", start, turns, jail_turns, doubles)
    out = model._results.get(key)
    if out is None:
        v, _ = model.first_turn(start, jail_turns, doubles)
        rows = [v]
        for _ in range(turns - 1):
            v = v @ model.P
            rows.append(v)
        out = _frozen(model.fold(np.array(rows[:turns]).reshape(turns, model.size)))
        _remember(model, key, out)
    return out


def visit_probabilities(schema: GameSchema, start: int, turns: int, *,
                        jail_turns: int | None = None, doubles: int = 0,
                        stay_in_jail: bool = True) -> np.ndarray:
    """(turns x n) expected number of moves ending on each square during the k-th turn.

    This is what rent expectations need: rent is charged at the end of every move, and a
    turn may contain several (a dice move per roll while doubles roll again, plus card
    moves: landing on Chance and advancing to Illinois counts both squares). A move that
    ends on Go To Jail counts there; being sent to jail and staying in jail count nowhere,
    so rows sum to the expected number of moves (about 1.15 a turn in the long run of the
    standard game), not 1.
    Arguments as in `landing_probabilities`. The array is cached and read-only.
    """
    if turns < 0:
        raise ValueError(f"turns must not be negative, got {turns}")
    model = landing_model(schema, stay_in_jail)
    key = ("visit", start, turns, jail_turns, doubles)
    out = model._results.get(key)
    if out is None:
        v, w = model.first_turn(start, jail_turns, doubles)
        rows = [w]
        for _ in range(turns - 1):
            rows.append(v @ model.W)
            v = v @ model.P
        out = _frozen(np.array(rows[:turns]).reshape(turns, model.n))
        _remember(model, key, out)
    return out


def stationary_distribution(schema: GameSchema, *, per: str = "turn",
                            stay_in_jail: bool = True) -> np.ndarray:
    """(n,) long-run share of turns ending on each square (jail: in jail + visiting).

    `per="landing"` gives the long-run share of moves ending on each square instead (the
    per-move odds rent depends on; the jail square then counts just-visiting landings
    only) and `per="roll"` the share of dice rolls after which the player is on each
    square (the jail square includes failed attempts), the measure of the classic
    published tables. A chain with several closed classes is averaged from Go.
    """
    model = landing_model(schema, stay_in_jail)
    key = ("stationary", per)
    out = model._results.get(key)
    if out is None:
        pi = _stationary_states(model)
        if per == "turn":
            out = model.fold(pi)
        elif per == "landing":
            out = pi @ model.W
        elif per == "roll":
            r = pi @ model.R
            out = r[: model.n].copy()
            out[model.jail] += r[model.n]
        else:
            raise ValueError(f"per must be 'turn', 'landing' or 'roll', got {per!r}")
        out = _frozen(out / out.sum())
        _remember(model, key, out)
    return out


def _stationary_states(model: LandingModel) -> np.ndarray:
    P, S = model.P, model.size
    A = P.T - np.eye(S)
    A[-1] = 1.0
    b = np.zeros(S)
    b[-1] = 1.0
    try:
        pi = np.linalg.solve(A, b)
        if (np.all(np.isfinite(pi)) and pi.min() > -1e-9
                and np.abs(pi @ P - pi).max() < 1e-9):
            pi = np.clip(pi, 0.0, None)
            return pi / pi.sum()
    except np.linalg.LinAlgError:
        pass
    # Several closed classes (or numerical trouble): the Cesaro average from Go,
    # sum_{k<2^K} P^k by doubling.
    total, power = np.eye(S), P.copy()
    for _ in range(_CESARO_DOUBLINGS):
        total = total + power @ total
        power = power @ power
    pi = total[model.go]
    return pi / pi.sum()


def _remember(model: LandingModel, key: tuple[Any, ...], value: np.ndarray) -> None:
    if len(model._results) >= _CACHE_LIMIT:
        model._results.clear()
    model._results[key] = value
