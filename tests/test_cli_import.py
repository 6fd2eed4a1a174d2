"""``scorekit import``, ``run --from``, and another tool's file given to run/validate without ``--from`` (SPEC §15)."""

from __future__ import annotations

import json

import pytest
import yaml
from import_logs import INSPECT, POPULARITY, PROMPTFOO_EXPORT, QUIZ, STREAMING

import scorekit as sk


def test_import_writes_one_jsonl_per_run_a_source_json_beside_each_and_a_policy_stub(run_cli, tmp_path):
    code, out, err = run_cli("import", "--from", "auto", INSPECT, PROMPTFOO_EXPORT, "--out-dir", tmp_path)
    assert code == 0, err
    folders = sorted(p for p in tmp_path.iterdir() if p.is_dir())
    assert len(folders) == 13  # eleven Inspect logs with samples, two promptfoo providers
    for folder in folders:
        source = json.loads((folder / "source.json").read_text())
        rows = sk.read_rows(folder / "results.jsonl")
        assert set(rows["agent"]) == {source["agent"]}
    stub = (tmp_path / "policy.stub.yml").read_text()
    assert sk.load_policy(tmp_path / "policy.stub.yml").gate.thresholds == {}  # thresholds are to fill in
    for dimension in ("match", "model_graded_qa", "llm-rubric", "latency"):
        assert f'# "{dimension}": 0.9    # coverage' in stub
    assert yaml.safe_load(stub)["gate"]["required_dimensions"]
    header = out.splitlines()[0].split()
    assert header == ["agent", "task", "rows", "dimensions", "coverage", "status"]


def test_imported_rows_evaluate_as_the_run_does(run_cli, tmp_path):
    assert run_cli("import", "--from", "inspect", QUIZ, "--out-dir", tmp_path)[0] == 0
    folder = next(p for p in tmp_path.iterdir() if p.is_dir())
    direct = sk.evaluate(sk.import_results(QUIZ)[0])
    from_file = sk.evaluate(folder / "results.jsonl")
    assert from_file.hashes == direct.hashes and from_file.decision == direct.decision


def test_run_from_imports_and_evaluates_in_one_step(run_cli, tmp_path):
    code, out, err = run_cli("run", "--from", "inspect", "--results", POPULARITY, "--out-dir", tmp_path)
    assert code == 0, err
    assert "decision: TRIAGE" in out and "imported from Inspect AI" in out
    data = json.loads((tmp_path / "scorecard.json").read_text())
    assert data["source"]["format"] == "inspect" and data["agent"]["name"] == "openai/gpt-4o-mini"
    assert "- source: imported from Inspect AI" in (tmp_path / "scorecard.md").read_text()


def test_run_from_with_several_agents_and_no_agent_exits_2_naming_them(run_cli, tmp_path):
    code, out, err = run_cli("run", "--from", "promptfoo", "--results", PROMPTFOO_EXPORT, "--out-dir", tmp_path)
    assert code == 2 and "'openai:gpt-5'" in err and "'openai:gpt-5-mini'" in err and "--agent" in err
    assert len(err.strip().splitlines()) == 1
    code, out, err = run_cli("run", "--from", "promptfoo", "--results", PROMPTFOO_EXPORT, "--agent", "openai:gpt-5",
                             "--out-dir", tmp_path)
    assert code == 0, err


@pytest.mark.parametrize(("path", "fmt"), [(STREAMING, "inspect"), (PROMPTFOO_EXPORT, "promptfoo")])
@pytest.mark.parametrize("command", ["run", "validate"])
def test_another_tools_file_without_from_exits_2_naming_the_format_and_from(run_cli, tmp_path, path, fmt, command):
    args = ("run", "--results", path, "--out-dir", tmp_path) if command == "run" else ("validate", path)
    code, out, err = run_cli(*args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and f"--from {fmt}" in err and str(path) in err


def test_validate_from_reads_the_imported_rows(run_cli):
    code, out, err = run_cli("validate", "--from", "inspect", STREAMING)
    assert code == 0, err
    assert "4 labeled" in out


def test_an_imported_run_shows_in_jupyter_as_a_small_table():
    html = sk.import_results(POPULARITY)[0]._repr_html_()
    for column in ("agent", "task", "rows", "dimensions", "coverage", "status"):
        assert f">{column}</th>" in html
    assert "openai/gpt-4o-mini" in html and "popularity" in html
