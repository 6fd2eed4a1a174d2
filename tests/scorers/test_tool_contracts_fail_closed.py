"""Tool contracts fail closed, and tool calls are read as real logs carry them (SPEC §2, §3).

Each test here failed before issue 11: a contract in another tool's dialect
validated every argument (a refund of 150 against a 100 limit passed), JSON-text
arguments and the OpenAI call shape made the row invalid.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import scorekit as sk
from scorekit.scorers import tools
from scorekit.scorers._base import Context

REFUND_SCHEMA = {
    "type": "object",
    "properties": {"amount": {"type": "number", "maximum": 100}, "order": {"type": "string"}},
    "required": ["amount"],
}
OVER_LIMIT = {"amount": 150, "order": "A-1"}


def run(**row):
    return tools.score(row, Context())


def refund_row(schema, arguments=OVER_LIMIT, **extra):
    return {
        "id": "r1", "dimension": "tool_call", "case_id": "refund",
        "tool_calls": [{"name": "refund", "arguments": arguments}],
        "tool_schemas": {"refund": schema}, **extra,
    }


NO_CONTRACTS = {
    "json_schema wrapper": {"json_schema": REFUND_SCHEMA},
    "flat required/types": {"required": ["amount"], "types": {"amount": "number"}},
    "empty object": {},
    "true": True,
    "annotations only": {"description": "refund a customer", "title": "refund"},
    "format only": {"format": "email"},
}


@pytest.mark.parametrize("schema", list(NO_CONTRACTS.values()), ids=list(NO_CONTRACTS))
def test_dialect_contract_is_invalid_tool_schema_never_pass(schema):
    out = run(**refund_row(schema))
    assert out[:3] == ("ERROR", "invalid_tool_schema", False)
    assert out.detail.startswith("tool_schemas.refund: ")


@pytest.mark.parametrize("schema", list(NO_CONTRACTS.values()), ids=list(NO_CONTRACTS))
def test_dialect_contract_cannot_pass_the_evaluation(schema):
    card = sk.evaluate([refund_row(schema)])
    assert card.decision == "INCOMPLETE"
    row = card.evidence.iloc[0]
    assert (row["status"], row["reason"], row["label"]) == ("ERROR", "invalid_tool_schema", "unlabeled")
    assert card.validation.unlabeled == 1
    assert any(p.field == "tool_schemas" and "invalid_tool_schema" in p.message for p in card.validation.problems)


def test_real_contract_still_fails_the_over_limit_refund():
    out = run(**refund_row(REFUND_SCHEMA))
    assert out[:3] == ("FAIL", "invalid_tool_arguments", True)
    assert out.detail == "refund: arguments.amount: fails maximum 100; got 150"


def test_vendor_extension_beside_a_real_schema_is_a_contract():
    schema = {**REFUND_SCHEMA, "x-openai-strict": True}
    assert run(**refund_row(schema)).reason == "invalid_tool_arguments"
    assert run(**refund_row(schema, {"amount": 5})).status == "PASS"


def test_validate_reports_no_contract_rows(tmp_path):
    from scorekit.cli import main

    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(refund_row({"json_schema": REFUND_SCHEMA})) + "\n")
    assert main(["validate", str(path)]) == 1


keywords = st.sampled_from(sorted(tools.KEYWORDS))
wrapper_keys = st.text(min_size=1, max_size=12).filter(lambda k: k not in tools.KEYWORDS)
leaf_schemas = st.fixed_dictionaries(
    {"type": st.just("object"), "properties": st.fixed_dictionaries({"amount": st.fixed_dictionaries(
        {"type": st.sampled_from(["number", "integer"]), "maximum": st.integers(0, 200)})})},
    optional={"required": st.just(["amount"])},
)


@given(schema=leaf_schemas, key=wrapper_keys, amount=st.integers(0, 400))
def test_wrapping_a_schema_in_a_non_keyword_key_never_turns_fail_into_pass(schema, key, amount):
    args = {"amount": amount}
    direct = run(**refund_row(schema, args))
    assume(direct.status == "FAIL")
    wrapped = run(**refund_row({key: schema}, args))
    assert wrapped.status != "PASS"
    assert wrapped[:3] == ("ERROR", "invalid_tool_schema", False)


# --------------------------------------------------------------------------- call shapes
def test_arguments_as_json_text_are_validated():
    assert run(**refund_row(REFUND_SCHEMA, json.dumps(OVER_LIMIT))).reason == "invalid_tool_arguments"
    assert run(**refund_row(REFUND_SCHEMA, '{"amount": 50}')).status == "PASS"


def test_openai_call_shape_is_read():
    row = refund_row(REFUND_SCHEMA)
    row["tool_calls"] = [{"id": "call_1", "type": "function",
                          "function": {"name": "refund", "arguments": json.dumps(OVER_LIMIT)}}]
    assert run(**row).reason == "invalid_tool_arguments"
    row["tool_calls"][0]["function"]["arguments"] = '{"amount": 5}'
    assert run(**row).status == "PASS"
    card = sk.evaluate([row], policy={"purpose": "exploratory"})
    assert card.validation.invalid == 0


def test_anthropic_tool_use_input_is_read():
    row = refund_row(REFUND_SCHEMA)
    row["tool_calls"] = [{"type": "tool_use", "id": "toolu_1", "name": "refund", "input": OVER_LIMIT}]
    assert run(**row).reason == "invalid_tool_arguments"


@pytest.mark.parametrize("text", ['{"amount": 150', "amount=150", '[150]', '{"amount": NaN}',
                                  '{"amount": 1, "amount": 2}', ""])
def test_malformed_argument_text_fails_and_the_row_stays_valid(text):
    row = refund_row(REFUND_SCHEMA, text)
    out = run(**row)
    assert out[:3] == ("FAIL", "malformed_arguments", True)
    card = sk.evaluate([row])
    assert card.validation.invalid == 0
    assert card.evidence.iloc[0]["label"] == "labeled"
    assert card.evidence.iloc[0]["reason"] == "malformed_arguments"


def test_malformed_arguments_fail_without_a_schema_too():
    out = run(tool_calls=[{"name": "refund", "arguments": "{oops"}], allowed_tools=["refund"])
    assert out.reason == "malformed_arguments"


def test_arguments_that_are_neither_object_nor_text_make_the_row_invalid():
    card = sk.evaluate([refund_row(REFUND_SCHEMA, 150)], policy={"purpose": "exploratory"})
    assert card.validation.invalid == 1
    assert "arguments must be an object or the JSON text of one" in card.validation.problems[0].message


def test_forbidden_tool_in_openai_shape_is_caught():
    out = run(tool_calls=[{"type": "function", "function": {"name": "delete_all", "arguments": "{}"}}],
              forbidden_tools=["delete_all"])
    assert out.reason == "forbidden_tool"
    assert out.detail == "called forbidden tool delete_all"
