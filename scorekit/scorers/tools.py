"""``tool_call``: the agent's tool calls against the row's tool contract (SPEC §3).

The contract is ``allowed_tools``, ``forbidden_tools``, ``tool_schemas`` (a JSON
Schema 2020-12 per tool) and ``expected_tool_calls``. Checks, in this order,
first failure wins:

1. a call to a tool in ``forbidden_tools`` → FAIL ``forbidden_tool``;
2. a call to a tool outside ``allowed_tools`` (when given) → FAIL ``tool_not_allowed``;
3. arguments of a call whose tool has a schema must validate against it (a call
   without ``arguments`` validates ``{}``) → FAIL ``invalid_tool_arguments``;
4. every ``expected_tool_calls`` entry must be present: a name matches a call
   with that name; ``{name, arguments}`` matches a call with that name whose
   arguments contain the expected ones by the state-matching rules of
   :func:`scorekit.scorers.actions.state_matches` → FAIL ``missing_expected_tool_call``.

A schema in the contract that is itself invalid, or that refers to anything but
a local ``#...`` fragment, makes the contract unusable: ERROR
``invalid_tool_schema`` unless one of the certain failures above applies.
Nothing is ever fetched over the network: remote references are rejected up
front and the validator gets a registry without retrieval.

Each distinct schema is compiled once per evaluation and kept in ``ctx.cache``
under ``("tool_call.schema", <canonical JSON of the schema>)``.
"""

from __future__ import annotations

import json
import marshal
from typing import Any, Mapping

from ._base import Context, Outcome, error, failed, passed, unlabeled
from ._schema_fast import surely_valid
from .actions import state_matches

__all__ = ["CACHE_KEY", "INDEX_KEY", "REASONS", "compiled_schema", "score"]

REASONS = {
    "missing_tool_contract": (
        "no allowed_tools, forbidden_tools, tool_schemas or expected_tool_calls: nothing can establish success"
    ),
    "missing_tool_calls": "the row has no tool_calls record (missing evidence; an empty list is a valid observation)",
    "forbidden_tool": "the agent called a tool listed in forbidden_tools",
    "tool_not_allowed": "the agent called a tool outside allowed_tools",
    "invalid_tool_arguments": "a tool call's arguments do not validate against the tool's JSON Schema",
    "invalid_tool_schema": "a tool schema is not a valid JSON Schema 2020-12 or uses a non-local $ref",
    "missing_expected_tool_call": "an expected tool call (name, and arguments when given) is missing",
}

CACHE_KEY = "tool_call.schema"
INDEX_KEY = "tool_call.schema_index"
BY_DEFINITION_KEY = "tool_call.by_definition"
_MISSING = object()
_REF_KEYWORDS = ("$ref", "$dynamicRef")
# Canonical JSON: sorted keys, no whitespace; keeps 1, 1.0 and true apart.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False).encode


def _get(row: Mapping[str, Any], key: str) -> Any:
    value = row.get(key, _MISSING)
    if value is None or (isinstance(value, float) and value != value):
        return _MISSING
    return value


def _fast_key(value: Any) -> bytes | None:
    """A cheap memo key: equal bytes imply equal values with equal types (marshal
    round-trips exactly and keeps bool/int/float apart). Equal values may still get
    different bytes (key order, shared objects): that only costs a cache miss."""
    try:
        return marshal.dumps(value)
    except ValueError:
        return None


class _Compiled:
    """One compiled schema: its validator (None when the schema is unusable) and
    a memo of validation results per instance."""

    __slots__ = ("validator", "results", "schema")

    def __init__(self, validator: Any, schema: Any = None) -> None:
        self.validator = validator
        self.schema = schema  # for the fast one-sided check (see _schema_fast)
        self.results: dict[bytes, bool] = {}

    def is_valid(self, instance: Any) -> bool | None:
        """True/False, or None when the schema cannot be applied (unusable schema)."""
        if self.validator is None:
            return None
        key = _fast_key(instance)
        if key is not None:
            hit = self.results.get(key)
            if hit is not None:
                return hit
        try:
            # The one-sided subset check first; only what it cannot vouch for
            # (and every invalid instance) goes through jsonschema.
            ok = surely_valid(self.schema, instance) or bool(self.validator.is_valid(instance))
        except Exception:  # unresolvable local $ref, $ref cycle (RecursionError), bad regex ...
            return None
        if key is not None:
            self.results[key] = ok
        return ok


def _has_remote_ref(schema: Any) -> bool:
    """Any ``$ref``/``$dynamicRef`` that is not a string starting with ``#``, anywhere."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _REF_KEYWORDS and not (isinstance(value, str) and value.startswith("#")):
                    return True
                if isinstance(value, (dict, list)):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    return False


def _compile(schema: Any) -> _Compiled:
    if not isinstance(schema, (dict, bool)) or _has_remote_ref(schema):
        return _Compiled(None)
    try:
        from jsonschema import Draft202012Validator  # lazy: only tool_call rows need it
        from jsonschema.exceptions import SchemaError
        from referencing import Registry

        Draft202012Validator.check_schema(schema)
        # An explicit Registry() has no retrieval: an unresolved reference is an
        # error, never an HTTP request (jsonschema's default registry fetches).
        return _Compiled(Draft202012Validator(schema, registry=Registry()), schema)
    except SchemaError:
        return _Compiled(None)
    except Exception:  # anything else a hostile schema can provoke
        return _Compiled(None)


def compiled_schema(schema: Any, ctx: Context) -> _Compiled:
    """The compiled form of ``schema``, compiled once per evaluation.

    Entries live in ``ctx.cache[(CACHE_KEY, canonical JSON of the schema)]``; a
    fast index (``ctx.cache[INDEX_KEY]``) skips re-encoding a schema already seen.
    """
    index = ctx.cache.get(INDEX_KEY)
    if index is None:
        index = ctx.cache[INDEX_KEY] = {}
    fast = _fast_key(schema)
    if fast is not None:
        entry = index.get(fast)
        if entry is not None:
            return entry
    entry = _compiled_by_canonical(schema, ctx)
    if fast is not None:
        index[fast] = entry
    return entry


def _compiled_by_canonical(schema: Any, ctx: Context) -> _Compiled:
    try:
        canonical = _CANONICAL(schema)
    except (TypeError, ValueError):
        return _Compiled(None)
    key = (CACHE_KEY, canonical)
    entry = ctx.cache.get(key)
    if entry is None:
        entry = ctx.cache[key] = _compile(schema)
    return entry


def _compiled_contracts(schemas: Mapping[str, Any], ctx: Context) -> dict[str, _Compiled]:
    """Each tool's compiled schema; memoised per case definition, so the trials
    of one case look their contracts up once."""
    if ctx.definition is None:
        return {name: compiled_schema(schema, ctx) for name, schema in schemas.items()}
    memo = ctx.cache.get(BY_DEFINITION_KEY)
    if memo is None:
        memo = ctx.cache[BY_DEFINITION_KEY] = {}
    compiled = memo.get(ctx.definition)
    if compiled is None:
        compiled = memo[ctx.definition] = {name: compiled_schema(schema, ctx) for name, schema in schemas.items()}
    return compiled


def _call_matches(expected: Any, call: tuple[Any, Any]) -> bool:
    name, args = call
    if isinstance(expected, str):
        return expected == name
    if not isinstance(expected, dict) or expected.get("name") != name:
        return False
    want = expected.get("arguments")
    if want is None:
        return True
    return state_matches(want, args if args is not None else {})


def score(row: Mapping[str, Any], ctx: Context) -> Outcome:
    """Score one ``tool_call`` row (see the module docstring)."""
    allowed = _get(row, "allowed_tools")
    forbidden = _get(row, "forbidden_tools")
    schemas = _get(row, "tool_schemas")
    expected = _get(row, "expected_tool_calls")

    # A key is part of the contract only when it can fail: allowed_tools given
    # (even empty: then no call is allowed), the others non-empty.
    has_allowed = isinstance(allowed, (list, tuple))
    has_forbidden = isinstance(forbidden, (list, tuple)) and len(forbidden) > 0
    has_schemas = isinstance(schemas, dict) and len(schemas) > 0
    has_expected = isinstance(expected, (list, tuple)) and len(expected) > 0
    if not (has_allowed or has_forbidden or has_schemas or has_expected):
        return unlabeled("missing_tool_contract")

    raw_calls = _get(row, "tool_calls")
    if raw_calls is _MISSING or not isinstance(raw_calls, (list, tuple)):
        return error("missing_tool_calls")
    calls: list[tuple[Any, Any]] = []
    for call in raw_calls:
        if isinstance(call, dict):
            args = call.get("arguments")
            calls.append((call.get("name"), args))
        else:
            calls.append((_MISSING, None))

    if has_forbidden:
        banned = {t for t in forbidden if isinstance(t, str)}
        if any(name in banned for name, _ in calls if isinstance(name, str)):
            return failed("forbidden_tool")
    if has_allowed:
        permitted = {t for t in allowed if isinstance(t, str)}
        if any(not isinstance(name, str) or name not in permitted for name, _ in calls):
            return failed("tool_not_allowed")

    schema_unusable = False
    if has_schemas:
        compiled = _compiled_contracts(schemas, ctx)
        schema_unusable = any(entry.validator is None for entry in compiled.values())
        for name, args in calls:
            entry = compiled.get(name) if isinstance(name, str) else None
            if entry is None or entry.validator is None:
                continue
            verdict = entry.is_valid({} if args is None else args)
            if verdict is None:
                schema_unusable = True
            elif not verdict:
                return failed("invalid_tool_arguments")

    if has_expected:
        for want in expected:
            if not any(_call_matches(want, call) for call in calls):
                return failed("missing_expected_tool_call")

    if schema_unusable:
        return error("invalid_tool_schema")
    return passed()
