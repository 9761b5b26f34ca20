"""Hidden factors on what squares charge: rent and tax scaled, no rent to an owner in
jail, a tax per building. Estimated from the rents and taxes paid (`RentChecker`,
`TaxChecker` feed the evidence), adopted at game ends, reported at each report."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from openmono.compiled import TAX
from openmono.schema import GameSchema

from agents.base import NoveltyChange
from agents.planner import beliefs as B
from agents.planner.detection.checker import Changes, Checker

# A factor on what a square charges, seen only in payments, is reported under every
# attribute it could be: the printed value, or a rule charging other than the board.
CHARGED_ATTRIBUTES = {"rent": ("rent", "rent (charged)"), "tax": ("tax", "tax (charged)")}


def _factor(run: Any) -> float:
    """The factor a run ([lo, hi, ...]) supports: 1.0 while it still allows the printed
    amount."""
    lo, hi = run[0], run[1]
    return 1.0 if lo <= 1.0 < hi else B.nice_factor(lo, hi)


class ChargeFactors(Checker):
    """Factor runs per square (rent), per built-up street (`("built", square)`: its rent
    with houses or a hotel, which a rule may scale apart from the unimproved rent), per
    tax square (`("tax", square)`) and for owners in jail (`"jail"`): [lo, hi, clock of
    the first payment, clock of the last] of the
    factor every payment in the run allows; a payment outside starts a new run (a
    change point). Tax payments by builders are kept to fit a per-building tax."""

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.runs: dict[Any, list] = {}
        self.tax_extra: list[tuple] = []  # (square, tax, houses, hotels, amount paid)
        self.tax_since: int | None = None  # clock of the first surprising tax
        self.rent_mult: dict[int, float] = {}
        self.built_mult: dict[int, float] = {}  # streets whose built-up rents differ
        # streets whose built-up levels were seen paying different factors: level -> factor
        self.level_mult: dict[int, dict[int, float]] = {}
        self.tax_mult: dict[int, float] = {}
        self.tax_per: tuple[float, float] | None = None
        self.jail_rent = 1.0

    def run(self, key: Any, lo: float, hi: float) -> None:
        """Intersect a factor interval into the current run of `key`, or start a new run
        when it contradicts it (a change point)."""
        clock = self.det.clock
        run = self.runs.get(key)
        if run is None or lo >= run[1] or hi <= run[0]:
            self.runs[key] = [lo, hi, clock, clock]
        else:
            run[0] = max(run[0], lo)
            run[1] = min(run[1], hi)
            run[3] = clock

    # --- hooks ---------------------------------------------------------------------------
    def rules_changed(self) -> None:
        """The public rules changed: hidden factors were relative to the old board, so they
        and their evidence are dropped."""
        self.rent_mult = {}  # hidden factors were relative to the old board
        self.built_mult = {}
        self.level_mult = {}
        self.tax_mult = {}
        self.runs = {}
        self.tax_extra = []
        self.tax_since = None

    def forget_streets(self) -> None:
        """The streets' rent runs and factors were read against colour sets now believed
        wrong (`groups.GroupChecker`): start them afresh."""
        streets = set(self.det.R.streets)
        self.runs = {k: r for k, r in self.runs.items()
                     if k not in streets and not (isinstance(k, tuple) and k[1] in streets
                                                  and k[0] in ("built", "level"))}
        self.rent_mult = {k: f for k, f in self.rent_mult.items() if k not in streets}
        self.built_mult = {}
        self.level_mult = {}

    def announced(self) -> None:
        """A novelty was announced: every factor run restarts now, so its estimate uses
        post-novelty payments only."""
        clock = self.det.clock
        for key in list(self.runs):
            self.runs[key][2] = self.runs[key][3] = clock

    def adopt(self) -> bool:
        """Adopt the factors the runs support (rents, taxes, jail rent; a per-building
        tax is used in checks but not part of the schema)."""
        rent, tax = self.factor_beliefs()
        built = self.built_beliefs(rent)
        jail = self.runs.get("jail")
        jail_f = 1.0 if jail is None else _factor(jail)
        levels = self.level_beliefs(built)
        changed = (rent != self.rent_mult or tax != self.tax_mult or jail_f != self.jail_rent
                   or built != self.built_mult or levels != self.level_mult)
        self.rent_mult, self.tax_mult, self.jail_rent = rent, tax, jail_f
        self.built_mult, self.level_mult = built, levels
        per = self.per_building(tax)
        if per is not None and abs(per[0]) < 0.5 and abs(per[1]) < 0.5:
            per = None
        if per != self.tax_per:
            self.tax_per = per
        return changed

    def believe(self, schema: GameSchema) -> GameSchema:
        """Rents and taxes scaled by the adopted factors."""
        if not (self.rent_mult or self.tax_mult or self.built_mult or self.level_mult):
            return schema
        squares = list(schema.squares)
        for sq in set(self.rent_mult) | set(self.built_mult) | set(self.level_mult):
            if sq < len(squares) and squares[sq].rent:
                m = self.rent_mult.get(sq, 1.0)
                mb = self.built_mult.get(sq, m)
                rent = squares[sq].rent
                squares[sq] = squares[sq].model_copy(update={"rent": (
                    B.scale(rent[0], m),) + tuple(B.scale(v, self.built_factor(sq, lv, mb))
                                                  for lv, v in enumerate(rent[1:], 1))})
        for sq, m in self.tax_mult.items():
            if sq < len(squares) and m != 1.0:
                squares[sq] = squares[sq].model_copy(
                    update={"tax": B.scale(squares[sq].tax, m)})
        return schema.model_copy(update={"squares": tuple(squares)})

    # --- estimates -----------------------------------------------------------------------
    def factor_beliefs(self) -> tuple[dict[int, float], dict[int, float]]:
        """Per-square rent and tax factors the runs support (1.0 left out), with an
        all-properties or per-group extrapolation when the observed squares agree."""
        R = self.det.R
        rent: dict[int, float] = {}
        tax: dict[int, float] = {}
        changed_runs = []
        for key, (lo, hi, start, last) in self.runs.items():
            if key == "jail" or lo <= 1.0 < hi:
                continue
            if isinstance(key, tuple) and key[0] == "level":
                continue  # per level: `level_beliefs`
            f = B.nice_factor(lo, hi)
            if isinstance(key, tuple) and key[0] == "built":
                if key[1] in self.runs:
                    continue  # its unimproved rent was seen too: `built_beliefs`
                key = key[1]  # only seen built up: the best evidence of its factor
            if isinstance(key, tuple):
                tax[key[1]] = f
            else:
                rent[key] = f
                changed_runs.append((key, lo, hi, start))
        if rent:
            self._extend_rent(rent, changed_runs)
        if tax:
            fs = list(tax.values())
            if all(abs(f - fs[0]) < 1e-9 for f in fs):
                ok = [k for k, (a, b, s, last) in self.runs.items()
                      if isinstance(k, tuple) and k[0] == "tax" and a <= 1.0 < b]
                if not ok:
                    for sq in range(R.n):
                        if R.kind[sq] == TAX and R.tax[sq] > 0:
                            tax.setdefault(sq, fs[0])
        return rent, tax

    def _extend_rent(self, rent: dict[int, float], changed_runs: list[tuple]) -> None:
        """One factor on the squares seen changed, since no square was seen unchanged
        after the first change: extend it to their groups (or every property)."""
        R = self.det.R
        since = min(start for _, _, _, start in changed_runs)
        lo = max(r[1] for r in changed_runs)
        hi = min(r[2] for r in changed_runs)
        unchanged = [k for k, (a, b, s, last) in self.runs.items()
                     if not isinstance(k, tuple) and k != "jail" and a <= 1.0 < b
                     and last > since]
        groups = {R.group_of[k] for k in rent}
        if lo < hi and not unchanged:
            f = B.nice_factor(lo, hi)
            if len(rent) >= 3 and len(groups) >= 2:
                targets = list(R.properties)
            else:
                targets = [m for g in groups for m in R.group_members[g]]
            for sq in targets:
                rent.setdefault(sq, f)

    def built_beliefs(self, rent: dict[int, float]) -> dict[int, float]:
        """Factors on built-up streets' rents where a street was seen paying another
        factor unimproved (a rule on the houses and hotels only). One such pattern on
        all of them (factor a unimproved, b built up) is extended to their groups (or
        every street, seen on three squares of two groups and contradicted on none), and a
        street there seen only
        built up gets its unimproved factor back to a. `rent` is updated in place."""
        R = self.det.R
        pairs = []
        for key, rb in self.runs.items():
            if not (isinstance(key, tuple) and key[0] == "built"):
                continue
            r0 = self.runs.get(key[1])
            if r0 is not None and (rb[0] >= r0[1] or rb[1] <= r0[0]):
                pairs.append((key[1], B.nice_factor(r0[0], r0[1]),
                              B.nice_factor(rb[0], rb[1])))
        out = {sq: b for sq, _, b in pairs}
        if pairs and len({(a, b) for _, a, b in pairs}) == 1:
            a, b = pairs[0][1], pairs[0][2]
            groups = {R.group_of[sq] for sq in out}
            # streets seen built up paying another factor keep theirs
            contrary = {k[1] for k, r in self.runs.items() if isinstance(k, tuple)
                        and k[0] == "built" and not r[0] <= b < r[1]}
            if len(out) >= 3 and len(groups) >= 2 and not contrary:
                targets = list(R.streets)
            else:
                targets = [m for g in groups for m in R.group_members[g]]
            for sq in targets:
                if sq in contrary:
                    continue
                out.setdefault(sq, b)
                if rent.get(sq, 1.0) == b and sq not in self.runs:
                    if a == 1.0:
                        rent.pop(sq, None)
                    else:
                        rent[sq] = a
        return out

    def built_factor(self, sq: int, level: int, default: float) -> float:
        """The factor believed on street `sq`'s rent at building `level`: its level's own
        where levels were seen paying differently (an unseen level takes the nearest
        seen one's, the higher on a tie), else `default` (one factor for every level)."""
        levels = self.level_mult.get(sq)
        if not levels:
            return default
        if level in levels:
            return levels[level]
        nearest = min(levels, key=lambda lv: (abs(lv - level), -lv))
        return levels[nearest]

    def level_beliefs(self, built: dict[int, float]) -> dict[int, dict[int, float]]:
        """Per-level factors of the built-up streets whose levels were seen paying
        different factors (a rule sparing the first houses: one factor would flicker
        between the levels' payments). Where those streets agree level by level, their
        merged pattern is extended to the rest of their groups and to the streets `built`
        extends the built-up factor to, unless a street's own levels contradict it."""
        seen: dict[int, dict[int, float]] = {}
        for key, run in self.runs.items():
            if isinstance(key, tuple) and key[0] == "level":
                seen.setdefault(key[1], {})[key[2]] = _factor(run)
        out = {sq: lv for sq, lv in seen.items() if len(set(lv.values())) > 1}
        if not out:
            return out
        merged: dict[int, float] = {}
        for levels in out.values():
            for lv, f in levels.items():
                if merged.setdefault(lv, f) != f:
                    return out  # the streets disagree: each keeps its own
        R = self.det.R
        groups = {R.group_of[sq] for sq in out}
        targets = set(built) | {m for g in groups for m in R.group_members[g]}
        for sq in targets:
            own = seen.get(sq, {})
            if all(merged.get(lv, f) == f for lv, f in own.items()):
                out[sq] = {**merged, **own}
        return out

    def per_building(self, tax: dict[int, float] | None = None
                     ) -> tuple[float, float] | None:
        """Least-squares per-house and per-hotel tax from payments by builders (the part
        of each payment above the square's own, possibly scaled, tax)."""
        if tax is None:
            tax = self.factor_beliefs()[1]
        ev = [(h, t, amount - int(base * tax.get(sq, 1.0)))
              for sq, base, h, t, amount in self.tax_extra]
        if not ev or all(x == 0 for _, _, x in ev):
            return None
        shh = sum(h * h for h, _, _ in ev)
        stt = sum(t * t for _, t, _ in ev)
        sht = sum(h * t for h, t, _ in ev)
        shx = sum(h * x for h, _, x in ev)
        stx = sum(t * x for _, t, x in ev)
        det = shh * stt - sht * sht
        if det > 0:
            return ((shx * stt - stx * sht) / det, (stx * shh - shx * sht) / det)
        if shh > 0 and stt == 0:
            return (shx / shh, 0.0)
        if stt > 0 and shh == 0:
            return (0.0, stx / stt)
        return None

    def _taxes_announced(self) -> bool:
        R = self.det.R
        return any(R.names[sq] in self.det.touched for sq in range(R.n) if R.kind[sq] == TAX)

    # --- report --------------------------------------------------------------------------
    def derived(self, out: Changes) -> None:
        """The rent and tax factors the payments support, reported under every attribute
        they could be (a new printed value or a rule charging other than the board), and
        the jail and per-building tax rules."""
        det = self.det
        schema = det.printed
        payments_hidden = det.payments_missing >= 2
        rent, tax = self.factor_beliefs()
        if not payments_hidden:
            for sq, f in rent.items():
                if sq < len(schema.squares) and schema.squares[sq].rent:
                    s = schema.squares[sq]
                    # From outcomes alone a new printed rent (`rent`) and a rule that
                    # charges other than the board shows (`rent (charged)`) look the same
                    # (under `effects` the board is never updated): both are named.
                    for attr in CHARGED_ATTRIBUTES["rent"]:
                        out[(f"square:{s.name}", attr)] = NoveltyChange(
                            f"square:{s.name}", attr, [B.scale(v, f) for v in s.rent],
                            list(s.rent))
        for sq, f in tax.items():
            if sq < len(schema.squares):
                s = schema.squares[sq]
                for attr in CHARGED_ATTRIBUTES["tax"]:
                    out[(f"square:{s.name}", attr)] = NoveltyChange(
                        f"square:{s.name}", attr, B.scale(s.tax, f), s.tax)
        self._derived_rules(out, tax, payments_hidden)

    def _derived_rules(self, out: Changes, tax: dict[int, float],
                       payments_hidden: bool) -> None:
        """The rules without a schema field: rent to an owner in jail, tax per building."""
        R = self.det.R
        jail = self.runs.get("jail")
        jail_square = R.names[R.jail]
        if (jail is not None and not jail[0] <= 1.0 < jail[1] and not payments_hidden
                and jail_square not in self.det.touched):
            out[("rule:rent", "owner in jail")] = NoveltyChange(
                "rule:rent", "owner in jail", B.nice_factor(jail[0], jail[1]), 1.0)
        per = self.per_building(tax)
        if per is not None and (abs(per[0]) >= 0.5 or abs(per[1]) >= 0.5) and (
                not self._taxes_announced()):
            hotels_seen = any(t for _, _, _, t, _ in self.tax_extra)
            value = ({"per_house": round(per[0]), "per_hotel": round(per[1])}
                     if hotels_seen else None)
            out[("rule:tax", "per building")] = NoveltyChange("rule:tax", "per building",
                                                              value, None)


class LandingCharge(Checker):
    """Base of the checkers of a charge a landing makes due (rent, tax): what is due is
    `pending` until it is paid or the landing closes, and each payment feeds
    `ChargeFactors` with the factor it implies."""

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.pending: Any = None

    @cached_property
    def factors(self) -> ChargeFactors:
        """The shared factor evidence this checker feeds."""
        return self.det.checker(ChargeFactors)

    def new_game(self) -> None:
        """No charge is due at a game's start."""
        self.pending = None

    def on_bankrupt(self, e: Any) -> None:
        """A bankrupt payer's charge will never be paid."""
        if self.pending is not None and self.pending[0] == e.seat:
            self.pending = None
