"""scorekit._stats.assurance and cases_to_settle: threshold assurance (SPEC §18)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from shared import counts

from scorekit import _stats
from scorekit._stats import assurance, cases_to_settle

TOL = dict(rel=1e-12, abs=1e-12)

# SPEC §18: (passes, n, threshold), deff 1 -> assurance.
ASSURANCE_REFERENCE = [
    ((45, 50, 0.9), 0.474318679506573),
    ((48, 50, 0.9), 0.9347361873076657),
    ((19, 20, 0.95), 0.43291129191000643),
]


# --------------------------------------------------------------------------- independent references
def reference_assurance(passes, n, threshold, deff=1.0):
    """P(rate >= threshold) under Beta(x + 1/2, n' - x + 1/2): scipy.stats.beta's survival function."""
    from scipy.stats import beta

    size = n / deff
    x = passes / deff
    return float(beta.sf(threshold, x + 0.5, size - x + 0.5))


def reference_wilson_low(p, size, z):
    """The textbook Wilson lower bound (2sp + z² − z·√(z² + 4sp(1−p))) / (2(s + z²))."""
    if p == 1.0:
        return size / (size + z * z)
    return (2 * size * p + z * z - z * math.sqrt(z * z + 4 * size * p * (1 - p))) / (2 * (size + z * z))


def reference_cases_to_settle(passes, n, cases, threshold, deff=1.0, confidence=0.95):
    """Count m' = cases, cases + 1, ... until the Wilson lower bound at m'·(n/cases)/deff reaches the threshold."""
    from scipy.stats import norm

    p = passes / n
    if p <= threshold:
        return math.nan
    z = norm.ppf(1 - (1 - confidence) / 2)
    m = cases
    while reference_wilson_low(p, m * (n / cases) / deff, z) < threshold:
        m += 1
    return float(m)


# --------------------------------------------------------------------------- assurance
@pytest.mark.parametrize(("args", "expected"), ASSURANCE_REFERENCE, ids=[str(a) for a, _ in ASSURANCE_REFERENCE])
def test_assurance_matches_spec_reference_values(args, expected):
    assert assurance(*args) == pytest.approx(expected, **TOL)
    assert reference_assurance(*args) == pytest.approx(expected, **TOL)


@given(counts(max_n=300, min_n=1), st.floats(0.0, 1.0), st.sampled_from([1.0, 1.3, 2.0, 4.5]))
def test_assurance_matches_scipy_beta_survival_function(count, threshold, deff):
    passes, n = count
    assert assurance(passes, n, threshold, deff) == pytest.approx(reference_assurance(passes, n, threshold, deff),
                                                                  rel=1e-10, abs=1e-12)


def test_assurance_uses_the_effective_size_not_rounded():
    # deff 2.5: n' = 20, x = 19.2 (a fractional count of passes).
    assert assurance(48, 50, 0.9, 2.5) == pytest.approx(reference_assurance(19.2, 20, 0.9), **TOL)
    assert assurance(48, 50, 0.9, 2.5) < assurance(48, 50, 0.9)


def test_assurance_at_thresholds_zero_and_one():
    for passes, n in ((0, 10), (5, 10), (10, 10)):
        assert assurance(passes, n, 0.0) == 1.0
        assert assurance(passes, n, 1.0) == 0.0


def test_assurance_is_nan_without_evidence_or_threshold():
    out = assurance([0, 45, 45], [0, 50, 50], [0.9, math.nan, 0.9], [math.nan, 1.0, 1.0])
    assert np.isnan(out[:2]).all()
    assert out[2] == pytest.approx(ASSURANCE_REFERENCE[0][1], **TOL)


@given(counts(max_n=80, min_n=1), st.floats(0.01, 0.99), st.floats(0.01, 0.99))
def test_assurance_falls_as_the_threshold_rises(count, a, b):
    low, high = sorted((a, b))
    assert assurance(*count, low) >= assurance(*count, high)


def test_assurance_broadcasts_and_keeps_a_series_index():
    index = pd.Index(["safety", "quality"], name="dimension")
    out = assurance(pd.Series([45, 48], index=index), pd.Series([50, 50], index=index), 0.9)
    assert isinstance(out, pd.Series) and out.index.equals(index)
    np.testing.assert_allclose(out.to_numpy(), [ASSURANCE_REFERENCE[0][1], ASSURANCE_REFERENCE[1][1]],
                               rtol=1e-12, atol=1e-12)
    assert type(assurance(45, 50, 0.9)) is float


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"passes": 51}, ValueError, r"^passes must not exceed n; got passes=51, n=50"),
        ({"passes": -1}, ValueError, r"^passes must be non-negative integers; got .*-1"),
        ({"n": 50.5}, ValueError, r"^n must be non-negative integers"),
        ({"threshold": 1.5}, ValueError, r"^threshold must be a number in \[0, 1\] or NaN; got 1\.5"),
        ({"threshold": -0.1}, ValueError, r"^threshold must .*-0\.1"),
        ({"threshold": math.inf}, ValueError, r"^threshold must .*inf"),
        ({"threshold": "0.9"}, TypeError, r"^threshold must"),
        ({"threshold": True}, TypeError, r"^threshold must .*True"),
        ({"deff": 0.5}, ValueError, r"^deff must be a number >= 1 where n > 0; got 0\.5"),
        ({"deff": math.nan}, ValueError, r"^deff must .*nan"),
        ({"deff": "2"}, TypeError, r"^deff must"),
        ({"threshold": [0.9, 0.8, 0.7], "n": [50, 50]}, ValueError, r"incompatible shapes"),
    ],
)
def test_assurance_arguments_are_validated_naming_the_argument(kwargs, error, pattern):
    args = {"passes": 45, "n": 50, "threshold": 0.9, "deff": 1.0, **kwargs}
    with pytest.raises(error, match=pattern):
        assurance(**args)


# --------------------------------------------------------------------------- cases_to_settle
def test_cases_to_settle_matches_spec_reference_value():
    assert cases_to_settle(48, 50, 50, 0.9) == 97.0
    assert reference_cases_to_settle(48, 50, 50, 0.9) == 97.0


@given(counts(max_n=60, min_n=1), st.integers(1, 6), st.floats(0.0, 0.99), st.sampled_from([1.0, 1.7, 3.0]),
       st.sampled_from([0.8, 0.95, 0.99]))
def test_cases_to_settle_matches_counting_case_by_case(count, trials, threshold, deff, confidence):
    passes, cases = count  # one row per case, `trials` trials each: scale the counts
    passes, n = passes * trials, cases * trials
    assume(passes / n > threshold + 1e-3)  # a bound within rounding of the threshold would hang the count
    got = cases_to_settle(passes, n, cases, threshold, deff, confidence)
    assert got == reference_cases_to_settle(passes, n, cases, threshold, deff, confidence)


def test_cases_to_settle_is_the_current_cases_when_already_settled():
    assert cases_to_settle(150, 150, 50, 0.9) == 50.0  # 50 cases x 3 trials, all passed
    assert cases_to_settle(1, 1, 1, 0.0) == 1.0  # threshold 0: any positive rate


def test_cases_to_settle_scales_with_trials_per_case_and_deff():
    # 96% over 25 cases x 4 trials: effective size 96.04 is reached at 24.01 cases of 4 independent trials ...
    assert cases_to_settle(96, 100, 25, 0.9) == 25.0
    # ... at 48.02 cases of 2 trials, and at 96.04 cases when their trials count as one (deff = trials).
    assert cases_to_settle(96, 100, 50, 0.9) == 50.0
    assert cases_to_settle(96, 100, 25, 0.9, deff=2.0) == 49.0
    assert cases_to_settle(96, 100, 25, 0.9, deff=4.0) == 97.0


@pytest.mark.parametrize(("passes", "n", "cases", "threshold"),
                         [(45, 50, 50, 0.9), (40, 50, 50, 0.9), (50, 50, 50, 1.0), (0, 0, 0, 0.9),
                          (48, 50, 50, math.nan)],
                         ids=["at", "below", "threshold-one", "no-evidence", "no-threshold"])
def test_cases_to_settle_is_nan_where_no_number_of_cases_settles_it(passes, n, cases, threshold):
    assert math.isnan(cases_to_settle(passes, n, cases, threshold))


def test_cases_to_settle_is_vectorised_and_keeps_a_series_index():
    index = pd.Index(["a", "b", "c"], name="dimension")
    out = cases_to_settle(pd.Series([48, 45, 0], index=index), pd.Series([50, 50, 0], index=index),
                          pd.Series([50, 50, 0], index=index), 0.9)
    assert out.index.equals(index)
    assert out.tolist()[0] == 97.0 and np.isnan(out.to_numpy()[1:]).all()


def test_cases_to_settle_far_beyond_counting_is_the_closed_form():
    # 0.5 + 2**-40 against 0.5 over 2**40 single-trial cases: about 1.2e24 cases.
    got = cases_to_settle(2**39 + 1, 2**40, 2**40, 0.5)
    assert got > _stats._MAX_CASES and math.isfinite(got)


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"cases": 0}, ValueError, r"^cases must be the number of cases with a measured trial.*got cases=0, n=50"),
        ({"cases": 51}, ValueError, r"^cases must .*got cases=51, n=50"),
        ({"cases": 2.5}, ValueError, r"^cases must be non-negative integers; got .*2\.5"),
        ({"cases": "50"}, TypeError, r"^cases must"),
        ({"threshold": 2}, ValueError, r"^threshold must"),
        ({"deff": 0.9}, ValueError, r"^deff must"),
        ({"confidence": 1.0}, ValueError, r"^confidence must be a finite number in \(0, 1\); got 1\.0"),
        ({"passes": 60}, ValueError, r"^passes must not exceed n"),
    ],
)
def test_cases_to_settle_arguments_are_validated_naming_the_argument(kwargs, error, pattern):
    args = {"passes": 48, "n": 50, "cases": 50, "threshold": 0.9, "deff": 1.0, "confidence": 0.95, **kwargs}
    with pytest.raises(error, match=pattern):
        cases_to_settle(**args)


def test_new_functions_are_in_stats_all():
    assert {"assurance", "cases_to_settle"} <= set(_stats.__all__)
