"""Payments for a reason no believed rule has: new rules, characterized by when they
happen (a landing, passing a square, after passing Go) and how much they move."""

from __future__ import annotations

from typing import Any

from agents.base import NoveltyChange
from agents.planner import beliefs as B
from agents.planner.detection.checker import OTHER, Changes, Checker

BANK = -1
# Payment reasons whose amount has no believed rule to check (or is checked elsewhere).
FREE_REASONS = frozenset(("trade", "bankruptcy", "mortgage_transfer_fee", "novelty_repair"))


class UnknownPaymentChecker(Checker):
    """Every payment for an unknown reason is a detection; its circumstances are kept
    (payer, amount, square, landed there?, passed it?, passed Go?, cash and net worth
    before it, taxes paid since the last such payment) so the report can say what the
    new rule looks like."""

    reasons = (OTHER,)

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.samples: dict[str, list[tuple]] = {}  # payment reason -> samples
        self.new_game()

    def new_game(self) -> None:
        """Start the game's count of the taxes paid before each kind of payout."""
        self.payout_mark: dict[str, int] = {}  # reason -> taxes paid at its last payment

    def on_payment(self, e: Any) -> None:
        """A payment for a reason no believed rule has is a detection; its circumstances
        (landing, passing, cash, taxes since the last) are kept to say what the rule
        looks like."""
        payer, payee, amount, reason, sq = e
        if reason in FREE_REASONS:
            return
        det = self.det
        det.detect(1.0, f"a payment for an unknown reason {reason!r}")
        rep = det.replica
        seat = payer if payer != BANK else payee
        n = det.n
        moves = det.turn.moves.get(seat, [])
        landed = bool(moves) and moves[-1][1] == sq
        passed = any(r == "dice" and 0 < (sq - a) % n < (b - a) % n for a, b, r in moves)
        taxes = rep.taxes_paid - self.payout_mark.get(reason, 0)
        self.payout_mark[reason] = rep.taxes_paid
        cash = rep.cash[payer] + amount if payer != BANK else 0
        worth = rep.net_worth(det.R, payer) + amount if payer != BANK else 0
        samples = self.samples.setdefault(reason, [])
        if len(samples) < 200:
            samples.append((payer, amount, sq, landed, passed, seat in det.turn.passed_go,
                            cash, worth, taxes))

    def derived(self, out: Changes) -> None:
        """What payments for unknown reasons look like: a charge or bonus for landing on
        a square, a toll for passing it, a charge after passing Go (as a rate of cash or
        net worth), or a payout that grows with the taxes paid since the last one."""
        R = self.det.R
        for reason, samples in self.samples.items():
            words = reason.replace("_", " ")
            sq = samples[0][2]
            name = R.names[sq] if 0 <= sq < R.n else None
            touched = name is not None and name in self.det.touched
            pays = all(p != BANK for p, *_ in samples)
            landed = [x for x in samples if x[3]]
            passing = [x for x in samples if not x[3] and x[4]]
            if pays and all(x[5] for x in samples) and len(landed) < len(samples):
                if not touched:
                    self._passing_go(out, words, samples)
                continue
            if landed and name is not None:
                self._landing(out, words, name, landed, pays, touched)
            if passing and pays:
                amounts = {x[1] for x in passing}
                fixed = next(iter(amounts)) if len(amounts) == 1 else None
                out[("rule:end_of_turn", f"passing {words}")] = NoveltyChange(
                    "rule:end_of_turn", f"passing {words}", fixed, 0)

    def _passing_go(self, out: Changes, words: str, samples: list[tuple]) -> None:
        R = self.det.R
        rate = _wealth_rate([(x[1], x[6], x[7]) for x in samples])
        out[("rule:passing_go", words)] = NoveltyChange("rule:passing_go", words, rate, 0)
        # A charge for passing Go is a rule of the Go square (its `params` when the board
        # prints it).
        go = f"square:{R.names[R.go]}"
        out[(go, "params")] = NoveltyChange(go, "params", None, None)

    @staticmethod
    def _landing(out: Changes, words: str, name: str, landed: list[tuple], pays: bool,
                 touched: bool) -> None:
        amounts = {x[1] for x in landed}
        fixed = next(iter(amounts)) if len(amounts) == 1 else None
        share = _pot_share(landed) if not pays else None
        if share is not None:
            out[("rule:tax", f"feeds the {words}")] = NoveltyChange(
                "rule:tax", f"feeds the {words}", share, 0)
        elif not touched:
            attr = "visit fee" if pays else "landing bonus"
            out[(f"square:{name}", attr)] = NoveltyChange(f"square:{name}", attr, fixed, 0)
            # A fee or bonus for landing is a parameter of the square (printed on the
            # board when announced).
            out[(f"square:{name}", "params")] = NoveltyChange(
                f"square:{name}", "params", None, None)


def _pot_share(samples: list[tuple]) -> float | None:
    """The slope of payouts on the taxes paid since the previous payout, when the
    payouts follow it closely (a pot fed by taxes)."""
    xs = [x[8] for x in samples]
    ys = [x[1] for x in samples]
    if len(xs) < 3 or len(set(xs)) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    slope = sxy / sxx
    r2 = sxy * sxy / (sxx * syy)
    return round(slope, 2) if slope > 0.05 and r2 > 0.9 else None


def _wealth_rate(samples: list[tuple[int, int, int]]) -> float | None:
    """The round rate of cash (or else net worth) every charge fits, if any."""
    best = None
    for base in (1, 2):
        lo, hi = 0.0, 10.0
        for amount, cash, worth in samples:
            v = cash if base == 1 else worth
            if v <= 0:
                continue
            lo, hi = max(lo, amount / v), min(hi, (amount + 1) / v)
        if lo < hi:
            f = B.nice_factor(lo, hi)
            if best is None or len(str(f)) < len(str(best)):
                best = f
    return best
