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


def sets_gained(rules: Any, owner: tuple[int, ...], seat: int, gains: Iterable[int] = (),
                losses: Iterable[int] = ()) -> int:
    """How many more complete sets `seat` holds after getting `gains` and giving up
    `losses` (negative if fewer). Only the groups of the squares that move can change, so
    only they are counted: an agent answering many offers asks this at each."""
    gains, losses = set(gains), set(losses)
    group_of, group_members, group_need = rules.group_of, rules.group_members, rules.group_need
    change = 0
    for g in {group_of[sq] for sq in gains | losses}:
        members = group_members[g] if g >= 0 else ()
        if not members:
            continue
        before = sum(1 for m in members if owner[m] == seat)
        after = sum(1 for m in members
                    if (owner[m] == seat and m not in losses) or m in gains)
        change += (after >= group_need[g]) - (before >= group_need[g])
    return change


def buy_decision(obs: Any) -> A.Action:
    rules = obs.rules
    sq = obs.square
    price = rules.price[sq]
    cash = obs.cash[obs.seat]
    if cash < price:
        return A.DECLINE
    if sets_gained(rules, obs.owner, obs.seat, gains=(sq,)) > 0:
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
    gained = sets_gained(rules, obs.owner, me, gains=offer.give, losses=offer.get)
    if gained > 0:
        return A.ACCEPT
    if gained == 0 and offer_net_worth(rules, offer) > 0:
        return A.ACCEPT
    return A.REJECT
