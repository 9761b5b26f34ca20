"""A DRL agent's model of what the table shows it: each outcome it has seen, by context.

The networks predict values, not events, so on their own they notice a changed rule
only through its effect on the return (`surprise.py`), and a per-game CUSUM on the
return needs many games to see a small change. This model learns what a player learns
by watching, with no knowledge of the rules: every outcome the agent observes is filed
under its context, and the model predicts that a context gives the outcome it gave
before.

    rent             square, its buildings, how many of its group the owner holds and
                     how many of those are mortgaged, how the payer arrived (dice, or
                     which card); a utility's rent is filed per pip of the payer's roll
    buy, build, mortgage, unmortgage, transfer fee, tax, jail fine, GO salary
                     the square (and for a building sale the level it went down to)
    card payments    the card, and the payer's houses and hotels (street repairs)
    moves            by dice: the squares moved beyond the pips rolled; by card: the
                     card and the start square give the end square; the GO salary a
                     move pays (0 if none), by how it moved and whether it wrapped
    dice             how many dice; a face value never seen before
    start            a seat's opening cash
    bank stock       at every decision, the bank's houses and hotels plus those on the
                     board (a building is always in one of the two places)
    cards            the text of each card (deck and index)
    jail             at every decision, whether the board shows each seat in jail as its
                     jailings and releases say; whether a move to jail is followed by
                     the jailing; whether a jail fine is paid by a jailed player
    actions          a plugin action or a building refusal never offered before
    kinds            a payment reason never seen while calibrating, seen in `NEW_KIND`
                     turns of one game (a rule's new payment, say; the engine's rarer
                     event kinds, a card or a shortage auction, are not counted)

A context seen at least `FIRM` times with one outcome is *firm*; another outcome there
later is a *contradiction*, the model's surprise. A context that gives two outcomes
while it is not yet firm (the model does not capture everything the outcome depends
on) is dropped for good. The first `calibration_games` games of a trial (before the
earliest injection the harness draws) only teach. Alarm: `ALARM` contradictions after
them. The false-alarm rate on control trials is what `docs/results/detection.md` reports, with
the command that measured it.
"""

from __future__ import annotations

from typing import Any, Hashable

from agents.base import NoveltyReport
from openmono.events import BANK

FIRM = 2  # sightings with one outcome before a context is trusted
NEW_KIND = 3  # turns of one game showing a payment reason never seen in calibration
ALARM = 2  # contradictions after calibration that raise the alarm
CALIBRATION_GAMES = 15
# payments whose amount is a bargain between players, not a rule
_NEGOTIATED = frozenset({"trade", "auction", "bankruptcy"})
_BY_SQUARE = frozenset({"buy", "build", "mortgage", "unmortgage", "mortgage_transfer_fee",
                        "tax"})


def _buildings(levels: Any, hotel: int) -> tuple[int, int]:
    """(houses, hotels) on squares of these building levels (a hotel is `hotel` or more)."""
    houses = hotels = 0
    for lv in levels:
        if lv:
            if lv >= hotel:
                hotels += 1
            else:
                houses += lv
    return houses, hotels


class OutcomeModel:
    """Outcomes by context, learned from the agent's own games; counts contradictions."""

    def __init__(self, calibration_games: int = CALIBRATION_GAMES, firm: int = FIRM,
                 alarm: int = ALARM) -> None:
        self.calibration_games, self.firm, self.alarm = calibration_games, firm, alarm
        self.table: dict[Hashable, list] = {}  # context -> [outcome, sightings]; None: dropped
        self.kinds: set[Hashable] = set()  # payment reasons seen in calibration
        self.unknown: dict[Hashable, set[int]] = {}
        self.turn = 0
        self.games = 0
        self.contradictions = 0  # after calibration, over the trial
        self.game_contradictions = 0
        self.alarm_game: int | None = None
        self.first: list[tuple[Hashable, Any, Any]] = []  # (context, expected, seen), a few
        self._fresh = True

    # -- a game ----------------------------------------------------------------------
    def begin_game(self, obs: Any) -> None:
        rules = obs.rules
        self.rules = rules
        self.owner = [-1] * rules.n
        self.level = [0] * rules.n
        self.mortgaged = [False] * rules.n
        self.pips = [0] * len(obs.cash)  # each seat's last roll
        self.arrival: list[Hashable] = ["dice"] * len(obs.cash)  # how each seat last moved
        self.card: list[Hashable] = [None] * len(obs.cash)  # each seat's last card drawn
        self.drawer = 0  # who drew the last card
        self.drawer_buildings = (0, 0)  # their houses and hotels at the draw
        self.salary: tuple[Hashable, int] | None = None  # a move waiting for its GO salary
        self.sale: tuple[int, int] | None = None  # a building sale's (square, amount)
        self.jailed = list(obs.in_jail)  # each seat's jail, by its jailings and releases
        self.jail_move: int | None = None  # a seat moved to jail, its jailing to come
        self.game_contradictions = 0
        # this game's turns with a kind new since calibration, by kind
        self.unknown: dict[Hashable, set[int]] = {}
        self.turn = 0
        self._fresh = True

    def observe(self, obs: Any) -> None:
        """One observation: its events in order, then what the decision offers."""
        if self._fresh:  # the opening cash: this observation's less the payments since
            self._fresh = False
            cash = list(obs.cash)
            for e in obs.events:
                if e.kind == "payment":
                    if e.payer != BANK:
                        cash[e.payer] += e.amount
                    if e.payee != BANK:
                        cash[e.payee] -= e.amount
            self._see(("start_cash",), tuple(cash))
        for e in obs.events:
            self._event(e)
        houses, hotels = _buildings(obs.level, obs.rules.hotel_level)
        self._see(("bank_stock",), (obs.houses_left + houses, obs.hotels_left + hotels))
        jailed = self.jailed
        for s, shown in enumerate(obs.in_jail):
            if obs.active[s]:
                self._see(("jail_shown",), bool(shown) == jailed[s])
        self.jailed = [bool(j) for j in obs.in_jail]
        # Why: the board as shown is the truth; events replayed from it stay exact even
        # where an event is not shown (a plugin's doing, another observability level)
        self.owner, self.level = list(obs.owner), list(obs.level)
        self.mortgaged = list(obs.mortgaged)
        for a in obs.plugin_actions:
            self._new_kind(("plugin_action", getattr(a, "kind", str(a))))
        if obs.refused:
            self._new_kind(("refusal",))

    def end_game(self) -> None:
        self.games += 1
        if self.alarm_game is None and self.contradictions >= self.alarm:
            self.alarm_game = self.games

    @property
    def learning(self) -> bool:
        return self.games < self.calibration_games

    # -- what each event teaches -----------------------------------------------------------
    def _event(self, e: Any) -> None:
        kind = e.kind
        if kind == "turn_started":
            self.turn = e.turn
        if self.jail_move is not None:  # a move to jail is followed by the jailing
            self._see(("sent_to_jail",), kind == "jailed" and e.seat == self.jail_move)
            self.jail_move = None
        if kind == "jailed":
            self.jailed[e.seat] = True
        elif kind == "released":
            self.jailed[e.seat] = False
        if self.salary is not None:  # the move before paid no salary unless this is it
            context, seat = self.salary
            if kind == "payment" and e.reason == "go_salary" and e.payee == seat:
                self._see(context, e.amount)
                self.salary = None
                return
            self._see(context, 0)
            self.salary = None
        if kind == "payment":
            self._payment(e)
        elif kind == "dice_rolled":
            self.pips[e.seat] = sum(e.dice)
            self._see(("dice_count",), len(e.dice))
            for face in e.dice:
                self._new_kind(("die_face", face))
        elif kind == "moved":
            # the salary a move pays (none, when a rule takes it away), by how it moved
            # and whether it passed the end of the board
            self.salary = (("salary", e.reason, e.end < e.start,
                            self.card[e.seat] if e.reason == "card" else None), e.seat)
            if e.reason == "dice":
                self.arrival[e.seat] = "dice"
                self._see(("move_dice",), (e.end - e.start) % self.rules.n - self.pips[e.seat])
            elif e.reason == "card":
                self.arrival[e.seat] = ("card", self.card[e.seat])
                self._see(("move_card", self.card[e.seat], e.start), e.end)
            else:
                self.arrival[e.seat] = e.reason
                self._see(("move", e.reason), e.end)
                if e.reason == "jail":
                    self.jail_move = e.seat
        elif kind == "card_drawn":
            self.card[e.seat] = (e.deck, e.card)
            self._see(("card_text", e.deck, e.card), e.text)
            self.drawer = e.seat
            # street repairs are assessed on the buildings at the draw (a sale to pay
            # them comes before the payment)
            self.drawer_buildings = _buildings(
                [lv for sq, lv in enumerate(self.level) if self.owner[sq] == e.seat],
                self.rules.hotel_level)
        elif kind == "property_transferred":
            self.owner[e.square] = e.to_seat
        elif kind == "building_changed":
            if self.sale is not None and self.sale[0] == e.square and e.level < self.level[e.square]:
                self._see(("sell_building", e.square),
                          round(self.sale[1] / (self.level[e.square] - e.level), 3))
            self.sale = None
            self.level[e.square] = e.level
        elif kind == "mortgage_changed":
            self.mortgaged[e.square] = e.mortgaged

    def _payment(self, e: Any) -> None:
        reason, s = e.reason, e.square
        self._kind(("payment", reason))
        if reason in _NEGOTIATED:
            return
        if reason == "rent" and s >= 0:
            rules = self.rules
            group = rules.group_members[rules.group_of[s]]
            held = [m for m in group if self.owner[m] == e.payee]
            context = ("rent", s, self.level[s], len(held),
                       sum(self.mortgaged[m] for m in held), self.arrival[e.payer])
            if rules.kind_names[s] == "utility":
                pips = self.pips[e.payer]
                self._see(context, round(e.amount / pips, 3) if pips else None)
            else:
                self._see(context, e.amount)
        elif reason in _BY_SQUARE:
            self._see((reason, s), e.amount)
        elif reason == "sell_building":  # filed per level when its BuildingChanged comes
            self.sale = (s, e.amount)
        elif reason == "card":  # the card drawn last, with its drawer's buildings then
            self._see(("card", self.card[self.drawer], e.payer == self.drawer,
                       e.payee == self.drawer, *self.drawer_buildings), e.amount)
        else:  # go_salary, jail_fine and whatever a plugin names
            self._see(("payment", reason, s), e.amount)
            if reason == "jail_fine" and 0 <= e.payer < len(self.jailed):
                self._see(("fine_while_jailed",), self.jailed[e.payer])

    # -- the table ---------------------------------------------------------------------------
    def _see(self, context: Hashable, outcome: Any) -> None:
        if outcome is None:
            return
        entry = self.table.get(context)
        if entry is None:
            if context not in self.table:
                self.table[context] = [outcome, 1]
            return
        if outcome == entry[0]:
            entry[1] += 1
        elif entry[1] >= self.firm and not self.learning:
            self._contradiction(context, entry[0], outcome)
        else:
            self.table[context] = None  # depends on something the context does not hold

    def _kind(self, kind: Hashable) -> None:
        """A payment reason: learned while calibrating; after it, one
        never seen is a contradiction in each game where it shows in `NEW_KIND` turns (a
        rare one the calibration missed shows in a turn or two, often in a burst: the
        transfer fees of one bankruptcy; a new rule turn after turn)."""
        known = self.kinds
        if kind in known:
            return
        if self.learning:
            known.add(kind)
            return
        turns = self.unknown.setdefault(kind, set())
        if self.turn in turns:
            return
        turns.add(self.turn)
        if len(turns) == NEW_KIND:
            self._contradiction(kind, None, len(turns))

    def _new_kind(self, context: Hashable) -> None:
        """Something offered or shown that was never seen: surprising once calibrated."""
        if context in self.table:
            return
        self.table[context] = [True, 1]
        if not self.learning:
            self._contradiction(context, None, True)

    def _contradiction(self, context: Hashable, expected: Any, seen: Any) -> None:
        self.contradictions += 1
        self.game_contradictions += 1
        if len(self.first) < 5:
            self.first.append((context, expected, seen))

    # -- what it reports ---------------------------------------------------------------------
    def evidence(self) -> dict[str, float]:
        return {"contradictions": float(self.game_contradictions),
                "contradictions_total": float(self.contradictions),
                "firm_contexts": float(sum(1 for v in self.table.values()
                                           if v is not None and v[1] >= self.firm))}


def combine(cusum: NoveltyReport, model: OutcomeModel) -> NoveltyReport:
    """The return CUSUM's report joined with the outcome model's: detected when either
    alarms; the model's confidence rises with its contradictions (0.75 at the alarm).
    No characterisation: a contradiction names a context of the model's own (`first`
    keeps a few for reading), not an entity and attribute of the rules."""
    own = min(1.0, 0.75 * model.contradictions / model.alarm) if model.contradictions else 0.0
    if model.alarm_game is None:
        own = min(own, 0.49)
    detected = cusum.detected or model.alarm_game is not None
    return NoveltyReport(detected, max(cusum.confidence, own), cusum.changes,
                         {**cusum.evidence, **model.evidence()})
