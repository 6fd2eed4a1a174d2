"""scorekit/_constraints.py: constraints declared as data, one validator for arguments and documents."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import scorekit as sk
from scorekit import _stats
from scorekit._constraints import (
    MAX_SAFE_INT,
    Boolean,
    Either,
    Integral,
    Interval,
    ListOf,
    MapOf,
    OneOf,
    Optional,
    Section,
    Text,
    check_document,
    is_integer,
    show_value,
    validate,
)
from scorekit._errors import InvalidParameterError, PolicyError


def _message(call) -> str:
    with pytest.raises(InvalidParameterError) as info:
        call()
    return str(info.value)


# --------------------------------------------------------------------------- scalar constraints
@pytest.mark.parametrize(
    ("constraint", "value", "message"),
    [
        (Interval(0, 1, closed="neither"), 1, "x must be a finite number in (0, 1); got 1"),
        (Interval(0, 1), 1.5, "x must be a finite number in [0, 1]; got 1.5"),
        (Interval(0, 1, closed="right"), 0, "x must be a finite number in (0, 1]; got 0"),
        (Interval(0, 1, closed="left"), 1.0, "x must be a finite number in [0, 1); got 1.0"),
        (Interval(0), -0.5, "x must be a finite number >= 0; got -0.5"),
        (Interval(0), math.nan, "x must be a finite number >= 0; got nan"),
        (Interval(0, 1), True, "x must be a finite number in [0, 1]; got True"),
        (Interval(0, 1), "0.5", "x must be a finite number in [0, 1]; got '0.5'"),
        (Integral(min=1), 0, "x must be an integer >= 1; got 0"),
        (Integral(min=1), 2.0, "x must be an integer >= 1; got 2.0"),
        (Integral(min=1), False, "x must be an integer >= 1; got False"),
        (Integral(1, 5), 6, "x must be an integer in [1, 5]; got 6"),
        (Integral(1, MAX_SAFE_INT), 2**53, f"x must be an integer >= 1 and <= 2^53-1; got {2**53}"),
        (OneOf("a", "b"), "c", "x must be one of a, b; got 'c'"),
        (Boolean(), 1, "x must be true or false; got 1"),
        (Text(), "  ", "x must be a non-empty string; got '  '"),
        (Optional(Integral(min=1)), 0, "x must be None or an integer >= 1; got 0"),
    ],
)
def test_an_argument_breaking_its_constraint_is_named_with_its_value(constraint, value, message):
    assert _message(lambda: validate(value, "x", constraint)) == message


def test_accepted_values_come_back_normalised():
    assert validate(np.float64(0.25), "x", Interval(0, 1)) == 0.25 and type(validate(1, "x", Interval(0, 1))) is float
    assert validate(np.int64(3), "k", Integral(min=1)) == 3 and type(validate(np.int64(3), "k", Integral(min=1))) is int
    assert validate(None, "limit", Optional(Integral(min=1))) is None
    assert validate("set", "m", OneOf("set", "exact")) == "set"


def test_invalid_parameter_error_is_both_a_value_error_and_a_type_error():
    with pytest.raises(ValueError):
        validate(2, "x", Interval(0, 1))
    with pytest.raises(TypeError):
        validate("2", "x", Interval(0, 1))
    with pytest.raises(sk.ScorekitError):
        validate(None, "x", Interval(0, 1))


@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(-10, 10), st.floats(-10, 10),
       st.sampled_from(["both", "left", "right", "neither"]))
def test_interval_accepts_exactly_the_numbers_between_its_bounds(x, a, b, closed):
    assume(a < b)
    low_ok = x >= a if closed in ("both", "left") else x > a
    high_ok = x <= b if closed in ("both", "right") else x < b
    assert Interval(a, b, closed=closed).is_satisfied_by(x) == (low_ok and high_ok)


@given(st.integers(-10, 10**20), st.integers(-5, 5))
def test_integral_accepts_exactly_the_integers_from_its_minimum(value, low):
    assert Integral(min=low).is_satisfied_by(value) == (value >= low)
    assert not Integral(min=low).is_satisfied_by(float(value))


def test_an_unknown_closure_is_refused_when_declared():
    with pytest.raises(ValueError, match="closed must be one of"):
        Interval(0, 1, closed="open")


# --------------------------------------------------------------------------- documents
TABLE = Section(
    {
        "name": Text("table name"),
        "rows": ListOf(Text("row name"), "a list of row names", distinct="row name"),
        "bars": MapOf(Text("bar name"), Interval(0, 1)),
        "size": Integral(1, MAX_SAFE_INT),
        "mode": Either(OneOf("off"), Section({"min": Interval(0, 1, closed="right")}), what="off or {min: x}"),
    },
)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"nmae": "t"}, "nmae: unknown key (expected one of: name, rows, bars, size, mode)"),
        ({1: "t"}, "1: unknown key (expected one of: name, rows, bars, size, mode)"),
        ({"name": ""}, "name: table name must be a non-empty string; got ''"),
        ({"rows": "a"}, "rows: must be a list of row names; got 'a'"),
        ({"rows": ["a", "b", "a"]}, "rows[2]: duplicate row name 'a'"),
        ({"rows": ["a", None]}, "rows[1]: row name must be a non-empty string; got null"),
        ({"bars": {"": 0.5}}, "bars: bar name must be a non-empty string; got ''"),
        ({"bars": {"b": True}}, "bars.b: must be a finite number in [0, 1]; got true"),
        ({"size": 10**40}, "size: must be an integer >= 1 and <= 2^53-1; got an integer of about 41 digits"),
        ({"mode": {}}, "mode: must be off or {min: x}; got a mapping"),
        ({"mode": {"max": 1}}, "mode.max: unknown key (expected one of: min)"),
        ({"mode": {"min": 0}}, "mode.min: must be a finite number in (0, 1]; got 0"),
        ([1], "must be a mapping; got a list"),
    ],
)
def test_a_document_problem_names_the_dotted_path_and_the_value_as_written(document, message):
    assert _message(lambda: check_document(document, TABLE)) == message


def test_a_document_is_checked_and_built_in_one_call():
    built = check_document({"rows": ["b", "a"], "bars": {"x": 1}, "mode": {"min": 0.5}, "size": 3}, TABLE)
    assert built == {"rows": ("a", "b"), "bars": {"x": 1.0}, "size": 3, "mode": {"min": 0.5}}
    assert check_document(None, TABLE) == {}  # null: an empty section
    assert check_document({"rows": None}, TABLE) == {"rows": ()}


def test_required_keys_and_single_items():
    pair = Section({"k": Integral(min=1), "min": Interval(0, 1)}, required=("k", "min"), missing="missing (both)")
    assert _message(lambda: check_document({"k": 1}, pair, "entry")) == "entry.min: missing (both)"
    ks = ListOf(Integral(min=1), "a non-empty list of integers >= 1", single=is_integer, non_empty=True)
    assert check_document(4, ks) == (4,) and check_document([2, 1, 2], ks) == (1, 2)
    assert _message(lambda: check_document(0, ks, "pass_k")) == "pass_k[0]: must be an integer >= 1; got 0"
    assert (
        _message(lambda: check_document([], ks, "pass_k"))
        == "pass_k: must be a non-empty list of integers >= 1; got a list"
    )


def test_show_value_writes_yaml_spelling():
    assert [show_value(v) for v in (None, True, 1.0, "x" * 70)] == ["null", "true", "1.0", repr("x" * 57 + "...")]


# --------------------------------------------------------------------------- one validator for all
def test_the_policy_and_the_statistics_word_a_bad_confidence_alike():
    policy = pytest.raises(PolicyError, sk.load_policy, {"confidence": 1.5}).value
    argument = pytest.raises(InvalidParameterError, _stats.wilson_interval, 1, 3, confidence=1.5).value
    assert str(policy) == "confidence: must be a finite number in (0, 1); got 1.5"
    assert str(argument) == "confidence must be a finite number in (0, 1); got 1.5"


@pytest.mark.parametrize(("limit", "shown"), [(0, "0"), (True, "True"), (1.5, "1.5"), ("3", "'3'")])
def test_evaluate_names_a_bad_limit(limit, shown):
    row = {"id": "a", "dimension": "pii", "status": "PASS", "evaluator": "h"}
    message = _message(lambda: sk.evaluate([row], limit=limit))
    assert message == f"limit must be None or an integer >= 1; got {shown}"


def test_pass_hat_k_names_a_bad_k():
    assert _message(lambda: sk.pass_hat_k(1, 3, 0)) == "k must be an integer >= 1; got 0"
