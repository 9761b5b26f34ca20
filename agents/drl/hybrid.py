"""The hybrid agents' fixed policy (the paper's section V-B) for *buy* and *accept trade*.

- Buy: when the property completes a set and is affordable; otherwise when cash
  exceeds the price by `BUY_MARGIN` (200).
- Accept a trade: when it increases the number of complete sets; when that number is
  unchanged, only when the offer's net worth (eq. 5: price of the properties offered +
  cash offered - price of the properties requested - cash requested) is positive.

Reads only public observation data (owners, prices, group membership).
"""

from __future__ import annotations

from typing import Any, Iterable

from openmono import actions as A

BUY_MARGIN = 200


def _sets(rules: Any, owner: tuple[int, ...], seat: int, gains: Iterable[int] = (),
          losses: Iterable[int] = ()) -> int:
    """Complete sets `seat` holds after getting `gains` and giving up `losses`."""
    gains, losses = set(gains), set(losses)
    n = 0
    for g, members in enumerate(rules.group_members):
        if not members:
            continue
        have = sum(1 for m in members
                   if (owner[m] == seat and m not in losses) or m in gains)
        if have >= rules.group_need[g]:
            n += 1
    return n


def buy_decision(obs: Any) -> A.Action:
    rules = obs.rules
    sq = obs.square
    price = rules.price[sq]
    cash = obs.cash[obs.seat]
    if cash < price:
        return A.DECLINE
    if _sets(rules, obs.owner, obs.seat, gains=(sq,)) > _sets(rules, obs.owner, obs.seat):
        return A.BUY
    return A.BUY if cash - price >= BUY_MARGIN else A.DECLINE


def offer_net_worth(rules: Any, offer: A.OfferTrade) -> int:
    """Eq. 5 from the receiver's side: what it gets minus what it gives."""
    got = sum(rules.price[s] for s in offer.give) + offer.give_cash
    given = sum(rules.price[s] for s in offer.get) + offer.get_cash
    return got - given


def accept_decision(obs: Any) -> A.Action:
    offer = obs.offer
    if offer is None:
        return A.REJECT
    rules = obs.rules
    me = obs.seat
    before = _sets(rules, obs.owner, me)
    after = _sets(rules, obs.owner, me, gains=offer.give, losses=offer.get)
    if after > before:
        return A.ACCEPT
    if after == before and offer_net_worth(rules, offer) > 0:
        return A.ACCEPT
    return A.REJECT
