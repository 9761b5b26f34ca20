"""A readable text board of a game in progress (the environments' `render()`)."""

from __future__ import annotations

from typing import Sequence

from openmono.engine import Game


def board_text(game: Game, names: Sequence[str], deciding: int = -1, phase: str = "") -> str:
    """Players (cash, square, jail, cards), then every owned property by owner.

    `names[seat]` labels the seat; `deciding` is the seat to act (-1: nobody)."""
    st, rules = game.state, game.rules
    lines = [f"turn {st.turn}, {names[st.current]}'s turn"
             + (f"; {names[deciding]} to decide ({phase})" if deciding >= 0 else "")]
    if game.winner is not None:
        lines[0] = f"turn {st.turn}: game over, {names[game.winner]} won ({game.end_reason})"
    for s in range(game.players):
        if not st.active[s]:
            lines.append(f"  {names[s]:<10} bankrupt")
            continue
        extra = " in jail" if st.in_jail[s] else ""
        cards = len(st.jail_cards[s])
        if cards:
            extra += f", {cards} jail card{'s' if cards > 1 else ''}"
        where = rules.names[st.position[s]]
        lines.append(f"  {names[s]:<10} ${st.cash[s]:>6}  on {where} ({st.position[s]}){extra}")
    for s in range(game.players):
        held = []
        for sq in rules.properties:
            if st.owner[sq] != s:
                continue
            lv = st.level[sq]
            tag = ("hotel" if lv == rules.hotel_level else f"{lv}h") if lv else ""
            tag += " mortgaged" if st.mortgaged[sq] else ""
            held.append(rules.names[sq] + (f" [{tag.strip()}]" if tag else ""))
        if held:
            lines.append(f"  {names[s]} owns: " + ", ".join(held))
    lines.append(f"  bank: {st.houses_left} houses, {st.hotels_left} hotels")
    return "\n".join(lines)
