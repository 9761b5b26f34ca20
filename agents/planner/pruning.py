"""The planner paper's two bankruptcy conditions, used to prune moves before the argmax.

For a move m with cost C(m), evaluated in the state after the move (so cash already
has C(m) taken off and the rent terms reflect the move):

1. cash + R_next - C(m) >= cash_min: the expected cash after one round of rent stays
   above a floor that absorbs tax squares and card payments.
2. cash + R_owed + worth_scaled - C(m) - R_worst > 0: the worst rent g1 can be charged
   in its next turn is covered by cash, the expected rent income and a scaled share of
   what mortgaging and selling buildings would raise.

`cash_min` and `mortgage_scale` are the agent's parameters (the paper gives no values).
A move is pruned only when it ends unsafe *and* makes a condition worse than doing
nothing: selling and mortgaging to get back to safety are never pruned.
"""

from __future__ import annotations

from agents.planner.value import Terms


def condition1(terms: Terms, cash_min: float) -> float:
    """Margin of condition 1 (safe when >= 0)."""
    return terms.cash + terms.r_next - cash_min


def condition2(terms: Terms, mortgage_scale: float) -> float:
    """Margin of condition 2 (safe when > 0)."""
    return terms.cash + terms.r_owed + mortgage_scale * terms.worth - terms.r_worst


def is_safe(terms: Terms, cash_min: float, mortgage_scale: float) -> bool:
    """Whether a state meets both bankruptcy conditions: the planner's test of a position it
    can afford to be in."""
    return condition1(terms, cash_min) >= 0 and condition2(terms, mortgage_scale) > 0


def allowed(before: Terms, after: Terms, cash_min: float, mortgage_scale: float) -> bool:
    """Whether the move from `before` to `after` survives pruning."""
    c1 = condition1(after, cash_min)
    c2 = condition2(after, mortgage_scale)
    if c1 >= 0 and c2 > 0:
        return True
    return c1 >= condition1(before, cash_min) and c2 >= condition2(before, mortgage_scale)
