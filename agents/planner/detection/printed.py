"""Printed values that the payments contradict, believed: what a property costs, what a
mortgage raises, what a house costs, and the bank's own rules (jail fine, Go salary,
mortgage interest, sell-backs, building stock).

`PriceChecker` and `BankChecker` report such changes; this checker makes the planner
play by them. Under `effects` the rules shown keep the old prices, so without it the
planner would keep valuing a mortgage, a purchase or a house at the old figure: count
on mortgages that raise almost nothing, or buy at a price it never meant to pay.

A price is read as a factor on the printed value: each payment allows an interval of
factors (the amount is the printed value times the factor, rounded either way), runs
per square intersect them as `ChargeFactors` does for rents, and one factor seen on at
least three squares of two groups, with no square seen unchanged since, is taken for a
factor on every property (on fewer, for the groups seen).
"""

from __future__ import annotations

from typing import Any

from openmono.schema import GameSchema

from agents.planner import beliefs as B
from agents.planner.detection.checker import Checker

# The payment reason that shows each printed square value.
FIELDS = {"buy": "price", "mortgage": "mortgage", "build": "house_cost"}
# The bank's rules a payment can show (`BankChecker`, `MovementChecker` report them).
BANK_FIELDS = ("jail_fine", "go_salary", "mortgage_interest", "property_sellback",
               "building_sellback", "house_stock", "hotel_stock")


class PrintedValues(Checker):
    """Runs of factors per printed square value, and the bank values reported changed;
    adopted at game ends, applied to the believed schema."""

    reasons = tuple(FIELDS)

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        # field -> square -> [lo, hi, clock of the first payment, clock of the last,
        # the last amount paid]
        self.runs: dict[str, dict[int, list]] = {f: {} for f in FIELDS.values()}
        self.values: dict[str, dict[int, int]] = {}  # adopted: field -> square -> value
        self.bank: dict[str, Any] = {}  # adopted bank values

    def rules_changed(self) -> None:
        """Factors were read against the old printed values: start afresh."""
        self.runs = {f: {} for f in FIELDS.values()}
        self.values = {}

    def _printed(self, field: str, sq: int) -> int:
        R = self.det.R
        return int({"price": R.price, "mortgage": R.mortgage,
                    "house_cost": R.house_cost}[field][sq] or 0)

    def on_payment(self, e: Any) -> None:
        """The factor this payment implies on the printed value, kept as a run per square
        until a payment contradicts it."""
        _, _, amount, reason, sq = e
        det = self.det
        if det.skip or not 0 <= sq < det.R.n:
            return
        field = FIELDS[reason]
        printed = self._printed(field, sq)
        if printed <= 0:
            return
        # The amount is printed x factor rounded down or to nearest: allow both.
        lo, hi = (amount - 1) / printed, (amount + 1) / printed
        clock = det.clock
        runs = self.runs[field]
        run = runs.get(sq)
        if run is None or lo >= run[1] or hi <= run[0]:
            runs[sq] = [lo, hi, clock, clock, amount]
        else:
            run[0], run[1], run[3], run[4] = max(run[0], lo), min(run[1], hi), clock, amount

    def seen(self, field: str, sq: int) -> int:
        """The value of one printed field on one square as its own payments show it (the
        printed value if none contradicted it): what `BankChecker` reads an unmortgage
        against, so new mortgage values are not taken for new interest."""
        run = self.runs[field].get(sq)
        return self._printed(field, sq) if run is None else int(run[4])

    # --- beliefs -------------------------------------------------------------------------
    def square_beliefs(self, field: str) -> dict[int, int]:
        """{square: believed value} for one printed field: the squares whose payments
        contradict it, extended to their groups or to every property when they agree."""
        R = self.det.R
        runs = self.runs[field]
        changed = {sq: r for sq, r in runs.items() if not r[0] <= 1.0 < r[1]}
        if not changed:
            return {}
        out = {sq: int(r[4]) for sq, r in changed.items()}  # as paid
        since = min(r[2] for r in changed.values())
        lo = max(r[0] for r in changed.values())
        hi = min(r[1] for r in changed.values())
        unchanged = any(r[0] <= 1.0 < r[1] and r[3] > since for r in runs.values())
        if lo < hi and not unchanged:
            f = B.nice_factor(lo, hi)
            groups = {R.group_of[sq] for sq in changed}
            if len(changed) >= 3 and len(groups) >= 2:
                targets = list(R.properties)
            else:
                targets = [m for g in groups for m in R.group_members[g]]
            for sq in targets:
                if self._printed(field, sq) > 0:
                    out.setdefault(sq, B.scale(self._printed(field, sq), f))
        return out

    def adopt(self) -> bool:
        """Believe the printed values and bank numbers the payments support; True when a
        belief changed."""
        values = {f: v for f in self.runs if (v := self.square_beliefs(f))}
        bank = {field: ch.new_value for (entity, field), ch in self.det.changes.items()
                if entity == "bank" and field in BANK_FIELDS
                and isinstance(ch.new_value, (int, float)) and ch.new_value >= 0}
        changed = values != self.values or bank != self.bank
        self.values, self.bank = values, bank
        return changed

    def believe(self, schema: GameSchema) -> GameSchema:
        """The believed schema with the adopted square values and bank rules."""
        if not (self.values or self.bank):
            return schema
        squares = list(schema.squares)
        for field, by_square in self.values.items():
            for sq, value in by_square.items():
                if sq < len(squares):
                    squares[sq] = squares[sq].model_copy(update={field: value})
        update: dict[str, Any] = {"squares": tuple(squares)}
        if self.bank:
            fields = type(schema.bank).model_fields
            bank = {k: type(getattr(schema.bank, k))(v) for k, v in self.bank.items()
                    if k in fields and getattr(schema.bank, k) is not None}
            update["bank"] = schema.bank.model_copy(update=bank)
        return schema.model_copy(update=update)
