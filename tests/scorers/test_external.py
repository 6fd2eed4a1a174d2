"""Rows scored outside scorekit: pre-scored status and partial credit (scorekit/scorers/external.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import scorekit as sk
from scorekit.scorers._base import Context
from scorekit.scorers.external import REASONS, from_score, prescored


def test_a_prescored_pass_is_pass_without_reason():
    assert prescored({"status": "PASS", "evaluator": "h"}).reason is None


@pytest.mark.parametrize("status", ["FAIL", "ERROR", "ABSTAIN"])
def test_a_prescored_non_pass_keeps_its_reason_or_gets_the_default(status):
    assert prescored({"status": status, "evaluator": "h", "reason": "timeout"}).reason == "timeout"
    outcome = prescored({"status": status, "evaluator": "h"})
    assert (outcome.status, outcome.reason) == (status, f"prescored_{status.lower()}")
    assert "pre-scored" in outcome.detail and "h" in outcome.detail


def test_score_one_passes_and_score_zero_fails():
    assert from_score({"score": 1, "evaluator": "e"}, Context()).status == "PASS"
    zero = from_score({"score": 0.0, "evaluator": "e"}, Context())
    assert (zero.status, zero.reason) == ("FAIL", "score_zero")


@pytest.mark.parametrize("rule, status, reason", [
    ("fail", "FAIL", "partial_credit"),
    ("abstain", "ABSTAIN", "partial_credit"),
    ({"min": 0.7}, "FAIL", "below_partial_min"),
    ({"min": 0.5}, "PASS", None),
])
def test_partial_credit_follows_the_policys_rule(rule, status, reason):
    outcome = from_score({"score": 0.6, "evaluator": "e"}, Context(partial=rule))
    assert (outcome.status, outcome.reason) == (status, reason)


@given(st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
def test_a_score_below_one_never_passes_by_default(score):
    assert from_score({"score": score, "evaluator": "e"}, Context()).status != "PASS"


@given(st.floats(min_value=0.0, max_value=1.0), st.floats(min_value=0.0, max_value=1.0))
def test_partial_min_is_never_rounded(score, minimum):
    outcome = from_score({"score": score, "evaluator": "e"}, Context(partial={"min": minimum}))
    assert (outcome.status == "PASS") == (score == 1 or (score != 0 and score >= minimum))


def test_every_reason_is_explained():
    assert set(REASONS) == {"score_zero", "partial_credit", "below_partial_min"}


def test_a_prescored_non_pass_shows_the_rows_own_detail_after_who_scored_it():
    row = {"status": "ERROR", "evaluator": "inspect:match", "reason": "sample_error",
           "detail": "RuntimeError('tool crashed')"}
    assert prescored(row).detail == "pre-scored ERROR by inspect:match: RuntimeError('tool crashed')"
    assert prescored({**row, "detail": "  "}).detail == "pre-scored ERROR by inspect:match"
    assert prescored({**row, "status": "PASS"}).detail is None


def test_a_detail_that_is_not_text_makes_the_row_invalid():
    rows = [{"id": "a", "dimension": "x", "status": "FAIL", "evaluator": "e", "detail": {"error": 1}}]
    card = sk.evaluate(rows, policy={"purpose": "exploratory"})
    assert card.validation.to_dict()["invalid"] == 1
    assert card.evidence.loc[0, "detail"] == "detail: expected a string, got an object"
