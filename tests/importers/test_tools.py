"""Tool definitions → tool_schemas (SPEC §15, last bullet) and the policy key ``tool_contracts``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit._policy import load_policy
from scorekit.importers._tools import tool_contracts

DATA = Path(__file__).resolve().parents[1] / "data" / "imports" / "tools"
WEATHER = {"type": "object", "properties": {"location": {"type": "string", "description": "City name or zip code"}},
           "required": ["location"]}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- reading
def test_openai_function_tools_read() -> None:
    source = _json(DATA / "openai-chat-tools.json")
    schemas = tool_contracts(DATA / "openai-chat-tools.json")
    assert schemas["get_weather"] == source[0]["function"]["parameters"]


def test_openai_function_without_parameters_takes_no_arguments() -> None:
    notes: list[str] = []
    schemas = tool_contracts(DATA / "openai-chat-tools.json", notes=notes)
    assert schemas["get_time"] == {"type": "object", "properties": {}, "additionalProperties": False}
    assert any("get_time" in note and "no parameters" in note for note in notes)


def test_openai_non_function_tool_skipped_with_note() -> None:
    notes: list[str] = []
    schemas = tool_contracts(DATA / "openai-responses-tools.json", notes=notes)
    assert list(schemas) == ["get_weather"]
    assert schemas["get_weather"]["required"] == ["location"]
    skipped = [note for note in notes if note.startswith("skipped")]
    assert len(skipped) == 2 and "web_search_preview" in skipped[0] and "file_search" in skipped[1]


def test_anthropic_input_schema_read_server_tool_skipped() -> None:
    source = _json(DATA / "anthropic-tools.json")
    notes: list[str] = []
    schemas = tool_contracts(DATA / "anthropic-tools.json", notes=notes)
    assert schemas == {"get_stock_price": source[0]["input_schema"]}
    assert any("web_search" in note for note in notes)


def test_mcp_tools_list_result_bare() -> None:
    assert dict(tool_contracts(DATA / "mcp-tools-list.json")) == {"get_weather": WEATHER}


def test_mcp_tools_list_inside_jsonrpc_response() -> None:
    assert dict(tool_contracts(DATA / "mcp-tools-list-jsonrpc.json")) == {"get_weather": WEATHER}


def test_mcp_jsonrpc_error_response_is_input_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "err.json", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}})
    with pytest.raises(sk.InputError, match="JSON-RPC response is an error"):
        tool_contracts(path)


def test_tool_defined_twice_is_input_error(tmp_path: Path) -> None:
    tools = _json(DATA / "anthropic-tools.json")[:1] * 2
    with pytest.raises(sk.InputError, match="defined twice"):
        tool_contracts(_write(tmp_path / "t.json", tools))


def test_unknown_tool_shape_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(sk.InputError, match=r"tools\[0\]: not a tool definition"):
        tool_contracts(_write(tmp_path / "t.json", [{"name": "x", "schema": {}}]))


def test_no_tool_with_schema_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(sk.InputError, match="defines no tool"):
        tool_contracts(_write(tmp_path / "t.json", [{"type": "web_search_preview"}]))
    with pytest.raises(sk.InputError, match="not tool definitions"):
        tool_contracts(_write(tmp_path / "u.json", {"model": "gpt-4.1"}))


def test_tool_file_errors_are_one_line(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.json", _write(tmp_path / "nan.json", '[{"name": "x", "input_schema": NaN}]')):
        with pytest.raises(sk.InputError) as err:
            tool_contracts(path)
        assert str(path) in str(err.value) and "\n" not in str(err.value)


# --------------------------------------------------------------------------- plain JSON data, usable in a row
def _plain(value: Any) -> bool:
    """Only dict, list, str, int, float, bool and None, all the way down (exact types)."""
    if type(value) is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if type(value) is list:
        return all(_plain(v) for v in value)
    return type(value) in (str, int, float, bool, type(None))


# file, a call its contract accepts, one it refuses (a required argument missing)
TOOL_FILES = [
    ("openai-chat-tools.json", {"name": "get_weather", "arguments": {"location": "Oslo", "units": "celsius"}},
     {"name": "get_weather", "arguments": {"city": "Oslo"}}),
    ("openai-responses-tools.json", {"name": "get_weather", "arguments": {"location": "Oslo"}},
     {"name": "get_weather", "arguments": {"city": "Oslo"}}),
    ("anthropic-tools.json", {"name": "get_stock_price", "arguments": {"ticker": "AAPL"}},
     {"name": "get_stock_price", "arguments": {"symbol": "AAPL"}}),
    ("mcp-tools-list.json", {"name": "get_weather", "arguments": {"location": "Oslo"}},
     {"name": "get_weather", "arguments": {"city": "Oslo"}}),
    ("mcp-tools-list-jsonrpc.json", {"name": "get_weather", "arguments": {"location": "Oslo"}},
     {"name": "get_weather", "arguments": {"city": "Oslo"}}),
]


def _tool_rows(schemas: Any, good: dict[str, Any], bad: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"id": f"{case}-{trial}", "case_id": case, "trial": trial, "dimension": "tool_call",
             "tool_calls": [call], "tool_schemas": schemas}
            for case, call in (("good", good), ("bad", bad)) for trial in range(2)]


@pytest.mark.parametrize(("name", "good", "bad"), TOOL_FILES)
def test_tool_contracts_are_plain_json_usable_as_row_tool_schemas(name: str, good: Any, bad: Any) -> None:
    # SPEC §15: "What it returns is plain JSON data, usable as a row's tool_schemas as it is."
    schemas = tool_contracts(DATA / name)
    assert _plain(schemas)
    assert json.loads(json.dumps(schemas)) == schemas
    status = _status(sk.evaluate(_tool_rows(schemas, good, bad)))
    expected = {"good-0": "PASS", "good-1": "PASS", "bad-0": "FAIL", "bad-1": "FAIL"}
    assert {k: v[0] for k, v in status.items()} == expected


@pytest.mark.parametrize(("name", "good", "bad"), TOOL_FILES)
def test_tool_contracts_rows_through_the_cli(tmp_path: Path, name: str, good: Any, bad: Any) -> None:
    from tests.shared import scorekit_process

    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(r) + "\n" for r in _tool_rows(tool_contracts(DATA / name), good, bad)),
                    encoding="utf-8")
    expected = {"good-0": "PASS", "good-1": "PASS", "bad-0": "FAIL", "bad-1": "FAIL"}
    done = scorekit_process("run", "--results", rows, "--out-dir", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert _evidence_status(tmp_path / "out") == expected
    # The policy key gives the same contracts to rows without their own (the CLI's other path).
    shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "policy.yml").write_text(f"tool_contracts: {name}\n", encoding="utf-8")
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "tool_schemas"}) + "\n"
                            for r in _tool_rows(None, good, bad)), encoding="utf-8")
    done = scorekit_process("run", "--results", bare, "--policy", tmp_path / "policy.yml",
                            "--out-dir", tmp_path / "out2", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert _evidence_status(tmp_path / "out2") == expected


def _evidence_status(out: Path) -> dict[str, str]:
    import pandas as pd

    evidence = pd.read_parquet(out / "evidence.parquet")
    return dict(zip(evidence["id"], evidence["status"].astype(str), strict=True))


class _Schemas(dict):  # type: ignore[type-arg]
    """A dict subclass with an attribute, as tool_contracts once returned."""

    notes = ["read"]


def test_dict_subclass_in_a_row_is_read_as_its_plain_json_value() -> None:
    from collections import OrderedDict

    schemas = {"get_weather": WEATHER}
    good = {"name": "get_weather", "arguments": {"location": "Oslo"}}
    bad = {"name": "get_weather", "arguments": {"city": "Oslo"}}
    plain = sk.evaluate(_tool_rows(schemas, good, bad))
    wrappings = (_Schemas(schemas), OrderedDict(get_weather=OrderedDict(WEATHER)), {"get_weather": _Schemas(WEATHER)})
    for wrapped in wrappings:
        card = sk.evaluate(_tool_rows(wrapped, good, bad))
        assert _status(card) == _status(plain)
        assert _suite(card) == _suite(plain)  # the same definitions: the same suite hash


@pytest.mark.parametrize("value", [{1, 2}, object(), b"bytes", {"get_weather": {"type": "object", 1: "x"}}])
def test_non_json_value_in_a_row_is_an_invalid_row_naming_the_field(value: Any) -> None:
    rows = [{"id": f"r{i}", "case_id": "c", "trial": i, "dimension": "tool_call", "tool_schemas": value,
             "tool_calls": [{"name": "get_weather", "arguments": {}}]} for i in range(2)]
    evidence = sk.evaluate(rows).evidence
    assert list(evidence["status"]) == ["ERROR", "ERROR"]
    assert set(evidence["reason"]) == {"invalid_row"}
    assert all(d.startswith("tool_schemas") and "\n" not in d for d in evidence["detail"])
    with pytest.raises(sk.InputError, match="tool_schemas"):
        sk.read_rows(rows)


# --------------------------------------------------------------------------- the policy key
ROWS: list[dict[str, Any]] = [
    {"id": "ok", "dimension": "tool_call", "tool_calls": [{"name": "get_weather", "arguments": {"location": "Oslo"}}]},
    {"id": "bad", "dimension": "tool_call", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
    {"id": "own", "dimension": "tool_call", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}],
     "tool_schemas": {"get_weather": {"type": "object"}}},
    {"id": "other", "dimension": "injection", "agent_output": "fine", "canary": "ZX-CANARY"},
]


def _policy(tmp_path: Path, contracts: str = "tools.json", name: str = "policy.yml") -> Path:
    shutil.copy(DATA / "mcp-tools-list-jsonrpc.json", tmp_path / "tools.json")
    path = tmp_path / name
    path.write_text(f"tool_contracts: {contracts}\n", encoding="utf-8")
    return path


def _hashes(card: Any) -> Any:
    return card.to_dict()["hashes"]


def _suite(card: Any) -> Any:
    return _hashes(card)["suite"]


def _status(card: Any) -> dict[str, tuple[str, Any]]:
    ev = card.evidence
    return {row["id"]: (row["status"], row["reason"] if isinstance(row["reason"], str) else None)
            for _, row in ev.iterrows()}


def test_policy_tool_contracts_given_to_rows_without_tool_schemas(tmp_path: Path) -> None:
    without = _status(sk.evaluate(ROWS))
    assert without["ok"] == ("ERROR", "missing_tool_contract")
    with_contracts = _status(sk.evaluate(ROWS, policy=_policy(tmp_path)))
    assert with_contracts["ok"] == ("PASS", None)
    assert with_contracts["bad"][0] == "FAIL"


def test_policy_tool_contracts_never_replace_row_schemas(tmp_path: Path) -> None:
    assert _status(sk.evaluate(ROWS, policy=_policy(tmp_path)))["own"] == ("PASS", None)


def test_policy_tool_contracts_enter_suite_hash_not_policy_hash(tmp_path: Path) -> None:
    plain = _hashes(sk.evaluate(ROWS))
    first = _hashes(sk.evaluate(ROWS, policy=_policy(tmp_path)))
    other = tmp_path / "other"
    other.mkdir()
    policy = _policy(other)
    tools = _json(other / "tools.json")
    tools["result"]["tools"][0]["inputSchema"]["required"] = []
    _write(other / "tools.json", tools)
    second = _hashes(sk.evaluate(ROWS, policy=policy))
    assert len({plain["suite"], first["suite"], second["suite"]}) == 3
    assert plain["policy"] == first["policy"] == second["policy"]


def test_policy_tool_contracts_only_on_tool_call_rows(tmp_path: Path) -> None:
    others = [r for r in ROWS if r["dimension"] != "tool_call"]
    plain: str = _suite(sk.evaluate(others))
    assert plain == _suite(sk.evaluate(others, policy=_policy(tmp_path)))


def test_policy_tool_contracts_path_relative_to_policy_file(tmp_path: Path) -> None:
    policy = load_policy(_policy(tmp_path))
    assert policy.tool_contracts is not None and policy.tool_contracts.path == "tools.json"
    assert dict(policy.tool_contracts.schemas) == {"get_weather": WEATHER}
    assert policy.to_dict()["tool_contracts"] == "tools.json"
    assert load_policy(policy).tool_contracts == policy.tool_contracts  # a Policy given back keeps its contracts


def test_policy_replace_keeps_the_tool_contracts_read_beside_the_policy_file(tmp_path: Path, monkeypatch) -> None:
    policy = load_policy(_policy(tmp_path))
    monkeypatch.chdir(tmp_path.parent)  # "tools.json" does not exist relative to this folder
    changed = policy.replace(purpose="exploratory")
    assert changed.purpose == "exploratory" and changed.tool_contracts == policy.tool_contracts


def test_policy_tool_contracts_unreadable_is_policy_error_naming_file(tmp_path: Path) -> None:
    policy = _policy(tmp_path, contracts="missing.json")
    with pytest.raises(sk.PolicyError) as err:
        load_policy(policy)
    message = str(err.value)
    assert message.startswith(f"{policy}: tool_contracts: ") and "missing.json" in message and "\n" not in message
    _write(tmp_path / "broken.json", "[{")
    with pytest.raises(sk.PolicyError, match="broken.json"):
        load_policy(_policy(tmp_path, contracts="broken.json", name="p2.yml"))
    with pytest.raises(sk.PolicyError, match="tool_contracts"):
        load_policy({"tool_contracts": ""})


def test_policy_without_tool_contracts_keeps_its_form() -> None:
    assert "tool_contracts" not in load_policy(None).to_dict()
    assert load_policy(None).tool_contracts is None


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12)


def _wrapped(value: Any, draw: Any) -> Any:
    """``value`` with its containers swapped for subclasses and tuples, as Python callers build rows."""
    from collections import OrderedDict

    if isinstance(value, dict):
        items = {k: _wrapped(v, draw) for k, v in value.items()}
        return draw(st.sampled_from([dict, OrderedDict, _Schemas]))(items)
    if isinstance(value, list):
        items = [_wrapped(v, draw) for v in value]
        return draw(st.sampled_from([list, tuple]))(items)
    return value


@given(st.data(), _JSON)
@settings(max_examples=150, deadline=None)
def test_plain_json_reads_any_wrapping_as_the_plain_value(data: Any, value: Any) -> None:
    from scorekit._rows._screens import plain_json

    plain, problems = plain_json(_wrapped(value, data.draw))
    assert problems == [] and plain == value and _plain(plain)


def test_numpy_values_in_a_row_are_read_as_their_python_values() -> None:
    import numpy as np

    rows = [{"id": f"r{i}", "case_id": "c", "trial": i, "dimension": "x", "status": "PASS", "evaluator": "h",
             "input": {"flag": np.bool_(True), "ids": np.arange(2), "t": np.float32(0.5)}} for i in range(2)]
    plain = [{**row, "input": {"flag": True, "ids": [0, 1], "t": 0.5}} for row in rows]
    card, expected = sk.evaluate(rows), sk.evaluate(plain)
    assert list(card.evidence["status"]) == ["PASS", "PASS"] and _suite(card) == _suite(expected)
