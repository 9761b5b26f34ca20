"""The split detector (issue 30): golden detections per kind of evidence, and the
checker registry. The goldens were recorded under the detector before the split (commit
557dbe2) and are those of the split one; `tests/detector_trace.py` replays whole trials
step by step (see docs/architecture.md, "The planner's detector")."""

from __future__ import annotations

import inspect

import pytest

from agents.planner.detect import NoveltyDetector
from agents.planner.detection import CHECKERS
from agents.planner.detection.checker import OTHER, Checker
from agents.planner.detection.core import KNOWN_EVENTS, HOOKS
from detector_trace import record_trial, replay

# (novelty, difficulty, observability, believed-schema version, reported (entity,
# attribute) in order) after two games of the planner against three `baseline`, the
# novelty from the first game, trial seed 7. The checkers they cover: rents and charge
# factors (rent_hike, no_rent_in_jail), taxes (tax_amounts), prices (property_prices),
# bank rules (jail_fine, mortgage_interest, starting_cash), movement (go_salary), cards
# (card_amounts, deck_composition), dice (extra_die, dice_weights), refusals (bank_loan,
# mortgage_interest), unknown payments (jail_visit_fee, bank_loan), game endings
# (monopoly_victory), observation (hidden_opponent_cash).
GOLDEN = [
    ('rent_hike', 'medium', 'effects', 1, (
        ('square:Pennsylvania Railroad', 'rent'),
        ('square:Pennsylvania Railroad', 'rent (charged)'),
        ('square:St. Charles Place', 'rent'),
        ('square:St. Charles Place', 'rent (charged)'),
        ('square:St. James Place', 'rent'),
        ('square:St. James Place', 'rent (charged)'),
        ('square:Short Line', 'rent'),
        ('square:Short Line', 'rent (charged)'),
        ('square:Water Works', 'rent'),
        ('square:Water Works', 'rent (charged)'),
        ('square:Vermont Avenue', 'rent'),
        ('square:Vermont Avenue', 'rent (charged)'),
        ('square:Illinois Avenue', 'rent'),
        ('square:Illinois Avenue', 'rent (charged)'),
        ('square:Electric Company', 'rent'),
        ('square:Electric Company', 'rent (charged)'),
        ('square:Tennessee Avenue', 'rent'),
        ('square:Tennessee Avenue', 'rent (charged)'),
        ('square:Atlantic Avenue', 'rent'),
        ('square:Atlantic Avenue', 'rent (charged)'),
        ('square:Baltic Avenue', 'rent'),
        ('square:Baltic Avenue', 'rent (charged)'),
        ('square:Ventnor Avenue', 'rent'),
        ('square:Ventnor Avenue', 'rent (charged)'),
        ('square:Indiana Avenue', 'rent'),
        ('square:Indiana Avenue', 'rent (charged)'),
        ('square:Pacific Avenue', 'rent'),
        ('square:Pacific Avenue', 'rent (charged)'),
        ('square:Pennsylvania Avenue', 'rent'),
        ('square:Pennsylvania Avenue', 'rent (charged)'),
        ('square:Mediterranean Avenue', 'rent'),
        ('square:Mediterranean Avenue', 'rent (charged)'),
        ('square:Reading Railroad', 'rent'),
        ('square:Reading Railroad', 'rent (charged)'),
        ('square:Oriental Avenue', 'rent'),
        ('square:Oriental Avenue', 'rent (charged)'),
        ('square:Connecticut Avenue', 'rent'),
        ('square:Connecticut Avenue', 'rent (charged)'),
        ('square:States Avenue', 'rent'),
        ('square:States Avenue', 'rent (charged)'),
        ('square:Virginia Avenue', 'rent'),
        ('square:Virginia Avenue', 'rent (charged)'),
        ('square:New York Avenue', 'rent'),
        ('square:New York Avenue', 'rent (charged)'),
        ('square:Kentucky Avenue', 'rent'),
        ('square:Kentucky Avenue', 'rent (charged)'),
        ('square:B. & O. Railroad', 'rent'),
        ('square:B. & O. Railroad', 'rent (charged)'),
        ('square:Marvin Gardens', 'rent'),
        ('square:Marvin Gardens', 'rent (charged)'),
        ('square:North Carolina Avenue', 'rent'),
        ('square:North Carolina Avenue', 'rent (charged)'),
        ('square:Park Place', 'rent'),
        ('square:Park Place', 'rent (charged)'),
        ('square:Boardwalk', 'rent'),
        ('square:Boardwalk', 'rent (charged)'),
        ('rule:rent', 'owner in jail'),
    )),
    ('tax_amounts', 'hard', 'effects', 1, (
        ('square:Income Tax', 'tax'),
        ('square:Income Tax', 'tax (charged)'),
        ('square:Luxury Tax', 'tax'),
        ('square:Luxury Tax', 'tax (charged)'),
    )),
    ('no_rent_in_jail', 'hard', 'announced', 0, (
        ('rule:rent', 'owner in jail'),
    )),
    ('property_prices', 'hard', 'effects', 1, (
        ('square:Pennsylvania Railroad', 'price'),
        ('square:Vermont Avenue', 'price'),
        ('square:Connecticut Avenue', 'price'),
        ('square:St. James Place', 'price'),
        ('square:Indiana Avenue', 'price'),
        ('square:St. Charles Place', 'price'),
        ('square:Atlantic Avenue', 'price'),
        ('square:Water Works', 'price'),
        ('square:Kentucky Avenue', 'price'),
        ('square:Short Line', 'price'),
        ('square:Illinois Avenue', 'price'),
        ('square:Mediterranean Avenue', 'price'),
        ('square:Baltic Avenue', 'price'),
        ('square:Marvin Gardens', 'price'),
        ('square:Electric Company', 'price'),
        ('square:North Carolina Avenue', 'price'),
        ('square:Mediterranean Avenue', 'mortgage'),
        ('square:Baltic Avenue', 'mortgage'),
        ('square:Vermont Avenue', 'mortgage'),
        ('square:Connecticut Avenue', 'mortgage'),
        ('square:St. James Place', 'mortgage'),
        ('square:Short Line', 'mortgage'),
        ('square:Tennessee Avenue', 'price'),
        ('square:Boardwalk', 'price'),
        ('square:Reading Railroad', 'price'),
        ('square:Virginia Avenue', 'price'),
        ('square:Electric Company', 'mortgage'),
        ('square:Water Works', 'mortgage'),
        ('square:Tennessee Avenue', 'mortgage'),
        ('square:Oriental Avenue', 'price'),
        ('square:Ventnor Avenue', 'price'),
        ('square:Pacific Avenue', 'price'),
        ('square:Park Place', 'price'),
        ('square:New York Avenue', 'price'),
        ('square:St. Charles Place', 'mortgage'),
        ('square:Pennsylvania Railroad', 'mortgage'),
        ('square:Reading Railroad', 'mortgage'),
        ('square:B. & O. Railroad', 'price'),
        ('square:Illinois Avenue', 'mortgage'),
    )),
    ('jail_fine', 'hard', 'effects', 1, (
        ('bank', 'jail_fine'),
    )),
    ('card_amounts', 'hard', 'announced', 11, (
        ('card:chance:Bank pays you dividend of $50', 'amount'),
        ('card:community_chest:Life insurance matures. Collect $100', 'amount'),
        ('card:chance:Make general repairs on all your property: for each house pay $25, for each hotel $100', 'per_house'),
        ('card:community_chest:You have won second prize in a beauty contest. Collect $10', 'amount'),
        ('card:community_chest:Holiday Fund matures. Receive $100', 'amount'),
        ('card:community_chest:Receive $25 consultancy fee', 'amount'),
        ('card:community_chest:Income tax refund. Collect $20', 'amount'),
        ('card:community_chest:From sale of stock you get $50', 'amount'),
        ('card:community_chest:Pay school fees of $150', 'amount'),
        ('card:chance:Your building and loan matures. Collect $150', 'amount'),
        ("card:community_chest:Doctor's fees. Pay $50", 'amount'),
        ('card:chance:Pay poor tax of $15', 'amount'),
        ('card:chance:Make general repairs on all your property: for each house pay $25, for each hotel $100', 'per_hotel'),
        ('card:chance:You have been elected Chairman of the Board. Pay each player $50', 'amount'),
        ('card:community_chest:Bank error in your favor. Collect $200', 'amount'),
        ('card:community_chest:Grand Opera Night. Collect $50 from every player for opening night seats', 'amount'),
        ('card:community_chest:Pay hospital fees of $100', 'amount'),
        ('card:community_chest:You are assessed for street repairs: $40 per house, $115 per hotel', 'per_house'),
        ('card:community_chest:You are assessed for street repairs: $40 per house, $115 per hotel', 'per_hotel'),
        ('card:community_chest:You inherit $100', 'amount'),
    )),
    ('extra_die', 'easy', 'announced', 1, (
        ('dice', 'count'),
        ('die:2', 'exists'),
    )),
    ('go_salary', 'easy', 'effects', 0, (
        ('bank', 'go_salary'),
    )),
    ('bank_loan', 'easy', 'announced', 1, (
        ('square:Go', 'params'),
        ('action:borrow', 'exists'),
    )),
    ('jail_visit_fee', 'hard', 'announced', 0, (
        ('square:Jail', 'visit fee'),
        ('square:Jail', 'params'),
    )),
    ('monopoly_victory', 'easy', 'announced', 0, (
        ('rule:game_over', 'monopoly victory'),
    )),
    ('hidden_opponent_cash', 'hard', 'announced', 0, (
        ('observation:cash', "opponents' cash shown"),
    )),
    ('starting_cash', 'easy', 'effects', 0, (
        ('bank', 'starting_cash'),
    )),
    ('mortgage_interest', 'hard', 'effects', 1, (
        ('action:unmortgage', 'refused'),
        ('action:offer_trade', 'refused'),
        ('bank', 'mortgage_interest'),
    )),
    ('deck_composition', 'medium', 'announced', 0, (
        ('card:chance:Advance to Illinois Ave. If you pass Go, collect $200', 'count'),
        ('card:chance:Your building and loan matures. Collect $150', 'count'),
    )),
    ('dice_weights', 'easy', 'announced', 2, (
        ('die:0', 'weights'),
    )),
]


@pytest.mark.parametrize("name, difficulty, observability, version, changes", GOLDEN,
                         ids=[f"{g[0]}-{g[1]}-{g[2]}" for g in GOLDEN])
def test_golden_detections(name, difficulty, observability, version, changes):
    trace = record_trial(name, difficulty, observability, games=2, inject=0, seed=7)
    report = trace["report"]
    assert report.detected
    assert tuple((c.entity, c.attribute) for c in report.changes) == changes
    assert trace["version"] == version


def test_a_replayed_trace_gives_the_same_outputs_at_every_step():
    trace = record_trial("card_destinations", "easy", "effects", games=2, inject=1, seed=3)
    steps, diffs = replay(trace, NoveltyDetector)
    assert steps == len(trace["calls"]) > 100 and diffs == []


def test_each_checker_is_one_module_registered_once():
    """A checker is a `Checker` in its own module; its event handlers name event kinds
    and its hooks are those of the interface."""
    assert len(set(CHECKERS)) == len(CHECKERS)
    assert len({inspect.getmodule(c) for c in CHECKERS}) == len(CHECKERS)
    det = NoveltyDetector()
    assert [type(c) for c in det.checkers] == list(CHECKERS)
    for cls in CHECKERS:
        assert issubclass(cls, Checker)
        for attr in vars(cls):
            if attr.startswith("on_"):
                assert attr[3:] in KNOWN_EVENTS, (cls, attr)
                assert attr != "on_payment" or cls.reasons, cls
        assert set(HOOKS) >= {h for h in vars(Checker) if not h.startswith("_")
                               and callable(getattr(Checker, h))}
    # unknown payments: reported by one checker, fitted to holdings by another
    assert [cls.__name__ for cls in CHECKERS if OTHER in cls.reasons] == [
        "UnknownPaymentChecker", "HoldingCharges"]


def test_a_pickled_detector_goes_on_as_the_original():
    """A trial's snapshot pickles the agents (resuming): a detector restored mid-trial
    gives the outputs the recorded one gave at every later step."""
    import io
    import pickle

    from detector_trace import outputs
    from evaluation.harness.snapshot import _StatePickler

    trace = record_trial("rent_hike", "medium", "effects", games=2, inject=0, seed=5)
    det = NoveltyDetector(trace["prior"])
    calls = trace["calls"]
    half = len(calls) // 2
    for method, args in calls[:half]:
        getattr(det, method)(*args)
    buf = io.BytesIO()
    _StatePickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(det)  # as a snapshot does
    det = pickle.loads(buf.getvalue())
    expected = dict(trace["changes"])
    want = None
    for i, (method, args) in enumerate(calls):
        want = expected.get(i, want)
        if i >= half:
            getattr(det, method)(*args)
            assert outputs(det, None, {}) == want, i


def test_changed_decks_are_reported_in_the_same_order_whatever_the_hash_seed():
    """Decks whose cards were contradicted are examined in name order, not in a set's
    order (which changes with PYTHONHASHSEED, and reordered the report)."""
    import openmono
    from agents.planner.detection.cards import CardChecker

    class Unordered(set):  # a set that iterates as another hash seed might
        def __iter__(self):
            return iter(sorted(super().__iter__(), reverse=True))

    cards = NoveltyDetector(openmono.standard_schema()).checker(CardChecker)
    names = list(cards.deck_index)
    cards.deck_epoch = Unordered(names)
    for deck in names:
        cards.idx_maps[deck] = {0: "a card"}
    assert [deck for deck, _, _ in cards.compositions()] == sorted(names)
