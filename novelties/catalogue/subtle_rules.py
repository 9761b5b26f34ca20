"""Subtle class novelties: new rules with rare or conditional triggers.

Each rule fires only in a narrow situation - one rarely landed square, a cash level,
doubles, jail, auctions, the third house, the late game - and none is announced on the
board, so an agent learns of it only by being in that situation (or watching someone
who is). Hard presets pick the rarest trigger; where the rule can change how a game goes,
the hard amount is large, so that a rule seen in few games still matters in those it
reaches (an exact rule is seen the first time it fires, whatever its amount).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from openmono.events import BANK
from openmono.hooks import Hooks
from openmono.schema import GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams
from novelties.catalogue._common import first_of_kind, levy


def _then_continue(gen: Any) -> Any:
    """Run a charge inside a landing hook and let the standard landing go on."""
    yield from gen
    return False


def _last_throw(game: Any, seat: int) -> tuple[int, ...] | None:
    """The dice `seat` threw last in the turn in progress (None: no throw yet)."""
    for e in reversed(game.turn_events()):
        if e.kind == "dice_rolled" and e.seat == seat:
            return e.dice
    return None


def _is_double(dice: tuple[int, ...] | None) -> bool:
    return dice is not None and len(dice) > 1 and min(dice) == max(dice)


# --- one square ---------------------------------------------------------------------------
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


class _DrawFee(NoveltyParams):
    decks: Literal["all"] | list[str] = "all"
    fee: int = Field(ge=1, le=1000)


class CardFee(Novelty):
    """Landing on a card square costs a fee before the draw: a cost hidden among the card
    payments, which an agent's cash reserve does not allow for."""

    name = "card_fee"
    category = "class"
    description = ("Landing on a card square of the chosen decks costs `fee` before the draw; "
                   "hard charges 10 on Community Chest only, lost among the card payments.")
    Params = _DrawFee
    presets = {"easy": {"fee": 50}, "medium": {"decks": ["chance"], "fee": 25},
               "hard": {"decks": ["community_chest"], "fee": 10}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A landing hook charging the fee on the chosen decks' squares before the draw;
        unannounced."""
        names = [d.name for d in schema.decks]
        chosen = names if params.decks == "all" else list(params.decks)
        unknown = [d for d in chosen if d not in names]
        if unknown or not chosen:
            raise ValueError(f"unknown deck(s) {unknown}; decks: {', '.join(names)}")
        decks, fee = frozenset(chosen), params.fee
        squares = frozenset(s.name for s in schema.squares if s.kind == "card"
                            and s.deck in decks)

        def landing(game: Any, seat: int, sq: int) -> Any:
            if game.rules.names[sq] in squares:
                return _then_continue(game.charge(seat, BANK, fee, "card_fee", sq))
            return False

        return Applied(schema, Hooks(landing=landing), tuple(HookChange(
            f"deck:{d}", "draw fee", "landing on this deck's squares costs a fee", False, 0, fee)
            for d in chosen))


# --- jail -------------------------------------------------------------------------------
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


# --- cash levels -------------------------------------------------------------------------
class _Surcharge(NoveltyParams):
    threshold: int = Field(ge=0, le=100_000)
    surcharge: float = Field(gt=0, le=5)


class RichRent(Novelty):
    """A rich payer pays more rent: holding a big cash pile is riskier than an agent
    hoarding cash expects."""

    name = "rich_rent"
    category = "class"
    description = ("A payer holding more than `threshold` cash pays `surcharge` more rent; hard "
                   "doubles the rent above 2500, a level few players reach.")
    Params = _Surcharge
    presets = {"easy": {"threshold": 1000, "surcharge": 0.5},
               "medium": {"threshold": 1500, "surcharge": 0.25},
               "hard": {"threshold": 2500, "surcharge": 1.0}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A rent hook adding the surcharge for a payer above the threshold; unannounced."""
        t, f = params.threshold, 1 + params.surcharge

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            return int(amount * f) if game.state.cash[payer] > t else amount

        return Applied(schema, Hooks(rent=rent), (HookChange(
            "rule:rent", "surcharge above a cash level",
            f"payers holding more than {t} pay {params.surcharge:.0%} more rent", False,
            None, {"threshold": t, "surcharge": params.surcharge}),))


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


# --- doubles ------------------------------------------------------------------------------
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


class _DoublesRent(NoveltyParams):
    factor: float = Field(ge=0, le=10)


class DoublesRent(Novelty):
    """Rent due right after a double is scaled: the cost of landing depends on how the roll
    came, which an agent valuing squares by printed rent cannot know."""

    name = "doubles_rent"
    category = "class"
    description = ("Rent due right after a double is thrown is multiplied by `factor`; hard "
                   "charges 20% more, a small change on one landing in six.")
    Params = _DoublesRent
    presets = {"easy": {"factor": 2.0}, "medium": {"factor": 0.5}, "hard": {"factor": 1.2}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A rent hook scaling the rent when the payer's last throw was a double;
        unannounced."""
        f = params.factor
        if f == 1:
            raise ValueError("factor 1 changes nothing")

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            return int(amount * f) if _is_double(_last_throw(game, payer)) else amount

        return Applied(schema, Hooks(rent=rent), (HookChange(
            "rule:rent", "after a double", f"rent after a double is x{f}", False, 1.0, f),))


# --- one kind of payment -------------------------------------------------------------------
class _Levy(NoveltyParams):
    rate: float = Field(gt=0, le=1)


class RentLevy(Novelty):
    """Owners pay the bank a share of the rents they collect: rent income is worth less, so
    a set is worth less than its printed rents."""

    name = "rent_levy"
    category = "class"
    description = ("Owners pay the bank `rate` of every rent they collect, at the end of the "
                   "turn; hard levies 5%, a tax on one kind of payment only.")
    Params = _Levy
    presets = {"easy": {"rate": 0.2}, "medium": {"rate": 0.1}, "hard": {"rate": 0.05}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook charging owners their share of the rents collected that turn;
        unannounced."""
        rate = params.rate

        def end_of_turn(game: Any, seat: int) -> Any:
            owed: dict[int, int] = {}
            for e in game.turn_events():
                if e.kind == "payment" and e.reason == "rent" and e.payee >= 0:
                    owed[e.payee] = owed.get(e.payee, 0) + int(e.amount * rate)
            if not any(owed.values()):
                return None
            return levy(game, owed, "rent_levy")

        return Applied(schema, Hooks(end_of_turn=end_of_turn), (HookChange(
            "rule:rent", "levy on rent income", f"owners pay {rate:.0%} of rents collected",
            False, 0, rate),))


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


class _ThirdHouse(NoveltyParams):
    fee: int = Field(ge=1, le=5000)
    level: int = Field(3, ge=1, le=10)


class ThirdHouseFee(Novelty):
    """Building a given house on a street costs an extra fee: building up to that level is
    dearer than the house cost says, which changes how far it pays to build."""

    name = "third_house_fee"
    category = "class"
    description = ("Building up to the `level`-th house on a street costs an extra `fee` "
                   "(paid at the end of the turn); easy charges 400 for every first house, hard "
                   "300 for the 3rd house only.")
    Params = _ThirdHouse
    presets = {"easy": {"fee": 400, "level": 1}, "medium": {"fee": 300, "level": 2},
               "hard": {"fee": 300}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook charging for each house built to the level that turn;
        unannounced."""
        if params.level > schema.bank.max_houses:
            raise ValueError(f"level {params.level} is above the {schema.bank.max_houses} "
                             "houses a street may hold")
        fee, level = params.fee, params.level

        def end_of_turn(game: Any, seat: int) -> Any:
            owed: dict[int, int] = {}
            for e in game.turn_events():
                if e.kind == "building_changed" and e.reason == "built" and e.level == level:
                    owed[e.seat] = owed.get(e.seat, 0) + fee
            return levy(game, owed, "house_fee") if owed else None

        return Applied(schema, Hooks(end_of_turn=end_of_turn), (HookChange(
            "rule:end_of_turn", f"fee for house {level}",
            f"building the house number {level} on a street costs an extra fee", False,
            0, fee),))


# --- the time of the game -----------------------------------------------------------------
class _Late(NoveltyParams):
    after_turn: int = Field(ge=1, le=100_000)
    factor: float = Field(ge=0, le=10)


class LateRent(Novelty):
    """Rents change late in the game: a long game turns more (or less) costly to survive
    than an agent planning on printed rents expects."""

    name = "late_rent"
    category = "class"
    description = ("From turn `after_turn` on (counted over all players) rents are multiplied "
                   "by `factor`; hard doubles them after turn 200, which only long games reach.")
    Params = _Late
    presets = {"easy": {"after_turn": 50, "factor": 1.5},
               "medium": {"after_turn": 150, "factor": 1.1},
               "hard": {"after_turn": 200, "factor": 2.0}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A rent hook scaling rents from the turn on; unannounced."""
        t, f = params.after_turn, params.factor

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            return int(amount * f) if game.state.turn >= t else amount

        return Applied(schema, Hooks(rent=rent), (HookChange(
            "rule:rent", "late-game rent", f"from turn {t} rents are x{f}", False,
            1.0, {"after_turn": t, "factor": f}),))


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


class _Grace(NoveltyParams):
    factor: float = Field(ge=0, lt=1)


class FirstLapGrace(Novelty):
    """Rent is cut until the payer has passed Go: early landings cost less, so buying early
    pays less than the board says."""

    name = "first_lap_grace"
    category = "class"
    description = ("A player who has not yet passed Go (since the rule came in) pays only "
                   "`factor` of the rent; hard takes 20% off, on the first lap only.")
    Params = _Grace
    presets = {"easy": {"factor": 0.0}, "medium": {"factor": 0.5}, "hard": {"factor": 0.8}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """Rent and Go-salary hooks: a payer not yet recorded passing Go pays the reduced
        rent; unannounced."""
        f = params.factor

        def passing_go(game: Any, seat: int, amount: int) -> int:
            game.plugin_state("first_lap_grace", set).add(seat)
            return amount

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            done = game.plugin_state("first_lap_grace", set)
            return amount if payer in done else int(amount * f)

        return Applied(schema, Hooks(passing_go=passing_go, rent=rent), (HookChange(
            "rule:rent", "first-lap grace", f"rent is x{f} until the payer passes Go", False,
            1.0, f),))
