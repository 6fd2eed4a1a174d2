"""SWE-bench importer (SPEC §15 ``swe-bench``): the harness's own reports, every mapping rule.

Reference figures: ../shared/data/imports-2/expected.json section "swe-bench" (swebench 5.0.2's
make_run_report over run-a), restated here, and recomputed from the report's own JSON.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit.importers import FORMATS, _swe_bench

RUN_A = Path(__file__).resolve().parents[1] / "data" / "imports" / "swe-bench" / "run-a"
REPORT = RUN_A / "reports" / "agent-swe-a.toy-a.json"
MODEL_DIR = RUN_A / "logs" / "run_evaluation" / "toy-a" / "agent-swe-a"
#: expected.json "swe-bench" (swebench 5.0.2's own counts and rates for run-a)
EXPECTED_COUNTS = {"total_instances": 7, "submitted_instances": 6, "completed_instances": 4, "resolved_instances": 1,
                   "unresolved_instances": 3, "empty_patch_instances": 1, "error_instances": 1}
EXPECTED_RATE_OF_TOTAL = 0.14285714285714285
EXPECTED_RATE_OF_SUBMITTED = 0.16666666666666666


def _report_of(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _report() -> dict[str, Any]:
    """run-a's run report, a fresh copy (a test may edit it)."""
    return _report_of(REPORT)


def _write(tmp_path: Path, data: Any, name: str = "agent-x.run-1.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _one(path: Path) -> sk.importers.ImportedRun:
    runs = sk.import_results(path, format="swe-bench")
    assert len(runs) == 1
    return runs[0]


def _by_case(run: Any) -> dict[str, tuple[str, Any]]:
    rows = run.rows
    out = {}
    for _, row in rows.iterrows():
        reason = row.get("reason")
        out[row["case_id"]] = (row["status"], None if not isinstance(reason, str) else reason)
    return out


def test_registered() -> None:
    assert FORMATS["swe-bench"] == "scorekit.importers._swe_bench" and _swe_bench.FORMAT == "swe-bench"


@pytest.mark.parametrize("path", [REPORT, RUN_A])
def test_counts_and_ids_equal_swe_benchs_own(path: Path) -> None:
    report = _report()
    run = _one(path)
    assert (run.agent, run.task) == ("agent-swe-a", "toy-a")
    got = _by_case(run)
    assert len(got) == len(run.rows) == EXPECTED_COUNTS["total_instances"]
    assert sorted(i for i, (s, _) in got.items() if s == "PASS") == report["resolved_ids"] == ["example__toy-101"]
    assert sorted(i for i, v in got.items() if v == ("FAIL", "unresolved")) == report["unresolved_ids"]
    assert sorted(i for i, v in got.items() if v == ("FAIL", "empty_patch")) == report["empty_patch_ids"]
    assert sorted(i for i, v in got.items() if v == ("ERROR", "harness_error")) == report["error_ids"]
    assert sorted(i for i, v in got.items() if v == ("ERROR", "incomplete")) == report["incomplete_ids"]
    for key, value in EXPECTED_COUNTS.items():
        assert run.source["metrics"]["counts"][key] == value == report[key]
    assert run.source["metrics"]["resolved_rate_of_total"] == pytest.approx(EXPECTED_RATE_OF_TOTAL)
    assert run.source["metrics"]["resolved_rate_of_submitted"] == pytest.approx(EXPECTED_RATE_OF_SUBMITTED)
    assert set(run.rows["dimension"]) == {"resolved"} and set(run.rows["trial"]) == {0}
    assert set(run.rows["run"]) == {"toy-a"}


def test_scorekit_figures_against_swe_benchs_resolved_rate() -> None:
    """pass^1 leaves ERROR rows out (SPEC §3); SWE-bench's rate counts every instance: both from the same counts."""
    report = _report()
    run = _one(REPORT)
    card = sk.evaluate(run, policy={"purpose": "exploratory"})
    dim = next(d for d in card.to_dict()["dimensions"] if d["name"] == "resolved")
    fails = len(report["unresolved_ids"]) + len(report["empty_patch_ids"])
    errors = len(report["error_ids"]) + len(report["incomplete_ids"])
    assert (dim["passes"], dim["fails"], dim["errors"]) == (len(report["resolved_ids"]), fails, errors)
    assert dim["pass_k"]["1"] == pytest.approx(len(report["resolved_ids"]) / (len(report["resolved_ids"]) + fails))
    # SWE-bench's own figure recomputed from scorekit's counts: resolved over every instance
    all_rows = dim["passes"] + dim["fails"] + dim["errors"]
    assert dim["passes"] / all_rows == pytest.approx(EXPECTED_RATE_OF_TOTAL)
    assert card.decision == "TRIAGE"  # 4 of 7 completed: partial


def test_without_errors_pass1_equals_swe_benchs_rate(tmp_path: Path) -> None:
    ids = [f"r__r-{i}" for i in range(6)]
    data = {"total_instances": 6, "submitted_instances": 6, "completed_instances": 6, "resolved_instances": 4,
            "completed_ids": ids, "submitted_ids": ids, "resolved_ids": ids[:4], "unresolved_ids": ids[4:],
            "empty_patch_ids": [], "error_ids": [], "incomplete_ids": [], "schema_version": 2}
    run = _one(_write(tmp_path, data))
    assert not run.partial
    card = sk.evaluate(run, policy={"purpose": "exploratory"})
    dim = next(d for d in card.to_dict()["dimensions"] if d["name"] == "resolved")
    assert dim["pass_k"]["1"] == pytest.approx(run.source["metrics"]["resolved_rate_of_total"]) == pytest.approx(4 / 6)


def test_partial_when_fewer_completed_than_total() -> None:
    run = _one(REPORT)
    assert run.partial and run.source["sample_epochs_planned"] == 7 and run.source["sample_epochs_run"] == 4
    assert run.source["dataset_size"] == 7
    assert all(run.rows["partial_run"])
    assert any(n.startswith("partial: 4 of 7") for n in run.notes)


def test_per_instance_tests_status_in_detail() -> None:
    rows = _one(RUN_A).rows.set_index("case_id")
    assert rows.loc["example__toy-102", "detail"] == "FAIL_TO_PASS failing: tests/test_toy.py::test_fix"
    assert rows.loc["example__toy-107", "detail"] == "PASS_TO_PASS failing: tests/test_toy.py::test_keep"
    assert rows.loc["example__toy-103", "detail"].startswith("patch_successfully_applied is false")


def test_report_alone_uses_file_name_and_notes_it(tmp_path: Path) -> None:
    alone = tmp_path / "org__agent.v2.run-7.json"
    shutil.copy(REPORT, alone)
    run = _one(alone)
    assert (run.agent, run.task) == ("org/agent.v2", "run-7")  # the harness writes a model's '/' as '__'
    assert any("from the file name" in n for n in run.notes)
    assert "detail" not in run.rows or run.rows.loc[run.rows["case_id"] == "example__toy-102", "detail"].isna().all()


@pytest.mark.parametrize(("folder", "agent"), [
    ("org__agent-swe-a", "org/agent-swe-a"),  # swebench writes model org/agent-swe-a's '/' as '__'
    ("agent[1]*", "agent[1]*"),  # the layout is found by literal paths, never a glob: one run, never two
])
def test_model_named_by_its_folder(tmp_path: Path, folder: str, agent: str) -> None:
    shutil.copytree(RUN_A, tmp_path / "run")
    logs = tmp_path / "run" / "logs" / "run_evaluation" / "toy-a"
    (logs / "agent-swe-a").rename(logs / folder)
    reports = tmp_path / "run" / "reports"
    (reports / "agent-swe-a.toy-a.json").rename(reports / f"{folder}.toy-a.json")
    run = _one(tmp_path / "run")
    assert (run.agent, run.task, len(run.rows)) == (agent, "toy-a", 7) and set(run.rows["agent"]) == {agent}
    assert run.rows.set_index("case_id").loc["example__toy-102", "detail"].startswith("FAIL_TO_PASS failing")


def test_per_instance_reports_only_build_the_run(tmp_path: Path) -> None:
    shutil.copytree(RUN_A / "logs", tmp_path / "logs")
    (tmp_path / "logs" / "run_evaluation" / "toy-a" / "agent-swe-a" / "example__toy-105").mkdir()  # no report
    runs = sk.import_results(tmp_path)
    assert len(runs) == 1
    run = runs[0]
    assert (run.agent, run.task) == ("agent-swe-a", "toy-a")
    assert _by_case(run) == {"example__toy-101": ("PASS", None), "example__toy-102": ("FAIL", "unresolved"),
                             "example__toy-103": ("FAIL", "unresolved"), "example__toy-107": ("FAIL", "unresolved"),
                             "example__toy-105": ("ERROR", "harness_error")}
    assert run.partial
    assert not any("skipped" in n for n in run.notes)  # the other report.json files are the layout's


def test_per_instance_report_larger_than_the_detection_head(tmp_path: Path) -> None:
    """A long tests_status (thousands of PASS_TO_PASS tests) still reads the run from its first instance."""
    shutil.copytree(RUN_A / "logs", tmp_path / "logs")
    lead = tmp_path / "logs" / "run_evaluation" / "toy-a" / "agent-swe-a" / "example__toy-101" / "report.json"
    data = json.loads(lead.read_text(encoding="utf-8"))
    data["example__toy-101"]["tests_status"]["PASS_TO_PASS"]["success"] = [f"t.py::test_{i}" for i in range(6000)]
    lead.write_text(json.dumps(data, indent=4), encoding="utf-8")
    assert lead.stat().st_size > 64 * 1024
    run = _one(tmp_path)
    assert len(run.rows) == 4 and _by_case(run)["example__toy-101"] == ("PASS", None)


def test_full_size_report_is_told_by_its_head(tmp_path: Path) -> None:
    """A full dataset's report (the harness's key order, indented) runs past the detection head: still ours."""
    from shared import load_benchmark

    path = load_benchmark("bench_import").write_swe_bench(tmp_path / "org__agent.full.json", 3000)
    assert path.stat().st_size > 64 * 1024
    assert b'"unresolved_ids"' not in path.read_bytes()[:64 * 1024]  # what the head cannot show
    assert _swe_bench.detect(path)
    run = sk.import_results(path)[0]  # auto
    assert (run.agent, run.task, len(run.rows), run.source["dataset_size"]) == ("org/agent", "full", 3000, 3000)
    assert run.source["metrics"]["counts"] == {k: v for k, v in _report_of(path).items() if k.endswith("_instances")}


def test_directory_reads_the_report_with_its_layout_nothing_skipped() -> None:
    run = _one(RUN_A)
    assert not any("skipped" in n for n in run.notes)
    assert _swe_bench.claims(REPORT) == {p for p in MODEL_DIR.rglob("*") if p.is_file()}


def test_detect_by_content_not_name(tmp_path: Path) -> None:
    renamed = tmp_path / "whatever.txt"
    shutil.copy(REPORT, renamed)
    assert _swe_bench.detect(renamed) and _swe_bench.detect(REPORT)
    assert sk.import_results(renamed)[0].source["format"] == "swe-bench"
    assert not _swe_bench.detect(MODEL_DIR / "example__toy-101" / "report.json")  # the run report reads it
    rows = tmp_path / "agent-x.run-1.json"
    rows.write_text('{"id": "r1", "dimension": "pii", "agent_output": "x"}\n', encoding="utf-8")
    assert not _swe_bench.detect(rows) and not _swe_bench.detect(tmp_path)


def test_id_in_two_lists_names_both_positions(tmp_path: Path) -> None:
    data = _report()
    data["unresolved_ids"].append("example__toy-101")
    with pytest.raises(sk.InputError, match=r"unresolved_ids\[3\]: instance 'example__toy-101' is also "
                                            r"resolved_ids\[0\]"):
        _swe_bench.read(_write(tmp_path, data))


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.__setitem__("resolved_ids", "example__toy-101"), r"resolved_ids: expected a list, found a string"),
    (lambda d: d["error_ids"].__setitem__(0, 5), r"error_ids\[0\]: expected an instance id \(a string\), found a n"),
    (lambda d: d.__setitem__("resolved_instances", 5), r"resolved_instances: 5 is more than the file holds \(1"),
    (lambda d: d.__setitem__("total_instances", 10**9), r"total_instances: 1000000000 is more than the file holds"),
    (lambda d: d.__setitem__("total_instances", 3), r"total_instances: 3 but the outcome lists name 7"),
    (lambda d: d.__setitem__("completed_instances", "4"), r"completed_instances: expected a whole number"),
    (lambda d: d.__setitem__("failure_reasons", []), r"failure_reasons: expected an object, found a list"),
    (lambda d: d.update(infra_failure_ids=["example__toy-101"], infra_failure_instances=1),
     r"infra_failure_ids\[0\]: .* neither"),
])
def test_damaged_report_is_one_line_naming_file_and_position(tmp_path: Path, edit: Any, message: str) -> None:
    data = _report()
    edit(data)
    path = _write(tmp_path, data)
    with pytest.raises(sk.InputError, match=message) as err:
        _swe_bench.read(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_damaged_per_instance_report_is_an_input_error(tmp_path: Path) -> None:
    shutil.copytree(RUN_A, tmp_path / "run-a")
    bad = tmp_path / "run-a" / "logs" / "run_evaluation" / "toy-a" / "agent-swe-a" / "example__toy-102" / "report.json"
    data = json.loads(bad.read_text(encoding="utf-8"))
    data["example__toy-102"]["tests_status"]["FAIL_TO_PASS"]["failure"] = [3]
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(sk.InputError, match=r"FAIL_TO_PASS\.failure\[0\]: expected a test name"):
        sk.import_results(tmp_path / "run-a")
    data["example__toy-102"]["resolved"] = True
    data["example__toy-102"]["tests_status"]["FAIL_TO_PASS"]["failure"] = []
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(sk.InputError, match=r"resolved is true but the run report lists it in unresolved_ids"):
        sk.import_results(tmp_path / "run-a")


def test_older_report_without_lists_reads_missing_as_empty(tmp_path: Path) -> None:
    data = {k: v for k, v in _report().items()
            if k not in ("schema_version", "incomplete_ids", "infra_failure_ids", "ambiguous_failure_ids",
                         "infra_failure_instances", "ambiguous_failure_instances", "failure_reasons")}
    run = _one(_write(tmp_path, data))
    assert len(run.rows) == 6 and run.partial  # example__toy-106 is named nowhere: counted, no row
    assert run.source["sample_epochs_planned"] == 7
    notes = " ".join(run.notes)
    assert "no incomplete_ids: read as empty" in notes and "no schema_version" in notes
    assert "1 instance(s) of total_instances are in no outcome list" in notes


def test_infra_failure_is_advisory_unresolved_with_reason(tmp_path: Path) -> None:
    """swebench 5: infra_failure_ids stay in unresolved_ids, its denominator unchanged; the reason is detail."""
    data = _report()
    data["infra_failure_ids"] = ["example__toy-102"]
    data["infra_failure_instances"] = 1
    data["failure_reasons"] = {"example__toy-102": "docker_oom"}
    run = _one(_write(tmp_path, data))
    row = run.rows.set_index("case_id").loc["example__toy-102"]
    assert (row["status"], row["reason"]) == ("FAIL", "unresolved")
    assert row["detail"] == "likely infrastructure failure: docker_oom"  # the report alone: no tests_status


def test_no_instances_is_input_error(tmp_path: Path) -> None:
    data = {"resolved_ids": [], "unresolved_ids": [], "total_instances": 0, "schema_version": 2}
    with pytest.raises(sk.InputError, match="names no instance"):
        _swe_bench.read(_write(tmp_path, data))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(list(_swe_bench.OUTCOME_LISTS)), min_size=1, max_size=30), st.randoms())
def test_counts_preserved_under_shuffling(tmp_path: Path, kinds: list[str], rnd: random.Random) -> None:
    data: dict[str, Any] = {key: [] for key in _swe_bench.OUTCOME_LISTS}
    for i, key in enumerate(kinds):
        data[key].append(f"x__y-{i}")
    for key in data:
        rnd.shuffle(data[key])
    data["total_instances"] = len(kinds)
    run = _one(_write(tmp_path, data))
    got = run.rows.groupby(["status"]).size().to_dict()
    want: dict[str, int] = {}
    for key in kinds:
        status = _swe_bench.OUTCOME_LISTS[key][0]
        want[status] = want.get(status, 0) + 1
    assert got == want
    assert run.partial == (kinds.count("resolved_ids") + kinds.count("unresolved_ids") < len(kinds))


def test_rows_pass_validation() -> None:
    assert len(sk.read_rows(_one(RUN_A).rows)) == 7


# --------------------------------------------------------------------------- CLI
def test_cli_import_writes_rows_source_and_policy_stub(run_cli: Any, tmp_path: Path) -> None:
    code, out, err = run_cli("import", "--from", "swe-bench", RUN_A, "--out-dir", tmp_path / "out")
    assert code == 0, err
    folder = next(p for p in (tmp_path / "out").iterdir() if p.is_dir())
    source = json.loads((folder / "source.json").read_text())
    assert source["format"] == "swe-bench" and source["agent"] == "agent-swe-a"
    assert len(sk.read_rows(folder / "results.jsonl")) == 7
    assert '"resolved"' in (tmp_path / "out" / "policy.stub.yml").read_text()
    code, out, err = run_cli("import", "--from", "auto", REPORT, "--out-dir", tmp_path / "auto")
    assert code == 0, err


def test_cli_run_from_gates_it(run_cli: Any, tmp_path: Path) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text("gate:\n  thresholds:\n    resolved: 0.1\n", encoding="utf-8")
    code, out, err = run_cli("run", "--from", "swe-bench", "--results", RUN_A, "--policy", policy,
                             "--out-dir", tmp_path / "card")
    assert code == 0 and "decision: TRIAGE" in out, out + err  # partial run: 4 of 7 completed
    code, out, err = run_cli("run", "--from", "swe-bench", "--results", RUN_A, "--policy", policy, "--gate",
                             "--out-dir", tmp_path / "gated")
    assert code == 1 and "gate: not passed (decision TRIAGE)" in err  # the evidence is not a release
    data = json.loads((tmp_path / "card" / "scorecard.json").read_text())
    assert data["source"]["format"] == "swe-bench" and data["agent"]["name"] == "agent-swe-a"


def test_cli_damaged_report_exits_2_in_one_line(run_cli: Any, tmp_path: Path) -> None:
    data = _report()
    data["resolved_ids"] = [{"id": "example__toy-101"}]
    path = _write(tmp_path, data)
    code, out, err = run_cli("import", "--from", "swe-bench", path, "--out-dir", tmp_path / "out")
    assert code == 2
    line = err.strip()
    assert "\n" not in line and str(path) in line and "resolved_ids[0]" in line and "Traceback" not in err


def test_cli_run_without_from_names_the_format(run_cli: Any, tmp_path: Path) -> None:
    code, out, err = run_cli("run", "--results", REPORT, "--out-dir", tmp_path)
    assert code == 2 and "--from swe-bench" in err and "\n" not in err.strip()


# --------------------------------------------------------------------------- run-b: a '/' in the model name
#: run-b: written by swebench 5.0.2's own harness, make_swebench_reports.py variant b (README of tests/data/imports)
RUN_B = RUN_A.parent / "run-b"
REPORT_B = RUN_B / "reports" / "org__agent-swe-b.toy-b.json"
MODEL_DIR_B = RUN_B / "logs" / "run_evaluation" / "toy-b" / "org__agent-swe-b"
#: swebench's own summary of run-b as it printed it (and wrote the counts): 5 instances, 4 submitted and completed,
#: 3 resolved (201, 202 and the FAIL_ONLY 204), 1 unresolved (203: the tests-errored marker), 1 incomplete (205)
EXPECTED_COUNTS_B = {"total_instances": 5, "submitted_instances": 4, "completed_instances": 4, "resolved_instances": 3,
                     "unresolved_instances": 1, "empty_patch_instances": 0, "error_instances": 0,
                     "infra_failure_instances": 0, "ambiguous_failure_instances": 0}


@pytest.mark.parametrize(("path", "fmt"), [(REPORT_B, "swe-bench"), (RUN_B, "swe-bench"), (RUN_B, "auto"),
                                           (REPORT_B, "auto")])
def test_run_b_counts_ids_and_agent_equal_swe_benchs_own(path: Path, fmt: str) -> None:
    report = _report_of(REPORT_B)
    runs = sk.import_results(path, format=fmt)
    assert len(runs) == 1
    run = runs[0]
    assert (run.agent, run.task) == ("org/agent-swe-b", "toy-b")  # the harness wrote the '/' as '__'
    got = _by_case(run)
    assert len(got) == len(run.rows) == report["total_instances"] == 5
    assert sorted(i for i, (s, _) in got.items() if s == "PASS") == sorted(report["resolved_ids"])
    assert sorted(report["resolved_ids"]) == ["example__toy-201", "example__toy-202", "example__toy-204"]
    assert sorted(i for i, v in got.items() if v == ("FAIL", "unresolved")) == report["unresolved_ids"]
    assert sorted(i for i, v in got.items() if v == ("ERROR", "incomplete")) == report["incomplete_ids"]
    assert report["empty_patch_ids"] == report["error_ids"] == []
    for key, value in EXPECTED_COUNTS_B.items():
        assert run.source["metrics"]["counts"][key] == value == report[key]
    # SWE-bench's own rates, recomputed from the report's JSON
    assert run.source["metrics"]["resolved_rate_of_total"] == pytest.approx(
        report["resolved_instances"] / report["total_instances"]) == pytest.approx(0.6)
    assert run.source["metrics"]["resolved_rate_of_submitted"] == pytest.approx(
        report["resolved_instances"] / report["submitted_instances"]) == pytest.approx(0.75)
    # 4 of 5 completed: partial, and every row says so
    assert run.partial and all(run.rows["partial_run"])
    assert (run.source["sample_epochs_run"], run.source["sample_epochs_planned"]) == (4, 5)
    assert run.source["created"] == json.loads((MODEL_DIR_B.parent / "run.json").read_text())["created_at"]


def test_run_b_rows_agree_with_the_per_instance_reports() -> None:
    rows = _one(RUN_B).rows.set_index("case_id")
    for folder in sorted(MODEL_DIR_B.iterdir()):
        body = json.loads((folder / "report.json").read_text())[folder.name]
        assert (rows.loc[folder.name, "status"] == "PASS") == body["resolved"]
    # the tests-errored marker: the harness grades the instance unresolved with patch_successfully_applied false
    assert rows.loc["example__toy-203", "detail"].startswith("patch_successfully_applied is false")
    assert rows.loc["example__toy-205", "detail"] == "no prediction submitted (in incomplete_ids)"


def test_run_b_scorekit_figures_and_decision() -> None:
    report = _report_of(REPORT_B)
    card = sk.evaluate(_one(RUN_B), policy={"purpose": "exploratory"})
    dim = next(d for d in card.to_dict()["dimensions"] if d["name"] == "resolved")
    assert (dim["passes"], dim["fails"], dim["errors"]) == (3, 1, 1)
    assert dim["pass_k"]["1"] == pytest.approx(report["resolved_instances"] / report["completed_instances"])
    assert card.decision == "TRIAGE"


def test_run_b_cli_import_and_run(run_cli: Any, tmp_path: Path) -> None:
    code, out, err = run_cli("import", "--from", "swe-bench", RUN_B, "--out-dir", tmp_path / "out")
    assert code == 0, err
    folder = next(p for p in (tmp_path / "out").iterdir() if p.is_dir())
    assert json.loads((folder / "source.json").read_text())["agent"] == "org/agent-swe-b"
    assert len(sk.read_rows(folder / "results.jsonl")) == 5
    policy = tmp_path / "policy.yml"
    policy.write_text("gate:\n  thresholds:\n    resolved: 0.5\n", encoding="utf-8")
    code, out, err = run_cli("run", "--from", "swe-bench", "--results", RUN_B, "--policy", policy,
                             "--out-dir", tmp_path / "card")
    assert code == 0 and "decision: TRIAGE" in out, out + err
    data = json.loads((tmp_path / "card" / "scorecard.json").read_text())
    assert data["agent"]["name"] == "org/agent-swe-b"


def test_run_b_per_instance_reports_alone_agree_with_the_run_report(tmp_path: Path) -> None:
    """Without the run report the logs still give the completed instances' outcomes (and the '/' of the model)."""
    report = _report_of(REPORT_B)
    shutil.copytree(RUN_B / "logs", tmp_path / "logs")
    run = _one(tmp_path)
    assert (run.agent, run.task) == ("org/agent-swe-b", "toy-b")
    got = _by_case(run)
    assert sorted(got) == sorted(report["completed_ids"])
    assert sorted(i for i, (s, _) in got.items() if s == "PASS") == sorted(report["resolved_ids"])
    assert sorted(i for i, v in got.items() if v == ("FAIL", "unresolved")) == report["unresolved_ids"]
    assert run.source["metrics"]["counts"] == {"completed_instances": report["completed_instances"],
                                               "resolved_instances": report["resolved_instances"]}
