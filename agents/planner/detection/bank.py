"""The bank's rules: jail fine, mortgage interest, sell-backs, building stock."""

from __future__ import annotations

import math
from typing import Any

from agents.planner.detection.checker import Checker
from agents.planner.detection.printed import PrintedValues


class BankChecker(Checker):
    """Payments the bank's rules set (`BankRules`), and the stock it starts a game with."""

    reasons = ("jail_fine", "unmortgage", "sell_building", "sell_property")

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.stock_seen: set[tuple[str, int]] = set()
        self.sell: tuple[int, int, int] | None = None  # (square, amount, seat) of a sale

    def new_game(self) -> None:
        """No building sale is waiting for its building change."""
        self.sell = None

    def start_game(self, obs: Any) -> None:
        """Before anyone has built, the bank holds its whole stock: a different count
        shown at the start of a game is a different stock."""
        if obs.turn > 1 or any(obs.level):
            return
        bank = self.det.public["bank"]
        for field, shown in (("house_stock", obs.houses_left), ("hotel_stock", obs.hotels_left)):
            believed = int(bank.get(field, shown))
            if shown != believed and (field, shown) not in self.stock_seen:
                self.stock_seen.add((field, shown))
                self.det.change("bank", field, shown, believed,
                                why=f"the bank starts with {shown}, not {believed} ({field})")

    def on_payment(self, e: Any) -> None:
        """A payment the bank's rules set (jail fine, lifting a mortgage, a sale to the
        bank) against the believed bank rules; a building sale is checked once its
        building change shows."""
        payee, amount, reason, sq = e[1], e[2], e[3], e[4]
        det = self.det
        bank = det.public["bank"]
        if reason == "jail_fine":
            fine = int(bank["jail_fine"])
            if amount != fine:
                det.change("bank", "jail_fine", amount, fine, why="jail fine")
            return
        R = det.R
        if not 0 <= sq < R.n:
            return
        if reason == "unmortgage":
            # (read against the mortgage its own payment showed, if one did)
            m = det.checker(PrintedValues).seen("mortgage", sq)
            interest = float(bank["mortgage_interest"])
            if amount != m + math.ceil(round(m * interest, 6)):
                rate = round((amount - m) / m, 2) if m else None
                det.change("bank", "mortgage_interest", rate, bank["mortgage_interest"],
                           why="unmortgage cost")
        elif reason == "sell_building":
            self.sell = (sq, amount, payee)  # checked when the building goes
        else:  # sell_property
            refund = R.property_refund
            if refund is None or amount != refund[sq]:
                price = R.price[sq]
                det.change("bank", "property_sellback",
                           round(amount / price, 2) if price else None,
                           bank["property_sellback"], why="property sold")

    def before_event(self, e: Any) -> None:
        """A building sale is followed by its building change at once, or not at all."""
        sell = self.sell
        if sell is not None and not (e.kind == "building_changed" and e.square == sell[0]):
            self.sell = None

    def on_building_changed(self, e: Any) -> None:
        """The refund of a sale against the buildings it removed (level before `e`)."""
        sq = e.square
        sell = self.sell
        if sell is None or sell[0] != sq:
            return
        self.sell = None
        det = self.det
        removed = det.replica.level[sq] - e.level
        refund = det.R.building_refund[sq]
        if removed > 0 and sell[1] != removed * refund and not det.skip:
            cost = det.R.house_cost[sq]
            frac = round(sell[1] / (removed * cost), 2) if cost else None
            det.change("bank", "building_sellback", frac,
                       det.public["bank"]["building_sellback"], why="building sold back")
