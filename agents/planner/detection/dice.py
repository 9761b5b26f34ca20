"""The dice: a die count or a face never seen before is immediate evidence; face
frequencies are tested at game ends with Pearson's chi-square against the believed
probabilities over windows of the last 1, 2, 4, ... games, Bonferroni-corrected so the
false-alarm probability over `horizon` games stays below `alpha`; on rejection the MAP
weights (Dirichlet prior centred on the believed dice) are adopted."""

from __future__ import annotations

from typing import Any

from openmono.schema import Die

from agents.planner import beliefs as B
from agents.planner.detection.checker import Checker

DieChange = tuple[str, str, Any, Any, str]  # (entity, attribute, new, old, why)


def p_value(stat: float, df: int) -> float:
    """Upper tail of the chi-square distribution."""
    if df <= 0:
        return 1.0
    from scipy.special import gammaincc  # on first use: naming any agent loads this module

    return float(gammaincc(df / 2.0, stat / 2.0))


def dice_moved(old: tuple[Die, ...], new: tuple[Die, ...], tol: float = 0.01) -> bool:
    """Whether the believed dice changed enough to be worth recomputing the tables."""
    if len(old) != len(new):
        return True
    for a, b in zip(old, new):
        if a.faces != b.faces:
            return True
        pa, pb = a.probabilities(), b.probabilities()
        if any(abs(pa.get(v, 0.0) - pb.get(v, 0.0)) > tol for v in set(pa) | set(pb)):
            return True
    return False


class DiceChecker(Checker):
    """Counts faces per die per game (`hist`: one list of per-die counts per game, the
    last `max(windows)` games), checks each throw's die count and faces, and tests and
    adopts the dice at game ends (see module)."""

    def __init__(self, det: Any) -> None:
        super().__init__(det)
        self.hist: list[list[dict[int, int]]] = []
        self.done = False  # a dice change was detected (then only refined)
        self.orig_dice: tuple[Die, ...] | None = None  # the dice believed before it
        self.changed_count = False

    def compiled(self) -> None:
        """The believed dice's face probabilities and faces, which every throw is compared
        with."""
        self.die_probs = [d.probabilities() for d in self.det.dice]
        self.die_faces = [frozenset(d.faces) for d in self.det.dice]

    def new_game(self) -> None:
        """Start the game's face counts."""
        self.game_counts: list[dict[int, int]] = [{} for _ in self.det.dice]

    def announced(self) -> None:
        """A novelty was announced: the dice counts start afresh, so the test uses
        post-novelty throws only."""
        self.hist = []
        self.game_counts = []

    def end_game(self) -> None:
        """Keep the game's counts (within the largest window) and run the chi-square test
        over them."""
        self.hist.append(self.game_counts)
        if len(self.hist) > max(self.det.windows):
            del self.hist[0]
        self.test()

    # --- throws --------------------------------------------------------------------------
    def on_dice_rolled(self, e: Any) -> None:
        """Count the throw's faces; a die count or a face the believed dice lack is evidence
        at once."""
        dice = e[1]
        faces = self.die_faces
        nb = len(faces)
        if len(dice) != nb:
            self._count(dice)
        counts = self.game_counts
        for i, v in enumerate(dice):
            if i < len(counts):
                c = counts[i]
                c[v] = c.get(v, 0) + 1
            else:
                counts.append({v: 1})
            if i < nb and v not in faces[i]:
                self._new_face(i, v)

    def _count(self, dice: tuple[int, ...]) -> None:
        det = self.det
        if not self.changed_count:
            self.changed_count = True
            self.hist = []
            old = len(det.dice)
            det.change("dice", "count", len(dice), old,
                       why=f"{len(dice)} dice rolled, {old} believed")
            self.done = True
            self.orig_dice = det.dice
            self.game_counts = [dict() for _ in dice]
        elif len(dice) != len(self.game_counts):
            det.detect(1.0, "the number of dice changed again")

    def _new_face(self, die: int, value: int) -> None:
        det = self.det
        det.change(f"die:{die}", "faces", None, list(det.dice[die].faces),
                   why=f"die {die} showed {value}")
        if not self.done:
            self.done = True
            self.orig_dice = det.dice
            self.hist = []
        self.die_faces = [f | {value} if i == die else f for i, f in enumerate(self.die_faces)]

    # --- the test ------------------------------------------------------------------------
    def test(self) -> None:
        """The chi-square test over each window (after a change: refine the estimate)."""
        hist = self.hist
        if not hist:
            return
        if self.done:
            self._refine()
            return
        det = self.det
        probs = self.die_probs
        nd = len(probs)
        identical = nd > 1 and all(p == probs[0] for p in probs)
        tests = len(det.windows) * (nd + (1 if identical else 0))
        alpha_test = det.alpha / (max(det.horizon, 1) * max(tests, 1))
        if det.was_announced:
            alpha_test = max(alpha_test, 1e-3)
        groups = [[i] for i in range(nd)] + ([list(range(nd))] if identical else [])
        for w in det.windows:
            if w > len(hist):
                break
            agg = _sum_games(hist[-w:], nd)
            for dice in groups:
                counts: dict[int, int] = {}
                for i in dice:
                    for v, c in agg[i].items():
                        counts[v] = counts.get(v, 0) + c
                p = probs[dice[0]]
                n = sum(counts.values())
                if n * min(p.values()) < det.min_expected:
                    continue
                stat, df, _ = B.chi_square(counts, p)
                pv = p_value(stat, df)
                if pv < alpha_test and self._rejected(hist[-w:], dice, stat, w, pv, tests):
                    return

    def _rejected(self, window: list, dice: list[int], stat: float, w: int, pv: float,
                  tests: int) -> bool:
        """A rejection is evidence only when the estimate it leads to differs from the
        believed dice; otherwise the report would say "detected" with nothing changed
        (issue 14), so the test goes on (False)."""
        det = self.det
        _, changes = self._estimate(window, det.dice)
        if not changes:
            return False
        self.hist = window
        self.done = True
        self.orig_dice = det.dice
        conf = 1.0 - min(1.0, pv * det.horizon * tests)
        det.detect(conf, f"dice {dice}: chi-square {stat:.1f} over {w} games, p={pv:.2e}")
        self._refine(confidence=conf)
        return True

    def _refine(self, confidence: float = 1.0) -> None:
        """Adopt the MAP dice from the data since the change, and report them."""
        det = self.det
        for key in [k for k in det.changes if k[0].startswith("die:")
                    and k[1] in ("faces", "weights", "exists")]:
            del det.changes[key]
        orig = self.orig_dice or det.dice
        new_dice, changes = self._estimate(self.hist, orig)
        for entity, attribute, new, old, why in changes:
            det.change(entity, attribute, new, old,
                       confidence=confidence if attribute == "weights" else 1.0, why=why)
        nd = len(new_dice)
        changed = len(det.dice) != nd
        if new_dice and (changed or dice_moved(det.dice, tuple(new_dice))):
            det.dice = tuple(new_dice)
            det.rebuild()

    def _estimate(self, hist: list[list[dict[int, int]]], orig: tuple[Die, ...]
                  ) -> tuple[list[Die], list[DieChange]]:
        """The MAP dice from per-game face counts `hist`, and the changes from `orig`
        they amount to - empty when the estimate is the believed dice (then a test's
        rejection carries no evidence)."""
        nd = max((len(g) for g in hist), default=0)
        new_dice: list[Die] = []
        changes: list[DieChange] = []
        for i in range(nd):
            counts: dict[int, int] = {}
            for game in hist:
                if i < len(game):
                    for v, c in game[i].items():
                        counts[v] = counts.get(v, 0) + c
            die = self._estimate_die(i, counts, orig[i] if i < len(orig) else None, changes)
            if die is not None:
                new_dice.append(die)
        for i in range(nd, len(orig)):
            changes.append((f"die:{i}", "exists", None, orig[i].model_dump(mode="json"),
                            f"die {i} is gone"))
        return new_dice, changes

    def _estimate_die(self, i: int, counts: dict[int, int], old: Die | None,
                      changes: list[DieChange]) -> Die | None:
        """Die `i` from its face counts: faces (new ones, and believed ones gone),
        weights when the counts reject even faces; its changes from `old` added."""
        n = sum(counts.values())
        old_faces = list(old.faces) if old is not None else None
        seen = sorted(counts)
        if old is not None:
            # A believed face never shown is gone only when it should have come up
            # often by now.
            p_old = old.probabilities()
            seen = sorted(set(seen) | {v for v, p in p_old.items() if n * p < 20})
        if old is not None and set(seen) == set(old.faces):
            faces = old_faces
        else:
            faces = B.face_layout(seen, len(old.faces) if old is not None else 6)
        if not faces:
            return None
        probs = {v: faces.count(v) / len(faces) for v in set(faces)}
        stat, df, _ = B.chi_square(counts, probs)
        weights = None
        if n and p_value(stat, df) <= 1e-3:
            weights = B.sparse_weights(counts, tuple(faces))
            if len(set(weights)) <= 1:
                weights = None  # no face stands out: no estimated bias to report
        entity = f"die:{i}"
        if old is None:
            changes.append((entity, "exists", {"faces": faces, "weights": weights}, None,
                            f"die {i} appeared"))
        else:
            if faces != old_faces:
                changes.append((entity, "faces", faces, old_faces, f"die {i} faces"))
            old_w = list(old.weights) if old.weights is not None else None
            if weights != old_w and (weights is not None or faces == old_faces):
                changes.append((entity, "weights", weights, old_w, f"die {i} weights"))
        if weights is None:
            return Die(faces=tuple(faces))
        prior = {v: faces.count(v) / len(faces) for v in set(faces)}
        post = B.map_weights(counts, prior, self.det.prior_strength)
        w = tuple(post.get(f, 0.0) / faces.count(f) for f in faces)
        return Die(faces=tuple(faces), weights=w if sum(w) > 0 else None)


def _sum_games(games: list[list[dict[int, int]]], nd: int) -> list[dict[int, int]]:
    """Face counts per die summed over `games`."""
    agg: list[dict[int, int]] = [dict() for _ in range(nd)]
    for game in games:
        for i in range(min(nd, len(game))):
            a = agg[i]
            for v, c in game[i].items():
                a[v] = a.get(v, 0) + c
    return agg
