"""Findings (SPEC §9, seed "Suggested fixes"): grouping, order, wording, data table coverage."""

from __future__ import annotations

from importlib import resources
from unittest import mock

import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit import scorers
from scorekit._findings import finding_groups, finding_text, merge_finding_groups

SEVERITY_ORDER = ("blocker", "high", "medium", "low", "info")

# Reasons the engine itself emits (not a scorer).
ENGINE_REASONS = ("invalid_row", "case_definition_mismatch", "control_failed", "dimension_missing", "no_threshold",
                  "prescored_fail", "prescored_error", "prescored_abstain")


def table():
    text = resources.files("scorekit").joinpath("data", "findings.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def task(rid, output, case=None, trial=None, must_include=("refund",)):
    row = {"id": rid, "dimension": "task_completion", "must_include": list(must_include), "agent_output": output}
    if case is not None:
        row["case_id"] = case
    if trial is not None:
        row["trial"] = trial
    return row


def broad_rows():
    """Rows producing many (dimension, reason) groups with repeated trials."""
    rows = []
    for case in ("b-case", "a-case", "c-case"):
        for t in range(3):
            rows.append(task(f"{case}-{t}", "sorry, no" if case != "c-case" else "refund issued", case, t))
    rows += [
        {"id": "p1", "dimension": "pii", "agent_output": "mail jane.doe@example.com"},
        {"id": "p2", "dimension": "pii", "agent_output": "fine"},
        {"id": "a1", "dimension": "action_correctness", "expected_state": {"x": 1}},
        {"id": "a2", "dimension": "action_correctness", "agent_actions": ["delete_all"],
         "forbidden_actions": ["delete_all"]},
        {"id": "j1", "dimension": "helpfulness", "judge_criteria": "c",
         "judge_votes": [{"judge": "a", "verdict": "PASS"}, {"judge": "b", "verdict": "FAIL"}]},
        {"id": "u1", "dimension": "task_completion", "agent_output": "x", "must_include": []},
        {"id": "bad", "dimension": "pii", "trial": -3},
        {"id": "kb", "dimension": "pii", "agent_output": "nothing here", "tags": ["known-bad"]},
        {"id": "cost1", "dimension": "cost", "cost_usd": 2.0, "cost_budget_usd": 0.5},
    ]
    return rows


@pytest.fixture(scope="module")
def card():
    return sk.evaluate(broad_rows(), policy={"gate": {"required_dimensions": [
        "task_completion", "pii", "action_correctness", "helpfulness", "cost", "injection"]}})


def test_one_finding_per_dimension_and_reason_with_sorted_unique_case_ids(card):
    keys = [(f["dimension"], f["reason"]) for f in card.findings]
    assert len(keys) == len(set(keys))
    missing = next(f for f in card.findings if (f["dimension"], f["reason"]) == ("task_completion",
                                                                                  "missing_required_content"))
    # Six failing trials over two cases: one finding, case ids once each, sorted.
    assert missing["case_ids"] == ["a-case", "b-case"]
    assert missing["rows"] == 6
    for f in card.findings:
        assert f["case_ids"] == sorted(set(f["case_ids"]))


def test_findings_are_ordered_by_severity_then_dimension_then_reason(card):
    order = [(SEVERITY_ORDER.index(f["severity"]), f["dimension"], f["reason"]) for f in card.findings]
    assert order == sorted(order)
    assert {f["severity"] for f in card.findings} >= {"blocker", "high", "medium"}


def test_expected_groups_are_present(card):
    keys = {(f["dimension"], f["reason"]) for f in card.findings}
    assert {
        ("task_completion", "missing_required_content"),
        ("task_completion", "empty_completion_criteria"),
        ("pii", "pii_leak"),
        ("pii", "invalid_row"),
        ("pii", "control_failed"),
        ("action_correctness", "missing_observed_state"),
        ("action_correctness", "forbidden_action"),
        ("helpfulness", "panel_tie"),
        ("cost", "over_budget"),
        ("injection", "dimension_missing"),
    } <= keys
    control = next(f for f in card.findings if f["reason"] == "control_failed")
    assert control["severity"] == "blocker" and control["case_ids"] == ["kb"]


def test_control_rows_and_pass_rows_produce_no_agent_findings(card):
    for f in card.findings:
        if f["reason"] != "control_failed":
            assert "kb" not in f["case_ids"]
        assert "c-case" not in f["case_ids"]
        assert "p2" not in f["case_ids"]


def test_all_pass_evaluation_has_no_findings():
    rows = [task(f"t{i}", "refund issued") for i in range(3)]
    findings = sk.evaluate(rows).findings
    # Three passing cases leave a 90% threshold met with probability 59% (assurance, SPEC §18): one
    # advisory, nothing that blocks; 80% is met with probability 77%, 50% with 96.7% (settled at 95%).
    assert [(f["reason"], f["severity"]) for f in findings] == [("low_confidence", "info")]
    assert (
        sk.evaluate(rows, policy={"gate": {"thresholds": {"task_completion": 0.8}}}).findings[0]["severity"] == "info"
    )
    assert sk.evaluate(rows, policy={"gate": {"thresholds": {"task_completion": 0.5}}}).findings == []
    assert sk.evaluate(rows * 1, policy={"gate": {"thresholds": {"task_completion": 0.05}}}).findings == []


def _assert_guidance(text):
    lowered = " ".join(text.split()).lower()
    assert "does not prove" in lowered and "root cause" in lowered, text
    assert "execute it again" in lowered, text
    assert "rerun the full declared suite" in lowered, text
    assert "re-scoring old captured output does not verify" in lowered, text
    assert "change the agent" in lowered, text


def test_every_finding_says_what_to_review_no_root_cause_and_how_to_verify(card):
    assert card.findings
    for f in card.findings:
        assert f["review"].strip()
        assert f["suggested_fix"].strip()
        _assert_guidance(f["suggested_fix"])


@pytest.mark.parametrize("reason", sorted(set(scorers.all_reasons()) | set(ENGINE_REASONS)))
def test_every_reason_text_carries_the_guidance(reason):
    text = finding_text("some_dimension", reason, "FAIL")
    assert text["severity"] in SEVERITY_ORDER
    assert text["review"]
    _assert_guidance(text["suggested_fix"])


def test_unknown_reason_falls_back_with_the_guidance():
    for status in ("FAIL", "ERROR", "ABSTAIN"):
        text = finding_text("helpfulness", "harness_specific_code", status)
        assert text["severity"] in SEVERITY_ORDER
        _assert_guidance(text["suggested_fix"])


def test_every_scorer_reason_has_an_entry_in_the_findings_table():
    reasons = table()["reasons"]
    missing = sorted(set(scorers.all_reasons()) - set(reasons))
    assert missing == []
    missing = sorted(set(ENGINE_REASONS) - set(reasons))
    assert missing == []
    for name, entry in reasons.items():
        assert entry["severity"] in SEVERITY_ORDER, name
        assert entry["review"].strip() and entry["fix"].strip(), name


def test_findings_table_caveat_and_verify_texts():
    t = table()
    _assert_guidance(t["caveat"] + " " + t["verify"])


def test_all_reasons_are_documented_codes():
    reasons = scorers.all_reasons()
    assert reasons
    for code, description in reasons.items():
        assert code == code.lower() and " " not in code
        assert description.strip()


def test_findings_are_deterministic_and_independent_of_row_order():
    rows = broad_rows()
    policy = {"purpose": "exploratory"}
    a = sk.evaluate(rows, policy=policy).findings
    b = sk.evaluate(list(reversed(rows)), policy=policy).findings
    assert a == b


def test_prescored_reason_groups_use_the_harness_reason():
    rows = [
        {"id": f"r{i}", "dimension": "helpfulness", "status": "FAIL", "evaluator": "h", "reason": "off_topic",
         "case_id": f"c{i % 2}"}
        for i in range(4)
    ] + [{"id": "e", "dimension": "helpfulness", "status": "ERROR", "evaluator": "h"}]
    card = sk.evaluate(rows, policy={"gate": {"thresholds": {"helpfulness": 0.5}}})
    keys = {(f["reason"], tuple(f["case_ids"])) for f in card.findings}
    assert ("off_topic", ("c0", "c1")) in keys
    assert ("prescored_error", ("e",)) in keys


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["d1", "d2"]), st.sampled_from(["r1", "r2", None]),
                          st.sampled_from(["FAIL", "ERROR", "ABSTAIN", "PASS"]), st.integers(0, 9),
                          st.sampled_from(["x", "y", "", None]), st.booleans()), min_size=10, max_size=120),
       st.lists(st.floats(0, 1), max_size=4))
def test_finding_groups_of_partitions_merge_into_those_of_all_rows(rows, cuts):
    # Details are kept for the first 3 cases of a group here (DETAIL_CASES), so the cut falls inside groups.
    frame = pd.DataFrame(rows, columns=["dimension", "reason", "status", "case_id", "detail", "control"])
    frame["case_id"] = "c" + frame["case_id"].astype(str).str.zfill(3)
    bounds = sorted({0, len(frame), *(int(c * len(frame)) for c in cuts)})
    with mock.patch("scorekit._findings.DETAIL_CASES", 3):
        parts = [finding_groups(frame.iloc[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
        assert merge_finding_groups(parts) == finding_groups(frame)
