"""What the observation shows against what the events say: filtered or noisy fields."""

from __future__ import annotations

from typing import Any

from agents.base import NoveltyChange
from agents.planner.detection.checker import Changes, Checker

BANK = -1
ASSET_EVENT = {"buy": "property_transferred", "auction": "property_transferred",
               "build": "building_changed", "sell_building": "building_changed",
               "mortgage": "mortgage_changed", "unmortgage": "mortgage_changed"}


class ObservationChecker(Checker):
    """Compares the replica with each observation (cash, assets, positions, jail), reads
    the starting cash off the first comparison, and expects the event that says what a
    payment for an asset changed: what is missing or different is hidden or noisy."""

    reasons = tuple(ASSET_EVENT)

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.cash_samples: list[tuple[int, int]] = []  # (shown, true) opponents' cash
        self.new_game()

    def new_game(self) -> None:
        """No asset change is expected yet; the first comparison of the game also checks the
        starting cash."""
        self.expect: tuple | None = None  # (event kind, square, seat, payment reason)
        self.first_compare = True

    # --- the event after a payment for an asset ------------------------------------------
    def on_payment(self, e: Any) -> None:
        """A payment on a square expects the asset change it pays for (a purchase, a build,
        a mortgage)."""
        payer, payee, _, reason, sq = e
        if 0 <= sq < self.det.R.n:
            self.expect = (ASSET_EVENT[reason], sq, payer if payer != BANK else payee, reason)

    def before_event(self, e: Any) -> None:
        """The event right after a purchase, building or mortgage payment must say what
        changed; when it is missing, events about opponents' assets are hidden."""
        if self.expect is None:
            return
        kind, sq, seat, reason = self.expect
        self.expect = None
        if e.kind == kind and e.square == sq:
            return
        det = self.det
        rep = det.replica
        det.assets_hidden = True
        if reason in ("buy", "auction"):
            rep.owner[sq] = seat
        elif reason == "build":
            rep.level[sq] += 1
        elif reason == "sell_building":
            rep.level[sq] = max(0, rep.level[sq] - 1)
        else:
            rep.mort[sq] = reason == "mortgage"
        if seat != det.me:
            det.hidden_events("opponents' values shown",
                              f"seat {seat} paid ({reason}) for square {sq}; no change seen")
        else:
            det.detect(1.0, f"my {reason} on square {sq} changed nothing")

    # --- the observation against the replica ---------------------------------------------
    def after_events(self, obs: Any) -> None:
        """Compare what the observation shows (cash, assets, positions) with the replica: a
        difference is a hidden rule or a filtered observation."""
        det = self.det
        if det.skip:
            return
        if self.first_compare:
            self.first_compare = False
            self._starting_cash(obs)
        self._cash(obs)
        self._assets(obs)
        self._positions(obs)

    def _cash(self, obs: Any) -> None:
        det = self.det
        rep = det.replica
        me = obs.seat
        if tuple(rep.cash) != obs.cash:
            for s, (shown, true) in enumerate(zip(obs.cash, rep.cash)):
                if shown != true:
                    if s == me:
                        det.detect(1.0, f"my cash is {shown}, the payments say {true}")
                    elif rep.active[s]:
                        self._opponent_cash(shown, true)
            rep.cash[me] = obs.cash[me]

    def _assets(self, obs: Any) -> None:
        det = self.det
        rep = det.replica
        me = obs.seat
        for field, mine in (("owner", rep.owner), ("level", rep.level), ("mortgaged", rep.mort)):
            shown = getattr(obs, field)
            if tuple(mine) != shown:
                others = [sq for sq, (a, b) in enumerate(zip(shown, mine))
                          if a != b and rep.owner[sq] != me and obs.owner[sq] != me]
                if others:
                    det.change(f"observation:{field}", "opponents' values shown", "hidden",
                               "shown", why=f"opponents' {field} differ from the events")
                else:
                    det.detect(1.0, f"my {field} differs from the events")
                for sq, o in enumerate(obs.owner):  # my own squares are shown truly
                    if o == me or rep.owner[sq] == me:
                        rep.owner[sq] = o
                        rep.level[sq] = obs.level[sq]
                        rep.mort[sq] = obs.mortgaged[sq]

    def _positions(self, obs: Any) -> None:
        det = self.det
        rep = det.replica
        me = obs.seat
        if tuple(rep.pos) != obs.position:
            for s, (a, b) in enumerate(zip(obs.position, rep.pos)):
                if a != b:
                    if s != me:
                        det.hidden_events("opponents' events shown",
                                          f"seat {s} is on {a}, the events say {b}")
                    else:
                        det.detect(1.0, "my position differs from the events")
        if tuple(rep.jailed) != obs.in_jail or tuple(rep.active) != obs.active:
            det.detect(1.0, "jail or bankruptcy status differs from the events")
        rep.pos = list(obs.position)
        rep.jailed = list(obs.in_jail)
        rep.active = list(obs.active)

    def _starting_cash(self, obs: Any) -> None:
        """At the first comparison of a game every payment so far has been replayed: if
        every player's cash is off by the same amount, the game started with other cash."""
        rep = self.det.replica
        diffs = {shown - mine for shown, mine in zip(obs.cash, rep.cash)}
        if len(diffs) != 1 or obs.turn > 1:
            return
        d = diffs.pop()
        if d == 0:
            return
        old = int(self.det.public["bank"]["starting_cash"]) + rep.cash_offset
        rep.cash_offset += d
        rep.cash = [c + d for c in rep.cash]
        self.det.change("bank", "starting_cash", old + d, old,
                        why=f"every player started with {old + d}, not {old}")

    def _opponent_cash(self, shown: int, true: int) -> None:
        """An opponent's cash shown other than the payments say: hidden, or rounded."""
        samples = self.cash_samples
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
        self.det.change("observation:cash", "opponents' cash shown", value, "exact",
                        why=f"an opponent's cash is shown as {shown}, the payments say {true}")

    def derived(self, out: Changes) -> None:
        """Payments between others missing from the events, often enough to be the
        observation's doing, are reported as hidden."""
        if self.det.payments_missing >= 2:
            out[("observation:events", "payments between others")] = NoveltyChange(
                "observation:events", "payments between others", "hidden", "shown")
