"""Inspect AI logs → rows (SPEC §15 bullet ``inspect``): every mapping rule, and the acceptance of issue 14.

Expected numbers are computed from the logs' own JSON (import_logs.py reads them without scorekit).
"""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from import_logs import (
    INSPECT,
    MMLU,
    NO_SAMPLES,
    POPULARITY,
    QUIZ,
    SECURITY,
    STREAMING,
    TOOL_ERROR,
    expected_counts,
    inspect_accuracy,
    inspect_pass_at,
    json_log,
    pass_hat,
    raw_log,
    recompress,
    write_json_log,
)

import scorekit as sk
from scorekit.importers import import_results
from scorekit.importers._inspect import value_outcome

SCORED_LOGS = [POPULARITY, QUIZ, STREAMING, MMLU, SECURITY]


def one(path: Path | str, **kw: object) -> sk.ImportedRun:
    runs = import_results(path, **kw)
    assert len(runs) == 1
    return runs[0]


def statuses(run: sk.ImportedRun, dimension: str) -> Counter[str]:
    part = run.rows[run.rows["dimension"] == dimension]
    kinds = ["PARTIAL" if pd.isna(s) else s for s in part["status"]]
    return Counter(kinds)


def sample(sid: object, epoch: int = 1, **scores: object) -> dict[str, object]:
    return {"id": sid, "epoch": epoch, "input": f"q{sid}", "target": "a",
            "scores": {k: {"value": v} for k, v in scores.items()}}


# --------------------------------------------------------------------------- mapping rules
def test_case_id_is_the_sample_id_and_trial_is_epoch_minus_one():
    run = one(STREAMING)
    log = raw_log(STREAMING)
    assert sorted(zip(run.rows["case_id"], run.rows["trial"], strict=True)) == sorted(
        (str(s["id"]), s["epoch"] - 1) for s in log["samples"])
    assert set(run.rows["trial"]) == {0, 1}


def test_agent_is_the_eval_model_and_task_the_eval_task():
    run = one(POPULARITY)
    assert (run.agent, run.task) == ("openai/gpt-4o-mini", "popularity")
    assert set(run.rows["agent"]) == {"openai/gpt-4o-mini"}


def test_dimension_is_the_scorer_name_and_a_dict_score_gives_scorer_key(tmp_path):
    log = json_log([sample(1, multi={"a": "C", "b": "I"}, plain="C")], scorers=["multi", "plain"])
    run = one(write_json_log(tmp_path / "log.json", log))
    got = dict(zip(run.rows["dimension"], run.rows["status"], strict=True))
    assert got == {"multi.a": "PASS", "multi.b": "FAIL", "plain": "PASS"}


def test_evaluator_is_inspect_scorer_at_the_grader_model_the_log_names():
    run = one(QUIZ)
    evaluators = dict(zip(run.rows["dimension"], run.rows["evaluator"], strict=True))
    assert evaluators["match"] == "inspect:match"
    assert evaluators["model_graded_qa"] == "inspect:model_graded_qa@mockllm/grader"


def test_values_c_true_1_pass_i_false_0_fail_n_fails_no_answer():
    assert [value_outcome(v)["status"] for v in ("C", True, 1, 1.0)] == ["PASS"] * 4
    assert [value_outcome(v)["status"] for v in ("I", False, 0, 0.0)] == ["FAIL"] * 4
    assert value_outcome("N") == {"status": "FAIL", "reason": "no_answer", "detail": "N: no answer"}


def test_partial_credit_p_is_score_one_half_decided_by_the_policy_partial_rule():
    run = one(QUIZ)
    rubric = run.rows[(run.rows["dimension"] == "rubric") & run.rows["score"].notna()]
    assert set(rubric["score"]) == {0.5} and rubric["status"].isna().all()
    raw = raw_log(QUIZ)
    own = [(s.get("scores") or {}).get("rubric", {}).get("value") for s in raw["samples"]]
    assert len(rubric) == own.count("P")
    for policy, status in (({"partial": "fail"}, "FAIL"), ({"partial": {"min": 0.5}}, "PASS"),
                           ({"partial": "abstain"}, "ABSTAIN")):
        ev = sk.evaluate(run, policy=policy).evidence
        assert set(ev.loc[ev["id"].isin(rubric["id"]), "status"].astype(str)) == {status}


def test_numbers_in_zero_one_are_scores_and_outside_are_errors():
    assert value_outcome(0.25) == {"score": 0.25}
    assert value_outcome(2)["status"] == "ERROR" and value_outcome(-0.5)["status"] == "ERROR"


def test_unscored_nan_is_error_unscored():
    run = one(QUIZ)
    raw = raw_log(QUIZ)
    nan_ids = {(str(s["id"]), s["epoch"] - 1) for s in raw["samples"]
               if isinstance(s["scores"].get("model_graded_qa", {}).get("value"), float)
               and math.isnan(s["scores"]["model_graded_qa"]["value"])}
    assert nan_ids
    rows = run.rows[run.rows["dimension"] == "model_graded_qa"]
    keys = zip(rows["case_id"], rows["trial"], rows["reason"], strict=True)
    got = {(c, t) for c, t, r in keys if r == "unscored"}
    assert got == nan_ids
    assert any("NaN" in n for n in run.notes)


def test_json_log_nan_reads_as_unscored_never_as_a_number(tmp_path):
    log = json_log([sample(1, s=float("nan")), sample(2, s="C")], scorers=["s"])
    run = one(write_json_log(tmp_path / "log.json", log))
    assert "NaN" in (tmp_path / "log.json").read_text()
    reasons = dict(zip(run.rows["case_id"], run.rows["reason"].fillna(""), strict=True))
    assert reasons == {"1": "unscored", "2": ""}


def test_errored_sample_is_error_sample_error_on_each_of_the_tasks_scorers():
    run = one(QUIZ)
    crashed = run.rows[(run.rows["case_id"] == "7") & (run.rows["trial"] == 1)]
    assert set(crashed["dimension"]) == {"match", "includes", "rubric", "overlap", "model_graded_qa"}
    assert set(crashed["status"]) == {"ERROR"} and set(crashed["reason"]) == {"sample_error"}


def test_sample_without_scores_is_error_sample_error():
    run = one(TOOL_ERROR)
    assert list(run.rows["dimension"]) == ["includes"]  # the scorer the log's results name
    assert list(run.rows["reason"]) == ["sample_error"]


def test_dict_scorer_whose_sample_crashed_is_error_on_every_key_the_log_shows(tmp_path):
    crashed = {"id": 2, "epoch": 1, "input": "q", "target": "a", "error": {"message": "boom"}}
    log = json_log([sample(1, multi={"a": "C", "b": "C"}), crashed], scorers=["multi"])
    run = one(write_json_log(tmp_path / "log.json", log))
    rows = run.rows[run.rows["case_id"] == "2"]
    assert sorted(rows["dimension"]) == ["multi.a", "multi.b"] and set(rows["reason"]) == {"sample_error"}


def test_the_tasks_scorers_are_the_union_of_eval_spec_results_and_samples(tmp_path):
    log = json_log([sample(1, c="C")], scorers=["a"], results=[{"name": "b", "scorer": "b", "metrics": {}}])
    run = one(write_json_log(tmp_path / "log.json", log))
    got = dict(zip(run.rows["dimension"], run.rows["reason"].fillna(""), strict=True))
    assert got == {"a": "unscored", "b": "unscored", "c": ""}  # listed but not scored: ERROR, never dropped


def test_a_listed_sample_absent_from_the_log_is_error_never_dropped(tmp_path):
    log = json_log([sample(1, s="C")], scorers=["s"], sample_ids=[1, 2], epochs=2)
    run = one(write_json_log(tmp_path / "log.json", log))
    errors = run.rows[run.rows["reason"] == "sample_error"]
    assert sorted(zip(errors["case_id"], errors["trial"], strict=True)) == [("1", 1), ("2", 0), ("2", 1)]
    assert run.partial  # 1 of 2 samples ran


def test_sample_input_and_target_enter_the_suite_hash(tmp_path):
    def suite(target: str, inp: str = "q") -> str:
        s = {"id": 1, "epoch": 1, "input": inp, "target": target, "scores": {"s": {"value": "C"}}}
        path = write_json_log(tmp_path / f"{target}{inp}.json", json_log([s], scorers=["s"]))
        return sk.evaluate(one(path)).hashes["suite"]

    assert suite("a") != suite("b")
    assert suite("a") != suite("a", inp="other")


def test_usage_and_total_time_are_carried():
    run = one(QUIZ)
    first = run.rows.iloc[0]
    assert isinstance(first["usage"], dict) and "mockllm/agent-a" in first["usage"]
    raw = {(str(s["id"]), s["epoch"] - 1): s["total_time"] for s in raw_log(QUIZ)["samples"]}
    carried = zip(run.rows["case_id"], run.rows["trial"], run.rows["latency_s"], strict=True)
    assert all(raw[(c, t)] == v for c, t, v in carried)


def test_a_run_with_a_sample_limit_is_partial_and_decides_triage():
    run = one(POPULARITY)
    assert run.partial and run.source["limit"] == 10 and run.source["dataset_size"] == 100
    card = sk.evaluate(run)
    assert card.decision == "TRIAGE" and card.partial
    assert "10 of 100 samples" in " ".join(card.decision_reasons)


@pytest.mark.parametrize("status", ["cancelled", "error", "started"])
def test_a_run_whose_status_is_not_success_is_partial_and_decides_triage(tmp_path, status):
    log = json_log([sample(1, s="C")], scorers=["s"], status=status)
    run = one(write_json_log(tmp_path / "log.json", log))
    assert run.partial and run.source["status"] == status
    assert sk.evaluate(run).decision == "TRIAGE"


def test_a_run_short_of_its_dataset_is_partial_and_decides_triage(tmp_path):
    log = json_log([sample(1, s="C")], scorers=["s"], dataset_size=5, sample_ids=[1])
    run = one(write_json_log(tmp_path / "log.json", log))
    assert run.partial and sk.evaluate(run).decision == "TRIAGE"
    complete = one(write_json_log(tmp_path / "ok.json", json_log([sample(1, s="C")], scorers=["s"])))
    assert not complete.partial


def test_a_mock_model_decides_self_test():
    run = one(QUIZ)
    assert run.agent.startswith("mockllm/") and not run.partial
    card = sk.evaluate(run)
    assert card.decision == "SELF_TEST" and "the agent is a mock" in card.decision_reasons


def test_scorers_that_never_ran_give_error_rows_and_incomplete_under_release_never_pass():
    run = one(TOOL_ERROR)
    assert set(run.rows["status"]) == {"ERROR"}
    card = sk.evaluate(run, policy={"gate": {"thresholds": {"includes": 0.5}}})
    assert card.decision == "INCOMPLETE" and not card.overall_pass


def test_a_log_without_samples_is_an_input_error_naming_the_file():
    with pytest.raises(sk.InputError, match=NO_SAMPLES.name):
        import_results(NO_SAMPLES)


def test_a_log_without_samples_in_a_directory_is_skipped_with_a_note(tmp_path):
    shutil.copy(NO_SAMPLES, tmp_path)
    shutil.copy(POPULARITY, tmp_path)
    run = one(tmp_path)
    assert any(n.startswith("skipped") and NO_SAMPLES.name in n for n in run.notes)
    empty = tmp_path / "only_empty"
    empty.mkdir()
    shutil.copy(NO_SAMPLES, empty)
    with pytest.raises(sk.InputError, match="nothing to import"):
        import_results(empty)


def test_a_directory_gives_one_run_per_log_and_mixed_agents_are_split():
    runs = import_results(INSPECT)
    assert len(runs) == 11  # twelve logs, one without samples
    for run in runs:
        assert set(run.rows["agent"]) == {run.agent}
    assert len({r.agent for r in runs}) >= 4
    two_logs_one_agent = [r for r in runs if r.agent == "openai/gpt-4o-mini"]
    assert len(two_logs_one_agent) == 2 and len({r.task for r in two_logs_one_agent}) == 2


def test_zstd_and_deflate_logs_of_the_same_shape_give_the_same_rows(tmp_path):
    zstd = recompress(POPULARITY, tmp_path / "popularity.eval", 93)
    deflate = recompress(QUIZ, tmp_path / "quiz.eval", 8)
    for original, copy in ((POPULARITY, zstd), (QUIZ, deflate)):
        a, b = one(original), one(copy)
        pd.testing.assert_frame_equal(a.rows, b.rows)
        assert a.partial == b.partial and a.source["metrics"] == b.source["metrics"]


def test_a_corrupt_zstd_member_is_an_input_error(tmp_path):
    data = bytearray(QUIZ.read_bytes())
    at = data.index(b"samples/3_epoch_1.json") + 40
    data[at:at + 8] = b"\x00" * 8
    bad = tmp_path / "bad.eval"
    bad.write_bytes(bytes(data))
    with pytest.raises(sk.InputError, match="bad.eval"):
        import_results(bad, format="inspect")


def test_a_repeated_key_in_a_log_is_refused(tmp_path):
    text = json.dumps(json_log([sample(1, s="C")], scorers=["s"]))
    bad = tmp_path / "dup.json"
    bad.write_text(text.replace('"target": "a"', '"target": "a", "target": "b"'))
    with pytest.raises(sk.InputError, match="duplicate"):
        import_results(bad)


def test_notes_state_every_mapping_decision_and_the_partial_credit_difference():
    run = one(QUIZ)
    text = " ".join(run.notes)
    for words in ("trial = epoch - 1", "C, true, 1 -> PASS", "sample_error", "partial credit", "graded by"):
        assert words in text


# --------------------------------------------------------------------------- acceptance: the source's own numbers
@pytest.mark.parametrize("path", SCORED_LOGS, ids=lambda p: p.name[:40])
def test_per_scorer_pass_fail_error_counts_equal_the_logs_own(path):
    run = one(path)
    for scorer, want in expected_counts(raw_log(path)).items():
        got = statuses(run, scorer)
        assert {k: got.get(k, 0) for k in want} == want, scorer


@pytest.mark.parametrize("path", SCORED_LOGS, ids=lambda p: p.name[:40])
def test_inspect_accuracy_equals_pass_hat_1_where_no_partial_credit_occurs(path):
    log = raw_log(path)
    card = sk.evaluate(one(path), policy={"purpose": "exploratory"})
    counts = expected_counts(log)
    checked = 0
    for score in log["results"]["scores"]:
        name = score["scorer"]
        if counts[name]["PARTIAL"] or "accuracy" not in score["metrics"]:
            continue
        if card.dimensions.at[name, "errors"] > counts[name]["ERROR"]:
            continue  # a mock grader's PASS rows are ERROR mock_judge in scorekit (SELF_TEST)
        own = score["metrics"]["accuracy"]["value"]
        assert own == pytest.approx(inspect_accuracy(log, name), abs=1e-12)  # the helper reads Inspect right
        assert card.dimensions.at[name, "pass_k"]["1"] == pytest.approx(own, abs=1e-12)
        checked += 1
    assert checked


def test_pass_k_equals_pass_hat_k_and_inspects_pass_at_reducer_equals_pass_at_k():
    log = raw_log(QUIZ)
    card = sk.evaluate(one(QUIZ), policy={"pass_k": [1, 2, 3]})
    rows = one(QUIZ).rows
    for scorer in ("match", "includes"):
        for k in (1, 2, 3):
            assert card.dimensions.at[scorer, "pass_k"][str(k)] == pytest.approx(pass_hat(log, scorer, k), abs=1e-12)
        part = rows[(rows["dimension"] == scorer) & rows["status"].isin(["PASS", "FAIL"])]
        c = part.groupby("case_id")["status"].apply(lambda s: int((s == "PASS").sum()))
        n = part.groupby("case_id")["status"].size()
        for k in (1, 2):
            ours = float(pd.Series(sk.pass_at_k(c.to_numpy(), n.to_numpy(), k)).dropna().mean())
            assert ours == pytest.approx(inspect_pass_at(log, scorer, k), abs=1e-12)


# --------------------------------------------------------------------------- property
VALUES = st.one_of(
    st.sampled_from(["C", "I", "N", "P", "c", "yes", "", "CORRECT"]),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.none(),
    st.lists(st.integers(0, 1), max_size=2),
    st.just("__missing__"),
    st.just("__error__"),
)


@given(st.lists(st.lists(VALUES, min_size=1, max_size=3), min_size=1, max_size=6))
def test_any_inspect_shaped_sample_list_imports_and_never_passes_a_value_not_c_true_or_1(tmp_path_factory, grid):
    scorers = ["s0", "s1", "s2"][: max(len(r) for r in grid)]
    samples = []
    truth = {}
    for i, values in enumerate(grid, start=1):
        if "__error__" in values:
            samples.append({"id": i, "epoch": 1, "input": "q", "error": {"message": "crash"}})
            for name in scorers:
                truth[(str(i), name)] = "__error__"
            continue
        scores = {}
        truth.update({(str(i), name): "__missing__" for name in scorers})
        for name, value in zip(scorers[: len(values)], values, strict=True):
            truth[(str(i), name)] = value
            if value != "__missing__":
                scores[name] = {"value": value}
        samples.append({"id": i, "epoch": 1, "input": "q", "target": "t", "scores": scores})
    assume(samples)
    path = write_json_log(tmp_path_factory.mktemp("log") / "log.json", json_log(samples, scorers=scorers))
    run = one(path)
    assert len(run.rows) == len(truth)  # every listed value is a row: nothing dropped
    card = sk.evaluate(run)
    passed = card.evidence[card.evidence["status"] == "PASS"]
    for case, dimension in zip(passed["case_id"], passed["dimension"], strict=True):
        value = truth[(case, dimension)]
        assert value == "C" or value is True or (type(value) in (int, float) and value == 1), value
