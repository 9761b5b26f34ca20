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


class ChargeFactors(Checker):
    """Factor runs per square (rent), per tax square (`("tax", square)`) and for owners
    in jail (`"jail"`): [lo, hi, clock of the first payment, clock of the last] of the
    factor every payment in the run allows; a payment outside starts a new run (a
    change point). Tax payments by builders are kept to fit a per-building tax."""

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.runs: dict[Any, list] = {}
        self.tax_extra: list[tuple] = []  # (square, tax, houses, hotels, amount paid)
        self.tax_since: int | None = None  # clock of the first surprising tax
        self.rent_mult: dict[int, float] = {}
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
        self.rent_mult = {}  # hidden factors were relative to the old board
        self.tax_mult = {}
        self.runs = {}
        self.tax_extra = []
        self.tax_since = None

    def forget_streets(self) -> None:
        """The streets' rent runs and factors were read against colour sets now believed
        wrong (`groups.GroupChecker`): start them afresh."""
        streets = set(self.det.R.streets)
        self.runs = {k: r for k, r in self.runs.items() if k not in streets}
        self.rent_mult = {k: f for k, f in self.rent_mult.items() if k not in streets}

    def announced(self) -> None:
        clock = self.det.clock
        for key in list(self.runs):
            self.runs[key][2] = self.runs[key][3] = clock

    def adopt(self) -> bool:
        """Adopt the factors the runs support (rents, taxes, jail rent; a per-building
        tax is used in checks but not part of the schema)."""
        rent, tax = self.factor_beliefs()
        jail = self.runs.get("jail")
        jail_f = (1.0 if jail is None or jail[0] <= 1.0 < jail[1]
                  else B.nice_factor(jail[0], jail[1]))
        changed = rent != self.rent_mult or tax != self.tax_mult or jail_f != self.jail_rent
        self.rent_mult, self.tax_mult, self.jail_rent = rent, tax, jail_f
        per = self.per_building(tax)
        if per is not None and abs(per[0]) < 0.5 and abs(per[1]) < 0.5:
            per = None
        if per != self.tax_per:
            self.tax_per = per
        return changed

    def believe(self, schema: GameSchema) -> GameSchema:
        """Rents and taxes scaled by the adopted factors."""
        if not (self.rent_mult or self.tax_mult):
            return schema
        squares = list(schema.squares)
        for sq, m in self.rent_mult.items():
            if sq < len(squares) and m != 1.0 and squares[sq].rent:
                squares[sq] = squares[sq].model_copy(
                    update={"rent": tuple(B.scale(v, m) for v in squares[sq].rent)})
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
            f = B.nice_factor(lo, hi)
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
                      if isinstance(k, tuple) and a <= 1.0 < b]
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
        return self.det.checker(ChargeFactors)

    def new_game(self) -> None:
        self.pending = None

    def on_bankrupt(self, e: Any) -> None:
        """A bankrupt payer's charge will never be paid."""
        if self.pending is not None and self.pending[0] == e.seat:
            self.pending = None
