"""Tool definitions → tool_schemas (SPEC §15, last bullet)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import scorekit as sk
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
