"""Belief helpers for novelty detection: diffing the public rules, rebuilding the
believed schema, summarising dice evidence, and (`Characterizer`) turning accumulated
evidence into reported changes and hidden beliefs.

Everything here works on what an agent may see: the public schema dicts of
`Observation.rules.public_schema` and the agent's own believed `GameSchema`. The change
vocabulary (entity `square:NAME`, `group:NAME`, `board`, `bank`, `die:I`, `card:DECK:TEXT`,
...; attribute = the schema field) is the one the evaluation's ground truth uses, so a
reported change can be scored against it.
"""

from __future__ import annotations

import math

from pydantic import ValidationError

from openmono.compiled import TAX
from openmono.kinds import CARD_KINDS, SQUARE_KINDS
from openmono.schema import Card, Deck, Die, GameSchema
from openmono.schema_diff import Raw, diff_named

from agents.base import NoveltyChange

BANK = -1
MONEY_CARDS = ("collect", "pay", "collect_from_each", "pay_each")


# --- diffing public schemas -----------------------------------------------------------------


def label_permutation(old: dict, new: dict) -> dict[str, str]:
    """{real group: shown label} when the new public rules only relabel whole groups
    among the old group names (every member of a group shows one other old name): the
    partition into sets is unchanged, only the labels moved. Empty otherwise."""
    old_names = [g["name"] for g in old["groups"]]
    if sorted(old_names) != sorted(g["name"] for g in new["groups"]):
        return {}
    new_sq = {s["name"]: s for s in new["squares"]}
    shown: dict[str, set[str]] = {}
    for s in old["squares"]:
        t = new_sq.get(s["name"])
        if t is None or (s.get("group") is None) != (t.get("group") is None):
            return {}
        if s.get("group") is not None:
            shown.setdefault(s["group"], set()).add(t["group"])
    if any(len(v) != 1 for v in shown.values()):
        return {}
    label = {g: next(iter(v)) for g, v in shown.items()}
    if sorted(label.values()) != sorted(label) or all(k == v for k, v in label.items()):
        return {}
    return {k: v for k, v in label.items() if k != v}


def unlabel(old: dict, new: dict, label: dict[str, str]) -> dict:
    """`new` with a label permutation undone (group names and colours as in `old`)."""
    back = {v: k for k, v in label.items()}
    colour = {g["name"]: g.get("color") for g in old["groups"]}
    out = dict(new)
    groups = []
    for g in new["groups"]:
        g = dict(g)
        real = back.get(g["name"], g["name"])
        if real != g["name"]:
            g["name"] = real
            g["color"] = colour.get(real, g.get("color"))
        groups.append(g)
    out["groups"] = groups
    out["squares"] = [dict(s, group=back.get(s["group"], s["group"]))
                      if s.get("group") is not None else s for s in new["squares"]]
    return out


def diff_public(old: dict, new: dict) -> tuple[list[Raw], dict[str, str]]:
    """Every difference between two public schema dicts as change records, plus the
    square renames found ({old name: new name})."""
    raw: list[Raw] = []
    label = label_permutation(old, new)
    if label:
        for real, shown in label.items():
            raw.append((f"group:{real}", "label shown", real, shown))
        new = unlabel(old, new, label)
    pairs = diff_named(old["squares"], new["squares"], "square", raw)
    renamed = {a["name"]: b["name"] for a, b in pairs if a["name"] != b["name"]}
    old_order = [renamed.get(d["name"], d["name"]) for d in old["squares"]]
    new_order = [d["name"] for d in new["squares"]]
    if len(old["squares"]) != len(new["squares"]):
        raw.append(("board", "size", len(old["squares"]), len(new["squares"])))
    common = set(old_order) & set(new_order)
    if [x for x in old_order if x in common] != [x for x in new_order if x in common]:
        raw.append(("board", "order", [d["name"] for d in old["squares"]], new_order))
    diff_named(old["groups"], new["groups"], "group", raw)
    for key, value in old["bank"].items():
        if value != new["bank"].get(key):
            raw.append(("bank", key, value, new["bank"].get(key)))
    for key in new.keys() - old.keys() - {"squares", "groups", "bank"}:
        raw.append(("rules", key, None, new[key]))
    return raw, renamed


# --- rebuilding the believed schema -------------------------------------------------------
def merge_public(public: dict, dice: tuple[Die, ...], decks: tuple[Deck, ...],
                 renamed: dict[str, str] | None = None) -> GameSchema:
    """A schema with the public fields of `public` and the believed (hidden) dice and
    decks. Cards follow renamed squares; cards that no longer fit the board are dropped
    (a deck left empty keeps a no-op card); unknown square kinds count as empty squares."""
    renamed = renamed or {}
    squares = []
    for s in public["squares"]:
        if s.get("kind") not in SQUARE_KINDS:
            s = dict(s, kind="free_parking")
        squares.append(s)
    names = {s["name"] for s in squares}
    kinds = {s["kind"] for s in squares}
    new_decks = []
    for d in decks:
        cards = []
        for c in d.cards:
            sq = renamed.get(c.square, c.square) if c.square else c.square
            if sq is not None and sq not in names:
                continue
            if c.target_kind is not None and c.target_kind not in kinds:
                continue
            if c.kind not in CARD_KINDS:
                continue
            cards.append(c if sq == c.square else c.model_copy(update={"square": sq}))
        if not cards:
            cards = [Card(text=d.cards[0].text, kind="collect", amount=0)]
        new_decks.append(Deck(name=d.name, cards=tuple(cards)))
    deck_names = {d.name for d in new_decks}
    for s in squares:
        if s["kind"] == "card" and s.get("deck") not in deck_names:
            new_decks.append(Deck(name=s["deck"], cards=(Card(text="?", kind="collect"),)))
            deck_names.add(s["deck"])
    data = dict(public, squares=squares,
                dice=[d.model_dump() for d in dice], decks=[d.model_dump() for d in new_decks])
    try:
        return GameSchema.model_validate(data)
    except ValidationError:
        # Last resort: the board as shown, plain dice, no decks (card squares do nothing).
        squares = [dict(s, kind="free_parking", deck=None) if s["kind"] == "card" else s
                   for s in squares]
        return GameSchema.model_validate(dict(public, squares=squares,
                                              dice=[d.model_dump() for d in dice], decks=[]))


def scale(value: int, factor: float) -> int:
    """A printed value times a factor, rounded (how a scaled rule would be printed)."""
    return max(0, int(round(value * factor)))


def nice_factor(lo: float, hi: float) -> float:
    """The value in [lo, hi) with the fewest decimals (a rule's factor is a round number)."""
    for digits in range(0, 5):
        q = 10 ** digits
        v = math.ceil(lo * q - 1e-9) / q
        if v < hi:
            return v
    return (lo + hi) / 2


# --- dice ---------------------------------------------------------------------------------
def chi_square(counts: dict[int, int], probs: dict[int, float]) -> tuple[float, int, int]:
    """Pearson's statistic of `counts` against `probs`, its degrees of freedom and the
    sample size. Values with probability 0 are handled elsewhere (exact evidence)."""
    n = sum(counts.values())
    stat = 0.0
    cells = 0
    for v, p in probs.items():
        if p <= 0:
            continue
        e = n * p
        d = counts.get(v, 0) - e
        stat += d * d / e if e > 0 else 0.0
        cells += 1
    return stat, max(cells - 1, 0), n


def map_weights(counts: dict[int, int], probs: dict[int, float],
                strength: float) -> dict[int, float]:
    """MAP face probabilities under a Dirichlet prior centred on `probs` with `strength`
    pseudo-counts (alpha_j = 1 + strength * p_j): (n_j + strength p_j) / (n + strength)."""
    values = sorted(set(probs) | set(counts))
    n = sum(counts.values())
    return {v: (counts.get(v, 0) + strength * probs.get(v, 0.0)) / (n + strength)
            for v in values}


def sparse_weights(counts: dict[int, int], faces: tuple[int, ...], z: float = 4.0) -> list[float]:
    """Relative face weights with the unbiased faces at exactly 1.0: faces whose count
    differs significantly (|z| > `z`) from the pooled rate of the others are biased,
    the rest are pooled. A compact summary of a MAP estimate for reporting."""
    values = list(dict.fromkeys(faces))
    mult = {v: faces.count(v) for v in values}
    biased: set[int] = set()
    while True:
        base = [v for v in values if v not in biased]
        if not base:
            break
        n_base = sum(counts.get(v, 0) for v in base)
        m_base = sum(mult[v] for v in base)
        n = sum(counts.get(v, 0) for v in values)
        if n == 0:
            break
        rate = n_base / m_base  # count per physical face among unbiased ones
        worst, worst_z = None, z
        for v in base:
            e = rate * mult[v]
            if e <= 0:
                continue
            zz = abs(counts.get(v, 0) - e) / math.sqrt(e)
            if zz > worst_z:
                worst, worst_z = v, zz
        if worst is None or len(base) <= 1:
            break
        biased.add(worst)
    base = [v for v in values if v not in biased]
    n_base = sum(counts.get(v, 0) for v in base)
    m_base = sum(mult[v] for v in base) or 1
    rate = n_base / m_base if n_base else 1.0
    out = []
    for f in faces:
        out.append(1.0 if f not in biased else round(counts.get(f, 0) / mult[f] / rate, 2))
    return out


def face_layout(values: list[int], believed_faces: int) -> list[int]:
    """Faces of a die from the values seen: when k distinct values fit a die of the
    believed number of faces evenly, it is read as that die with values repeated."""
    values = sorted(values)
    if values and believed_faces % len(values) == 0 and len(values) < believed_faces:
        return values * (believed_faces // len(values))
    return values


# --- characterization from accumulated evidence ---------------------------------------------
# A factor on what a square charges, seen only in payments, is reported under every
# attribute it could be: the printed value, or a rule charging other than the board.
CHARGED_ATTRIBUTES = {"rent": ("rent", "rent (charged)"), "tax": ("tax", "tax (charged)")}


class Characterizer:
    """The report-time half of `agents.planner.detect.NoveltyDetector`: turns the
    evidence it accumulates (factor runs, tax payments by builders, card factors, deck
    indices, unknown payments, rule endings) into change records and beliefs. It reads
    the detector's attributes; it is a mixin, not used alone."""

    def _factor_beliefs(self) -> tuple[dict[int, float], dict[int, float]]:
        """Per-square rent and tax factors the runs support (1.0 left out), with an
        all-properties or per-group extrapolation when the observed squares agree."""
        R = self._R
        rent: dict[int, float] = {}
        tax: dict[int, float] = {}
        changed_runs = []
        for key, (lo, hi, start, last) in self._runs.items():
            if key == "jail" or lo <= 1.0 < hi:
                continue
            f = nice_factor(lo, hi)
            if isinstance(key, tuple):
                tax[key[1]] = f
            else:
                rent[key] = f
                changed_runs.append((key, lo, hi, start))
        if rent:
            since = min(start for _, _, _, start in changed_runs)
            lo = max(r[1] for r in changed_runs)
            hi = min(r[2] for r in changed_runs)
            unchanged = [k for k, (a, b, s, last) in self._runs.items()
                         if not isinstance(k, tuple) and k != "jail" and a <= 1.0 < b
                         and last > since]
            groups = {R.group_of[k] for k in rent}
            if lo < hi and not unchanged:
                f = nice_factor(lo, hi)
                if len(rent) >= 3 and len(groups) >= 2:
                    targets = list(R.properties)
                else:
                    targets = [m for g in groups for m in R.group_members[g]]
                for sq in targets:
                    rent.setdefault(sq, f)
        if tax:
            fs = list(tax.values())
            if all(abs(f - fs[0]) < 1e-9 for f in fs):
                ok = [k for k, (a, b, s, last) in self._runs.items()
                      if isinstance(k, tuple) and a <= 1.0 < b]
                if not ok:
                    for sq in range(R.n):
                        if R.kind[sq] == TAX and R.tax[sq] > 0:
                            tax.setdefault(sq, fs[0])
        return rent, tax

    def _per_building(self, tax: dict[int, float] | None = None) -> tuple[float, float] | None:
        """Least-squares per-house and per-hotel tax from payments by builders (the part
        of each payment above the square's own, possibly scaled, tax)."""
        if tax is None:
            tax = self._factor_beliefs()[1]
        ev = [(h, t, amount - int(base * tax.get(sq, 1.0)))
              for sq, base, h, t, amount in self._tax_extra]
        if not ev or all(x == 0 for _, _, x in ev):
            return None
        shh = sum(h * h for h, _, _ in ev)
        stt = sum(t * t for _, t, _ in ev)
        sht = sum(h * t for h, t, _ in ev)
        shx = sum(h * x for h, _, x in ev)
        stx = sum(t * x for _, t, x in ev)
        det = shh * stt - sht * sht
        if det > 0:
            return ((shx * stt - stx * sht) / det, (stx * shh - shx * sht) / det)
        if shh > 0 and stt == 0:
            return (shx / shh, 0.0)
        if stt > 0 and shh == 0:
            return (0.0, stx / stt)
        return None

    def _derived_changes(self) -> dict[tuple[str, str], NoveltyChange]:
        """Changes inferred from accumulated evidence (recomputed at each report)."""
        out: dict[tuple[str, str], NoveltyChange] = {}
        R = self._R
        schema = self._core
        payments_hidden = self._others_payments_missing >= 2
        if payments_hidden:
            out[("observation:events", "payments between others")] = NoveltyChange(
                "observation:events", "payments between others", "hidden", "shown")
        rent, tax = self._factor_beliefs()
        if not payments_hidden:
            for sq, f in rent.items():
                if sq < len(schema.squares) and schema.squares[sq].rent:
                    s = schema.squares[sq]
                    # From outcomes alone a new printed rent (`rent`) and a rule that
                    # charges other than the board shows (`rent (charged)`) look the same
                    # (under `effects` the board is never updated): both are named.
                    for attr in CHARGED_ATTRIBUTES["rent"]:
                        out[(f"square:{s.name}", attr)] = NoveltyChange(
                            f"square:{s.name}", attr, [scale(v, f) for v in s.rent],
                            list(s.rent))
        for sq, f in tax.items():
            if sq < len(schema.squares):
                s = schema.squares[sq]
                for attr in CHARGED_ATTRIBUTES["tax"]:
                    out[(f"square:{s.name}", attr)] = NoveltyChange(
                        f"square:{s.name}", attr, scale(s.tax, f), s.tax)
        jail = self._runs.get("jail")
        jail_square = R.names[R.jail]
        if (jail is not None and not jail[0] <= 1.0 < jail[1] and not payments_hidden
                and jail_square not in self._touched):
            out[("rule:rent", "owner in jail")] = NoveltyChange(
                "rule:rent", "owner in jail", nice_factor(jail[0], jail[1]), 1.0)
        per = self._per_building(tax)
        if per is not None and (abs(per[0]) >= 0.5 or abs(per[1]) >= 0.5) and (
                not self._taxes_announced()):
            hotels_seen = any(t for _, _, _, t, _ in self._tax_extra)
            value = ({"per_house": round(per[0]), "per_hotel": round(per[1])}
                     if hotels_seen else None)
            out[("rule:tax", "per building")] = NoveltyChange("rule:tax", "per building", value,
                                                              None)
        out.update(self._card_extrapolation())
        out.update(self._deck_changes())
        out.update(self._unknown_rules())
        if self._rule_endings:
            out.update(self._ending_rule())
        return out

    def _ending_rule(self) -> dict[tuple[str, str], NoveltyChange]:
        """Games that end by a rule: if the winners' net worths crowd just above a floor,
        a net worth wins; if the winners hold sets, sets win."""
        worths = [w for w, _, _ in self._rule_endings]
        sets = [s for _, s, _ in self._rule_endings]
        held = [h for _, _, h in self._rule_endings]
        floor = min(worths)
        crowd = sum(1 for w in worths if w <= 1.15 * floor) / len(worths)
        rich = floor >= 2 * int(self._public["bank"]["starting_cash"])  # well above the start
        if rich and (len(worths) < 3 or crowd >= 0.4):
            return {("rule:game_over", "wealth victory"): NoveltyChange(
                "rule:game_over", "wealth victory", floor // 100 * 100, None)}
        if max(sets) >= 1 or max(held) >= 1 or floor < 2 * int(
                self._public["bank"]["starting_cash"]):
            # Between turns nobody held the winning number of sets, or the game would
            # have ended: it is one more than the most anyone held at a turn's start.
            k = max(held) + 1
            return {("rule:game_over", "monopoly victory"): NoveltyChange(
                "rule:game_over", "monopoly victory", k, None)}
        return {("rule:game_over", "exists"): NoveltyChange("rule:game_over", "exists")}

    def _taxes_announced(self) -> bool:
        R = self._R
        return any(R.names[sq] in self._touched for sq in range(R.n) if R.kind[sq] == TAX)

    def _unknown_rules(self) -> dict[tuple[str, str], NoveltyChange]:
        """What payments for unknown reasons look like: a charge or bonus for landing on
        a square, a toll for passing it, a charge after passing Go (as a rate of cash or
        net worth), or a payout that grows with the taxes paid since the last one."""
        out: dict[tuple[str, str], NoveltyChange] = {}
        R = self._R
        for reason, samples in self._unknown.items():
            words = reason.replace("_", " ")
            sq = samples[0][2]
            name = R.names[sq] if 0 <= sq < R.n else None
            touched = name is not None and name in self._touched
            pays = all(p != BANK for p, *_ in samples)
            landed = [x for x in samples if x[3]]
            passing = [x for x in samples if not x[3] and x[4]]
            if pays and all(x[5] for x in samples) and len(landed) < len(samples):
                if not touched:
                    rate = self._wealth_rate([(x[1], x[6], x[7]) for x in samples])
                    out[("rule:passing_go", words)] = NoveltyChange(
                        "rule:passing_go", words, rate, 0)
                    # A charge for passing Go is a rule of the Go square (its `params`
                    # when the board prints it).
                    go = f"square:{R.names[R.go]}"
                    out[(go, "params")] = NoveltyChange(go, "params", None, None)
                continue
            if landed and name is not None:
                amounts = {x[1] for x in landed}
                fixed = next(iter(amounts)) if len(amounts) == 1 else None
                share = self._pot_share(landed) if not pays else None
                if share is not None:
                    out[("rule:tax", f"feeds the {words}")] = NoveltyChange(
                        "rule:tax", f"feeds the {words}", share, 0)
                elif not touched:
                    attr = "visit fee" if pays else "landing bonus"
                    out[(f"square:{name}", attr)] = NoveltyChange(f"square:{name}", attr,
                                                                  fixed, 0)
                    # A fee or bonus for landing is a parameter of the square (printed on
                    # the board when announced).
                    out[(f"square:{name}", "params")] = NoveltyChange(
                        f"square:{name}", "params", None, None)
            if passing and pays:
                amounts = {x[1] for x in passing}
                fixed = next(iter(amounts)) if len(amounts) == 1 else None
                out[("rule:end_of_turn", f"passing {words}")] = NoveltyChange(
                    "rule:end_of_turn", f"passing {words}", fixed, 0)
        return out

    @staticmethod
    def _pot_share(samples: list[tuple]) -> float | None:
        """The slope of payouts on the taxes paid since the previous payout, when the
        payouts follow it closely (a pot fed by taxes)."""
        xs = [x[8] for x in samples]
        ys = [x[1] for x in samples]
        if len(xs) < 3 or len(set(xs)) < 2:
            return None
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
        syy = sum((y - my) ** 2 for y in ys)
        if sxx <= 0 or syy <= 0:
            return None
        slope = sxy / sxx
        r2 = sxy * sxy / (sxx * syy)
        return round(slope, 2) if slope > 0.05 and r2 > 0.9 else None

    @staticmethod
    def _wealth_rate(samples: list[tuple[int, int, int]]) -> float | None:
        best = None
        for base in (1, 2):
            lo, hi = 0.0, 10.0
            for amount, cash, worth in samples:
                v = cash if base == 1 else worth
                if v <= 0:
                    continue
                lo, hi = max(lo, amount / v), min(hi, (amount + 1) / v)
            if lo < hi:
                f = nice_factor(lo, hi)
                if best is None or len(str(f)) < len(str(best)):
                    best = f
        return best

    def _card_extrapolation(self) -> dict[tuple[str, str], NoveltyChange]:
        """All money cards scaled alike when two or more cards show the same factor and
        no money card was seen unchanged since."""
        out: dict[tuple[str, str], NoveltyChange] = {}
        fs = self._card_factors
        if len({k for _, _, k in fs}) < 2:
            return out
        lo = min(f for f, _, _ in fs)
        hi = max(f for f, _, _ in fs)
        since = min(c for _, c, _ in fs)
        if hi - lo > 0.05 * hi or any(c > since for c in self._card_ok.values()):
            return out
        f = round(sum(x for x, _, _ in fs) / len(fs), 2)
        for d in self._decks:
            for c in d.cards:
                entity = f"card:{d.name}:{self._original_text(d.name, c.text)}"
                if c.kind in MONEY_CARDS and c.amount and (entity, "amount") not in self._changes:
                    out[(entity, "amount")] = NoveltyChange(entity, "amount",
                                                            round(c.amount * f), c.amount)
                if c.kind == "repairs":
                    for attr in ("per_house", "per_hotel"):
                        v = getattr(c, attr)
                        if v and (entity, attr) not in self._changes:
                            out[(entity, attr)] = NoveltyChange(entity, attr, round(v * f), v)
        return out

    def _deck_changes(self) -> dict[tuple[str, str], NoveltyChange]:
        """Deck composition from the physical card indices seen since a deck changed."""
        out: dict[tuple[str, str], NoveltyChange] = {}
        for deck, comp, complete in self._compositions():
            d = self._deck_index.get(deck)
            if d is None:
                continue
            believed = self._orig_deck_texts.get(deck, self._deck_texts[d])
            orig: dict[str, int] = {}
            for text, count in comp.items():
                key = self._original_text(deck, text)
                orig[key] = orig.get(key, 0) + count
            for text, old in believed.items():
                new = orig.get(text, 0)
                entity = f"card:{deck}:{self._original_text(deck, text)}"
                if new > old or (complete and new != old):
                    if new == 0:
                        out[(entity, "exists")] = NoveltyChange(entity, "exists", None, None)
                    else:
                        out[(entity, "count")] = NoveltyChange(entity, "count", new, old)
        return out

    def _compositions(self) -> list[tuple[str, dict[str, int], bool]]:
        """(deck, {text: count}, complete?) from the card indices seen since the deck
        changed. Complete: every index up to the deck's size was seen, the size being at
        least the believed one unless many draws never showed a higher index."""
        out = []
        for deck in self._deck_epoch:
            m = self._idx_maps.get(deck, {})
            if not m:
                continue
            top = max(m) + 1
            believed = sum(self._orig_deck_texts.get(deck, {}).values())
            draws = self._epoch_draws.get(deck, 0)
            size = top if draws >= 4 * top else max(top, believed)
            comp: dict[str, int] = {}
            for text in m.values():
                comp[text] = comp.get(text, 0) + 1
            out.append((deck, comp, len(m) == size))
        return out

    def _adopt_decks(self) -> bool:
        """Rebuild a changed deck once every physical card of it has been seen."""
        changed = False
        for deck, comp, complete in self._compositions():
            d = self._deck_index.get(deck)
            if d is None or not complete or comp == self._deck_texts[d]:
                continue
            by_text = {c.text: c for c in self._R.decks[d]}
            m = self._idx_maps[deck]
            cards = []
            for i in sorted(m):  # in index order, so the indices keep their meaning
                text = m[i]
                if by_text.get(text) is None or (deck, text) in self._unknown_cards:
                    card = Card(text=text, kind="collect", amount=0)
                else:
                    card = self._card_model(deck, text).model_copy(update={"count": 1})
                cards.append(card)
            decks = tuple(Deck(name=dk.name, cards=tuple(cards)) if dk.name == deck else dk
                          for dk in self._decks)
            self._decks = decks
            changed = True
        return changed

    def _card_model(self, deck: str, text: str) -> Card:
        for dk in self._decks:
            if dk.name == deck:
                for c in dk.cards:
                    if c.text == text:
                        return c
        return Card(text=text, kind="collect")
