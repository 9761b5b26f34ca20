"""Prices printed on a square: what a purchase, a mortgage and a house cost."""

from __future__ import annotations

from typing import Any

from agents.planner.detection.checker import Checker


class PriceChecker(Checker):
    """A purchase, mortgage or house paid at other than the believed price is a changed
    price (the bank's rules on top of these are `BankChecker`'s)."""

    reasons = ("buy", "mortgage", "build")

    def on_payment(self, e: Any) -> None:
        """A purchase, mortgage or build against the believed price, mortgage value or house
        cost."""
        _, _, amount, reason, sq = e
        R = self.det.R
        if not 0 <= sq < R.n:
            return
        name = R.names[sq]
        if reason == "buy":
            if amount != R.price[sq]:
                self.det.change(f"square:{name}", "price", amount, R.price[sq],
                                why="price paid")
        elif reason == "mortgage":
            if amount != R.mortgage[sq]:
                self.det.change(f"square:{name}", "mortgage", amount, R.mortgage[sq],
                                why="mortgage proceeds")
        elif amount != R.house_cost[sq]:  # build
            self.det.change(f"square:{name}", "house_cost", amount, R.house_cost[sq],
                            why="house cost")
