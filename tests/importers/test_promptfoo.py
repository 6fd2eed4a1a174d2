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


# --------------------------------------------------------------------------- --repeat (SPEC §15, issue 25 e)
# promptfoo's evaluator (src/evaluator.ts, appendRunEvalOptionsForTestCase) loops test → repeat → var
# combination → provider → prompt and gives every (test, repeat, vars) a testIdx of its own: test k's
# repeat r of a --repeat 2 run is testIdx 2k + r. No real --repeat output is in the shared data, so this
# one is built that way from the real export's results; some versions write no repeatIndex at all.
PASSES = {0: (True, True), 1: (True, True), 2: (True, True), 3: (False, False), 4: (True, False)}


def repeat_export(*, with_repeat_index: bool) -> dict:
    doc = copy.deepcopy(EXPORT)
    template = {r["provider"]["id"]: r for r in doc["results"]["results"] if r["testIdx"] == 0}
    results = []
    for k, passes in PASSES.items():
        for r, passed in enumerate(passes):
            for provider in sorted(template):
                result = copy.deepcopy(template[provider])
                result["testIdx"] = 2 * k + r
                result["testCase"]["vars"] = result["vars"] = {"riddle": f"riddle number {k}"}
                for comp in result["gradingResult"]["componentResults"]:
                    if comp["assertion"]["type"] == "contains":
                        comp["pass"], comp["score"] = passed, float(passed)
                if with_repeat_index:
                    result["repeatIndex"] = r
                else:
                    result.pop("repeatIndex", None)
                results.append(result)
    doc["results"]["results"] = results
    doc["config"]["tests"] = [{"vars": {"riddle": f"riddle number {k}"}} for k in PASSES]
    return doc


@pytest.mark.parametrize("with_repeat_index", [False, True])
def test_repeat_2_gives_5_cases_of_2_trials_never_10_cases(tmp_path, with_repeat_index):
    runs = runs_of(repeat_export(with_repeat_index=with_repeat_index), tmp_path)
    assert len(runs) == 2
    for run in runs:
        rows = run.rows[run.rows["dimension"] == "contains"]
        assert rows["case_id"].nunique() == 5 and len(rows) == 10
        assert sorted(Counter(rows["case_id"]).values()) == [2] * 5
        assert set(rows["trial"]) == {0, 1}
        assert run.source["samples_run"] == 5 and run.source["dataset_size"] == 5 and not run.partial
        source = run.source
        assert (source["sample_epochs_run"], source["sample_epochs_planned"], source["epochs"]) == (10, 10, 2)
        if not with_repeat_index:
            assert any("writes no repeatIndex" in note for note in run.notes)
        # trial t of case k is test k's repeat t
        got = {(c, t): s for c, t, s in zip(rows["case_id"], rows["trial"], rows["status"], strict=True)}
        assert got == {(str(k), t): ("PASS" if p else "FAIL") for k, ps in PASSES.items() for t, p in enumerate(ps)}


def test_repeat_trials_give_pass_k_and_a_clustered_interval_wider_than_wilson(tmp_path):
    run = runs_of(repeat_export(with_repeat_index=False), tmp_path)[0]
    card = sk.evaluate(run)
    contains = next(d for d in card.to_dict()["dimensions"] if d["name"] == "contains")
    assert (contains["n"], contains["cases"], contains["passes"]) == (10, 5, 7)
    # pass^2 = mean over cases of C(c, 2) / C(2, 2): cases 0-2 pass both trials
    assert contains["pass_k"]["2"] == pytest.approx(3 / 5)
    # trials of one case agree more than trials of different cases: the case-clustered interval is wider
    assert contains["deff"] > 1
    assert contains["ci_cluster_low"] < contains["wilson_low"]
    assert contains["ci_cluster_high"] > contains["wilson_high"]
    assert (contains["wilson_low"], contains["wilson_high"]) == pytest.approx(sk.wilson_interval(7, 10))
    # trials repeat, so the headline interval is the clustered one (SPEC §18)
    assert contains["interval_method"] == "wilson_clustered"
    assert (contains["ci_low"], contains["ci_high"]) == (contains["ci_cluster_low"], contains["ci_cluster_high"])
