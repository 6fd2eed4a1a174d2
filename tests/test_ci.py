"""CI front doors of ``scorekit run`` (SPEC §17): JUnit XML, the job summary, ``::error::`` lines."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import scorekit as sk
from scorekit._ci import SUMMARY_ENV, gate_annotations, step_summary
from scorekit.reports._sections import build_sections

EXAMPLE = sk.example_path()
POLICY = sk.example_path(file="policy.yml")


def _rows_with_every_verdict() -> list[dict]:
    """task_completion passes, tool_call fails, pii is required but has no rows (INCOMPLETE), cost is out of scope."""
    rows = [{"id": f"t{i}", "dimension": "task_completion", "agent_output": "done", "must_include": ["done"]}
            for i in range(40)]
    rows += [{"id": f"c{i}", "dimension": "tool_call", "tool_calls": [{"name": "send", "arguments": {}}],
              "allowed_tools": ["search"]} for i in range(10)]
    rows += [{"id": f"x{i}", "dimension": "cost", "cost_usd": 1.0, "cost_budget_usd": 2.0} for i in range(3)]
    return rows


POLICY_EVERY_VERDICT = {"gate": {"required_dimensions": ["task_completion", "tool_call", "pii"]}}


@pytest.fixture(scope="module")
def every_verdict(tmp_path_factory):
    import json

    path = tmp_path_factory.mktemp("rows") / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows_with_every_verdict()), encoding="utf-8")
    policy = path.parent / "policy.json"
    policy.write_text(json.dumps(POLICY_EVERY_VERDICT), encoding="utf-8")
    card = sk.evaluate(str(path), policy=str(policy))
    assert dict(card.dimensions["verdict"]) == {"cost": "NOT_IN_SCOPE", "pii": "INCOMPLETE",
                                               "task_completion": "PASS", "tool_call": "FAIL"}
    return path, policy


def test_junit_has_one_case_per_dimension_in_scope_with_its_outcome(run_cli, tmp_path, every_verdict):
    results, policy = every_verdict
    junit = tmp_path / "junit.xml"
    code, out, err = run_cli("run", "--results", results, "--policy", policy, "--out-dir", tmp_path / "r",
                             "--junit", junit)
    assert code == 0, err  # without --gate the run itself succeeds
    root = ET.parse(junit).getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {"task_completion", "tool_call", "pii"}  # not cost: out of scope
    assert list(cases["task_completion"]) and cases["task_completion"].find("failure") is None
    assert cases["task_completion"].find("error") is None
    failure = cases["tool_call"].find("failure")
    assert failure is not None and failure.get("type") == "FAIL"
    error = cases["pii"].find("error")
    assert error is not None and error.get("type") == "INCOMPLETE" and "no measured" in error.get("message")
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    assert root.get("tests") == "3"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["decision"] == "FAIL"  # SPEC §8: FAIL is decided before INCOMPLETE
    assert f"wrote {junit}" in out


def test_gate_appends_the_summary_and_keeps_what_earlier_steps_wrote(run_cli, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("## tests\n\nall green\n", encoding="utf-8")
    monkeypatch.setenv(SUMMARY_ENV, str(summary))
    for _ in range(2):
        code, out, err = run_cli("run", "--results", EXAMPLE, "--policy", POLICY, "--out-dir", tmp_path / "r",
                                 "--gate")
        assert code == 1 and "gate: not passed" in err
    text = summary.read_text("utf-8")
    assert text.startswith("## tests\n\nall green\n\n# scorekit run\n")
    assert text.count("**Decision: FAIL**") == 2  # appended each time, never overwritten
    assert "<" not in text.replace("&lt;", "")  # plain GitHub Markdown, no HTML


def test_no_summary_without_gate_or_without_the_variable(run_cli, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv(SUMMARY_ENV, str(summary))
    code, out, _ = run_cli("run", "--results", EXAMPLE, "--policy", POLICY, "--out-dir", tmp_path / "r")
    assert code == 0 and not summary.exists() and "::error" not in out
    monkeypatch.delenv(SUMMARY_ENV)
    code, out, _ = run_cli("run", "--results", EXAMPLE, "--policy", POLICY, "--out-dir", tmp_path / "r", "--gate")
    assert code == 1 and not summary.exists()


def test_gate_prints_one_error_command_per_failing_dimension(run_cli, tmp_path, every_verdict):
    results, policy = every_verdict
    code, out, _ = run_cli("run", "--results", results, "--policy", policy, "--out-dir", tmp_path / "r", "--gate")
    assert code == 1
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert len(errors) == 2
    assert any("gate%3A tool_call::tool_call FAIL" in e for e in errors)
    assert any("gate%3A pii::pii INCOMPLETE" in e for e in errors)


def test_an_unwritable_summary_is_exit_2_in_one_line(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv(SUMMARY_ENV, str(tmp_path / "no-such-dir" / "summary.md"))
    code, out, err = run_cli("run", "--results", EXAMPLE, "--policy", POLICY, "--out-dir", tmp_path / "r", "--gate")
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "GITHUB_STEP_SUMMARY" in err and "Traceback" not in err


def test_annotation_text_from_user_data_cannot_inject_a_second_command():
    rows = [{"id": f"r{i}", "dimension": "x\n::warning::injected", "status": "FAIL", "evaluator": "h"}
            for i in range(3)]
    card = sk.evaluate(rows, policy={"gate": {"thresholds": {"x\n::warning::injected": 0.5}}})
    lines = gate_annotations(build_sections(card.to_dict()))
    assert lines and all("\n" not in line for line in lines)
    assert all(line.startswith("::error ") for line in lines)


def test_step_summary_is_the_sections_markdown():
    card = sk.evaluate(EXAMPLE, policy=POLICY)
    sections = build_sections(card.to_dict())
    text = step_summary(sections)
    assert sections.thresholds.cell("tool_call", "rate").text in text
    assert "**Decision: FAIL**" in text
