"""scorekit._stats power functions: minimum_detectable_drop, cases_needed, dimension_mde (SPEC §6)."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import scorekit as sk
from scorekit._stats import cases_needed, cluster_interval_grouped, dimension_mde, minimum_detectable_drop

TOL = dict(rel=1e-12, abs=1e-12)

rates = st.floats(0.01, 0.99)
alphas = st.sampled_from([0.01, 0.025, 0.05, 0.1, 0.2])
powers = st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99])


def reference_drop(rate, cases, trials=1, icc=0.0, alpha=0.025, power=0.8):
    """SPEC §6 formula with scipy's normal quantiles, one scalar at a time (alpha defaults to SPEC's 0.025)."""
    from scipy.stats import norm

    z = norm.ppf(1 - alpha) + norm.ppf(power)
    return z * math.sqrt(2 * rate * (1 - rate) * (1 + (trials - 1) * icc) / (cases * trials))


# --------------------------------------------------------------------------- SPEC examples
def statsmodels_power(drop, rate, cases, alpha):
    """Power of statsmodels' one-sided two-sample z-test against ``drop`` (effect size drop / sqrt(rate(1 - rate)))."""
    from statsmodels.stats.power import NormalIndPower

    return NormalIndPower().power(effect_size=drop / math.sqrt(rate * (1 - rate)), nobs1=cases, alpha=alpha,
                                  ratio=1.0, alternative="larger")


def test_minimum_detectable_drop_matches_spec_example():
    # SPEC §6: the default alpha is the gate's one-sided level, one_sided_alpha(0.95) = 0.025.
    assert minimum_detectable_drop(0.9, 100) == pytest.approx(0.11886119434798037, **TOL)
    assert minimum_detectable_drop(0.9, 100, alpha=0.05) == pytest.approx(0.10549219410760009, **TOL)
    assert minimum_detectable_drop(0.9, 100) == pytest.approx(reference_drop(0.9, 100), **TOL)


@pytest.mark.parametrize(("alpha", "expected"), [(0.025, 0.11886119434798037), (0.05, 0.10549219410760009)])
def test_spec_examples_have_power_0_8_in_statsmodels(alpha, expected):
    assert statsmodels_power(expected, 0.9, 100, alpha) == pytest.approx(0.8, **TOL)
    drop = minimum_detectable_drop(0.9, 100, alpha=alpha)
    assert statsmodels_power(drop, 0.9, 100, alpha) == pytest.approx(0.8, **TOL)


def test_default_alpha_is_the_gates_one_sided_level():
    assert minimum_detectable_drop(0.9, 100) == minimum_detectable_drop(0.9, 100, alpha=sk_alpha())
    assert cases_needed(0.9, 0.05) == cases_needed(0.9, 0.05, alpha=sk_alpha())


def sk_alpha():
    from scorekit._stats import one_sided_alpha

    return one_sided_alpha(0.95)


def test_cases_needed_matches_spec_example():
    assert cases_needed(0.9, 0.05) == 566
    assert minimum_detectable_drop(0.9, 566) <= 0.05 < minimum_detectable_drop(0.9, 565)
    assert cases_needed(0.9, 0.05, alpha=0.05) == 446
    assert minimum_detectable_drop(0.9, 446, alpha=0.05) <= 0.05 < minimum_detectable_drop(0.9, 445, alpha=0.05)


GRID = list(
    itertools.product([0.05, 0.5, 0.9, 0.99], [1, 7, 100, 2500], [1, 3, 10], [0.0, 0.3, 1.0], [0.01, 0.05, 0.2],
                      [0.5, 0.8, 0.95])
)


def test_minimum_detectable_drop_matches_scipy_normal_computation_over_a_grid():
    columns = [np.array(values) for values in zip(*GRID, strict=True)]
    rate, cases, trials, icc, alpha, power = columns
    got = minimum_detectable_drop(rate, cases, trials=trials, icc=icc, alpha=alpha, power=power)
    expected = [reference_drop(*row) for row in GRID]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_cases_needed_matches_a_search_with_scipy_over_a_grid():
    rows = [(r, d, t, i, a, b) for r, d, t, i, a, b in itertools.product(
        [0.05, 0.5, 0.9, 0.99], [0.01, 0.05, 0.2], [1, 3, 10], [0.0, 0.3, 1.0], [0.01, 0.05], [0.8, 0.95])]
    got = cases_needed(*[np.array(v) for v in list(zip(*rows, strict=True))[:2]],
                       trials=np.array([r[2] for r in rows]), icc=np.array([r[3] for r in rows]),
                       alpha=np.array([r[4] for r in rows]), power=np.array([r[5] for r in rows]))
    for (rate, drop, trials, icc, alpha, power), m in zip(rows, got.tolist(), strict=True):
        # The smallest m with drop(m) <= drop, by bisection on the reference formula.
        low, high = 0, 1
        while reference_drop(rate, high, trials, icc, alpha, power) > drop:
            low, high = high, 2 * high
        while high - low > 1:
            mid = (low + high) // 2
            if reference_drop(rate, mid, trials, icc, alpha, power) > drop:
                low = mid
            else:
                high = mid
        assert m == high, (rate, drop, trials, icc, alpha, power)


# --------------------------------------------------------------------------- the rules
@given(rates, st.floats(0.001, 0.5), st.integers(1, 20), st.floats(0, 1), alphas, powers)
def test_cases_needed_is_the_smallest_whole_number_meeting_the_drop(rate, drop, trials, icc, alpha, power):
    assume(power > alpha)
    kwargs = dict(trials=trials, icc=icc, alpha=alpha, power=power)
    m = cases_needed(rate, drop, **kwargs)
    assert type(m) is int and m >= 1
    assert minimum_detectable_drop(rate, m, **kwargs) <= drop
    if m > 1:
        assert minimum_detectable_drop(rate, m - 1, **kwargs) > drop


@given(rates, st.integers(1, 10**7), st.integers(1, 12), st.floats(0, 1), alphas, powers)
def test_cases_needed_inverts_the_detectable_drop_exactly(rate, cases, trials, icc, alpha, power):
    # drop(m) itself: the closed form lands within rounding of m, on either side.
    assume(power > alpha)
    kwargs = dict(trials=trials, icc=icc, alpha=alpha, power=power)
    drop = minimum_detectable_drop(rate, cases, **kwargs)
    needed = cases_needed(rate, drop, **kwargs)
    assert needed <= cases
    # Neighbouring counts may round to the same drop; none before `needed` reaches it.
    assert minimum_detectable_drop(rate, needed, **kwargs) == drop
    if needed > 1:
        assert minimum_detectable_drop(rate, needed - 1, **kwargs) > drop


def test_cases_needed_is_at_least_one_case():
    # drop(1 case) at rate 0.5 is 2.8016·√0.5 = 1.981 (alpha 0.025): any larger drop needs one case, not zero.
    assert cases_needed(0.5, 1.99) == 1
    assert cases_needed(0.5, 5.0) == 1
    assert cases_needed(0.5, 1.98) == 2


@given(rates, st.integers(1, 10**6), st.integers(1, 50))
def test_trials_help_only_as_far_as_they_are_independent(rate, cases, trials):
    one = minimum_detectable_drop(rate, cases)
    assert minimum_detectable_drop(rate, cases, trials=trials, icc=1.0) == pytest.approx(one, **TOL)
    # Independent trials are as good as more cases.
    assert minimum_detectable_drop(rate, cases, trials=trials) == pytest.approx(
        minimum_detectable_drop(rate, cases * trials), **TOL)


@given(rates, st.integers(1, 10**6), st.integers(2, 20), st.floats(0, 0.99))
def test_detectable_drop_grows_with_icc_and_shrinks_with_cases(rate, cases, trials, icc):
    base = minimum_detectable_drop(rate, cases, trials=trials, icc=icc)
    assert minimum_detectable_drop(rate, cases, trials=trials, icc=min(icc + 0.01, 1.0)) > base
    assert minimum_detectable_drop(rate, cases + 1, trials=trials, icc=icc) < base


@given(rates, st.floats(0.001, 0.5), st.floats(0.001, 0.5))
def test_cases_needed_never_increases_with_the_drop(rate, a, b):
    small, large = sorted((a, b))
    assert cases_needed(rate, large) <= cases_needed(rate, small)


def test_drop_too_small_to_count_is_refused_naming_drop():
    with pytest.raises(ValueError, match=r"^drop is too small .*1e-200"):
        cases_needed(0.5, 1e-200)


# --------------------------------------------------------------------------- shapes
def test_scalars_give_python_numbers():
    assert type(minimum_detectable_drop(0.9, 100)) is float
    assert type(minimum_detectable_drop(np.float64(0.9), np.int64(100))) is float
    assert type(cases_needed(0.9, 0.05)) is int
    assert type(cases_needed(np.float64(0.9), np.float64(0.05))) is int


def test_arrays_broadcast_against_each_other():
    drops = minimum_detectable_drop(np.array([[0.5], [0.9]]), np.array([100, 400, 1600]))
    assert drops.shape == (2, 3)
    np.testing.assert_allclose(drops[1], [reference_drop(0.9, m) for m in (100, 400, 1600)], rtol=1e-12)
    needed = cases_needed(0.9, [0.05, 0.1], trials=[[1], [5]], icc=0.25)
    assert needed.dtype == np.int64 and needed.shape == (2, 2)
    assert needed[0].tolist() == [566, 142]


def test_series_in_series_out_with_the_same_index():
    index = pd.Index(["pii", "cost"], name="dimension")
    drops = minimum_detectable_drop(pd.Series([0.9, 0.5], index=index, name="rate"), 100)
    assert isinstance(drops, pd.Series) and drops.index.equals(index) and drops.name == "rate"
    assert drops["pii"] == pytest.approx(0.11886119434798037, **TOL)
    needed = cases_needed(0.9, pd.Series([0.05, 0.1], index=index))
    assert isinstance(needed, pd.Series) and needed.index.equals(index)
    assert needed.dtype == np.int64 and needed.tolist() == [566, 142]


def test_series_with_different_indexes_is_an_error():
    with pytest.raises(ValueError, match="different indexes"):
        minimum_detectable_drop(pd.Series([0.9, 0.5], index=["a", "b"]), pd.Series([100, 10], index=["b", "a"]))


def test_incompatible_shapes_name_the_arguments():
    with pytest.raises(ValueError, match=r"^rate, cases, .* incompatible shapes"):
        minimum_detectable_drop([0.9, 0.5], [100, 200, 300])


# --------------------------------------------------------------------------- validation
BAD_COMMON = [
    ("rate", 0, ValueError, r"^rate must be a number in \(0, 1\); got 0\.0$"),
    ("rate", 1.0, ValueError, r"^rate must be a number in \(0, 1\); got 1\.0$"),
    ("rate", 1.5, ValueError, r"^rate .*got 1\.5$"),
    ("rate", -0.1, ValueError, r"^rate .*got -0\.1$"),
    ("rate", float("nan"), ValueError, r"^rate .*got nan$"),
    ("rate", [0.5, 2.0], ValueError, r"^rate .*got 2\.0$"),
    ("rate", "0.9", TypeError, r"^rate .*'0\.9'"),
    ("rate", True, TypeError, r"^rate .*True"),
    ("rate", None, TypeError, r"^rate .*None"),
    ("trials", 0, ValueError, r"^trials must be a whole number >= 1; got 0\.0$"),
    ("trials", 2.5, ValueError, r"^trials .*got 2\.5$"),
    ("trials", "5", TypeError, r"^trials .*'5'"),
    ("icc", -0.1, ValueError, r"^icc must be a number in \[0, 1\]; got -0\.1$"),
    ("icc", 1.01, ValueError, r"^icc .*got 1\.01$"),
    ("icc", float("inf"), ValueError, r"^icc .*got inf$"),
    ("alpha", 0, ValueError, r"^alpha must be a number in \(0, 1\); got 0\.0$"),
    ("alpha", 1, ValueError, r"^alpha .*got 1\.0$"),
    ("power", 1, ValueError, r"^power must be a number in \(0, 1\); got 1\.0$"),
    ("power", False, TypeError, r"^power .*False"),
]


@pytest.mark.parametrize(
    ("name", "value", "error", "pattern"), BAD_COMMON, ids=[f"{b[0]}={b[1]!r}" for b in BAD_COMMON]
)
def test_invalid_arguments_are_rejected_naming_the_argument_and_value(name, value, error, pattern):
    drop_args = {"rate": 0.9, "cases": 100, name: value} if name == "rate" else {"rate": 0.9, "cases": 100}
    kwargs = {} if name == "rate" else {name: value}
    with pytest.raises(error, match=pattern):
        minimum_detectable_drop(drop_args["rate"], drop_args["cases"], **kwargs)
    with pytest.raises(error, match=pattern):
        cases_needed(drop_args["rate"], 0.05, **kwargs)


@pytest.mark.parametrize(
    ("cases", "error", "pattern"),
    [(0, ValueError, r"^cases must be a whole number >= 1; got 0\.0$"), (2.5, ValueError, r"^cases .*2\.5$"),
     (-3, ValueError, r"^cases .*-3\.0$"), (float("inf"), ValueError, r"^cases .*inf$"),
     ("100", TypeError, r"^cases .*'100'"), (True, TypeError, r"^cases .*True")],
)
def test_invalid_cases_are_rejected_naming_cases(cases, error, pattern):
    with pytest.raises(error, match=pattern):
        minimum_detectable_drop(0.9, cases)


@pytest.mark.parametrize(
    ("drop", "error", "pattern"),
    [(0, ValueError, r"^drop must be a number > 0; got 0\.0$"), (-0.1, ValueError, r"^drop .*-0\.1$"),
     (float("inf"), ValueError, r"^drop .*inf$"), (float("nan"), ValueError, r"^drop .*nan$"),
     ("0.05", TypeError, r"^drop .*'0\.05'")],
)
def test_invalid_drop_is_rejected_naming_drop(drop, error, pattern):
    with pytest.raises(error, match=pattern):
        cases_needed(0.9, drop)


@pytest.mark.parametrize(("alpha", "power"), [(0.5, 0.5), (0.9, 0.8), (0.2, [0.8, 0.1])])
def test_power_not_above_alpha_is_refused_naming_both(alpha, power):
    # z₁₋α + z_power ≤ 0 would make the "detectable drop" zero or negative.
    with pytest.raises(ValueError, match=r"^power must be greater than alpha; got power=.*, alpha="):
        minimum_detectable_drop(0.9, 100, alpha=alpha, power=power)
    with pytest.raises(ValueError, match=r"^power must be greater than alpha"):
        cases_needed(0.9, 0.05, alpha=alpha, power=power)


def test_whole_numbers_given_as_floats_are_accepted():
    assert minimum_detectable_drop(0.9, 100.0, trials=1.0) == minimum_detectable_drop(0.9, 100)


# --------------------------------------------------------------------------- dimension mde
def test_dimension_mde_uses_the_shrunk_rate_and_the_effective_size():
    from scipy.stats import norm

    passes, n, deff = 98, 100, 2.5
    rate = (passes + 2) / (n + 4)
    expected = (norm.ppf(0.975) + norm.ppf(0.8)) * math.sqrt(2 * rate * (1 - rate) / (n / deff))
    assert dimension_mde(passes, n, deff) == pytest.approx(expected, **TOL)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("comparisons", [1, 3, 8])
def test_dimension_mde_is_the_detectable_drop_at_the_one_sided_level_over_the_comparisons(confidence, comparisons):
    from scipy.stats import norm

    passes = np.array([0, 3, 50, 100, 999])
    n = np.array([1, 10, 100, 100, 1000])
    rate = (passes + 2) / (n + 4)
    alpha = (1 - confidence) / 2 / comparisons  # SPEC §6, §18: Holm's first step
    expected = (norm.ppf(1 - alpha) + norm.ppf(0.8)) * np.sqrt(2 * rate * (1 - rate) / n)
    got = dimension_mde(passes, n, np.ones(5), confidence, comparisons=comparisons)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_dimension_mde_holm_level_matches_statsmodels_power():
    # 8 dimensions compared: alpha 0.025 / 8 per one-sided test; n/deff = 150 effective trials per side.
    rate = (120 + 2) / (150 + 4)
    drop = dimension_mde(120, 150, 1.0, comparisons=8)
    assert statsmodels_power(drop, rate, 150, 0.025 / 8) == pytest.approx(0.8, **TOL)
    assert statsmodels_power(drop, rate, 150, 0.025) > 0.9  # the unadjusted level would promise more


def test_dimension_mde_grows_with_the_square_root_of_deff():
    base = dimension_mde(40, 60, 1.0)
    for deff in (1.5, 4.0, 60.0):
        assert dimension_mde(40, 60, deff) == pytest.approx(base * math.sqrt(deff), **TOL)


def test_dimension_mde_of_a_perfect_record_is_finite_and_positive():
    value = dimension_mde(200, 200, 1.0)
    assert 0 < value < 1


def test_dimension_mde_is_nan_where_n_is_zero():
    out = dimension_mde([0, 5], [0, 10], [float("nan"), 1.2])
    assert math.isnan(out[0]) and not math.isnan(out[1])
    assert math.isnan(dimension_mde(0, 0, float("nan")))


def test_dimension_mde_from_the_grouped_cluster_interval():
    c = np.array([3, 2, 5, 3, 4, 0, 2])
    n = np.array([3, 3, 5, 5, 5, 5, 5])
    group = np.array([0, 0, 1, 1, 1, 1, 1])
    _, _, deff = cluster_interval_grouped(c, n, group, ngroups=3)
    passes = np.bincount(group, weights=c, minlength=3)
    total = np.bincount(group, weights=n, minlength=3)
    mde = dimension_mde(passes, total, deff)
    assert mde[0] == pytest.approx(dimension_mde(5, 6, 1.2), **TOL)
    assert mde[1] == pytest.approx(dimension_mde(14, 25, 3.0032467532467533), **TOL)
    assert math.isnan(mde[2])


def test_dimension_mde_series_in_series_out():
    index = pd.Index(["pii", "cost"], name="dimension")
    out = dimension_mde(pd.Series([98, 0], index=index), pd.Series([100, 0], index=index), 1.0)
    assert isinstance(out, pd.Series) and out.index.equals(index)


@pytest.mark.parametrize(
    ("deff", "pattern"),
    [(0.5, r"^deff must be a number >= 1 where n > 0; got 0\.5$"), (float("nan"), r"^deff .*got nan$"),
     (float("inf"), r"^deff .*got inf$")],
)
def test_dimension_mde_refuses_a_deff_below_one_where_there_is_evidence(deff, pattern):
    with pytest.raises(ValueError, match=pattern):
        dimension_mde(5, 10, deff)


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: dimension_mde(11, 10, 1.0), ValueError, r"^passes must not exceed n"),
        (lambda: dimension_mde(-1, 10, 1.0), ValueError, r"^passes must .*-1"),
        (lambda: dimension_mde(5, 10.5, 1.0), ValueError, r"^n must .*10\.5"),
        (lambda: dimension_mde(5, 10, "1"), TypeError, r"^deff must"),
        (lambda: dimension_mde(5, 10, 1.0, confidence=1.0), ValueError, r"^confidence .*got 1\.0"),
        (lambda: dimension_mde(5, 10, 1.0, confidence=0.1, power=0.4), ValueError,
         r"^power must be greater than alpha; got power=0\.4, alpha=0\.45"),
        (lambda: dimension_mde(5, 10, 1.0, power=1.0), ValueError, r"^power must be a number in \(0, 1\)"),
        (lambda: dimension_mde(5, 10, 1.0, comparisons=0), ValueError, r"^comparisons must be an integer >= 1; got 0$"),
        (lambda: dimension_mde(5, 10, 1.0, comparisons=2.0), TypeError,
         r"^comparisons must be an integer >= 1; got 2\.0"),
        (lambda: dimension_mde(5, 10, 1.0, comparisons=True), TypeError, r"^comparisons .*True"),
    ],
    ids=["passes>n", "negative-passes", "fractional-n", "str-deff", "confidence", "power<=alpha", "power",
         "comparisons-0", "comparisons-float", "comparisons-bool"],
)
def test_dimension_mde_arguments_are_validated(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


# --------------------------------------------------------------------------- public names, import cost
def test_public_names_are_the_stats_functions():
    assert sk.minimum_detectable_drop is minimum_detectable_drop
    assert sk.cases_needed is cases_needed
    assert {"minimum_detectable_drop", "cases_needed", "cluster_interval"} <= set(sk.__all__)


def test_cluster_and_power_functions_need_no_scipy():
    code = (
        "import json, sys\n"
        "import scorekit as sk\n"
        "from scorekit import _stats\n"
        # single-trial cases or one case per group: z, not t (repeated trials need scipy's t, SPEC §6)
        "sk.cluster_interval([1, 0], [1, 1]); _stats.cluster_interval_grouped([3, 2], [3, 3], [0, 1])\n"
        "sk.minimum_detectable_drop(0.9, [100, 200], alpha=[0.05, 0.1]); sk.cases_needed(0.9, 0.05)\n"
        "_stats.dimension_mde(5, 10, 1.2)\n"
        "print(json.dumps('scipy' in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout.strip().splitlines()[-1]) is False


def test_dimension_mde_alpha_replaces_the_one_sided_level_and_is_still_split_over_the_comparisons():
    assert dimension_mde(45, 50, 1.5, alpha=0.025) == dimension_mde(45, 50, 1.5)
    assert dimension_mde(45, 50, 1.5, alpha=0.05) == dimension_mde(45, 50, 1.5, confidence=0.9)
    # A scorecard written before issue 26 stored its mde at alpha = 1 − confidence.
    assert dimension_mde(45, 50, 1.5, alpha=0.05) == pytest.approx(
        minimum_detectable_drop(47 / 54, 45, alpha=0.05) * math.sqrt(45 / (50 / 1.5)), **TOL)
    rate = 47 / 54
    drop = dimension_mde(45, 50, 1.5, alpha=0.05, comparisons=4)
    assert statsmodels_power(drop, rate, 50 / 1.5, 0.05 / 4) == pytest.approx(0.8, **TOL)


@pytest.mark.parametrize(("alpha", "error", "pattern"),
                         [(1, ValueError, r"^alpha must be a finite number in \(0, 1\); got 1$"),
                          (0, ValueError, r"^alpha must .*got 0$"), ("0.05", TypeError, r"^alpha must"),
                          (True, TypeError, r"^alpha .*True")])
def test_dimension_mde_alpha_is_validated_naming_alpha(alpha, error, pattern):
    with pytest.raises(error, match=pattern):
        dimension_mde(45, 50, 1.5, alpha=alpha)
    with pytest.raises(ValueError, match=r"^confidence"):
        dimension_mde(45, 50, 1.5, confidence=1.5, alpha=0.05)
