"""The game as validated data: everything a novelty may change lives here.

A `GameSchema` is immutable once built; novelties produce new schemas with
`schema.model_copy(update=...)` or `GameSchema.model_validate(...)`. The engine never
reads these pydantic objects in its hot loop: `openmono.compiled.compile_rules`
flattens a schema into tuples once.

Every field is public (printed on the board or rule sheet, shown to agents) unless it
is listed in `HIDDEN_FIELDS`: the dice and the composition and order of the card decks
can only be learnt from their effects.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from openmono.kinds import CARD_KINDS, SQUARE_KINDS

PROPERTY_KINDS = ("street", "railroad", "utility")

# Paths (dotted, with [] for list items) of schema fields agents never see.
HIDDEN_FIELDS = ("dice", "decks")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Square(_Frozen):
    """One board position. Which fields matter depends on `kind`."""

    name: str
    kind: str
    group: str | None = None
    price: int = Field(0, ge=0)
    rent: tuple[int, ...] = ()
    house_cost: int = Field(0, ge=0)
    mortgage: int | None = Field(None, ge=0)
    tax: int = Field(0, ge=0)
    deck: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        if kind not in SQUARE_KINDS:
            raise ValueError(
                f"unknown square kind {kind!r}; known kinds: {', '.join(sorted(SQUARE_KINDS))}"
            )
        return kind

    @model_validator(mode="after")
    def _fields_for_kind(self) -> Square:
        where = f"square {self.name!r} ({self.kind})"
        if self.kind in PROPERTY_KINDS:
            if self.group is None:
                raise ValueError(f"{where}: a property needs a group")
            if self.price <= 0:
                raise ValueError(f"{where}: a property needs a positive price")
            if not self.rent:
                raise ValueError(f"{where}: a property needs a rent table")
            if any(r < 0 for r in self.rent):
                raise ValueError(f"{where}: rents must not be negative")
        if self.kind == "card" and not self.deck:
            raise ValueError(f"{where}: a card square needs a deck")
        return self

    @property
    def mortgage_value(self) -> int:
        """What the bank lends on this property: `mortgage`, or half the price when unset."""
        return self.price // 2 if self.mortgage is None else self.mortgage

    @property
    def is_property(self) -> bool:
        """Whether it can be owned (a street, railroad, utility or a plugin's ownable kind)."""
        return self.kind in PROPERTY_KINDS


COLOUR = re.compile(r"(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-zA-Z]{1,40})?", re.ASCII)


class Group(_Frozen):
    """A colour group (or the railroads, or the utilities).

    `monopoly_size` is how many members one player must own for a monopoly; None means
    all of them.
    """

    name: str
    color: str = ""
    monopoly_size: int | None = Field(None, ge=1)

    @field_validator("color")
    @classmethod
    def _colour(cls, value: str) -> str:
        """A colour is drawn into pages (the replay's board): only colour syntax, so a
        plugin's schema cannot carry markup into them."""
        if not COLOUR.fullmatch(value):
            raise ValueError(f"color must be '#rgb', '#rrggbb', a CSS colour name (letters "
                             f"only) or empty, got {value[:40]!r}")
        return value


class Die(_Frozen):
    """One die: its face values and (hidden) weights; None weights = fair."""

    faces: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    weights: tuple[float, ...] | None = None

    @model_validator(mode="after")
    def _check(self) -> Die:
        if not self.faces:
            raise ValueError("a die needs at least one face")
        if any(f < 0 for f in self.faces):
            raise ValueError("die faces must not be negative")
        if self.weights is not None:
            if len(self.weights) != len(self.faces):
                raise ValueError(
                    f"die weights: {len(self.weights)} weights for {len(self.faces)} faces"
                )
            if any(w < 0 for w in self.weights) or sum(self.weights) <= 0:
                raise ValueError("die weights must be non-negative with a positive sum")
        return self

    def probabilities(self) -> dict[int, float]:
        """P(value) of one throw (a value printed on several faces adds up)."""
        weights = self.weights or (1.0,) * len(self.faces)
        total = float(sum(weights))
        out: dict[int, float] = {}
        for face, w in zip(self.faces, weights):
            out[face] = out.get(face, 0.0) + w / total
        return out


class Card(_Frozen):
    """One card of a deck. `kind` picks the effect; the other fields parametrise it.

    Core kinds: advance_to (square, collect_go), advance_to_nearest (target_kind,
    rent_multiplier, dice_multiplier), move_back (amount squares), collect, pay
    (amount, bank), collect_from_each, pay_each (amount, each other player),
    repairs (per_house, per_hotel), go_to_jail, get_out_of_jail.
    """

    text: str
    kind: str
    square: str | None = None
    target_kind: str | None = None
    amount: int = 0
    per_house: int = 0
    per_hotel: int = 0
    collect_go: bool = True
    rent_multiplier: float = 1.0
    dice_multiplier: int | None = None
    count: int = Field(1, ge=1)
    params: dict[str, Any] = Field(default_factory=dict)

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        if kind not in CARD_KINDS:
            raise ValueError(
                f"unknown card kind {kind!r}; known kinds: {', '.join(sorted(CARD_KINDS))}"
            )
        return kind

    @model_validator(mode="after")
    def _params_for_kind(self) -> Card:
        where = f"card {self.text!r} ({self.kind})"
        if self.kind == "advance_to" and not self.square:
            raise ValueError(f"{where}: needs a target square")
        if self.kind == "advance_to_nearest" and not self.target_kind:
            raise ValueError(f"{where}: needs a target_kind")
        if self.kind in ("collect", "pay", "collect_from_each", "pay_each", "move_back"):
            if self.amount < 0:
                raise ValueError(f"{where}: amount must not be negative")
        return self


class Deck(_Frozen):
    """A named deck of cards (Chance, Community Chest, or a plugin's), in its printed order."""
    name: str
    cards: tuple[Card, ...]

    @field_validator("cards")
    @classmethod
    def _not_empty(cls, cards: tuple[Card, ...]) -> tuple[Card, ...]:
        if not cards:
            raise ValueError("a deck needs at least one card")
        return cards


# The phases in which a trade offer can be allowed (`BankRules.trade_phases`).
TradePhase = Literal["pre_roll", "out_of_turn", "post_roll", "debt"]
TRADE_PHASES: tuple[TradePhase, ...] = ("pre_roll", "out_of_turn", "post_roll", "debt")
# The management phases, in which building and lifting mortgages can be allowed
# (`BankRules.improve_phases`).
ManagePhase = Literal["pre_roll", "out_of_turn", "post_roll"]
MANAGE_PHASES: tuple[ManagePhase, ...] = ("pre_roll", "out_of_turn", "post_roll")


class BankRules(_Frozen):
    """Money and building rules. Defaults are the official US rules.

    GNOME file:line references are to GNOME-p3's `monopoly_simulator/` at commit
    8347408e (master, January 2022); docs/rules.md tabulates every GNOME setting."""

    go_salary: int = Field(200, ge=0)
    jail_fine: int = Field(50, ge=0)
    max_jail_turns: int = Field(3, ge=1)
    mortgage_interest: float = Field(0.10, ge=0)
    building_sellback: float = Field(0.5, ge=0, le=1)
    # None = official rules: a property cannot be sold to the bank, only mortgaged.
    property_sellback: float | None = Field(None, ge=0, le=1)
    max_houses: int = Field(4, ge=0)
    hotels: bool = True
    house_stock: int = Field(32, ge=0)
    hotel_stock: int = Field(12, ge=0)
    even_build: bool = True
    auction_on_decline: bool = True
    auction: Literal["english", "sealed"] = "english"
    starting_cash: int = Field(1500, ge=0)
    turn_limit: int = Field(1000, ge=1)
    out_of_turn_rounds: int = Field(1, ge=0)
    # GNOME: 4 (player.py:841, 989, 1113 `while count < 4` in make_pre_roll_moves,
    # make_out_of_turn_moves, make_post_roll_moves; the fifth answer is asked and dropped).
    max_actions_per_phase: int = Field(50, ge=1)
    # GNOME has no count of its own: an offer is one of the 4 actions, so 6 never binds.
    max_trade_offers_per_phase: int = Field(6, ge=0)
    trade_mortgaged: bool = True
    doubles_roll_again: bool = True
    doubles_to_jail: int = Field(3, ge=0)
    mortgaged_transfer: Literal["choose", "fee_now"] = Field(
        "choose", description="A mortgaged property received in a trade or a bankruptcy. "
        "'choose' (official): the new owner may lift the mortgage at once for mortgage + "
        "interest, or else pays the interest now (a `lift_mortgage` decision per property). "
        "'fee_now': the interest is always paid now, lifting later costs mortgage + interest.")
    # --- options whose non-default settings reproduce other simulators (see docs/rules.md)
    jail: Literal["official", "skip_turn"] = Field(
        "official", description="'official': leave jail by doubles, fine or card within "
        "`max_jail_turns` throws. 'skip_turn' (GNOME): a jailed player who does not pay or "
        "use a card before the roll loses that one turn (no move, no post-roll) and is free.")
    debt: Literal["official", "negative_cash"] = Field(
        "official", description="'official': a payment the player cannot make opens a debt "
        "phase at once and the creditor gets what there is. 'negative_cash' (GNOME): every "
        "payment is made in full, cash may go negative, and the player settles at the end "
        "of its own turn (a debt phase to reach $0) or goes bankrupt to the bank.")
    debt_action_limit: int | None = Field(
        None, ge=1, description="None (official): selling and mortgaging in a debt phase are "
        "never capped. A number (GNOME: 10) caps every action of a debt phase; a player still "
        "short after it goes bankrupt.")
    bankruptcy_auction: bool = Field(
        True, description="Properties of a player bankrupt to the bank are auctioned "
        "(official); False (GNOME): they return to the bank unowned.")
    cash_cap: int | None = Field(
        None, ge=0, description="None (official): no cap. A number (GNOME: 10000): the game "
        "ends after a turn in which a player's cash exceeds it; highest net worth wins.")
    net_worth_mortgage: bool = Field(
        True, description="Net worth (turn-limit and cash-cap winner) counts a mortgaged "
        "property at price minus its mortgage; False (GNOME): at full price.")
    hotel_sale: Literal["levels", "whole"] = Field(
        "levels", description="'levels' (official): a hotel sells back as one level (the bank "
        "gives houses for it). 'whole' (GNOME): a hotel is sold entirely (five levels "
        "refunded, the street left empty), only when every other street of the group has a "
        "hotel or nothing; no house then goes on a street of a group with a hotel.")
    # GNOME: 6 (gameplay.py:103 `while skip_turn != num_active_players and
    # out_of_turn_count <= 5`, the count starting at 0).
    out_of_turn_calls: int | None = Field(
        None, ge=0, description="None: `out_of_turn_rounds` rounds of the other players. A "
        "number (GNOME: 6): at most that many out-of-turn calls per turn, cycling from the "
        "next player through all players (the active one included, bankrupt seats using up "
        "a call), until as many calls in a row as there are players end without an action "
        "(the pre-roll counting as one).")
    card_draw: Literal["deck", "random"] = Field(
        "deck", description="'deck' (official): a shuffled deck, drawn cards go to the bottom. "
        "'random' (GNOME): each draw picks a card of the deck at random (with replacement; "
        "a drawn get-out-of-jail card leaves the deck until it is used).")
    # GNOME: next_turn. action_choices.py:703-705 (make_trade_offer fails when the
    # receiver holds an offer), player.py:593-594, 641-642 (accept_trade_offer is allowed
    # in the receiver's pre-roll and out-of-turn phases only), player.py:829-835, 851-857,
    # 912-918, 977-983, 999-1005, 1060-1066 (the offer is dropped when that phase ends).
    trade_answer: Literal["at_once", "next_turn"] = Field(
        "at_once", description="'at_once': the receiver answers an offer when it is made. "
        "'next_turn' (GNOME): the offer waits for the receiver's next pre-roll or out-of-turn "
        "phase, where it is answered first; a player holds one outstanding offer at a time "
        "(an offer to a player who has one fails at once).")
    # GNOME: pre_roll, out_of_turn. player.py:618, 661 (make_trade_offer allowed before
    # the roll and out of turn), 664-692 (compute_allowable_post_roll_actions: not after
    # the roll), 1196-1198 (handle_negative_cash_balance: refused in debt).
    trade_phases: tuple[TradePhase, ...] = Field(
        TRADE_PHASES, description="The phases in which a player may make a trade offer. "
        "All four (the default): the official rules let players deal at any time, and a "
        "player in debt may raise money by selling property to another. GNOME: pre_roll "
        "and out_of_turn only (player.py `compute_allowable_post_roll_actions` lists no "
        "`make_trade_offer`; `handle_negative_cash_balance` refuses one).")
    # GNOME: pre_roll, out_of_turn. player.py:606, 615 and 654, 657-658 (free_mortgage and
    # improve_property allowed before the roll and out of turn), 664-692 (not after it).
    improve_phases: tuple[ManagePhase, ...] = Field(
        MANAGE_PHASES, description="The management phases in which a player may build and "
        "lift mortgages (selling buildings, mortgaging and selling to the bank stay legal in "
        "every one). All three (the default: the official rules let a player build and "
        "unmortgage at any time). GNOME: pre_roll and out_of_turn only (its post-roll only "
        "raises cash and buys).")
    trade_jail_cards: bool = Field(
        True, description="Get-out-of-jail cards can be traded (official); False (GNOME): not.")
    building_shortage: Literal["auction", "first_come"] = Field(
        "auction", description="When the bank has fewer houses (or hotels) than the players "
        "able to build one now, a requested building is auctioned among them (official: "
        "`building_bid` decisions, the builder's request standing as a bid at the bank's "
        "price; another winner places it in a `place_building` decision). 'first_come': "
        "the bank sells to whoever asks first.")
    mortgaged_sellback: bool = Field(
        False, description="With `property_sellback`: False (official, and nothing to sell "
        "when the bank never buys): a mortgaged property must be lifted before it is sold to "
        "the bank. True (GNOME): the bank takes it, paying its refund minus the cost of "
        "lifting the mortgage, or nothing when that is negative (a foreclosure).")
    bank_cash: int | None = Field(
        None, ge=0, description="None (official): the bank never runs out of money. A "
        "number (GNOME: 10000): the bank starts with that cash and keeps what it is paid; "
        "a payment it cannot make in full is not made (no Go salary, no card money) and it "
        "takes no mortgage, property or building it cannot pay for.")
    mortgage_beside_buildings: bool = Field(
        False, description="False (official): no street of a colour group can be mortgaged "
        "while any street of the group carries buildings. True (GNOME): only the street "
        "itself must be unbuilt.")
    build_beside_mortgaged: bool = Field(
        False, description="False (official): nothing is built in a colour group with a "
        "mortgaged street. True (GNOME): only the mortgaged street itself cannot be built "
        "on; the monopoly stands, and even building counts the mortgaged street's empty "
        "lot (so the others get at most one house each).")
    nearest_card: Literal["ahead", "closest"] = Field(
        "ahead", description="Where an 'advance to the nearest railroad / utility' card "
        "goes. 'ahead' (official): the first one ahead. 'closest' (GNOME): the one with the "
        "least difference of board index, either way (ties: the lower index); one behind is "
        "reached round the board, through Go (GNOME pays the salary for it too).")
    move_back_go: bool = Field(
        False, description="False (official): a 'go back' card pays no Go salary. True "
        "(GNOME): it does, unless the move crosses Go backwards (GNOME counts every move to "
        "a lower square as passing Go).")
    jail_exit_roll_again: bool = Field(
        True, description="A player who leaves jail by fine or card before the roll and "
        "throws doubles rolls again (official: only doubles thrown to leave jail end the turn).")

    @field_validator("trade_phases", "improve_phases")
    @classmethod
    def _phases_once(cls, phases: tuple[str, ...]) -> tuple[str, ...]:
        # A set would do, but a tuple keeps the JSON and the order readable.
        if len(set(phases)) != len(phases):
            raise ValueError("a phase is named twice")
        return phases


class GameSchema(_Frozen):
    """A whole game: board, groups, dice, decks and bank rules."""

    name: str = "custom"
    squares: tuple[Square, ...]
    groups: tuple[Group, ...]
    dice: tuple[Die, ...] = (Die(), Die())
    decks: tuple[Deck, ...] = ()
    bank: BankRules = BankRules()

    @model_validator(mode="after")
    def _consistent(self) -> GameSchema:
        names = [s.name for s in self.squares]
        if len(set(names)) != len(names):
            dupes = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"squares: duplicate square names {dupes}")
        if len(self.squares) < 2:
            raise ValueError("squares: a board needs at least two squares")
        if not self.dice:
            raise ValueError("dice: at least one die is needed")
        group_names = [g.name for g in self.groups]
        if len(set(group_names)) != len(group_names):
            raise ValueError("groups: duplicate group names")
        deck_names = {d.name for d in self.decks}
        if len(deck_names) != len(self.decks):
            raise ValueError("decks: duplicate deck names")
        members: dict[str, int] = {g: 0 for g in group_names}
        levels = self.bank.max_houses + (2 if self.bank.hotels else 1)
        for sq in self.squares:
            if sq.group is not None:
                if sq.group not in members:
                    raise ValueError(
                        f"squares: {sq.name!r} is in unknown group {sq.group!r}; "
                        f"groups: {', '.join(group_names)}"
                    )
                members[sq.group] += 1
            if sq.kind == "street" and len(sq.rent) != levels:
                raise ValueError(
                    f"squares: {sq.name!r} has {len(sq.rent)} rents; a street needs {levels} "
                    f"(unimproved, {self.bank.max_houses} house levels"
                    f"{', hotel' if self.bank.hotels else ''})"
                )
            if sq.kind == "card" and sq.deck not in deck_names:
                raise ValueError(
                    f"squares: {sq.name!r} draws from unknown deck {sq.deck!r}; "
                    f"decks: {', '.join(sorted(deck_names)) or 'none'}"
                )
        for g in self.groups:
            if g.monopoly_size is not None and g.monopoly_size > members[g.name]:
                raise ValueError(
                    f"groups: {g.name!r} needs {g.monopoly_size} for a monopoly but has "
                    f"{members[g.name]} members"
                )
        square_names = set(names)
        kinds = {s.kind for s in self.squares}
        for deck in self.decks:
            for card in deck.cards:
                if card.square is not None and card.square not in square_names:
                    raise ValueError(
                        f"decks: card {card.text!r} names unknown square {card.square!r}"
                    )
                if card.target_kind is not None and card.target_kind not in kinds:
                    raise ValueError(
                        f"decks: card {card.text!r} targets kind {card.target_kind!r} "
                        "that is not on the board"
                    )
        if "jail" not in kinds:
            raise ValueError("squares: the board needs a jail square")
        return self

    # --- convenience -------------------------------------------------------------
    def index_of(self, name: str) -> int:
        """The board index of the square named `name` (KeyError when there is none)."""
        for i, sq in enumerate(self.squares):
            if sq.name == name:
                return i
        raise KeyError(f"no square named {name!r}")

    def group_members(self, group: str) -> list[int]:
        """The board indices of the squares in `group`, in board order."""
        return [i for i, sq in enumerate(self.squares) if sq.group == group]

    def to_json(self, **kwargs: Any) -> str:
        """The schema as JSON text (pydantic's `model_dump_json` options apply)."""
        return self.model_dump_json(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> GameSchema:
        """A schema read from JSON text, validated."""
        return cls.model_validate_json(text)

    def public_dict(self) -> dict[str, Any]:
        """The schema as agents may see it: hidden fields removed."""
        return self.model_dump(mode="json", exclude=set(HIDDEN_FIELDS))


def standard_schema() -> GameSchema:
    """The official US game (Atlantic City names), loaded from the packaged data file."""
    return _packaged("standard_us.json")


def gnome_schema() -> GameSchema:
    """The game as the GNOME-p3 simulator (SAIL-ON) plays it: the US board with GNOME's
    cards and a bank-rules setting per difference (docs/rules.md lists them)."""
    return _packaged("gnome.json")


# The packaged rule sets, chosen by `rules=NAME` in the evaluation entry points.
RULE_SETS = {"standard": standard_schema, "gnome": gnome_schema}


def rules_schema(name: str) -> GameSchema:
    """A packaged rule set by name; an unknown name fails naming the valid ones."""
    make = RULE_SETS.get(name)
    if make is None:
        raise SchemaError(f"unknown rules {name!r}; valid rules: {', '.join(RULE_SETS)}")
    return make()


def _packaged(filename: str) -> GameSchema:
    text = resources.files("openmono.data").joinpath(filename).read_text()
    return GameSchema.model_validate(json.loads(text))


def load_schema(path: str) -> GameSchema:
    """Load a schema file; errors name the file and the field."""
    from pydantic import ValidationError

    try:
        with open(path, encoding="utf-8") as fh:
            return GameSchema.model_validate_json(fh.read())
    except FileNotFoundError:
        raise SchemaError(f"schema file {path!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:  # a directory, no permission, not text
        raise SchemaError(f"schema file {path!r} cannot be read: {exc}") from None
    except ValidationError as exc:
        raise SchemaError(f"schema file {path!r} is invalid:\n{_short(exc)}") from None


class SchemaError(ValueError):
    """A schema that cannot be used, with a message that names the field."""


def _short(exc: Any) -> str:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        lines.append(f"  {loc}: {err['msg']}")
    return "\n".join(lines)
