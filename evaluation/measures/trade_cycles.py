"""A seat's sell-and-buy-back cycles, read from a game's events.

The DRL learners win against GNOME's accept rule by selling a property for cash and
buying it back for less. The results page claims that loop and its prices; this counts
them from the accepted trades themselves rather than from one example game: each
accepted trade that moves exactly one property between the seat and another player for
cash alone, priced as a multiple of the property's printed price, and each sale the
seat later undoes by buying the same property back (from whoever holds it then).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

# The cash levels of the DRL action space (agents/drl/encoding.py: price * 3 // 4,
# price, price * 5 // 4); any other price is "other".
LEVELS = (("0.75x", 3, 4), ("1x", 1, 1), ("1.25x", 5, 4))


def price_level(cash: int, price: int) -> str:
    """The level name of `cash` for a property of `price`, or "other"."""
    if price <= 0:
        raise ValueError(f"a property price must be positive, got {price}")
    for name, num, den in LEVELS:
        if cash == price * num // den:
            return name
    return "other"


@dataclass
class CycleTally:
    """What one seat did by simple cash trades in one or more games."""

    sells: Counter[str] = field(default_factory=Counter)  # level -> sales by the seat
    buys: Counter[str] = field(default_factory=Counter)  # level -> purchases by the seat
    cycles: Counter[str] = field(default_factory=Counter)  # "sell->buy" level pairs
    # "sell" / "buy" -> those of the seat's sales and purchases its partner offered
    offered_by_partner: Counter[str] = field(default_factory=Counter)
    cycle_gain: int = 0  # cash the cycles gained: sale price minus buy-back price

    def add(self, other: CycleTally) -> None:
        """Add another tally (another game) to this one."""
        self.sells.update(other.sells)
        self.buys.update(other.buys)
        self.cycles.update(other.cycles)
        self.offered_by_partner.update(other.offered_by_partner)
        self.cycle_gain += other.cycle_gain

    @property
    def cycle_count(self) -> int:
        """All completed cycles, whatever their prices."""
        return sum(self.cycles.values())


def _cash_sale(offer: Any, offerer: int, seat: int) -> tuple[str, int, int] | None:
    """("sell" | "buy", square, cash) when the trade moves one property between `seat`
    and its partner for cash alone, seen from `seat`; None otherwise."""
    if offer.give_jail_cards or offer.get_jail_cards:
        return None
    give, get = tuple(offer.give), tuple(offer.get)
    if offerer == seat:
        if len(give) == 1 and not get and offer.get_cash and not offer.give_cash:
            return "sell", give[0], offer.get_cash
        if len(get) == 1 and not give and offer.give_cash and not offer.get_cash:
            return "buy", get[0], offer.give_cash
    elif offer.to == seat:
        if len(get) == 1 and not give and offer.give_cash and not offer.get_cash:
            return "sell", get[0], offer.give_cash
        if len(give) == 1 and not get and offer.get_cash and not offer.give_cash:
            return "buy", give[0], offer.get_cash
    return None


def seat_cycles(events: Iterable[Any], seat: int, prices: Sequence[int]) -> CycleTally:
    """The tally of `seat`'s cash trades in one game's `events` (engine event tuples);
    `prices[sq]` is square sq's printed price."""
    if seat < 0:
        raise ValueError(f"seat must be >= 0, got {seat}")
    tally = CycleTally()
    sold: dict[int, tuple[str, int]] = {}  # square -> (level, cash) of the seat's last sale
    for ev in events:
        if getattr(ev, "kind", None) != "trade_answered" or not ev.accepted:
            continue
        sale = _cash_sale(ev.offer, ev.from_seat, seat)
        if sale is None:
            continue
        side, sq, cash = sale
        level = price_level(cash, prices[sq])
        if ev.from_seat != seat:
            tally.offered_by_partner[side] += 1
        if side == "sell":
            tally.sells[level] += 1
            sold[sq] = (level, cash)
        else:
            tally.buys[level] += 1
            before = sold.pop(sq, None)
            if before is not None:
                tally.cycles[f"{before[0]}->{level}"] += 1
                tally.cycle_gain += before[1] - cash
    return tally
