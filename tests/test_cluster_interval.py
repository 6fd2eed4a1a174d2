"""scorekit._stats.cluster_interval(_grouped): the case-clustered interval of SPEC §6."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from shared import counts

import scorekit as sk
from scorekit._stats import _wilson_bounds, cluster_interval, cluster_interval_grouped, pass_k_interval, wilson_interval

TOL = dict(rel=1e-12, abs=1e-12)

# SPEC §6 (revised, issue 26): c per case / n per case -> deff, low, high; t quantile where trials repeat.
SPEC_REFERENCE = [
    (([3, 2], [3, 3]), (1.2, 0.020878541018929664, 0.9991477769115211)),
    (([10, 0, 10, 0], [10, 10, 10, 10]), (10.0, 0.07665806359333394, 0.9233419364066661)),
    (([5, 3, 4, 0, 2], [5, 5, 5, 5, 5]), (3.0032467532467533, 0.18575189996165636, 0.8765521404067125)),
    (([2, 1, 3], [2, 2, 4]), (1.0, 0.17369341288932938, 0.9771769933002258)),
]
SPEC_IDS = [f"{c}/{n}" for (c, n), _ in SPEC_REFERENCE]


# --------------------------------------------------------------------------- independent reference
def reference_cluster(c, n, confidence=0.95):
    """SPEC §6 from its definition: plain Python loops, Wilson by hand with scipy's quantiles.

    The quantile is scipy.stats.t.ppf with m − 1 degrees of freedom when some case
    has more than one measured trial and m ≥ 2, else scipy.stats.norm.ppf. The
    Wilson bounds use the textbook closed form
    (2Np + z² ± z·√(z² + 4Np(1−p))) / (2(N + z²)), not scorekit's arrangement.
    """
    from scipy.stats import norm, t

    cases = [(int(ci), int(ni)) for ci, ni in zip(c, n, strict=True) if ni >= 1]
    m = len(cases)
    total = 0
    passes = 0
    squares = 0
    for ci, ni in cases:
        total += ni
        passes += ci
        squares += ni * ni
    if total == 0:
        return math.nan, math.nan, math.nan
    p = passes / total
    ceiling = squares / total
    if m == 1:
        deff = float(total)
    elif passes in (0, total):
        deff = ceiling
    else:
        spread = 0.0
        for ci, ni in cases:
            spread += (ci - p * ni) ** 2
        deff = min(max(m / (m - 1) * spread / (total * p * (1 - p)), 1.0), ceiling)
    repeated = any(ni > 1 for _, ni in cases)
    if repeated and m >= 2:
        z = t.ppf(1 - (1 - confidence) / 2, m - 1)
    else:
        z = norm.ppf(1 - (1 - confidence) / 2)
    size = total / deff
    root = z * math.sqrt(z * z + 4 * size * p * (1 - p))
    low = (2 * size * p + z * z - root) / (2 * (size + z * z))
    high = (2 * size * p + z * z + root) / (2 * (size + z * z))
    low = 0.0 if passes == 0 else min(max(low, 0.0), 1.0)
    high = 1.0 if passes == total else min(max(high, 0.0), 1.0)
    return low, high, deff


def scipy_t_quantile(p, dof):
    from scipy.stats import t

    return float(t.ppf(p, dof))


def case_lists(max_cases=12, max_n=8, min_n=0):
    """Per-case (c, n) lists, as two lists."""
    return st.lists(counts(max_n=max_n, min_n=min_n), min_size=1, max_size=max_cases).map(
        lambda pairs: ([p[0] for p in pairs], [p[1] for p in pairs])
    )


# --------------------------------------------------------------------------- SPEC reference values
@pytest.mark.parametrize(("cases", "expected"), SPEC_REFERENCE, ids=SPEC_IDS)
def test_cluster_interval_matches_spec_reference_values(cases, expected):
    low, high, deff = cluster_interval(*cases)
    assert deff == pytest.approx(expected[0], **TOL)
    assert low == pytest.approx(expected[1], **TOL)
    assert high == pytest.approx(expected[2], **TOL)


@pytest.mark.parametrize(("cases", "expected"), SPEC_REFERENCE, ids=SPEC_IDS)
def test_spec_reference_values_match_the_independent_computation(cases, expected):
    # Guards the reference implementation itself against the SPEC numbers.
    low, high, deff = reference_cluster(*cases)
    assert (deff, low, high) == pytest.approx(expected, **TOL)


def test_spec_reference_values_in_one_grouped_call():
    c = [v for (cs, _), _ in SPEC_REFERENCE for v in cs]
    n = [v for (_, ns), _ in SPEC_REFERENCE for v in ns]
    group = [g for g, ((cs, _), _) in enumerate(SPEC_REFERENCE) for _ in cs]
    low, high, deff = cluster_interval_grouped(c, n, group)
    np.testing.assert_allclose(deff, [e[0] for _, e in SPEC_REFERENCE], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(low, [e[1] for _, e in SPEC_REFERENCE], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(high, [e[2] for _, e in SPEC_REFERENCE], rtol=1e-12, atol=1e-12)


@given(case_lists(), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_cluster_interval_matches_its_definition_computed_independently(cases, confidence):
    c, n = cases
    assume(sum(n) > 0)
    got = cluster_interval(c, n, confidence=confidence)
    assert got == pytest.approx(reference_cluster(c, n, confidence), **TOL)


# --------------------------------------------------------------------------- the rules one by one
def test_single_case_deff_is_its_trial_count():
    low, high, deff = cluster_interval([3], [5])
    assert deff == 5.0
    # Effective size 1: the Wilson interval of one trial at rate 0.6.
    ref_low, ref_high = _wilson_bounds(np.array(0.6), np.array(1.0), sk.z_value(0.95))
    assert (low, high) == (float(ref_low), float(ref_high))


def test_all_pass_or_all_fail_deff_is_the_ceiling_sum_n_squared_over_n():
    assert cluster_interval([4, 4, 4], [4, 4, 4])[2] == 4.0
    # Unequal trials: D = (2² + 3²) / 5 = 2.6, not 1, although the cases agree with each other.
    low, high, deff = cluster_interval([0, 0], [2, 3])
    assert deff == pytest.approx(13 / 5, **TOL)
    assert low == 0.0
    assert high == pytest.approx(reference_cluster([0, 0], [2, 3])[1], **TOL)


def test_deff_is_clamped_below_at_one_and_the_interval_is_then_wilson_with_the_t_quantile():
    # [2,1,3]/[2,2,4]: m/(m-1)·Σ(c - p̂n)² / (N p̂(1-p̂)) = 1.5·0.5/1.5 = 0.5 < 1.
    low, high, deff = cluster_interval([2, 1, 3], [2, 2, 4])
    assert deff == 1.0
    # The pooled size 8, but the t quantile of 2 degrees of freedom (3 cases), not z.
    t2 = scipy_t_quantile(0.975, 2)
    expected = _wilson_bounds(np.array(6 / 8), np.array(8.0), t2)
    assert (low, high) == (float(expected[0]), float(expected[1]))
    w_low, w_high = wilson_interval(6, 8)
    assert low < w_low and high > w_high


def test_deff_is_clamped_above_at_the_ceiling():
    # [10,0,10,0]/[10]*4: the estimate 4/3·100/10 = 13.3 exceeds D = 10.
    assert cluster_interval([10, 0, 10, 0], [10] * 4)[2] == 10.0


def test_effective_size_is_not_rounded():
    c, n = [5, 3, 4, 0, 2], [5, 5, 5, 5, 5]
    low, high, deff = cluster_interval(c, n)
    size = 25 / deff  # 8.32...
    z = scipy_t_quantile(0.975, 4)
    exact = _wilson_bounds(np.array(14 / 25), np.array(size), z)
    assert (low, high) == (float(exact[0]), float(exact[1]))
    for rounded in (math.floor(size), math.ceil(size), round(size)):
        other = _wilson_bounds(np.array(14 / 25), np.array(float(rounded)), z)
        assert abs(float(other[0]) - low) > 1e-4


def test_cases_without_a_measured_trial_are_ignored():
    # Counted as cases they would change m/(m-1) from 2 to 1.5 (and m = 1 would become m = 2).
    assert cluster_interval([3, 0, 2], [3, 0, 3]) == cluster_interval([3, 2], [3, 3])
    assert cluster_interval([0, 3], [0, 5]) == cluster_interval([3], [5])


@pytest.mark.parametrize(("c", "n"), [([], []), ([0], [0]), ([0, 0, 0], [0, 0, 0])], ids=["no-cases", "one", "three"])
def test_no_measured_trial_is_nan_not_zero(c, n):
    low, high, deff = cluster_interval(c, n)
    assert math.isnan(low) and math.isnan(high) and math.isnan(deff)


def test_same_z_as_wilson_at_each_confidence():
    for confidence in (0.5, 0.8, 0.9, 0.99, 0.999):
        low, high, deff = cluster_interval([1, 0, 1], [1, 1, 1], confidence=confidence)
        assert deff == 1.0
        assert (low, high) == wilson_interval(2, 3, confidence=confidence)


def test_cluster_interval_returns_plain_floats():
    assert all(type(v) is float for v in cluster_interval([3, 2], [3, 3]))
    assert all(type(v) is float for v in cluster_interval(np.array([3, 2]), np.array([3, 3])))


def test_cluster_interval_accepts_series_and_broadcasts_a_scalar_n():
    index = pd.Index(["a", "b"], name="case_id")
    from_series = cluster_interval(pd.Series([3, 2], index=index), pd.Series([3, 3], index=index))
    assert from_series == cluster_interval([3, 2], [3, 3])
    assert cluster_interval([3, 2], 3) == cluster_interval([3, 2], [3, 3])


def test_series_with_different_indexes_is_an_error():
    with pytest.raises(ValueError, match="different indexes"):
        cluster_interval(pd.Series([3, 2], index=["a", "b"]), pd.Series([3, 3], index=["b", "a"]))


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("c", "n", "pattern"),
    [
        ([1, -1], [2, 2], r"^c must .*-1"),
        ([1, 2.5], [2, 3], r"^c must .*2\.5"),
        ([1, float("nan")], [2, 2], r"^c must .*nan"),
        ([1, 1], [2, -2], r"^n must .*-2"),
        ([1, 1], [2, float("inf")], r"^n must .*inf"),
        ([3, 1], [2, 2], r"^c must not exceed n; got c=3, n=2"),
        ([1, 1], [2, 2, 2], r"^c and n have incompatible shapes"),
    ],
)
def test_invalid_counts_are_rejected_naming_the_parameter_and_value(c, n, pattern):
    with pytest.raises(ValueError, match=pattern):
        cluster_interval(c, n)
    with pytest.raises(ValueError, match=pattern):
        cluster_interval_grouped(c, n, [0] * len(c))


@pytest.mark.parametrize("bad", [["1", "2"], "3", [None, 1]])
def test_non_numeric_counts_are_rejected(bad):
    with pytest.raises(TypeError, match=r"^c must"):
        cluster_interval(bad, [3, 3])


@pytest.mark.parametrize(("c", "n"), [(3, 5), ([[1, 2], [3, 4]], [[4, 4], [4, 4]])], ids=["scalars", "2-d"])
def test_per_case_arrays_must_be_one_dimensional(c, n):
    with pytest.raises(ValueError, match=r"one-dimensional.*got shape"):
        cluster_interval(c, n)


@pytest.mark.parametrize(
    ("confidence", "pattern"),
    [(0, r"^confidence .*got 0$"), (1, r"^confidence .*got 1$"), (1.5, r"^confidence .*1\.5"), ("0.95", r"^confidence"),
     (True, r"^confidence .*True"), (float("nan"), r"^confidence .*nan"), (None, r"^confidence .*None")],
)
def test_invalid_confidence_is_rejected_naming_confidence(confidence, pattern):
    with pytest.raises((TypeError, ValueError), match=pattern):
        cluster_interval([3, 2], [3, 3], confidence=confidence)
    with pytest.raises((TypeError, ValueError), match=pattern):
        cluster_interval_grouped([3, 2], [3, 3], [0, 0], confidence=confidence)


@pytest.mark.parametrize(
    ("group", "kwargs", "error", "pattern"),
    [
        ([0.0, 1.0], {}, TypeError, r"^group must be integer group codes; got dtype float64"),
        (["a", "b"], {}, TypeError, r"^group must be integer"),
        ([True, False], {}, TypeError, r"^group must be integer"),
        ([0, -1], {}, ValueError, r"^group codes must be non-negative; got -1"),
        ([0], {}, ValueError, r"^group must be one code per case \(2 cases\); got shape \(1,\)"),
        ([0, 2], {"ngroups": 2}, ValueError, r"^ngroups must exceed every group code; got ngroups=2, code 2"),
        ([0, 1], {"ngroups": 2.0}, TypeError, r"^ngroups must be a non-negative integer; got 2\.0"),
        ([0, 1], {"ngroups": True}, TypeError, r"^ngroups .*True"),
    ],
)
def test_invalid_group_codes_are_rejected_naming_group(group, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        cluster_interval_grouped([3, 2], [3, 3], group, **kwargs)


def test_group_codes_may_be_a_nullable_integer_series_without_missing_values():
    low, _, deff = cluster_interval_grouped([3, 2], [3, 3], pd.Series([0, 0], dtype="Int64"))
    assert deff.tolist() == [cluster_interval([3, 2], [3, 3])[2]]
    with pytest.raises(TypeError, match="^group"):
        cluster_interval_grouped([3, 2], [3, 3], pd.Series([0, None], dtype="Int64"))


# --------------------------------------------------------------------------- grouped form
def test_grouped_groups_without_a_measured_case_are_nan():
    low, high, deff = cluster_interval_grouped([3, 2, 0], [3, 3, 0], [0, 0, 2], ngroups=4)
    assert deff[0] == pytest.approx(1.2, **TOL)
    for values in (low, high, deff):
        assert values.shape == (4,)
        assert np.isnan(values[1:]).all()


def test_grouped_empty_input():
    low, high, deff = cluster_interval_grouped([], [], [], ngroups=3)
    assert low.shape == high.shape == deff.shape == (3,)
    assert np.isnan(low).all() and np.isnan(high).all() and np.isnan(deff).all()
    assert cluster_interval_grouped([], [], [])[2].shape == (0,)


@st.composite
def grouped_cases(draw):
    """Several groups of per-case counts, their entries interleaved in a random order."""
    groups = draw(st.lists(case_lists(max_cases=8), min_size=1, max_size=5))
    entries = [(g, ci, ni) for g, (cs, ns) in enumerate(groups) for ci, ni in zip(cs, ns, strict=True)]
    return draw(st.permutations(entries)), len(groups)


@given(grouped_cases())
def test_grouped_equals_per_group_scalar_calls_exactly(data):
    entries, ngroups = data
    group = np.array([e[0] for e in entries])
    c = np.array([e[1] for e in entries])
    n = np.array([e[2] for e in entries])
    low, high, deff = cluster_interval_grouped(c, n, group, ngroups=ngroups)
    for g in range(ngroups):
        mine = group == g  # this group's entries, in input order
        expected = cluster_interval(c[mine], n[mine])
        np.testing.assert_array_equal([low[g], high[g], deff[g]], expected)


@given(case_lists(max_cases=10), st.randoms(use_true_random=False))
def test_order_of_cases_changes_the_result_by_rounding_only(cases, random):
    c, n = cases
    assume(sum(n) > 0)
    order = list(range(len(c)))
    random.shuffle(order)
    first = cluster_interval(c, n)
    second = cluster_interval([c[i] for i in order], [n[i] for i in order])
    assert second == pytest.approx(first, rel=1e-13, abs=1e-15)


@given(grouped_cases())
def test_interleaving_other_groups_never_changes_a_groups_floats(data):
    entries, ngroups = data
    by_group = sorted(entries, key=lambda e: e[0])  # stable: keeps each group's own order
    results = []
    for order in (entries, by_group):
        arrays = [np.array([e[i] for e in order]) for i in (1, 2, 0)]
        results.append(cluster_interval_grouped(*arrays, ngroups=ngroups))
    for a, b in zip(*results, strict=True):
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------- properties
@given(case_lists(max_n=10))
def test_wilson_interval_lies_within_the_clustered_interval_whenever_a_case_repeats(cases):
    c, n = cases
    assume(max(n) >= 2)
    low, high, deff = cluster_interval(c, n)
    w_low, w_high = wilson_interval(sum(c), sum(n))
    assert deff >= 1.0
    assert low <= w_low + 1e-12
    assert high >= w_high - 1e-12


@given(st.lists(st.integers(0, 1), min_size=1, max_size=40))
def test_one_trial_per_case_gives_deff_one_and_exactly_the_wilson_interval(passes):
    low, high, deff = cluster_interval(passes, [1] * len(passes))
    assert deff == 1.0
    assert (low, high) == wilson_interval(sum(passes), len(passes))


@given(case_lists(max_n=12))
def test_deff_lies_between_one_and_the_ceiling(cases):
    c, n = cases
    total = sum(n)
    assume(total > 0)
    deff = cluster_interval(c, n)[2]
    assert 1.0 <= deff <= sum(v * v for v in n) / total


@given(case_lists(max_cases=8, max_n=6, min_n=1), st.sampled_from([0.8, 0.95, 0.99]))
def test_clustered_interval_narrows_as_the_case_list_is_replicated(cases, confidence):
    c, n = cases
    previous = None
    for k in (1, 2, 3, 5, 8):
        low, high, deff = cluster_interval(c * k, n * k, confidence=confidence)
        # From one case to two the quantile changes from z to t with 1 degree of
        # freedom (SPEC §6): the narrowing holds once there are two cases to compare.
        if previous is not None and (len(c) > 1 or max(n) == 1):
            p_low, p_high, p_deff = previous
            assert deff <= p_deff + 1e-12
            assert low >= p_low - 1e-12
            assert high <= p_high + 1e-12
        previous = (low, high, deff)


@given(case_lists(max_n=10))
def test_clustered_interval_contains_the_pooled_rate_within_the_unit_interval(cases):
    c, n = cases
    assume(sum(n) > 0)
    low, high, _ = cluster_interval(c, n)
    assert 0.0 <= low <= sum(c) / sum(n) <= high <= 1.0


# --------------------------------------------------------------------------- simulation (issue 12)
@pytest.mark.timeout(120)
def test_clustered_interval_keeps_nominal_coverage_where_pooled_wilson_falls_short():
    """50 cases with pass probability ~ Beta(2, 1), 5 trials each, 2,000 replications.

    The true mean rate is 2/3. Trials of one case are correlated (ICC = 1/4,
    design effect 2), so the pooled Wilson interval is too narrow.
    """
    rng = np.random.default_rng(12)
    replications, n_cases, trials = 2000, 50, 5
    probability = rng.beta(2.0, 1.0, size=(replications, n_cases))
    c = rng.binomial(trials, probability)
    n = np.full_like(c, trials)
    group = np.repeat(np.arange(replications), n_cases)
    low, high, deff = cluster_interval_grouped(c.ravel(), n.ravel(), group, ngroups=replications)
    w_low, w_high = wilson_interval(c.sum(axis=1), n.sum(axis=1))
    truth = 2.0 / 3.0
    clustered = float(np.mean((low <= truth) & (truth <= high)))
    pooled = float(np.mean((w_low <= truth) & (truth <= w_high)))
    print(f"coverage of 2/3: clustered {clustered:.4f}, pooled Wilson {pooled:.4f}, median deff {np.median(deff):.3f}")
    assert clustered >= 0.93
    assert pooled <= 0.88


def test_public_name_is_the_stats_function():
    assert sk.cluster_interval is cluster_interval
    assert "cluster_interval" in sk.__all__


# --------------------------------------------------------------------------- the quantile (SPEC §6, issue 26)
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_quantile_is_t_with_m_minus_one_degrees_of_freedom_when_a_case_repeats(confidence):
    # One case with two trials among single-trial cases is enough to switch to t (4 cases: 3 dof).
    c, n = [1, 0, 1, 1], [2, 1, 1, 1]
    low, high, deff = cluster_interval(c, n, confidence=confidence)
    quantile = scipy_t_quantile(1 - (1 - confidence) / 2, 3)
    expected = _wilson_bounds(np.array(3 / 5), np.array(5 / deff), quantile)
    assert (low, high) == pytest.approx((float(expected[0]), float(expected[1])), **TOL)


def test_quantile_is_chosen_per_group_in_one_grouped_call():
    # Group 0: single trials (z, equals Wilson); group 1: one case (z, deff = N);
    # group 2: 2 cases x 3 trials (t, 1 dof).
    c = [1, 0, 1, 2, 3, 1]
    n = [1, 1, 1, 3, 3, 3]
    group = [0, 0, 0, 1, 2, 2]
    low, high, deff = cluster_interval_grouped(c, n, group)
    assert (low[0], high[0]) == wilson_interval(2, 3)
    assert (low[1], high[1], deff[1]) == cluster_interval([2], [3])
    assert (low[2], high[2], deff[2]) == pytest.approx(reference_cluster([3, 1], [3, 3]), **TOL)
    z_bounds = _wilson_bounds(np.array(4 / 6), np.array(6 / deff[2]), sk.z_value(0.95))
    assert low[2] < float(z_bounds[0]) and high[2] > float(z_bounds[1])


def test_single_trial_cases_need_no_scipy_but_repeated_trials_import_it():
    import json
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "import scorekit as sk\n"
        "from scorekit import _stats\n"
        "sk.cluster_interval([3], [5]); _stats.cluster_interval_grouped([1, 0, 1], [1, 1, 1], [0, 0, 1])\n"
        "before = 'scipy' in sys.modules\n"
        "sk.cluster_interval([3, 2], [3, 3])\n"
        "print(json.dumps([before, 'scipy' in sys.modules]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [False, True]


@pytest.mark.timeout(120)
def test_t_quantile_keeps_nominal_coverage_at_five_cases_of_five_trials():
    """5 cases × 5 trials, case rates ~ Beta(1, 1) (true mean 1/2), 4,000 replications.

    The between-case variance behind deff comes from 5 cases: with z the interval
    covers about 92% here; with t (4 dof) at least 95%. Monte-Carlo standard
    error of a coverage near 0.95 at 4,000 replications: about 0.0035.
    """
    rng = np.random.default_rng(26)
    replications, n_cases, trials = 4000, 5, 5
    c = rng.binomial(trials, rng.beta(1.0, 1.0, size=(replications, n_cases)))
    n = np.full_like(c, trials)
    group = np.repeat(np.arange(replications), n_cases)
    low, high, deff = cluster_interval_grouped(c.ravel(), n.ravel(), group, ngroups=replications)
    covered = float(np.mean((low <= 0.5) & (0.5 <= high)))
    z_low, z_high = _wilson_bounds(c.sum(axis=1) / n.sum(axis=1), n.sum(axis=1) / deff, sk.z_value(0.95))
    with_z = float(np.mean((z_low <= 0.5) & (0.5 <= z_high)))
    print(f"coverage of 1/2 at 5 cases x 5 trials: t {covered:.4f}, z {with_z:.4f}")
    assert covered >= 0.95 - 3 * 0.0035
    assert with_z < 0.94


# --------------------------------------------------------------------------- weights and the fold
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=60),
       st.randoms(use_true_random=False))
def test_cases_in_any_order_or_as_a_histogram_give_the_same_bits(entries, rnd):
    """The per-case sums run over the fold of the cases, so the order and the form (one entry per case,
    or each distinct (group, c, n) once with its number of cases) change no bit."""
    group = np.array([g for g, _, _ in entries])
    n = np.array([b for _, _, b in entries])
    c = np.array([min(a, b) for _, a, b in entries])
    shuffled = list(range(len(entries)))
    rnd.shuffle(shuffled)
    keys, weights = np.unique(np.column_stack([group, c, n]), axis=0, return_counts=True)
    for args, extra in (((c[shuffled], n[shuffled], group[shuffled]), {}),
                        ((keys[:, 1], keys[:, 2], keys[:, 0]), {"weights": weights})):
        got = cluster_interval_grouped(*args, ngroups=4, **extra)
        want = cluster_interval_grouped(c, n, group, ngroups=4)
        np.testing.assert_array_equal(np.array(got), np.array(want))
        for k in (1, 2, 3):
            np.testing.assert_array_equal(np.array(pass_k_interval(args[0], args[1], k, args[2], ngroups=4, **extra)),
                                          np.array(pass_k_interval(c, n, k, group, ngroups=4)))


def test_weights_are_checked_and_named():
    c, n, g = [1, 3, 0], [3, 3, 3], [0, 0, 0]
    for bad, message in (([1, 0, 1], "weights must be integers >= 1"), ([1, -1, 1], "weights must be integers >= 1"),
                         ([1, 1.5, 1], "weights must be integers >= 1"), ([1, 1], "one count per entry")):
        with pytest.raises(ValueError, match=message):
            cluster_interval_grouped(c, n, g, weights=bad)
    with pytest.raises(TypeError, match="weights must be integers >= 1"):
        cluster_interval_grouped(c, n, g, weights=[True, True, True])
    with pytest.raises(TypeError, match="weights must be integers >= 1"):
        cluster_interval_grouped(c, n, g, weights=["1", "1", "1"])
    index = pd.Index(["x", "y", "z"])
    with pytest.raises(ValueError, match="c and weights are pandas objects with different indexes"):
        cluster_interval_grouped(pd.Series(c, index=index), pd.Series(n, index=index), g,
                                 weights=pd.Series([1, 1, 4], index=index[::-1]))
    with pytest.raises(ValueError, match="c and weights are pandas objects with different indexes"):
        pass_k_interval(pd.Series(c, index=index), pd.Series(n, index=index), 2, g,
                           weights=pd.Series([1, 1, 4], index=index[::-1]))
