"""Tool definitions in: OpenAI, Anthropic and MCP tools as ``tool_schemas`` (SPEC §15, last bullet).

:func:`tool_contracts` reads a JSON file holding the tools an agent was given and
returns the tool contract of SPEC §2/§3 (tool name → JSON Schema of its arguments):

* **OpenAI** function tools: Chat Completions ``[{"type": "function", "function":
  {"name", "parameters"}}]`` or Responses ``[{"type": "function", "name",
  "parameters"}]``; a function without ``parameters`` takes no arguments
  (``{"type": "object", "properties": {}, "additionalProperties": false}``). A tool
  that is not a function (``web_search``, ``file_search``, ``code_interpreter`` …)
  has no argument schema: it is skipped with a note;
* **Anthropic** tools ``[{"name", "input_schema"}]``; a server tool (``{"type":
  "web_search_20250305", "name"}``) has none and is skipped with a note;
* **MCP** ``tools/list`` results ``{"tools": [{"name", "inputSchema"}]}``, bare or as
  the ``result`` of a JSON-RPC response.

A request body's ``{"tools": [...]}`` is read like a bare list. Two definitions of one
name, an entry of no known shape, or a file with no tool are input errors (a contract
must be unambiguous). The schemas are kept as written: one that is not a valid
2020-12 schema makes the rows it is given to ERROR ``invalid_tool_schema`` at scoring.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._io import DEFAULT_LIMIT, read_json_strict

__all__ = ["tool_contracts"]

_WHAT = "tool definitions file"
#: What a function with no ``parameters`` accepts: no arguments at all (OpenAI's "empty parameter list").
_NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def tool_contracts(path: str | os.PathLike[str], *, notes: list[str] | None = None) -> dict[str, Any]:
    """Read OpenAI / Anthropic / MCP tool definitions into ``tool_schemas``.

    Parameters
    ----------
    path : str or os.PathLike
        A JSON file: an OpenAI ``tools`` array, Anthropic ``tools``, an MCP
        ``tools/list`` result (bare or inside a JSON-RPC response), or a request body
        with a ``tools`` key.
    notes : list of str, optional
        A list the reading's decisions are appended to: the dialect found, the tools
        skipped and why, the functions that take no arguments.

    Returns
    -------
    dict
        Tool name → JSON Schema, plain JSON data (SPEC §15): use it as a row's
        ``tool_schemas`` as it is (or through the policy key ``tool_contracts``).

    Raises
    ------
    InputError
        One line naming the file: unreadable, not strict JSON, no tools, an entry of no
        known shape, a tool without a name, or a name defined twice.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "tools.json"
    >>> _ = p.write_text(json.dumps([{"name": "get_weather",
    ...     "input_schema": {"type": "object", "required": ["city"]}}]))
    >>> notes = []
    >>> tool_contracts(p, notes=notes)
    {'get_weather': {'type': 'object', 'required': ['city']}}
    >>> notes
    ['read a tools array']
    """
    name = os.fspath(path)
    data = read_json_strict(Path(name), _WHAT, InputError, limit=DEFAULT_LIMIT)
    said: list[str] = []
    tools, container = _tool_list(data, name)
    said.append(f"read {container}")
    schemas: dict[str, Any] = {}
    for i, entry in enumerate(tools):
        where = f"{name}: tools[{i}]"
        if not isinstance(entry, dict):
            raise InputError(f"{where}: expected a tool object, got {type(entry).__name__}")
        found = _one_tool(entry, where, said)
        if found is None:
            continue
        tool, schema = found
        if tool in schemas:
            raise InputError(f"{where}: tool {tool!r} is defined twice")
        schemas[tool] = schema
    if not schemas:
        raise InputError(f"{name}: the {_WHAT} defines no tool with an argument schema")
    if notes is not None:
        notes.extend(said)
    return schemas


def _tool_list(data: Any, name: str) -> tuple[list[Any], str]:
    if isinstance(data, list):
        return data, "a tools array"
    if isinstance(data, dict):
        if data.get("jsonrpc") == "2.0" or "result" in data or "error" in data:
            if data.get("error") is not None:
                raise InputError(f"{name}: the JSON-RPC response is an error, not a tools/list result")
            result = data.get("result")
            if isinstance(result, dict) and isinstance(result.get("tools"), list):
                return result["tools"], "an MCP tools/list result inside a JSON-RPC response"
            raise InputError(f"{name}: the JSON-RPC response has no result.tools list")
        if isinstance(data.get("tools"), list):
            return data["tools"], "an object's tools list (MCP tools/list result or request body)"
    raise InputError(
        f"{name}: not tool definitions (expected an OpenAI or Anthropic tools array, or an MCP tools/list result)"
    )


def _named(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: name: expected a non-empty string, got {value!r}")
    return value


def _one_tool(entry: dict[str, Any], where: str, notes: list[str]) -> tuple[str, Any] | None:
    """(name, schema) of one definition, or None for a tool without an argument schema (noted)."""
    kind = entry.get("type")
    if isinstance(entry.get("function"), dict):  # OpenAI Chat Completions
        body = entry["function"]
        tool = _named(body.get("name"), where)
        return tool, body["parameters"] if "parameters" in body else _no_arguments(tool, notes)
    if kind == "function":  # OpenAI Responses
        tool = _named(entry.get("name"), where)
        return tool, entry["parameters"] if "parameters" in entry else _no_arguments(tool, notes)
    if "input_schema" in entry:  # Anthropic
        return _named(entry.get("name"), where), entry["input_schema"]
    if "inputSchema" in entry:  # MCP
        return _named(entry.get("name"), where), entry["inputSchema"]
    if isinstance(kind, str) and kind:
        label = entry.get("name") if isinstance(entry.get("name"), str) else kind
        notes.append(f"skipped tool {label!r} of type {kind!r}: not a function tool, it has no argument schema")
        return None
    raise InputError(f"{where}: not a tool definition of a known shape (no function, parameters, "
                     "input_schema or inputSchema)")


def _no_arguments(tool: str, notes: list[str]) -> dict[str, Any]:
    notes.append(f"function {tool!r} declares no parameters: it takes no arguments")
    return dict(_NO_ARGUMENTS)
