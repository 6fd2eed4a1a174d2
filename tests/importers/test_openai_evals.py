"""OpenAI Evals importer (SPEC §15 ``openai-evals``): every mapping rule, on the shared file."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit.importers import FORMATS, _openai_evals

DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "openai-evals"
EXPORT = DATA / "openai-evals-items.jsonl"
MULTI = DATA / "openai-evals-multi-run-items.jsonl"
API = DATA / "api-output-items.jsonl"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(tmp_path: Path, items: list[Any], name: str = "items.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def _one(path: Path) -> Any:
    runs = _openai_evals.read(path)
    assert len(runs) == 1
    return runs[0]


def _get(run: Any, case: str, trial: int, grader: str) -> tuple[str, Any]:
    rows = run.rows
    row = rows[(rows["case_id"] == case) & (rows["trial"] == trial) & (rows["dimension"] == grader)]
    assert len(row) == 1
    reason = row["reason"].iloc[0] if "reason" in rows.columns else None
    return row["status"].iloc[0], (None if isinstance(reason, float) and math.isnan(reason) else reason)


def test_openai_evals_is_registered_format() -> None:
    assert FORMATS["openai-evals"] == "scorekit.importers._openai_evals"


def test_openai_evals_one_dimension_per_grader_counts_equal_source() -> None:
    items = _lines(EXPORT)
    run = _one(EXPORT)
    graders = {g for i in items for g in i["passes"]}
    assert set(run.rows["dimension"]) == graders
    card = sk.evaluate(run.rows, policy={"purpose": "exploratory"})
    dims = {d["name"]: d for d in card.to_dict()["dimensions"]}
    for grader in graders:
        passed = sum(1 for i in items if i["passes"][grader] is True)
        failed = sum(1 for i in items if i["passes"][grader] is False)
        assert (dims[grader]["passes"], dims[grader]["fails"]) == (passed, failed)
        assert run.source["metrics"][grader] == {"passed": passed, "failed": failed, "errored": 0}
        assert dims[grader]["pass_k"]["1"] == pytest.approx(passed / (passed + failed))


def test_openai_evals_pass_fail_from_passed() -> None:
    run = _one(EXPORT)
    assert _get(run, "3", 0, "Relevance") == ("FAIL", "grader_failed")
    assert _get(run, "10", 0, "Relevance") == ("PASS", None)


def test_openai_evals_case_is_data_source_item() -> None:
    items = _lines(EXPORT)
    run = _one(EXPORT)
    assert set(run.rows["case_id"]) == {str(i["data_source_idx"]) for i in items}
    first = run.rows[run.rows["case_id"] == "10"].iloc[0]
    assert first["input"] == items[0]["item"]


def test_openai_evals_trial_is_run_index_in_file() -> None:
    run = _one(MULTI)
    items = _lines(MULTI)
    assert list(run.rows["trial"]) == [0, 1]
    assert list(run.rows["run"]) == [items[0]["run_id"], items[1]["run_id"]]


def test_openai_evals_errored_item_is_error_on_every_grader() -> None:
    run = _one(MULTI)
    assert _get(run, "0", 0, "Match output to human label") == ("ERROR", "item_error")
    assert _get(run, "0", 1, "Match output to human label") == ("PASS", None)
    api = _one(API)
    assert _get(api, "2", 0, "String check") == ("ERROR", "item_error")


def test_openai_evals_grader_missing_on_item_is_error(tmp_path: Path) -> None:
    items = _lines(EXPORT)
    del items[1]["passes"]["Directness"]
    del items[1]["grades"]["Directness"]
    run = _one(_write(tmp_path, items))
    assert _get(run, "3", 0, "Directness") == ("ERROR", "ungraded")


def test_openai_evals_agent_is_sampled_model() -> None:
    assert _one(MULTI).agent == "gpt-4.1"
    api = _one(API)
    assert api.agent == "gpt-4o-mini-2024-07-18"
    assert api.task == "eval_67abd54d9b0081909a86353f6fb9317a"


def test_openai_evals_agent_without_sample_is_file_stem() -> None:
    run = _one(EXPORT)
    assert run.agent == "openai-evals-items"
    assert any("file name's stem" in note for note in run.notes)


def test_openai_evals_one_run_per_file() -> None:
    assert len(_openai_evals.read(MULTI)) == 1  # two run ids, one file: one run, trials 0 and 1


def test_openai_evals_mixed_models_split_never_mixed(tmp_path: Path) -> None:
    items = _lines(MULTI)
    items[1]["sample"]["sampled_model_name"] = "gpt-4.1-mini"
    runs = _openai_evals.read(_write(tmp_path, items))
    assert sorted(r.agent for r in runs) == ["gpt-4.1", "gpt-4.1-mini"]
    for r in runs:
        assert set(r.rows["agent"]) == {r.agent}


def test_openai_evals_api_shape_results() -> None:
    items = _lines(API)
    run = _one(API)
    statuses = [_get(run, str(i["datasource_item_id"]), 0, "String check")[0] for i in items]
    assert statuses == ["PASS", "FAIL", "ERROR"]
    assert run.source["metrics"]["String check"] == {"passed": 1, "failed": 1, "errored": 1}


def test_openai_evals_rows_pass_validation() -> None:
    for path in (EXPORT, MULTI, API):
        sk.read_rows(_one(path).rows)


def test_openai_evals_every_mapping_decision_noted() -> None:
    notes = " ".join(_one(EXPORT).notes)
    for word in ("one dimension per grader", "item_error", "case_id", "trial", "agent ="):
        assert word in notes


def test_openai_evals_detect_by_content_not_name(tmp_path: Path) -> None:
    renamed = tmp_path / "export.txt"
    shutil.copy(EXPORT, renamed)
    assert _openai_evals.detect(renamed) and _openai_evals.detect(API) and _openai_evals.detect(MULTI)
    rows = tmp_path / "openai-evals.jsonl"
    rows.write_text('{"id": "r1", "dimension": "pii", "agent_output": "x"}\n', encoding="utf-8")
    assert not _openai_evals.detect(rows)
    assert not _openai_evals.detect(DATA.parent / "tau" / "gpt-4o-airline-10tasks.json")


def test_openai_evals_empty_file_is_input_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(sk.InputError, match="no output items"):
        _openai_evals.read(path)


def test_openai_evals_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(EXPORT.read_text(encoding="utf-8") + '{"run_id": "x", "passes": {}, "item": {}, "grades": NaN}\n',
                    encoding="utf-8")
    with pytest.raises(sk.InputError) as err:
        _openai_evals.read(path)
    assert str(err.value).startswith(f"{path}:3:") and "\n" not in str(err.value)


def test_openai_evals_item_without_index_is_input_error(tmp_path: Path) -> None:
    items = _lines(EXPORT)
    del items[0]["data_source_idx"]
    with pytest.raises(sk.InputError, match="data_source_idx"):
        _openai_evals.read(_write(tmp_path, items))


def test_openai_evals_run_short_of_items_is_partial(tmp_path: Path) -> None:
    items = _lines(EXPORT)
    second = [dict(i, run_id="evalrun_second") for i in items[:1]]
    run = _one(_write(tmp_path, items + second))
    assert run.partial is True
    assert _one(EXPORT).partial is False


# --------------------------------------------------------------------------- property
_PASSED = st.one_of(st.booleans(), st.none(), st.integers(-1, 2), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=4), st.sampled_from(["true", "PASS", 1, 1.0]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(_PASSED, min_size=1, max_size=5), errored=st.lists(st.booleans(), min_size=5, max_size=5),
       api=st.booleans())
def test_openai_evals_never_pass_unless_passed_true(tmp_path: Path, values: list[Any], errored: list[bool],
                                                    api: bool) -> None:
    items: list[dict[str, Any]] = []
    for i, value in enumerate(values):
        error = {"message": "boom"} if errored[i] else None
        if api:
            items.append({"object": "eval.run.output_item", "run_id": "r", "datasource_item_id": i,
                          "datasource_item": {}, "results": [{"name": "g", "passed": value, "score": 1}],
                          "sample": {"model": "m", "error": error}, "status": "pass"})
        else:
            items.append({"run_id": "r", "data_source_idx": i, "item": {}, "grades": {"g": 1},
                          "passes": {"g": value}, "sample": {"sampled_model_name": "m", "error": error}})
    run = _one(_write(tmp_path, items))
    for i, value in enumerate(values):
        status, _ = _get(run, str(i), 0, "g")
        assert (status == "PASS") == (value is True and not errored[i])
