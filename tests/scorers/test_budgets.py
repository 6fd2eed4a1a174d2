"""cost and latency scorers (SPEC §3): measured value within budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from _example import any_row, any_value, assert_example_rows_score_as_planned
from hypothesis import given
from hypothesis import strategies as st

import scorekit
from scorekit.scorers import budgets
from scorekit.scorers._base import Context

EXAMPLE = Path(scorekit.__file__).parent / "examples" / "email_assistant" / "results.jsonl"


def cost(ctx=None, **row):
    return budgets.score_cost(row, ctx or Context())


def latency(ctx=None, **row):
    return budgets.score_latency(row, ctx or Context())


def test_exports_exactly_cost_and_latency_scorers():
    assert callable(budgets.score_cost) and callable(budgets.score_latency)
    assert not hasattr(budgets, "score")


def test_cost_within_budget_passes():
    assert cost(cost_usd=0.01, cost_budget_usd=0.03)[:3] == ("PASS", None, True)


def test_cost_equal_to_budget_passes():
    assert cost(cost_usd=0.03, cost_budget_usd=0.03).status == "PASS"
    assert latency(latency_ms=3000, latency_budget_ms=3000).status == "PASS"


def test_cost_over_budget_fails():
    assert cost(cost_usd=0.11, cost_budget_usd=0.08)[:3] == ("FAIL", "over_budget", True)


def test_latency_over_budget_fails():
    assert latency(latency_ms=11177, latency_budget_ms=8000)[:3] == ("FAIL", "over_budget", True)


def test_row_budget_wins_over_policy_budget():
    ctx = Context(budgets={"cost_usd": 0.001, "latency_ms": 100})
    assert cost(ctx, cost_usd=0.01, cost_budget_usd=0.03).status == "PASS"
    assert latency(ctx, latency_ms=500, latency_budget_ms=1000).status == "PASS"
    ctx = Context(budgets={"cost_usd": 1.0, "latency_ms": 10_000})
    assert cost(ctx, cost_usd=0.05, cost_budget_usd=0.03).status == "FAIL"
    assert latency(ctx, latency_ms=5000, latency_budget_ms=1000).status == "FAIL"


def test_policy_budget_applies_without_row_budget():
    ctx = Context(budgets={"cost_usd": 0.05, "latency_ms": 3000})
    assert cost(ctx, cost_usd=0.04).status == "PASS"
    assert cost(ctx, cost_usd=0.06).reason == "over_budget"
    assert latency(ctx, latency_ms=2999).status == "PASS"
    assert latency(ctx, latency_ms=3001).reason == "over_budget"


def test_missing_budget_is_unlabeled():
    assert cost(cost_usd=0.01)[:3] == ("ERROR", "missing_budget", False)
    assert latency(latency_ms=10)[:3] == ("ERROR", "missing_budget", False)
    # The other dimension's budget is not this one's.
    assert cost(Context(budgets={"latency_ms": 3000}), cost_usd=0.01).reason == "missing_budget"


def test_missing_budget_wins_over_missing_measurement():
    assert cost().reason == "missing_budget"
    assert latency().reason == "missing_budget"


def test_missing_cost_is_error():
    assert cost(cost_budget_usd=0.08)[:3] == ("ERROR", "missing_cost", True)
    # usage alone is not a cost measurement
    assert cost(cost_budget_usd=0.08, usage={"input_tokens": 10}).reason == "missing_cost"


def test_missing_latency_is_error():
    assert latency(latency_budget_ms=8000)[:3] == ("ERROR", "missing_latency", True)


def test_latency_s_is_converted_to_ms():
    assert latency(latency_s=2.5, latency_budget_ms=3000).status == "PASS"
    assert latency(latency_s=3.5, latency_budget_ms=3000).reason == "over_budget"


def test_latency_s_conversion_is_exact_at_the_boundary():
    # In binary floating point 2.007 * 1000 == 2007.0000000000002 (would FAIL a
    # 2007 ms budget) and 1.005 * 1000 == 1004.9999999999999; the comparison uses
    # the decimal value as written.
    assert 2.007 * 1000 > 2007
    assert latency(latency_s=2.007, latency_budget_ms=2007).status == "PASS"
    assert latency(latency_s=1.005, latency_budget_ms=1005).status == "PASS"
    assert latency(latency_s=1.0051, latency_budget_ms=1005).status == "FAIL"
    assert latency(latency_s=2.0071, latency_budget_ms=2007).status == "FAIL"


def test_latency_ms_wins_over_latency_s():
    assert latency(latency_ms=1000, latency_s=9.0, latency_budget_ms=2000).status == "PASS"
    assert latency(latency_ms=3000, latency_s=1.0, latency_budget_ms=2000).status == "FAIL"


def test_zero_budget_is_a_budget():
    assert cost(cost_usd=0, cost_budget_usd=0).status == "PASS"
    assert cost(cost_usd=0.0001, cost_budget_usd=0).status == "FAIL"


def test_unusable_policy_budget_is_no_budget():
    for bad in (None, float("nan"), float("inf"), -1, True, "0.05"):
        assert cost(Context(budgets={"cost_usd": bad}), cost_usd=0.01).reason == "missing_budget"


def test_nan_measurement_is_missing_not_within_budget():
    assert cost(cost_usd=float("nan"), cost_budget_usd=1.0).reason == "missing_cost"
    assert latency(latency_ms=float("nan"), latency_budget_ms=1.0).reason == "missing_latency"


@given(st.floats(0, 1e6, allow_nan=False), st.floats(0, 1e6, allow_nan=False))
def test_cost_passes_iff_within_budget(value, budget):
    assert (cost(cost_usd=value, cost_budget_usd=budget).status == "PASS") == (value <= budget)


def test_reasons_cover_every_code():
    emitted = {cost().reason, cost(cost_budget_usd=1).reason, latency(latency_budget_ms=1).reason,
               cost(cost_usd=2, cost_budget_usd=1).reason}
    assert emitted == set(budgets.REASONS)


@pytest.mark.parametrize("dimension, scorer", [("cost", budgets.score_cost), ("latency", budgets.score_latency)])
def test_example_rows_score_to_their_planned_status(dimension, scorer):
    assert_example_rows_score_as_planned(dimension, scorer)


# Scorers never raise on data (whatever the row validation let through or not):
# every irregularity is an outcome.
_ANY_ROW = any_row(["cost_usd", "cost_budget_usd", "latency_ms", "latency_s", "latency_budget_ms"])


@given(_ANY_ROW, st.dictionaries(st.sampled_from(["cost_usd", "latency_ms"]), any_value()))
def test_never_raises_on_arbitrary_rows(row, budget):
    ctx = Context(budgets=budget)
    for scorer in (budgets.score_cost, budgets.score_latency):
        outcome = scorer(row, ctx)
        assert outcome.status in ("PASS", "FAIL", "ERROR", "ABSTAIN")
        assert (outcome.reason is None) == (outcome.status == "PASS")
