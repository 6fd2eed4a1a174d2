"""The importer entry point (scorekit/importers/_read.py): detection, directories, sources without samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scorekit as sk
from scorekit._errors import NoSamplesError


def test_a_named_source_without_samples_is_an_input_error_naming_it(tmp_path):
    path = tmp_path / "results.json"  # a τ²-bench results file whose run produced no simulation
    path.write_text(json.dumps({"info": {"agent_info": {"llm": "m"}}, "tasks": [], "simulations": []}),
                    encoding="utf-8")
    with pytest.raises(NoSamplesError, match="results.json.*no"):
        sk.import_results(path, format="tau")


@pytest.mark.parametrize("fmt", ["openai-evals", "assevra"])
def test_an_empty_file_is_an_input_error_naming_it(tmp_path, fmt):
    path = tmp_path / "empty.jsonl"
    path.write_text("", encoding="utf-8")
    with pytest.raises(sk.InputError, match="empty.jsonl"):
        sk.import_results(path, format=fmt)


def test_in_a_directory_a_source_without_samples_is_skipped_with_a_note(tmp_path):
    rows = [{"task_id": 1, "trial": t, "reward": 1.0, "info": {}, "traj": []} for t in range(2)]
    (tmp_path / "full.json").write_text(json.dumps(rows), encoding="utf-8")
    (tmp_path / "empty.json").write_text("[]", encoding="utf-8")
    runs = sk.import_results(tmp_path, format="tau")
    assert [Path(f).name for run in runs for f in run.source["files"]] == ["full.json"]
    assert any("empty.json" in note for run in runs for note in run.notes)


def test_a_directory_left_with_nothing_is_an_error(tmp_path):
    (tmp_path / "empty.json").write_text("[]", encoding="utf-8")
    with pytest.raises(sk.InputError):
        sk.import_results(tmp_path, format="tau")


def test_an_unknown_format_names_the_known_ones(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[]", encoding="utf-8")
    with pytest.raises((ValueError, sk.InputError), match="inspect"):
        sk.import_results(path, format="nope")


def test_run_refuses_an_assevra_file_only_on_assevras_own_fields(run_cli, tmp_path):
    contract = {"refund": {"json_schema": {"type": "object"}}}
    scorekit_row = {"id": "r1", "dimension": "tool_call", "tool_calls": [{"name": "refund", "arguments": {}}],
                    "tool_schemas": contract}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(scorekit_row) + "\n", encoding="utf-8")
    assert sk.import_results(path, format="assevra")  # --from assevra reads the dialect
    code, _, err = run_cli("validate", path)
    assert code == 1 and "another tool's format" not in err  # scored: no_contract, reported
    path.write_text(json.dumps({**scorekit_row, "action_match": "exact"}) + "\n", encoding="utf-8")
    code, _, err = run_cli("validate", path)
    assert code == 2 and "--from assevra" in err


@pytest.mark.parametrize("enabled", [True, False])
def test_an_import_leaves_the_garbage_collector_as_it_found_it(tmp_path, enabled):
    """import_results pauses the cyclic collector while it builds rows (linear time in the file), then
    restores the caller's setting, after a run and after an input error alike."""
    import gc

    good = Path(__file__).resolve().parents[1] / "data" / "imports" / "promptfoo" / "sample-export.json"
    bad = tmp_path / "bad.json"
    bad.write_text('{"evalId": "e", "results": {"version": 3, "results": ["oops"]}}', encoding="utf-8")
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert sk.import_results(good, format="promptfoo")
        assert gc.isenabled() is enabled
        with pytest.raises(sk.InputError):
            sk.import_results(bad, format="promptfoo")
        assert gc.isenabled() is enabled
        assert sk.import_results(good.parent, format="promptfoo")
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_an_import_builds_its_rows_with_the_collector_paused(monkeypatch):
    import gc

    from scorekit.importers import _promptfoo

    seen = []
    real = _promptfoo.read
    monkeypatch.setattr(_promptfoo, "read", lambda path: seen.append(gc.isenabled()) or real(path))
    good = Path(__file__).resolve().parents[1] / "data" / "imports" / "promptfoo" / "sample-export.json"
    assert gc.isenabled()
    sk.import_results(good, format="promptfoo")
    sk.import_results(good.parent, format="promptfoo")
    assert seen == [False, False] and gc.isenabled()
