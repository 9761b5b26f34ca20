"""The detector's core: the rules it believes, the replica of the public state, the
table of event handlers, and the record of what it detected. Every check lives in a
checker (`agents.planner.detection.registry.CHECKERS`; interface in `checker.py`).

`NoveltyDetector` keeps the rules the agent believes (`believed_schema`, the standard
game at first) and compares what they predict with what the agent sees:

- the public rules of the observation (re-read only when `obs.rules` is another object):
  any difference is a visible novelty, characterized by diffing and adopted at once;
- a replica of the public state rebuilt from the event stream alone (`replica.py`):
  each event goes to the checkers that handle its kind (rents, taxes, prices, bank
  rules, cards, dice, movement, refusals, ...), which compare it with the believed
  rules; at each decision the replica is compared with the observation;
- at game ends the checkers close their statistics (the dice's chi-square test) and
  adopt what their evidence says about hidden rules.

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

from typing import Any, Callable, TypeVar

from openmono.compiled import compile_rules
from openmono.schema import GameSchema, standard_schema

from agents.base import NoveltyChange, NoveltyReport
from agents.planner import beliefs as B
from agents.planner.detection.checker import OTHER, Changes, Checker, overrides
from agents.planner.detection.registry import CHECKERS
from agents.planner.detection.replica import Replica, Turn

WINDOWS = (1, 2, 4, 8, 16, 32, 64)
KNOWN_EVENTS = frozenset((
    "dice_rolled", "moved", "payment", "card_drawn", "property_transferred",
    "building_changed", "mortgage_changed", "auction_started", "auction_ended", "bid_made",
    "trade_offered", "trade_answered", "jail_card_moved", "jailed", "released", "bankrupt",
    "fault", "turn_started", "game_over"))
# A new move or turn ends the context of the last landing before anything else; going to
# jail ends it once the replica has the seat in jail.
CLOSE_BEFORE = frozenset(("moved", "turn_started"))
CLOSE_AFTER = frozenset(("jailed",))
HOOKS = ("compiled", "rules_changed", "believe", "new_game", "start_game", "before_event",
         "close", "landed", "after_events", "observed", "game_result", "end_game", "adopt",
         "announced", "derived")
Handler = Callable[[Any], None]
C = TypeVar("C", bound=Checker)


class NoveltyDetector:
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
        self.was_announced = False
        self.changes: dict[tuple[str, str], NoveltyChange] = {}
        self.clock = 0  # events processed (orders evidence)
        self.games = 0
        # --- beliefs: the public rules, hidden dice and decks, merged into `printed` ----
        s = self.believed_schema
        self.public: dict = s.public_dict()
        self.renamed: dict[str, str] = {}
        self.touched: set[str] = set()  # squares whose public rule text changed
        self.dice = s.dice
        self.decks = s.decks
        self.printed: GameSchema = s  # the believed rules before hidden factors
        # Streets believed in another colour set than the board shows (name -> group;
        # `groups.GroupChecker`): part of `printed`, since every check reads the sets.
        self.group_override: dict[str, str] = {}
        self.need_override: dict[str, int] = {}  # group -> streets that make a set
        # --- the public state, and how far the observation can be trusted ---------------
        self.replica = Replica()
        self.turn = Turn()
        self.trust_others = True  # False once others' events are known to be filtered
        self.assets_hidden = False  # events about opponents' assets are filtered
        self.payments_missing = 0  # opponents' payments the rules required and never came
        self.deck_complete = True
        self.checkers: tuple[Checker, ...] = tuple(cls(self) for cls in CHECKERS)
        self._hooks = {hook: tuple(c for c in self.checkers if overrides(c, hook))
                       for hook in HOOKS}
        self._events = self._event_table()
        self._payments, self._other_payments = self._payment_table()
        self._compile()
        self._rules_seen: Any = None
        self.me = -1
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
            for c in self._hooks["after_events"]:
                c.after_events(obs)
            if self.skip:
                self.replica.take(obs)
                self.skip = False
        for c in self._hooks["observed"]:
            c.observed(obs)

    def end_game(self, result: Any = None) -> None:
        """Game boundary: close the game's statistics and adopt what the evidence says.
        (Whatever was pending is dropped: the game may have ended in a payment.)"""
        for c in self._hooks["game_result"]:
            c.game_result(result)
        self.games += 1
        for c in self._hooks["end_game"]:
            c.end_game()
        changed = False
        for c in self._hooks["adopt"]:
            changed = c.adopt() or changed
        if changed:
            self.rebuild()
        self._fresh = True
        self._new_game_state()

    def report(self) -> NoveltyReport:
        """What the detector has found, for the harness: nothing until the first detection,
        then its confidence and every change, with those inferred from accumulated
        evidence added at each report."""
        if not self._detected:
            return NoveltyReport()
        changes = dict(self.changes)
        derived: Changes = {}
        for c in self._hooks["derived"]:
            c.derived(derived)
        changes.update(derived)
        return NoveltyReport(True, min(1.0, max(0.0, self._confidence)),
                             tuple(changes.values()))

    def announce(self) -> None:
        """Told that a novelty arrives now ("given detection"): report it, and let the
        statistics start afresh so estimates use post-novelty data only."""
        self.was_announced = True
        self.detect(1.0, "announced")
        for c in self._hooks["announced"]:
            c.announced()

    @property
    def detected(self) -> bool:
        """Whether any evidence of a novelty has been seen (the harness's "detected"
        signal)."""
        return self._detected

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with the agent (a trial's snapshot for resuming): the dispatch
        tables are rebuilt from the checkers on loading."""
        state = dict(self.__dict__)
        for table in ("_events", "_payments", "_other_payments"):
            del state[table]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._events = self._event_table()
        self._payments, self._other_payments = self._payment_table()

    # ================================================================== for checkers
    def detect(self, confidence: float, why: str) -> None:
        """Record a detection (the report says detected, with the highest confidence)."""
        if len(self.evidence) < 50:
            self.evidence.append(f"game {self.games}: {why}")
        self._detected = True
        self._confidence = max(self._confidence, confidence)

    def change(self, entity: str, attribute: str, new: Any = None, old: Any = None,
               confidence: float = 1.0, why: str = "") -> None:
        """Record a detection that names what changed (reported as a `NoveltyChange`)."""
        self.changes[(entity, attribute)] = NoveltyChange(entity, attribute, new, old)
        self.detect(confidence, why or f"{entity} {attribute}: {old!r} -> {new!r}")

    def hidden_events(self, attribute: str, why: str) -> None:
        """Events about others are filtered: stop checking what they alone would show."""
        self.trust_others = False
        self.deck_complete = False
        self.change("observation:events", attribute, "hidden", "shown", why=why)

    def missing_payment(self, why: str) -> None:
        """An opponent's payment the rules require did not show: either a rule changed
        or payments between others are hidden (told apart in the report)."""
        self.payments_missing += 1
        if self.payments_missing >= 2:
            self.trust_others = False
        self.detect(1.0, why)

    def close_landing(self) -> None:
        """A landing's context ended: each checker closes what it still expected."""
        for c in self._hooks["close"]:
            c.close()

    def land(self, seat: int, sq: int, reason: str, ctx: tuple) -> None:
        """A move ended on `sq`: each checker sets what the believed rules expect next."""
        for c in self._hooks["landed"]:
            c.landed(seat, sq, reason, ctx)

    def checker(self, cls: type[C]) -> C:
        """The registered checker of class `cls`."""
        return next(c for c in self.checkers if isinstance(c, cls))  # type: ignore[return-value]

    def rebuild(self) -> None:
        """Believed schema = public rules + believed dice/decks + hidden beliefs."""
        self.printed = B.regroup(B.merge_public(self.public, self.dice, self.decks,
                                                self.renamed), self.group_override,
                                 self.need_override)
        self.decks = self.printed.decks
        self._compile()
        believed = self.printed
        for c in self._hooks["believe"]:
            believed = c.believe(believed)
        if believed != self.believed_schema:
            self.believed_schema = believed
            self.version += 1

    # ================================================================== beliefs
    def _compile(self) -> None:
        self.R = compile_rules(self.printed)
        self.n = self.R.n
        for c in self._hooks["compiled"]:
            c.compiled()

    def _on_rules(self, obs: Any) -> None:
        self._rules_seen = obs.rules
        public = obs.rules.public_schema
        if public == self.public:
            return
        raw, renamed = B.diff_public(self.public, public)
        for entity, attribute, old, new in raw:
            self.change(entity, attribute, new, old, why=f"public rules: {entity} {attribute}")
            if entity.startswith("square:") and attribute in ("params", "kind", "exists"):
                self.touched.add(entity[7:])
                if isinstance(new, dict):
                    self.touched.add(new.get("name", ""))
        self.touched.update(renamed.values())
        self._follow_renames(renamed)
        old_n = self.n
        self.public = public
        for c in self._hooks["rules_changed"]:
            c.rules_changed()
        self.rebuild()
        if not self.started_now:
            self.skip = True  # mid-game: events of this batch span the change
        if self.n != old_n:
            self._start_replica(len(obs.cash))

    def _follow_renames(self, renamed: dict[str, str]) -> None:
        """Cards follow a renamed square: each believed card naming it is a change."""
        for old_name, new_name in renamed.items():
            self.renamed[old_name] = new_name
            for d in self.decks:
                for c in d.cards:
                    if c.square == old_name:
                        self.change(f"card:{d.name}:{c.text}", "square", new_name, old_name,
                                    why="a card's square was renamed")

    # ================================================================== games
    def _new_game_state(self) -> None:
        self.skip = False  # the events of this batch span a rule change: check nothing
        self.started_now = False
        self.turn = Turn()
        self.replica.taxes_paid = 0
        self.deck_complete = True
        for c in self._hooks["new_game"]:
            c.new_game()

    def _start_game(self, obs: Any) -> None:
        self._fresh = False
        self.started_now = True
        self.me = obs.seat
        if obs.rules is not self._rules_seen:
            self._on_rules(obs)
        self._start_replica(len(obs.cash))
        if obs.turn > 1:  # joined mid-game: take the state as shown
            self.replica.take(obs)
        for c in self._hooks["start_game"]:
            c.start_game(obs)

    def _start_replica(self, players: int) -> None:
        self.replica.start(players, self.R, int(self.public["bank"]["starting_cash"]))

    # ================================================================== events
    def _event_table(self) -> dict[str, Handler]:
        """Event kind -> its handler: the checkers' `on_<kind>` in `CHECKERS` order, then
        the replica's record (payments: `_payment`)."""
        table: dict[str, Handler] = {"payment": self._payment}
        for kind in KNOWN_EVENTS - {"payment"}:
            steps: list[Handler] = [getattr(c, "on_" + kind) for c in self.checkers
                                    if hasattr(c, "on_" + kind)]
            record = getattr(self.replica, "on_" + kind, None)
            if record is not None:
                steps.append(record)
            if kind in CLOSE_BEFORE:
                steps.insert(0, self._close_event)
            if kind in CLOSE_AFTER:
                steps.append(self._close_event)
            if steps:
                table[kind] = steps[0] if len(steps) == 1 else _chain(tuple(steps))
        return table

    def _payment_table(self) -> tuple[dict[str, tuple[Handler, ...]], tuple[Handler, ...]]:
        """Payment reason -> the checkers' `on_payment` that check it; and those for any
        reason no checker names (`OTHER`)."""
        table: dict[str, list[Handler]] = {}
        other: list[Handler] = []
        for c in self.checkers:
            for reason in c.reasons:
                (other if reason == OTHER else table.setdefault(reason, [])).append(
                    c.on_payment)  # type: ignore[attr-defined]
        return {r: tuple(h) for r, h in table.items()}, tuple(other)

    def _close_event(self, e: Any) -> None:
        self.close_landing()

    def _process(self, evs: tuple) -> None:
        self.started_now = False
        before = self._hooks["before_event"]
        table = self._events
        for e in evs:
            self.clock += 1
            for c in before:
                c.before_event(e)
            handler = table.get(e.kind)
            if handler is not None:
                handler(e)
            elif e.kind not in KNOWN_EVENTS:
                self.detect(1.0, f"unknown event kind {e.kind!r}")

    def _payment(self, e: Any) -> None:
        """Every cash movement is a payment: the replica records it, then (unless the
        batch spans a rule change) the checkers of its reason check it."""
        self.replica.on_payment(e)
        if self.skip:
            return
        for handler in self._payments.get(e[3], self._other_payments):
            handler(e)

    # ================================================================== older names
    # (tests and docs/results/detection.md drive the dice test and the event loop directly)
    @property
    def _me(self) -> int:
        return self.me

    @_me.setter
    def _me(self, seat: int) -> None:
        self.me = seat

    @property
    def _dice_hist(self) -> list:
        return self._dice_checker().hist

    @_dice_hist.setter
    def _dice_hist(self, hist: list) -> None:
        self._dice_checker().hist = hist

    def _test_dice(self) -> None:
        self._dice_checker().test()

    def _dice_checker(self) -> Any:
        from agents.planner.detection.dice import DiceChecker

        return self.checker(DiceChecker)


def _chain(steps: tuple[Handler, ...]) -> Handler:
    """One handler calling `steps` in order."""
    def run(e: Any) -> None:
        for step in steps:
            step(e)
    return run
