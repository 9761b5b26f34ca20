"""Charges of an unknown rule made at no square (the end of a turn), fitted to what the
payer holds and built that turn, so that the planner can believe the rule
(`agents.planner.charges`) and not only report it."""

from __future__ import annotations

from typing import Any

from agents.base import NoveltyChange
from agents.planner.charges import BUILD_FEE, HOLDING, TAX, UPKEEP
from agents.planner.detection.checker import OTHER, Changes, Checker
from agents.planner.detection.unknown import FREE_REASONS

BANK = -1
MIN_SAMPLES = 3  # charges that must agree before a form is believed
MAX_SAMPLES = 200

Rule = tuple[str, str, Any]


class HoldingCharges(Checker):
    """Keeps, for each charge to the bank for an unknown reason at no square, the
    payer's houses and hotels and the levels it built this turn; at a game's end fits
    the simplest form they all agree with - a fee for building to one level, an upkeep
    for holding some hotels, or so much per house and per hotel - and offers it, with
    the per-building tax the tax checks found, as `det.rule_beliefs`."""

    reasons = (OTHER,)

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.samples: list[tuple[int, int, tuple[int, ...], int]] = []
        self.built: dict[int, list[int]] = {}
        # The most houses and hotels each seat held this turn: a charge it cannot pay
        # is paid after the buildings sold to raise it, so the holdings when the payment
        # shows are not those it was charged for.
        self.peak: dict[int, tuple[int, int]] = {}
        det.rule_beliefs = ()

    def on_turn_started(self, e: Any) -> None:
        """A new turn: forget what was built and held at its peak in the last one."""
        self.built = {}
        self.peak = {}

    def on_building_changed(self, e: Any) -> None:
        """Track the most buildings each seat held this turn and the levels it built, which
        a charge at the turn's end may be for."""
        det = self.det
        seat = e.seat
        before = det.replica.buildings(det.R, seat)  # (the replica records it after)
        houses, hotels = before
        top = det.R.hotel_level
        for lv, sign in ((det.replica.level[e.square], -1), (e.level, 1)):
            if lv == top:
                hotels += sign
            else:
                houses += sign * lv
        ph, pt = self.peak.get(seat, before)
        self.peak[seat] = (max(ph, houses), max(pt, hotels))
        if e.reason == "built":
            self.built.setdefault(seat, []).append(e.level)

    def on_payment(self, e: Any) -> None:
        """A charge to the bank for an unknown reason at no square: kept with the payer's
        buildings, for the fit."""
        payer, payee, amount, reason, sq = e
        det = self.det
        if payee != BANK or payer == BANK or sq >= 0 or reason in FREE_REASONS:
            return
        if payer != det.me and (not det.trust_others or det.assets_hidden):
            return
        houses, hotels = det.replica.buildings(det.R, payer)
        ph, pt = self.peak.get(payer, (0, 0))
        houses, hotels = max(houses, ph), max(hotels, pt)
        if len(self.samples) < MAX_SAMPLES:
            self.samples.append((houses, hotels, tuple(self.built.get(payer, ())), amount))

    def rules_changed(self) -> None:
        """The public rules changed: the charges kept were under the old rules."""
        self.samples = []

    def announced(self) -> None:
        """A novelty was announced: the fit uses post-novelty charges only."""
        self.samples = []

    def adopt(self) -> bool:
        """Believe the simplest charge rule the samples fit (and the per-building tax
        found), so the planner's value counts it; it changes `det.rule_beliefs`, not the
        schema."""
        rules = self.fit()
        tax = next((c for c in self.det.checkers if hasattr(c, "tax_per")), None)
        per = getattr(tax, "tax_per", None)
        if per is not None:
            rules = (*rules, (*TAX, {"per_house": round(per[0]), "per_hotel": round(per[1])}))
        if rules != self.det.rule_beliefs:
            self.det.rule_beliefs = rules
            self.det.version += 1
        return False

    def fit(self) -> tuple[Rule, ...]:
        """The form every sample agrees with (none while fewer than `MIN_SAMPLES`)."""
        s = self.samples
        if len(s) < MIN_SAMPLES:
            return ()
        amounts = {x[3] for x in s}
        for level in sorted({lv for x in s for lv in x[2]}):
            fees = {x[3] / x[2].count(level) if level in x[2] else None for x in s}
            if len(fees) == 1 and None not in fees:
                fee = fees.pop()
                return (("rule:end_of_turn", f"{BUILD_FEE}{level}", int(fee)),)
        if len(amounts) == 1 and all(x[1] >= 1 for x in s):
            return ((*UPKEEP, {"hotels": min(x[1] for x in s), "fee": amounts.pop()}),)
        if any(x[0] == x[1] == 0 for x in s):
            return ()  # charged holding nothing: not a charge on holdings
        return self._per_building(s)

    @staticmethod
    def _per_building(s: list[tuple[int, int, tuple[int, ...], int]]) -> tuple[Rule, ...]:
        """Least squares of the amount on houses and hotels held (no intercept)."""
        hh = sum(x[0] * x[0] for x in s)
        tt = sum(x[1] * x[1] for x in s)
        ht = sum(x[0] * x[1] for x in s)
        hy = sum(x[0] * x[3] for x in s)
        ty = sum(x[1] * x[3] for x in s)
        det = hh * tt - ht * ht
        if det > 0:
            a, b = (hy * tt - ty * ht) / det, (ty * hh - hy * ht) / det
        elif hh > 0:
            a, b = hy / hh, 0.0
        elif tt > 0:
            a, b = 0.0, ty / tt
        else:
            return ()
        a, b = max(a, 0.0), max(b, 0.0)
        if any(abs(a * x[0] + b * x[1] - x[3]) > max(1.0, 0.1 * x[3]) for x in s):
            return ()  # the amounts do not follow the buildings held
        return ((*HOLDING, {"house": round(a, 1), "hotel": round(b, 1)}),)

    def derived(self, out: Changes) -> None:
        """Reported with what else is characterised (an agent's report names it)."""
        for entity, attribute, new in self.det.rule_beliefs:
            if entity != TAX[0]:
                out[(entity, attribute)] = NoveltyChange(entity, attribute, new, None)
