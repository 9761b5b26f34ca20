"""One logged game event as a sentence, with square names and dollar amounts.

A replay's event list is read by a person looking for what happened: "P0 offered P1:
$20 for Tennessee Avenue" says what `{"offer":{"to":1,"give":[],"get":[19],...}}` hides
(an agent selling a square for $187 and buying it back for $112, again and again, is
plain only in words). Every kind the engine emits has its sentence here; an event a
plugin adds is written as `kind: field value, ...`, square fields named, never as JSON.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

BANK = -1
SQUARE_FIELDS = ("square", "start", "end", "target", "position")
SEAT_FIELDS = ("seat", "payer", "payee", "from_seat", "to_seat", "winner", "creditor", "to")

JAIL_REASONS = {"go_to_jail": "landed on Go To Jail", "card": "a card",
                "doubles": "three doubles in a row"}
RELEASES = {"fine": "paid the fine", "card": "used a Get Out of Jail Free card",
            "doubles": "rolled doubles", "forced_fine": "paid the fine after three tries"}


class Namer:
    """Names of the seats and squares of one game."""

    def __init__(self, squares: Sequence[str]) -> None:
        self.squares = list(squares)

    def who(self, seat: Any) -> str:
        return "the bank" if seat == BANK else f"P{seat}"

    def where(self, square: Any) -> str:
        if isinstance(square, int) and 0 <= square < len(self.squares):
            return str(self.squares[square])
        return f"square {square}"

    def squares_and_cash(self, squares: Sequence[int], cash: int, cards: int) -> str:
        parts = [self.where(s) for s in squares]
        if cash:
            parts.append(f"${cash}")
        if cards:
            parts.append(f"{cards} Get Out of Jail Free card{'s' if cards > 1 else ''}")
        return " + ".join(parts) or "nothing"


def _trade(e: Mapping[str, Any], n: Namer) -> str:
    o = e.get("offer") or {}
    gives = n.squares_and_cash(o.get("give", ()), o.get("give_cash", 0),
                               o.get("give_jail_cards", 0))
    gets = n.squares_and_cash(o.get("get", ()), o.get("get_cash", 0),
                              o.get("get_jail_cards", 0))
    return f"{gives} for {gets}"


def _payment(e: Mapping[str, Any], n: Namer) -> str:
    sq = e.get("square", -1)
    at = f", {n.where(sq)}" if isinstance(sq, int) and sq >= 0 else ""
    return (f"{n.who(e['payer'])} paid {n.who(e['payee'])} ${e['amount']} "
            f"({str(e['reason']).replace('_', ' ')}{at})")


SENTENCES: dict[str, Callable[[Mapping[str, Any], Namer], str]] = {
    "turn_started": lambda e, n: f"turn {e['turn']}: {n.who(e['seat'])}",
    "dice_rolled": lambda e, n: f"{n.who(e['seat'])} rolled "
                                f"{' + '.join(map(str, e['dice']))}",
    "moved": lambda e, n: f"{n.who(e['seat'])} moved to {n.where(e['end'])}"
                          + ("" if e.get("reason") == "dice" else f" ({e.get('reason')})"),
    "payment": _payment,
    "card_drawn": lambda e, n: f"{n.who(e['seat'])} drew {e['deck']}: {e['text']}",
    "property_transferred": lambda e, n: (
        f"{n.where(e['square'])}: {n.who(e['from_seat'])} to {n.who(e['to_seat'])} "
        f"({str(e['reason']).replace('_', ' ')})"),
    "building_changed": lambda e, n: (
        f"{n.where(e['square'])}: level {e['level']} ({e['reason']})"),
    "mortgage_changed": lambda e, n: (
        f"{n.who(e['seat'])} {'mortgaged' if e['mortgaged'] else 'paid off the mortgage on'} "
        f"{n.where(e['square'])}"),
    "auction_started": lambda e, n: f"auction of {n.where(e['square'])}",
    "bid_made": lambda e, n: f"{n.who(e['seat'])} bid ${e['amount']} for "
                             f"{n.where(e['square'])}",
    "auction_ended": lambda e, n: (
        f"auction of {n.where(e['square'])}: unsold" if e["winner"] == BANK else
        f"auction of {n.where(e['square'])}: {n.who(e['winner'])} won it for ${e['price']}"),
    "trade_offered": lambda e, n: (
        f"{n.who(e['from_seat'])} offered {n.who((e.get('offer') or {}).get('to'))}: "
        f"{_trade(e, n)}"),
    "trade_answered": lambda e, n: (
        f"{n.who((e.get('offer') or {}).get('to'))} "
        f"{'accepted' if e['accepted'] else 'refused'} {n.who(e['from_seat'])}'s offer: "
        f"{_trade(e, n)}"),
    "jail_card_moved": lambda e, n: (
        f"{n.who(e['seat'])}'s Get Out of Jail Free card ({e['deck']}) went to "
        + ("its deck" if e["to_seat"] == BANK else n.who(e["to_seat"]))),
    "jailed": lambda e, n: (f"{n.who(e['seat'])} went to jail "
                            f"({JAIL_REASONS.get(e['reason'], e['reason'])})"),
    "released": lambda e, n: (f"{n.who(e['seat'])} left jail: "
                              f"{RELEASES.get(e['how'], e['how'])}"),
    "bankrupt": lambda e, n: f"{n.who(e['seat'])} went bankrupt to {n.who(e['creditor'])}",
    "fault": lambda e, n: (f"{n.who(e['seat'])} faulted in {e['phase']}: {e['reason']} "
                           "(the phase's default was played)"),
    "game_over": lambda e, n: (f"game over after {e['turns']} turns: {n.who(e['winner'])} "
                               f"won ({str(e['reason']).replace('_', ' ')})"),
}


def _field(key: str, value: Any, n: Namer) -> str:
    if key in SQUARE_FIELDS and isinstance(value, int):
        return f"{key} {n.where(value)}"
    if key in SEAT_FIELDS and isinstance(value, int):
        return f"{key} {n.who(value)}"
    if isinstance(value, Mapping):
        return f"{key} (" + ", ".join(_field(k, v, n) for k, v in value.items()) + ")"
    if isinstance(value, (list, tuple)):
        return f"{key} " + ", ".join(map(str, value))
    return f"{key} {value}"


def describe(event: Mapping[str, Any], squares: Sequence[str]) -> str:
    """The event as a sentence (`squares`: the game's square names, by index)."""
    n = Namer(squares)
    kind = str(event.get("kind"))
    try:
        return SENTENCES[kind](event, n)
    except (KeyError, TypeError, IndexError, AttributeError):
        pass  # an unknown kind, or a known one from a plugin with other fields
    rest = [_field(str(k), v, n) for k, v in event.items() if k not in ("type", "kind")]
    return f"{kind.replace('_', ' ')}: {', '.join(rest)}" if rest else kind.replace("_", " ")
