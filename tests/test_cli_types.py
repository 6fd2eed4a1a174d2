"""The command line's argument types (scorekit/_cli_types.py): value or a message naming what was
expected and the text given."""

from __future__ import annotations

import argparse

import pytest

from scorekit import _cli_types as types


@pytest.mark.parametrize(("parse", "text", "value"), [
    (types.number, "-1.5e3", -1500.0),
    (types.fraction, "0", 0.0),
    (types.fraction, "1", 1.0),
    (types.percentage, "100", 100.0),
    (types.non_negative, "0", 0.0),
    (types.metric_floor, " urgent_recall = 0.9 ", ("urgent_recall", 0.9)),
    (types.positive_int, "1", 1),
    (types.count, "0", 0),
    (types.int_at_least(-2, "an integer >= -2"), "-2", -2),
    (types.text, "gpt-x", "gpt-x"),
    (types.semver, "0.2.5", "0.2.5"),
])
def test_a_good_text_gives_its_value(parse, text, value):
    assert parse(text) == value


@pytest.mark.parametrize(("parse", "text", "message"), [
    (types.number, "nan", "expected a finite number, got 'nan'"),
    (types.number, "x", "expected a number, got 'x'"),
    (types.fraction, "1.01", "expected a number in [0, 1] (the metric's scale), got '1.01'"),
    (types.percentage, "-1", "expected a number in [0, 100] (the aggregate's scale), got '-1'"),
    (types.non_negative, "-0.1", "expected a number >= 0, got '-0.1'"),
    (types.metric_floor, "=0.5", "expected NAME=VALUE (e.g. urgent_recall=0.9), got '=0.5'"),
    (types.metric_floor, "recall=2", "expected a number in [0, 1] (the metric's scale), got '2'"),
    (types.positive_int, "0", "expected a positive integer, got '0'"),
    (types.positive_int, "1.5", "expected a positive integer, got '1.5'"),
    (types.count, "-1", "expected an integer >= 0, got '-1'"),
    (types.text, "  ", "expected a non-empty text"),
    (types.semver, "1.2", "expected a semver version MAJOR.MINOR.PATCH (e.g. 0.2.5), got '1.2'"),
])
def test_a_bad_text_is_refused_naming_what_was_expected(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as raised:
        parse(text)
    assert str(raised.value) == message
