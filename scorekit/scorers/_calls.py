"""Tool calls as real logs carry them (SPEC §2), read one way for every scorer.

A captured call is ``{name, arguments}`` where ``arguments`` is an object or the
JSON text of one (OpenAI and Anthropic logs carry text), the OpenAI shape
``{type: "function", function: {name, arguments}}``, or Anthropic's
``{type: "tool_use", name, input}``. :func:`read_call` turns each into a
:class:`Call`; arguments whose text does not parse as one strict JSON object
(bad JSON, NaN/Infinity, a repeated key, not an object) are the agent's
mistake: the call is ``malformed`` and the row stays valid.

:func:`call_shape_problem` is the row-level check of the same shapes (a call
that is not an object, has no name, or arguments that are neither an object nor
text make the row invalid).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .._io import ROW_NESTING, loads_strict

__all__ = ["Call", "call_shape_problem", "parse_arguments", "read_call", "row_calls"]


class Call(NamedTuple):
    """One tool call: its name, its arguments object, the text they came as, and
    whether that text failed to parse (``arguments`` is then None)."""

    name: Any
    arguments: dict[str, Any] | None
    text: str | None = None
    malformed: bool = False


def parse_arguments(text: str) -> dict[str, Any] | None:
    """The object a call's JSON ``text`` holds, or None when it is not one strict
    JSON object (bad JSON, NaN/Infinity, a repeated key, an array or a scalar).

    Examples
    --------
    >>> parse_arguments('{"amount": 150}')
    {'amount': 150}
    >>> parse_arguments('{"amount": 150') is None
    True
    """
    try:  # strict JSON; 1e999 is read as inf, as the argument schemas have always seen it
        value = loads_strict(text, nonfinite="overflow", max_depth=ROW_NESTING)
    except ValueError:  # not JSON, or not strict JSON (NaN, a repeated key, too deep or too long)
        return None
    return value if isinstance(value, dict) else None


def _parts(call: Mapping[str, Any]) -> tuple[Any, Any, bool]:
    """(name, raw arguments, arguments given) of one call in any accepted shape."""
    function = call.get("function")
    if isinstance(function, Mapping) and "name" not in call:
        return function.get("name"), function.get("arguments"), "arguments" in function
    if "arguments" in call:
        return call.get("name"), call["arguments"], True
    if "input" in call:  # Anthropic tool_use blocks
        return call.get("name"), call["input"], True
    return call.get("name"), None, False


def read_call(call: Any) -> Call:
    """A captured call as a :class:`Call` (name None when it has none).

    Examples
    --------
    >>> read_call({"type": "function", "function": {"name": "refund", "arguments": '{"amount": 5}'}})
    Call(name='refund', arguments={'amount': 5}, text='{"amount": 5}', malformed=False)
    """
    if not isinstance(call, Mapping):
        return Call(None, None)
    name, raw, given = _parts(call)
    if not given or raw is None:
        return Call(name, None)
    if isinstance(raw, str):
        parsed = parse_arguments(raw)
        return Call(name, parsed, raw, parsed is None)
    return Call(name, raw if isinstance(raw, dict) else None)


def row_calls(row: Mapping[str, Any]) -> list[Call] | None:
    """The row's ``tool_calls`` read with :func:`read_call`; None when absent or not a list."""
    calls = row.get("tool_calls")
    if not isinstance(calls, (list, tuple)):
        return None
    return [read_call(call) for call in calls]


def call_shape_problem(call: Any) -> str | None:
    """Why ``call`` is not a tool call in an accepted shape (None when it is one)."""
    if not isinstance(call, dict):
        return "expected an object"
    name, raw, given = _parts(call)
    where = "'function.name'" if "function" in call and "name" not in call else "'name'"
    if not isinstance(name, str):
        return f"{where} must be a string"
    if given and raw is not None and not isinstance(raw, (dict, str)):
        return f"arguments must be an object or the JSON text of one, got {type(raw).__name__}"
    return None
