"""``cost`` and ``latency``: a measured value within its budget (SPEC §3).

The row's own budget (``cost_budget_usd`` / ``latency_budget_ms``) wins over the
policy's ``budgets`` (``cost_usd`` / ``latency_ms``). No budget → unlabeled
``missing_budget``; a budget but no measurement → ERROR ``missing_cost`` /
``missing_latency``; measured ≤ budget → PASS, else FAIL ``over_budget``.

Latency is ``latency_ms``, or ``latency_s`` × 1000 when only that is given
(``latency_ms`` wins when both are). The seconds→milliseconds conversion is done
in exact decimal arithmetic on the value as written: ``2.007`` s is exactly 2007 ms
(binary floating point gives 2007.0000000000002, which would exceed a 2007 ms budget).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ._base import Context, Outcome, error, failed, passed, unlabeled

__all__ = ["REASONS", "score_cost", "score_latency"]

REASONS = {
    "missing_budget": "no budget on the row or in the policy: nothing can establish success",
    "missing_cost": "a cost budget is set but the row has no cost_usd measurement (missing evidence)",
    "missing_latency": "a latency budget is set but the row has neither latency_ms nor latency_s (missing evidence)",
    "over_budget": "the measured value exceeds its budget",
}


def _number(value: Any) -> float | int | None:
    """A finite, non-negative real number, else None (absent, null, NaN, bool, text ...)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if value >= 0 else None


def _absent(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _budget(row: Mapping[str, Any], ctx: Context, row_key: str, policy_key: str) -> float | int | None:
    own = row.get(row_key)
    if not _absent(own):
        # A row budget that is present but unusable does not fall back to the policy.
        return _number(own)
    budgets = ctx.budgets if isinstance(ctx.budgets, Mapping) else {}
    return _number(budgets.get(policy_key))


def _decimal(value: float | int) -> Decimal:
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def score_cost(row: Mapping[str, Any], ctx: Context) -> Outcome:
    """Score one ``cost`` row: ``cost_usd`` ≤ the cost budget."""
    budget = _budget(row, ctx, "cost_budget_usd", "cost_usd")
    if budget is None:
        return unlabeled("missing_budget", "no cost_budget_usd on the row and no budgets.cost_usd in the policy")
    cost = _number(row.get("cost_usd"))
    if cost is None:
        return error("missing_cost", f"budget {budget!r} USD but no cost_usd measured")
    return passed() if cost <= budget else failed("over_budget", f"cost_usd {cost!r} > budget {budget!r}")


def score_latency(row: Mapping[str, Any], ctx: Context) -> Outcome:
    """Score one ``latency`` row: ``latency_ms`` (or ``latency_s`` × 1000) ≤ the latency budget."""
    budget = _budget(row, ctx, "latency_budget_ms", "latency_ms")
    if budget is None:
        return unlabeled("missing_budget", "no latency_budget_ms on the row and no budgets.latency_ms in the policy")
    missing = f"budget {budget!r} ms but no latency_ms or latency_s measured"
    if not _absent(row.get("latency_ms")):
        ms = _number(row.get("latency_ms"))
        if ms is None:
            return error("missing_latency", missing)
        return passed() if ms <= budget else failed("over_budget", f"latency_ms {ms!r} > budget {budget!r}")
    seconds = _number(row.get("latency_s"))
    if seconds is None:
        return error("missing_latency", missing)
    within = _decimal(seconds) * 1000 <= _decimal(budget)
    return (
        passed()
        if within
        else failed("over_budget", f"latency_s {seconds!r} (= {_decimal(seconds) * 1000} ms) > budget {budget!r} ms")
    )
