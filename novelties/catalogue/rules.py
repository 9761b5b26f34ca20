"""Class novelties on rules: new taxes, a new action (bank loans), and changed auction,
trading, rent and building rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field

from openmono.actions import Action, register_action_kind
from openmono.events import BANK
from openmono.hooks import Hooks
from openmono.schema import GameSchema
from openmono.state import net_worth

from novelties.base import Applied, HookChange, Novelty, NoveltyParams
from novelties.catalogue._common import first_of_kind, set_bank, with_square_params


# --- new taxes ------------------------------------------------------------------------
class _Wealth(NoveltyParams):
    rate: float = Field(gt=0, le=1)
    base: str = Field("cash", pattern="^(cash|net_worth)$")
    announced: bool = True
    above: int = Field(0, ge=0, le=1_000_000)  # only a base above this is taxed


class WealthTax(Novelty):
    """Passing Go costs a share of a rich player's cash or net worth: piling up wealth is
    taxed, so an agent that keeps cash idle (or lets its worth grow unchecked) loses more
    than it plans for."""

    name = "wealth_tax"
    category = "class"
    description = ("A player who passed Go during a turn pays `rate` of its cash (or net worth) "
                   "at the end of that turn, if it is above `above`; hard taxes half of a net "
                   "worth above 9000, unannounced, which few players reach.")
    Params = _Wealth
    presets = {"easy": {"rate": 0.05},
               "medium": {"rate": 0.10, "base": "net_worth", "announced": False, "above": 5000},
               "hard": {"rate": 0.5, "base": "net_worth", "announced": False, "above": 9000}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An end-of-turn hook taxing a player who passed Go that turn; announced on the Go
        square unless `announced` is off (then declared as a hidden rule)."""
        rate, base, above = params.rate, params.base, params.above

        def end_of_turn(game: Any, seat: int) -> Any:
            passes = sum(1 for e in game.turn_events()
                         if e.kind == "payment" and e.reason == "go_salary" and e.payee == seat)
            if not passes:
                return None
            st = game.state
            value = st.cash[seat] if base == "cash" else net_worth(game.rules, st, seat)
            if value <= above:
                return None
            return game.charge(seat, BANK, passes * int(value * rate), "wealth_tax",
                               game.rules.go)

        go = first_of_kind(schema, "go").name
        shown = {"rate": rate, "base": base, **({"above": above} if above else {})}
        new = (with_square_params(schema, go, wealth_tax=shown) if params.announced else schema)
        where = f" above {above}" if above else ""
        return Applied(new, Hooks(end_of_turn=end_of_turn), () if params.announced else (
            HookChange("rule:passing_go", "wealth tax",
                       f"passing Go costs {rate:.0%} of {base}{where} at the end of the turn",
                       False, 0, rate if not above else {"rate": rate, "above": above}),))


class _PerBuilding(NoveltyParams):
    per_house: int = Field(ge=0, le=1000)
    per_hotel: int = Field(ge=0, le=5000)
    announced: bool = True


class BuildingTax(Novelty):
    """Tax squares also charge per house and hotel the payer owns: every building adds a
    cost on each tax landing, so building high is worth less than the rents alone say."""

    name = "building_tax"
    category = "class"
    description = ("Tax squares also charge per house and hotel the payer owns; easy charges "
                   "200 per house and 800 per hotel, hard 150 and 600 without announcing it.")
    Params = _PerBuilding
    presets = {"easy": {"per_house": 200, "per_hotel": 800},
               "medium": {"per_house": 150, "per_hotel": 600},
               "hard": {"per_house": 150, "per_hotel": 600, "announced": False}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A tax hook adding the per-building charge; announced on the tax squares unless
        `announced` is off."""
        ph, pt = params.per_house, params.per_hotel
        if not ph and not pt:
            raise ValueError("per_house and per_hotel are both 0: nothing would change")

        def tax(game: Any, seat: int, sq: int, amount: int) -> int:
            rules, st = game.rules, game.state
            extra = 0
            for s in rules.streets:
                if st.owner[s] == seat and st.level[s]:
                    extra += pt if st.level[s] == rules.hotel_level else ph * st.level[s]
            return amount + extra

        new = schema
        if params.announced:
            for s in schema.squares:
                if s.kind == "tax":
                    new = with_square_params(new, s.name, per_house=ph, per_hotel=pt)
        if new is schema and params.announced:
            raise ValueError("the board has no tax square")
        return Applied(new, Hooks(tax=tax), () if params.announced else (HookChange(
            "rule:tax", "per building", "tax squares also charge per building owned", False,
            None, {"per_house": ph, "per_hotel": pt}),))


# --- a new action: bank loans ---------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Borrow(Action):
    """Borrow the game's loan amount from the bank (see `bank_loan`)."""

    kind: ClassVar[str] = "borrow"


_LOAN_CFG: dict[int, tuple[Any, Any]] = {}


def _loan_terms(rules: Any) -> dict[str, Any] | None:
    """The loan terms announced on the Go square (legality runs engine-side, on the
    compiled rules)."""
    hit = _LOAN_CFG.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    params = rules.schema.squares[rules.go].params
    terms = params.get("loan")
    if len(_LOAN_CFG) > 256:
        _LOAN_CFG.clear()
    _LOAN_CFG[id(rules)] = (rules, terms)
    return terms


def _check_borrow(rules: Any, view: Any, seat: int, action: Any) -> str | None:
    terms = _loan_terms(rules)
    if terms is None:
        return "the bank lends no money in this game"
    if view.cash[seat] >= terms["amount"]:
        return "the bank lends only to players holding less than the loan amount"
    return None


def _do_borrow(game: Any, seat: int, action: Any) -> None:
    terms = _loan_terms(game.rules)
    loans = game.plugin_state("loans", list)
    due = int(round(terms["amount"] * (1 + terms["rate"])))
    loans.append([seat, terms["term"], due])
    game.pay(seat, terms["amount"], "loan", game.rules.go)


def _repay_loans(game: Any, seat: int) -> Any:
    """End of the borrower's turn: count down; repay principal + interest when due."""
    loans = game.plugin_state("loans", list)
    if not loans:
        return None
    owed = 0
    for loan in loans:
        if loan[0] == seat:
            loan[1] -= 1
            if loan[1] <= 0:
                owed += loan[2]
    loans[:] = [loan for loan in loans if loan[0] != seat or loan[1] > 0]
    if owed:
        return game.charge(seat, BANK, owed, "loan_repayment", game.rules.go)
    return None


class _Loan(NoveltyParams):
    amount: int = Field(ge=1, le=10_000)
    rate: float = Field(ge=0, le=5)
    term: int = Field(ge=1, le=100)  # the borrower's own turns until repayment


class BankLoan(Novelty):
    """A new action, borrowing from the bank: an agent short of cash gains a way out of
    selling or mortgaging, which it can use only if it recognises the new action."""

    name = "bank_loan"
    category = "class"
    description = ("A new 'borrow' action: a player holding less than `amount` borrows it, "
                   "repaid with `rate` interest after `term` of its turns; hard lends 200 at "
                   "50% for 3 turns, offered only to a player down to its last 200.")
    Params = _Loan
    # Ordered by measured detectability: the action is offered below `amount`, so a
    # smaller loan shows up later (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"amount": 1000, "rate": 0.1, "term": 10},
               "medium": {"amount": 500, "rate": 0.25, "term": 5},
               "hard": {"amount": 200, "rate": 0.5, "term": 3}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """The `borrow` action registered with the engine, the loan terms printed on Go and
        an end-of-turn hook collecting repayments."""
        register_action_kind(Borrow, ("pre_roll", "out_of_turn", "post_roll", "debt"),
                             _check_borrow, _do_borrow)
        go = first_of_kind(schema, "go").name
        terms = {"amount": params.amount, "rate": params.rate, "term": params.term}
        return Applied(with_square_params(schema, go, loan=terms),
                       Hooks(end_of_turn=_repay_loans),
                       (HookChange("action:borrow", "exists",
                                   "players short of cash may borrow from the bank", True,
                                   None, terms),))


# --- auctions, trades -----------------------------------------------------------------
class _Auction(NoveltyParams):
    sealed: bool = True
    on_decline: bool = True


class AuctionRules(Novelty):
    """Auctions change form (sealed bids, or none on a declined purchase): bidding to just
    above a rival no longer works, and declining a square no longer puts it up for sale."""

    name = "auction_rules"
    category = "class"
    description = ("Changes auctions: sealed single bids instead of open bidding, or no auction "
                   "when a buyer declines; hard does both.")
    Params = _Auction
    presets = {"easy": {}, "medium": {"sealed": False, "on_decline": False},
               "hard": {"sealed": True, "on_decline": False}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The bank's auction rules (sealed or open bidding, an auction on a declined
        purchase or not)."""
        mode = "sealed" if params.sealed else "english"
        if (schema.bank.auction, schema.bank.auction_on_decline) == (mode, params.on_decline):
            raise ValueError("the auction rules are already as requested")
        return set_bank(schema, auction=mode, auction_on_decline=params.on_decline)


class _Trade(NoveltyParams):
    mortgaged: bool = True
    offers: int = Field(ge=0, le=50)


class TradeRules(Novelty):
    """Trades are restricted (no mortgaged properties, fewer offers): the trades an agent
    plans to complete sets are refused, so sets must be bought or won at auction."""

    name = "trade_rules"
    category = "class"
    description = ("Restricts trading: no mortgaged properties, fewer offers per phase; easy "
                   "forbids trading altogether, so sets must be bought or won at auction; hard "
                   "only bars mortgaged properties from trades.")
    Params = _Trade
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"offers": 0}, "medium": {"mortgaged": False, "offers": 1},
               "hard": {"mortgaged": False, "offers": 6}}

    def apply(self, schema: GameSchema, params: Any) -> GameSchema:
        """The bank's trading rules (mortgaged properties allowed or not, offers per phase)."""
        b = schema.bank
        if (b.trade_mortgaged, b.max_trade_offers_per_phase) == (params.mortgaged, params.offers):
            raise ValueError("the trading rules are already as requested")
        return set_bank(schema, trade_mortgaged=params.mortgaged,
                        max_trade_offers_per_phase=params.offers)


# --- rent and building rules ----------------------------------------------------------
class _JailRent(NoveltyParams):
    fraction: float = Field(ge=0, lt=1)
    announced: bool = True


class NoRentInJail(Novelty):
    """An owner in jail collects less rent or none: staying in jail late in the game stops
    being a safe haven for a landlord."""

    name = "no_rent_in_jail"
    category = "class"
    description = ("An owner in jail collects only `fraction` of its rents; hard collects "
                   "nothing and the rule is not announced.")
    Params = _JailRent
    presets = {"easy": {"fraction": 0.5}, "medium": {"fraction": 0.0},
               "hard": {"fraction": 0.0, "announced": False}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A rent hook cutting the rent of an owner in jail; announced on the jail square
        unless `announced` is off."""
        f = params.fraction

        def rent(game: Any, payer: int, sq: int, amount: int) -> int:
            return int(amount * f) if game.state.in_jail[game.state.owner[sq]] else amount

        jail = first_of_kind(schema, "jail").name
        new = with_square_params(schema, jail, owner_rent=f) if params.announced else schema
        return Applied(new, Hooks(rent=rent), () if params.announced else (HookChange(
            "rule:rent", "owner in jail", "owners in jail collect a fraction of the rent",
            False, 1.0, f),))


class _Moratorium(NoveltyParams):
    until_turn: int = Field(ge=1, le=10_000)


class BuildingMoratorium(Novelty):
    """Nobody may build before a turn: an early set earns only its bare rents for a while,
    so rushing to complete sets pays later than an agent expects."""

    name = "building_moratorium"
    category = "class"
    description = ("Nobody may build before turn `until_turn` (counted over all players); "
                   "hard lifts it at turn 20, so only a player with a set that early meets it.")
    Params = _Moratorium
    # Ordered by measured detectability: a shorter moratorium is refused to fewer players
    # (easy, until turn 150, also has the largest impact on the game).
    presets = {"easy": {"until_turn": 150}, "medium": {"until_turn": 60},
               "hard": {"until_turn": 20}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A building-allowed hook refusing every build before the turn; seen only as
        refusals."""
        until = params.until_turn

        def allowed(rules: Any, view: Any, seat: int, sq: int) -> str | None:
            return f"no building before turn {until}" if view.turn < until else None

        return Applied(schema, Hooks(building_allowed=allowed), (HookChange(
            "rule:building_allowed", "moratorium", f"no building before turn {until}",
            False, None, until),))


_MOVED = ("WealthVictory", "HotelVictory", "MonopolyVictory")


def __getattr__(name: str) -> Any:
    """The ending rules once here, where an old `novelties.catalogue.rules:ClassName` path
    finds them for one release: they are in `endings.py`."""
    if name in _MOVED:
        from novelties.catalogue import endings

        return getattr(endings, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
