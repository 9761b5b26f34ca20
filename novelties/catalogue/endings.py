"""Novelties on how a game ends: the bank's turn limit and cash cap (attribute
changes), and new victories by net worth, hotels or monopolies (class changes).

`cash_cap` sets a bank rule the standard game leaves off (GNOME's cash cap): a player
whose cash passes the cap ends the game, the highest net worth winning. `turn_limit`
moves the bank's turn limit (1,000 turns in the standard game); under `effects` agents
are still shown the old limit. Both can only end a game sooner, and their hard presets
pick a level few games reach, so the change is rare to see but large when seen.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from openmono.hooks import Hooks
from openmono.schema import GameSchema
from openmono.state import has_monopoly, net_worth

from novelties.base import Applied, HookChange, Novelty, NoveltyParams
from novelties.catalogue._common import BankValue, hotels_held


class _Limit(NoveltyParams):
    value: int = Field(ge=1, le=100_000)


class TurnLimit(BankValue):
    """The game ends at another turn limit, the highest net worth winning: a short game
    rewards net worth over a slow squeeze to bankruptcy, so long-term plans pay less than
    an agent expects."""

    name = "turn_limit"
    description = ("The game ends after `value` turns instead of 1,000 (the highest net worth "
                   "wins); hard ends it after turn 200, which about one baseline game in 30 "
                   "reaches.")
    field = "turn_limit"
    Params = _Limit
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"value": 80}, "medium": {"value": 150}, "hard": {"value": 200}}


class _Cap(NoveltyParams):
    value: int = Field(ge=0, le=1_000_000)


class CashCap(BankValue):
    """The game ends once a player's cash passes a cap, the highest net worth winning: a
    rich leader can end the game on its terms, and a plan of building up cash first is
    cut short."""

    name = "cash_cap"
    description = ("The game ends after a turn in which a player's cash exceeds `value` (the "
                   "highest net worth wins); hard caps at 3000, a pile few players ever hold.")
    field = "cash_cap"
    Params = _Cap
    presets = {"easy": {"value": 2000}, "medium": {"value": 2500}, "hard": {"value": 3000}}


# --- new victories --------------------------------------------------------------------
class _Threshold(NoveltyParams):
    threshold: int = Field(ge=1, le=1_000_000)


class WealthVictory(Novelty):
    """Reaching a net worth wins at once: the game rewards a quick lead over the slow
    squeeze to bankruptcy an agent plans for."""

    name = "wealth_victory"
    category = "class"
    description = ("The game ends when a player's net worth reaches `threshold` (the richest "
                   "wins); easy ends at 3500, so a quick lead decides the game; hard at 9000, "
                   "which few games reach.")
    Params = _Threshold
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"threshold": 3500}, "medium": {"threshold": 6000},
               "hard": {"threshold": 9000}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A game-over hook ending the game when the richest active player reaches the
        threshold."""
        t = params.threshold

        def game_over(game: Any) -> int | None:
            st = game.state
            worth = [(net_worth(game.rules, st, s), -s) for s in range(st.players)
                     if st.active[s]]
            best = max(worth)
            return -best[1] if best[0] >= t else None

        return Applied(schema, Hooks(game_over=game_over), (HookChange(
            "rule:game_over", "wealth victory", f"a net worth of {t} wins at once", False,
            None, t),))


class _Hotels(NoveltyParams):
    hotels: int = Field(ge=1, le=40)


class HotelVictory(Novelty):
    """Holding enough hotels wins at once: building hotels becomes a race, and a rival near
    the count must be stopped, not just outlasted."""

    name = "hotel_victory"
    category = "class"
    description = ("The first player holding `hotels` hotels wins at once; easy: the first "
                   "hotel ends the game; hard needs nine, which only a player who has taken "
                   "over the board builds.")
    Params = _Hotels
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"hotels": 1}, "medium": {"hotels": 5}, "hard": {"hotels": 9}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A game-over hook ending the game when a player holds enough hotels (ties: the
        earlier seat)."""
        need = params.hotels

        def game_over(game: Any) -> int | None:
            st = game.state
            best = max((hotels_held(game, s), -s) for s in range(st.players) if st.active[s])
            return -best[1] if best[0] >= need else None  # ties: the earlier seat

        return Applied(schema, Hooks(game_over=game_over), (HookChange(
            "rule:game_over", "hotel victory", f"holding {need} hotels wins at once", False,
            None, need),))


class _Sets(NoveltyParams):
    sets: int = Field(ge=1, le=10)


class MonopolyVictory(Novelty):
    """Holding enough colour sets wins at once: completing sets becomes the goal itself, so
    a trade that hands a rival its last set can lose the game on the spot."""

    name = "monopoly_victory"
    category = "class"
    description = ("The first player holding `sets` buildable colour sets wins at once; easy "
                   "needs a single set, so the first monopoly ends the game; hard needs seven "
                   "of the eight, which only a player who has taken over the board holds.")
    Params = _Sets
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"sets": 1}, "medium": {"sets": 5}, "hard": {"sets": 7}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """A game-over hook ending the game when a player holds enough buildable sets."""
        need = params.sets

        def game_over(game: Any) -> int | None:
            rules, st = game.rules, game.state
            best = None
            for s in range(st.players):
                if not st.active[s]:
                    continue
                count = sum(1 for g in range(len(rules.group_names))
                            if rules.group_buildable[g] and has_monopoly(rules, st.owner, s, g))
                if count >= need and (best is None or count > best[0]):
                    best = (count, s)
            return None if best is None else best[1]

        return Applied(schema, Hooks(game_over=game_over), (HookChange(
            "rule:game_over", "monopoly victory", f"holding {need} sets wins at once", False,
            None, need),))
