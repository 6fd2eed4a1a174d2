"""Tool calls as real logs carry them (scorekit/scorers/_calls.py)."""

from __future__ import annotations

import pytest

from scorekit.scorers._calls import Call, call_shape_problem, parse_arguments, read_call, row_calls


@pytest.mark.parametrize("call", [
    {"name": "refund", "arguments": {"amount": 5}},                                         # SPEC §2 shape
    {"type": "function", "function": {"name": "refund", "arguments": '{"amount": 5}'}},     # OpenAI
    {"type": "tool_use", "name": "refund", "input": {"amount": 5}},                         # Anthropic
    {"name": "refund", "arguments": '{"amount": 5}'},                                       # JSON text arguments
])
def test_every_accepted_shape_reads_as_the_same_call(call):
    read = read_call(call)
    assert (read.name, read.arguments, read.malformed) == ("refund", {"amount": 5}, False)
    assert call_shape_problem(call) is None


@pytest.mark.parametrize("text", ['{"amount": 5', '{"a": NaN}', '{"a": 1, "a": 2}', "[1, 2]", "5", ""])
def test_arguments_text_that_is_not_one_strict_object_is_malformed(text):
    assert parse_arguments(text) is None
    read = read_call({"name": "refund", "arguments": text})
    assert read.arguments is None and read.malformed is True and read.text == text


def test_a_call_without_arguments_has_none_and_is_not_malformed():
    assert read_call({"name": "ping"}) == Call("ping", None)


@pytest.mark.parametrize("call, problem", [
    ("refund", "expected an object"),
    ({"arguments": {}}, "'name' must be a string"),
    ({"function": {"arguments": "{}"}}, "'function.name' must be a string"),
])
def test_a_call_in_no_accepted_shape_says_why(call, problem):
    assert call_shape_problem(call) == problem


def test_row_calls_reads_the_list_or_says_none():
    assert row_calls({"tool_calls": [{"name": "a", "arguments": {}}]}) == [Call("a", {})]
    assert row_calls({}) is None and row_calls({"tool_calls": "a"}) is None
