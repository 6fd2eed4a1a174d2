"""DeepEval importer (SPEC §15 ``deepeval``): every mapping rule, on the files DeepEval 4.3.1 wrote.

The reference figures are DeepEval's own: the ``metricsScores``, ``testPassed`` and ``testFailed``
the files hold (DeepEval's ``TestRun.construct_metrics_scores`` and
``calculate_test_passes_and_fails``), restated below from the shared ``expected.json`` section
``deepeval`` (written by ``make_expected.py`` with DeepEval's venv), and per-case outcomes read
here from the files' own JSON with the standard library — never from scorekit.
"""

from __future__ import annotations

import copy
import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from import_logs import DATA

import scorekit as sk
from scorekit.importers import FORMATS, _deepeval

RUN_A = DATA / "deepeval" / "run-a"
CACHE = RUN_A / ".deepeval" / ".latest_test_run.json"
EXPORT = RUN_A / "test_run_20261206_201157.json"
# VARIANT b of make_deepeval_runs.py, run here with deepeval 4.3.1 (5 cases x 2 metrics, Keyword Guard raising on 2)
RUN_B = DATA / "deepeval" / "run-b"
CACHE_B = RUN_B / ".deepeval" / ".latest_test_run.json"
EXPORT_B = RUN_B / "test_run_20261207_192429.json"
# DeepEval's own figures in both run-b files (metricsScores, testPassed/testFailed), restated
EXPECTED_B = {"Exact Match": (3, 2, 0), "Keyword Guard": (2, 1, 2)}

# expected.json, section "deepeval" (both files): DeepEval's own figures
EXPECTED_HEADLINE = {"testPassed": 3, "testFailed": 3}
EXPECTED_METRICS = {  # metric: (passes, fails, errors)
    "Exact Match": (4, 2, 0),
    "Length Ratio": (6, 0, 0),
    "Keyword Guard": (4, 1, 1),
}


def _data(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return doc.get("testRunData", doc)


def _write(tmp_path: Path, data: dict[str, Any], name: str = "test_run_x.json", wrap: bool = False) -> Path:
    out = tmp_path / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"testRunData": data} if wrap else data), encoding="utf-8")
    return out


def _one(path: Path) -> Any:
    runs = sk.import_results(path, format="deepeval")
    assert len(runs) == 1
    return runs[0]


def _row(run: Any, case: str, metric: str, trial: int = 0) -> dict[str, Any]:
    rows = run.rows
    hit = rows[(rows["case_id"] == case) & (rows["dimension"] == metric) & (rows["trial"] == trial)]
    assert len(hit) == 1
    return {k: v for k, v in hit.iloc[0].to_dict().items() if not (isinstance(v, float) and v != v)}


def _dims(card: Any) -> dict[str, dict[str, Any]]:
    return {d["name"]: d for d in card.to_dict()["dimensions"]}


# --------------------------------------------------------------------------- the tool's own figures
def test_deepeval_is_registered_format() -> None:
    assert FORMATS["deepeval"] == "scorekit.importers._deepeval"


@pytest.mark.parametrize("path", [CACHE, EXPORT], ids=["latest_test_run", "export"])
def test_counts_per_metric_equal_deepevals_metrics_scores(path: Path) -> None:
    run = _one(path)
    data = _data(path)
    own = {m["metric"]: (m["passes"], m["fails"], m["errors"]) for m in data["metricsScores"]}
    assert own == EXPECTED_METRICS
    card = sk.evaluate(run, policy={"purpose": "exploratory"})
    dims = _dims(card)
    assert set(dims) == set(own)
    for metric, (passes, fails, errors) in own.items():
        assert (dims[metric]["passes"], dims[metric]["fails"], dims[metric]["errors"]) == (passes, fails, errors)
        assert dims[metric]["pass_k"]["1"] == pytest.approx(passes / (passes + fails))
    assert run.source["metrics"]["metricsScores"]["Keyword Guard"]["errors"] == 1
    assert {k: run.source["metrics"][k] for k in EXPECTED_HEADLINE} == EXPECTED_HEADLINE


@pytest.mark.parametrize("path", [CACHE, EXPORT], ids=["latest_test_run", "export"])
def test_test_passed_equals_cases_whose_every_metric_row_passes(path: Path) -> None:
    rows = _one(path).rows
    passed = rows.groupby("case_id")["status"].apply(lambda s: bool((s == "PASS").all()))
    assert int(passed.sum()) == _data(path)["testPassed"] == 3
    assert int((~passed).sum()) == _data(path)["testFailed"] == 3


@pytest.mark.parametrize("path", [CACHE_B, EXPORT_B], ids=["latest_test_run", "export"])
def test_variant_b_with_two_raising_metrics_equals_deepevals_own_figures(path: Path) -> None:
    run = _one(path)
    data = _data(path)
    own = {m["metric"]: (m["passes"], m["fails"], m["errors"]) for m in data["metricsScores"]}
    assert own == EXPECTED_B and (data["testPassed"], data["testFailed"]) == (1, 4)
    assert (run.agent, run.task) == ("agent-b", "skq-b") and set(run.rows["agent"]) == {"agent-b"}
    dims = _dims(sk.evaluate(run, policy={"purpose": "exploratory"}))
    assert set(dims) == set(own)
    for metric, (passes, fails, errors) in own.items():
        assert (dims[metric]["passes"], dims[metric]["fails"], dims[metric]["errors"]) == (passes, fails, errors)
        assert dims[metric]["pass_k"]["1"] == pytest.approx(passes / (passes + fails))
    for case in data["testCases"]:  # per case, from the file's own metricsData
        for metric in case["metricsData"]:
            row = _row(run, case["name"], metric["name"])
            if metric.get("error") is not None:
                assert metric["success"] is False and "score" not in metric
                assert (row["status"], row["reason"]) == ("ERROR", "metric_error")
                assert "keyword service unavailable" in row["detail"]
            else:
                assert row["status"] == ("PASS" if metric["success"] else "FAIL")
    passed = run.rows.groupby("case_id")["status"].apply(lambda s: bool((s == "PASS").all()))
    assert (int(passed.sum()), int((~passed).sum())) == (data["testPassed"], data["testFailed"])
    assert not run.partial
    assert sk.import_results(path, format="auto")[0].rows.equals(run.rows)


def test_variant_b_through_the_cli_errors_keep_the_gate_from_passing(run_cli, tmp_path: Path) -> None:
    code, out, err = run_cli("import", "--from", "deepeval", EXPORT_B, "--out-dir", tmp_path / "imp")
    assert code == 0, err
    (folder,) = [p for p in (tmp_path / "imp").iterdir() if p.is_dir()]
    rows = sk.read_rows(folder / "results.jsonl")
    assert len(rows) == 10 and set(rows["agent"]) == {"agent-b"} and int((rows["status"] == "ERROR").sum()) == 2
    policy = tmp_path / "p.yml"
    policy.write_text('purpose: release\ngate:\n  required_dimensions: ["Keyword Guard"]\n'
                      '  thresholds:\n    "Keyword Guard": 0.5\n', encoding="utf-8")
    code, out, err = run_cli("run", "--from", "deepeval", "--results", EXPORT_B, "--policy", policy,
                             "--out-dir", tmp_path / "out", "--gate")
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert code == 1 and card["decision"] == "INCOMPLETE" and card["agent"]["name"] == "agent-b", (out, err)


def test_every_case_and_metric_maps_from_the_files_own_fields() -> None:
    run = _one(EXPORT)
    for case in _data(EXPORT)["testCases"]:
        for metric in case["metricsData"]:
            row = _row(run, case["name"], metric["name"])
            if metric.get("error"):
                want = "ERROR"
            else:
                want = "PASS" if metric["success"] else "FAIL"
            assert row["status"] == want
            assert row.get("score") == metric.get("score")
            assert row["evaluator"] == f"deepeval:{metric['name']}"
            assert row["input"] == case["input"]
            assert row["context"] == {"expected_output": case["expectedOutput"]}
            assert row["agent_output"] == case["actualOutput"]
    assert len(run.rows) == sum(len(c["metricsData"]) for c in _data(EXPORT)["testCases"]) == 18


def test_cache_and_export_of_one_run_import_the_same_rows() -> None:
    a, b = _one(CACHE), _one(EXPORT)
    assert a.rows.equals(b.rows)
    assert sk.evaluate(a).hashes["results"] == sk.evaluate(b).hashes["results"]


# --------------------------------------------------------------------------- mapping rules
def test_a_score_between_0_and_1_is_carried_but_success_decides() -> None:
    run = _one(EXPORT)
    row = _row(run, "case-2", "Length Ratio")
    assert (row["status"], row["score"]) == ("PASS", 0.75)
    assert row["detail"] == "score 0.75, threshold 0.5: 3 of 4 characters"
    card = sk.evaluate(run, policy={"purpose": "exploratory", "partial": "fail"})
    assert _dims(card)["Length Ratio"]["pass_k"]["1"] == 1.0  # never partial credit


def test_a_failed_metric_keeps_threshold_and_reason_in_detail() -> None:
    row = _row(_one(EXPORT), "case-4", "Exact Match")
    assert (row["status"], row["reason"]) == ("FAIL", "metric_failed")
    assert row["detail"] == "score 0, threshold 1: expected 'Jupiter'"


def test_an_errored_metric_is_error_metric_error_with_its_text() -> None:
    run = _one(EXPORT)
    row = _row(run, "case-3", "Keyword Guard")
    assert (row["status"], row["reason"]) == ("ERROR", "metric_error")
    assert row["detail"] == "RuntimeError: keyword service unavailable"
    assert "score" not in row
    card = sk.evaluate(run, policy={"purpose": "exploratory"})
    findings = json.dumps(card.to_dict())
    assert "keyword service unavailable" in findings


def test_a_metric_without_score_or_success_is_error_as_deepeval_counts_it(tmp_path: Path) -> None:
    data = _data(EXPORT)
    del data["testCases"][0]["metricsData"][0]["score"]
    data["testCases"][1]["metricsData"][0]["success"] = None
    run = _one(_write(tmp_path, data))
    assert _row(run, "case-0", "Exact Match")["status"] == "ERROR"
    assert _row(run, "case-1", "Exact Match")["reason"] == "metric_error"
    assert any("metricsScores for Exact Match" in n for n in run.notes)  # the file's own figure now disagrees


def test_input_and_expected_output_enter_the_suite_hash_actual_output_the_results(tmp_path: Path) -> None:
    base = sk.evaluate(_one(EXPORT)).hashes
    data = _data(EXPORT)
    data["testCases"][0]["expectedOutput"] = "four"
    assert sk.evaluate(_one(_write(tmp_path, data, "a.json"))).hashes["suite"] != base["suite"]
    data = _data(EXPORT)
    data["testCases"][0]["input"] = "What is 2 + 2?"
    assert sk.evaluate(_one(_write(tmp_path, data, "b.json"))).hashes["suite"] != base["suite"]
    data = _data(EXPORT)
    data["testCases"][0]["actualOutput"] = "four"
    changed = sk.evaluate(_one(_write(tmp_path, data, "c.json"))).hashes
    assert changed["suite"] == base["suite"] and changed["results"] != base["results"]


def test_agent_is_hyperparameters_model_task_the_identifier() -> None:
    run = _one(CACHE)
    assert (run.agent, run.task) == ("agent-a", "skq-a")
    assert set(run.rows["agent"]) == {"agent-a"}
    assert any("hyperparameters.model" in n for n in run.notes)


def test_agent_without_a_model_is_the_identifier_else_the_files_name(tmp_path: Path) -> None:
    data = _data(EXPORT)
    del data["hyperparameters"]
    for case in data["testCases"]:
        del case["metadata"]
    assert _one(_write(tmp_path, data)).agent == "skq-a"
    del data["identifier"]
    assert _one(_write(tmp_path, data)).agent == "test_run_x"
    cache = _write(tmp_path, data, "my-project/.deepeval/.latest_test_run.json", wrap=True)
    run = _one(cache)
    assert run.agent == "my-project"
    assert any("names no model" in n for n in run.notes)


def test_cost_and_latency_are_the_agents_the_judges_cost_goes_to_source(tmp_path: Path) -> None:
    data = _data(EXPORT)
    data["testCases"][0].update(tokenCost=0.002, completionTime=1.5)
    data["testCases"][0]["metricsData"][0].update(evaluationCost=0.01, evaluationModel="gpt-4o")
    run = _one(_write(tmp_path, data))
    row = _row(run, "case-0", "Exact Match")
    assert (row["cost_usd"], row["latency_s"], row["evaluator"]) == (0.002, 1.5, "deepeval:Exact Match@gpt-4o")
    assert run.source["metrics"]["evaluationCost"] == 0.01


def test_repeated_names_are_trials_of_one_case(tmp_path: Path) -> None:
    data = _data(EXPORT)
    again = copy.deepcopy(data["testCases"])
    for case in again:
        for m in case["metricsData"]:
            if m["name"] == "Exact Match" and case["name"] == "case-0":
                m.update(success=False, score=0.0)
    data["testCases"] += again
    run = _one(_write(tmp_path, data))
    assert sorted(set(run.rows["trial"])) == [0, 1]
    assert len(set(run.rows["case_id"])) == 6
    card = sk.evaluate(run, policy={"purpose": "exploratory", "pass_k": [1, 2]})
    em = _dims(card)["Exact Match"]
    # pass^2 over cases = mean over cases of C(c,2)/C(2,2): cases 1, 3, 5 pass both trials; 0 passes one
    assert em["pass_k"]["2"] == pytest.approx(3 / 6)
    assert any("trials" in n for n in run.notes)


def test_a_case_without_metrics_data_is_error_on_every_metric(tmp_path: Path) -> None:
    data = _data(EXPORT)
    del data["testCases"][5]["metricsData"]
    refused = _write(tmp_path, data, "refused.json")
    _refused(refused, "metricsScores[0]: 6 results is more than the file holds (5, Exact Match results)")
    del data["metricsScores"]  # DeepEval's own counts would name the missing results: without them, ERROR rows
    run = _one(_write(tmp_path, data))
    for metric in EXPECTED_METRICS:
        row = _row(run, "case-5", metric)
        assert (row["status"], row["reason"]) == ("ERROR", "unscored")


def test_a_conversational_case_is_read_with_its_turns(tmp_path: Path) -> None:
    data = _data(EXPORT)
    data["conversationalTestCases"] = [{
        "name": "chat-0", "success": False, "scenario": "a refund", "expectedOutcome": "refund issued",
        "turns": [{"role": "user", "content": "refund please", "order": 0},
                  {"role": "assistant", "content": "done", "order": 1}],
        "metricsData": [{"name": "Conversation Completeness", "threshold": 0.5, "success": False, "score": 0.4,
                         "reason": "no refund id", "strictMode": False, "evaluationModel": "gpt-4.1"}],
        "runDuration": 0.1, "order": 0}]
    run = _one(_write(tmp_path, data))
    row = _row(run, "chat-0", "Conversation Completeness")
    assert (row["status"], row["score"]) == ("FAIL", 0.4)
    assert row["agent_output"] == "user: refund please\nassistant: done"
    assert row["input"] == {"scenario": "a refund"} and row["context"] == {"expected_outcome": "refund issued"}
    assert row["evaluator"] == "deepeval:Conversation Completeness@gpt-4.1"


def test_a_metric_on_a_traced_span_is_a_row_of_its_span(tmp_path: Path) -> None:
    data = _data(EXPORT)
    data["testCases"][0]["trace"] = {"uuid": "t", "startTime": "x", "endTime": "y", "toolSpans": [
        {"uuid": "s", "name": "search", "status": "SUCCESS", "type": "tool", "startTime": "x", "endTime": "y",
         "input": {"q": "2+2"}, "metricsData": [{"name": "Tool Correctness", "success": True, "score": 1.0,
                                                 "threshold": 0.5}]}]}
    run = _one(_write(tmp_path, data))
    row = _row(run, "case-0/search", "Tool Correctness")
    assert (row["status"], row["input"]) == ("PASS", {"q": "2+2"})


def test_a_case_evaluated_on_its_spans_only_is_its_spans(tmp_path: Path) -> None:
    data = {"testPassed": 0, "testFailed": 1}
    data["testCases"] = [{"name": "traced", "success": False, "input": "q", "trace": {"uuid": "t", "llmSpans": [
        {"uuid": "s1", "name": "answer", "metricsData": [{"name": "Answer Relevancy", "success": False, "score": 0.2,
                                                          "threshold": 0.5, "flaky": True}]}]}}]
    run = _one(_write(tmp_path, data))
    assert list(run.rows["case_id"]) == ["traced/answer"]  # no ERROR row for the case itself
    assert _row(run, "traced/answer", "Answer Relevancy")["status"] == "FAIL"
    assert any("flaky" in n for n in run.notes)


def test_a_run_where_no_metric_ran_is_an_input_error(tmp_path: Path) -> None:
    path = _write(tmp_path, {"testCases": [{"name": "a", "input": "q"}], "testPassed": 0, "testFailed": 0})
    with pytest.raises(sk.InputError, match="no metric ran"):
        sk.import_results(path, format="deepeval")


def test_tools_called_are_tool_calls(tmp_path: Path) -> None:
    data = _data(EXPORT)
    data["testCases"][0]["toolsCalled"] = [{"name": "calc", "inputParameters": {"x": "2+2"}}]
    data["testCases"][0]["expectedTools"] = [{"name": "calc"}]
    row = _row(_one(_write(tmp_path, data)), "case-0", "Exact Match")
    assert row["tool_calls"] == [{"name": "calc", "arguments": {"x": "2+2"}}]
    assert row["context"]["expected_tools"] == [{"name": "calc"}]


def test_rows_pass_validation_and_every_decision_is_noted() -> None:
    run = _one(EXPORT)
    sk.read_rows(run.rows)
    notes = " ".join(run.notes)
    for word in ("case_id", "dimension", "success", "metric_error", "input", "agent ="):
        assert word in notes


# --------------------------------------------------------------------------- partial runs
def test_a_run_deepeval_did_not_wrap_up_is_partial_and_decides_triage(tmp_path: Path) -> None:
    assert _one(EXPORT).partial is False
    data = _data(EXPORT)
    del data["testPassed"], data["testFailed"]
    run = _one(_write(tmp_path, data))
    assert run.partial is True and bool(run.rows["partial_run"].all())
    policy = {"gate": {"thresholds": {m: 0.1 for m in EXPECTED_METRICS}}}
    assert sk.evaluate(run, policy=policy).decision == "TRIAGE"


# --------------------------------------------------------------------------- detection and directories
def test_detect_by_content_not_name(tmp_path: Path) -> None:
    assert _deepeval.detect(CACHE) and _deepeval.detect(EXPORT)
    renamed = tmp_path / "whatever.txt"
    shutil.copy(EXPORT, renamed)
    assert _deepeval.detect(renamed)
    assert sk.import_results(renamed)[0].source["format"] == "deepeval"
    rows = tmp_path / "test_run_rows.json"
    rows.write_text('[{"id": "r1", "dimension": "pii", "agent_output": "testCases"}]', encoding="utf-8")
    assert not _deepeval.detect(rows)
    others = [p for p in DATA.rglob("*") if p.is_file() and "deepeval" not in p.relative_to(DATA).parts]
    assert others and not [p for p in others if _deepeval.detect(p)]


def test_auto_detects_the_hidden_cache_file() -> None:
    assert sk.import_results(CACHE)[0].source["format"] == "deepeval"


def test_a_directory_finds_deepevals_hidden_cache_but_no_other_hidden_file(tmp_path: Path) -> None:
    runs = sk.import_results(RUN_A, format="deepeval")
    assert sorted(Path(r.source["files"][0]).name for r in runs) == [".latest_test_run.json", EXPORT.name]
    assert len(sk.import_results(RUN_A)) == 2  # auto: the same two
    folder = tmp_path / "proj"
    shutil.copytree(RUN_A, folder)
    shutil.copy(EXPORT, folder / ".deepeval" / ".latest_run_full.json")  # hidden, not named by the format
    assert len(sk.import_results(folder, format="deepeval")) == 2


def test_a_cache_holding_only_a_link_is_no_samples_and_skipped_in_a_directory(tmp_path: Path) -> None:
    link = _write(tmp_path, {"testRunLink": "https://app.confident-ai.com/x"}, "p/.deepeval/.latest_test_run.json")
    with pytest.raises(sk.InputError, match="testRunLink"):
        sk.import_results(link)
    shutil.copy(EXPORT, tmp_path / "p" / EXPORT.name)
    runs = sk.import_results(tmp_path / "p", format="deepeval")
    assert len(runs) == 1 and any("testRunLink" in n for n in runs[0].notes)


def test_a_run_without_test_cases_is_an_input_error(tmp_path: Path) -> None:
    path = _write(tmp_path, {"testCases": [], "conversationalTestCases": [], "metricsScores": []})
    with pytest.raises(sk.InputError, match="no test cases"):
        sk.import_results(path, format="deepeval")


# --------------------------------------------------------------------------- the CLI
def test_cli_import_writes_rows_source_and_policy_stub(run_cli, tmp_path: Path) -> None:
    code, out, err = run_cli("import", "--from", "deepeval", EXPORT, "--out-dir", tmp_path)
    assert code == 0, err
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    rows = sk.read_rows(folder / "results.jsonl")
    assert len(rows) == 18 and set(rows["agent"]) == {"agent-a"}
    source = json.loads((folder / "source.json").read_text())
    assert source["format"] == "deepeval" and source["metrics"]["testPassed"] == 3
    stub = (tmp_path / "policy.stub.yml").read_text()
    for metric in EXPECTED_METRICS:
        assert f'"{metric}"' in stub
    assert "agent-a" in out and "skq-a" in out


def test_cli_run_from_deepeval_gates_as_the_evidence_says(run_cli, tmp_path: Path) -> None:
    failing = tmp_path / "fail.yml"
    failing.write_text('purpose: release\ngate:\n  thresholds:\n    "Exact Match": 0.9\n', encoding="utf-8")
    code, out, err = run_cli("run", "--from", "deepeval", "--results", EXPORT, "--policy", failing,
                             "--out-dir", tmp_path / "a", "--gate")
    assert code == 1, err  # 4 of 6 cannot reach 0.9
    assert "decision: FAIL" in out
    passing = tmp_path / "pass.yml"
    passing.write_text('purpose: release\ngate:\n  required_dimensions: ["Length Ratio"]\n'
                       '  thresholds:\n    "Length Ratio": 0.5\n', encoding="utf-8")
    code, out, err = run_cli("run", "--from", "deepeval", "--results", EXPORT, "--policy", passing,
                             "--out-dir", tmp_path / "b", "--gate")
    assert code == 0, (out, err)  # Length Ratio: 6 of 6 pass, DeepEval's own count
    data = json.loads((tmp_path / "b" / "scorecard.json").read_text())
    assert data["decision"] == "PASS" and data["source"]["format"] == "deepeval"
    assert data["agent"]["name"] == "agent-a"
    partial = _data(EXPORT)
    del partial["testPassed"], partial["testFailed"]
    code, out, err = run_cli("run", "--from", "deepeval", "--results", _write(tmp_path, partial), "--policy", passing,
                             "--out-dir", tmp_path / "c", "--gate")
    assert code == 1 and "decision: TRIAGE" in out


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize("path", [CACHE, EXPORT], ids=["latest_test_run", "export"])
def test_a_deepeval_file_without_from_exits_2_naming_the_format(run_cli, tmp_path: Path, path: Path,
                                                               command: str) -> None:
    args = ("run", "--results", path, "--out-dir", tmp_path) if command == "run" else ("validate", path)
    code, out, err = run_cli(*args)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "a DeepEval test run" in err and "--from deepeval" in err and str(path) in err


# --------------------------------------------------------------------------- damaged files (SPEC §20)
def _refused(path: Path, position: str) -> str:
    with pytest.raises(sk.InputError) as err:
        sk.import_results(path, format="deepeval")
    message = str(err.value)
    assert str(path) in message and position in message, message
    assert "\n" not in message
    return message


DAMAGE = [
    (lambda d: d["testCases"].__setitem__(2, [1]), "testCases[2]: expected an object, found a list"),
    (lambda d: d.__setitem__("testCases", {"a": 1}), "testCases: expected a list, found an object"),
    (lambda d: d["testCases"][1].pop("name"), "testCases[1].name: missing"),
    (lambda d: d["testCases"][1].__setitem__("name", ["x"]), "testCases[1].name: expected a string or an integer"),
    (lambda d: d["testCases"][0].__setitem__("metricsData", "x"), "testCases[0].metricsData: expected a list"),
    (lambda d: d["testCases"][0]["metricsData"].__setitem__(1, 5),
     "testCases[0].metricsData[1]: expected an object, found a number"),
    (lambda d: d["testCases"][0]["metricsData"][1].pop("name"), "testCases[0].metricsData[1].name"),
    (lambda d: d["testCases"][3]["metricsData"][0].__setitem__("success", "true"),
     "testCases[3].metricsData[0].success: expected true, false or null, found a string"),
    (lambda d: d["testCases"][3]["metricsData"][0].__setitem__("score", "1"),
     "testCases[3].metricsData[0].score: expected a number, found a string"),
    (lambda d: d["testCases"][3]["metricsData"][2].__setitem__("error", {"msg": "x"}),
     "testCases[3].metricsData[2].error: expected a string, found an object"),
    (lambda d: d["testCases"][0].__setitem__("actualOutput", 4), "testCases[0].actualOutput: expected a string"),
    (lambda d: d["metricsScores"][0].__setitem__("passes", 40),
     "metricsScores[0].passes: 40 is more than the file holds (6, Exact Match results)"),
    (lambda d: d["metricsScores"][2].__setitem__("fails", 5), "metricsScores[2]: 10 results is more than the file"),
    (lambda d: d["metricsScores"][1].__setitem__("scores", [1.0] * 7), "metricsScores[1].scores: 7 scores is more"),
    (lambda d: d.__setitem__("testPassed", 7), "testPassed: 7 is more than the file holds (6, test cases)"),
    (lambda d: d.__setitem__("testFailed", "3"), "testFailed: expected a whole number"),
    (lambda d: d.__setitem__("hyperparameters", [1]), "hyperparameters: expected an object"),
]


@pytest.mark.parametrize(("edit", "position"), DAMAGE, ids=[p[:40] for _, p in DAMAGE])
@pytest.mark.parametrize("wrap", [False, True], ids=["export", "cache"])
def test_a_damaged_run_is_an_input_error_naming_file_and_position(tmp_path, edit, position, wrap) -> None:
    data = _data(EXPORT)
    edit(data)
    path = _write(tmp_path, data, wrap=wrap)
    message = _refused(path, position)
    assert ("testRunData." in message) is wrap


def test_testrundata_of_the_wrong_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"testRunData": [1]}', encoding="utf-8")
    _refused(path, "testRunData: expected an object, found a list")


@pytest.mark.parametrize(("edit", "position"), [DAMAGE[5], DAMAGE[11], DAMAGE[2]], ids=["shape", "count", "key"])
def test_cli_import_of_a_damaged_run_exits_2_in_one_line(run_cli, tmp_path, edit, position) -> None:
    data = _data(EXPORT)
    edit(data)
    path = _write(tmp_path, data)
    code, out, err = run_cli("import", "--from", "deepeval", path, "--out-dir", tmp_path / "out")
    assert code == 2, (out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path) in lines[0] and position in lines[0], err
    assert "Traceback" not in err


def _nodes(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        out.append((*path, key))
        out += _nodes(value, (*path, key))
    return out


def test_any_field_replaced_by_a_wrong_kind_imports_or_is_an_input_error_never_a_traceback(tmp_path: Path) -> None:
    doc = _data(EXPORT)
    paths = _nodes(doc)
    refused = 0
    for path in paths:
        for wrong in (5, "x", [1], {"z": None}, None, float("nan")):
            damaged = copy.deepcopy(doc)
            node = damaged
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = wrong
            out = tmp_path / "run.json"
            out.write_text(json.dumps(damaged), encoding="utf-8")
            try:
                sk.import_results(out, format="deepeval")
            except sk.InputError as exc:
                assert str(out) in str(exc) and "\n" not in str(exc)
                refused += 1
    assert refused > len(paths)


# --------------------------------------------------------------------------- properties
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_counts_are_preserved_when_test_cases_are_shuffled(tmp_path: Path, seed: int) -> None:
    data = _data(EXPORT)
    random.Random(seed).shuffle(data["testCases"])
    run = _one(_write(tmp_path, data))
    counts = run.rows.groupby(["dimension", "status"]).size().to_dict()
    for metric, (passes, fails, errors) in EXPECTED_METRICS.items():
        assert (counts.get((metric, "PASS"), 0), counts.get((metric, "FAIL"), 0),
                counts.get((metric, "ERROR"), 0)) == (passes, fails, errors)


_METRIC = st.fixed_dictionaries({"name": st.just("M")}, optional={
    "success": st.one_of(st.booleans(), st.none()),
    "score": st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False), st.integers(-2, 2)),
    "error": st.one_of(st.none(), st.just(""), st.text(min_size=1, max_size=8)),
    "threshold": st.one_of(st.none(), st.floats(0, 1)),
})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(metrics=st.lists(_METRIC, min_size=1, max_size=6))
def test_a_row_passes_only_when_its_metric_succeeded_with_a_score_and_no_error(tmp_path: Path,
                                                                                metrics: list[dict[str, Any]]) -> None:
    cases = [{"name": f"c{i}", "input": "q", "actualOutput": "a", "metricsData": [m]} for i, m in enumerate(metrics)]
    run = _one(_write(tmp_path, {"testCases": cases, "testPassed": 0, "testFailed": 0}))
    for i, m in enumerate(metrics):
        row = _row(run, f"c{i}", "M")
        ok = m.get("success") is True and m.get("score") is not None and not (m.get("error") or "").strip()
        assert (row["status"] == "PASS") == ok
        if "score" in row:
            assert 0 <= row["score"] <= 1
    sk.read_rows(run.rows)


def test_no_message_leaks_a_traceback_word() -> None:
    assert not re.search(r"Traceback", json.dumps(_one(EXPORT).source))
