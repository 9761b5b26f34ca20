"""The mutable state of one game.

Per-square facts that change rarely (owner, building level, mortgaged) are tuples that
are replaced, never mutated: observations and state copies share them for free. Per-
player facts that change every turn are lists. `copy()` is shallow where that is safe,
so the planner can copy a state for look-ahead in about a microsecond.
"""

from __future__ import annotations

from openmono.compiled import Rules

NOBODY = -1


class GameState:
    __slots__ = (
        "players", "cash", "position", "in_jail", "jail_turns", "jail_cards", "active",
        "owner", "level", "mortgaged", "houses_left", "hotels_left", "decks",
        "turn", "current", "doubles", "phase", "holdings_version",
        "board_version", "bank_cash",
    )

    def __init__(self, rules: Rules, players: int) -> None:
        n = rules.n
        b = rules.bank
        self.players = players
        self.cash = [b.starting_cash] * players
        self.position = [rules.go] * players
        self.in_jail = [False] * players
        self.jail_turns = [0] * players
        # Per player: the deck index of each get-out-of-jail card held.
        self.jail_cards: list[list[int]] = [[] for _ in range(players)]
        self.active = [True] * players
        self.owner: tuple[int, ...] = (NOBODY,) * n
        self.level: tuple[int, ...] = (0,) * n
        self.mortgaged: tuple[bool, ...] = (False,) * n
        self.houses_left = b.house_stock
        self.hotels_left = b.hotel_stock
        # The bank's cash (`BankRules.bank_cash`); None: it never runs short.
        self.bank_cash: int | None = b.bank_cash
        # Per deck: card indices, top first. Drawn cards go to the bottom.
        self.decks: list[list[int]] = [list(range(len(d))) for d in rules.decks]
        self.turn = 0
        self.current = 0
        self.doubles = 0
        self.phase = "pre_roll"
        # Change counters that stamp the engine's standing orders (not part of the
        # game): per player, bumped whenever one of its properties changes owner,
        # buildings or mortgage; `board_version[0]`, whenever any property does.
        self.holdings_version = [0] * players
        self.board_version = [0]

    def copy(self) -> GameState:
        new = GameState.__new__(GameState)
        new.players = self.players
        new.cash = self.cash[:]
        new.position = self.position[:]
        new.in_jail = self.in_jail[:]
        new.jail_turns = self.jail_turns[:]
        new.jail_cards = [c[:] for c in self.jail_cards]
        new.active = self.active[:]
        new.owner = self.owner
        new.level = self.level
        new.mortgaged = self.mortgaged
        new.houses_left = self.houses_left
        new.hotels_left = self.hotels_left
        new.bank_cash = self.bank_cash
        new.decks = [d[:] for d in self.decks]
        new.turn = self.turn
        new.current = self.current
        new.doubles = self.doubles
        new.phase = self.phase
        new.holdings_version = self.holdings_version[:]
        new.board_version = self.board_version[:]
        return new

    # --- per-square setters (tuples are replaced, never mutated) ------------------
    def set_owner(self, square: int, seat: int) -> None:
        o = list(self.owner)
        before = o[square]
        o[square] = seat
        self.owner = tuple(o)
        self.board_version[0] += 1
        if before >= 0:
            self.holdings_version[before] += 1
        if seat >= 0:
            self.holdings_version[seat] += 1

    def set_level(self, square: int, level: int) -> None:
        lv = list(self.level)
        lv[square] = level
        self.level = tuple(lv)
        self.board_version[0] += 1
        if self.owner[square] >= 0:
            self.holdings_version[self.owner[square]] += 1

    def set_mortgaged(self, square: int, flag: bool) -> None:
        m = list(self.mortgaged)
        m[square] = flag
        self.mortgaged = tuple(m)
        self.board_version[0] += 1
        if self.owner[square] >= 0:
            self.holdings_version[self.owner[square]] += 1

    def snapshot(self) -> dict:
        """A JSON-ready dict of the whole state (for logs, replays and tests)."""
        return {
            "cash": list(self.cash),
            "position": list(self.position),
            "in_jail": list(self.in_jail),
            "jail_turns": list(self.jail_turns),
            "jail_cards": [list(c) for c in self.jail_cards],
            "active": list(self.active),
            "owner": list(self.owner),
            "level": list(self.level),
            "mortgaged": list(self.mortgaged),
            "houses_left": self.houses_left,
            "hotels_left": self.hotels_left,
            "bank_cash": self.bank_cash,
            "decks": [list(d) for d in self.decks],
            "turn": self.turn,
            "current": self.current,
            "doubles": self.doubles,
        }


def has_monopoly(rules: Rules, owner: tuple[int, ...], seat: int, group: int) -> bool:
    """True when `seat` owns at least the group's monopoly size of its members."""
    if group < 0:
        return False
    count = 0
    for m in rules.group_members[group]:
        if owner[m] == seat:
            count += 1
    return count >= rules.group_need[group]


def owned_in_group(rules: Rules, owner: tuple[int, ...], seat: int, group: int) -> int:
    count = 0
    for m in rules.group_members[group]:
        if owner[m] == seat:
            count += 1
    return count


def net_worth(rules: Rules, view, seat: int) -> int:
    """Cash + properties at price (mortgaged: price minus mortgage) + buildings at cost.

    Used for the turn-limit winner; `view` is a GameState or an Observation.
    """
    total = view.cash[seat]
    owner = view.owner
    level = view.level
    mortgaged = view.mortgaged
    for sq in rules.properties:
        if owner[sq] == seat:
            total += rules.price[sq] - (rules.mortgage[sq] if mortgaged[sq] and
                                        rules.bank.net_worth_mortgage else 0)
            lv = level[sq]
            if lv:
                total += lv * rules.house_cost[sq]
    return total


def sale_value(rules: Rules, view, sq: int) -> int:
    """What the bank pays for property `sq` (`BankRules.property_sellback`); a mortgaged
    one (`mortgaged_sellback`) brings its refund minus the cost of lifting the mortgage,
    never less than nothing (GNOME's foreclosure)."""
    refund = rules.property_refund[sq]
    if view.mortgaged[sq]:
        return max(0, refund - rules.unmortgage_cost[sq])
    return refund


def after_build(rules: Rules, level: int, houses_left: int,
                hotels_left: int) -> tuple[int, int, int]:
    """(new level, houses left, hotels left) after one more building level: a hotel
    takes a hotel from the bank and gives its houses back."""
    new = level + 1
    if new == rules.hotel_level:
        return new, houses_left + level, hotels_left - 1
    return new, houses_left - 1, hotels_left


def after_sell_building(rules: Rules, level: int, houses_left: int,
                        hotels_left: int) -> tuple[int, int, int, int]:
    """(new level, levels removed, houses left, hotels left) after selling one level.

    A hotel turns back into houses only as far as the bank's stock allows (housing
    shortage); every level removed is refunded.
    """
    if level == rules.hotel_level:
        houses = min(level - 1, houses_left)
        return houses, level - houses, houses_left - houses, hotels_left + 1
    return level - 1, 1, houses_left + 1, hotels_left


def hotel_breakdown(rules: Rules, levels: list[int], sold: int, houses_left: int,
                    hotels_left: int) -> tuple[list[int], int, int]:
    """(new levels, houses left, hotels left) when the street at index `sold` of a
    group (`levels`, one owner's streets) sells its hotel and the bank has too few
    houses to leave it at the top house level.

    A hotel is never broken down unevenly: every hotel of the group goes back, and the
    houses of the group plus the bank's are spread as evenly as possible (levels differ
    by at most one; the sold street, then the later streets, get the lower level).
    Every level removed is refunded by the caller.
    """
    hotel = rules.hotel_level
    hotels = sum(1 for lv in levels if lv == hotel)
    pool = houses_left + sum(lv for lv in levels if lv != hotel)
    k = len(levels)
    base, extra = divmod(pool, k)
    top = hotel - 1
    if base >= top:  # enough houses for every street: (only when no hotel is short)
        base, extra = top, 0
    # Streets other than the sold one, in board order, take the extra houses first.
    order = [i for i in range(k) if i != sold] + [sold]
    new = [base] * k
    for i in order[:extra]:
        new[i] += 1
    # Never add buildings to a street: a house street keeps at most what it had.
    new = [min(n, old) if old != hotel else n for n, old in zip(new, levels)]
    used = sum(new)
    return new, pool - used, hotels_left + hotels
