"""The field table of a result row (SPEC §2): each known field and the check its value must pass.

A check takes the value and returns None when it is acceptable, else a short
message ("expected a string, got an integer"). Fields not in :data:`FIELDS` are
kept as they are. The table also says how a CSV cell of each field is read
(:data:`CSV_JSON_FIELDS`, :data:`FLOAT_FIELDS`) and which columns the typed
frame holds as text (:data:`STR_FIELDS`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .._counts import STATUSES
from ..scorers._calls import call_shape_problem

__all__ = [
    "ALIASES",
    "BOOL_FIELDS",
    "CONTROL_TAGS",
    "CSV_JSON_FIELDS",
    "FIELDS",
    "FLOAT_FIELDS",
    "MATCH_MODES",
    "NULL_IS_VALUE",
    "STR_FIELDS",
    "any_value",
    "is_nonempty_str",
    "is_str",
    "kind",
]

MATCH_MODES = ("ordered", "exact", "set")
CONTROL_TAGS = frozenset({"known-bad", "negative-example"})
# Fields where JSON null is a value ("None only matches None", SPEC §3), not absence.
NULL_IS_VALUE = frozenset({"expected_state", "observed_state"})


# --------------------------------------------------------------------------- field checks
# Each check returns None when the value is acceptable, else a short message.
def is_str(v: Any) -> str | None:
    return None if isinstance(v, str) else f"expected a string, got {kind(v)}"


def is_nonempty_str(v: Any) -> str | None:
    if not isinstance(v, str):
        return f"expected a string, got {kind(v)}"
    return None if v.strip() else "must not be empty"


def _is_count(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, int):
        return f"expected a non-negative integer, got {kind(v)}"
    return None if v >= 0 else f"must be >= 0, got {v}"


def _is_nonneg_number(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return f"expected a number, got {kind(v)}"
    if isinstance(v, float) and not math.isfinite(v):
        return f"{v!r} is not a finite number (NaN/Infinity are not valid JSON)"
    return None if v >= 0 else f"must be >= 0, got {v!r}"


def _is_unit_score(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return f"expected a number in [0, 1], got {kind(v)}"
    if isinstance(v, float) and not math.isfinite(v):
        return f"{v!r} is not a finite number (NaN/Infinity are not valid JSON)"
    return None if 0 <= v <= 1 else f"must be in [0, 1], got {v!r}"


def _is_run(v: Any) -> str | None:
    if isinstance(v, str):
        return None if v.strip() else "must not be empty"
    if isinstance(v, bool) or not isinstance(v, int):
        return f"expected an integer or a string, got {kind(v)}"
    return None if v >= 0 else f"must be >= 0, got {v}"


def _is_bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else f"expected true or false, got {kind(v)}"


def _is_str_list(v: Any) -> str | None:
    if not isinstance(v, list):
        return f"expected a list of strings, got {kind(v)}"
    for i, item in enumerate(v):
        if not isinstance(item, str):
            return f"item {i}: expected a string, got {kind(item)}"
    return None


def _is_status(v: Any) -> str | None:
    if v in STATUSES:
        return None
    return f"unknown status {v!r}; expected one of {', '.join(STATUSES)}"


def _is_match(v: Any) -> str | None:
    if v in MATCH_MODES:
        return None
    return f"unknown match mode {v!r}; expected one of {', '.join(MATCH_MODES)}"


def _is_number_or_object(v: Any) -> str | None:
    if isinstance(v, dict) or (isinstance(v, (int, float)) and not isinstance(v, bool)):
        return None
    return f"expected a number or an object, got {kind(v)}"


def _is_tool_calls(v: Any) -> str | None:
    """A list of calls in a shape real logs use (see :mod:`scorekit.scorers._calls`);
    arguments whose JSON text does not parse are the agent's mistake, not the row's."""
    if not isinstance(v, list):
        return f"expected a list of {{name, arguments}} objects, got {kind(v)}"
    for i, call in enumerate(v):
        if not isinstance(call, dict):
            return f"item {i}: expected an object, got {kind(call)}"
        problem = call_shape_problem(call)
        if problem:
            return f"item {i}: {problem}"
    return None


def _is_names_or_calls(v: Any) -> str | None:
    """A list whose items are a name or a {name, arguments?} object (actions, expected calls)."""
    if not isinstance(v, list):
        return f"expected a list, got {kind(v)}"
    for i, item in enumerate(v):
        if isinstance(item, str):
            continue
        if not isinstance(item, dict):
            return f"item {i}: expected a string or an object, got {kind(item)}"
        if not isinstance(item.get("name"), str):
            return f"item {i}: 'name' must be a string"
        if "arguments" in item and not isinstance(item["arguments"], dict):
            return f"item {i}: 'arguments' must be an object, got {kind(item['arguments'])}"
    return None


def _is_forbidden_actions(v: Any) -> str | None:
    if not isinstance(v, list):
        return f"expected a list, got {kind(v)}"
    for i, item in enumerate(v):
        if isinstance(item, str):
            continue
        if isinstance(item, list) and item and all(isinstance(x, str) for x in item):
            continue
        return f"item {i}: expected an action name or a non-empty list of names"
    return None


def _is_votes(v: Any) -> str | None:
    # Vote *values* are judged at scoring time (an invalid value makes the panel
    # invalid, SPEC §4); only the container shape is a row-level matter.
    if not isinstance(v, list):
        return f"expected a list of vote objects, got {kind(v)}"
    for i, vote in enumerate(v):
        if not isinstance(vote, dict):
            return f"item {i}: expected an object, got {kind(vote)}"
    return None


def _is_tool_schemas(v: Any) -> str | None:
    if not isinstance(v, dict):
        return f"expected an object mapping tool names to JSON Schemas, got {kind(v)}"
    for name, schema in v.items():
        if not isinstance(schema, (dict, bool)):
            return f"tool {name!r}: a JSON Schema must be an object or a boolean"
    return None


def any_value(v: Any) -> str | None:
    return None


# Field → check. Fields not listed are kept as they are.
FIELDS: dict[str, Callable[[Any], str | None]] = {
    "id": is_nonempty_str,
    "dimension": is_nonempty_str,
    "case_id": is_nonempty_str,
    "trial": _is_count,
    "status": _is_status,
    "score": _is_unit_score,
    "evaluator": is_nonempty_str,
    "agent": is_nonempty_str,
    "run": _is_run,
    "tags": _is_str_list,
    "reason": is_str,
    "detail": is_str,  # a pre-scored row's own explanation (SPEC §15: the source's error message); no hash
    "input": any_value,
    "context": any_value,
    "agent_output": is_str,
    "tool_calls": _is_tool_calls,
    "agent_actions": _is_names_or_calls,
    "observed_state": any_value,
    "usage": _is_number_or_object,
    "cost_usd": _is_nonneg_number,
    "latency_ms": _is_nonneg_number,
    "latency_s": _is_nonneg_number,
    "judge_votes": _is_votes,
    "must_include": _is_str_list,
    "must_not_include": _is_str_list,
    "allowed_tools": _is_str_list,
    "forbidden_tools": _is_str_list,
    "tool_schemas": _is_tool_schemas,
    "expected_tool_calls": _is_names_or_calls,
    "expected_actions": _is_names_or_calls,
    "forbidden_actions": _is_forbidden_actions,
    "match": _is_match,
    "expected_state": any_value,
    "canary": is_nonempty_str,
    "should_refuse": _is_bool,
    "cost_budget_usd": _is_nonneg_number,
    "latency_budget_ms": _is_nonneg_number,
    "judge_criteria": is_str,
    "pii_allowed": _is_str_list,
    "partial_run": _is_bool,  # provenance (SPEC §2, §15): in neither the suite nor the results hash
}
ALIASES = {"trial_id": "trial"}
# Fields holding true or false (a CSV cell of one reads "true"/"false", any case).
BOOL_FIELDS = ("should_refuse", "partial_run")
FLOAT_FIELDS = ("cost_usd", "latency_ms", "latency_s", "cost_budget_usd", "latency_budget_ms", "score")
STR_FIELDS = ("id", "dimension", "case_id", "evaluator", "reason", "agent_output", "canary", "judge_criteria", "agent")
# Fields that are JSON text in a CSV cell (everything structured).
CSV_JSON_FIELDS = frozenset(
    name for name, check in FIELDS.items() if check not in (is_str, is_nonempty_str, _is_status, _is_match)
) - {"trial", *FLOAT_FIELDS, *BOOL_FIELDS}


def kind(v: Any) -> str:
    """What ``v`` is, in the words of the messages ("an integer", "null", "an object")."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__
