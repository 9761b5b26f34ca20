"""Class novelties on squares: new square kinds (toll, jackpot) and new landing rules
(a fee for visiting the jail, a bonus for landing on Go or on one other square).

`announced` (where a plugin has it) writes the rule into the square's public `params`,
so agents can read it off the board; hard presets leave it unannounced (only the
payments reveal it). `lucky_square` is never announced.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openmono.events import BANK
from openmono.hooks import Hooks
from openmono.kinds import register_square_kind
from openmono.schema import GameSchema, Square

from novelties.base import Applied, HookChange, Novelty, NoveltyParams, replace
from novelties.catalogue._common import first_of_kind, with_square_params


def _replace_square(schema: GameSchema, old: str, new: Square) -> GameSchema:
    i = schema.index_of(old)
    if schema.squares[i].is_property:
        raise ValueError(f"{old!r} is a property; choose a square nobody can own")
    return replace(schema, squares=schema.squares[:i] + (new,) + schema.squares[i + 1:])


def _then_continue(gen: Any) -> Any:
    """Run a charge inside a landing hook and let the standard landing go on."""
    yield from gen
    return False


# --- toll -----------------------------------------------------------------------------
def _toll_land(game: Any, seat: int, sq: int) -> Any:
    toll = game.rules.schema.squares[sq].params.get("toll", 0)
    return game.charge(seat, BANK, toll, "toll", sq)


def _toll_passing(game: Any, seat: int) -> Any:
    """End of turn: pay the passing toll for every toll square passed by a dice move."""
    rules = game.rules
    n = rules.n
    tolls = [i for i, k in enumerate(rules.kind_names) if k == "toll"]
    owed, where = 0, -1
    for ev in game.turn_events():
        if ev.kind == "moved" and ev.seat == seat and ev.reason == "dice":
            steps = (ev.end - ev.start) % n
            for t in tolls:
                if 0 < (t - ev.start) % n < steps:
                    owed += rules.schema.squares[t].params.get("passing", 0)
                    where = t
    if owed:
        return game.charge(seat, BANK, owed, "toll", where)
    return None


class _Toll(NoveltyParams):
    toll: int = Field(ge=1, le=5000)
    passing: int = Field(0, ge=0, le=5000)
    replaces: str = "Free Parking"


class TollSquare(Novelty):
    """A new square kind charges a toll to land on (and to pass): a safe square becomes a
    cost, and a route past it costs more than an agent reading the standard board
    expects."""

    name = "toll_square"
    category = "class"
    description = ("A new 'toll' square kind replaces a square: landing pays `toll`, passing it "
                   "by dice pays `passing`; easy charges 150 to land and 50 to pass, hard only "
                   "50 to land.")
    Params = _Toll
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"toll": 150, "passing": 50}, "medium": {"toll": 100, "passing": 25},
               "hard": {"toll": 50}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """The chosen square replaced by a toll booth (its kind registered with the engine),
        with an end-of-turn hook for the passing toll."""
        register_square_kind("toll", _toll_land)
        booth = Square(name="Toll Booth", kind="toll",
                       params={"toll": params.toll, "passing": params.passing})
        new = _replace_square(schema, params.replaces, booth)
        hooks = Hooks(end_of_turn=_toll_passing) if params.passing else Hooks()
        declared = ((HookChange("rule:end_of_turn", "passing toll",
                                "players who pass the toll booth by dice pay the passing toll",
                                True, 0, params.passing),) if params.passing else ())
        return Applied(new, hooks, declared)


# --- jackpot --------------------------------------------------------------------------
def _jackpot_land(game: Any, seat: int, sq: int) -> None:
    start = game.rules.schema.squares[sq].params.get("start", 0)
    pot = game.plugin_state("jackpot", lambda: [start])
    if pot[0] > 0:
        game.pay(seat, pot[0], "jackpot", sq)
    pot[0] = start


class _Jackpot(NoveltyParams):
    start: int = Field(0, ge=0, le=10_000)
    share: float = Field(1.0, gt=0, le=1)


class FreeParkingJackpot(Novelty):
    """Free Parking pays out a pot fed by taxes: a landing there is worth money, so taxes
    are partly a transfer and the cash an agent expects from a lap is off."""

    name = "free_parking_jackpot"
    category = "class"
    description = ("Free Parking becomes a 'jackpot' square: `share` of every tax feeds a pot "
                   "that the next player landing there collects; easy seeds it with 200, hard "
                   "starts empty (seen once a tax has fed it).")
    Params = _Jackpot
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"start": 200}, "medium": {"start": 500, "share": 0.5}, "hard": {}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """Free Parking replaced by a jackpot square (its kind registered with the engine),
        with a tax hook feeding the pot."""
        register_square_kind("jackpot", _jackpot_land)
        spot = first_of_kind(schema, "free_parking").name
        square = Square(name="Jackpot", kind="jackpot",
                        params={"start": params.start, "share": params.share})
        share, start = params.share, params.start

        def feed(game: Any, seat: int, sq: int, amount: int) -> int:
            game.plugin_state("jackpot", lambda: [start])[0] += int(amount * share)
            return amount

        return Applied(_replace_square(schema, spot, square), Hooks(tax=feed), (HookChange(
            "rule:tax", "feeds the jackpot", f"{share:.0%} of each tax goes into the pot",
            True, 0, share),))


# --- landing rules --------------------------------------------------------------------
class _Fee(NoveltyParams):
    fee: int = Field(ge=1, le=5000)
    announced: bool = True


class JailVisitFee(Novelty):
    """Just visiting the jail costs a fee: one of the most landed-on squares becomes a
    charge, which an agent keeping a tight cash floor does not reserve for."""

    name = "jail_visit_fee"
    category = "class"
    description = ("Landing on the jail square 'just visiting' costs a `fee`; hard charges 100 "
                   "and does not announce it on the board.")
    Params = _Fee
    presets = {"easy": {"fee": 25}, "medium": {"fee": 50},
               "hard": {"fee": 100, "announced": False}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A landing hook charging visitors to the jail; announced on the jail square unless
        `announced` is off."""
        fee = params.fee

        def landing(game: Any, seat: int, sq: int) -> Any:
            if sq == game.rules.jail and not game.state.in_jail[seat]:
                return _then_continue(game.charge(seat, BANK, fee, "visit_fee", sq))
            return False

        jail = first_of_kind(schema, "jail").name
        new = with_square_params(schema, jail, visit_fee=fee) if params.announced else schema
        return Applied(new, Hooks(landing=landing), () if params.announced else (HookChange(
            f"square:{jail}", "visit fee", "visitors landing on the jail pay a fee (unannounced)",
            False, 0, fee),))


class _Bonus(NoveltyParams):
    bonus: int = Field(ge=1, le=5000)
    announced: bool = True


class GoLandingBonus(Novelty):
    """Landing exactly on Go pays a bonus: a roll that ends on Go is worth more, and so are
    cards that send a player there."""

    name = "go_landing_bonus"
    category = "class"
    description = ("Landing exactly on Go pays an extra `bonus`; hard pays 400 and does not "
                   "announce it on the board.")
    Params = _Bonus
    presets = {"easy": {"bonus": 200}, "medium": {"bonus": 400},
               "hard": {"bonus": 400, "announced": False}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A landing hook paying the bonus on Go; announced on the Go square unless
        `announced` is off."""
        bonus = params.bonus

        def landing(game: Any, seat: int, sq: int) -> bool:
            if sq == game.rules.go and game.rules.kind_names[sq] == "go":
                game.pay(seat, bonus, "go_bonus", sq)
            return False

        go = first_of_kind(schema, "go").name
        new = with_square_params(schema, go, landing_bonus=bonus) if params.announced else schema
        return Applied(new, Hooks(landing=landing), () if params.announced else (HookChange(
            f"square:{go}", "landing bonus", "landing exactly on Go pays a bonus (unannounced)",
            False, 0, bonus),))


class _SquareBonus(NoveltyParams):
    square: str
    amount: int = Field(ge=1, le=5000)


class LuckySquare(Novelty):
    """Landing on one square pays a bonus: a small income that no printed rule explains,
    seen only by those who land there."""

    name = "lucky_square"
    category = "class"
    description = ("Landing on one square pays `amount` from the bank (unannounced); hard pays "
                   "25 on Mediterranean Avenue, one of the least landed squares.")
    Params = _SquareBonus
    presets = {"easy": {"square": "Illinois Avenue", "amount": 100},
               "medium": {"square": "Short Line", "amount": 50},
               "hard": {"square": "Mediterranean Avenue", "amount": 25}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A landing hook paying the bonus on the square (found by name, so a reordered
        board keeps it); unannounced."""
        i = schema.index_of(params.square)
        name, amount = schema.squares[i].name, params.amount

        def landing(game: Any, seat: int, sq: int) -> bool:
            if game.rules.names[sq] == name:
                game.pay(seat, amount, "square_bonus", sq)
            return False

        return Applied(schema, Hooks(landing=landing), (HookChange(
            f"square:{name}", "landing bonus", "landing here pays a bonus (unannounced)",
            False, 0, amount),))
