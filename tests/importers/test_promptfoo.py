"""promptfoo output → rows (SPEC §15 bullet ``promptfoo``): every mapping rule, and the file's own counts."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest
from import_logs import PROMPTFOO_EXPORT

import scorekit as sk

EXPORT = json.loads(PROMPTFOO_EXPORT.read_text())


def runs_of(doc: dict, tmp_path) -> list[sk.ImportedRun]:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    return sk.import_results(path, format="promptfoo")


def test_one_run_per_provider_never_mixed():
    runs = sk.import_results(PROMPTFOO_EXPORT)
    assert sorted(r.agent for r in runs) == ["openai:gpt-5", "openai:gpt-5-mini"]
    for run in runs:
        assert set(run.rows["agent"]) == {run.agent}


def test_pass_fail_counts_per_provider_equal_promptfoos_own():
    runs = {r.agent: r for r in sk.import_results(PROMPTFOO_EXPORT)}
    for prompt in EXPORT["results"]["prompts"]:
        rows = runs[prompt["provider"]].rows
        got = Counter(rows["status"])
        assert got["PASS"] == prompt["metrics"]["assertPassCount"]
        assert got["FAIL"] == prompt["metrics"]["assertFailCount"]
        # a test passes when every one of its assertions does (promptfoo's testPassCount / testFailCount)
        by_test = rows.groupby("case_id")["status"].apply(lambda s: bool((s == "PASS").all()))
        assert int(by_test.sum()) == prompt["metrics"]["testPassCount"]
        assert int((~by_test).sum()) == prompt["metrics"]["testFailCount"]


def test_case_id_is_the_tests_index_and_trial_the_repeat_index(tmp_path):
    runs = sk.import_results(PROMPTFOO_EXPORT)
    assert set(runs[0].rows["case_id"]) == {"0", "1"} and set(runs[0].rows["trial"]) == {0}
    doc = copy.deepcopy(EXPORT)
    for r in doc["results"]["results"]:
        r["repeatIndex"] = 1
        r["testCase"]["description"] = "riddle"
    run = runs_of(doc, tmp_path)[0]
    assert set(run.rows["trial"]) == {1} and set(run.rows["case_id"]) == {"0: riddle", "1: riddle"}


def test_one_dimension_per_assertion_its_metric_else_its_type(tmp_path):
    doc = copy.deepcopy(EXPORT)
    for r in doc["results"]["results"]:
        for c in r["gradingResult"]["componentResults"]:
            if c["assertion"]["type"] == "contains":
                c["assertion"]["metric"] = "mentions_echo"
    dims = set(runs_of(doc, tmp_path)[0].rows["dimension"])
    assert dims == {"cost", "latency", "mentions_echo", "llm-rubric"}


def test_status_from_the_assertions_pass_and_its_score_kept():
    run = next(r for r in sk.import_results(PROMPTFOO_EXPORT) if r.agent == "openai:gpt-5")
    result = next(r for r in EXPORT["results"]["results"] if r["provider"]["id"] == "openai:gpt-5"
                  and r["testIdx"] == 0)
    for comp in result["gradingResult"]["componentResults"]:
        row = run.rows[(run.rows["case_id"] == "0") & (run.rows["dimension"] == comp["assertion"]["type"])].iloc[0]
        assert row["status"] == ("PASS" if comp["pass"] else "FAIL") and row["score"] == comp["score"]


def test_a_provider_error_is_error_provider_error_not_an_assertion_failure(tmp_path):
    doc = copy.deepcopy(EXPORT)
    broken = doc["results"]["results"][0]
    broken.update({"failureReason": 2, "error": "API error: 500", "gradingResult": None, "success": False})
    run = next(r for r in runs_of(doc, tmp_path) if r.agent == broken["provider"]["id"])
    rows = run.rows[run.rows["case_id"] == str(broken["testIdx"])]
    assert set(rows["status"]) == {"ERROR"} and set(rows["reason"]) == {"provider_error"}
    assert len(rows) == len(broken["testCase"]["assert"])
    # an assertion failure's error text (failureReason 1) stays a FAIL
    assert "FAIL" in set(sk.import_results(PROMPTFOO_EXPORT)[0].rows["status"])


def test_cost_and_latency_are_carried():
    run = next(r for r in sk.import_results(PROMPTFOO_EXPORT) if r.agent == "openai:gpt-5")
    result = next(r for r in EXPORT["results"]["results"] if r["provider"]["id"] == "openai:gpt-5"
                  and r["testIdx"] == 1)
    row = run.rows[run.rows["case_id"] == "1"].iloc[0]
    assert row["cost_usd"] == result["cost"] and row["latency_ms"] == result["latencyMs"]


def test_fewer_tests_than_the_config_lists_is_partial_and_decides_triage(tmp_path):
    doc = copy.deepcopy(EXPORT)
    doc["results"]["results"] = [r for r in doc["results"]["results"] if r["testIdx"] == 0]
    run = runs_of(doc, tmp_path)[0]
    assert run.partial and sk.evaluate(run).decision == "TRIAGE"


def test_output_without_results_is_an_input_error_naming_the_file(tmp_path):
    doc = copy.deepcopy(EXPORT)
    doc["results"]["results"] = []
    with pytest.raises(sk.InputError, match="results.json"):
        runs_of(doc, tmp_path)


def test_promptfoo_output_is_detected_by_content(tmp_path):
    renamed = tmp_path / "anything.txt"
    renamed.write_bytes(PROMPTFOO_EXPORT.read_bytes())
    assert {r.agent for r in sk.import_results(renamed)} == {"openai:gpt-5", "openai:gpt-5-mini"}
