"""Representation novelties on what agents are shown of their opponents' cash and
moves, and of the board's colours: observation transforms.

The game itself is unchanged; each plugin installs an `observation` hook that edits the
observation every agent receives. The deciding seat's own cash, properties and legal
actions are never altered, so what an agent may legally do stays what the engine accepts.
`capped_opponent_cash` and `rounded_rich_cash` alter only the cash of an opponent grown
rich beyond a level, which most games never see; until then every observation is
exactly the standard one.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from pydantic import Field

from openmono.hooks import Hooks
from openmono.observation import Observation
from openmono.schema import GameSchema

from novelties.base import Applied, HookChange, Novelty, NoveltyParams
from novelties.catalogue._common import derive_public


_ASSET_EVENTS = ("building_changed", "mortgage_changed", "property_transferred")


def _others_events(events: tuple, me: int, kinds: tuple[str, ...]) -> tuple:
    """Drop events of `kinds` that do not involve `me`."""
    out = []
    for e in events:
        if e.kind in kinds:
            seats = (getattr(e, "seat", None), getattr(e, "payer", None),
                     getattr(e, "payee", None), getattr(e, "from_seat", None),
                     getattr(e, "to_seat", None))
            if me not in seats:
                continue
        out.append(e)
    return tuple(out)


def _per_opponent(obs: Observation, field: str, shown: Any) -> Observation:
    """`obs` with `shown(seat, value)` in place of each opponent's entry of a per-seat
    field; the same object when nothing changes (the common case)."""
    me, values = obs.seat, getattr(obs, field)
    new = tuple(v if s == me else shown(s, v) for s, v in enumerate(values))
    return obs if new == values else obs._replace(**{field: new})


class _Cash(NoveltyParams):
    granularity: int = Field(ge=0, le=100_000)  # 0: opponents' cash shown as 0
    hide_payments: bool = False


class HiddenOpponentCash(Novelty):
    """Opponents' cash is shown coarsely or as 0: an agent can no longer tell who is about
    to go bankrupt, what a trade partner can afford or how high a rival can bid."""

    name = "hidden_opponent_cash"
    category = "representation"
    description = ("Opponents' cash is shown rounded down to `granularity`; easy shows 0 and "
                   "hides payments between others, hard rounds to 100.")
    Params = _Cash
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"granularity": 0, "hide_payments": True},
               "medium": {"granularity": 500}, "hard": {"granularity": 100}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook coarsening opponents' cash (and, with `hide_payments`,
        dropping payments between others)."""
        g, hide = params.granularity, params.hide_payments

        def show(obs: Observation) -> Observation:
            me = obs.seat
            cash = tuple(c if s == me else (c // g * g if g else 0)
                         for s, c in enumerate(obs.cash))
            events = _others_events(obs.events, me, ("payment",)) if hide else obs.events
            return obs._replace(cash=cash, events=events)

        shown = f"rounded down to {g}" if g else "always 0"
        declared = [HookChange("observation:cash", "opponents' cash shown",
                               f"opponents' cash is shown {shown}", True, "exact", shown)]
        if hide:
            declared.append(HookChange("observation:events", "payments between others",
                                       "payments not involving the agent are hidden", True,
                                       "shown", "hidden"))
        return Applied(schema, Hooks(observation=show), tuple(declared))


class _Noise(NoveltyParams):
    noise: float = Field(gt=0, le=1)


class NoisyOpponentCash(Novelty):
    """Opponents' cash is shown with a random error: the game is the same, but every
    judgement read off a rival's cash (bids, trades, who is near ruin) is noisy."""

    name = "noisy_opponent_cash"
    category = "representation"
    description = ("Opponents' cash is shown with a random error of up to `noise` (fresh each "
                   "turn); hard errs by up to 50%.")
    Params = _Noise
    presets = {"easy": {"noise": 0.05}, "medium": {"noise": 0.2}, "hard": {"noise": 0.5}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook adding noise to opponents' cash, fresh each turn but
        reproducible per viewer."""
        noise = params.noise

        def show(obs: Observation) -> Observation:
            me = obs.seat
            rng = random.Random(obs.turn * 7919 + me)  # deterministic, per turn and viewer
            cash = tuple(c if s == me else max(0, int(c * (1 + rng.uniform(-noise, noise))))
                         for s, c in enumerate(obs.cash))
            return obs._replace(cash=cash)

        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:cash", "opponents' cash shown",
            f"opponents' cash is shown with up to {noise:.0%} error", True, "exact",
            f"+-{noise:.0%} noise"),))


class _Ceiling(NoveltyParams):
    ceiling: int = Field(ge=0, le=100_000)


class CappedOpponentCash(Novelty):
    """A rich opponent's cash is shown capped: an agent underrates the leader, e.g. how high
    it can bid or how long it can carry a rent, exactly when the leader matters."""

    name = "capped_opponent_cash"
    category = "representation"
    description = ("An opponent holding more than `ceiling` cash is shown holding exactly "
                   "`ceiling`; hard caps at 3000, a level few baseline players ever reach.")
    Params = _Ceiling
    presets = {"easy": {"ceiling": 1500}, "medium": {"ceiling": 2000},
               "hard": {"ceiling": 3000}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook capping opponents' cash at the ceiling."""
        top = params.ceiling

        def show(obs: Observation) -> Observation:
            return _per_opponent(obs, "cash", lambda s, c: min(c, top))

        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:cash", "opponents' cash shown",
            f"an opponent holding more than {top} is shown holding {top}", True,
            "exact", {"ceiling": top}),))


# --- a rich opponent's cash shown rounded ---------------------------------------------
class _Rounded(NoveltyParams):
    above: int = Field(ge=0, le=100_000)
    step: int = Field(ge=2, le=100_000)


class RoundedRichCash(Novelty):
    """A rich opponent's cash is shown rounded down: a small error on the leader's cash,
    seen only where it matters (a close bid, a rent it can barely pay)."""

    name = "rounded_rich_cash"
    category = "representation"
    description = ("An opponent holding more than `above` cash is shown holding it rounded "
                   "down to a multiple of `step`; hard rounds to 100s above 3000, a level few "
                   "baseline players reach.")
    Params = _Rounded
    presets = {"easy": {"above": 0, "step": 100}, "medium": {"above": 2000, "step": 100},
               "hard": {"above": 3000, "step": 100}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook rounding down the cash of an opponent above `above`."""
        top, step = params.above, params.step

        def show(obs: Observation) -> Observation:
            return _per_opponent(obs, "cash", lambda s, c: c - c % step if c > top else c)

        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:cash", "opponents' cash shown",
            f"an opponent holding more than {top} is shown holding it rounded down to "
            f"{step}s", True, "exact", {"above": top, "step": step}),))


# --- assets, colours, moves -----------------------------------------------------------
class _Assets(NoveltyParams):
    buildings: bool = True
    mortgages: bool = False
    ownership: bool = False
    hide_events: bool = False


class HiddenOpponentAssets(Novelty):
    """Opponents' buildings (and mortgages, ownership) are not shown: an agent cannot see
    which squares are dangerous to land on, nor which sets a rival is building."""

    name = "hidden_opponent_assets"
    category = "representation"
    description = ("Opponents' buildings (and mortgages, ownership) are not shown; easy hides "
                   "all three and the events about them, hard only the buildings.")
    Params = _Assets
    # Ordered by measured detectability (docs/novelties.md, "Measured difficulty").
    presets = {"easy": {"mortgages": True, "ownership": True, "hide_events": True},
               "medium": {"mortgages": True}, "hard": {}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook blanking opponents' buildings, mortgages or ownership (and,
        with `hide_events`, the events about them)."""
        p = params
        if not (p.buildings or p.mortgages or p.ownership):
            raise ValueError("hide at least one of buildings, mortgages, ownership")

        def show(obs: Observation) -> Observation:
            me = obs.seat
            owner = obs.owner
            mine = [o == me for o in owner]
            changes: dict[str, Any] = {}
            if p.buildings:
                changes["level"] = tuple(lv if m else 0 for lv, m in zip(obs.level, mine))
            if p.mortgages:
                changes["mortgaged"] = tuple(x if m else False
                                             for x, m in zip(obs.mortgaged, mine))
            if p.ownership:
                changes["owner"] = tuple(o if m else -1 for o, m in zip(owner, mine))
            if p.hide_events:
                changes["events"] = _others_events(obs.events, me, _ASSET_EVENTS)
            return obs._replace(**changes)

        declared = [HookChange(f"observation:{f}", "opponents' values shown",
                               f"opponents' {f} are hidden", True, "shown", "hidden")
                    for f, on in (("level", p.buildings), ("mortgaged", p.mortgages),
                                  ("owner", p.ownership), ("events", p.hide_events)) if on]
        return Applied(schema, Hooks(observation=show), tuple(declared))


class _Colours(NoveltyParams):
    swaps: int | None = Field(ge=1)  # None: every street group gets another's label
    seed: int = 0


class WrongColours(Novelty):
    """Agents are shown the wrong colour labels while the real sets are unchanged: an agent
    trusting the labels trades and builds towards sets that are not sets."""

    name = "wrong_colours"
    category = "representation"
    description = ("Agents are shown wrong colour-group labels (names and colours swapped "
                   "between groups; sets are unchanged); hard mislabels every street group.")
    Params = _Colours
    presets = {"easy": {"swaps": 1}, "medium": {"swaps": 2}, "hard": {"swaps": None}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook relabelling the groups in the public rules, by a permutation
        drawn from `seed`."""
        rng = random.Random(params.seed)
        streets = [g for g in schema.groups
                   if any(s.group == g.name and s.kind == "street" for s in schema.squares)]
        names = [g.name for g in streets]
        perm = names[:]
        if params.swaps is None:
            while any(a == b for a, b in zip(perm, names)):
                rng.shuffle(perm)
        else:
            for _ in range(params.swaps):
                i, j = rng.sample(range(len(perm)), 2)
                perm[i], perm[j] = perm[j], perm[i]
        colour = {g.name: g.color for g in schema.groups}
        label = {real: shown for real, shown in zip(names, perm) if real != shown}
        if not label:
            raise ValueError("the swaps cancel out; use another seed")
        cache: dict[int, tuple[Any, Any]] = {}

        def relabel(pub: Any) -> Any:
            hit = cache.get(id(pub))
            if hit is not None and hit[0] is pub:
                return hit[1]
            ps = copy.deepcopy(pub.public_schema)
            for g in ps["groups"]:
                if g["name"] in label:
                    g["name"], g["color"] = label[g["name"]], colour[label[g["name"]]]
            for s in ps["squares"]:
                if s.get("group") in label:
                    s["group"] = label[s["group"]]
            new = derive_public(pub, public_schema=ps,
                                group_names=tuple(label.get(n, n) for n in pub.group_names))
            if len(cache) > 8:
                cache.clear()
            cache[id(pub)] = (pub, new)
            return new

        def show(obs: Observation) -> Observation:
            return obs._replace(rules=relabel(obs.rules))

        declared = tuple(HookChange(f"group:{real}", "label shown",
                                    f"group {real} is shown as {shown}", True, real, shown)
                         for real, shown in label.items())
        return Applied(schema, Hooks(observation=show), declared)


class _Moves(NoveltyParams):
    dice: bool = True
    cards: bool = False
    moves: bool = False


class HiddenOpponentMoves(Novelty):
    """Opponents' rolls (and draws, moves) are left out of what an agent sees: the game is
    the same, but the evidence a detector learns hidden dice or cards from shrinks to its
    own turns."""

    name = "hidden_opponent_moves"
    category = "representation"
    description = ("Opponents' dice rolls (and card draws, moves) are left out of the events "
                   "an agent sees; hard hides all three, so only positions change.")
    Params = _Moves
    presets = {"easy": {}, "medium": {"cards": True},
               "hard": {"cards": True, "moves": True}}

    def apply(self, schema: GameSchema, params: Any) -> Applied:
        """An observation hook dropping opponents' throws, draws or moves from the events."""
        kinds = tuple(k for k, on in (("dice_rolled", params.dice), ("card_drawn", params.cards),
                                      ("moved", params.moves)) if on)
        if not kinds:
            raise ValueError("hide at least one of dice, cards, moves")

        def show(obs: Observation) -> Observation:
            return obs._replace(events=_others_events(obs.events, obs.seat, kinds))

        return Applied(schema, Hooks(observation=show), (HookChange(
            "observation:events", "opponents' events shown",
            f"opponents' {', '.join(kinds)} events are hidden", True, "shown", "hidden"),))
