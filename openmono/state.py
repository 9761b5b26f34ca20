"""The mutable state of one game, and the only code that writes it.

Per-square facts that change rarely (owner, building level, mortgaged) are tuples that
are replaced, never mutated: observations and state copies share them for free. Per-
player facts that change every turn are lists. `copy()` is shallow where that is safe,
so the planner can copy a state for look-ahead in about a microsecond.

Every write goes through a method of `GameState` (the engine's rules decide *what*
changes; the state records it), and the state keeps its own caches and versions, so
stale observations and lapsed standing orders are detected without anyone else
counting:

- `shown_players` is the per-player part of an observation (cash, position, jail,
  cards, active as tuples), shared by every observation until a per-player write drops
  it (`players_view()` rebuilds it; the rarely changing jail, cards and active part is
  cached apart);
- `holdings_version[seat]` moves with any property of `seat` (owner, buildings,
  mortgage), `board_version[0]` with any property at all (what standing orders watch).

Code outside `openmono/` never writes a field (`tests/test_state_writes.py`); tests
that set up a position by hand call `touch()` (or the game's
`invalidate_observations()`) afterwards.

Examples:
    >>> import openmono
    >>> from openmono.compiled import compile_rules
    >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
    >>> st.pay(0, 1, 200); st.cash
    [1300, 1700]
    >>> st.players_view()[:2]
    ((1300, 1700), (0, 0))
    >>> st.move(1, 5); st.shown_players is None, st.players_view()[1]
    (True, (0, 5))
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from openmono.compiled import Rules

NOBODY = -1
BANK = -1  # = openmono.events.BANK: a payer or payee that is the bank


class View(Protocol):
    """What the legality and worth rules read of a game: a `GameState` (engine-side)
    or an `Observation` (an agent's), which both have these fields; tuples indexed by
    seat (cash, in_jail, jail_cards, active) or by square (owner, level, mortgaged)."""

    cash: Sequence[int]
    owner: Sequence[int]
    level: Sequence[int]
    mortgaged: Sequence[bool]
    houses_left: int
    hotels_left: int
    bank_cash: int | None
    in_jail: Sequence[bool]
    jail_cards: Sequence[Any]
    active: Sequence[bool]


class GameState:
    """The mutable state of one game: cash, positions, jail, owners, buildings,
    mortgages, decks, bank stock. Engine-side only: every write goes through one of its
    methods, which keep its caches and versions (agents see an `Observation`, plugins a
    `GameAPI` view).
    """
    __slots__ = (
        "players", "cash", "position", "in_jail", "jail_turns", "jail_cards", "active",
        "owner", "level", "mortgaged", "houses_left", "hotels_left", "decks",
        "turn", "current", "doubles", "holdings_version",
        "board_version", "bank_cash", "shown_players", "_shown_rare",
    )

    def __init__(self, rules: Rules, players: int) -> None:
        n = rules.n
        b = rules.bank
        self.players = players
        self.cash = [b.starting_cash] * players
        self.position = [rules.go] * players
        self.in_jail = [False] * players
        self.jail_turns = [0] * players
        # Per player: the (deck, card) of each get-out-of-jail card held.
        self.jail_cards: list[list[tuple[int, int]]] = [[] for _ in range(players)]
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
        # Versions (not part of the game; see the module docstring).
        self.holdings_version = [0] * players
        self.board_version = [0]
        self.shown_players: tuple | None = None  # see `players_view`
        self._shown_rare: tuple | None = None

    def copy(self) -> GameState:
        """A copy to play ahead on (per-square tuples shared: they are never mutated).

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> twin = st.copy(); twin.pay(0, 1, 100); st.cash, twin.cash
            ([1500, 1500], [1400, 1600])
        """
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
        new.holdings_version = self.holdings_version[:]
        new.board_version = self.board_version[:]
        new.shown_players = self.shown_players
        new._shown_rare = self._shown_rare
        return new

    # --- versions ------------------------------------------------------------------
    def touch(self) -> None:
        """Declare that fields were written by hand (a test, a repair): every cached
        view is rebuilt and every watched version moves.

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> view = st.players_view()
            >>> st.cash[0] = 7; st.touch(); st.players_view()[0]
            (7, 1500)
        """
        self.shown_players = self._shown_rare = None
        self.board_version[0] += 1
        for seat in range(self.players):
            self.holdings_version[seat] += 1

    def players_view(self) -> tuple:
        """(cash, position, in_jail, jail_turns, jail-card counts, active) as tuples
        (`openmono.observation.PLAYER_FIELDS`), shared by every observation until a
        per-player field changes: `shown_players`, rebuilt when a write dropped it."""
        out = self.shown_players
        if out is not None:
            return out
        rare = self._shown_rare
        if rare is None:  # jail, cards and active change rarely: cached apart
            rare = self._shown_rare = (tuple(self.in_jail), tuple(self.jail_turns),
                                       tuple(map(len, self.jail_cards)), tuple(self.active))
        out = self.shown_players = (tuple(self.cash), tuple(self.position)) + rare
        return out

    # --- money -----------------------------------------------------------------------
    def pay(self, payer: int, payee: int, amount: int) -> None:
        """Move `amount` from `payer` to `payee` (seats or BANK; the bank's reserve, if
        it keeps one, moves too). Checks nothing: the engine's rules come first.

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.pay(BANK, 0, 200); st.pay(1, BANK, 100); st.cash
            [1700, 1400]
        """
        self.shown_players = None
        cash = self.cash
        if payer != BANK:
            cash[payer] -= amount
        elif self.bank_cash is not None:
            self.bank_cash -= amount
        if payee != BANK:
            cash[payee] += amount
        elif self.bank_cash is not None:
            self.bank_cash += amount

    def set_cash(self, seat: int, amount: int) -> None:
        """Set a seat's cash outright (a bankrupt seat's negative cash written off).

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.set_cash(1, -40); st.set_cash(1, 0); st.cash
            [1500, 0]
        """
        self.shown_players = None
        self.cash[seat] = amount

    # --- moves and jail -----------------------------------------------------------------
    def move(self, seat: int, square: int) -> None:
        """Put `seat` on `square` (no Go salary, no landing: the engine's rules).

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.move(0, 39); st.position, st.players_view()[1]
            ([39, 0], (39, 0))
        """
        self.shown_players = None
        self.position[seat] = square

    def jail(self, seat: int, square: int) -> None:
        """Send `seat` to jail on `square`; its doubles streak ends.

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.jail(1, 10); st.in_jail, st.position
            ([False, True], [0, 10])
            >>> st.wait_in_jail(1); st.release(1); st.in_jail, st.jail_turns
            ([False, False], [0, 0])
        """
        self.shown_players = self._shown_rare = None
        self.position[seat] = square
        self.in_jail[seat] = True
        self.jail_turns[seat] = 0
        self.doubles = 0

    def wait_in_jail(self, seat: int) -> None:
        """One more turn in jail for `seat`."""
        self.shown_players = self._shown_rare = None
        self.jail_turns[seat] += 1

    def release(self, seat: int) -> None:
        """`seat` leaves jail."""
        self.shown_players = self._shown_rare = None
        self.in_jail[seat] = False
        self.jail_turns[seat] = 0

    def retire(self, seat: int) -> None:
        """`seat` goes bankrupt: it leaves the game (and jail).

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.jail(1, 10); st.retire(1); st.active, st.in_jail
            ([True, False], [False, False])
        """
        self.shown_players = self._shown_rare = None
        self.active[seat] = False
        self.in_jail[seat] = False

    # --- cards ------------------------------------------------------------------------
    def draw(self, deck: int, at: int = 0) -> int:
        """Take the card at `at` (0: the top) out of `deck`; returns its index.

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> card = st.draw(0); st.put_back(0, card); st.decks[0][-1] == card
            True
        """
        return self.decks[deck].pop(at)

    def shuffle(self, deck: int, rng: Any) -> None:
        """Shuffle `deck` in place with `rng` (a `random.Random`).

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> import random
            >>> st.shuffle(0, random.Random(3))
            >>> sorted(st.decks[0]) == list(range(len(st.decks[0])))
            True
        """
        rng.shuffle(self.decks[deck])

    def put_back(self, deck: int, card: int) -> None:
        """Put `card` at the bottom of `deck`."""
        self.decks[deck].append(card)

    def hold_jail_card(self, seat: int, card: tuple[int, int]) -> None:
        """`seat` keeps a get-out-of-jail card, `(deck, card index)`.

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.hold_jail_card(0, (1, 4)); st.jail_cards, st.players_view()[4]
            ([[(1, 4)], []], (1, 0))
            >>> st.give_up_jail_card(0), st.jail_cards
            ((1, 4), [[], []])
        """
        self.shown_players = self._shown_rare = None
        self.jail_cards[seat].append(card)

    def give_up_jail_card(self, seat: int) -> tuple[int, int]:
        """`seat`'s oldest get-out-of-jail card leaves its hand; returns it."""
        self.shown_players = self._shown_rare = None
        return self.jail_cards[seat].pop(0)

    def replace_decks(self, decks: list[list[int]],
                      jail_cards: list[list[tuple[int, int]]]) -> None:
        """New deck orders and held cards (a novelty changed the decks).

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.replace_decks([[2, 0, 1]], [[(0, 3)], []]); st.decks, st.jail_cards
            ([[2, 0, 1]], [[(0, 3)], []])
        """
        self.shown_players = self._shown_rare = None
        self.decks[:] = decks
        for seat, held in enumerate(jail_cards):
            self.jail_cards[seat][:] = held

    # --- turns --------------------------------------------------------------------------
    def begin_turn(self) -> int:
        """The next turn starts (no doubles yet); returns its number.

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.begin_turn(), st.count_double(), st.begin_turn(), st.doubles
            (1, 1, 2, 0)
        """
        self.turn += 1
        self.doubles = 0
        return self.turn

    def count_double(self) -> int:
        """One more double this turn; returns how many."""
        self.doubles += 1
        return self.doubles

    def pass_to(self, seat: int) -> None:
        """The turn passes to `seat`.

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.pass_to(1); st.current
            1
        """
        self.current = seat

    # --- the bank's stock and the board ---------------------------------------------------
    def set_stock(self, houses_left: int, hotels_left: int) -> None:
        """What the bank has left of each building.

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.set_stock(30, 11); st.houses_left, st.hotels_left
            (30, 11)
        """
        self.houses_left = houses_left
        self.hotels_left = hotels_left

    def set_board(self, owner: tuple[int, ...], level: tuple[int, ...],
                  mortgaged: tuple[bool, ...]) -> None:
        """Every square at once (a novelty changed the board).

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.set_board((NOBODY,) * 3, (0,) * 3, (False,) * 3); len(st.owner)
            3
        """
        self.owner, self.level, self.mortgaged = tuple(owner), tuple(level), tuple(mortgaged)
        self.board_version[0] += 1
        for seat in range(self.players):
            self.holdings_version[seat] += 1

    # --- per-square setters (tuples are replaced, never mutated) ------------------
    def set_owner(self, square: int, seat: int) -> None:
        """`seat` (or NOBODY) now owns `square`.

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.set_owner(1, 0); st.owner[1], st.holdings_version, st.board_version
            (0, [1, 0], [1])
        """
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
        """Set the buildings on `square` (a level; the caller keeps the bank's stock)."""
        lv = list(self.level)
        lv[square] = level
        self.level = tuple(lv)
        self.board_version[0] += 1
        if self.owner[square] >= 0:
            self.holdings_version[self.owner[square]] += 1

    def set_mortgaged(self, square: int, flag: bool) -> None:
        """Mark `square` mortgaged or lifted."""
        m = list(self.mortgaged)
        m[square] = flag
        self.mortgaged = tuple(m)
        self.board_version[0] += 1
        if self.owner[square] >= 0:
            self.holdings_version[self.owner[square]] += 1

    def snapshot(self) -> dict:
        """A JSON-ready dict of the whole state (for logs, replays and tests).

        Examples:
            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.set_owner(1, 0); st.set_level(1, 3); st.level[1], st.holdings_version
            (3, [2, 0])

            >>> import openmono
            >>> from openmono.compiled import compile_rules
            >>> st = GameState(compile_rules(openmono.standard_schema()), 2)
            >>> st.set_owner(5, 1); st.set_mortgaged(5, True); st.mortgaged[5], st.board_version
            (True, [2])
        """
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
    """How many members of `group` `seat` owns (engine-side; agents have
    `agents.policy_helpers.owned_in`)."""
    count = 0
    for m in rules.group_members[group]:
        if owner[m] == seat:
            count += 1
    return count


def buildings_held(rules: Rules, owner: Sequence[int], level: Sequence[int],
                   seat: int) -> tuple[int, int]:
    """(houses, hotels) `seat` owns: what repairs, building taxes and upkeep count."""
    hotel = rules.hotel_level
    houses = hotels = 0
    for sq in rules.streets:
        if owner[sq] == seat and level[sq]:
            if level[sq] == hotel:
                hotels += 1
            else:
                houses += level[sq]
    return houses, hotels


def net_worth(rules: Rules, view: View, seat: int) -> int:
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


def sale_value(rules: Rules, view: View, sq: int) -> int:
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
