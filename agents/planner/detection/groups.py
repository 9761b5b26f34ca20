"""Which colour set each street belongs to, inferred from who builds and what rent is paid.

Under `effects` a novelty that moves streets between colour groups (SAIL-ON's "which
colour set a street belongs to") leaves the board showing the old sets. What shows it:

- a build: under the standard rules only a player holding a street's whole set builds
  on it, so a player who builds on a street holds its true set (opponents who read the
  live board build by the true sets);
- the rent of an unimproved street: the printed rent, doubled when its owner holds the
  set.

Each such outcome is a constraint (street, the streets its owner holds, set or not).
When a build (or rents on two streets) contradicts the believed sets, the checker looks
for the partition of the streets into the same group labels nearest the believed one
(fewest streets moved) that satisfies every constraint, by local search over moves,
swaps and merges; it adopts it only if one satisfies them all and no group is left with
a single street. The rents seen as factors on single squares are then explained by the
sets, so the rent factor runs of the streets are dropped (`ChargeFactors.forget_streets`).
Reported as `square:NAME group` (old -> new), the ground truth's vocabulary.

A novelty arrives in the middle of a trial, after games whose builds and rents the old
sets explained: the constraints are kept newest last (the oldest go first when the
store is full), the game of the first contradiction is remembered, and when no
partition explains everything the constraints seen only before that game are dropped
(they describe the world before the change) and the search runs again.
"""

from __future__ import annotations

from typing import Any

from agents.planner.detection.checker import Checker

# (street, the streets its owner holds as a bit mask, a set or not, seen in a build)
Constraint = tuple[int, int, bool, bool]
MAX_CONSTRAINTS = 400
MAX_STEPS = 16
MAX_TRIES = 3  # searches that found nothing, before waiting for a new build contradiction
# Without a build that contradicts the sets, rents must contradict them on this many
# streets before a search (one odd rent may have another cause).
MIN_RENT_STREETS = 2


class GroupChecker(Checker):
    """Colour-set membership from builds and unimproved rents (see module)."""

    reasons = ("rent",)

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        # constraint -> the last game it was seen in, newest last
        self.constraints: dict[Constraint, int] = {}
        self.since: int | None = None  # the game of the first contradiction, if any
        self.tries = 0
        self.reported: dict[str, tuple[str, str]] = {}  # street name -> (old, new) group

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Snapshots from before the change point kept their constraints as a set."""
        if isinstance(state.get("constraints"), set):
            state["constraints"] = dict.fromkeys(state["constraints"], 0)
        state.setdefault("since", None)
        self.__dict__.update(state)

    def rules_changed(self) -> None:
        """The public rules changed: the constraints and the sets inferred were relative to
        the old board."""
        self.constraints = {}  # relative to the old board
        self.since = None
        self.tries = 0
        self.det.group_override.clear()
        self.det.need_override.clear()

    # --- evidence --------------------------------------------------------------------
    def _held(self, seat: int) -> int:
        owner = self.det.replica.owner
        return sum(1 << s for s in self.det.R.streets if owner[s] == seat)

    def _add(self, c: Constraint) -> None:
        assign = self._assign()
        if c not in self.constraints and not self._sat(c, assign, _masks(assign)):
            self.tries = 0  # a new contradiction: worth another search
            if self.since is None:
                self.since = self.det.games
        self.constraints.pop(c, None)
        self.constraints[c] = self.det.games
        if len(self.constraints) > MAX_CONSTRAINTS:
            del self.constraints[next(iter(self.constraints))]  # the longest unseen

    def on_building_changed(self, e: Any) -> None:
        """A build is a constraint: its builder holds the street's true set."""
        det = self.det
        R = det.R
        sq = e.square
        if e.reason != "built" or not (0 <= sq < R.n and R.is_street[sq]):
            return
        if det.replica.owner[sq] != e.seat or R.group_of[sq] < 0:
            return
        self._add((sq, self._held(e.seat), True, True))

    def on_payment(self, e: Any) -> None:
        """The rent of an unimproved street is a constraint: doubled means its owner holds
        the true set, printed means not."""
        payer, payee, amount, _, sq = e
        det = self.det
        R = det.R
        rep = det.replica
        if not (0 <= sq < R.n and R.is_street[sq]) or rep.level[sq] or rep.mort[sq]:
            return
        o = rep.owner[sq]
        if o != payee or o < 0 or rep.jailed[o]:
            return
        if not (payer == det.me or o == det.me or det.trust_others) or det.assets_hidden:
            return
        base = R.rent[sq][0] if R.rent[sq] else 0
        if base <= 0 or amount not in (base, 2 * base):
            return  # another factor at work: the rent checker's business
        self._add((sq, self._held(o), amount == 2 * base, False))

    # --- the search --------------------------------------------------------------------
    def _assign(self) -> dict[int, int]:
        R = self.det.R
        return {s: R.group_of[s] for s in R.streets if R.group_of[s] >= 0}

    def _need(self, g: int, size: int) -> int:
        """How many of `size` members make a set of group `g` (all, unless the group has
        a smaller monopoly size)."""
        need = self.det.R.group_need[g]
        return size if need >= len(self.det.R.group_members[g]) else min(need, size)

    def _sat(self, c: Constraint, assign: dict[int, int], masks: dict[int, int]) -> bool:
        """Whether the sets `assign` (its group masks `masks`) explain constraint `c`."""
        s, held, is_set, _ = c
        g = assign.get(s)
        if g is None:
            return True
        mask = masks[g]
        return ((mask & held).bit_count() >= self._need(g, mask.bit_count())) == is_set

    def _wrong(self, assign: dict[int, int]) -> list[Constraint]:
        """The constraints the sets `assign` do not explain."""
        masks = _masks(assign)
        return [c for c in self.constraints if not self._sat(c, assign, masks)]

    def search(self) -> dict[int, int] | None:
        """The nearest partition satisfying every constraint, or None: a local search
        over moving one street, swapping two and merging two groups, each step taking
        the candidate with the fewest violations (then the fewest streets moved). The
        constraints are bit masks, and a candidate is scored by the streets whose group
        it changes only."""
        start = self._assign()
        groups = sorted(set(start.values()))
        by_street: dict[int, list[tuple[int, bool]]] = {}
        for s, held, is_set, _ in self.constraints:
            if s in start:
                by_street.setdefault(s, []).append((held, is_set))

        def masks_of(a: dict[int, int]) -> dict[int, int]:
            return {g: 0 for g in groups} | _masks(a)

        def bad_of(s: int, g: int, m: dict[int, int]) -> int:
            mask = m[g]
            need = self._need(g, mask.bit_count())
            return sum(1 for held, is_set in by_street.get(s, ())
                       if ((mask & held).bit_count() >= need) != is_set)

        assign = dict(start)
        for _ in range(MAX_STEPS):
            masks = masks_of(assign)
            here = {s: bad_of(s, assign[s], masks) for s in by_street}
            bad = sum(here.values())
            if bad == 0:
                break
            best: tuple[int, int, dict[int, int]] | None = None
            for changes in self._moves(assign, groups, here, masks):
                m = dict(masks)
                touched = set()
                for t, g in changes.items():
                    m[assign[t]] &= ~(1 << t)
                    m[g] |= 1 << t
                    touched.update((assign[t], g))
                cand = {**assign, **changes}
                delta = sum(bad_of(s, cand[s], m) - here[s] for s in by_street
                            if cand[s] in touched or assign[s] in touched)
                if delta < 0:
                    moved = sum(1 for t in cand if cand[t] != start[t])
                    if best is None or (bad + delta, moved) < best[:2]:
                        best = (bad + delta, moved, cand)
            if best is None:
                return None
            assign = best[2]
        masks = masks_of(assign)
        if any(bad_of(s, assign[s], masks) for s in by_street) or assign == start:
            return None
        if any(m.bit_count() == 1 for m in masks.values()):
            return None  # a lone street is no colour set: some other rule is at work
        return assign

    @staticmethod
    def _moves(assign: dict[int, int], groups: list[int], here: dict[int, int],
               masks: dict[int, int]):
        """The changes tried: each street of a group holding a violated constraint moved
        to another group or swapped with a street of another group, and each such group
        merged into another."""
        hot = {assign[s] for s, n in here.items() if n}
        focus = sorted(t for t in assign if assign[t] in hot)
        for t in focus:
            for g in groups:
                if g != assign[t]:
                    yield {t: g}
            for u in assign:
                if assign[u] != assign[t] and (u > t or assign[u] not in hot):
                    yield {t: assign[u], u: assign[t]}
        for g in sorted(hot):
            for h in groups:
                if h != g and masks[h]:
                    yield {t: h for t in assign if assign[t] == g}

    def set_sizes(self) -> dict[int, int] | None:
        """With the believed sets kept, how many streets of each make a set: per group,
        the size nearest the believed one that satisfies every constraint on its streets
        (the groups are independent then); None when some group has none."""
        R = self.det.R
        assign = self._assign()
        out: dict[int, int] = {}
        for g, mask in sorted(_masks(assign).items()):
            cons = [c for c in self.constraints if assign.get(c[0]) == g]
            believed = self._need(g, mask.bit_count())
            fits = [k for k in range(1, mask.bit_count() + 1)
                    if all(((mask & held).bit_count() >= k) == is_set
                           for _, held, is_set, _ in cons)]
            if not fits:
                return None
            k = min(fits, key=lambda k: (abs(k - believed), k))
            if k != believed:
                out[g] = k
        return out or None

    def _adopt_needs(self, built: bool) -> bool:
        """Adopt new set sizes. From rents alone, not when every changed group becomes a
        set of one street: rents doubled on any holding are a rent factor as much as
        sets of one (a build on a lone street would tell them apart)."""
        sizes = self.set_sizes()
        if sizes is None or not (built or any(k >= 2 for k in sizes.values())):
            return False
        det = self.det
        R = det.R
        for g, k in sizes.items():
            name = R.group_names[g]
            old = self._need(g, len(R.group_members[g]))
            det.need_override[name] = k
            det.change(f"group:{name}", "monopoly_size", k, old,
                       why=f"{k} streets of {name} build and rent as a set")
        self.tries = 0
        return True

    # --- adoption ------------------------------------------------------------------------
    def adopt(self) -> bool:
        """When the believed sets contradict what was seen: the nearest explanation, set
        membership or set sizes (a build contradiction asks membership first, rents
        alone sizes first); when neither fits the beliefs as they are, both again from
        the board as shown (earlier evidence may have been read wrong)."""
        wrong = self._wrong(self._assign())
        if not any(c[3] for c in wrong) and len({c[0] for c in wrong}) < MIN_RENT_STREETS:
            return False
        if self.tries >= MAX_TRIES:
            return False
        self.tries += 1
        built = any(c[3] for c in wrong)
        order = ((self._adopt_sets, self._adopt_needs) if built
                 else (self._adopt_needs, self._adopt_sets))
        if any(explain(built) for explain in order):
            self.since = None
            return True
        if self._forget_before_change() and any(explain(built) for explain in order):
            self.since = None
            return True
        det = self.det
        if not (det.group_override or det.need_override):
            return False
        det.group_override.clear()
        det.need_override.clear()
        det.rebuild()
        any(explain(built) for explain in order)
        return True

    def _forget_before_change(self) -> bool:
        """Drop the constraints last seen before the first contradiction (the world
        before a change); True if any went."""
        since = self.since
        if since is None:
            return False
        kept = {c: g for c, g in self.constraints.items() if g >= since}
        if len(kept) == len(self.constraints):
            return False
        self.constraints = kept
        return True

    def _adopt_sets(self, built: bool) -> bool:
        """Adopt the nearest partition that explains every constraint, if any."""
        assign = self._assign()
        found = self.search()
        if found is None:
            return False
        det = self.det
        R = det.R
        names = R.group_names
        for s, g in found.items():
            if g == assign[s]:
                continue
            street, group = R.names[s], names[g]
            first = self.reported.get(street, (names[assign[s]], group))[0]
            self.reported[street] = (first, group)
            det.group_override[street] = group
            det.change(f"square:{street}", "group", group, first,
                       why=f"{street} builds and rents as a member of {group}")
        from agents.planner.detection.factors import ChargeFactors

        det.checker(ChargeFactors).forget_streets()
        self.tries = 0
        return True


def _masks(assign: dict[int, int]) -> dict[int, int]:
    """Each group's streets as a bit mask (groups with a street only)."""
    out: dict[int, int] = {}
    for t, g in assign.items():
        out[g] = out.get(g, 0) | 1 << t
    return out
