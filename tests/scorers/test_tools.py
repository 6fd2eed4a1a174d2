"""tool_call scorer (SPEC §3): forbidden/allowed tools, JSON Schema 2020-12 arguments, expected calls."""

from __future__ import annotations

import json
import socket
import urllib.request
from pathlib import Path

import pytest
from _example import any_row, assert_example_rows_score_as_planned
from hypothesis import given

import scorekit
from scorekit.scorers import tools
from scorekit.scorers._base import Context

EXAMPLE = Path(scorekit.__file__).parent / "examples" / "email_assistant" / "results.jsonl"

EVENT_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1},
        "duration_minutes": {"type": "integer", "minimum": 5, "maximum": 480},
        "attendees": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    },
    "required": ["title", "duration_minutes"],
    "additionalProperties": False,
}
GOOD_ARGS = {"title": "Q1 budget review", "duration_minutes": 30, "attendees": ["a@x.example"]}


def call(name, arguments=None):
    return {"name": name} if arguments is None else {"name": name, "arguments": arguments}


def run(ctx=None, **row):
    return tools.score(row, ctx or Context())


def schema_entries(ctx):
    return [k for k in ctx.cache if isinstance(k, tuple) and k[0] == tools.CACHE_KEY]


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection is recorded (and fails): the test fails at teardown.

    Recording matters: the scorer turns any exception into an outcome, so a raised
    error alone could be swallowed and hide an attempted fetch.
    """
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    yield attempts
    assert attempts == [], "the scorer tried to reach the network"


# --------------------------------------------------------------------------- contract and evidence
def test_missing_tool_contract_is_unlabeled():
    assert run(tool_calls=[call("a")])[:3] == ("ERROR", "missing_tool_contract", False)


def test_empty_contract_lists_are_no_contract():
    row = dict(tool_calls=[call("a")], forbidden_tools=[], tool_schemas={}, expected_tool_calls=[])
    assert run(**row).reason == "missing_tool_contract"


def test_empty_allowed_tools_is_a_contract_allowing_nothing():
    assert run(tool_calls=[], allowed_tools=[]).status == "PASS"
    assert run(tool_calls=[call("a")], allowed_tools=[]).reason == "tool_not_allowed"


def test_missing_tool_calls_is_error():
    assert run(allowed_tools=["a"])[:3] == ("ERROR", "missing_tool_calls", True)


def test_missing_tool_contract_wins_over_missing_tool_calls():
    assert run().reason == "missing_tool_contract"


def test_empty_tool_calls_is_a_valid_observation():
    assert run(tool_calls=[], forbidden_tools=["send_email"])[:3] == ("PASS", None, True)
    assert run(tool_calls=[], expected_tool_calls=["a"]).reason == "missing_expected_tool_call"


# --------------------------------------------------------------------------- forbidden / allowed
def test_forbidden_tool_fails():
    out = run(tool_calls=[call("search"), call("send_email")], forbidden_tools=["send_email"])
    assert out[:3] == ("FAIL", "forbidden_tool", True)


def test_tool_not_allowed_fails():
    out = run(tool_calls=[call("search"), call("delete")], allowed_tools=["search"])
    assert out[:3] == ("FAIL", "tool_not_allowed", True)


def test_forbidden_tool_checked_before_allowed_tools():
    # the first call is merely not allowed, the second forbidden: forbidden wins
    out = run(tool_calls=[call("other"), call("send_email")], allowed_tools=["search"], forbidden_tools=["send_email"])
    assert out.reason == "forbidden_tool"


def test_allowed_tools_checked_before_schemas():
    out = run(
        tool_calls=[call("create_event", {"title": 1}), call("other")],
        allowed_tools=["create_event"],
        tool_schemas={"create_event": EVENT_SCHEMA},
    )
    assert out.reason == "tool_not_allowed"


# --------------------------------------------------------------------------- schemas
def test_valid_arguments_pass():
    out = run(tool_calls=[call("create_event", GOOD_ARGS)], tool_schemas={"create_event": EVENT_SCHEMA})
    assert out[:3] == ("PASS", None, True)


def test_invalid_tool_arguments_fail():
    for bad in (
        {**GOOD_ARGS, "duration_minutes": "30"},  # string instead of integer
        {**GOOD_ARGS, "duration_minutes": 1},  # below minimum
        {"title": "x"},  # required missing
        {**GOOD_ARGS, "room": "A"},  # additionalProperties
        {**GOOD_ARGS, "duration_minutes": True},  # bool is not an integer
    ):
        out = run(tool_calls=[call("create_event", bad)], tool_schemas={"create_event": EVENT_SCHEMA})
        assert out[:3] == ("FAIL", "invalid_tool_arguments", True), bad


def test_call_without_arguments_validates_empty_object():
    schemas = {"create_event": EVENT_SCHEMA, "ping": {"type": "object"}}
    assert run(tool_calls=[call("ping")], tool_schemas=schemas).status == "PASS"
    assert run(tool_calls=[call("create_event")], tool_schemas=schemas).reason == "invalid_tool_arguments"


def test_calls_to_tools_without_schema_are_not_validated():
    out = run(tool_calls=[call("search", {"anything": [1, 2]})], tool_schemas={"create_event": EVENT_SCHEMA})
    assert out.status == "PASS"


def test_schemas_use_draft_2020_12_semantics():
    # prefixItems exists only in 2020-12
    schema = {"type": "array", "prefixItems": [{"type": "integer"}], "items": False}
    wrap = {"type": "object", "properties": {"p": schema}}
    assert run(tool_calls=[call("t", {"p": [1]})], tool_schemas={"t": wrap}).status == "PASS"
    assert run(tool_calls=[call("t", {"p": [1, 2]})], tool_schemas={"t": wrap}).reason == "invalid_tool_arguments"
    assert run(tool_calls=[call("t", {"p": ["x"]})], tool_schemas={"t": wrap}).reason == "invalid_tool_arguments"


def test_local_ref_is_resolved():
    schema = {"type": "object", "properties": {"n": {"$ref": "#/$defs/int"}}, "$defs": {"int": {"type": "integer"}}}
    assert run(tool_calls=[call("t", {"n": 1})], tool_schemas={"t": schema}).status == "PASS"
    assert run(tool_calls=[call("t", {"n": "1"})], tool_schemas={"t": schema}).reason == "invalid_tool_arguments"


def test_boolean_schemas():
    # true accepts everything: it is no contract (unlabeled ERROR); false rejects everything.
    assert run(tool_calls=[call("t", {"a": 1})], tool_schemas={"t": True})[:3] == (
        "ERROR",
        "invalid_tool_schema",
        False,
    )
    assert run(tool_calls=[call("t", {"a": 1})], tool_schemas={"t": False}).reason == "invalid_tool_arguments"


def test_invalid_tool_schema_is_error():
    for schema in ({"type": 12}, {"type": "object", "required": "title"}, {"minimum": "5"}):
        out = run(tool_calls=[call("t", {})], tool_schemas={"t": schema})
        assert out[:3] == ("ERROR", "invalid_tool_schema", False), schema


def test_invalid_schema_of_an_uncalled_tool_is_error():
    # a broken contract cannot establish success, whichever tools were called
    out = run(tool_calls=[call("ok", {})], tool_schemas={"ok": {"type": "object"}, "t": {"type": 12}})
    assert out.reason == "invalid_tool_schema"


def test_unresolvable_local_ref_is_error():
    schema = {"type": "object", "properties": {"n": {"$ref": "#/$defs/missing"}}}
    assert run(tool_calls=[call("t", {"n": 1})], tool_schemas={"t": schema}).reason == "invalid_tool_schema"


def test_self_referencing_schema_is_error_not_recursion():
    assert run(tool_calls=[call("t", {})], tool_schemas={"t": {"$ref": "#"}}).reason == "invalid_tool_schema"


@pytest.mark.parametrize(
    "ref",
    [
        "https://example.com/schemas/event.json",
        "http://127.0.0.1:9/schema.json",
        "event.json",
        "/abs/path.json",
        "urn:example:event",
    ],
)
def test_remote_ref_is_error_without_network(no_network, ref):
    schema = {"type": "object", "properties": {"n": {"$ref": ref}}}
    out = run(tool_calls=[call("t", {"n": 1})], tool_schemas={"t": schema})
    assert out[:3] == ("ERROR", "invalid_tool_schema", False)


def test_remote_ref_in_unvisited_branch_is_still_error(no_network):
    # the instance never reaches the branch, but the contract itself is unusable
    schema = {"type": "object", "properties": {"unused": {"$ref": "https://example.com/x.json"}}}
    assert run(tool_calls=[call("t", {})], tool_schemas={"t": schema}).reason == "invalid_tool_schema"


def test_remote_dynamic_ref_is_error_without_network(no_network):
    schema = {"$dynamicRef": "https://example.com/meta#node"}
    assert run(tool_calls=[call("t", {})], tool_schemas={"t": schema}).reason == "invalid_tool_schema"


def test_remote_ref_is_never_retrieved_by_the_validator(no_network, monkeypatch):
    # Second line of defence: even with the up-front $ref check switched off, the
    # validator's registry has no retrieval, so the row is an ERROR, not a fetch.
    monkeypatch.setattr(tools, "_has_remote_ref", lambda schema: False)
    schema = {"type": "object", "properties": {"n": {"$ref": "https://example.com/int.json"}}}
    out = run(tool_calls=[call("t", {"n": 1})], tool_schemas={"t": schema})
    assert out[:3] == ("ERROR", "invalid_tool_schema", False)


def test_foreign_dialect_declaration_is_not_fetched(no_network):
    schema = {"$schema": "https://example.com/my-meta-schema", "type": "object"}
    assert run(tool_calls=[call("t", {})], tool_schemas={"t": schema}).status == "PASS"


def test_certain_failure_wins_over_invalid_schema():
    schemas = {"t": {"type": 12}}
    assert run(tool_calls=[call("t", {})], tool_schemas=schemas, forbidden_tools=["t"]).reason == "forbidden_tool"
    assert (
        run(tool_calls=[call("t", {})], tool_schemas=schemas, expected_tool_calls=["u"]).reason
        == "missing_expected_tool_call"
    )
    schemas = {"t": {"type": 12}, "create_event": EVENT_SCHEMA}
    out = run(tool_calls=[call("t", {}), call("create_event", {"title": "x"})], tool_schemas=schemas)
    assert out.reason == "invalid_tool_arguments"


def test_schema_compiled_once_per_evaluation(monkeypatch):
    import jsonschema

    compiled = []
    real_check = jsonschema.Draft202012Validator.check_schema

    def counting_check(schema, *args, **kwargs):
        compiled.append(schema)
        return real_check(schema, *args, **kwargs)

    monkeypatch.setattr(jsonschema.Draft202012Validator, "check_schema", staticmethod(counting_check))
    ctx = Context()
    for i in range(1000):
        # a fresh, equal schema object per row, with keys in varying order
        schema = json.loads(json.dumps(EVENT_SCHEMA, sort_keys=bool(i % 2)))
        args = {**GOOD_ARGS, "duration_minutes": 5 + i % 400}
        assert run(ctx, tool_calls=[call("create_event", args)], tool_schemas={"create_event": schema}).status == "PASS"
    assert len(schema_entries(ctx)) == 1
    assert len(compiled) == 1


def test_distinct_schemas_get_distinct_cache_entries():
    ctx = Context()
    run(ctx, tool_calls=[], tool_schemas={"a": {"type": "object"}, "b": {"type": "object", "minProperties": 1}})
    run(ctx, tool_calls=[], tool_schemas={"a": {"type": "object"}})
    # 1 and 1.0 / true are different schemas (type-tagged canonical JSON)
    run(ctx, tool_calls=[], tool_schemas={"a": {"minProperties": 1}, "b": {"minProperties": 1.0}})
    assert len(schema_entries(ctx)) == 4


def test_new_context_compiles_again():
    ctx1, ctx2 = Context(), Context()
    row = dict(tool_calls=[], tool_schemas={"a": {"type": "object"}})
    run(ctx1, **row)
    run(ctx2, **row)
    assert len(schema_entries(ctx1)) == len(schema_entries(ctx2)) == 1


# --------------------------------------------------------------------------- expected calls
def test_expected_tool_call_by_name():
    assert run(tool_calls=[call("a"), call("b")], expected_tool_calls=["b"]).status == "PASS"
    assert run(tool_calls=[call("a")], expected_tool_calls=["a", "b"])[:3] == (
        "FAIL",
        "missing_expected_tool_call",
        True,
    )


def test_expected_tool_call_object_without_arguments_matches_by_name():
    assert run(tool_calls=[call("a", {"x": 1})], expected_tool_calls=[{"name": "a"}]).status == "PASS"


def test_expected_tool_call_arguments_are_a_recursive_subset():
    calls = [
        call("create_event", {"title": "Q1", "duration_minutes": 30, "attendees": ["a", "b"], "meta": {"k": 1, "j": 2}})
    ]
    assert run(tool_calls=calls, expected_tool_calls=[call("create_event", {"title": "Q1"})]).status == "PASS"
    assert run(tool_calls=calls, expected_tool_calls=[call("create_event", {"meta": {"k": 1}})]).status == "PASS"
    for wrong in (
        {"title": "Q2"},
        {"duration_minutes": 30.0},  # 1 != 1.0
        {"duration_minutes": "30"},
        {"attendees": ["a"]},  # arrays match exactly
        {"attendees": ["b", "a"]},
        {"missing": None},
    ):
        out = run(tool_calls=calls, expected_tool_calls=[call("create_event", wrong)])
        assert out.reason == "missing_expected_tool_call", wrong


def test_expected_arguments_need_a_call_that_has_them():
    assert run(tool_calls=[call("a")], expected_tool_calls=[call("a", {"x": 1})]).reason == "missing_expected_tool_call"
    assert run(tool_calls=[call("a")], expected_tool_calls=[call("a", {})]).status == "PASS"


def test_expected_call_matched_by_any_call_with_that_name():
    calls = [call("a", {"x": 1}), call("a", {"x": 2})]
    assert run(tool_calls=calls, expected_tool_calls=[call("a", {"x": 2})]).status == "PASS"


def test_schema_checked_before_expected_calls():
    out = run(
        tool_calls=[call("create_event", {"title": "x"})],
        tool_schemas={"create_event": EVENT_SCHEMA},
        expected_tool_calls=["missing"],
    )
    assert out.reason == "invalid_tool_arguments"


def test_reasons_cover_every_code():
    schemas = {"create_event": EVENT_SCHEMA}
    emitted = {
        run().reason,
        run(allowed_tools=["a"]).reason,
        run(tool_calls=[call("a")], forbidden_tools=["a"]).reason,
        run(tool_calls=[call("a")], allowed_tools=["b"]).reason,
        run(tool_calls=[call("create_event", {})], tool_schemas=schemas).reason,
        run(tool_calls=[], tool_schemas={"t": {"type": 12}}).reason,
        run(tool_calls=[], expected_tool_calls=["a"]).reason,
        run(tool_calls=[{"name": "a", "arguments": "{"}], allowed_tools=["a"]).reason,
    }
    assert emitted == set(tools.REASONS)


def test_example_rows_score_to_their_planned_status(no_network):
    assert_example_rows_score_as_planned("tool_call", tools.score)


def test_equal_schemas_in_fresh_row_objects_compile_once():
    # Real evaluations parse every row separately: equal schemas are distinct objects, and
    # each distinct schema is still compiled once (speed is measured by benchmarks/).
    lines = [line for line in EXAMPLE.read_text(encoding="utf-8").splitlines() if '"tool_call"' in line]
    rows = [json.loads(line) for line in (lines * (5_000 // len(lines) + 1))[:5_000]]
    distinct = {json.dumps(schema, sort_keys=True) for row in rows for schema in row.get("tool_schemas", {}).values()}
    ctx = Context()
    for row in rows:
        tools.score(row, ctx)
    assert len(schema_entries(ctx)) == len(distinct)


# Scorers never raise on data (whatever the row validation let through or not):
# every irregularity is an outcome.
_ANY_ROW = any_row(["tool_calls", "allowed_tools", "forbidden_tools", "tool_schemas", "expected_tool_calls"])


@given(_ANY_ROW)
def test_never_raises_on_arbitrary_rows(row):
    outcome = tools.score(row, Context())
    assert outcome.status in ("PASS", "FAIL", "ERROR", "ABSTAIN")
    assert (outcome.reason is None) == (outcome.status == "PASS")


def test_contracts_are_memoised_per_case_definition_and_only_there():
    from scorekit.scorers import Context

    strict = {"send": {"type": "object", "properties": {"to": {"type": "string"}}, "additionalProperties": False}}
    loose = {"send": {"type": "object"}}
    row = {"tool_calls": [{"name": "send", "arguments": {"to": "a", "cc": "b"}}]}
    ctx = Context()
    ctx.definition = b"case-1"
    assert tools.score(dict(row, tool_schemas=strict), ctx).status == "FAIL"
    ctx.definition = b"case-2"  # another definition: its own contract, not case-1's
    assert tools.score(dict(row, tool_schemas=loose), ctx).status == "PASS"
    ctx.definition = b"case-1"
    assert tools.score(dict(row, tool_schemas=strict), ctx).status == "FAIL"
    assert set(ctx.cache[tools.BY_DEFINITION_KEY]) == {b"case-1", b"case-2"}
    ctx.definition = None  # unknown definition (a scorer called on its own): no memo
    assert tools.score(dict(row, tool_schemas=loose), ctx).status == "PASS"


def test_repeated_invalid_arguments_are_explained_once(monkeypatch):
    """The trials of a case repeating invalid arguments: jsonschema words the first error once
    per distinct arguments (within an evaluation's context), and every row gets that detail."""
    import jsonschema.exceptions

    real = jsonschema.exceptions.best_match
    asked: list[object] = []
    monkeypatch.setattr(jsonschema.exceptions, "best_match", lambda errors: asked.append(1) or real(errors))
    ctx = Context()
    bad = {"name": "create_event", "arguments": {"title": "", "duration_minutes": 2}}
    other = {"name": "create_event", "arguments": {"title": "x", "duration_minutes": 900}}
    details = []
    for call in (bad, bad, other, bad, other):
        row = {"id": "r", "dimension": "tool_call", "tool_schemas": {"create_event": EVENT_SCHEMA},
               "tool_calls": [json.loads(json.dumps(call))]}  # a fresh copy per row, as parsed rows are
        outcome = tools.score(row, ctx)
        assert outcome.status == "FAIL" and outcome.reason == "invalid_tool_arguments"
        details.append(outcome.detail)
    assert len(asked) == 2
    assert details[0] == details[1] == details[3] != details[2] == details[4]
    assert details == [tools.score({"id": "r", "dimension": "tool_call", "tool_schemas": {"create_event": EVENT_SCHEMA},
                                    "tool_calls": [call]}, Context()).detail for call in (bad, bad, other, bad, other)]
