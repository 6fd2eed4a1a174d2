"""Every Eval Ever importer (SPEC §15 ``eee``): the shared files and every mapping and fail-closed rule.

Reference figures come from the files' own JSON, read here with ``json`` and ``hashlib`` (the
aggregate's ``score_details.score``, each instance line's ``evaluation.is_correct``), and from the
tool's figures in shared/data/imports-2/expected.json (section ``eee``, written by make_expected.py
from the files themselves), restated below.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit._errors import NoSamplesError
from scorekit.importers import FORMATS, _eee
from scorekit.importers._read import detect_format

DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "eee"
MC = DATA / "lm_eval-converted" / "skq_mc" / "scorekit" / "dummy-lm" / "e9a70a55-a357-471b-9b11-fa588ec527f9.json"
GEN = DATA / "lm_eval-converted" / "skq_gen" / "scorekit" / "dummy-lm" / "c21dd3fd-b3d7-4d8d-8fe9-ac8edf444e23.json"
DEMO = DATA / "data" / "demo-source" / "demo-org" / "demo-model" / "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40.json"
# every_eval_ever 0.3.0's lm-eval converter run here (reviewer r1) on lm-eval 0.4.13's `--limit 5 --seed 7` run
# (with --model_args pretrained=scorekit/dummy-lm: the converter refuses a model without a developer)
LIMIT5 = DATA / "lm_eval-limit5"
MC5 = LIMIT5 / "skq_mc" / "scorekit" / "dummy-lm" / "5b8778fd-f8c6-405d-ab31-f0cc1d692664.json"
GEN5 = LIMIT5 / "skq_gen" / "scorekit" / "dummy-lm" / "e52fcb4e-0f95-4bcd-861f-105b70905ef8.json"
AGGREGATES = [MC, GEN, DEMO, MC5, GEN5]

#: expected.json ``eee``: the aggregate scores per result, and whether the sidecar's sha256 matches.
EXPECTED_SCORES = {
    MC: {"acc": 0.25, "acc_norm": 0.25},
    GEN: {"exact_match:take_first": 1 / 3, "exact_match:strict-match": 0.0, "exact_match:maj@3": 1 / 3},
    DEMO: {"demo-source.demo_bench": 0.75},
    # the aggregates' own scores, equal to lm-eval's results file and printed table for that run (5 of 12 docs)
    MC5: {"acc": 0.4, "acc_norm": 0.4},
    GEN5: {"exact_match:take_first": 0.4, "exact_match:strict-match": 0.0, "exact_match:maj@3": 0.4},
}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _sidecar(aggregate: Path) -> Path:
    return aggregate.with_name(Path(_json(aggregate)["detailed_evaluation_results"]["file_path"]).name)


def _lines(aggregate: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _sidecar(aggregate).read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(tmp_path: Path, aggregate: dict[str, Any], lines: list[Any] | None, *, text: str | None = None,
           fix: bool = True) -> Path:
    """An aggregate and its sidecar in ``tmp_path``; ``fix`` recomputes the checksum and total_rows as EEE does."""
    path = tmp_path / "0b5c0a9e-1111-4222-8333-444455556666.json"
    details = aggregate.get("detailed_evaluation_results")
    if lines is not None or text is not None:
        body = text if text is not None else "".join(json.dumps(line) + "\n" for line in lines or [])
        side = path.with_name(path.stem + "_samples.jsonl")
        side.write_text(body, encoding="utf-8")
        if fix and details is not None:
            details = dict(details, file_path=f"data/x/y/z/{side.name}",
                           checksum=hashlib.sha256(body.encode()).hexdigest(),
                           total_rows=sum(1 for line in body.splitlines() if line.strip()))
    doc = dict(aggregate)
    if details is not None:
        doc["detailed_evaluation_results"] = details
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _one(path: Path) -> sk.importers.ImportedRun:
    runs = _eee.read(path)
    assert len(runs) == 1
    return runs[0]


def _counts(run: Any) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for dimension, status in zip(run.rows["dimension"], run.rows["status"], strict=True):
        out.setdefault(dimension, {"PASS": 0, "FAIL": 0, "ERROR": 0})[status] += 1
    return out


def _row(run: Any, case: str) -> dict[str, Any]:
    (row,) = [r for r in run.rows.to_dict("records") if r["case_id"] == case]
    return {k: v for k, v in row.items() if not (isinstance(v, float) and math.isnan(v))}


def _base_line(**evaluation: Any) -> dict[str, Any]:
    line = _lines(DEMO)[0]
    return dict(line, evaluation=evaluation)


# --------------------------------------------------------------------------- the shared files
def test_eee_is_registered_format() -> None:
    assert FORMATS["eee"] == "scorekit.importers._eee"
    assert _eee.FORMAT == "eee"


@pytest.mark.parametrize("aggregate", AGGREGATES, ids=lambda p: p.parent.parent.parent.name)
def test_counts_per_dimension_equal_the_instance_lines_is_correct(aggregate: Path) -> None:
    expected: dict[str, dict[str, int]] = {}
    for line in _lines(aggregate):
        key = line.get("evaluation_result_id") or line["evaluation_name"]
        expected.setdefault(key, {"PASS": 0, "FAIL": 0, "ERROR": 0})[
            "PASS" if line["evaluation"]["is_correct"] else "FAIL"] += 1
    run = _one(aggregate)
    assert _counts(run) == expected
    assert len(run.rows) == len(_lines(aggregate)) == _json(aggregate)["detailed_evaluation_results"]["total_rows"]


@pytest.mark.parametrize("aggregate", [MC, GEN, MC5, GEN5],
                         ids=["skq_mc", "skq_gen", "skq_mc-limit5", "skq_gen-limit5"])
def test_pass_at_1_equals_the_aggregate_score(aggregate: Path) -> None:
    run = _one(aggregate)
    doc = _json(aggregate)
    scores = {r["evaluation_result_id"]: r["score_details"]["score"] for r in doc["evaluation_results"]}
    assert scores == pytest.approx(EXPECTED_SCORES[aggregate], abs=1e-12)
    card = sk.evaluate(run, policy={"pass_k": [1], "gate": {"thresholds": dict.fromkeys(scores, 0.1)}})
    dims = {d["name"]: d for d in card.to_dict()["dimensions"]}
    for key, score in scores.items():
        assert dims[key]["pass_k"]["1"] == pytest.approx(score, abs=1e-12)
        assert run.source["metrics"][key]["score"] == score
    assert not run.partial and card.decision != "TRIAGE"


def test_the_demo_reference_aggregate_over_one_instance_is_partial_triage() -> None:
    """Its aggregate says 0.75 over instances its sidecar does not hold: one line, scoring 1.0."""
    run = _one(DEMO)
    assert run.partial is True and run.rows["partial_run"].all()
    assert _counts(run) == {"demo-source.demo_bench": {"PASS": 1, "FAIL": 0, "ERROR": 0}}
    metric = run.source["metrics"]["demo-source.demo_bench"]
    assert (metric["score"], metric["instance_mean"], metric["instances"]) == (0.75, 1.0, 1)
    assert any(n.startswith("partial:") and "covers only the instances present" in n for n in run.notes)
    card = sk.evaluate(run, policy={"gate": {"thresholds": {"demo-source.demo_bench": 0.5}}})
    assert card.decision == "TRIAGE"


@pytest.mark.parametrize("aggregate", [MC5, GEN5], ids=["skq_mc", "skq_gen"])
def test_a_converted_limit_run_is_whole_as_far_as_the_eee_file_says(aggregate: Path) -> None:
    """lm-eval ran 5 of 12 docs, but the converted file states no limit and no dataset size: every result's
    num_samples equals the instances present, so nothing in the file makes the run partial."""
    doc = _json(aggregate)
    assert "limit" not in json.dumps(doc)
    assert not any("samples_number" in r["source_data"] for r in doc["evaluation_results"])
    assert {r["score_details"]["uncertainty"]["num_samples"] for r in doc["evaluation_results"]} == {5}
    run = _one(aggregate)
    assert sorted(set(run.rows["case_id"]), key=int) == [str(i) for i in range(5)]
    assert run.partial is False


def test_a_pre_0_3_converter_file_with_results_sharing_a_name_is_refused_in_one_line(tmp_path: Path) -> None:
    """every_eval_ever 0.2.3rc1's lm-eval converter (checked here) names acc and acc_norm both 'skq_mc' with no
    evaluation_result_id, and writes one instance line per sample: which result a line scores cannot be told."""
    doc = _json(MC)
    for result in doc["evaluation_results"]:
        del result["evaluation_result_id"]
    lines = [dict(line, evaluation_result_id=None) for line in _lines(MC) if line["evaluation_result_id"] == "acc"]
    path = _write(tmp_path, doc, lines)
    with pytest.raises(sk.InputError, match=r"evaluation_results\[1\]: result 'skq_mc' is listed twice: .* no "
                                            r"evaluation_result_id") as err:
        _eee.read(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("aggregate", AGGREGATES, ids=lambda p: p.parent.parent.parent.name)
def test_provenance_goes_to_source(aggregate: Path) -> None:
    doc = _json(aggregate)
    run = _one(aggregate)
    source = run.source
    assert source["format"] == "eee" and source["status"] is None
    assert source["files"] == [str(aggregate), str(_sidecar(aggregate))]
    assert source["source_metadata"] == doc["source_metadata"]
    assert source["eval_library"] == doc["eval_library"]
    assert source["retrieved_timestamp"] == doc["retrieved_timestamp"]
    assert source["schema_version"] == "0.3.0" and source["evaluation_id"] == doc["evaluation_id"]
    assert source["checksum_ok"] is True  # expected.json: checksum_ok true for all three
    assert run.agent == doc["model_info"]["id"] and set(run.rows["agent"]) == {run.agent}
    assert run.task == doc["evaluation_results"][0]["source_data"]["dataset_name"]
    version = doc["eval_library"]["version"]
    assert source["harness_version"] == (None if version == "unknown" else version)


def test_lm_eval_conversion_names_its_harness() -> None:
    source = _one(MC).source
    assert (source["harness"], source["harness_version"]) == ("lm_eval", "0.4.13")
    assert source["samples_run"] == 12 and source["epochs"] == 1


def test_case_dimension_trial_and_definition() -> None:
    lines = _lines(MC)
    run = _one(MC)
    assert sorted(zip(run.rows["dimension"], run.rows["case_id"], strict=True)) == sorted(
        (line["evaluation_result_id"], line["sample_id"]) for line in lines)
    assert set(run.rows["trial"]) == {0}
    first = run.rows.iloc[0]
    assert first["input"]["raw"] == lines[0]["input"]["raw"] and first["agent_output"] == lines[0]["output"]["raw"][0]
    assert sk.read_rows(run.rows).shape[0] == 24  # the rows pass validation


def test_every_mapping_decision_is_noted() -> None:
    notes = " ".join(_one(MC).notes)
    for words in ("evaluation_result_id", "case_id = sample_id", "trial =", "agent = model_info.id", "task =",
                  "is_correct", "checksum"):
        assert words in notes


# --------------------------------------------------------------------------- outcomes
@pytest.mark.parametrize(("evaluation", "expected"), [
    ({"score": 1.0, "is_correct": True}, ("PASS", None)),
    ({"score": 0.0, "is_correct": False}, ("FAIL", "incorrect")),
    ({"score": 1.0, "is_correct": False}, ("FAIL", "incorrect")),
    ({"score": 0.0, "is_correct": True}, ("FAIL", "inconsistent_score")),
    ({"score": 1}, ("PASS", None)),
    ({"score": 0}, ("FAIL", "incorrect")),
    ({"is_correct": True}, ("PASS", None)),
    ({}, ("ERROR", "unscored")),
    ({"score": None, "is_correct": None}, ("ERROR", "unscored")),
    ({"score": 7.5}, ("ERROR", "unscored")),
])
def test_a_lines_outcome(tmp_path: Path, evaluation: dict[str, Any], expected: tuple[str, Any]) -> None:
    run = _one(_write(tmp_path, _json(DEMO), [_base_line(**evaluation)]))
    row = _row(run, "demo_0001")
    assert (row["status"], row.get("reason")) == expected


@pytest.mark.parametrize("correct", [True, False, None])
def test_a_score_in_between_is_partial_credit(tmp_path: Path, correct: Any) -> None:
    evaluation = {"score": 0.4} if correct is None else {"score": 0.4, "is_correct": correct}
    row = _row(_one(_write(tmp_path, _json(DEMO), [_base_line(**evaluation)])), "demo_0001")
    assert row["score"] == 0.4 and "status" not in row
    assert sk.evaluate(sk.read_rows([{k: v for k, v in row.items() if k != "partial_run"}])).to_dict()


def test_a_line_without_evaluation_and_one_with_an_error_are_error_rows(tmp_path: Path) -> None:
    line = _lines(DEMO)[0]
    crashed = dict(line, sample_id="b", error="TimeoutError: no answer in 60 s")
    bare = {k: v for k, v in line.items() if k != "evaluation"}
    run = _one(_write(tmp_path, _json(DEMO), [bare, crashed]))
    assert (_row(run, "demo_0001")["status"], _row(run, "demo_0001")["reason"]) == ("ERROR", "unscored")
    row = _row(run, "b")
    assert (row["status"], row["reason"], row["detail"]) == ("ERROR", "sample_error", crashed["error"])


def test_repetitions_are_trials_and_pass_k_is_the_formula(tmp_path: Path) -> None:
    line = _lines(DEMO)[0]
    outcomes = {"a": [True, True, False], "b": [True, True, True], "c": [False, True, False]}
    lines = [dict(line, sample_id=s, evaluation={"score": float(ok), "is_correct": ok})
             for t in range(3) for s, oks in outcomes.items() for ok in [oks[t]]]
    aggregate = _json(DEMO)
    aggregate["evaluation_results"][0]["score_details"]["score"] = 6 / 9
    run = _one(_write(tmp_path, aggregate, lines))
    assert not run.partial and run.source["epochs"] == 3
    assert sorted(zip(run.rows["case_id"], run.rows["trial"], strict=True)) == sorted(
        (s, t) for s in outcomes for t in range(3))
    card = sk.evaluate(run, policy={"pass_k": [1, 2, 3], "gate": {"thresholds": {"demo-source.demo_bench": 0.1}}})
    (dim,) = card.to_dict()["dimensions"]
    for k in (1, 2, 3):
        expected = sum(math.comb(sum(v), k) / math.comb(3, k) for v in outcomes.values()) / 3
        assert dim["pass_k"][str(k)] == pytest.approx(expected, abs=1e-12)


def test_unequal_repetitions_are_partial(tmp_path: Path) -> None:
    line = _lines(DEMO)[0]
    lines = [line, line, dict(line, sample_id="b")]
    run = _one(_write(tmp_path, _json(DEMO), lines))
    assert run.partial and any("repeat unequally" in n for n in run.notes)


def test_declared_samples_beyond_the_file_make_the_run_partial(tmp_path: Path) -> None:
    aggregate = _json(MC)
    aggregate["evaluation_results"][0]["score_details"]["uncertainty"]["num_samples"] = 100
    run = _one(_write(tmp_path, aggregate, _lines(MC)))
    assert run.partial and any("scored 100 samples" in n and "covers only the instances present" in n
                               for n in run.notes)


def test_a_dataset_larger_than_the_samples_run_is_partial(tmp_path: Path) -> None:
    """The Inspect converter's shape: a run limited to 1 of the hf dataset's 2376 samples."""
    aggregate = _json(DEMO)
    aggregate["evaluation_results"][0]["source_data"] = {
        "dataset_name": "demo_bench", "source_type": "hf_dataset", "samples_number": 2376, "sample_ids": ["demo_0001"]}
    aggregate["evaluation_results"][0]["score_details"] = {"score": 1.0, "uncertainty": {"num_samples": 1}}
    run = _one(_write(tmp_path, aggregate, _lines(DEMO)))
    assert run.partial and run.source["dataset_size"] == 2376
    assert [n for n in run.notes if n.startswith("partial:")] == [
        "partial: result 'demo-source.demo_bench': 1 of the dataset's 2376 samples ran (source_data.samples_number)"]


def test_listed_sample_ids_without_a_line_are_error_rows(tmp_path: Path) -> None:
    aggregate = _json(DEMO)
    aggregate["evaluation_results"][0]["source_data"] = {
        "dataset_name": "demo_bench", "source_type": "hf_dataset", "sample_ids": ["demo_0001", "demo_0002"]}
    aggregate["evaluation_results"][0]["score_details"]["score"] = 1.0
    run = _one(_write(tmp_path, aggregate, _lines(DEMO)))
    row = _row(run, "demo_0002")
    assert (row["status"], row["reason"]) == ("ERROR", "no_instance")
    assert run.source["sample_epochs_planned"] == 2


def test_a_result_without_instance_lines_is_partial(tmp_path: Path) -> None:
    lines = [line for line in _lines(MC) if line["evaluation_result_id"] == "acc"]
    run = _one(_write(tmp_path, _json(MC), lines))
    assert run.partial and any("'acc_norm' has no instance lines" in n for n in run.notes)


# --------------------------------------------------------------------------- fail closed
def test_an_aggregate_without_instance_data_is_no_samples(tmp_path: Path) -> None:
    aggregate = {k: v for k, v in _json(DEMO).items() if k != "detailed_evaluation_results"}
    path = _write(tmp_path, aggregate, None)
    with pytest.raises(NoSamplesError, match=re.escape(str(path)) + ".*instance-level data"):
        _eee.read(path)


def test_an_aggregate_whose_instance_file_is_absent_is_no_samples_naming_it(tmp_path: Path) -> None:
    path = tmp_path / DEMO.name
    shutil.copy(DEMO, path)
    with pytest.raises(NoSamplesError, match=re.escape(_sidecar(DEMO).name)):
        _eee.read(path)


def test_a_checksum_mismatch_is_an_input_error_naming_the_instance_file(tmp_path: Path) -> None:
    text = _sidecar(MC).read_text(encoding="utf-8").replace('"is_correct": false', '"is_correct": true', 1)
    path = _write(tmp_path, _json(MC), None, text=text, fix=False)
    details = _json(MC)["detailed_evaluation_results"]
    path.write_text(json.dumps(dict(_json(MC), detailed_evaluation_results=dict(
        details, file_path=f"data/x/{path.stem}_samples.jsonl"))), encoding="utf-8")
    with pytest.raises(sk.InputError, match=re.escape(f"{path.stem}_samples.jsonl") + ".*not the checksum"):
        _eee.read(path)


def _damaged_total(tmp_path: Path) -> Path:
    path = _write(tmp_path, _json(MC), _lines(MC))
    doc = _json(path)
    doc["detailed_evaluation_results"]["total_rows"] = 10**9
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _damaged_shape(tmp_path: Path) -> Path:
    lines: list[Any] = _lines(MC)
    lines[3] = ["not", "an", "object"]
    return _write(tmp_path, _json(MC), lines)


def _missing_key(tmp_path: Path) -> Path:
    lines = _lines(MC)
    del lines[5]["sample_id"]
    return _write(tmp_path, _json(MC), lines)


def _bad_result(tmp_path: Path) -> Path:
    aggregate = _json(MC)
    aggregate["evaluation_results"][1] = "acc_norm"
    return _write(tmp_path, aggregate, _lines(MC))


def _bad_is_correct(tmp_path: Path) -> Path:
    lines = _lines(MC)
    lines[2]["evaluation"]["is_correct"] = "yes"
    return _write(tmp_path, _json(MC), lines)


def _other_evaluation(tmp_path: Path) -> Path:
    lines = _lines(MC)
    lines[0]["evaluation_id"] = "skq_mc/other/1"
    return _write(tmp_path, _json(MC), lines)


def _ambiguous_name(tmp_path: Path) -> Path:
    lines = _lines(MC)
    del lines[0]["evaluation_result_id"]  # "skq_mc" names both acc and acc_norm
    return _write(tmp_path, _json(MC), lines)


DAMAGED = [
    (_damaged_total, r"detailed_evaluation_results\.total_rows: 1000000000 is more than the file holds \(24"),
    (_damaged_shape, r"_samples\.jsonl:4: expected a JSON object"),
    (_missing_key, r"_samples\.jsonl:6: sample_id: expected a string or an integer"),
    (_bad_result, r"evaluation_results\[1\]: expected an object, found a string"),
    (_bad_is_correct, r"_samples\.jsonl:3: evaluation\.is_correct: expected a boolean, found a string"),
    (_other_evaluation, r"_samples\.jsonl:1: evaluation_id 'skq_mc/other/1' is not the aggregate's"),
    (_ambiguous_name, r"_samples\.jsonl:1: evaluation_name 'skq_mc' names 2 aggregate results"),
]


@pytest.mark.parametrize(("make", "message"), DAMAGED, ids=[m.__name__ for m, _ in DAMAGED])
def test_a_damaged_file_is_exit_2_in_one_line_naming_file_and_position(run_cli, tmp_path, make, message) -> None:
    path = make(tmp_path)
    with pytest.raises(sk.InputError, match=message):
        _eee.read(path)
    code, out, err = run_cli("import", "--from", "eee", path, "--out-dir", tmp_path / "out")
    assert code == 2, (out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and str(tmp_path) in lines[0] and "Traceback" not in err


def test_fewer_lines_than_total_rows_declares_is_refused_too(tmp_path: Path) -> None:
    path = _write(tmp_path, _json(MC), _lines(MC))
    doc = _json(path)
    doc["detailed_evaluation_results"]["total_rows"] = 20
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(sk.InputError, match="total_rows: 20, but .* holds 24 lines"):
        _eee.read(path)


# --------------------------------------------------------------------------- detection, CLI
def test_detection_by_content_claims_only_eee_aggregates(tmp_path: Path) -> None:
    root = DATA.parent
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        ours = path in AGGREGATES
        assert _eee.detect(path) is ours, path
        if path.is_relative_to(DATA):  # no other format claims an EEE file, nor an instance file alone
            assert detect_format(path) == ("eee" if ours else None), path
    renamed = tmp_path / "results.txt"
    shutil.copy(MC, renamed)
    assert _eee.detect(renamed)  # by content, not by name
    (tmp_path / "x.json").write_text('{"schema_version": "0.3.0", "evaluation_results": 1}', encoding="utf-8")
    assert not _eee.detect(tmp_path / "x.json")


def test_a_directory_import_reads_each_aggregate_with_its_instance_file(tmp_path: Path) -> None:
    runs = sk.import_results(DATA)
    assert sorted(r.task for r in runs) == ["demo_bench", "skq_gen", "skq_gen", "skq_mc", "skq_mc"]
    assert not any("skipped" in n for r in runs for n in r.notes)  # the sidecars are claimed
    assert _eee.claims(MC) == {_sidecar(MC)}


def test_cli_import_writes_rows_source_and_policy_stub(run_cli, tmp_path: Path) -> None:
    code, out, err = run_cli("import", "--from", "eee", MC, "--out-dir", tmp_path)
    assert code == 0, err
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    rows = sk.read_rows(folder / "results.jsonl")
    assert len(rows) == 24 and set(rows["dimension"]) == {"acc", "acc_norm"}
    assert json.loads((folder / "source.json").read_text())["format"] == "eee"
    stub = (tmp_path / "policy.stub.yml").read_text()
    assert '"acc"' in stub and '"acc_norm"' in stub
    assert "scorekit/dummy-lm" in out


@pytest.mark.parametrize(("results", "threshold", "code", "decision"), [
    (MC, 0.2, 0, "PASS"), (MC, 0.5, 1, "FAIL"), (DEMO, 0.5, 1, "TRIAGE")])
def test_run_from_eee_gates(run_cli, tmp_path: Path, results: Path, threshold: float, code: int,
                            decision: str) -> None:
    dims = list(EXPECTED_SCORES[results])
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"purpose": "release", "gate": {"required_dimensions": dims,
                                                                 "thresholds": dict.fromkeys(dims, threshold)}}))
    got, out, err = run_cli("run", "--from", "eee", "--results", results, "--policy", policy, "--gate",
                            "--out-dir", tmp_path / "out")
    assert got == code, (out, err)
    assert f"decision: {decision}" in out
    assert json.loads((tmp_path / "out" / "scorecard.json").read_text())["source"]["format"] == "eee"


# --------------------------------------------------------------------------- invariants
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_counts_are_preserved_under_shuffling_the_lines(tmp_path_factory, seed: int) -> None:
    lines = _lines(GEN)
    random.Random(seed).shuffle(lines)
    run = _one(_write(tmp_path_factory.mktemp("shuffled"), _json(GEN), lines))
    assert _counts(run) == _counts(_one(GEN))
    assert not run.partial


# --------------------------------------------------------------------------- variants the schema allows
def test_a_line_without_result_id_takes_the_one_result_its_name_names(tmp_path: Path) -> None:
    aggregate = _json(DEMO)
    aggregate["evaluation_results"][0]["evaluation_result_id"] = "demo.acc"
    aggregate["evaluation_results"][0]["score_details"]["score"] = 1.0
    line = {k: v for k, v in _lines(DEMO)[0].items() if k != "evaluation_result_id"}
    run = _one(_write(tmp_path, aggregate, [line]))
    assert set(run.rows["dimension"]) == {"demo.acc"} and not run.partial


def test_lines_of_a_result_the_aggregate_does_not_list_are_kept_and_noted(tmp_path: Path) -> None:
    lines = _lines(DEMO) + [dict(_lines(DEMO)[0], evaluation_result_id="extra")]
    aggregate = _json(DEMO)
    aggregate["evaluation_results"][0]["score_details"]["score"] = 1.0
    run = _one(_write(tmp_path, aggregate, lines))
    assert set(run.rows["dimension"]) == {"demo-source.demo_bench", "extra"}
    assert any("'extra', which the aggregate does not list" in n for n in run.notes)


def test_an_llm_judge_names_the_evaluator(tmp_path: Path) -> None:
    aggregate = _json(DEMO)
    aggregate["evaluation_results"][0]["metric_config"]["llm_scoring"] = {
        "judges": [{"model_info": {"name": "j", "id": "openai/gpt-4o", "additional_details": {}}}],
        "input_prompt": "grade it"}
    run = _one(_write(tmp_path, aggregate, _lines(DEMO)))
    assert set(run.rows["evaluator"]) == {"eee:demo-source.demo_bench@openai/gpt-4o"}


def test_md5_and_no_checksum_and_a_path_outside_are_read_beside_the_aggregate(tmp_path: Path) -> None:
    body = _sidecar(DEMO).read_bytes()
    path = _write(tmp_path, _json(DEMO), None, text=body.decode())
    doc = _json(path)
    doc["detailed_evaluation_results"].update(file_path=f"../../../elsewhere/{path.stem}_samples.jsonl",
                                              hash_algorithm="md5", checksum=hashlib.md5(body).hexdigest())
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert _one(path).source["checksum_ok"] is True
    del doc["detailed_evaluation_results"]["checksum"]
    path.write_text(json.dumps(doc), encoding="utf-8")
    run = _one(path)
    assert run.source["checksum_ok"] is False and any("read unverified" in n for n in run.notes)


def test_many_listed_sample_ids_without_lines_stay_linear(tmp_path: Path) -> None:
    aggregate = _json(DEMO)
    aggregate["evaluation_results"][0]["source_data"] = {
        "dataset_name": "demo_bench", "source_type": "hf_dataset", "sample_ids": [f"s{i}" for i in range(40_000)]}
    run = _one(_write(tmp_path, aggregate, _lines(DEMO)))
    assert len(run.rows) == 40_001 and (run.rows["reason"] == "no_instance").sum() == 40_000


@pytest.mark.parametrize("command", ["run", "validate"])
def test_an_aggregate_given_without_from_exits_2_naming_the_format(run_cli, tmp_path: Path, command: str) -> None:
    args = ("run", "--results", MC, "--out-dir", tmp_path) if command == "run" else ("validate", MC)
    code, _out, err = run_cli(*args)
    assert code == 2 and "--from eee" in err and len(err.strip().splitlines()) == 1
