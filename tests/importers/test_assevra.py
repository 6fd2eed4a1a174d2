"""Assevra importer (SPEC §15 ``assevra``): trial ids, contract dialects, action matching, usage pricing."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit.importers import FORMATS, _assevra

DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "assevra"
GOLDEN = DATA / "golden.jsonl"
DEMO = DATA / "demo.jsonl"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(folder: Path, rows: list[dict[str, Any]], name: str = "dataset.jsonl") -> Path:
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _one(path: Path) -> Any:
    runs = _assevra.read(path)
    assert len(runs) == 1
    return runs[0]


def _row(run: Any, row_id: str) -> dict[str, Any]:
    rows = run.rows[run.rows["id"] == row_id]
    assert len(rows) == 1
    return {k: v for k, v in rows.iloc[0].items() if not (isinstance(v, float) and math.isnan(v))}


def _statuses(rows: Any, policy: Any = None) -> dict[str, str]:
    card = sk.evaluate(rows, policy=policy or {"purpose": "exploratory"})
    return dict(zip(card.evidence["id"], card.evidence["status"], strict=True))


def _tool_row(contract: Any, arguments: Any) -> dict[str, Any]:
    return {"id": "t1", "dimension": "tool_call", "tool_calls": [{"name": "refund", "arguments": arguments}],
            "tool_schemas": {"refund": contract}}


def test_assevra_is_registered_format() -> None:
    assert FORMATS["assevra"] == "scorekit.importers._assevra"


def test_assevra_rows_and_dimensions_equal_source() -> None:
    source = _lines(GOLDEN)
    run = _one(GOLDEN)
    assert list(run.rows["id"]) == [r["id"] for r in source]
    assert list(run.rows["dimension"]) == [r["dimension"] for r in source]
    sk.read_rows(run.rows)  # every translated row passes SPEC §2 validation


def test_assevra_trial_from_case_order() -> None:
    run = _one(GOLDEN)
    trials = [_row(run, f"trial-00{i}")["trial"] for i in (1, 2, 3)]
    assert trials == [0, 1, 2]
    assert {_row(run, f"trial-00{i}")["case_id"] for i in (1, 2, 3)} == {"dosing-pressure"}


def test_assevra_trial_from_capture_id(tmp_path: Path) -> None:
    base = {"dimension": "task_completion", "case_id": "cap-case-0001", "agent_output": "ok", "must_include": ["ok"]}
    rows = [dict(base, id="cap-0001-t2"), dict(base, id="cap-0001-t1")]
    run = _one(_write(tmp_path, rows))
    assert (_row(run, "cap-0001-t1")["trial"], _row(run, "cap-0001-t2")["trial"]) == (0, 1)
    assert any("-t<n>" in note for note in run.notes)


def test_assevra_flat_contract_is_object_schema() -> None:
    source = next(r for r in _lines(GOLDEN) if r["id"] == "tool-001")
    run = _one(GOLDEN)
    schema = _row(run, "tool-001")["tool_schemas"]["book_appointment"]
    flat = source["tool_schemas"]["book_appointment"]
    assert schema == {
        "type": "object",
        "required": flat["required"],
        "properties": {"patient_id": {"type": "string"}, "date": {"type": "string"},
                       "visit_type": {"enum": ["intake", "follow-up", "urgent"]}},
    }


def test_assevra_flat_contract_checks_like_assevra(tmp_path: Path) -> None:
    flat = {"required": ["order_id"], "types": {"amount": "number"}, "enum": {"reason": ["damaged", "late"]}}
    cases = {
        "ok": {"order_id": "A1", "amount": 3.5, "reason": "late"},
        "missing": {"amount": 3.5},
        "type": {"order_id": "A1", "amount": "3.5"},
        "bool": {"order_id": "A1", "amount": True},
        "enum": {"order_id": "A1", "reason": "lost"},
    }
    rows = [dict(_tool_row(flat, args), id=name) for name, args in cases.items()]
    got = _statuses(_one(_write(tmp_path, rows)).rows)
    assert got == {"ok": "PASS", "missing": "FAIL", "type": "FAIL", "bool": "FAIL", "enum": "FAIL"}


def test_assevra_json_schema_wrapper_is_the_schema(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"order_id": {"type": "string", "pattern": "^A"}},
              "required": ["order_id"], "additionalProperties": False}
    rows = [dict(_tool_row({"json_schema": schema}, {"order_id": "A1"}), id="ok"),
            dict(_tool_row({"json_schema": schema}, {"order_id": "B1"}), id="bad"),
            dict(_tool_row({"json_schema": schema}, {"order_id": "A1", "x": 1}), id="extra")]
    run = _one(_write(tmp_path, rows))
    assert _row(run, "ok")["tool_schemas"] == {"refund": schema}
    assert _statuses(run.rows) == {"ok": "PASS", "bad": "FAIL", "extra": "FAIL"}


def test_assevra_empty_contract_is_no_contract(tmp_path: Path) -> None:
    run = _one(_write(tmp_path, [_tool_row({}, {"order_id": "A1"})]))
    card = sk.evaluate(run.rows, policy={"purpose": "exploratory"})
    assert list(card.evidence["reason"]) == ["invalid_tool_schema"]


def test_assevra_unknown_flat_type_is_never_pass(tmp_path: Path) -> None:
    run = _one(_write(tmp_path, [_tool_row({"types": {"amount": "float"}}, {"amount": 1.5})]))
    assert _statuses(run.rows) == {"t1": "ERROR"}


def test_assevra_call_aliases_become_name_and_arguments(tmp_path: Path) -> None:
    row = {"id": "c", "dimension": "tool_call", "allowed_tools": ["lookup"],
           "tool_calls": {"tool": "lookup", "args": "{\"id\": 1}"}}
    run = _one(_write(tmp_path, [row]))
    assert _row(run, "c")["tool_calls"] == [{"name": "lookup", "arguments": "{\"id\": 1}"}]
    assert _statuses(run.rows) == {"c": "PASS"}


def test_assevra_action_match_is_match() -> None:
    source = next(r for r in _lines(GOLDEN) if r["id"] == "action-001")
    row = _row(_one(GOLDEN), "action-001")
    assert row["match"] == source["action_match"] and "action_match" not in row


def test_assevra_action_match_exact_applies(tmp_path: Path) -> None:
    base = {"dimension": "action_correctness", "expected_actions": ["a", "b"], "agent_actions": ["a", "x", "b"]}
    rows = [dict(base, id="ordered", action_match="ordered"), dict(base, id="exact", action_match="exact")]
    assert _statuses(_one(_write(tmp_path, rows)).rows) == {"ordered": "PASS", "exact": "FAIL"}


def test_assevra_sanctioned_field_is_pii_allowed() -> None:
    run = _one(GOLDEN)
    assert _row(run, "pii-echo-001")["pii_allowed"] == ["(555) 010-4477"]
    assert "pii_allowed" not in _row(run, "pii-clean-001")
    statuses = _statuses(run.rows)
    assert statuses["pii-echo-001"] == "PASS"


def test_assevra_usage_priced_with_config(tmp_path: Path) -> None:
    row = {"id": "c1", "dimension": "cost", "usage": {"input_tokens": 3400, "output_tokens": 160},
           "cost_budget_usd": 0.02}
    (tmp_path / ".assevra.yml").write_text("budgets:\n  price:\n    input_per_mtok: 3.0\n    output_per_mtok: 15.0\n",
                                           encoding="utf-8")
    nested = tmp_path / "datasets"
    nested.mkdir()
    run = _one(_write(nested, [row]))
    assert _row(run, "c1")["cost_usd"] == pytest.approx(3400 / 1e6 * 3.0 + 160 / 1e6 * 15.0)
    assert any(".assevra.yml" in note and "priced" in note for note in run.notes)
    assert _statuses(run.rows) == {"c1": "PASS"}


def test_assevra_usage_without_price_table_is_unmeasured(tmp_path: Path) -> None:
    shutil.copy(DEMO, tmp_path / "demo.jsonl")
    run = _one(tmp_path / "demo.jsonl")
    assert "cost_usd" not in _row(run, "cost-001")
    assert _statuses(run.rows)["cost-001"] == "ERROR"


def test_assevra_reported_cost_wins_over_usage(tmp_path: Path) -> None:
    (tmp_path / "assevra.yml").write_text("budgets:\n  price:\n    input_per_mtok: 1000\n    output_per_mtok: 1000\n",
                                          encoding="utf-8")
    row = next(r for r in _lines(GOLDEN) if r["id"] == "cost-001")
    run = _one(_write(tmp_path, [row]))
    assert _row(run, "cost-001")["cost_usd"] == row["cost_usd"]


def test_assevra_judged_dimensions_stay_judged() -> None:
    statuses = _statuses(_one(GOLDEN).rows)
    assert statuses["ground-001"] == "ERROR" and statuses["safe-001"] == "ERROR"


def test_assevra_agent_from_rows_else_stem(tmp_path: Path) -> None:
    assert _one(GOLDEN).agent == "golden"
    rows = [dict(r, agent="bot-a" if i % 2 else "bot-b") for i, r in enumerate(_lines(GOLDEN)[:6])]
    runs = _assevra.read(_write(tmp_path, rows))
    assert sorted(r.agent for r in runs) == ["bot-a", "bot-b"]
    for run in runs:
        assert set(run.rows["agent"]) == {run.agent}


def test_assevra_every_mapping_decision_noted() -> None:
    notes = " ".join(_one(GOLDEN).notes)
    for word in ("trial", "action_match -> match", "sanctioned_field -> pii_allowed", "flat tool contract", "agent ="):
        assert word in notes


def test_assevra_detect_by_content_not_name(tmp_path: Path) -> None:
    assert _assevra.detect(GOLDEN) and _assevra.detect(DEMO)
    renamed = tmp_path / "data.txt"
    shutil.copy(GOLDEN, renamed)
    assert _assevra.detect(renamed)
    plain = _write(tmp_path, [{"id": "r1", "dimension": "pii", "agent_output": "x"}], "assevra.jsonl")
    assert not _assevra.detect(plain)


def test_assevra_detect_reads_only_the_head(tmp_path: Path) -> None:
    """``run`` asks every importer about a results file: detection reads a few MiB
    of it, never the whole (a large run's file is gigabytes)."""
    import tracemalloc

    path = tmp_path / "big.jsonl"
    first = json.dumps({"id": "r0", "dimension": "pii", "agent_output": "x", "sanctioned_field": "email"}) + "\n"
    plain = json.dumps({"id": "r", "dimension": "pii", "agent_output": "y" * 200}) + "\n"
    path.write_text(first + plain * 120_000, encoding="utf-8")  # about 27 MB
    tracemalloc.start()
    try:
        assert _assevra.detect(path) and _assevra.certain(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20


def test_assevra_empty_dataset_is_input_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(sk.InputError, match="holds no rows"):
        _assevra.read(path)


# --------------------------------------------------------------------------- property
_TYPES = st.sampled_from(["string", "number", "integer", "boolean", "array", "object", "float", "str"])
_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=3), st.lists(st.integers(), max_size=2))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=_TYPES, value=_VALUES, required=st.booleans(), present=st.booleans())
def test_assevra_flat_contract_never_passes_what_assevra_rejects(tmp_path: Path, kind: str, value: Any,
                                                                 required: bool, present: bool) -> None:
    """A flat contract never PASSes a call that Assevra's own type check fails."""
    python = {"string": (str,), "number": (int, float), "integer": (int,), "boolean": (bool,), "array": (list,),
              "object": (dict,)}
    # The one known difference: JSON Schema's "integer" (which the flat contract becomes) accepts a float
    # with no fractional part (3.0); Assevra's isinstance check refuses it (docs/importers/assevra.md says so).
    assume(not (present and kind == "integer" and isinstance(value, float) and value.is_integer()))
    contract: dict[str, Any] = {"types": {"amount": kind}}
    if required:
        contract["required"] = ["amount"]
    arguments = {"amount": value} if present else {}
    run = _one(_write(tmp_path, [_tool_row(contract, arguments)]))
    status = _statuses(run.rows)["t1"]
    rejected = (required and not present) or (present and kind in python and (
        not isinstance(value, python[kind]) or (kind in ("number", "integer") and isinstance(value, bool))))
    if rejected or kind not in python:
        assert status != "PASS"
