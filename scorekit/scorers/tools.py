"""``tool_call``: the agent's tool calls against the row's tool contract (SPEC §3).

The contract is ``allowed_tools``, ``forbidden_tools``, ``tool_schemas`` (a JSON
Schema 2020-12 per tool) and ``expected_tool_calls``. Checks, in this order,
first failure wins:

1. a call to a tool in ``forbidden_tools`` → FAIL ``forbidden_tool``;
2. a call to a tool outside ``allowed_tools`` (when given) → FAIL ``tool_not_allowed``;
3. a call whose arguments are JSON text that does not parse as one object → FAIL
   ``malformed_arguments`` (the agent's mistake; calls are read by
   :mod:`scorekit.scorers._calls`, which also accepts the OpenAI and Anthropic shapes);
4. arguments of a call whose tool has a schema must validate against it (a call
   without ``arguments`` validates ``{}``) → FAIL ``invalid_tool_arguments``;
5. every ``expected_tool_calls`` entry must be present: a name matches a call
   with that name; ``{name, arguments}`` matches a call with that name whose
   arguments contain the expected ones by the state-matching rules of
   :func:`scorekit.scorers.actions.state_matches` → FAIL ``missing_expected_tool_call``.

A schema that is no contract makes the row unlabeled: ERROR
``invalid_tool_schema`` (never PASS) unless one of the certain failures above
applies. No contract is: a schema that is not valid JSON Schema 2020-12, one
that refers to anything but a local ``#...`` fragment, one that constrains
nothing (``true``, ``{}``, only annotations such as ``description``), and
another tool's contract dialect — an object none of whose keys is a 2020-12
keyword (``{"json_schema": {...}}``) or whose only assertion beside unknown keys
is ``required`` (``{"required": [...], "types": {...}}``); such schemas would
otherwise accept every argument. Nothing is ever fetched over the network:
remote references are rejected up front and the validator gets a registry
without retrieval.

Every non-PASS outcome carries a ``detail``: the tool, the JSON Schema keyword
that failed and the path of the failing argument (argument *values* are shown
only when they are numbers, booleans or null, so no captured text is copied).

Each distinct schema is compiled once per evaluation and kept in ``ctx.cache``
under ``("tool_call.schema", <canonical JSON of the schema>)``.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Mapping
from typing import Any

from ._base import Context, Outcome, failed, passed, unlabeled
from ._calls import Call, row_calls
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
    "malformed_arguments": "a tool call's arguments are JSON text that does not parse as one object",
    "invalid_tool_schema": (
        "a tool schema is no contract: not a valid JSON Schema 2020-12, a non-local $ref, "
        "constrains nothing, or another tool's contract dialect"
    ),
    "missing_expected_tool_call": "an expected tool call (name, and arguments when given) is missing",
}

CACHE_KEY = "tool_call.schema"
INDEX_KEY = "tool_call.schema_index"
BY_DEFINITION_KEY = "tool_call.by_definition"
_MISSING = object()
_REF_KEYWORDS = ("$ref", "$dynamicRef")
# JSON Schema 2020-12 keywords (core, applicator, unevaluated, validation,
# meta-data, format-annotation and content vocabularies) ...
_ANNOTATION_KEYWORDS = frozenset({
    "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
    "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
    "format", "contentEncoding", "contentMediaType", "contentSchema",
})
# ... and those of them that can reject an instance.
_CONSTRAINING_KEYWORDS = frozenset({
    "$ref", "$dynamicRef",
    "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
    "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
    "unevaluatedItems", "unevaluatedProperties",
    "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains",
    "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
})
KEYWORDS = _ANNOTATION_KEYWORDS | _CONSTRAINING_KEYWORDS
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
    """One compiled schema: its validator (None when the schema is no contract,
    with ``problem`` saying why) and memos of validation results and first errors per instance."""

    __slots__ = ("validator", "results", "errors", "schema", "problem")

    def __init__(self, validator: Any, schema: Any = None, problem: str | None = None) -> None:
        self.validator = validator
        self.schema = schema  # for the fast one-sided check (see _schema_fast)
        self.problem = problem
        self.results: dict[bytes, bool] = {}
        self.errors: dict[bytes, str] = {}  # an agent repeats its invalid arguments across trials

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

    def first_error(self, instance: Any) -> str:
        """Where and why ``instance`` fails (for the row's detail; call only when invalid)."""
        key = _fast_key(instance)
        if key is None:
            return self._first_error(instance)
        found = self.errors.get(key)
        if found is None:
            found = self.errors[key] = self._first_error(instance)
        return found

    def _first_error(self, instance: Any) -> str:
        try:
            from jsonschema.exceptions import best_match

            found = best_match(self.validator.iter_errors(instance))
        except Exception:  # pragma: no cover - is_valid said invalid, so an error exists
            found = None
        if found is None:  # pragma: no cover
            return "does not validate"
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in found.absolute_path)
        value = found.instance
        shown = f"; got {json.dumps(value)}" if value is None or isinstance(value, (bool, int, float)) else ""
        if isinstance(value, (str, list, dict)) and found.validator not in ("required", "additionalProperties"):
            shown = f"; got {_kind(value)}"
        return f"arguments{path}: fails {found.validator!s} {_short(found.validator_value)}{shown}"


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    return f"an object with {len(value)} keys"


def _short(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def no_contract(schema: Any) -> str | None:
    """Why ``schema`` is no tool contract although it may be valid JSON Schema
    (see the module docstring), or None when it constrains the arguments.

    Examples
    --------
    >>> no_contract({"type": "object", "properties": {"amount": {"maximum": 100}}}) is None
    True
    >>> no_contract({"json_schema": {"type": "object"}})
    'no JSON Schema 2020-12 keyword at the top level (another contract dialect?)'
    """
    if schema is True or schema == {}:
        return "constrains nothing (true or {})"
    if not isinstance(schema, dict):
        return None
    keys = set(schema)
    constraining = keys & _CONSTRAINING_KEYWORDS
    if not keys & KEYWORDS:
        return "no JSON Schema 2020-12 keyword at the top level (another contract dialect?)"
    if not constraining:
        return "constrains nothing (annotations only)"
    unknown = sorted(keys - KEYWORDS)
    if unknown and constraining <= {"required"}:
        return (f"unknown top-level keys {', '.join(map(repr, unknown))} without type or properties "
                "(another contract dialect?)")
    return None


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
    if not isinstance(schema, (dict, bool)):
        return _Compiled(None, problem="not a JSON Schema (an object or a boolean)")
    if _has_remote_ref(schema):
        return _Compiled(None, problem="refers to a non-local $ref (nothing is fetched)")
    try:
        from jsonschema import Draft202012Validator  # lazy: only tool_call rows need it
        from jsonschema.exceptions import SchemaError
        from referencing import Registry

        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in exc.absolute_path)
        return _Compiled(
            None,
            problem=f"not a valid JSON Schema 2020-12 (at {where or 'the top'}: {exc.validator} "
            f"{_short(exc.validator_value)})",
        )
    except Exception:  # anything else a hostile schema can provoke
        return _Compiled(None, problem="not a valid JSON Schema 2020-12")
    problem = no_contract(schema)
    if problem is not None:
        return _Compiled(None, problem=problem)
    # An explicit Registry() has no retrieval: an unresolved reference is an
    # error, never an HTTP request (jsonschema's default registry fetches).
    return _Compiled(Draft202012Validator(schema, registry=Registry()), schema)


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
        hit: _Compiled | None = index.get(fast)
        if hit is not None:
            return hit
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
    entry: _Compiled | None = ctx.cache.get(key)
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


def _call_matches(expected: Any, call: Call) -> bool:
    name, args = call.name, call.arguments
    if isinstance(expected, str):
        return isinstance(name, str) and name == expected
    if not isinstance(expected, dict) or expected.get("name") != name:
        return False
    want = expected.get("arguments")
    if want is None:
        return True
    return state_matches(want, args if args is not None else {})


def _names(calls: list[Call], wanted: Any) -> str:
    names = sorted({c.name for c in calls if isinstance(c.name, str) and wanted(c.name)})
    return ", ".join(names) if names else "a call without a name"


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
        return unlabeled(
            "missing_tool_contract", "no allowed_tools, forbidden_tools, tool_schemas or expected_tool_calls"
        )

    calls = row_calls(row) if _get(row, "tool_calls") is not _MISSING else None
    if calls is None:
        return Outcome("ERROR", "missing_tool_calls", True, "the row has no tool_calls list")

    if has_forbidden:
        banned = {t for t in forbidden if isinstance(t, str)}
        if any(isinstance(c.name, str) and c.name in banned for c in calls):
            return failed("forbidden_tool", f"called forbidden tool {_names(calls, banned.__contains__)}")
    if has_allowed:
        permitted = {t for t in allowed if isinstance(t, str)}
        if any(not isinstance(c.name, str) or c.name not in permitted for c in calls):
            outside = _names(calls, lambda name: name not in permitted)
            return failed("tool_not_allowed", f"called {outside}, outside allowed_tools {sorted(permitted)}")
    for number, call in enumerate(calls):
        if call.malformed:
            return failed(
                "malformed_arguments",
                f"call {number} ({call.name}): arguments text of {len(call.text or '')} characters "
                "is not one JSON object",
            )

    unusable: str | None = None
    if has_schemas:
        compiled = _compiled_contracts(schemas, ctx)
        for name in sorted(compiled):
            if compiled[name].validator is None:
                unusable = f"tool_schemas.{name}: {compiled[name].problem}"
                break
        for call in calls:
            entry = compiled.get(call.name) if isinstance(call.name, str) else None
            if entry is None or entry.validator is None:
                continue
            instance = {} if call.arguments is None else call.arguments
            verdict = entry.is_valid(instance)
            if verdict is None:
                unusable = unusable or f"tool_schemas.{call.name}: cannot be applied (unresolvable $ref or bad pattern)"
            elif not verdict:
                return failed("invalid_tool_arguments", f"{call.name}: {entry.first_error(instance)}")

    if has_expected:
        for want in expected:
            if not any(_call_matches(want, call) for call in calls):
                shown = want if isinstance(want, str) else want.get("name") if isinstance(want, dict) else want
                with_args = (
                    " with the expected arguments"
                    if isinstance(want, dict) and want.get("arguments") is not None
                    else ""
                )
                return failed("missing_expected_tool_call", f"expected call {shown}{with_args} is missing")

    if unusable is not None:
        # No contract: nothing can establish success (unlabeled), never PASS.
        return unlabeled("invalid_tool_schema", unusable)
    return passed()
