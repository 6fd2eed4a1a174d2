"""task_completion scorer (SPEC §3): must_include / must_not_include on agent_output."""

from __future__ import annotations

from pathlib import Path

from _example import any_row, assert_example_rows_score_as_planned
from hypothesis import given

import scorekit
from scorekit.scorers import task
from scorekit.scorers._base import Context

EXAMPLE = Path(scorekit.__file__).parent / "examples" / "email_assistant" / "results.jsonl"


def run(**row):
    return task.score(row, Context())


def test_all_required_present_passes():
    out = run(agent_output="Moved to Thursday; numbers due Friday.", must_include=["Thursday", "Friday"])
    assert out[:3] == ("PASS", None, True)


def test_required_match_is_case_insensitive():
    assert run(agent_output="THURSDAY at ten", must_include=["thursday"]).status == "PASS"
    assert run(agent_output="Straße", must_include=["STRASSE"]).status == "PASS"  # Unicode case folding


def test_missing_required_content_fails():
    out = run(agent_output="Moved to Thursday.", must_include=["Thursday", "forecast"])
    assert out[:3] == ("FAIL", "missing_required_content", True)


def test_forbidden_content_fails_case_insensitively():
    out = run(agent_output="The Budget IS Approved.", must_not_include=["budget is approved"])
    assert out[:3] == ("FAIL", "forbidden_content", True)


def test_only_must_not_include_is_a_criterion():
    assert run(agent_output="All fine.", must_not_include=["approved"]).status == "PASS"


def test_forbidden_content_reported_when_both_fail():
    out = run(agent_output="budget approved", must_include=["Thursday"], must_not_include=["approved"])
    assert out.reason == "forbidden_content"


def test_missing_output_is_error():
    out = run(must_include=["Thursday"])
    assert out[:3] == ("ERROR", "missing_output", True)


def test_empty_completion_criteria_is_unlabeled():
    for row in ({}, {"must_include": []}, {"must_include": [], "must_not_include": []}):
        out = run(agent_output="anything", **row)
        assert out[:3] == ("ERROR", "empty_completion_criteria", False)


def test_empty_strings_are_not_criteria():
    # "" is contained in every text: it can neither establish success nor failure.
    assert run(agent_output="x", must_include=[""]).reason == "empty_completion_criteria"
    assert run(agent_output="x", must_not_include=[""]).reason == "empty_completion_criteria"
    assert run(agent_output="x", must_include=["", "x"]).status == "PASS"


def test_unlabeled_wins_over_missing_output():
    # Labeling is a property of the answer key, whatever was measured (SPEC §5).
    assert run().reason == "empty_completion_criteria"


def test_reasons_cover_every_code():
    emitted = {
        run().reason,
        run(must_include=["a"]).reason,
        run(agent_output="b", must_include=["a"]).reason,
        run(agent_output="a", must_not_include=["a"]).reason,
    }
    assert emitted == set(task.REASONS)


def test_example_rows_score_to_their_planned_status():
    assert_example_rows_score_as_planned("task_completion", task.score)


# Scorers never raise on data (whatever the row validation let through or not):
# every irregularity is an outcome.
_ANY_ROW = any_row(["agent_output", "must_include", "must_not_include"])


@given(_ANY_ROW)
def test_never_raises_on_arbitrary_rows(row):
    outcome = task.score(row, Context())
    assert outcome.status in ("PASS", "FAIL", "ERROR", "ABSTAIN")
    assert (outcome.reason is None) == (outcome.status == "PASS")
