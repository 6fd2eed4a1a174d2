"""Comparability and eligibility of a recorded run as a baseline (SPEC §10).

A record is comparable with a card when suite hash, policy hash, judge
identity and scoring version are equal; it is eligible when its final
decision is PASS (and its comparison did not regress), or its measured
decision is PASS and its own comparison found no baseline (``missing``).
The SQL filters and the Python test say the same rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Eligible as a baseline (SPEC §10); a regressed run never is.
_ELIGIBLE_SQL = (
    "((decision = 'PASS' AND comparison_status != 'regressed')"
    " OR (measured_decision = 'PASS' AND comparison_status = 'missing'))"
)
_COMPARABLE_SQL = "suite_hash = ? AND policy_hash = ? AND judges = ? AND scoring_version = ?"

def _eligible(row: Mapping[str, Any]) -> bool:
    eligible: bool = (row["decision"] == "PASS" and row["comparison_status"] != "regressed") or (
        row["measured_decision"] == "PASS" and row["comparison_status"] == "missing"
    )
    return eligible


def _why_not(row: Mapping[str, Any], key: tuple[Any, ...]) -> list[str]:
    """Why a named record cannot be the baseline (empty: it can)."""
    why = []
    names = ("suite hash", "policy hash", "judge identity", "scoring version")
    stored = (row["suite_hash"], row["policy_hash"], row["judges"], row["scoring_version"])
    differs = [name for name, a, b in zip(names, stored, key, strict=True) if a != b or a is None]
    if differs:
        why.append("not comparable: different " + ", ".join(differs))
    ineligible = _why_ineligible(row)
    if ineligible:
        why.append(ineligible)
    return why


def _why_ineligible(row: Mapping[str, Any]) -> str | None:
    """Why a record can never be a baseline (``None``: it is eligible), for a message."""
    if _eligible(row):
        return None
    if row["comparison_status"] == "regressed":
        return f"not eligible: decision {row['decision']}, its comparison regressed"
    return (
        f"not eligible: decision {row['decision']}, measured decision {row['measured_decision']}, "
        f"comparison {row['comparison_status']}"
    )
