"""scorekit._stats: Wilson intervals, pass^k, pass@k and run-to-run variance (SPEC §6, §14).

The case-clustered interval and the power functions have their own modules:
test_cluster_interval.py and test_power.py.
"""

from __future__ import annotations

import math
from itertools import pairwise
from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from shared import assert_close, counts, per_case_rates, scored_frames

import scorekit as sk
from scorekit import mean_ci, pass_at_k, pass_hat_k, wilson_interval, z_value

Z95 = 1.959963984540054
TOL = dict(rel=1e-12, abs=1e-12)

# --------------------------------------------------------------------------- reference values (SPEC §6)
WILSON_REFERENCE = [
    ((0, 10), (0.0, 0.27753279986288926)),
    ((5, 10), (0.23659309051256394, 0.7634069094874361)),
    ((10, 10), (0.7224672001371106, 1.0)),
    ((1, 3), (0.06149194472039626, 0.7923403991979523)),
    ((81, 100), (0.7222115462093562, 0.8748524849023126)),
    ((0, 1), (0.0, 0.7934506856227627)),
    ((19, 38), (0.348499283643951, 0.651500716356049)),
]


@pytest.mark.parametrize(("counts_", "expected"), WILSON_REFERENCE, ids=[f"{c}/{n}" for (c, n), _ in WILSON_REFERENCE])
def test_wilson_matches_spec_reference_values(counts_, expected):
    low, high = wilson_interval(*counts_)
    assert low == pytest.approx(expected[0], **TOL)
    assert high == pytest.approx(expected[1], **TOL)


def test_wilson_reference_values_vectorised_in_one_call():
    c = np.array([cn[0] for cn, _ in WILSON_REFERENCE])
    n = np.array([cn[1] for cn, _ in WILSON_REFERENCE])
    low, high = wilson_interval(c, n)
    assert_close(low, [e[0] for _, e in WILSON_REFERENCE])
    assert_close(high, [e[1] for _, e in WILSON_REFERENCE])


def test_wilson_bounds_are_exactly_zero_and_one_at_the_extremes():
    low, _ = wilson_interval(0, 10)
    _, high = wilson_interval(10, 10)
    assert low == 0.0
    assert high == 1.0


def test_z_value_is_exact_not_rounded_196():
    assert z_value(0.95) == pytest.approx(Z95, rel=1e-15)
    assert z_value() == z_value(0.95)
    assert z_value(0.95) != 1.96


def test_pass_hat_2_of_cases_ttt_ttf_averages_to_two_thirds():
    per_case = pass_hat_k([3, 2], [3, 3], 2)
    assert_close(per_case, [1.0, 1.0 / 3.0])
    assert float(np.mean(per_case)) == pytest.approx(2.0 / 3.0, **TOL)


def test_pass_hat_2_of_cases_ttt_ttf_via_accessor_is_two_thirds():
    df = pd.DataFrame(
        {
            "dimension": ["d"] * 6,
            "case_id": ["a", "a", "a", "b", "b", "b"],
            "status": ["PASS", "PASS", "PASS", "PASS", "PASS", "FAIL"],
        }
    )
    assert df.scorekit.pass_k(2)["d"] == pytest.approx(2.0 / 3.0, **TOL)


def test_pass_at_5_n10_c3_matches_spec():
    assert pass_at_k(3, 10, 5) == pytest.approx(0.9166666666666666, **TOL)
    assert pass_at_k(3, 10, 5) == pytest.approx(1 - comb(7, 5) / comb(10, 5), **TOL)


def test_pass_hat_4_n8_c6_matches_spec():
    assert pass_hat_k(6, 8, 4) == pytest.approx(0.21428571428571427, **TOL)
    assert pass_hat_k(6, 8, 4) == pytest.approx(comb(6, 4) / comb(8, 4), **TOL)


def test_mean_ci_matches_spec_reference():
    ci = mean_ci([0.84, 0.85, 0.83])
    assert ci["n"] == 3
    assert ci["mean"] == pytest.approx(0.84, **TOL)
    assert ci["stdev"] == pytest.approx(0.01, **TOL)
    assert ci["ci_low"] == pytest.approx(0.8151586228824966, **TOL)
    assert ci["ci_high"] == pytest.approx(0.8648413771175033, **TOL)
    assert ci["ci_half_width"] == pytest.approx(0.8648413771175033 - 0.84, **TOL)
    assert ci["z_half_width"] == pytest.approx(Z95 * 0.01 / math.sqrt(3), **TOL)
    assert ci["cv_pct"] == pytest.approx(100 * 0.01 / 0.84, **TOL)


def test_mean_ci_returns_exactly_the_documented_keys():
    assert set(mean_ci([0.1, 0.2])) == {
        "n", "mean", "stdev", "cv_pct", "ci_low", "ci_high", "ci_half_width", "z_half_width",
    }


# --------------------------------------------------------------------------- external references
def _grid():
    for n in range(0, 61):
        for c in range(0, n + 1):
            yield c, n
    for n in (99, 100, 250, 1000, 12345):
        for c in sorted({0, 1, n // 7, n // 2, n - 1, n}):
            yield c, n


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_wilson_matches_statsmodels_over_a_grid(confidence):
    from statsmodels.stats.proportion import proportion_confint

    grid = [(c, n) for c, n in _grid() if n > 0]
    c = np.array([g[0] for g in grid])
    n = np.array([g[1] for g in grid])
    ref_low, ref_high = proportion_confint(c, n, alpha=1 - confidence, method="wilson")
    low, high = wilson_interval(c, n, confidence=confidence)
    # statsmodels may leave ~1e-17 below 0 or above 1; scorekit clips to [0, 1].
    assert_close(low, np.clip(ref_low, 0, 1))
    assert_close(high, np.clip(ref_high, 0, 1))


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
@pytest.mark.parametrize(
    "values",
    [[0.84, 0.85, 0.83], [0.1, 0.9], [0.5, 0.52, 0.49, 0.61, 0.55, 0.47, 0.58], list(np.linspace(0, 1, 25))],
)
def test_mean_ci_t_interval_matches_scipy(values, confidence):
    from scipy import stats

    arr = np.asarray(values, dtype=float)
    sem = arr.std(ddof=1) / math.sqrt(arr.size)
    ref_low, ref_high = stats.t.interval(confidence, df=arr.size - 1, loc=arr.mean(), scale=sem)
    ci = mean_ci(values, confidence=confidence)
    assert ci["ci_low"] == pytest.approx(ref_low, **TOL)
    assert ci["ci_high"] == pytest.approx(ref_high, **TOL)
    assert ci["stdev"] == pytest.approx(arr.std(ddof=1), **TOL)
    assert ci["z_half_width"] == pytest.approx(stats.norm.ppf(0.5 + confidence / 2) * sem, **TOL)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99, 0.999])
def test_z_value_matches_scipy_normal_quantile(confidence):
    from scipy import stats

    assert z_value(confidence) == pytest.approx(stats.norm.ppf(1 - (1 - confidence) / 2), rel=1e-13)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_pass_hat_k_and_pass_at_k_match_binomial_coefficients(k):
    c, n = [], []
    for nn in range(0, 13):
        for cc in range(0, nn + 1):
            c.append(cc)
            n.append(nn)
    c, n = np.array(c), np.array(n)
    expected_hat = [comb(cc, k) / comb(nn, k) if nn >= k else np.nan for cc, nn in zip(c, n, strict=True)]
    expected_at = [1 - comb(nn - cc, k) / comb(nn, k) if nn >= k else np.nan for cc, nn in zip(c, n, strict=True)]
    assert_close(pass_hat_k(c, n, k), expected_hat)
    assert_close(pass_at_k(c, n, k), expected_at)


def test_pass_at_k_is_stable_for_large_n():
    # 1 - C(n-c, k)/C(n, k) with huge binomials: the product form must stay accurate.
    n, c, k = 10**6, 1, 1000
    assert pass_at_k(c, n, k) == pytest.approx(k / n, rel=1e-9)
    assert pass_hat_k(n, n, k) == 1.0
    assert pass_hat_k(n - 1, n, k) == pytest.approx((n - k) / n, rel=1e-9)


# --------------------------------------------------------------------------- shapes
def test_wilson_scalars_give_floats():
    low, high = wilson_interval(3, 10)
    assert type(low) is float and type(high) is float


def test_wilson_numpy_scalars_give_floats():
    low, high = wilson_interval(np.int64(3), np.int64(10))
    assert type(low) is float and type(high) is float


def test_pass_hat_k_and_pass_at_k_scalars_give_floats():
    assert type(pass_hat_k(2, 3, 2)) is float
    assert type(pass_at_k(2, 3, 2)) is float


def test_wilson_arrays_give_arrays():
    low, high = wilson_interval(np.array([1, 2]), np.array([3, 4]))
    assert isinstance(low, np.ndarray) and isinstance(high, np.ndarray)
    assert low.shape == high.shape == (2,)


def test_wilson_lists_give_arrays():
    low, high = wilson_interval([1, 2], [3, 4])
    assert isinstance(low, np.ndarray) and low.shape == (2,)


def test_wilson_broadcasts_scalar_n_against_array_successes():
    low, high = wilson_interval(np.array([0, 5, 10]), 10)
    assert_close(low, [0.0, 0.23659309051256394, 0.7224672001371106])
    assert_close(high, [0.27753279986288926, 0.7634069094874361, 1.0])


def test_wilson_series_in_series_out_with_same_index_and_name():
    index = pd.Index(["pii", "cost", "latency"], name="dimension")
    c = pd.Series([0, 5, 10], index=index, name="passes")
    n = pd.Series([10, 10, 10], index=index, name="n")
    low, high = wilson_interval(c, n)
    for bound in (low, high):
        assert isinstance(bound, pd.Series)
        assert bound.index.equals(index)
        assert bound.index.name == "dimension"
        assert bound.name == "passes"
    assert_close(low.to_numpy(), [0.0, 0.23659309051256394, 0.7224672001371106])


def test_pass_hat_k_series_in_series_out_with_same_index():
    index = pd.Index(["a", "b"], name="case_id")
    out = pass_hat_k(pd.Series([3, 2], index=index), pd.Series([3, 3], index=index), 2)
    assert isinstance(out, pd.Series)
    assert out.index.equals(index)
    assert_close(out.to_numpy(), [1.0, 1 / 3])


def test_pass_at_k_series_with_scalar_n_keeps_index():
    index = pd.Index(["x", "y"])
    out = pass_at_k(pd.Series([0, 3], index=index, name="c"), 10, 5)
    assert isinstance(out, pd.Series)
    assert out.index.equals(index)
    assert out.name == "c"
    assert_close(out.to_numpy(), [0.0, 0.9166666666666666])


def test_dataframe_in_dataframe_out():
    c = pd.DataFrame({"run1": [3, 6], "run2": [2, 8]}, index=["a", "b"])
    n = pd.DataFrame({"run1": [10, 8], "run2": [10, 8]}, index=["a", "b"])
    out = pass_hat_k(c, n, 4)
    assert isinstance(out, pd.DataFrame)
    assert out.index.equals(c.index) and out.columns.equals(c.columns)
    assert out.loc["b", "run1"] == pytest.approx(0.21428571428571427, **TOL)
    low, high = wilson_interval(c, n)
    assert isinstance(low, pd.DataFrame) and isinstance(high, pd.DataFrame)
    assert low.columns.equals(c.columns)


def test_two_series_with_different_indexes_is_an_error():
    c = pd.Series([1, 2], index=["a", "b"])
    n = pd.Series([3, 4], index=["b", "a"])
    with pytest.raises(ValueError, match="different indexes"):
        wilson_interval(c, n)
    with pytest.raises(ValueError, match="different indexes"):
        pass_hat_k(c, n, 1)
    with pytest.raises(ValueError, match="different indexes"):
        pass_at_k(c, n, 1)


def test_nullable_int_series_is_accepted():
    c = pd.Series([1, 2], dtype="Int64")
    n = pd.Series([3, 4], dtype="Int64")
    low, _ = wilson_interval(c, n)
    assert isinstance(low, pd.Series)
    assert low.dtype == np.float64


# --------------------------------------------------------------------------- no evidence
def test_wilson_n_zero_is_nan_not_zero():
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)


def test_wilson_n_zero_is_nan_only_where_n_is_zero():
    low, high = wilson_interval([0, 0, 1], [0, 1, 1])
    assert np.isnan(low[0]) and np.isnan(high[0])
    assert not np.isnan(low[1:]).any() and not np.isnan(high[1:]).any()


@pytest.mark.parametrize("function", [pass_hat_k, pass_at_k], ids=["pass_hat_k", "pass_at_k"])
def test_n_below_k_is_nan(function):
    assert math.isnan(function(2, 3, 4))
    assert math.isnan(function(0, 0, 1))
    out = function([1, 2, 2], [1, 2, 3], 3)
    assert np.isnan(out[:2]).all() and not np.isnan(out[2])


def test_pass_hat_k_is_zero_when_fewer_passes_than_k():
    assert pass_hat_k(1, 5, 2) == 0.0
    assert pass_hat_k(0, 5, 1) == 0.0
    assert_close(pass_hat_k([0, 1, 2], [5, 5, 5], 3), [0.0, 0.0, 0.0])


def test_pass_at_k_is_one_when_fewer_failures_than_k():
    assert pass_at_k(4, 5, 2) == 1.0
    assert pass_at_k(5, 5, 1) == 1.0
    assert_close(pass_at_k([3, 4, 5], [5, 5, 5], 3), [1.0, 1.0, 1.0])


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "function",
    [wilson_interval, lambda c, n: pass_hat_k(c, n, 1), lambda c, n: pass_at_k(c, n, 1)],
    ids=["wilson", "pass_hat_k", "pass_at_k"],
)
@pytest.mark.parametrize(
    ("c", "n", "pattern"),
    [
        (-1, 10, r"^(successes|c) must .*-1"),
        (2.5, 10, r"^(successes|c) must .*2\.5"),
        (float("nan"), 10, r"^(successes|c) must .*nan"),
        (3, -2, r"^n must .*-2"),
        (3, 10.5, r"^n must .*10\.5"),
        (3, float("inf"), r"^n must .*inf"),
        ([1, -1], [2, 2], r"^(successes|c) must .*-1"),
    ],
)
def test_invalid_counts_are_rejected_naming_parameter_and_value(function, c, n, pattern):
    with pytest.raises(ValueError, match=pattern):
        function(c, n)


@pytest.mark.parametrize(
    "function",
    [wilson_interval, lambda c, n: pass_hat_k(c, n, 1), lambda c, n: pass_at_k(c, n, 1)],
    ids=["wilson", "pass_hat_k", "pass_at_k"],
)
def test_successes_above_n_is_rejected_naming_both_values(function):
    with pytest.raises(ValueError, match=r"must not exceed n.*=11.*n=10"):
        function(11, 10)
    with pytest.raises(ValueError, match=r"must not exceed n.*=4.*n=3"):
        function([1, 4], [2, 3])


def test_nan_in_a_series_of_counts_is_rejected():
    with pytest.raises(ValueError, match=r"successes .*nan"):
        wilson_interval(pd.Series([1, None], dtype="Int64"), pd.Series([2, 2]))


@pytest.mark.parametrize("bad", ["a", ["x", "y"], None, {"a": 1}])
def test_non_numeric_counts_are_rejected(bad):
    with pytest.raises((TypeError, ValueError), match="successes"):
        wilson_interval(bad, 10)


@pytest.mark.parametrize(
    "call",
    [
        lambda: wilson_interval("3", 10),
        lambda: wilson_interval(["3"], [10]),
        lambda: pass_hat_k(3, "10", 2),
        lambda: wilson_interval(pd.Series(["1", "2"]), pd.Series([3, 4])),
    ],
    ids=["str-scalar", "str-list", "str-n", "str-series"],
)
def test_numeric_strings_are_not_counts(call):
    with pytest.raises((TypeError, ValueError), match=r"\b(successes|c|n)\b"):
        call()


@pytest.mark.parametrize("function", [pass_hat_k, pass_at_k], ids=["pass_hat_k", "pass_at_k"])
@pytest.mark.parametrize(
    ("k", "pattern"),
    [(True, r"^k .*True"), (False, r"^k .*False"), (2.0, r"^k .*2\.0"), (0, r"^k .*got 0"), (-1, r"^k .*-1"),
     ("2", r"^k .*'2'"), (None, r"^k .*None")],
)
def test_invalid_k_is_rejected_naming_k_and_value(function, k, pattern):
    with pytest.raises((TypeError, ValueError), match=pattern):
        function(1, 3, k)


def test_numpy_integer_k_is_accepted():
    assert pass_hat_k(6, 8, np.int64(4)) == pytest.approx(0.21428571428571427, **TOL)


@pytest.mark.parametrize(
    ("confidence", "pattern"),
    [(0, r"^confidence .*got 0$"), (1, r"^confidence .*got 1$"), (1.5, r"^confidence .*1\.5"),
     (-0.5, r"^confidence .*-0\.5"), ("0.95", r"^confidence .*'0\.95'"), (True, r"^confidence .*True"),
     (float("nan"), r"^confidence .*nan"), (None, r"^confidence .*None")],
)
@pytest.mark.parametrize(
    "call",
    [lambda conf: wilson_interval(1, 3, confidence=conf), lambda conf: mean_ci([0.1, 0.2], confidence=conf),
     lambda conf: z_value(conf)],
    ids=["wilson", "mean_ci", "z_value"],
)
def test_invalid_confidence_is_rejected_naming_confidence_and_value(call, confidence, pattern):
    with pytest.raises((TypeError, ValueError), match=pattern):
        call(confidence)


# --------------------------------------------------------------------------- mean_ci edge cases
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_mean_ci_rejects_nan_and_inf(bad):
    with pytest.raises(ValueError, match=r"values .*(nan|inf)"):
        mean_ci([0.5, bad, 0.7])


def test_mean_ci_rejects_missing_values_in_a_series():
    with pytest.raises(ValueError, match="values"):
        mean_ci(pd.Series([0.5, None, 0.7], dtype="Float64"))


def test_mean_ci_n_one_has_nan_stdev_and_interval():
    ci = mean_ci([0.7])
    assert ci["n"] == 1
    assert ci["mean"] == pytest.approx(0.7)
    for key in ("stdev", "cv_pct", "ci_low", "ci_high", "ci_half_width", "z_half_width"):
        assert math.isnan(ci[key]), key


def test_mean_ci_n_zero_is_nan_mean():
    ci = mean_ci([])
    assert ci["n"] == 0
    for key in ("mean", "stdev", "cv_pct", "ci_low", "ci_high", "ci_half_width", "z_half_width"):
        assert math.isnan(ci[key]), key


@pytest.mark.parametrize("bad", [[[0.1, 0.2], [0.3, 0.4]], np.zeros((2, 2)), 0.5])
def test_mean_ci_rejects_input_that_is_not_one_dimensional(bad):
    with pytest.raises(ValueError, match="one-dimensional"):
        mean_ci(bad)


def test_mean_ci_rejects_non_numbers():
    with pytest.raises((TypeError, ValueError), match="values"):
        mean_ci(["a", "b"])


def test_mean_ci_rejects_numeric_strings():
    with pytest.raises((TypeError, ValueError), match="values"):
        mean_ci(["0.5", "0.7"])


def test_mean_ci_cv_pct_is_nan_when_mean_is_zero():
    ci = mean_ci([-1.0, 1.0])
    assert ci["mean"] == 0.0
    assert math.isnan(ci["cv_pct"])
    assert ci["stdev"] == pytest.approx(math.sqrt(2), **TOL)
    assert math.isnan(mean_ci([0.0, 0.0])["cv_pct"])


def test_mean_ci_identical_values_have_zero_width():
    ci = mean_ci([0.9, 0.9, 0.9, 0.9])
    assert ci["stdev"] == 0.0
    assert ci["ci_low"] == ci["ci_high"] == pytest.approx(0.9, **TOL)


def test_mean_ci_accepts_series_and_arrays_alike():
    values = [0.84, 0.85, 0.83]
    as_list = mean_ci(values)
    for other in (
        mean_ci(np.array(values)),
        mean_ci(pd.Series(values, index=["r1", "r2", "r3"])),
        mean_ci(tuple(values)),
    ):
        assert other == pytest.approx(as_list, rel=1e-15)


def test_mean_ci_returns_plain_python_numbers():
    ci = mean_ci([0.84, 0.85, 0.83])
    assert type(ci["n"]) is int
    assert all(type(v) is float for k, v in ci.items() if k != "n")


# --------------------------------------------------------------------------- properties
@given(counts(max_n=400))
def test_wilson_interval_contains_the_point_estimate_within_unit_interval(cn):
    c, n = cn
    assume(n > 0)
    for confidence in (0.8, 0.95, 0.99):
        low, high = wilson_interval(c, n, confidence=confidence)
        p = c / n
        assert 0.0 <= low <= p <= high <= 1.0


@given(counts(max_n=400, min_n=1))
def test_wilson_interval_is_symmetric_under_swapping_pass_and_fail(cn):
    c, n = cn
    low, high = wilson_interval(c, n)
    low_swapped, high_swapped = wilson_interval(n - c, n)
    assert low == pytest.approx(1.0 - high_swapped, abs=1e-12)
    assert high == pytest.approx(1.0 - low_swapped, abs=1e-12)


@given(counts(max_n=200, min_n=1))
def test_wilson_interval_narrows_as_n_grows_at_fixed_rate(cn):
    c, n = cn
    widths = []
    for factor in (1, 2, 4, 8):
        low, high = wilson_interval(factor * c, factor * n)
        widths.append(high - low)
    assert all(a > b for a, b in pairwise(widths)), widths


@given(counts(max_n=200, min_n=1))
def test_wilson_interval_widens_with_confidence(cn):
    c, n = cn
    widths = [np.subtract(*wilson_interval(c, n, conf)[::-1]) for conf in (0.5, 0.8, 0.9, 0.95, 0.99)]
    assert all(a < b for a, b in pairwise(widths)), widths


@given(counts(max_n=80, min_n=1), st.integers(1, 80))
def test_pass_hat_k_never_exceeds_pass_at_k(cn, k):
    c, n = cn
    assume(k <= n)
    hat, at = pass_hat_k(c, n, k), pass_at_k(c, n, k)
    # Equal at k = 1 (both c/n); pass@k = 1 - product may sit one ulp off.
    assert 0.0 <= hat <= at + 1e-15
    assert at <= 1.0


@given(counts(max_n=200, min_n=1))
def test_pass_hat_1_equals_pass_at_1_equals_rate(cn):
    c, n = cn
    assert pass_hat_k(c, n, 1) == pytest.approx(c / n, **TOL)
    assert pass_at_k(c, n, 1) == pytest.approx(c / n, **TOL)


@given(counts(max_n=40, min_n=1))
def test_pass_hat_k_is_non_increasing_and_pass_at_k_non_decreasing_in_k(cn):
    c, n = cn
    hat = [pass_hat_k(c, n, k) for k in range(1, n + 1)]
    at = [pass_at_k(c, n, k) for k in range(1, n + 1)]
    assert all(a >= b - 1e-15 for a, b in pairwise(hat)), hat
    assert all(a <= b + 1e-15 for a, b in pairwise(at)), at


@given(st.lists(counts(max_n=30), min_size=1, max_size=20), st.integers(1, 6))
def test_vectorised_pass_k_equals_elementwise_scalar_calls(pairs, k):
    c = np.array([p[0] for p in pairs])
    n = np.array([p[1] for p in pairs])
    hat = pass_hat_k(c, n, k)
    at = pass_at_k(c, n, k)
    assert_close(hat, [pass_hat_k(int(a), int(b), k) for a, b in pairs])
    assert_close(at, [pass_at_k(int(a), int(b), k) for a, b in pairs])


@given(scored_frames())
def test_per_dimension_pass_1_equals_mean_of_per_case_rates(frame):
    reference = per_case_rates(frame)
    expected = (reference["c"] / reference["n"]).groupby(level="dimension").mean()
    hat = frame.scorekit.pass_k(1)
    at = frame.scorekit.pass_at_k(1)
    expected = expected.reindex(hat.index)  # dimensions without any measured trial stay NaN
    assert_close(hat.to_numpy(dtype=float), expected.to_numpy(dtype=float))
    assert_close(at.to_numpy(dtype=float), expected.to_numpy(dtype=float))


@given(scored_frames(statuses=("PASS", "FAIL"), equal_trials=True))
def test_pass_1_equals_pooled_rate_when_every_case_has_the_same_number_of_trials(frame):
    summary = frame.scorekit.summary()
    assert_close(frame.scorekit.pass_k(1).to_numpy(), summary["rate"].to_numpy())
    assert_close(frame.scorekit.pass_at_k(1).to_numpy(), summary["rate"].to_numpy())


@given(scored_frames(statuses=("PASS", "FAIL"), equal_trials=True, max_trials=6))
def test_dimension_pass_k_monotone_in_k_when_every_case_has_the_same_trials(frame):
    hat = frame.scorekit.pass_k([1, 2, 3, 4, 5, 6]).to_numpy()
    at = frame.scorekit.pass_at_k([1, 2, 3, 4, 5, 6]).to_numpy()
    for row_hat, row_at in zip(hat, at, strict=True):
        defined = ~np.isnan(row_hat)
        assert np.all(np.diff(row_hat[defined]) <= 1e-15)
        assert np.all(np.diff(row_at[defined]) >= -1e-15)
        assert np.all(row_hat[defined] <= row_at[defined] + 1e-15)


@given(st.lists(st.floats(0, 1), min_size=2, max_size=30))
def test_mean_ci_interval_contains_mean_and_t_is_wider_than_z(values):
    ci = mean_ci(values)
    assert ci["ci_low"] <= ci["mean"] <= ci["ci_high"]
    assert ci["ci_half_width"] >= ci["z_half_width"] - 1e-15
    assert ci["ci_half_width"] == pytest.approx(ci["ci_high"] - ci["mean"], abs=1e-12)


@given(counts(max_n=400, min_n=1), st.sampled_from([0.8, 0.95, 0.99]))
def test_wilson_core_at_a_whole_n_is_exactly_wilson_interval(cn, confidence):
    from scorekit._stats import _wilson_bounds

    c, n = cn
    low, high = _wilson_bounds(np.float64(c / n), np.float64(n), z_value(confidence))
    assert (float(low), float(high)) == wilson_interval(c, n, confidence=confidence)


@given(st.floats(0, 1), st.floats(0.05, 500), st.floats(1.0001, 3))
def test_wilson_core_at_a_real_n_widens_as_the_effective_size_shrinks(p, size, factor):
    # The case-clustered interval evaluates Wilson at N/deff, a real number.
    from scorekit._stats import _wilson_bounds

    z = z_value(0.95)
    low, high = (float(v) for v in _wilson_bounds(np.float64(p), np.float64(size), z))
    small_low, small_high = (float(v) for v in _wilson_bounds(np.float64(p), np.float64(size / factor), z))
    assert 0.0 <= small_low <= low + 1e-15 and high <= small_high + 1e-15 <= 1.0 + 1e-15
    assert math.isnan(float(_wilson_bounds(np.float64(p), np.float64(0.0), z)[0]))


def test_public_names_are_the_stats_functions():
    assert sk.wilson_interval is wilson_interval
    assert sk.pass_hat_k is pass_hat_k and sk.pass_at_k is pass_at_k
    assert sk.mean_ci is mean_ci
    assert sk.cluster_interval is sk._stats.cluster_interval
    assert sk.minimum_detectable_drop is sk._stats.minimum_detectable_drop
    assert sk.cases_needed is sk._stats.cases_needed


def test_k_values_normalises_one_k_or_a_list_and_names_a_bad_k():
    from scorekit._stats import k_values

    assert k_values(4) == ([4], False)
    assert k_values((1, np.int64(2))) == ([1, 2], True) and k_values(range(1, 3)) == ([1, 2], True)
    assert k_values(pd.Index([8])) == ([8], True)
    with pytest.raises(ValueError, match=r"non-empty list of them; got \[\]"):
        k_values([])
    with pytest.raises(ValueError, match=r"^k must be an integer >= 1; got True$"):
        k_values([1, True])
