"""Rows scored outside scorekit: a pre-scored ``status`` or a ``score`` (SPEC §2, §7).

A valid ``status`` (with its ``evaluator``) always wins over scorekit's own
scoring; a non-PASS one keeps the row's ``reason`` (default
``prescored_<status>``) and, in its detail, the row's own ``detail`` (an importer
puts the source's error message there, SPEC §15: a crashed sample's
``RuntimeError: …`` is shown, not a scorer blamed). A row with ``score`` in [0, 1] and no ``status`` is
partial credit from an external scorer: 1 → PASS, 0 → FAIL ``score_zero``, and a
score in between follows the policy's ``partial`` rule — ``fail`` (the default:
FAIL ``partial_credit``), ``abstain`` (ABSTAIN ``partial_credit``: no decision,
outside the pass rate) or ``{min: x}`` (PASS at score ≥ x, else FAIL
``below_partial_min``). A score is never rounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import ABSTAIN, FAIL, PASS, Context, Outcome

__all__ = ["REASONS", "from_score", "prescored", "prescored_by"]

REASONS = {
    "score_zero": "the external scorer gave the row a score of 0",
    "partial_credit": (
        "the external scorer gave partial credit, which the policy's partial rule does not count as a pass"
    ),
    "below_partial_min": "the external scorer's partial credit is below the policy's partial.min",
}


def prescored_by(status: str, evaluator: Any) -> str:
    """The detail of a non-PASS pre-scored row that says only who scored it (an identity, no row text).

    >>> prescored_by("FAIL", "swe-bench")
    'pre-scored FAIL by swe-bench'
    """
    return f"pre-scored {status} by {evaluator}"


def prescored(row: Mapping[str, Any]) -> Outcome:
    """The outcome of a row with a valid pre-scored ``status``.

    Examples
    --------
    >>> prescored({"status": "ERROR", "evaluator": "inspect:match",
    ...            "detail": "RuntimeError('tool crashed')"}).detail
    "pre-scored ERROR by inspect:match: RuntimeError('tool crashed')"
    >>> prescored({"status": "FAIL", "evaluator": "swe-bench", "reason": "empty_patch"}).detail
    'pre-scored FAIL by swe-bench'
    """
    status = row["status"]
    if status == PASS:
        return Outcome(PASS, None, True)
    reason = row.get("reason") or f"prescored_{status.lower()}"
    own = row.get("detail")
    said = f": {own}" if isinstance(own, str) and own.strip() else ""
    return Outcome(status, reason, True, prescored_by(status, row["evaluator"]) + said)


def from_score(row: Mapping[str, Any], ctx: Context) -> Outcome:
    """The outcome of a row with ``score`` and no ``status`` under ``ctx.partial``.

    Examples
    --------
    >>> from scorekit.scorers._base import Context
    >>> row = {"score": 0.5, "evaluator": "inspect:model_graded_qa"}
    >>> from_score(row, Context()).status, from_score(row, Context(partial={"min": 0.5})).status
    ('FAIL', 'PASS')
    """
    value = row["score"]
    by = row.get("evaluator")
    if value == 1:
        return Outcome(PASS, None, True)
    if value == 0:
        return Outcome(FAIL, "score_zero", True, f"score 0 from {by}")
    rule = ctx.partial
    if rule == "abstain":
        return Outcome(ABSTAIN, "partial_credit", True, f"score {value!r} from {by}; partial: abstain")
    if isinstance(rule, Mapping):
        minimum = rule["min"]
        if value >= minimum:
            return Outcome(PASS, None, True)
        return Outcome(FAIL, "below_partial_min", True, f"score {value!r} from {by} < partial.min {minimum!r}")
    return Outcome(FAIL, "partial_credit", True, f"score {value!r} from {by}; partial: fail")
