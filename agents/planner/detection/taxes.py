"""Tax: what a landing on a tax square should cost, against what is charged."""

from __future__ import annotations

from typing import Any

from openmono.compiled import TAX

from agents.planner.detection.factors import LandingCharge


class TaxChecker(LandingCharge):
    """Sets the tax a landing makes due (`pending`: (seat, square, tax, (houses, hotels)
    at the landing)), checks each tax against the believed tax, factor and per-building
    part, and feeds `ChargeFactors` (factor runs, payments by builders)."""

    reasons = ("tax",)

    def landed(self, seat: int, sq: int, reason: str, ctx: tuple) -> None:
        """A landing on a tax square makes the believed tax due, with the payer's buildings
        at that moment (a building tax counts them before any sale to pay it)."""
        R = self.det.R
        if R.kind[sq] == TAX:
            self.pending = (seat, sq, R.tax[sq], self.det.replica.buildings(R, seat))

    def close(self) -> None:
        """The landing ended with no tax paid: a rule that waives it, or (for an opponent) a
        payment the observation hid."""
        pt = self.pending
        if pt is None:
            return
        self.pending = None
        if pt[2] > 0:
            if pt[0] != self.det.me:
                self.det.missing_payment(f"no tax charged on square {pt[1]}")
            else:
                self.det.detect(1.0, f"no tax charged on square {pt[1]}")

    def on_payment(self, e: Any) -> None:
        """A tax paid: against the believed tax, factor and per-building part; a tax on a
        square that charges none is a detection at once."""
        payer, _, amount, _, sq = e
        det = self.det
        R = det.R
        det.replica.taxes_paid += amount
        pt = self.pending
        buildings = None
        if pt is not None and pt[0] == payer:
            self.pending = None
            buildings = pt[3]
        if not 0 <= sq < R.n or R.tax[sq] <= 0:
            det.detect(1.0, f"tax paid on square {sq} that charges none")
            return
        if not (payer == det.me or det.trust_others) or (
                det.assets_hidden and payer != det.me):
            return
        self._check(payer, amount, sq, buildings)

    def _check(self, payer: int, amount: int, sq: int,
               buildings: tuple[int, int] | None) -> None:
        """The tax against the believed one; the evidence kept for the factors."""
        det = self.det
        R = det.R
        f = self.factors
        base = R.tax[sq]
        m = f.tax_mult.get(sq, 1.0)
        houses, hotels = buildings if buildings is not None else det.replica.buildings(R, payer)
        expected = int(base * m)
        per = f.tax_per
        if per is not None:
            expected += int(round(per[0] * houses + per[1] * hotels))
        if amount != expected:
            det.detect(1.0, f"tax {amount} on square {sq}, expected {expected}")
            if f.tax_since is None:
                f.tax_since = det.clock
                f.tax_extra = []  # earlier payments were made under the old rule
        if houses or hotels:
            f.tax_extra.append((sq, base, houses, hotels, amount))
            if len(f.tax_extra) > 200:
                del f.tax_extra[0]
        else:
            f.run(("tax", sq), amount / base, (amount + 1) / base)
