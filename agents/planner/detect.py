"""Novelty detection and characterization for the planner (planner paper, "Novelty
Detection and adaptation").

`NoveltyDetector` keeps the rules the agent believes (`believed_schema`, the standard
game at first) and compares what they predict with what the agent sees:

- the public rules of the observation (re-read only when `obs.rules` is another object):
  any difference is a visible novelty, characterized by diffing and adopted at once;
- a replica of the public state rebuilt from the event stream alone (every cash
  movement is a `Payment`, every move a `Moved`, ...): each payment is checked against
  the believed rule that caused it (rent at landing, tax, Go salary, jail fine, mortgage,
  unmortgage, building, sell-back, purchase, card amounts), moves against the dice and
  the card targets, card draws against the believed decks (texts, physical card
  indices, counts within a cycle), payments with an unknown reason are new rules;
  at each decision the replica is compared with the observation (hidden or noisy
  opponents' cash, hidden assets, hidden events);
- the dice: a die count or a face never seen before is immediate evidence; face
  frequencies are tested at game ends with Pearson's chi-square against the believed
  probabilities over windows of the last 1, 2, 4, ... games, Bonferroni-corrected so the
  false-alarm probability over `horizon` games stays below `alpha`; on rejection the
  MAP weights (Dirichlet prior centred on the believed dice) are adopted;
- hidden rules without a schema field (a rent or tax factor, a jail rent rule, a
  building restriction, a game-ending rule) are reported with an estimate, and where
  the schema can express their effect (scaled rents and taxes) adopted.

Every definite contradiction is a detection with confidence 1; a statistical one
reports 1 - its corrected p-value. `believed_schema` changes only on evidence, and
`version` counts the changes (the planner rebuilds its tables when it moves).

Usage (one detector per agent, kept for the whole trial):
    det = NoveltyDetector(openmono.standard_schema())
    det.observe(obs)        # in begin_game and at the top of every act()
    det.end_game(result)    # in end_game (result: openmono.play.GameResult, or None)
    det.report()            # from novelty_report() -> agents.base.NoveltyReport
    det.announce()          # from novelty_announced() ("given detection")
    if det.version != seen: # adaptation, after observe() and end_game()
        seen = det.version; agent.set_believed_schema(det.believed_schema)
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from openmono.actions import CORE_ACTION_KINDS
from openmono.compiled import CARD, TAX, UTILITY, compile_rules
from openmono.engine import rent_of
from openmono.legal import check_build
from openmono.schema import Deck, Die, GameSchema, standard_schema
from openmono.state import has_monopoly

from agents.base import NoveltyChange, NoveltyReport
from agents.planner import beliefs as B

BANK = -1
WINDOWS = (1, 2, 4, 8, 16, 32, 64)
# Payment reasons whose amount has no believed rule to check (or is checked elsewhere).
FREE_REASONS = frozenset(("trade", "bankruptcy", "mortgage_transfer_fee",
                          "novelty_repair"))
CHECKED_REASONS = frozenset(("rent", "tax", "go_salary", "jail_fine", "mortgage", "unmortgage",
                             "build", "sell_building", "card", "buy", "sell_property"))
KNOWN_EVENTS = frozenset((
    "dice_rolled", "moved", "payment", "card_drawn", "property_transferred",
    "building_changed", "mortgage_changed", "auction_started", "auction_ended", "bid_made",
    "trade_offered", "trade_answered", "jail_card_moved", "jailed", "released", "bankrupt",
    "fault", "turn_started", "game_over"))
_MONEY = re.compile(r"\$(\d+)")


def _p_value(stat: float, df: int) -> float:
    """Upper tail of the chi-square distribution."""
    if df <= 0:
        return 1.0
    from scipy.special import gammaincc  # on first use: naming any agent loads this module

    return float(gammaincc(df / 2.0, stat / 2.0))


def _dice_moved(old: tuple[Die, ...], new: tuple[Die, ...], tol: float = 0.01) -> bool:
    """Whether the believed dice changed enough to be worth recomputing the tables."""
    if len(old) != len(new):
        return True
    for a, b in zip(old, new):
        if a.faces != b.faces:
            return True
        pa, pb = a.probabilities(), b.probabilities()
        if any(abs(pa.get(v, 0.0) - pb.get(v, 0.0)) > tol for v in set(pa) | set(pb)):
            return True
    return False


class NoveltyDetector(B.Characterizer):
    """Detects and characterizes novelties from one seat's observations (see module)."""

    def __init__(self, schema: GameSchema | None = None, alpha: float = 0.01,
                 horizon: int = 100, windows: tuple[int, ...] = WINDOWS,
                 prior_strength: float = 60.0, min_expected: float = 5.0) -> None:
        self.believed_schema: GameSchema = schema if schema is not None else standard_schema()
        self.version = 0
        self.alpha = alpha
        self.horizon = horizon
        self.windows = windows
        self.prior_strength = prior_strength
        self.min_expected = min_expected
        self.evidence: list[str] = []  # why it detected (first entries), for humans
        self._detected = False
        self._confidence = 0.0
        self._announced = False
        self._changes: dict[tuple[str, str], NoveltyChange] = {}
        self._clock = 0  # events processed (orders evidence)
        self._games = 0
        # --- beliefs -------------------------------------------------------------------
        s = self.believed_schema
        self._public: dict = s.public_dict()
        self._renamed: dict[str, str] = {}
        self._touched: set[str] = set()  # squares whose public rule text changed
        self._dice: tuple[Die, ...] = s.dice
        self._decks: tuple[Deck, ...] = s.decks
        self._unknown_cards: set[tuple[str, str]] = set()  # (deck, text) of unknown effect
        self._rent_mult: dict[int, float] = {}
        self._tax_mult: dict[int, float] = {}
        self._tax_per: tuple[float, float] | None = None
        self._jail_rent = 1.0
        self._core: GameSchema = s
        self._compile()
        # --- evidence ------------------------------------------------------------------
        self._runs: dict[Any, list] = {}  # rent/tax factor runs: key -> [lo, hi, start, last]
        self._tax_extra: list[tuple] = []  # (square, tax, houses, hotels, amount paid)
        self._tax_since: int | None = None  # clock of the first surprising tax
        self._card_factors: list[tuple[float, int, str]] = []  # (factor, clock, key)
        self._card_ok: dict[str, int] = {}  # card entity -> clock of a matching effect
        self._cash_samples: list[tuple[int, int]] = []  # (shown, true) opponents' cash
        # (winner's net worth, winner's sets at my last decision, most sets one player
        # held at the start of a turn: a game-ending check runs between turns)
        self._rule_endings: list[tuple[int, int, int]] = []
        self._idx_maps: dict[str, dict[int, str]] = {}  # deck -> {card index: text}
        self._deck_epoch: set[str] = set()  # decks whose believed list was contradicted
        self._epoch_draws: dict[str, int] = {}
        self._trust_others = True  # False once others' events are known to be filtered
        self._assets_hidden = False  # events about opponents' assets are filtered
        self._unknown: dict[str, list[tuple]] = {}  # payment reason -> samples
        self._others_payments_missing = 0
        self._dice_hist: list[list[dict[int, int]]] = []
        self._dice_done = False  # a dice change was detected (then only refined)
        self._orig_dice: tuple[Die, ...] | None = None  # the dice believed before it
        self._dice_changed_count = False
        self._text_origin: dict[tuple[str, str], str] = {}  # (deck, new text) -> first text
        self._orig_deck_texts: dict[str, dict[str, int]] = {}  # counts before a deck changed
        self._actions_turn = -1
        self._cash_offset = 0  # believed starting cash minus the one shown
        self._stock_seen: set[tuple[str, int]] = set()
        self._rules_seen: Any = None
        self._me = -1
        self._fresh = True
        self._new_game_state()

    # ================================================================== public API
    def observe(self, obs: Any) -> None:
        """Process one decision's observation: its events and, if new, its rules."""
        if self._fresh:
            self._start_game(obs)
        if obs.rules is not self._rules_seen:
            self._on_rules(obs)
        evs = obs.events
        if evs:
            self._process(evs)
            self._compare(obs)
            if self._skip:
                self._resync(obs)
                self._skip = False
        if obs.refused and obs.turn != self._build_turn:
            self._build_turn = obs.turn
            self._check_building(obs)
        if obs.phase == "debt" or (obs.phase == "pre_roll" and obs.turn % 8 == 0
                                   and obs.turn != self._actions_turn):
            self._actions_turn = obs.turn
            self._check_actions(obs)

    def end_game(self, result: Any = None) -> None:
        """Game boundary: close the game's statistics and test the dice. (Whatever was
        pending is dropped: the game may have ended in the middle of a payment.)"""
        if result is not None and getattr(result, "end_reason", None) not in (
                None, "bankruptcy", "turn_limit"):
            self._rule_ending(result)
        self._games += 1
        self._dice_hist.append(self._game_counts)
        if len(self._dice_hist) > max(self.windows):
            del self._dice_hist[0]
        self._test_dice()
        self._adopt_hidden()
        self._fresh = True
        self._new_game_state()

    def report(self) -> NoveltyReport:
        if not self._detected:
            return NoveltyReport()
        changes = dict(self._changes)
        changes.update(self._derived_changes())
        return NoveltyReport(True, min(1.0, max(0.0, self._confidence)),
                             tuple(changes.values()))

    def announce(self) -> None:
        """Told that a novelty arrives now ("given detection"): report it, and let the
        statistics start afresh so estimates use post-novelty data only."""
        self._announced = True
        self._detect(1.0, "announced")
        self._dice_hist = []
        self._game_counts = []
        for key in list(self._runs):
            self._runs[key][2] = self._runs[key][3] = self._clock

    @property
    def detected(self) -> bool:
        return self._detected

    # ================================================================== detection core
    def _detect(self, confidence: float, why: str) -> None:
        if len(self.evidence) < 50:
            self.evidence.append(f"game {self._games}: {why}")
        self._detected = True
        self._confidence = max(self._confidence, confidence)

    def _change(self, entity: str, attribute: str, new: Any = None, old: Any = None,
                confidence: float = 1.0, why: str = "") -> None:
        self._changes[(entity, attribute)] = NoveltyChange(entity, attribute, new, old)
        self._detect(confidence, why or f"{entity} {attribute}: {old!r} -> {new!r}")

    # ================================================================== beliefs
    def _compile(self) -> None:
        R = self._R = compile_rules(self._core)
        self._n = R.n
        self._deck_index = {name: i for i, name in enumerate(R.deck_names)}
        self._deck_texts: list[dict[str, int]] = []
        self._deck_cycle: list[int] = []
        for cards in R.decks:
            counts: dict[str, int] = {}
            for c in cards:
                counts[c.text] = counts.get(c.text, 0) + 1
            self._deck_texts.append(counts)
            goojs = sum(1 for c in cards if c.kind == "get_out_of_jail")
            self._deck_cycle.append(len(cards) - goojs)
        self._die_probs = [d.probabilities() for d in self._dice]
        self._die_faces = [frozenset(d.faces) for d in self._dice]

    def _rebuild(self) -> None:
        """Believed schema = public rules + believed dice/decks + hidden factors."""
        self._core = B.merge_public(self._public, self._dice, self._decks, self._renamed)
        self._decks = self._core.decks
        self._compile()
        believed = self._core
        if self._rent_mult or self._tax_mult:
            squares = list(believed.squares)
            for sq, m in self._rent_mult.items():
                if sq < len(squares) and m != 1.0 and squares[sq].rent:
                    squares[sq] = squares[sq].model_copy(
                        update={"rent": tuple(B.scale(v, m) for v in squares[sq].rent)})
            for sq, m in self._tax_mult.items():
                if sq < len(squares) and m != 1.0:
                    squares[sq] = squares[sq].model_copy(
                        update={"tax": B.scale(squares[sq].tax, m)})
            believed = believed.model_copy(update={"squares": tuple(squares)})
        if believed != self.believed_schema:
            self.believed_schema = believed
            self.version += 1

    def _on_rules(self, obs: Any) -> None:
        self._rules_seen = obs.rules
        public = obs.rules.public_schema
        if public == self._public:
            return
        raw, renamed = B.diff_public(self._public, public)
        for entity, attribute, old, new in raw:
            self._change(entity, attribute, new, old, why=f"public rules: {entity} {attribute}")
            if entity.startswith("square:") and attribute in ("params", "kind", "exists"):
                self._touched.add(entity[7:])
                if isinstance(new, dict):
                    self._touched.add(new.get("name", ""))
        self._touched.update(renamed.values())
        for old_name, new_name in renamed.items():
            self._renamed[old_name] = new_name
            for d in self._decks:  # cards follow a renamed square
                for c in d.cards:
                    if c.square == old_name:
                        self._change(f"card:{d.name}:{c.text}", "square", new_name, old_name,
                                     why="a card's square was renamed")
        old_n = self._n
        self._public = public
        self._rent_mult = {}  # hidden factors were relative to the old board
        self._tax_mult = {}
        self._runs = {}
        self._tax_extra = []
        self._tax_since = None
        self._draws = {}
        self._game_draws = {}
        self._rebuild()
        if not self._started_now:
            self._skip = True  # mid-game: events of this batch span the change
        if self._n != old_n:
            self._init_replica(len(obs.cash))

    def _adopt_hidden(self) -> None:
        """Adopt what the evidence says about hidden factors (rents, taxes, decks)."""
        rent, tax = self._factor_beliefs()
        jail = self._runs.get("jail")
        jail_f = (1.0 if jail is None or jail[0] <= 1.0 < jail[1]
                  else B.nice_factor(jail[0], jail[1]))
        changed = rent != self._rent_mult or tax != self._tax_mult or jail_f != self._jail_rent
        self._rent_mult, self._tax_mult, self._jail_rent = rent, tax, jail_f
        per = self._per_building(tax)
        if per is not None and abs(per[0]) < 0.5 and abs(per[1]) < 0.5:
            per = None
        if per != self._tax_per:
            self._tax_per = per
        deck_changed = self._adopt_decks()
        if changed or deck_changed:
            self._rebuild()

    # ================================================================== game state
    def _new_game_state(self) -> None:
        self._game_counts: list[dict[int, int]] = [{} for _ in self._dice]
        self._skip = False
        self._started_now = False
        self._cur = -1
        self._rolled = True
        self._turn_roll: tuple[int, int] | None = None
        self._last_total = 0
        self._passed_go: set[int] = set()
        self._expect_go: tuple[int, int] | None = None  # (seat, salary) next event
        self._expect_asset: tuple | None = None  # (event kind, square, seat, payment reason)
        self._pending_rent: list | None = None  # [payer, sq, owner, expected|None, rolls, util]
        self._pending_tax: tuple | None = None  # (seat, sq, tax, (houses, hotels))
        self._pending_draw = -1
        self._card: list | None = None  # [seat, deck, card|None, text, moved, buildings]
        self._moves: dict[int, list[tuple[int, int, str]]] = {}  # this turn's moves per seat
        self._taxes_paid = 0  # tax paid this game (feeds pot-like rules)
        self._payout_mark: dict[str, int] = {}
        self._sell: tuple[int, int, int] | None = None  # (square, amount, seat)
        self._draws: dict[int, list[str]] = {}
        self._deck_complete = True
        self._build_turn = -1
        self._max_sets = 0  # most sets one player held at a turn start in this game
        self._owners_moved = False
        self._game_draws: dict[str, list[tuple[int, str]]] = {}
        self._first_compare = True

    def _start_game(self, obs: Any) -> None:
        self._fresh = False
        self._started_now = True
        self._me = obs.seat
        if obs.rules is not self._rules_seen:
            self._on_rules(obs)
        self._init_replica(len(obs.cash))
        if obs.turn > 1:  # joined mid-game: take the state as shown
            self._resync(obs)
        elif not any(obs.level):
            self._building_stock(obs)

    def _building_stock(self, obs: Any) -> None:
        """Before anyone has built, the bank holds its whole stock: a different count
        shown at the start of a game is a different stock."""
        bank = self._public["bank"]
        for field, shown in (("house_stock", obs.houses_left), ("hotel_stock", obs.hotels_left)):
            believed = int(bank.get(field, shown))
            if shown != believed and (field, shown) not in self._stock_seen:
                self._stock_seen.add((field, shown))
                self._change("bank", field, shown, believed,
                             why=f"the bank starts with {shown}, not {believed} ({field})")

    def _init_replica(self, players: int) -> None:
        R = self._R
        n = R.n
        self.cash = [int(self._public["bank"]["starting_cash"]) + self._cash_offset] * players
        self.pos = [R.go] * players
        self.jailed = [False] * players
        self.active = [True] * players
        self.owner = [-1] * n
        self.level = [0] * n
        self.mort = [False] * n

    def _resync(self, obs: Any) -> None:
        """Take the replica from the observation (after a rule change mid-game)."""
        self.pos = list(obs.position)
        self.jailed = list(obs.in_jail)
        self.active = list(obs.active)
        self.cash = list(obs.cash)
        self.owner = list(obs.owner)
        self.level = list(obs.level)
        self.mort = list(obs.mortgaged)

    # ================================================================== events
    def _process(self, evs: tuple) -> None:
        self._started_now = False
        for e in evs:
            self._clock += 1
            k = e.kind
            if self._expect_go is not None:
                self._check_go(e)
            if self._expect_asset is not None:
                self._check_asset(e)
            if k == "payment":
                self._payment(e)
                continue
            if k == "moved":
                self._moved(e)
            elif k == "dice_rolled":
                self._dice_rolled(e)
            elif k == "turn_started":
                self._turn_started(e)
            elif k == "property_transferred":
                self.owner[e.square] = e.to_seat
                self._owners_moved = True
            elif k == "building_changed":
                self._building(e)
            elif k == "mortgage_changed":
                self.mort[e.square] = e.mortgaged
            elif k == "card_drawn":
                self._drawn(e)
            elif k == "jailed":
                self.jailed[e.seat] = True
                self._close_pending()
            elif k == "released":
                self.jailed[e.seat] = False
            elif k == "bankrupt":
                self.active[e.seat] = False
                self.jailed[e.seat] = False
                pr = self._pending_rent
                if pr is not None and pr[0] == e.seat:
                    self._pending_rent = None
                pt = self._pending_tax
                if pt is not None and pt[0] == e.seat:
                    self._pending_tax = None
            elif k == "fault":
                self._fault(e)
            elif k == "game_over":
                if e.reason not in ("bankruptcy", "turn_limit"):
                    self._detect(1.0, f"the game ended by {e.reason!r}")
            elif k not in KNOWN_EVENTS:
                self._detect(1.0, f"unknown event kind {k!r}")

    def _fault(self, e: Any) -> None:
        """My own action refused as illegal: the actions I was offered follow the rules
        shown, the engine judges by the true ones, so a refusal is an outcome the believed
        rules did not predict (under `effects`). Other faults (a late or malformed answer)
        and other seats' faults say nothing about the rules."""
        if e.seat != self._me or not e.reason.startswith("illegal "):
            return
        kind = e.reason[len("illegal "):].split(":", 1)[0].strip()
        self._change(f"action:{kind}", "refused", None, None,
                     why=f"my {kind} was refused as illegal")

    # --- turns and dice ---------------------------------------------------------------
    def _turn_started(self, e: Any) -> None:
        self._close_pending()
        if self._owners_moved:
            self._owners_moved = False
            self._max_sets = max(self._max_sets, self._most_sets())
        cur = self._cur
        if cur >= 0 and not self._rolled and self.active[cur] and cur != self._me:
            self._hidden_events("opponents' events shown", f"seat {cur} took a turn without a roll")
        self._cur = e.seat
        self._rolled = False
        self._turn_roll = None
        self._passed_go = set()
        self._moves = {}
        self._card = None

    def _dice_rolled(self, e: Any) -> None:
        seat, dice = e
        pr = self._pending_rent
        if pr is not None:
            if pr[4] > 0 and pr[0] == seat:
                pr[4] -= 1
            else:
                self._close_pending()
        elif self._pending_draw >= 0:
            self._close_pending()
        if seat == self._cur:
            self._rolled = True
        total = 0
        faces = self._die_faces
        nb = len(faces)
        if len(dice) != nb:
            self._dice_count(dice)
        counts = self._game_counts
        for i, v in enumerate(dice):
            total += v
            if i < len(counts):
                c = counts[i]
                c[v] = c.get(v, 0) + 1
            else:
                counts.append({v: 1})
            if i < nb and v not in faces[i]:
                self._new_face(i, v)
        self._turn_roll = (seat, total)
        self._last_total = total

    def _dice_count(self, dice: tuple[int, ...]) -> None:
        if not self._dice_changed_count:
            self._dice_changed_count = True
            self._dice_hist = []
            old = len(self._dice)
            self._change("dice", "count", len(dice), old,
                         why=f"{len(dice)} dice rolled, {old} believed")
            self._dice_done = True
            self._orig_dice = self._dice
            self._game_counts = [dict() for _ in dice]
        elif len(dice) != len(self._game_counts):
            self._detect(1.0, "the number of dice changed again")

    def _new_face(self, die: int, value: int) -> None:
        self._change(f"die:{die}", "faces", None, list(self._dice[die].faces),
                     why=f"die {die} showed {value}")
        if not self._dice_done:
            self._dice_done = True
            self._orig_dice = self._dice
            self._dice_hist = []
        self._die_faces = [f | {value} if i == die else f for i, f in enumerate(self._die_faces)]

    # --- moves ----------------------------------------------------------------------------
    def _moved(self, e: Any) -> None:
        seat, start, end, reason = e
        self._close_pending()
        me = self._me
        n = self._n
        if start != self.pos[seat] and not self._skip:
            if seat != me:
                self._hidden_events("opponents' events shown",
                                    f"seat {seat} moved from an unexpected square")
            else:
                self._detect(1.0, f"my token moved from {self.pos[seat]} to {start} unseen")
        self.pos[seat] = end
        if end >= n or start >= n:
            self._detect(1.0, "a move off the believed board")
            return
        R = self._R
        collect: bool | None = None
        steps = (end - start) % n
        ctx: tuple | None = (1.0, None)
        if reason == "dice":
            collect = True
            roll = self._turn_roll
            if roll is None or roll[0] != seat:
                if seat != me:
                    self._hidden_events("opponents' events shown",
                                        f"seat {seat} moved by dice without a roll")
            else:
                steps = roll[1]
                if (start + steps) % n != end and not self._skip:
                    self._detect(1.0, f"a roll of {steps} moved {start}->{end}")
        elif reason == "card":
            card = self._card
            if card is not None and card[0] == seat and not card[4]:
                card[4] = True
                collect, ctx = self._card_move(card, start, end)
            else:
                ctx = None  # a move we cannot explain: no expectation at the landing
        elif reason == "jail":
            return
        else:
            self._detect(1.0, f"a move for an unknown reason {reason!r}")
            ctx = None
        go = R.go
        if collect and steps > 0:
            passes = (start + steps - go) // n - (start - go) // n
            if passes:
                self._expect_go = (seat, passes * int(self._public["bank"]["go_salary"]))
        self._moves.setdefault(seat, []).append((start, end, reason))
        if ctx is not None and not self._skip:
            self._land(seat, end, reason, ctx)

    def _land(self, seat: int, sq: int, reason: str, ctx: tuple) -> None:
        """What the believed rules expect after a move ends on `sq`."""
        R = self._R
        k = R.kind[sq]
        if R.is_property[sq]:
            o = self.owner[sq]
            if o < 0 or o == seat or self.mort[sq] or not self.active[o]:
                return
            mult, dice_mult = ctx
            util = k == UTILITY
            if util and (dice_mult is not None or reason != "dice"):
                # A throw for the rent follows; finish the expectation at the payment.
                self._pending_rent = [seat, sq, o, None, 1, (mult, dice_mult)]
                return
            base = rent_of(R, self.owner, self.level, sq, self._last_total)
            base = int(base * mult)
            self._pending_rent = [seat, sq, o, base, 0, None]
        elif k == TAX:
            self._pending_tax = (seat, sq, R.tax[sq], self._buildings(seat))
        elif k == CARD:
            self._pending_draw = seat

    def _close_pending(self) -> None:
        """A landing context ended: a rent, tax or draw that should have happened did not."""
        pr = self._pending_rent
        if pr is not None:
            self._pending_rent = None
            payer, sq, o = pr[0], pr[1], pr[2]
            base = pr[3]
            if base is None:  # utility by card: the rent needed a throw that never came
                base = rent_of(self._R, self.owner, self.level, sq, 7)
            mine = payer == self._me or o == self._me
            if base > 0 and not self.jailed[o] and not mine:
                self._missing_payment(f"no rent paid on square {sq}")
            elif base > 0 and (mine or self._trust_others) and not (
                    self._assets_hidden and o != self._me):
                self._rent_seen(sq, base, 0, self.jailed[o], payer, o)
        pt = self._pending_tax
        if pt is not None:
            self._pending_tax = None
            if pt[2] > 0:
                if pt[0] != self._me:
                    self._missing_payment(f"no tax charged on square {pt[1]}")
                else:
                    self._detect(1.0, f"no tax charged on square {pt[1]}")
        if self._pending_draw >= 0:
            seat = self._pending_draw
            self._pending_draw = -1
            if seat != self._me:
                self._hidden_events("opponents' events shown",
                                    f"seat {seat} landed on a card square without a draw")
            else:
                self._detect(1.0, "I landed on a card square and drew nothing")
        self._expect_go = None

    def _check_go(self, e: Any) -> None:
        seat, salary = self._expect_go
        self._expect_go = None
        if e.kind == "payment" and e.reason == "go_salary" and e.payee == seat:
            if e.amount != salary and not self._skip:
                self._change("bank", "go_salary", None, self._public["bank"]["go_salary"],
                             why=f"Go paid {e.amount}, expected {salary}")
            return
        if salary > 0 and not self._skip:
            if seat != self._me:
                self._missing_payment("passing Go paid an opponent nothing")
            else:
                self._change("bank", "go_salary", 0, self._public["bank"]["go_salary"],
                             why="passing Go paid nothing")

    def _missing_payment(self, why: str) -> None:
        """An opponent's payment the rules require did not show: either a rule changed
        or payments between others are hidden (told apart in the report)."""
        self._others_payments_missing += 1
        if self._others_payments_missing >= 2:
            self._trust_others = False
        self._detect(1.0, why)

    # --- payments ---------------------------------------------------------------------------
    def _payment(self, e: Any) -> None:
        payer, payee, amount, reason, sq = e
        if payer != BANK:
            self.cash[payer] -= amount
        if payee != BANK:
            self.cash[payee] += amount
        if self._skip:
            return
        if reason == "rent":
            self._rent_paid(payer, payee, amount, sq)
        elif reason == "go_salary":
            self._passed_go.add(payee)
        elif reason == "card":
            self._card_payment(payer, payee, amount)
        elif reason == "tax":
            self._tax_paid(payer, amount, sq)
        elif reason in CHECKED_REASONS or reason == "auction":
            self._simple_payment(payer, payee, amount, reason, sq)
        elif reason not in FREE_REASONS:
            self._unknown_payment(payer, payee, amount, reason, sq)

    def _simple_payment(self, payer: int, payee: int, amount: int, reason: str, sq: int) -> None:
        R = self._R
        if reason == "jail_fine":
            fine = int(self._public["bank"]["jail_fine"])
            if amount != fine:
                self._change("bank", "jail_fine", amount, fine, why="jail fine")
            return
        if not 0 <= sq < R.n:
            return
        name = R.names[sq]
        if reason in ("buy", "auction", "build", "sell_building", "mortgage", "unmortgage"):
            kind = ("property_transferred" if reason in ("buy", "auction") else
                    "building_changed" if reason in ("build", "sell_building") else
                    "mortgage_changed")
            self._expect_asset = (kind, sq, payer if payer != BANK else payee, reason)
        if reason == "buy":
            if amount != R.price[sq]:
                self._change(f"square:{name}", "price", amount, R.price[sq], why="price paid")
        elif reason == "mortgage":
            if amount != R.mortgage[sq]:
                self._change(f"square:{name}", "mortgage", amount, R.mortgage[sq],
                             why="mortgage proceeds")
        elif reason == "unmortgage":
            if amount != R.unmortgage_cost[sq]:
                m = R.mortgage[sq]
                rate = round((amount - m) / m, 2) if m else None
                self._change("bank", "mortgage_interest", rate,
                             self._public["bank"]["mortgage_interest"], why="unmortgage cost")
        elif reason == "build":
            if amount != R.house_cost[sq]:
                self._change(f"square:{name}", "house_cost", amount, R.house_cost[sq],
                             why="house cost")
        elif reason == "sell_building":
            self._sell = (sq, amount, payee)
        elif reason == "sell_property":
            refund = R.property_refund
            if refund is None or amount != refund[sq]:
                price = R.price[sq]
                self._change("bank", "property_sellback",
                             round(amount / price, 2) if price else None,
                             self._public["bank"]["property_sellback"], why="property sold")

    def _check_asset(self, e: Any) -> None:
        """The event right after a purchase, building or mortgage payment must say what
        changed; when it is missing, events about opponents' assets are hidden."""
        kind, sq, seat, reason = self._expect_asset
        self._expect_asset = None
        if e.kind == kind and e.square == sq:
            return
        self._assets_hidden = True
        if reason in ("buy", "auction"):
            self.owner[sq] = seat
        elif reason == "build":
            self.level[sq] += 1
        elif reason == "sell_building":
            self.level[sq] = max(0, self.level[sq] - 1)
            self._sell = None
        else:
            self.mort[sq] = reason == "mortgage"
        if seat != self._me:
            self._hidden_events("opponents' values shown",
                                f"seat {seat} paid ({reason}) for square {sq}; no change seen")
        else:
            self._detect(1.0, f"my {reason} on square {sq} changed nothing")

    def _building(self, e: Any) -> None:
        sq = e.square
        old = self.level[sq]
        self.level[sq] = e.level
        sell = self._sell
        if sell is None or sell[0] != sq:
            return
        self._sell = None
        removed = old - e.level
        refund = self._R.building_refund[sq]
        if removed > 0 and sell[1] != removed * refund and not self._skip:
            cost = self._R.house_cost[sq]
            frac = round(sell[1] / (removed * cost), 2) if cost else None
            self._change("bank", "building_sellback", frac,
                         self._public["bank"]["building_sellback"], why="building sold back")

    def _buildings(self, seat: int) -> tuple[int, int]:
        R = self._R
        hotel = R.hotel_level
        houses = hotels = 0
        owner, level = self.owner, self.level
        for sq in R.streets:
            if owner[sq] == seat and level[sq]:
                if level[sq] == hotel:
                    hotels += 1
                else:
                    houses += level[sq]
        return houses, hotels

    # --- rent and tax --------------------------------------------------------------------------
    def _rent_paid(self, payer: int, payee: int, amount: int, sq: int) -> None:
        R = self._R
        if not 0 <= sq < R.n:
            return
        pr = self._pending_rent
        if pr is not None and pr[0] == payer and pr[1] == sq:
            self._pending_rent = None
            o, base = pr[2], pr[3]
            if base is None:
                mult, dice_mult = pr[5]
                if dice_mult is not None:
                    base = dice_mult * self._last_total
                else:
                    base = int(rent_of(R, self.owner, self.level, sq, self._last_total) * mult)
        else:
            o = self.owner[sq]
            if o < 0:
                if not self._assets_hidden:
                    self._detect(1.0, f"rent paid on unowned square {sq}")
                return
            base = rent_of(R, self.owner, self.level, sq, self._last_total)
        if not (payer == self._me or o == self._me or self._trust_others):
            return
        if self._assets_hidden and o != self._me:
            return  # the opponent's buildings and mortgages are not known
        if R.kind[sq] == UTILITY and (self._turn_roll is None or self._turn_roll[0] != payer):
            return  # the throw that sets a utility rent was not seen
        self._rent_seen(sq, base, amount, self.jailed[o] if o >= 0 else False, payer, o)

    def _rent_seen(self, sq: int, base: int, paid: int, jailed: bool, payer: int,
                   owner: int) -> None:
        if base <= 0:
            if paid > 0:
                self._detect(1.0, f"rent {paid} where none was due")
            return
        m = self._rent_mult.get(sq, 1.0)
        expected = int(base * m)
        if jailed:
            expected = int(expected * self._jail_rent)
            if paid != expected:
                self._detect(1.0, f"rent {paid} (expected {expected}) to an owner in jail")
            charged = int(base * m)
            if charged > 0:
                self._run("jail", paid / charged, (paid + 1) / charged)
            return
        if paid != expected:
            self._detect(1.0, f"rent {paid} on square {sq}, expected {expected}")
        self._run(sq, paid / base, (paid + 1) / base)

    def _tax_paid(self, payer: int, amount: int, sq: int) -> None:
        R = self._R
        self._taxes_paid += amount
        pt = self._pending_tax
        buildings = None
        if pt is not None and pt[0] == payer:
            self._pending_tax = None
            buildings = pt[3]
        if not 0 <= sq < R.n or R.tax[sq] <= 0:
            self._detect(1.0, f"tax paid on square {sq} that charges none")
            return
        if not (payer == self._me or self._trust_others) or (
                self._assets_hidden and payer != self._me):
            return
        base = R.tax[sq]
        m = self._tax_mult.get(sq, 1.0)
        houses, hotels = buildings if buildings is not None else self._buildings(payer)
        expected = int(base * m)
        per = self._tax_per
        if per is not None:
            expected += int(round(per[0] * houses + per[1] * hotels))
        if amount != expected:
            self._detect(1.0, f"tax {amount} on square {sq}, expected {expected}")
            if self._tax_since is None:
                self._tax_since = self._clock
                self._tax_extra = []  # earlier payments were made under the old rule
        if houses or hotels:
            self._tax_extra.append((sq, base, houses, hotels, amount))
            if len(self._tax_extra) > 200:
                del self._tax_extra[0]
        else:
            self._run(("tax", sq), amount / base, (amount + 1) / base)

    def _run(self, key: Any, lo: float, hi: float) -> None:
        """Intersect a factor interval into the current run of `key`, or start a new run
        when it contradicts it (a change point)."""
        run = self._runs.get(key)
        if run is None or lo >= run[1] or hi <= run[0]:
            self._runs[key] = [lo, hi, self._clock, self._clock]
        else:
            run[0] = max(run[0], lo)
            run[1] = min(run[1], hi)
            run[3] = self._clock

    # --- cards -------------------------------------------------------------------------------
    def _drawn(self, e: Any) -> None:
        seat, deck, idx, text = e
        if self._pending_draw == seat:
            self._pending_draw = -1
        pr = self._pending_rent
        if pr is not None:
            self._close_pending()
        d = self._deck_index.get(deck)
        if d is None:
            self._change(f"deck:{deck}", "exists", None, None, why=f"unknown deck {deck!r}")
            self._card = [seat, -1, None, text, False, (0, 0)]
            return
        self._game_draws.setdefault(deck, []).append((idx, text))
        if deck in self._deck_epoch:
            self._idx_maps.setdefault(deck, {})[idx] = text
            self._epoch_draws[deck] = self._epoch_draws.get(deck, 0) + 1
        cards = self._R.decks[d]
        card = cards[idx] if 0 <= idx < len(cards) and cards[idx].text == text else None
        if card is None:
            card = self._card_mismatch(deck, d, idx, text)
        if (deck, text) in self._unknown_cards:
            card = None
        repairs = card is not None and card.kind == "repairs"
        # A repairs bill is made when the card is drawn, before any sale to pay it.
        self._card = [seat, d, card, text, False, self._buildings(seat) if repairs else (0, 0)]
        if self._deck_complete and self._trust_others:
            self._cycle_check(deck, d, text)

    def _card_mismatch(self, deck: str, d: int, idx: int, text: str) -> Any:
        """The drawn card is not the believed card at its index: a deck changed."""
        if deck not in self._deck_epoch:
            self._deck_epoch.add(deck)
            self._idx_maps[deck] = dict(self._game_draws.get(deck, []))
            self._orig_deck_texts[deck] = dict(self._deck_texts[d])
        known = self._deck_texts[d]
        cards = self._R.decks[d]
        if text in known:
            self._detect(1.0, f"{deck}: card {idx} is {text!r}, not as believed")
            return next(c for c in cards if c.text == text)
        # An unknown text: a changed card (same place, similar words) or a new card.
        old = None
        if 0 <= idx < len(cards) and self._similar(cards[idx].text, text):
            old = cards[idx]
        else:
            best, best_r = None, 0.6
            for c in cards:
                r = difflib.SequenceMatcher(None, c.text, text).ratio()
                if r > best_r and c.text not in self._seen_texts(deck):
                    best, best_r = c, r
            old = best
        if old is None:
            self._change(f"card:{deck}:{text}", "exists", None, None,
                         why=f"{deck}: a new card {text!r}")
            self._unknown_cards.add((deck, text))
            return None
        return self._retext(deck, old, text)

    def _seen_texts(self, deck: str) -> set[str]:
        return set(self._idx_maps.get(deck, {}).values())

    @staticmethod
    def _similar(a: str, b: str) -> bool:
        return difflib.SequenceMatcher(None, a, b).ratio() >= 0.5

    def _retext(self, deck: str, old: Any, text: str) -> Any:
        """A card whose text changed: read the new amounts and square off the text."""
        entity = f"card:{deck}:{self._original_text(deck, old.text)}"
        self._change(entity, "text", text, old.text, why=f"{deck}: card text changed")
        updates: dict[str, Any] = {"text": text}
        old_nums = [int(x) for x in _MONEY.findall(old.text)]
        new_nums = [int(x) for x in _MONEY.findall(text)]
        if len(old_nums) == len(new_nums):
            for attr in ("amount", "per_house", "per_hotel"):
                v = getattr(old, attr)
                if v and v in old_nums:
                    nv = new_nums[old_nums.index(v)]
                    if nv != v:
                        updates[attr] = nv
                        self._change(entity, attr, nv, v, why=f"{deck}: card {attr} in text")
        if old.square >= 0:
            names = sorted(self._R.names, key=len, reverse=True)
            old_name = self._R.names[old.square]
            if old_name not in text:
                for name in names:
                    if name in text:
                        updates["square"] = name
                        self._change(entity, "square", name, old_name,
                                     why=f"{deck}: card destination in text")
                        break
        self._text_origin[(deck, text)] = self._original_text(deck, old.text)
        self._edit_card(deck, old.text, updates)
        d = self._deck_index[deck]
        return next((c for c in self._R.decks[d] if c.text == text), None)

    def _original_text(self, deck: str, text: str) -> str:
        return self._text_origin.get((deck, text), text)

    def _edit_card(self, deck: str, text: str, updates: dict[str, Any]) -> None:
        """Change a believed card (all copies with that text) and recompile."""
        decks = []
        for dk in self._decks:
            if dk.name == deck:
                cards = tuple(c.model_copy(update=updates) if c.text == text else c
                              for c in dk.cards)
                dk = Deck(name=dk.name, cards=cards)
            decks.append(dk)
        self._decks = tuple(decks)
        self._rebuild()

    def _cycle_check(self, deck: str, d: int, text: str) -> None:
        """Within one pass through a deck every physical card shows at most once: a text
        drawn more often than its count in a window shorter than the cycle is new. (Only
        for decks drawn in order: GNOME's `card_draw="random"` draws with replacement.)"""
        seq = self._draws.setdefault(d, [])
        seq.append(text)
        w = self._deck_cycle[d]
        count = self._deck_texts[d].get(text, 0)
        if count and w > 0 and self.believed_schema.bank.card_draw == "deck":
            recent = seq[-w:]
            seen = recent.count(text)
            if seen > count:  # the deck changed (which way, the card indices tell)
                self._detect(1.0, f"{deck}: {text!r} drawn {seen} times within one cycle")

    def _card_fine(self, entity: str) -> None:
        """A card did what the believed card says: evidence against "all cards changed",
        unless the card was already found changed (then it only confirms the estimate)."""
        if not any((entity, a) in self._changes for a in ("amount", "per_house", "per_hotel",
                                                           "text", "square")):
            self._card_ok[entity] = self._clock

    def _card_move(self, card: list, start: int, end: int) -> tuple[bool | None, tuple | None]:
        """Check a card's move; returns (collects Go salary?, rent context) for the landing."""
        c = card[2]
        if c is None:
            return None, None
        R = self._R
        deck = R.deck_names[card[1]]
        entity = f"card:{deck}:{self._original_text(deck, c.text)}"
        k = c.kind
        if k == "advance_to":
            if end != c.square:
                self._change(entity, "square", R.names[end], R.names[c.square] if c.square >= 0
                             else None, why="a card moved elsewhere")
                self._edit_card(deck, c.text, {"square": R.names[end]})
            return c.collect_go, (1.0, None)
        if k == "advance_to_nearest":
            target = R.nearest.get(c.target_kind, ())
            if not target or end != target[start]:
                self._detect(1.0, "a card moved to an unexpected square")
                return None, None
            return c.collect_go, (c.rent_multiplier, c.dice_multiplier)
        if k == "move_back":
            back = (start - end) % R.n
            if back != c.amount:
                self._change(entity, "amount", back, c.amount, why="a card moved back further")
            # `BankRules.move_back_go` (GNOME): a move back counts as a move round the board
            return bool(R.bank.move_back_go and c.collect_go), (1.0, None)
        self._detect(1.0, f"card {c.text!r} moved a token")
        return None, None

    def _card_payment(self, payer: int, payee: int, amount: int) -> None:
        card = self._card
        if card is None or card[1] < 0:
            self._detect(1.0, "a card payment without a card")
            return
        seat, c = card[0], card[2]
        if c is None:
            return  # an unknown card: its effect is not checked
        if not (seat == self._me or self._trust_others):
            return
        deck = self._R.deck_names[card[1]]
        entity = f"card:{deck}:{self._original_text(deck, c.text)}"
        k = c.kind
        ok_dir = ((k == "collect" and payer == BANK and payee == seat)
                  or (k == "pay" and payer == seat and payee == BANK)
                  or (k == "collect_from_each" and payee == seat and payer != BANK)
                  or (k == "pay_each" and payer == seat and payee != BANK)
                  or (k == "repairs" and payer == seat and payee == BANK))
        if not ok_dir:
            self._detect(1.0, f"card {c.text!r} moved money unexpectedly")
            return
        if k == "repairs":
            houses, hotels = card[5]  # counted when drawn: the bill is made before any sale
            expected = houses * c.per_house + hotels * c.per_hotel
            if amount == expected:
                self._card_fine(entity)
                return
            if hotels == 0 and houses:
                self._change(entity, "per_house", amount // houses, c.per_house,
                             why="repairs charged per house")
                if c.per_house:
                    self._card_factors.append((amount / houses / c.per_house, self._clock, entity))
            elif houses == 0 and hotels:
                self._change(entity, "per_hotel", amount // hotels, c.per_hotel,
                             why="repairs charged per hotel")
                if c.per_hotel:
                    self._card_factors.append((amount / hotels / c.per_hotel, self._clock, entity))
            elif expected:
                f = amount / expected
                self._change(entity, "per_house", B.scale(c.per_house, f), c.per_house,
                             why="repairs charged")
                self._change(entity, "per_hotel", B.scale(c.per_hotel, f), c.per_hotel,
                             why="repairs charged")
                self._card_factors.append((f, self._clock, entity))
            return
        if amount == c.amount:
            self._card_fine(entity)
            return
        self._change(entity, "amount", amount, c.amount, why=f"card {c.text!r} paid {amount}")
        if c.amount:
            self._card_factors.append((amount / c.amount, self._clock, entity))
        self._edit_card(deck, c.text, {"amount": amount})
        card[2] = next((x for x in self._R.decks[card[1]] if x.text == c.text), None)

    # --- unknown payments ------------------------------------------------------------------------
    def _unknown_payment(self, payer: int, payee: int, amount: int, reason: str,
                         sq: int) -> None:
        """A payment no believed rule makes: a new rule. Its circumstances are kept so
        the report can say what it looks like (see `_unknown_rules`)."""
        self._detect(1.0, f"a payment for an unknown reason {reason!r}")
        seat = payer if payer != BANK else payee
        n = self._n
        moves = self._moves.get(seat, [])
        landed = bool(moves) and moves[-1][1] == sq
        passed = any(r == "dice" and 0 < (sq - a) % n < (b - a) % n for a, b, r in moves)
        taxes = self._taxes_paid - self._payout_mark.get(reason, 0)
        self._payout_mark[reason] = self._taxes_paid
        cash = self.cash[payer] + amount if payer != BANK else 0
        worth = self._net_worth(payer) + amount if payer != BANK else 0
        samples = self._unknown.setdefault(reason, [])
        if len(samples) < 200:
            samples.append((payer, amount, sq, landed, passed, seat in self._passed_go,
                            cash, worth, taxes))

    def _net_worth(self, seat: int) -> int:
        R = self._R
        total = self.cash[seat]
        for sq in R.properties:
            if self.owner[sq] == seat:
                total += R.price[sq] - (R.mortgage[sq] if self.mort[sq] else 0)
                total += self.level[sq] * R.house_cost[sq]
        return total

    # --- observation checks ----------------------------------------------------------------
    def _hidden_events(self, attribute: str, why: str) -> None:
        self._trust_others = False
        self._deck_complete = False
        self._change("observation:events", attribute, "hidden", "shown", why=why)

    def _compare(self, obs: Any) -> None:
        if self._skip:
            return
        me = obs.seat
        if self._first_compare:
            self._first_compare = False
            self._starting_cash(obs)
        if tuple(self.cash) != obs.cash:
            for s, (shown, true) in enumerate(zip(obs.cash, self.cash)):
                if shown != true:
                    if s == me:
                        self._detect(1.0, f"my cash is {shown}, the payments say {true}")
                    elif self.active[s]:
                        self._opponent_cash(shown, true)
            self.cash[me] = obs.cash[me]
        for field, mine in (("owner", self.owner), ("level", self.level),
                            ("mortgaged", self.mort)):
            shown = getattr(obs, field)
            if tuple(mine) != shown:
                others = [sq for sq, (a, b) in enumerate(zip(shown, mine))
                          if a != b and self.owner[sq] != me and obs.owner[sq] != me]
                if others:
                    self._change(f"observation:{field}", "opponents' values shown", "hidden",
                                 "shown", why=f"opponents' {field} differ from the events")
                else:
                    self._detect(1.0, f"my {field} differs from the events")
                for sq, o in enumerate(obs.owner):  # my own squares are shown truly
                    if o == me or self.owner[sq] == me:
                        self.owner[sq] = o
                        self.level[sq] = obs.level[sq]
                        self.mort[sq] = obs.mortgaged[sq]
        if tuple(self.pos) != obs.position:
            for s, (a, b) in enumerate(zip(obs.position, self.pos)):
                if a != b:
                    if s != me:
                        self._hidden_events("opponents' events shown",
                                            f"seat {s} is on {a}, the events say {b}")
                    else:
                        self._detect(1.0, "my position differs from the events")
        if tuple(self.jailed) != obs.in_jail or tuple(self.active) != obs.active:
            self._detect(1.0, "jail or bankruptcy status differs from the events")
        self.pos = list(obs.position)
        self.jailed = list(obs.in_jail)
        self.active = list(obs.active)

    def _starting_cash(self, obs: Any) -> None:
        """At the first comparison of a game every payment so far has been replayed: if
        every player's cash is off by the same amount, the game started with other cash."""
        diffs = {shown - mine for shown, mine in zip(obs.cash, self.cash)}
        if len(diffs) != 1 or obs.turn > 1:
            return
        d = diffs.pop()
        if d == 0:
            return
        old = int(self._public["bank"]["starting_cash"]) + self._cash_offset
        self._cash_offset += d
        self.cash = [c + d for c in self.cash]
        self._change("bank", "starting_cash", old + d, old,
                     why=f"every player started with {old + d}, not {old}")

    def _opponent_cash(self, shown: int, true: int) -> None:
        samples = self._cash_samples
        if len(samples) < 500:
            samples.append((shown, true))
        if all(s == 0 for s, _ in samples):
            value = "always 0"
        else:
            value = None
            for g in (1000, 500, 200, 100, 50, 20, 10):
                if all(s == t // g * g for s, t in samples if t >= 0):
                    value = f"rounded down to {g}"
                    break
        self._change("observation:cash", "opponents' cash shown", value, "exact",
                     why=f"an opponent's cash is shown as {shown}, the payments say {true}")

    # --- rules we can only see through legality ----------------------------------------
    def _check_building(self, obs: Any) -> None:
        """A build the believed rules allow but the game forbids: a hidden rule. Only
        our own refusals are seen (`obs.refused`, which names no parameter)."""
        R = self._R
        seat = obs.seat
        for sq in obs.refused:
            if 0 <= sq < R.n and check_build(R, obs, seat, sq) is None:
                self._change("rule:building_allowed", "building allowed", None, None,
                             why=f"building refused on {R.names[sq]}")
                return

    def _check_actions(self, obs: Any) -> None:
        for a in obs.legal_actions():
            if a.kind not in CORE_ACTION_KINDS:
                self._change(f"action:{a.kind}", "exists", None, None,
                             why=f"a new action {a.kind!r} is legal")

    def _most_sets(self) -> int:
        """The most buildable sets one player holds (in the replica)."""
        R = self._R
        per: dict[int, int] = {}
        for g, members in enumerate(R.group_members):
            if members and R.group_buildable[g]:
                o = self.owner[members[0]]
                if o >= 0 and has_monopoly(R, self.owner, o, g):
                    per[o] = per.get(o, 0) + 1
        return max(per.values(), default=0)

    def _rule_ending(self, result: Any) -> None:
        seat = result.winner_seat
        worth = result.net_worths[seat] if seat < len(result.net_worths) else 0
        R = self._R
        sets = 0
        for g, members in enumerate(R.group_members):
            if members and R.group_buildable[g] and has_monopoly(R, self.owner, seat, g):
                sets += 1
        self._rule_endings.append((worth, sets, self._max_sets))
        self._detect(1.0, f"a game ended by a rule ({result.end_reason})")

    # ================================================================== dice statistics
    def _test_dice(self) -> None:
        hist = self._dice_hist
        if not hist:
            return
        if self._dice_done:
            self._refine_dice()
            return
        probs = self._die_probs
        nd = len(probs)
        identical = nd > 1 and all(p == probs[0] for p in probs)
        tests = len(self.windows) * (nd + (1 if identical else 0))
        alpha_test = self.alpha / (max(self.horizon, 1) * max(tests, 1))
        if self._announced:
            alpha_test = max(alpha_test, 1e-3)
        for w in self.windows:
            if w > len(hist):
                break
            agg = [dict() for _ in range(nd)]
            for game in hist[-w:]:
                for i in range(min(nd, len(game))):
                    a = agg[i]
                    for v, c in game[i].items():
                        a[v] = a.get(v, 0) + c
            groups = [[i] for i in range(nd)] + ([list(range(nd))] if identical else [])
            for dice in groups:
                counts: dict[int, int] = {}
                for i in dice:
                    for v, c in agg[i].items():
                        counts[v] = counts.get(v, 0) + c
                p = probs[dice[0]]
                n = sum(counts.values())
                if n * min(p.values()) < self.min_expected:
                    continue
                stat, df, _ = B.chi_square(counts, p)
                pv = _p_value(stat, df)
                if pv < alpha_test:
                    # A rejection is evidence only when the estimate it leads to differs
                    # from the believed dice; otherwise the report would say "detected"
                    # with nothing changed (issue 14), so the test goes on.
                    _, changes = self._estimate_dice(hist[-w:], self._dice)
                    if not changes:
                        continue
                    self._dice_hist = hist[-w:]
                    self._dice_done = True
                    self._orig_dice = self._dice
                    conf = 1.0 - min(1.0, pv * self.horizon * tests)
                    self._detect(conf, f"dice {dice}: chi-square {stat:.1f} over {w} games, "
                                       f"p={pv:.2e}")
                    self._refine_dice(confidence=conf)
                    return

    def _refine_dice(self, confidence: float = 1.0) -> None:
        """Adopt the MAP dice from the data since the change, and report them."""
        for key in [k for k in self._changes if k[0].startswith("die:")
                    and k[1] in ("faces", "weights", "exists")]:
            del self._changes[key]
        orig = self._orig_dice or self._dice
        new_dice, changes = self._estimate_dice(self._dice_hist, orig)
        for entity, attribute, new, old, why in changes:
            self._change(entity, attribute, new, old,
                         confidence=confidence if attribute == "weights" else 1.0, why=why)
        nd = len(new_dice)
        changed = len(self._dice) != nd
        if new_dice and (changed or _dice_moved(self._dice, tuple(new_dice))):
            self._dice = tuple(new_dice)
            self._rebuild()

    def _estimate_dice(self, hist: list[list[dict[int, int]]], orig: tuple[Die, ...]
                       ) -> tuple[list[Die], list[tuple[str, str, Any, Any, str]]]:
        """The MAP dice from per-game face counts `hist`, and the changes from `orig`
        (entity, attribute, new, old, why) they amount to - empty when the estimate is
        the believed dice (then a test's rejection carries no evidence)."""
        nd = max((len(g) for g in hist), default=0)
        new_dice: list[Die] = []
        changes: list[tuple[str, str, Any, Any, str]] = []
        for i in range(nd):
            counts: dict[int, int] = {}
            for game in hist:
                if i < len(game):
                    for v, c in game[i].items():
                        counts[v] = counts.get(v, 0) + c
            n = sum(counts.values())
            old = orig[i] if i < len(orig) else None
            old_faces = list(old.faces) if old is not None else None
            seen = sorted(counts)
            if old is not None:
                # A believed face never shown is gone only when it should have come up
                # often by now.
                p_old = old.probabilities()
                seen = sorted(set(seen) | {v for v, p in p_old.items() if n * p < 20})
            if old is not None and set(seen) == set(old.faces):
                faces = old_faces
            else:
                faces = B.face_layout(seen, len(old.faces) if old is not None else 6)
            if not faces:
                continue
            probs = {v: faces.count(v) / len(faces) for v in set(faces)}
            stat, df, _ = B.chi_square(counts, probs)
            weights = None
            if n and _p_value(stat, df) <= 1e-3:
                weights = B.sparse_weights(counts, tuple(faces))
                if len(set(weights)) <= 1:
                    weights = None  # no face stands out: no estimated bias to report
            entity = f"die:{i}"
            if old is None:
                changes.append((entity, "exists", {"faces": faces, "weights": weights}, None,
                                f"die {i} appeared"))
            else:
                if faces != old_faces:
                    changes.append((entity, "faces", faces, old_faces, f"die {i} faces"))
                old_w = list(old.weights) if old.weights is not None else None
                if weights != old_w and (weights is not None or faces == old_faces):
                    changes.append((entity, "weights", weights, old_w, f"die {i} weights"))
            if weights is None:
                die = Die(faces=tuple(faces))
            else:
                prior = {v: faces.count(v) / len(faces) for v in set(faces)}
                post = B.map_weights(counts, prior, self.prior_strength)
                w = tuple(post.get(f, 0.0) / faces.count(f) for f in faces)
                die = Die(faces=tuple(faces), weights=w if sum(w) > 0 else None)
            new_dice.append(die)
        for i in range(nd, len(orig)):
            changes.append((f"die:{i}", "exists", None, orig[i].model_dump(mode="json"),
                            f"die {i} is gone"))
        return new_dice, changes
