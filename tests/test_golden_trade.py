"""Golden tests: trades of properties, cash and get-out-of-jail cards.

Seat 0 offers in its pre-roll and the receiver answers at once (the engine's documented
choice); seat 0 then throws (1, 2) from Go onto its own Baltic Avenue.
"""

from __future__ import annotations

from helpers import Scripted, make_game, of, payments, play

from openmono import events as E
from openmono.actions import ACCEPT, REJECT, OfferTrade
from openmono.events import BANK


def trade(offer, answer=ACCEPT, **kw):
    p0 = Scripted(("pre_roll", offer))
    p1 = Scripted(("trade_response", answer))
    owner = {"Baltic Avenue": 0}
    owner.update(kw.pop("owner", {}))
    g = make_game(rolls=[(1, 2)], owner=owner, **kw)
    play(g, {0: p0, 1: p1})
    return g, p1


def faults(g):
    return [(f.seat, f.phase, f.reason) for f in of(g, E.Fault)]


def test_accepted_trade_executes():
    """Rule: players may trade properties and cash on any terms they agree."""
    offer = OfferTrade(to=1, give=(6,), get=(1,), give_cash=100)
    g, p1 = trade(offer, owner={"Oriental Avenue": 0, "Mediterranean Avenue": 1})
    assert [(o.offer, o.offerer) for o in p1.seen if o.phase == "trade_response"] == [
        (offer.terms(), 0)]
    assert of(g, E.TradeAnswered) == [E.TradeAnswered(offer.terms(), 0, True)]
    assert payments(g) == [(0, 1, 100, "trade", -1)]
    assert [(t.square, t.from_seat, t.to_seat) for t in of(g, E.PropertyTransferred)] == [
        (6, 0, 1), (1, 1, 0)]
    assert (g.state.owner[1], g.state.owner[6]) == (0, 1)
    assert g.state.cash == [1400, 1600]


def test_rejected_trade_changes_nothing():
    offer = OfferTrade(to=1, give=(6,), get=(1,), give_cash=100)
    g, _ = trade(offer, REJECT, owner={"Oriental Avenue": 0, "Mediterranean Avenue": 1})
    assert of(g, E.TradeAnswered) == [E.TradeAnswered(offer.terms(), 0, False)]
    assert payments(g) == [] and of(g, E.PropertyTransferred) == []
    assert (g.state.owner[1], g.state.owner[6]) == (1, 0)


def test_cannot_trade_a_property_of_a_group_with_buildings():
    """Rule: buildings must be sold before any property of their group changes hands."""
    g, p1 = trade(OfferTrade(to=1, give=(3,), give_cash=0),
                  owner={"Mediterranean Avenue": 0}, level={"Mediterranean Avenue": 1})
    assert faults(g) == [(0, "pre_roll", "illegal offer_trade: properties of a group with "
                                         "buildings cannot be traded")]
    assert of(g, E.TradeOffered) == [] and "trade_response" not in p1.phases()
    assert g.state.owner[3] == 0
    # Asking for such a property is refused too.
    g, _ = trade(OfferTrade(to=1, get=(37,)), owner={"Park Place": 1, "Boardwalk": 1},
                 level={"Boardwalk": 1})
    assert [f[2] for f in faults(g)] == [
        "illegal offer_trade: properties of a group with buildings cannot be traded"]


def test_cannot_offer_more_cash_than_held():
    g, _ = trade(OfferTrade(to=1, get=(1,), give_cash=1501), owner={1: 1})
    assert faults(g) == [(0, "pre_roll",
                          "illegal offer_trade: you cannot offer more cash than you have")]
    assert g.state.owner[1] == 1 and payments(g) == []


def test_mortgaged_property_traded_with_10_percent_fee_paid_by_the_receiver():
    """Rule: who receives a mortgaged property and does not lift the mortgage at once
    (the phase default) pays the bank 10% interest now; the property stays mortgaged.
    (The fee's payment names its square since issue 15: one choice per property.)"""
    offer = OfferTrade(to=1, give=(1,), get_cash=50)
    g, _ = trade(offer, owner={"Mediterranean Avenue": 0}, mortgaged=[1])
    assert payments(g) == [(1, 0, 50, "trade", -1), (1, BANK, 3, "mortgage_transfer_fee", 1)]
    assert g.state.owner[1] == 1 and g.state.mortgaged[1]
    assert g.state.cash == [1550, 1447]
    # The offerer pays the fee for what it receives: Boardwalk, mortgaged for 200.
    offer = OfferTrade(to=1, get=(39,), give_cash=300)
    g, _ = trade(offer, owner={"Boardwalk": 1}, mortgaged=[39])
    assert payments(g) == [(0, 1, 300, "trade", -1), (0, BANK, 20, "mortgage_transfer_fee", 39)]
    assert g.state.cash == [1180, 1800] and g.state.owner[39] == 0


def test_jail_cards_are_tradeable():
    """Rule: a get-out-of-jail card may be sold to another player at an agreed price."""
    offer = OfferTrade(to=1, give_jail_cards=1, get_cash=40)
    g, _ = trade(offer, jail_cards={0: ["chance"]})
    assert of(g, E.JailCardMoved) == [E.JailCardMoved(0, 1, "chance")]
    assert payments(g) == [(1, 0, 40, "trade", -1)]
    assert g.state.jail_cards[0] == [] and len(g.state.jail_cards[1]) == 1
    assert g.state.jail_cards[1][0][0] == 0  # still a Chance card: it returns there
    g, _ = trade(OfferTrade(to=1, get_jail_cards=1, give_cash=10))
    assert [f[2] for f in faults(g)] == [
        "illegal offer_trade: the partner does not hold that many get-out-of-jail cards"]


def test_receiver_that_cannot_pay_makes_the_trade_fail():
    """Documented choice: an accepted trade the receiver cannot pay simply fails."""
    offer = OfferTrade(to=1, give=(6,), get_cash=200)
    g, _ = trade(offer, cash={1: 150}, owner={"Oriental Avenue": 0})
    assert of(g, E.TradeAnswered) == [E.TradeAnswered(offer.terms(), 0, False)]
    assert payments(g) == [] and g.state.owner[6] == 0


def test_other_players_trade_out_of_turn():
    """Players other than the one whose turn it is may offer trades too."""
    offer = OfferTrade(to=0, give=(1,), get_cash=60)
    p1 = Scripted(("out_of_turn", offer))
    p0 = Scripted(("trade_response", ACCEPT))
    g = make_game(rolls=[(1, 2)], owner={"Baltic Avenue": 0, "Mediterranean Avenue": 1})
    play(g, {0: p0, 1: p1})
    assert of(g, E.TradeAnswered) == [E.TradeAnswered(offer.terms(), 1, True)]
    assert g.state.owner[1] == 0 and g.state.cash == [1440, 1560]


def test_empty_or_self_trades_are_illegal():
    g, _ = trade(OfferTrade(to=1))
    assert [f[2] for f in faults(g)] == ["illegal offer_trade: an empty trade"]
    g, _ = trade(OfferTrade(to=0, give_cash=5))
    assert [f[2] for f in faults(g)] == [
        "illegal offer_trade: trade partner is not another seat"]
