"""Characterization: whether the changes an agent reports are the novelty's true
changes, paired one to one, with a tolerance on the values it gives.

Scored on the report after the last game of a trial (`final_report_changes`), the
agent's final, best-informed account.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

Record = Mapping[str, Any]

# Relative tolerance for a reported numeric value to count as the ground-truth value.
VALUE_REL_TOL = 0.1
VALUE_ABS_TOL = 1e-9


def _field(obj: Any, name: str, default: Any = None) -> Any:
    """Read `name` from a mapping or an object (dataclass changes, report objects)."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _new_value(change: Any) -> Any:
    """The changed-to value: agents report `new_value`; plugins' ground truth says `new`."""
    value = _field(change, "new_value")
    return _field(change, "new") if value is None else value


def _values_match(reported: Any, truth: Any, rel_tol: float, abs_tol: float) -> bool:
    """Numbers within |r - t| <= rel_tol*|t| + abs_tol; sequences and mappings element
    by element (same length / same keys); anything else (str, bool, None) by equality."""
    if isinstance(truth, bool) or isinstance(reported, bool):
        return type(truth) is type(reported) and truth == reported
    if isinstance(truth, Real) and isinstance(reported, Real):
        return abs(float(reported) - float(truth)) <= rel_tol * abs(float(truth)) + abs_tol
    if isinstance(truth, Mapping) and isinstance(reported, Mapping):
        return set(truth) == set(reported) and all(
            _values_match(reported[k], truth[k], rel_tol, abs_tol) for k in truth
        )
    seq = (list, tuple)
    if isinstance(truth, seq) and isinstance(reported, seq):
        return len(truth) == len(reported) and all(
            _values_match(r, t, rel_tol, abs_tol) for r, t in zip(reported, truth)
        )
    return reported == truth


def change_matches(
    reported: Any, truth: Any, rel_tol: float = VALUE_REL_TOL, abs_tol: float = VALUE_ABS_TOL
) -> bool:
    """A reported change matches a ground-truth change when entity and attribute are equal
    (as strings) and, if the agent gave a `new_value` (not None), it matches the true new
    value within the tolerance. Reporting only entity and attribute is a match."""
    if str(_field(reported, "entity")) != str(_field(truth, "entity")):
        return False
    if str(_field(reported, "attribute")) != str(_field(truth, "attribute")):
        return False
    value = _new_value(reported)
    return value is None or _values_match(value, _new_value(truth), rel_tol, abs_tol)


def characterization_scores(
    ground_truth: Sequence[Any] | None,
    reported: Sequence[Any] | None,
    *,
    visible_only: bool = False,
    rel_tol: float = VALUE_REL_TOL,
    abs_tol: float = VALUE_ABS_TOL,
) -> tuple[float | None, float | None]:
    """(accuracy, precision) of a reported characterization against the ground truth.

    Reported and true changes are paired one-to-one (a maximum matching over
    `change_matches`, so a repeated report cannot be counted twice). accuracy =
    matched / ground-truth changes (recall); precision = matched / reported changes.
    Both are None when nothing was reported; accuracy is also None when there is no
    ground truth (control trial). `visible_only` scores only changes agents can observe.
    """
    reported = list(reported or [])
    if not reported:
        return None, None
    truth = [t for t in (ground_truth or []) if not visible_only or _field(t, "visible", True)]
    if not truth:
        return None, 0.0
    fits = np.array(
        [[change_matches(r, t, rel_tol, abs_tol) for t in truth] for r in reported], dtype=float
    )
    rows, cols = linear_sum_assignment(fits, maximize=True)
    matched = int(fits[rows, cols].sum())
    return matched / len(truth), matched / len(reported)


def final_report_changes(records: Sequence[Record]) -> list[Any]:
    """Changes listed in the report after the last game (empty if none)."""
    if not records:
        return []
    report = records[-1].get("report")
    return list(_field(report, "changes", None) or []) if report is not None else []


def names_a_true_change(ground_truth: Sequence[Any] | None,
                        reported: Sequence[Any] | None) -> bool:
    """Whether some reported change names the entity and attribute of a true change."""
    return any(change_matches({"entity": _field(r, "entity"), "attribute": _field(r, "attribute")},
                              t)
               for r in (reported or []) for t in (ground_truth or []))
