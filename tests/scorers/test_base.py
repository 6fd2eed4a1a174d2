"""What every scorer shares (scorekit/scorers/_base.py): outcomes that fail closed."""

from __future__ import annotations

from scorekit.scorers._base import ERROR, FAIL, PASS, Outcome, error, failed, passed, unlabeled


def test_passed_has_no_reason_and_may_carry_a_redacted_output():
    assert passed() == Outcome(PASS, None, True, None, None)
    assert passed("[REDACTED:email]").output == "[REDACTED:email]"


def test_failed_and_error_carry_reason_and_detail():
    assert failed("missing_content", "lacks 'x'") == Outcome(FAIL, "missing_content", True, "lacks 'x'")
    assert error("timeout") == Outcome(ERROR, "timeout", True, None)


def test_an_unlabeled_row_is_an_error_never_a_pass():
    outcome = unlabeled("no_answer_key")
    assert outcome.status == ERROR and outcome.labeled is False
