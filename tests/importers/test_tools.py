"""Tool definitions → tool_schemas (SPEC §15, last bullet) and the policy key ``tool_contracts``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

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
    schemas = tool_contracts(DATA / "openai-chat-tools.json")
    assert schemas["get_time"] == {"type": "object", "properties": {}, "additionalProperties": False}
    assert any("get_time" in note and "no parameters" in note for note in schemas.notes)


def test_openai_non_function_tool_skipped_with_note() -> None:
    schemas = tool_contracts(DATA / "openai-responses-tools.json")
    assert list(schemas) == ["get_weather"]
    assert schemas["get_weather"]["required"] == ["location"]
    skipped = [note for note in schemas.notes if note.startswith("skipped")]
    assert len(skipped) == 2 and "web_search_preview" in skipped[0] and "file_search" in skipped[1]


def test_anthropic_input_schema_read_server_tool_skipped() -> None:
    source = _json(DATA / "anthropic-tools.json")
    schemas = tool_contracts(DATA / "anthropic-tools.json")
    assert dict(schemas) == {"get_stock_price": source[0]["input_schema"]}
    assert any("web_search" in note for note in schemas.notes)


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
