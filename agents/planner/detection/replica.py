"""The public state of a game as the events tell it, the detector's replica.

Every cash movement is a `Payment`, every move a `Moved`, ...: replaying the events
gives cash, positions, jail, owners, buildings and mortgages, which checkers compare
with what the rules predict and with what an observation shows (a difference is a
hidden rule or a filtered observation). `Turn` holds what the current turn has shown.
"""

from __future__ import annotations

from typing import Any

from openmono.compiled import Rules
from openmono.state import buildings_held, has_monopoly


class Replica:
    """Cash, positions, jail and bankruptcy per seat; owner, level and mortgage per square.
    Written by the `on_<kind>` event records (after the checkers saw the event) and,
    where an observation is trusted over the events, by the checkers."""

    def __init__(self) -> None:
        self.cash: list[int] = []
        self.pos: list[int] = []
        self.jailed: list[bool] = []
        self.active: list[bool] = []
        self.owner: list[int] = []
        self.level: list[int] = []
        self.mort: list[bool] = []
        self.cash_offset = 0  # believed starting cash minus the one shown (all games)
        self.taxes_paid = 0  # tax paid this game (feeds pot-like rules)

    def start(self, players: int, R: Rules, starting_cash: int) -> None:
        """The state at the start of a game on the believed board."""
        n = R.n
        self.cash = [starting_cash + self.cash_offset] * players
        self.pos = [R.go] * players
        self.jailed = [False] * players
        self.active = [True] * players
        self.owner = [-1] * n
        self.level = [0] * n
        self.mort = [False] * n

    def take(self, obs: Any) -> None:
        """Take the state from the observation (joined mid-game, or after a rule change)."""
        self.pos = list(obs.position)
        self.jailed = list(obs.in_jail)
        self.active = list(obs.active)
        self.cash = list(obs.cash)
        self.owner = list(obs.owner)
        self.level = list(obs.level)
        self.mort = list(obs.mortgaged)

    # --- event records -------------------------------------------------------------------
    def on_payment(self, e: Any) -> None:
        """Move the cash the payment moves (the bank, seat -1, has no cash to track)."""
        payer, payee, amount = e[0], e[1], e[2]
        if payer != -1:
            self.cash[payer] -= amount
        if payee != -1:
            self.cash[payee] += amount

    def on_moved(self, e: Any) -> None:
        """Put the token where the move ended."""
        self.pos[e[0]] = e[2]

    def on_property_transferred(self, e: Any) -> None:
        """Record the property's new owner (a purchase, auction, trade or bankruptcy)."""
        self.owner[e.square] = e.to_seat

    def on_building_changed(self, e: Any) -> None:
        """Record the street's new building level."""
        self.level[e.square] = e.level

    def on_mortgage_changed(self, e: Any) -> None:
        """Record whether the property is now mortgaged."""
        self.mort[e.square] = e.mortgaged

    def on_jailed(self, e: Any) -> None:
        """Record that the seat went to jail."""
        self.jailed[e.seat] = True

    def on_released(self, e: Any) -> None:
        """Record that the seat left jail."""
        self.jailed[e.seat] = False

    def on_bankrupt(self, e: Any) -> None:
        """Record that the seat is out of the game (and so out of jail)."""
        self.active[e.seat] = False
        self.jailed[e.seat] = False

    # --- questions -----------------------------------------------------------------------
    def net_worth(self, R: Rules, seat: int) -> int:
        """Cash plus the believed value of the seat's properties and buildings."""
        total = self.cash[seat]
        for sq in R.properties:
            if self.owner[sq] == seat:
                total += R.price[sq] - (R.mortgage[sq] if self.mort[sq] else 0)
                total += self.level[sq] * R.house_cost[sq]
        return total

    def buildings(self, R: Rules, seat: int) -> tuple[int, int]:
        """(houses, hotels) the seat owns: what repairs and building taxes count."""
        return buildings_held(R, self.owner, self.level, seat)

    def sets_of(self, R: Rules, seat: int) -> int:
        """The buildable sets the seat holds."""
        sets = 0
        for g, members in enumerate(R.group_members):
            if members and R.group_buildable[g] and has_monopoly(R, self.owner, seat, g):
                sets += 1
        return sets

    def most_sets(self, R: Rules) -> int:
        """The most buildable sets one player holds."""
        per: dict[int, int] = {}
        for g, members in enumerate(R.group_members):
            if members and R.group_buildable[g]:
                o = self.owner[members[0]]
                if o >= 0 and has_monopoly(R, self.owner, o, g):
                    per[o] = per.get(o, 0) + 1
        return max(per.values(), default=0)


class Turn:
    """What the current turn has shown: whose it is, its roll, its moves, Go passed.
    A new one at each game start (no turn yet)."""

    def __init__(self) -> None:
        self.cur = -1
        self.rolled = True
        self.roll: tuple[int, int] | None = None  # (seat, total) of this turn's last throw
        self.last_total = 0  # the last throw's total (a utility's rent reads it)
        self.passed_go: set[int] = set()  # seats paid a Go salary this turn
        self.moves: dict[int, list[tuple[int, int, str]]] = {}  # (start, end, reason) per seat

    def start(self, seat: int) -> None:
        """A turn of `seat` starts: nothing rolled or moved yet."""
        self.cur = seat
        self.rolled = False
        self.roll = None
        self.passed_go = set()
        self.moves = {}
