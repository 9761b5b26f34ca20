"""Rent: what a landing on an owned property should cost, against what is paid."""

from __future__ import annotations

from typing import Any

from openmono.compiled import STREET, UTILITY
from openmono.engine import rent_of

from agents.planner.detection.factors import LandingCharge


class RentChecker(LandingCharge):
    """Sets the rent a landing makes due (`pending`: [payer, square, owner, expected or
    None until the throw a utility needs, throws still to come, (rent, dice) multipliers
    of a card]), checks each rent payment against the believed rent and factors, and
    feeds the factor runs (`ChargeFactors`) with what each payment says."""

    reasons = ("rent",)

    def landed(self, seat: int, sq: int, reason: str, ctx: tuple) -> None:
        """A landing on an owned, unmortgaged property makes the believed rent due (a
        utility's waits for the throw that sets it)."""
        det = self.det
        R = det.R
        if not R.is_property[sq]:
            return
        rep = det.replica
        o = rep.owner[sq]
        if o < 0 or o == seat or rep.mort[sq] or not rep.active[o]:
            return
        mult, dice_mult = ctx
        if R.kind[sq] == UTILITY and (dice_mult is not None or reason != "dice"):
            # A throw for the rent follows; finish the expectation at the payment.
            self.pending = [seat, sq, o, None, 1, (mult, dice_mult)]
            return
        base = rent_of(R, rep.owner, rep.level, sq, det.turn.last_total)
        base = int(base * mult)
        self.pending = [seat, sq, o, base, 0, None]

    def close(self) -> None:
        """A rent that was due and not paid: a missing payment (or a rent of 0)."""
        pr = self.pending
        if pr is None:
            return
        self.pending = None
        det = self.det
        rep = det.replica
        payer, sq, o = pr[0], pr[1], pr[2]
        base = pr[3]
        if base is None:  # utility by card: the rent needed a throw that never came
            base = rent_of(det.R, rep.owner, rep.level, sq, 7)
        mine = payer == det.me or o == det.me
        if base > 0 and not rep.jailed[o] and not mine:
            det.missing_payment(f"no rent paid on square {sq}")
        elif base > 0 and (mine or det.trust_others) and not (
                det.assets_hidden and o != det.me):
            self._seen(sq, base, 0, rep.jailed[o])

    def on_dice_rolled(self, e: Any) -> None:
        """The payer's throw a utility's rent waits for; any other throw ends the landing."""
        pr = self.pending
        if pr is not None:
            if pr[4] > 0 and pr[0] == e[0]:
                pr[4] -= 1
            else:
                self.det.close_landing()

    def on_card_drawn(self, e: Any) -> None:
        """A draw ends any landing still waiting for its rent."""
        if self.pending is not None:
            self.det.close_landing()

    def on_payment(self, e: Any) -> None:
        """A rent paid against the believed rent of the square as owned and built; the
        factor it implies goes to the shared evidence."""
        payer, _, amount, _, sq = e
        det = self.det
        R = det.R
        if not 0 <= sq < R.n:
            return
        rep = det.replica
        last_total = det.turn.last_total
        pr = self.pending
        if pr is not None and pr[0] == payer and pr[1] == sq:
            self.pending = None
            o, base = pr[2], pr[3]
            if base is None:
                mult, dice_mult = pr[5]
                if dice_mult is not None:
                    base = dice_mult * last_total
                else:
                    base = int(rent_of(R, rep.owner, rep.level, sq, last_total) * mult)
        else:
            o = rep.owner[sq]
            if o < 0:
                if not det.assets_hidden:
                    det.detect(1.0, f"rent paid on unowned square {sq}")
                return
            base = rent_of(R, rep.owner, rep.level, sq, last_total)
        if not (payer == det.me or o == det.me or det.trust_others):
            return
        if det.assets_hidden and o != det.me:
            return  # the opponent's buildings and mortgages are not known
        roll = det.turn.roll
        if R.kind[sq] == UTILITY and (roll is None or roll[0] != payer):
            return  # the throw that sets a utility rent was not seen
        self._seen(sq, base, amount, rep.jailed[o] if o >= 0 else False)

    def _seen(self, sq: int, base: int, paid: int, jailed: bool) -> None:
        """A rent of `paid` where the board says `base`: checked against the believed
        factors, and its factor interval added to the square's (or the jail's) run."""
        det = self.det
        f = self.factors
        if base <= 0:
            if paid > 0:
                det.detect(1.0, f"rent {paid} where none was due")
            return
        level = det.replica.level[sq] if det.R.kind[sq] == STREET else 0
        built = level > 0
        m = f.rent_mult.get(sq, 1.0)
        if built:
            m = f.built_factor(sq, level, f.built_mult.get(sq, m))
        expected = int(base * m)
        if jailed:
            expected = int(expected * f.jail_rent)
            if paid != expected:
                det.detect(1.0, f"rent {paid} (expected {expected}) to an owner in jail")
            charged = int(base * m)
            if charged > 0:
                f.run("jail", paid / charged, (paid + 1) / charged)
            return
        if paid != expected:
            det.detect(1.0, f"rent {paid} on square {sq}, expected {expected}")
        f.run(("built", sq) if built else sq, paid / base, (paid + 1) / base)
        if built:  # (and per level: a rule may spare the first houses)
            f.run(("level", sq, level), paid / base, (paid + 1) / base)
