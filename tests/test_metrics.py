"""The SAIL-ON measures on hand-made records with hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.base import NoveltyChange, NoveltyReport
from evaluation.measures import metrics as m


def recs(wins: str, detected: str | None = None, injected_at: int | None = None,
         seeds: list[int] | None = None, changes: list | None = None) -> list[dict]:
    """Records from strings of 0/1 (spaces ignored): one char per game."""
    wins = wins.replace(" ", "")
    detected = (detected or "0" * len(wins)).replace(" ", "")
    assert len(detected) == len(wins)
    out = []
    for g, (w, d) in enumerate(zip(wins, detected)):
        out.append({
            "game": g,
            "seed": (seeds[g] if seeds else 1000 + g),
            "won": w == "1",
            "novelty_active": injected_at is not None and g >= injected_at,
            "report": {"detected": d == "1", "confidence": float(d == "1"), "changes": []},
        })
    if changes is not None:
        out[-1]["report"]["changes"] = changes
    return out


def ch(entity, attribute, new=None, old=None, visible=True):
    return {"entity": entity, "attribute": attribute, "new_value": new, "old_value": old,
            "visible": visible}


# ------------------------------------------------------------------ win rates

def test_pnwp_and_post_win_rate_hand_values():
    r = recs("1101 001000", injected_at=4)
    assert m.pnwp(r, 4) == pytest.approx(3 / 4)
    assert m.post_win_rate(r, 4) == pytest.approx(1 / 6)
    s = m.summarize_trial(r, 4)
    assert (s["pre_games"], s["post_games"], s["pre_wins"], s["post_wins"]) == (4, 6, 3, 1)


def test_novelty_at_first_game_has_no_pre_games():
    r = recs("0110", injected_at=0)
    s = m.summarize_trial(r, 0)
    assert s["pnwp"] is None and s["pre_games"] == 0
    assert s["post_win_rate"] == pytest.approx(0.5) and s["post_games"] == 4


def test_novelty_at_last_game_has_one_post_game():
    r = recs("0110 1", injected_at=4)
    s = m.summarize_trial(r, 4)
    assert s["pnwp"] == pytest.approx(0.5)
    assert s["post_games"] == 1 and s["post_win_rate"] == 1.0


def test_injection_after_the_recorded_games_gives_no_post_games():
    s = m.summarize_trial(recs("0110"), 10)
    assert s["post_games"] == 0 and s["post_win_rate"] is None and s["nda"] == 0


def test_all_wins_and_no_wins():
    assert m.summarize_trial(recs("1111", injected_at=2), 2)["pnwp"] == 1.0
    s = m.summarize_trial(recs("0000", injected_at=2), 2)
    assert s["pnwp"] == 0.0 and s["post_win_rate"] == 0.0


# ------------------------------------------------------------------ detection

def test_no_detection():
    r = recs("0000 0000", injected_at=4)
    s = m.summarize_trial(r, 4)
    assert s["first_detection"] is None
    assert (s["nda"], s["false_positive_rate"], s["detection_delay"]) == (0, 0, None)


def test_detection_before_injection_is_a_false_positive_not_a_detection():
    r = recs("0000 0000", "0010 0111", injected_at=4)
    s = m.summarize_trial(r, 4)
    assert s["first_detection"] == 2
    assert (s["nda"], s["false_positive_rate"], s["detection_delay"]) == (0, 1, None)


def test_detection_in_the_injection_game_has_delay_zero():
    s = m.summarize_trial(recs("0000 0000", "0000 1111", injected_at=4), 4)
    got = (s["first_detection"], s["nda"], s["false_positive_rate"], s["detection_delay"])
    assert got == (4, 1, 0, 0)


def test_detection_delay_counts_from_injection_to_first_report_even_if_retracted():
    s = m.summarize_trial(recs("0000 000000", "0000 001011", injected_at=4), 4)
    assert (s["first_detection"], s["nda"], s["detection_delay"]) == (6, 1, 2)


def test_detection_at_first_game_novelty():
    s = m.summarize_trial(recs("0000", "0100", injected_at=0), 0)
    assert (s["nda"], s["false_positive_rate"], s["detection_delay"]) == (1, 0, 1)


def test_missing_report_is_no_detection():
    r = recs("00 00", injected_at=2)
    r[1]["report"] = None
    del r[3]["report"]
    assert m.first_detection(r) is None


def test_control_trial():
    quiet = m.summarize_trial(recs("0101"), None)
    assert quiet["control"] and quiet["nda"] is None and quiet["false_positive_rate"] == 0
    assert quiet["pnwp"] == 0.5 and quiet["post_win_rate"] is None and quiet["pre_games"] == 4
    assert quiet["detection_delay"] is None
    noisy = m.summarize_trial(recs("0101", "0001"), None)
    assert noisy["false_positive_rate"] == 1 and noisy["nda"] is None
    assert noisy["first_detection"] == 3


# ------------------------------------------------------------------------ NRP

def test_nrp_hand_value_with_reference_played_under_the_same_injection():
    agent = recs("1101 001000", injected_at=4)   # post 1/6
    ref = recs("1001 111111", injected_at=4)     # pre 2/4 (post wins must be ignored)
    assert m.nrp(agent, 4, ref) == pytest.approx((1 / 6) / (2 / 4))
    assert m.summarize_trial(agent, 4, reference_records=ref)["nrp"] == pytest.approx(1 / 3)


def test_nrp_reference_without_novelty_uses_all_its_games():
    agent = recs("1101 001000", injected_at=4)
    ref = recs("1000 010000")                    # novelty_active false everywhere: 2/10
    assert m.nrp(agent, 4, ref) == pytest.approx((1 / 6) / (2 / 10))


def test_nrp_reference_without_novelty_flag_falls_back_to_injection_index():
    agent = recs("1101 001000", injected_at=4)
    ref = recs("1001 111111", injected_at=4)
    for r in ref:
        del r["novelty_active"]
    assert m.nrp(agent, 4, ref) == pytest.approx(1 / 3)


def test_nrp_is_none_when_reference_has_no_pre_novelty_wins():
    agent = recs("1101 001000", injected_at=4)
    ref = recs("0000 111111", injected_at=4)
    assert m.nrp(agent, 4, ref) is None
    assert m.summarize_trial(agent, 4, reference_records=ref)["nrp"] is None


def test_nrp_is_none_without_pre_games_or_post_games():
    agent = recs("1111", injected_at=0)
    assert m.nrp(agent, 0, recs("1111", injected_at=0)) is None     # reference has no pre games
    assert m.nrp(recs("1111"), None, recs("1111")) is None            # control: no post games
    assert m.summarize_trial(agent, 0)["nrp"] is None                 # no reference given


def test_nrp_zero_when_agent_never_wins_after_novelty():
    assert m.nrp(recs("11 00", injected_at=2), 2, recs("10 00", injected_at=2)) == 0.0


def test_nrp_rejects_reference_on_other_seeds():
    agent = recs("1101", injected_at=2)
    ref = recs("1101", injected_at=2, seeds=[1000, 1001, 7, 1003])
    with pytest.raises(ValueError, match="seed"):
        m.nrp(agent, 2, ref)


# ------------------------------------------------------------- characterization

TRUTH = [ch("Boardwalk", "rent", 100, 50), ch("Go", "salary", 100, 200, visible=False)]


def test_characterization_hand_values():
    reported = [ch("Boardwalk", "rent", 105), ch("Jail", "fine", 100)]
    assert m.characterization_scores(TRUTH, reported) == (0.5, 0.5)


def test_characterization_value_tolerance_is_relative_ten_percent():
    assert m.change_matches(ch("Boardwalk", "rent", 110), TRUTH[0])
    assert not m.change_matches(ch("Boardwalk", "rent", 111), TRUTH[0])
    assert not m.change_matches(ch("Boardwalk", "rent", "high"), TRUTH[0])
    assert m.change_matches(ch("Boardwalk", "rent", 111), TRUTH[0], rel_tol=0.2)
    zero = ch("Go", "salary", 0)
    assert m.change_matches(ch("Go", "salary", 0.0), zero)
    assert not m.change_matches(ch("Go", "salary", 1), zero)


def test_characterization_without_value_matches_on_entity_and_attribute():
    assert m.characterization_scores(TRUTH, [{"entity": "Go", "attribute": "salary"}]) == (0.5, 1.0)
    assert not m.change_matches(ch("Go", "rent"), TRUTH[1])
    assert not m.change_matches(ch("Boardwalk", "salary"), TRUTH[1])


def test_characterization_structured_values():
    truth = ch("dice", "weights", [0.1, 0.2, 0.7])
    assert m.change_matches(ch("dice", "weights", (0.105, 0.2, 0.7)), truth)
    assert not m.change_matches(ch("dice", "weights", [0.1, 0.2]), truth)
    assert not m.change_matches(ch("dice", "weights", [0.1, 0.3, 0.7]), truth)
    flag = ch("rules", "free_parking_pot", True)
    assert m.change_matches(ch("rules", "free_parking_pot", True), flag)
    assert not m.change_matches(ch("rules", "free_parking_pot", 1), flag)
    group = ch("Boardwalk", "group", "green")
    assert m.change_matches(ch("Boardwalk", "group", "green"), group)
    assert not m.change_matches(ch("Boardwalk", "group", "blue"), group)
    table = ch("rules", "table", {"a": 1, "b": 2})
    assert m.change_matches(ch("rules", "table", {"a": 1, "b": 2.1}), table)
    assert not m.change_matches(ch("rules", "table", {"a": 1}), table)


def test_characterization_duplicates_count_once():
    reported = [ch("Boardwalk", "rent", 100), ch("Boardwalk", "rent", 100)]
    assert m.characterization_scores(TRUTH, reported) == (0.5, 0.5)


def test_characterization_is_a_maximum_one_to_one_matching():
    truth = [ch("A", "x", 10), ch("A", "x", 20)]
    # the first report fits both truths, the second only the first; a greedy pass that
    # paired report 1 with truth 1 would match only one
    reported = [ch("A", "x"), ch("A", "x", 10)]
    assert m.characterization_scores(truth, reported) == (1.0, 1.0)


def test_characterization_visible_only():
    reported = [ch("Boardwalk", "rent", 100)]
    assert m.characterization_scores(TRUTH, reported) == (0.5, 1.0)
    assert m.characterization_scores(TRUTH, reported, visible_only=True) == (1.0, 1.0)


def test_characterization_none_when_nothing_reported_or_no_truth():
    assert m.characterization_scores(TRUTH, []) == (None, None)
    assert m.characterization_scores(TRUTH, None) == (None, None)
    assert m.characterization_scores(None, [ch("Go", "salary")]) == (None, 0.0)


def test_characterization_accepts_report_and_change_objects():
    report = NoveltyReport(True, 0.9, (NoveltyChange("Boardwalk", "rent", 100, 50),))
    r = recs("00 00", "00 01", injected_at=2)
    r[-1]["report"] = report.to_json()
    s = m.summarize_trial(r, 2, ground_truth=TRUTH)
    assert (s["characterization_accuracy"], s["characterization_precision"]) == (0.5, 1.0)
    assert m.characterization_scores(TRUTH, list(report.changes)) == (0.5, 1.0)


def test_summarize_uses_the_report_after_the_last_game():
    r = recs("00 00", "00 11", injected_at=2)
    r[2]["report"]["changes"] = [ch("Jail", "fine", 100)]           # earlier, wrong
    r[3]["report"]["changes"] = [ch("Boardwalk", "rent", 100), ch("Go", "salary", 100)]
    s = m.summarize_trial(r, 2, ground_truth=TRUTH)
    assert (s["characterization_accuracy"], s["characterization_precision"]) == (1.0, 1.0)


# ------------------------------------------------------------------- summary

def test_summary_has_the_promised_keys():
    s = m.summarize_trial(recs("0101"), None)
    for key in ("pnwp", "post_win_rate", "nda", "false_positive_rate", "detection_delay", "nrp",
                "characterization_accuracy", "games", "pre_games", "post_games", "first_detection"):
        assert key in s
    assert s["games"] == 4


def test_empty_trial():
    s = m.summarize_trial([], 3)
    assert s["games"] == 0 and s["pnwp"] is None and s["post_win_rate"] is None
    assert s["nda"] == 0 and s["first_detection"] is None and s["characterization_accuracy"] is None


def test_bad_records_are_rejected():
    r = recs("0101", injected_at=2)
    with pytest.raises(ValueError, match="order"):
        m.summarize_trial([r[1], r[0]], 2)
    with pytest.raises(ValueError, match="novelty_active"):
        m.summarize_trial(r, 3)
    with pytest.raises(ValueError, match="novelty_active"):
        m.summarize_trial(r, None)
    with pytest.raises(ValueError, match="injected_at"):
        m.summarize_trial(recs("01"), -1)


# ------------------------------------------------------------------ intervals

def test_wilson_hand_value():
    lo, hi = m.wilson_interval(8, 10)
    assert lo == pytest.approx(0.4901, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)


@settings(deadline=None)  # the first call imports scipy.stats
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_is_scipys(kn):
    """The project's one Wilson interval is scipy's (in closed form: no scipy.stats import)."""
    from scipy.stats import binomtest

    k, n = kn
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert m.wilson_interval(k, n) == pytest.approx((ci.low, ci.high), abs=1e-9)


def test_wilson_at_zero_and_n():
    # at k = 0 the upper end is (z^2/n) / (1 + z^2/n) = 0.384146 / 1.384146 = 0.277533;
    # at k = n the lower end is n / (n + z^2) = 10 / 13.841459 = 0.722467 (z = 1.959964)
    assert m.wilson_interval(0, 10) == pytest.approx((0.0, 0.277533), abs=1e-6)
    assert m.wilson_interval(10, 10) == pytest.approx((0.722467, 1.0), abs=1e-6)
    assert m.wilson_interval(0, 10)[0] == 0.0 and m.wilson_interval(10, 10)[1] == 1.0


def test_wilson_degenerate_inputs():
    assert m.wilson_interval(0, 0) is None
    with pytest.raises(ValueError):
        m.wilson_interval(3, 2)
    with pytest.raises(ValueError):
        m.wilson_interval(-1, 2)


@given(st.integers(1, 500), st.data())
@settings(max_examples=200, deadline=None)
def test_wilson_contains_the_estimate_and_stays_in_unit_interval(n, data):
    k = data.draw(st.integers(0, n))
    lo, hi = m.wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    wider = m.wilson_interval(k, n, z=2.58)
    assert wider[0] <= lo + 1e-12 and wider[1] >= hi - 1e-12


def test_bootstrap_is_deterministic_and_sensible():
    vals = [0.2, 0.5, 0.9, 1.4, 0.7]
    a = m.bootstrap_ci(vals)
    assert a == m.bootstrap_ci(vals, seed=0)
    assert a != m.bootstrap_ci(vals, seed=1)
    assert min(vals) <= a[0] < np.mean(vals) < a[1] <= max(vals)
    lo, hi = m.bootstrap_ci(vals, stat=np.median)
    assert min(vals) <= lo <= np.median(vals) <= hi <= max(vals)


def test_bootstrap_edge_cases():
    assert m.bootstrap_ci([]) is None
    assert m.bootstrap_ci([0.75]) == (0.75, 0.75)
    assert m.bootstrap_ci([2.0, 2.0, 2.0]) == (2.0, 2.0)


# ------------------------------------------------------------------ aggregation

def test_aggregate_hand_values():
    trials = [
        m.summarize_trial(recs("1101 001000", "0000 011111", 4), 4, recs("1001 000000", None, 4)),
        m.summarize_trial(recs("1000 110000", "0000 000001", 4), 4, recs("1100 000000", None, 4)),
        m.summarize_trial(recs("0110 000000", "0100 000000", 4), 4, recs("0000 000000", None, 4)),
        m.summarize_trial(recs("1010 101010"), None),
    ]
    a = m.aggregate(trials)
    assert (a["trials"], a["novelty_trials"], a["control_trials"]) == (4, 3, 1)
    # NDA: trials 1 and 2 detected after injection (delays 1 and 5), trial 3 false positive
    assert a["nda"] == pytest.approx(2 / 3) and a["nda_n"] == 3
    assert (a["nda_lo"], a["nda_hi"]) == pytest.approx(m.wilson_interval(2, 3))
    assert a["false_positive_rate"] == pytest.approx(1 / 4) and a["false_positive_rate_n"] == 4
    # pooled PNWP: (3 + 1 + 2 + 5) / (4 + 4 + 4 + 10); post: (1 + 2 + 0) / 18
    assert a["pnwp"] == pytest.approx(11 / 22) and a["pnwp_n"] == 22
    assert (a["pnwp_lo"], a["pnwp_hi"]) == pytest.approx(m.wilson_interval(11, 22))
    assert a["post_win_rate"] == pytest.approx(3 / 18) and a["post_win_rate_n"] == 18
    # NRP pooled: post wins (1 + 2 + 0) / 18 over reference pre wins (2 + 2 + 0) / 12;
    # trial 3 (whose reference never won before the novelty) counts, it is not dropped
    assert a["nrp"] == pytest.approx((3 / 18) / (4 / 12)) and a["nrp_n"] == 3
    assert a["nrp_lo"] <= a["nrp"] <= a["nrp_hi"]
    # the per-trial ratios (1/6)/(2/4) and (2/6)/(2/4): their mean, and one undefined
    assert a["nrp_trial_mean"] == pytest.approx(0.5) and a["nrp_trial_mean_n"] == 2
    assert a["nrp_trial_undefined"] == 1
    assert (a["nrp_trial_mean_lo"], a["nrp_trial_mean_hi"]) == pytest.approx(
        m.bootstrap_ci([1 / 3, 2 / 3]))
    # NDA characterized: no trial's final report names a change
    assert a["nda_characterized"] == 0.0 and a["nda_characterized_n"] == 3
    assert a["detection_delay"] == pytest.approx(3.0) and a["detection_delay_n"] == 2
    assert (a["detection_delay_lo"], a["detection_delay_hi"]) == pytest.approx((1.0, 5.0))
    assert a["characterization_accuracy"] is None and a["characterization_accuracy_n"] == 0


def test_pooled_nrp_edge_cases():
    """No reference wins anywhere: undefined (not infinite, not dropped); no post games:
    undefined; a trial with no reference wins still counts in the pool."""
    zero = m.summarize_trial(recs("0000 1111", None, 4), 4, recs("0000 0000", None, 4))
    assert zero["nrp"] is None and zero["ref_pre_wins"] == 0
    a = m.aggregate([zero])
    assert a["nrp"] is None and a["nrp_n"] == 1 and a["nrp_trial_undefined"] == 1
    none_post = m.summarize_trial(recs("1111", None, 9), 9, recs("1111", None, 9))
    assert m.aggregate([none_post])["nrp"] is None
    good = m.summarize_trial(recs("1010 1000", None, 4), 4, recs("1100 0000", None, 4))
    both = m.aggregate([zero, good])
    # post (4 + 1) / 8 over reference pre (0 + 2) / 8
    assert both["nrp"] == pytest.approx((5 / 8) / (2 / 8))
    assert both["nrp_trial_mean"] == pytest.approx((1 / 4) / (2 / 4))
    assert both["nrp_trial_undefined"] == 1
    # a control trial has no NRP even with a reference
    control = m.summarize_trial(recs("1111"), None, recs("1111"))
    assert m.aggregate([control])["nrp"] is None and m.aggregate([control])["nrp_n"] == 0


def test_pooled_nrp_is_unbiased_where_the_trial_mean_is_not():
    """Simulated trials with a true ratio of 1 (both win 25%): the pooled estimate sits
    near 1 while the mean of per-trial ratios over ~12 reference games does not."""
    rng = np.random.default_rng(0)
    trials = []
    for _ in range(400):
        mine = "".join("1" if x else "0" for x in rng.random(100) < 0.25)
        ref = "".join("1" if x else "0" for x in rng.random(12) < 0.25)
        trials.append({"post_wins": mine.count("1"), "post_games": 100,
                       "ref_pre_wins": ref.count("1"), "ref_pre_games": 12,
                       "nrp": (mine.count("1") / 100) / (ref.count("1") / 12)
                       if ref.count("1") else None})
    assert m.pooled_nrp(trials) == pytest.approx(1.0, abs=0.05)
    defined = [t["nrp"] for t in trials if t["nrp"] is not None]
    assert np.mean(defined) > 1.15  # the bias the pooled form removes


def test_nda_characterized():
    truth = [ch("square:Boardwalk", "rent", 100)]
    named = recs("00 00", "00 01", 2, changes=[ch("square:Boardwalk", "rent", 999)])
    vague = recs("00 00", "00 01", 2, changes=[ch("bank", "go_salary")])
    early = recs("00 00", "01 11", 2, changes=[ch("square:Boardwalk", "rent")])
    assert m.summarize_trial(named, 2, ground_truth=truth)["nda_characterized"] == 1
    assert m.summarize_trial(vague, 2, ground_truth=truth)["nda_characterized"] == 0
    assert m.summarize_trial(early, 2, ground_truth=truth)["nda_characterized"] == 0
    assert m.summarize_trial(recs("0000"), None, ground_truth=truth)["nda_characterized"] is None


def test_aggregate_characterization_mean():
    r1 = recs("00 00", "00 01", 2, changes=[ch("Boardwalk", "rent", 100)])
    r2 = recs("00 00", "00 01", 2, changes=[ch("Boardwalk", "rent", 100), ch("Go", "salary", 100)])
    r3 = recs("00 00", "00 00", 2)
    a = m.aggregate([m.summarize_trial(r, 2, ground_truth=TRUTH) for r in (r1, r2, r3)])
    assert a["characterization_accuracy"] == pytest.approx(0.75)
    assert a["characterization_accuracy_n"] == 2
    assert a["characterization_precision"] == pytest.approx(1.0)


def test_aggregate_all_and_no_wins():
    wins = m.aggregate([m.summarize_trial(recs("1111"), None)])
    # 4/4: lower end n / (n + z^2) = 4 / 7.8416 = 0.5101
    assert (wins["pnwp"], wins["pnwp_hi"]) == (1.0, 1.0)
    assert wins["pnwp_lo"] == pytest.approx(0.5101, abs=1e-4)
    none = m.aggregate([m.summarize_trial(recs("0000", injected_at=2), 2)])
    assert (none["pnwp"], none["pnwp_lo"]) == (0.0, 0.0) and none["post_win_rate_hi"] < 1.0


def test_aggregate_empty():
    a = m.aggregate([])
    assert a["trials"] == 0
    for key in ("nda", "false_positive_rate", "pnwp", "post_win_rate", "nrp", "detection_delay",
                "characterization_accuracy"):
        assert a[key] is None
    assert a["nda_lo"] is None and a["nrp_hi"] is None and a["nda_n"] == 0


# ------------------------------------------------------------------ properties

trial = st.integers(0, 30).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.one_of(st.none(), st.integers(0, n + 2)),
))


@given(trial)
@settings(max_examples=300, deadline=None)
def test_properties_of_one_trial(t):
    wins, det, inj = t
    r = recs("".join("01"[w] for w in wins), "".join("01"[d] for d in det), inj)
    s = m.summarize_trial(r, inj)
    assert s["pre_games"] + s["post_games"] == len(wins)
    pre_cut = len(wins) if inj is None else min(inj, len(wins))
    assert s["pre_wins"] == sum(wins[:pre_cut]) and s["post_wins"] == sum(wins[pre_cut:])
    if s["pnwp"] is not None:
        assert math.isclose(s["pnwp"] * s["pre_games"], s["pre_wins"])
    first = det.index(True) if any(det) else None
    assert s["first_detection"] == first
    if inj is None:
        assert s["nda"] is None and s["false_positive_rate"] == int(first is not None)
    else:
        assert s["nda"] + s["false_positive_rate"] <= 1
        assert s["nda"] == int(first is not None and first >= inj)
        assert (s["detection_delay"] is not None) == (s["nda"] == 1)
        if s["detection_delay"] is not None:
            assert s["detection_delay"] == first - inj >= 0


def test_ground_truth_in_the_plugins_vocabulary_is_matched_by_value() -> None:
    """Plugins' ground truth names the new value `new`; agents report `new_value`."""
    from evaluation.measures.characterization import change_matches

    truth = {"entity": "bank", "attribute": "go_salary", "old": 200, "new": 100, "visible": True}
    assert change_matches({"entity": "bank", "attribute": "go_salary", "new_value": 100}, truth)
    assert not change_matches({"entity": "bank", "attribute": "go_salary", "new_value": 300},
                              truth)


def test_one_hand_made_set_with_every_edge_case():
    """Issue 14's acceptance set: NRP, NDA and FP over trials that hold each edge case at
    once - a reference that won nothing before the novelty (A), a trial with no
    post-novelty games (B), a report before the injection (C) - and a control (D),
    against values worked out by hand."""
    a = m.summarize_trial(recs("10 11", "00 01", 2), 2, recs("00 00", None, 2))
    b = m.summarize_trial(recs("1100", None, 4), 4, recs("1010", None, 4))
    c = m.summarize_trial(recs("01 00", "01 11", 2), 2, recs("11 00", None, 2))
    d = m.summarize_trial(recs("0110"), None)
    # per trial
    assert (a["nda"], a["false_positive_rate"], a["detection_delay"], a["nrp"]) == (1, 0, 1, None)
    assert (b["nda"], b["false_positive_rate"], b["post_games"], b["nrp"]) == (0, 0, 0, None)
    assert (c["nda"], c["false_positive_rate"], c["detection_delay"]) == (0, 1, None)
    assert c["nrp"] == 0.0  # no post wins over reference 2/2
    assert (d["nda"], d["false_positive_rate"]) == (None, 0)
    agg = m.aggregate([a, b, c, d])
    # NDA over the novelty trials A, B, C: only A
    assert (agg["nda"], agg["nda_n"]) == (pytest.approx(1 / 3), 3)
    # FP over all four trials: only C
    assert (agg["false_positive_rate"], agg["false_positive_rate_n"]) == (0.25, 4)
    # pooled NRP: post wins (2 + 0 + 0) / (2 + 0 + 2) over reference pre-novelty wins
    # (0 + 2 + 2) / (2 + 4 + 2) = (1/2) / (1/2); no trial dropped, two per-trial undefined
    assert agg["nrp"] == pytest.approx(1.0) and agg["nrp_n"] == 3
    assert agg["nrp_trial_undefined"] == 2 and agg["nrp_trial_mean"] == 0.0
    assert agg["detection_delay"] == 1.0 and agg["detection_delay_n"] == 1
