"""Every non-PASS row says why (``detail``, SPEC §3) and mocks are found by segment (SPEC §4).

Both failed before issue 11: rows had no detail, and only identities that
*start* with "mock" made a SELF_TEST (``inspect:model_graded_qa@mockllm/grader``
and ``mockllm/model`` did not).
"""

from __future__ import annotations

import json

import pytest

import scorekit as sk
from scorekit.scorers.judges import is_mock

EXAMPLE_POLICY = sk.example_path(file="policy.yml")


# --------------------------------------------------------------------------- mocks
@pytest.mark.parametrize("name", [
    "mock", "Mock-Judge", "MOCK_judge", "mockllm/model", "inspect:model_graded_qa@mockllm/grader",
    "judges, mock-b", "openai/gpt-4o mock", "grader@Mockingbird",
])
def test_mock_by_segment(name):
    assert is_mock(name)


@pytest.mark.parametrize("name", ["gpt-4o", "hammock-judge", "inspect:model_graded_qa@openai/gpt-4o",
                                  "judge-mocha", "", None])
def test_not_mock(name):
    assert not is_mock(name)


def judged(evaluator=None, judge="judge-a"):
    row = {"id": "r1", "dimension": "helpfulness", "case_id": "c1", "judge_criteria": "polite",
           "judge_votes": [{"judge": judge, "verdict": "PASS"}]}
    if evaluator:
        row.update(status="PASS", evaluator=evaluator)
        del row["judge_votes"]
    return row


@pytest.mark.parametrize("where", ["judge", "evaluator"])
def test_mock_identity_anywhere_makes_a_self_test(where):
    name = "inspect:model_graded_qa@mockllm/grader"
    row = judged(judge=name) if where == "judge" else judged(evaluator=name)
    card = sk.evaluate([row], policy={"gate": {"thresholds": {"helpfulness": 0.5}}})
    assert card.decision == "SELF_TEST"
    # SPEC §18: the mock's PASS counts as cast; the row says why it is no measurement.
    first = card.evidence.iloc[0]
    assert (first["status"], first["reason"]) == ("PASS", "mock_judge")
    assert first["detail"] == f"mock judge or evaluator {name}"
    assert card.dimensions.at["helpfulness", "rate"] == 1.0


# --------------------------------------------------------------------------- detail
def test_every_non_pass_row_of_the_example_has_a_detail():
    card = sk.evaluate(sk.example_path(), policy=EXAMPLE_POLICY)
    failing = card.evidence[card.evidence["status"] != "PASS"]
    assert len(failing) > 10
    assert failing["detail"].notna().all()
    assert (card.evidence.loc[card.evidence["status"] == "PASS", "detail"].isna()).all()


def test_findings_list_their_cases_with_detail():
    card = sk.evaluate(sk.example_path(), policy=EXAMPLE_POLICY)
    row_findings = [f for f in card.findings if f["rows"]]
    assert row_findings
    evidence = card.evidence
    for finding in row_findings:
        assert finding["details"], finding["reason"]
        for item in finding["details"]:
            assert item["case_id"] in finding["case_ids"]
            rows = evidence[(evidence["case_id"] == item["case_id"]) & (evidence["reason"] == finding["reason"])]
            assert item["detail"] in set(rows["detail"])
    data = card.to_dict()
    assert data["findings"][0].get("details") is not None


def test_detail_is_shown_per_case_in_every_report(tmp_path):
    card = sk.evaluate(sk.example_path(), policy=EXAMPLE_POLICY)
    written = card.write(tmp_path)
    finding = next(f for f in card.findings if f["reason"] == "invalid_tool_arguments")
    detail = finding["details"][0]["detail"]
    md = written["markdown"].read_text(encoding="utf-8")
    html = written["html"].read_text(encoding="utf-8")
    assert detail.replace("_", "\\_") in md
    import html as html_lib

    assert html_lib.escape(detail, quote=True) in html
    assert json.loads(written["json"].read_text())["findings"]


def test_invalid_rows_carry_their_problem_as_detail():
    rows = [
        {"id": "r1", "dimension": "pii", "agent_output": 5},
        {"id": "r2", "dimension": "pii", "agent_output": "ok"},
        {"id": "r2", "dimension": "pii", "agent_output": "ok"},
    ]
    card = sk.evaluate(rows, policy={"purpose": "exploratory"})
    details = card.evidence.set_index("line")["detail"]
    assert details.loc[1] == "agent_output: expected a string, got an integer"
    assert details.loc[2].startswith("id: duplicate id 'r2'")
