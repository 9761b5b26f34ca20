"""Class novelties adding a payment between a player and the bank: the Go salary
changed for a rich player, a holder of every railroad or late in the game, relief for
a poor player, an upkeep for a jailed one, a fee for a double, a premium on auctions.

Each fires only in a narrow situation and none is announced on the board, so an agent
learns of it only by being in that situation (or watching someone who is). Hard presets
pick the rarest trigger; where the rule can change how a game goes, the hard amount is
large, so that a rule seen in few games still matters in those it reaches. Their
payments carry their own reasons, shown to agents as the generic rule charge or payout
under `observability=effects`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from openmono.events import BANK
from openmono.hooks import Hooks
from openmono.schema import GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams
from novelties.catalogue._common import first_of_kind, levy
from novelties.catalogue.dice import _is_double
from novelties.catalogue.rents import _Late


# --- the Go salary --------------------------------------------------------------------
class _RichSalary(NoveltyParams):
    threshold: int = Field(ge=0, le=100_000)
    factor: float = Field(ge=0, lt=1)


class RichSalary(Novelty):
    """Go pays a rich player less: hoarding cash stops paying, so an agent that sits on a
    cash pile rather than investing it loses income it counts on."""

    name = "rich_salary"
    category = "class"
    description = ("A player holding more than `threshold` cash when it passes Go collects "
                   "only `factor` of the salary; hard pays nothing above 2500, a level few "
                   "players reach.")
    Params = _RichSalary
    presets = {"easy": {"threshold": 1500, "factor": 0.0},
               "medium": {"threshold": 2000, "factor": 0.5},
               "hard": {"threshold": 2500, "factor": 0.0}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A Go-salary hook cutting the salary of a player above the threshold; unannounced."""
        t, f = params.threshold, params.factor

        def passing_go(game: Any, seat: int, amount: int) -> int:
            return int(amount * f) if game.state.cash[seat] > t else amount

        go = first_of_kind(schema, "go").name
        return Applied(schema, Hooks(passing_go=passing_go), (HookChange(
            f"square:{go}", "salary above a cash level",
            f"a player holding more than {t} collects x{f} of the salary", False,
            1.0, {"threshold": t, "factor": f}),))


class _RailroadSalary(NoveltyParams):
    count: int = Field(ge=1, le=4)
    bonus: int = Field(ge=1, le=5000)


class RailroadSalary(Novelty):
    """Go pays more to a player holding railroads: railroads are worth more than their
    rents, so an agent valuing them by rent alone undervalues them in trades and
    auctions."""

    name = "railroad_salary"
    category = "class"
    description = ("A player holding `count` or more railroads collects `bonus` more when it "
                   "passes Go; hard pays 50 more to a player holding all four, which few "
                   "games see.")
    Params = _RailroadSalary
    presets = {"easy": {"count": 1, "bonus": 50}, "medium": {"count": 3, "bonus": 50},
               "hard": {"count": 4, "bonus": 50}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A Go-salary hook adding the bonus for a player holding enough railroads;
        unannounced."""
        need, bonus = params.count, params.bonus

        def passing_go(game: Any, seat: int, amount: int) -> int:
            rules, owner = game.rules, game.state.owner
            held = sum(1 for sq in rules.properties
                       if owner[sq] == seat and rules.kind_names[sq] == "railroad")
            return amount + bonus if held >= need else amount

        go = first_of_kind(schema, "go").name
        return Applied(schema, Hooks(passing_go=passing_go), (HookChange(
            f"square:{go}", "salary with railroads",
            f"a player holding {need} or more railroads collects {bonus} more", False,
            0, {"count": need, "bonus": bonus}),))


class LateSalary(Novelty):
    """The Go salary changes late in the game: a long game's income dries up (or shrinks),
    so cash runs out sooner than an agent expects."""

    name = "late_salary"
    category = "class"
    description = ("From turn `after_turn` on the Go salary is multiplied by `factor`; hard pays "
                   "nothing after turn 200, which only long games reach.")
    Params = _Late
    presets = {"easy": {"after_turn": 50, "factor": 0.0},
               "medium": {"after_turn": 150, "factor": 0.75},
               "hard": {"after_turn": 200, "factor": 0.0}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A Go-salary hook scaling the salary from the turn on; unannounced."""
        t, f = params.after_turn, params.factor

        def passing_go(game: Any, seat: int, amount: int) -> int:
            return int(amount * f) if game.state.turn >= t else amount

        go = first_of_kind(schema, "go").name
        return Applied(schema, Hooks(passing_go=passing_go), (HookChange(
            f"square:{go}", "late-game salary", f"from turn {t} the salary is x{f}", False,
            1.0, {"after_turn": t, "factor": f}),))


# --- cash levels, jail, doubles, auctions ---------------------------------------------
class _Upkeep(NoveltyParams):
    fee: int = Field(ge=1, le=1000)


class JailUpkeep(Novelty):
    """A turn ending in jail costs a fee: staying in jail to dodge rents late in the game
    costs more than the board says."""

    name = "jail_upkeep"
    category = "class"
    description = ("A player still in jail at the end of its turn pays `fee` for its keep; "
                   "hard charges 10, felt only by the jailed and small beside the fine.")
    Params = _Upkeep
    presets = {"easy": {"fee": 50}, "medium": {"fee": 25}, "hard": {"fee": 10}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook charging a player still in jail; unannounced."""
        fee = params.fee

        def end_of_turn(game: Any, seat: int) -> Any:
            if game.state.in_jail[seat]:
                return game.charge(seat, BANK, fee, "jail_upkeep", game.rules.jail)
            return None

        jail = first_of_kind(schema, "jail").name
        return Applied(schema, Hooks(end_of_turn=end_of_turn), (HookChange(
            f"square:{jail}", "upkeep", "a turn ending in jail costs a fee", False, 0, fee),))


class _Relief(NoveltyParams):
    threshold: int = Field(ge=1, le=100_000)
    amount: int = Field(ge=1, le=5000)


class PoorRelief(Novelty):
    """A nearly broke player is paid a dole: a player close to bankruptcy lasts longer, so
    the squeeze an agent relies on to bankrupt a rival takes longer."""

    name = "poor_relief"
    category = "class"
    description = ("A player ending its turn with less than `threshold` cash receives `amount`; "
                   "hard gives 20 below 50, so only the nearly broke ever see it.")
    Params = _Relief
    presets = {"easy": {"threshold": 300, "amount": 100},
               "medium": {"threshold": 150, "amount": 50},
               "hard": {"threshold": 50, "amount": 20}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook paying a player below the threshold; unannounced."""
        t, amount = params.threshold, params.amount

        def end_of_turn(game: Any, seat: int) -> None:
            if game.state.cash[seat] < t:
                game.pay(seat, amount, "relief")

        return Applied(schema, Hooks(end_of_turn=end_of_turn), (HookChange(
            "rule:end_of_turn", "relief below a cash level",
            f"ending a turn with less than {t} pays {amount}", False,
            None, {"threshold": t, "amount": amount}),))


class _DoublesFee(NoveltyParams):
    fee: int = Field(ge=1, le=1000)
    which: Literal["doubles", "snake_eyes"] = "doubles"


class DoublesFee(Novelty):
    """Throwing doubles costs a fee: a roll that should be good news costs money, seen only
    on the throws it names."""

    name = "doubles_fee"
    category = "class"
    description = ("Every double thrown costs `fee` at the end of the turn; hard charges 50 "
                   "only for snake eyes (1-1), one throw in 36.")
    Params = _DoublesFee
    presets = {"easy": {"fee": 50}, "medium": {"fee": 15},
               "hard": {"fee": 50, "which": "snake_eyes"}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook charging for each qualifying double thrown that turn;
        unannounced."""
        fee, snake = params.fee, params.which == "snake_eyes"

        def counts(dice: tuple[int, ...]) -> bool:
            return _is_double(dice) and (not snake or max(dice) == 1)

        def end_of_turn(game: Any, seat: int) -> Any:
            n = sum(1 for e in game.turn_events()
                    if e.kind == "dice_rolled" and e.seat == seat and counts(e.dice))
            return game.charge(seat, BANK, n * fee, "doubles_fee") if n else None

        what = "snake eyes" if snake else "a double"
        return Applied(schema, Hooks(end_of_turn=end_of_turn), (HookChange(
            "rule:end_of_turn", f"fee for {what}", f"throwing {what} costs a fee", False,
            0, fee),))


class _Premium(NoveltyParams):
    rate: float = Field(gt=0, le=2)


class AuctionPremium(Novelty):
    """An auction's winner also pays the bank a premium: a bid costs more than the bid, so
    bidding to the value of a square overpays."""

    name = "auction_premium"
    category = "class"
    description = ("The winner of an auction also pays the bank `rate` of its bid; hard adds "
                   "10%, and auctions are rare when players buy what they land on.")
    Params = _Premium
    presets = {"easy": {"rate": 0.5}, "medium": {"rate": 0.25}, "hard": {"rate": 0.1}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook charging auction winners the premium on their price;
        unannounced."""
        rate = params.rate

        def end_of_turn(game: Any, seat: int) -> Any:
            owed: dict[int, int] = {}
            for e in game.turn_events():
                if e.kind == "auction_ended" and e.winner >= 0:
                    owed[e.winner] = owed.get(e.winner, 0) + int(e.price * rate)
            return levy(game, owed, "auction_premium") if any(owed.values()) else None

        return Applied(schema, Hooks(end_of_turn=end_of_turn), (HookChange(
            "rule:end_of_turn", "auction premium", f"auction winners pay {rate:.0%} on top",
            False, 0, rate),))
