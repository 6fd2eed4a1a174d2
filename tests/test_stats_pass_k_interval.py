"""scorekit._stats.pass_k_interval: pass^k with a Student-t interval over cases (SPEC §18)."""

from __future__ import annotations

import math
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared import counts

from scorekit import _stats
from scorekit._stats import pass_k_interval

TOL = dict(rel=1e-12, abs=1e-12)

# SPEC §18: passes/trials per case 3/3 x4, 2/3 x3, 1/3 x2, 0/3 x1 -> pass^2 0.5 and its interval.
SPEC_C = [3] * 4 + [2] * 3 + [1] * 2 + [0]
SPEC_N = [3] * 10
SPEC_INTERVAL = (0.1771340568262647, 0.8228659431737353)


def reference(c, n, k, confidence=0.95):
    """One group by its definition: C(c,k)/C(n,k) per case by math.comb, scipy.stats.t for the quantile."""
    from scipy.stats import t

    values = [comb(ci, k) / comb(ni, k) for ci, ni in zip(c, n, strict=True) if ni >= k]
    g = len(values)
    if g == 0:
        return math.nan, math.nan, math.nan, 0
    mean = sum(values) / g
    if g < 2:
        return mean, math.nan, math.nan, g
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (g - 1))
    half = t.ppf(1 - (1 - confidence) / 2, g - 1) * sd / math.sqrt(g)
    return mean, min(max(mean - half, 0.0), 1.0), min(max(mean + half, 0.0), 1.0), g


def test_spec_reference_value():
    value, low, high, cases = pass_k_interval(SPEC_C, SPEC_N, 2, [0] * 10)
    assert value[0] == pytest.approx(0.5, **TOL)
    assert (low[0], high[0]) == pytest.approx(SPEC_INTERVAL, **TOL)
    assert cases.tolist() == [10]
    assert reference(SPEC_C, SPEC_N, 2)[1:3] == pytest.approx(SPEC_INTERVAL, **TOL)


@st.composite
def groups(draw):
    """Per-group case lists, their entries interleaved in a random order."""
    lists = draw(st.lists(st.lists(counts(max_n=8), min_size=0, max_size=8), min_size=1, max_size=4))
    entries = [(g, ci, ni) for g, cases in enumerate(lists) for ci, ni in cases]
    return draw(st.permutations(entries)), len(lists)


@given(groups(), st.integers(1, 5), st.sampled_from([0.8, 0.95, 0.99]))
def test_each_group_matches_its_definition(data, k, confidence):
    entries, ngroups = data
    group = np.array([e[0] for e in entries], dtype=np.intp)
    c = np.array([e[1] for e in entries], dtype=np.int64)
    n = np.array([e[2] for e in entries], dtype=np.int64)
    got = pass_k_interval(c, n, k, group, confidence, ngroups=ngroups)
    for g in range(ngroups):
        mine = group == g
        expected = reference(c[mine].tolist(), n[mine].tolist(), k, confidence)
        actual = tuple(float(part[g]) for part in got)
        np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12)


def test_cases_that_do_not_reach_k_are_left_out():
    # Two cases with 1 trial cannot say anything about pass^2: the value covers the other three.
    value, low, high, cases = pass_k_interval([3, 2, 1, 1, 0], [3, 3, 3, 1, 1], 2, [0] * 5)
    expected = reference([3, 2, 1], [3, 3, 3], 2)
    assert (value[0], low[0], high[0], cases[0]) == pytest.approx(expected, **TOL)
    assert cases[0] == 3


def test_fewer_than_two_cases_give_a_value_without_an_interval():
    value, low, high, cases = pass_k_interval([2, 1, 0], [3, 1, 0], 2, [0, 1, 2], ngroups=3)
    assert value[0] == pytest.approx(1 / 3, **TOL) and np.isnan(low[0]) and np.isnan(high[0])
    assert np.isnan(value[1:]).all() and np.isnan(low[1:]).all() and np.isnan(high[1:]).all()
    assert cases.tolist() == [1, 0, 0] and cases.dtype == np.int64


def test_interval_is_clipped_to_the_unit_interval():
    value, low, high, _ = pass_k_interval([3, 3, 3, 0], [3, 3, 3, 3], 1, [0] * 4)
    assert value[0] == 0.75
    assert low[0] == 0.0 and 0.75 < high[0] <= 1.0
    assert reference([3, 3, 3, 0], [3] * 4, 1)[1] == 0.0  # unclipped it would be negative


def test_identical_cases_give_the_point_as_interval():
    value, low, high, _ = pass_k_interval([3, 3, 3], [3, 3, 3], 2, [0] * 3)
    assert (value[0], low[0], high[0]) == (1.0, 1.0, 1.0)


def test_empty_input_and_unused_groups():
    value, low, high, cases = pass_k_interval([], [], 1, [], ngroups=2)
    assert value.shape == low.shape == high.shape == cases.shape == (2,)
    assert np.isnan(value).all() and cases.tolist() == [0, 0]


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"k": 0}, ValueError, r"^k must be an integer >= 1; got 0"),
        ({"k": 2.0}, TypeError, r"^k must be an integer >= 1; got 2\.0"),
        ({"confidence": 1.5}, ValueError, r"^confidence must .*1\.5"),
        ({"c": [4, 1]}, ValueError, r"^c must not exceed n"),
        ({"n": [3, -3]}, ValueError, r"^n must be non-negative integers"),
        ({"group": [0.0, 0.0]}, TypeError, r"^group must be integer group codes"),
        ({"group": [0]}, ValueError, r"^group must be one code per case"),
        ({"ngroups": 0}, ValueError, r"^ngroups must exceed every group code"),
    ],
)
def test_arguments_are_validated_naming_the_argument(kwargs, error, pattern):
    args = {"c": [3, 1], "n": [3, 3], "k": 2, "group": [0, 0], **kwargs}
    ngroups = args.pop("ngroups", None)
    with pytest.raises(error, match=pattern):
        pass_k_interval(**args, ngroups=ngroups)


def test_pass_k_interval_is_in_stats_all():
    assert "pass_k_interval" in _stats.__all__
