"""The fast tool-contract check is one-sided: it may only ever say "valid" when jsonschema agrees."""

from __future__ import annotations

import jsonschema
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scorekit.scorers._schema_fast import surely_valid

NAMES = st.sampled_from(["to", "subject", "body", "cc", "n", "flag"])
SCALAR_SCHEMAS = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("string")},
        optional={
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 6),
            "pattern": st.sampled_from(["^a", "b$", "@", "^[^@]+@[^@]+$"]),
            "format": st.just("date-time"),
        },
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["integer", "number", ["integer", "null"], ["string", "number"]])},
        optional={"minimum": st.integers(-5, 5), "maximum": st.integers(-5, 5) | st.floats(-5, 5)},
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["boolean", "null"])}),
    st.just({}),
    st.just(True),
    st.just({"enum": [1, "a"]}),
    st.just({"const": 1}),
)
SCHEMAS = st.recursive(
    SCALAR_SCHEMAS,
    lambda inner: st.one_of(
        st.fixed_dictionaries({"type": st.just("array")}, optional={
            "items": inner, "minItems": st.integers(0, 2), "maxItems": st.integers(0, 4)}),
        st.fixed_dictionaries({"type": st.just("object")}, optional={
            "properties": st.dictionaries(NAMES, inner, max_size=4),
            "required": st.lists(NAMES, max_size=3, unique=True),
            "additionalProperties": st.booleans(),
            "title": st.just("t")}),
    ),
    max_leaves=8,
)
INSTANCES = st.recursive(
    st.none() | st.booleans() | st.integers(-8, 8) | st.floats(-8, 8, allow_nan=False) | st.text(max_size=8)
    | st.sampled_from(["a@b", "ab", "ba", "x@y@z", 1.0]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=4),
    max_leaves=10,
)


@settings(max_examples=400)
@given(SCHEMAS, INSTANCES)
def test_surely_valid_implies_jsonschema_valid(schema, instance):
    validator = jsonschema.Draft202012Validator(schema)
    if surely_valid(schema, instance):
        assert validator.is_valid(instance), (schema, instance)


@settings(max_examples=200)
@given(SCHEMAS, INSTANCES)
def test_typical_valid_arguments_are_decided_fast(schema, instance):
    # Not a soundness rule, a usefulness one: within the subset, without enum/const
    # and integer-valued floats, jsonschema's "valid" is also the fast verdict.
    text = repr(schema)
    assume("enum" not in text and "const" not in text and "integer" not in text)
    if jsonschema.Draft202012Validator(schema).is_valid(instance):
        assert surely_valid(schema, instance), (schema, instance)


def test_unknown_keywords_and_invalid_arguments_are_left_to_jsonschema():
    assert surely_valid({"type": "object", "properties": {"a": {"type": "string"}}}, {"a": "x"})
    assert not surely_valid({"allOf": [{"type": "string"}]}, "x")  # outside the subset: undecided
    assert not surely_valid({"type": "integer"}, 1.0)  # an integer to JSON Schema: jsonschema decides
    assert not surely_valid({"type": "object", "required": ["a"]}, {})  # invalid: jsonschema names it
    assert not surely_valid({"type": "object", "additionalProperties": {"type": "string"}}, {"a": "x"})
