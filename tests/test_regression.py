"""Regression statistics (SPEC §10, §18): the Newcombe interval, the three methods, their p-values, Holm."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit._regression import METHODS, newcombe_interval, regressions
from scorekit._stats import wilson_interval

# Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10 (score,
# no continuity correction): (m, n) = first sample, (k, l) = second sample, and
# the interval for p_first − p_second, to 4 decimals.
NEWCOMBE_TABLE_II = [
    ((56, 70), (48, 80), (0.0524, 0.3339)),
    ((9, 10), (3, 10), (0.1705, 0.8090)),
    ((6, 7), (2, 7), (0.0582, 0.8062)),
    ((5, 56), (0, 29), (-0.0381, 0.1926)),
    ((0, 10), (0, 20), (-0.1611, 0.2775)),
    ((10, 10), (0, 20), (0.6791, 1.0000)),
    ((10, 10), (0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize(("first", "second", "expected"), NEWCOMBE_TABLE_II)
def test_newcombe_matches_published_table(first, second, expected):
    # newcombe_interval(c1, n1, c2, n2) is for p2 − p1: the paper's first sample is ours second.
    low, high = newcombe_interval(second[0], second[1], first[0], first[1])
    assert (round(low, 4), round(high, 4)) == expected
    assert isinstance(low, float) and isinstance(high, float)


def test_newcombe_matches_statsmodels_grid():
    sm = pytest.importorskip("statsmodels.stats.proportion")
    cases = [(c1, n1, c2, n2) for n1, n2 in [(1, 1), (3, 7), (10, 10), (20, 13), (100, 250)]
             for c1 in sorted({0, 1, n1 // 2, n1 - 1, n1} - {-1}) for c2 in sorted({0, n2 // 3, n2})
             if 0 <= c1 <= n1]
    c1, n1, c2, n2 = (np.array(x) for x in zip(*cases, strict=True))
    for confidence in (0.95, 0.9, 0.99):
        low, high = newcombe_interval(c1, n1, c2, n2, confidence=confidence)
        for i, (a, b, c, d) in enumerate(cases):
            ref_low, ref_high = sm.confint_proportions_2indep(
                c, d, a, b, method="newcomb", compare="diff", alpha=1 - confidence
            )
            assert low[i] == pytest.approx(float(ref_low), abs=1e-10), (cases[i], confidence)
            assert high[i] == pytest.approx(float(ref_high), abs=1e-10), (cases[i], confidence)


def test_newcombe_is_built_from_the_two_wilson_intervals():
    l1, u1 = wilson_interval(30, 40)
    l2, u2 = wilson_interval(12, 20)
    p1, p2 = 30 / 40, 12 / 20
    low, high = newcombe_interval(30, 40, 12, 20)
    assert low == pytest.approx(p2 - p1 - math.hypot(p2 - l2, u1 - p1), abs=1e-15)
    assert high == pytest.approx(p2 - p1 + math.hypot(u2 - p2, p1 - l1), abs=1e-15)
    # Swapping the samples mirrors the interval.
    low_r, high_r = newcombe_interval(12, 20, 30, 40)
    assert (low_r, high_r) == pytest.approx((-high, -low), abs=1e-15)


def test_newcombe_no_evidence_is_nan_and_shapes_follow_input():
    low, high = newcombe_interval([0, 5, 3], [0, 10, 3], [1, 0, 2], [2, 0, 4])
    assert np.isnan(low[0]) and np.isnan(high[1])
    assert np.isfinite(low[2]) and low.shape == (3,)
    idx = pd.Index(["a", "b"], name="dimension")
    low_s, _ = newcombe_interval(pd.Series([3, 4], index=idx), pd.Series([5, 5], index=idx), 1, 5)
    assert isinstance(low_s, pd.Series) and list(low_s.index) == ["a", "b"]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((6, 5, 1, 2), ValueError),
        ((1, 2, -1, 2), ValueError),
        (("1", 2, 1, 2), TypeError),
        ((1.5, 2, 1, 2), ValueError),
    ],
)
def test_newcombe_rejects_bad_counts(args, error):
    with pytest.raises(error):
        newcombe_interval(*args)


def test_newcombe_rejects_bad_confidence():
    with pytest.raises(ValueError):
        newcombe_interval(1, 2, 1, 2, confidence=1.0)


def _dims(**counts: tuple[int, int]) -> pd.DataFrame:
    """Dimension frame from name=(passes, n)."""
    return pd.DataFrame(
        {"passes": [c[0] for c in counts.values()], "n": [c[1] for c in counts.values()]},
        index=pd.Index(list(counts), name="name"),
    )


def _one(entries, name):
    (entry,) = [e for e in entries if e["dimension"] == name]
    return entry


def test_newcombe_method_and_max_drop():
    base, cand = _dims(a=(95, 100)), _dims(a=(80, 100))
    low, high = newcombe_interval(95, 100, 80, 100)
    assert high < 0  # the whole interval is below zero
    e = regressions(base, cand, "newcombe", max_drop=0.0)[0]
    assert e["regressed"] and e["ci_high"] == pytest.approx(high, abs=1e-15) and e["limit"] == 0.0
    assert e["method_used"] == "newcombe" and e["controlled"] and e["p_value"] < 0.025
    # One dimension: regressed exactly when the interval at 1 − 2α lies wholly below −max_drop.
    assert regressions(base, cand, "newcombe", max_drop=-high - 1e-6)[0]["regressed"]
    assert not regressions(base, cand, "newcombe", max_drop=-high + 1e-6)[0]["regressed"]
    # A drop whose interval straddles zero is not a regression under newcombe.
    assert not regressions(_dims(a=(9, 10)), _dims(a=(7, 10)), "newcombe")[0]["regressed"]


def test_point_method_and_max_drop():
    base = _dims(a=(8, 10), b=(8, 10), c=(8, 10))
    cand = _dims(a=(7, 10), b=(8, 10), c=(6, 10))
    zero = {e["dimension"]: e["regressed"] for e in regressions(base, cand, "point", 0.0)}
    assert zero == {"a": True, "b": False, "c": True}
    # A drop of exactly max_drop is not a regression (0.8 − 0.7 is 0.10000000000000009 in floats).
    tenth = {e["dimension"]: e["regressed"] for e in regressions(base, cand, "point", 0.1)}
    assert tenth == {"a": False, "b": False, "c": True}
    assert not any(e["regressed"] for e in regressions(base, cand, "point", 0.25))


def test_undefined_rates_are_reported_never_regressions():
    base = _dims(a=(0, 0), b=(5, 5), c=(5, 5))
    cand = _dims(a=(0, 5), b=(0, 0))  # c absent from the candidate
    for method in METHODS:
        entries = {e["dimension"]: e for e in regressions(base, cand, method)}
        assert set(entries) == {"a", "b", "c"}
        for name in "abc":
            assert entries[name]["status"] == "undefined" and entries[name]["regressed"] is False
        assert entries["c"]["candidate"] == {"n": 0, "passes": 0, "rate": None, "ci_low": None, "ci_high": None}
        assert "baseline" in entries["a"]["rule"] and "candidate" in entries["b"]["rule"]


def test_counts_from_fails_column_and_scorecard_like_frames():
    base = pd.DataFrame({"passes": [10], "fails": [0], "errors": [3]}, index=["a"])
    cand = pd.DataFrame({"passes": [5], "fails": [5], "errors": [0]}, index=["a"])
    (entry,) = regressions(base, cand, "point")
    assert entry["baseline"]["n"] == 10 and entry["candidate"]["n"] == 10 and entry["regressed"]


def test_entries_are_json_ready():
    entries = regressions(_dims(a=(3, 4), z=(0, 0)), _dims(a=(1, 4)), "newcombe", 0.1, 0.9)
    json.dumps(entries, allow_nan=False)
    base, cand = _cases(a=[(3, 3), (1, 3)], z=[(0, 0)]), _cases(a=[(2, 3), (3, 3)], z=[(1, 1)])
    json.dumps(regressions(_pooled(base), _pooled(cand), baseline_cases=base, candidate_cases=cand), allow_nan=False)
    for entry in entries:
        for key in ("baseline", "candidate"):
            assert all(isinstance(entry[key][k], int) for k in ("n", "passes"))


def test_vectorised_equals_one_at_a_time():
    rng = np.random.default_rng(7)
    n_b, n_c = rng.integers(0, 30, 40), rng.integers(0, 30, 40)
    p_b, p_c = rng.integers(0, 31, 40) % (n_b + 1), rng.integers(0, 31, 40) % (n_c + 1)
    names = [f"d{i:02d}" for i in range(40)]
    base = pd.DataFrame({"passes": p_b, "n": n_b}, index=names)
    cand = pd.DataFrame({"passes": p_c, "n": n_c}, index=names)
    for method, drop in itertools.product(METHODS, (0.0, 0.05)):
        # Each dimension alone, without a multiplicity control, is what the vectorised call gives.
        together = regressions(base, cand, method, drop, multiplicity="none")
        alone = [regressions(base.iloc[[i]], cand.iloc[[i]], method, drop, multiplicity="none")[0]
                 for i in range(40)]
        assert together == alone


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"method": "wilson"}, ValueError),
        ({"method": "interval"}, ValueError),
        ({"multiplicity": "bonferroni"}, ValueError),
        ({"max_drop": -0.1}, ValueError),
        ({"max_drop": float("nan")}, ValueError),
        ({"max_drop": True}, TypeError),
        ({"confidence": 0.0}, ValueError),
    ],
)
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        regressions(_dims(a=(1, 2)), _dims(a=(1, 2)), **kwargs)


def test_bad_frames():
    with pytest.raises(ValueError):
        regressions(pd.DataFrame({"n": [1]}, index=["a"]), _dims(a=(1, 2)))
    with pytest.raises(ValueError):
        regressions(_dims(a=(3, 2)), _dims(a=(1, 2)))
    with pytest.raises(TypeError):
        regressions({"a": 1}, _dims(a=(1, 2)))


# --------------------------------------------------------------------------- per-case counts and paired
def _cases(**per_dimension: list[tuple[int, int]]) -> pd.DataFrame:
    """Case table from name=[(passes, n), ...]; case ids c00, c01, ... in each dimension."""
    rows = [(name, f"c{i:02d}", p, n) for name, cases in per_dimension.items() for i, (p, n) in enumerate(cases)]
    return pd.DataFrame(rows, columns=["dimension", "case_id", "passes", "n"])


def _pooled(cases: pd.DataFrame) -> pd.DataFrame:
    return cases.groupby("dimension")[["passes", "n"]].sum()


def _paired(base: pd.DataFrame, cand: pd.DataFrame, max_drop: float = 0.0, confidence: float = 0.95):
    return regressions(_pooled(base), _pooled(cand), "paired", max_drop, confidence,
                       baseline_cases=base, candidate_cases=cand)


def test_paired_t_interval_of_the_mean_per_case_difference():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    n_b, n_c = rng.integers(1, 6, 30), rng.integers(1, 6, 30)
    p_b, p_c = rng.integers(0, 6, 30) % (n_b + 1), rng.integers(0, 6, 30) % (n_c + 1)
    base = _cases(a=list(zip(p_b, n_b, strict=True)))
    cand = _cases(a=list(zip(p_c, n_c, strict=True)))
    d = p_c / n_c - p_b / n_b
    for confidence in (0.95, 0.9):
        (entry,) = _paired(base, cand, confidence=confidence)
        low, high = stats.t.interval(confidence, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
        assert entry["method"] == entry["method_used"] == "paired" and entry["shared_cases"] == 30
        assert entry["difference"] == pytest.approx(d.mean(), abs=1e-15)
        assert (entry["ci_low"], entry["ci_high"]) == pytest.approx((low, high), abs=1e-12)
        assert entry["regressed"] == (high < 0)  # one dimension: the test agrees with the interval


def test_paired_regressed_only_when_the_interval_lies_wholly_below_minus_max_drop():
    base = _cases(a=[(3, 3)] * 20)
    cand = _cases(a=[(2, 3)] * 4 + [(3, 3)] * 16)  # mean −1/15, interval about (−0.117, −0.017)
    (entry,) = _paired(base, cand)
    assert entry["regressed"] and entry["status"] == "regressed" and entry["limit"] == 0.0
    assert not _paired(base, cand, max_drop=-entry["ci_high"] + 1e-6)[0]["regressed"]
    assert _paired(base, cand, max_drop=-entry["ci_high"] - 1e-6)[0]["regressed"]
    # A gain is never a regression.
    assert not _paired(cand, base)[0]["regressed"]


def test_paired_equal_differences_give_a_zero_width_interval_at_their_value():
    # Every case gains exactly 0.1; Σdᵢ/m would be 0.10000000000000002 and the spread ~1e-34.
    base = _cases(a=[(0, 10)] * 3, b=[(5, 5)] * 7)
    cand = _cases(a=[(1, 10)] * 3, b=[(5, 5)] * 7)
    a, b = _paired(base, cand)
    assert a["status"] == "ok" and a["difference"] == a["ci_low"] == a["ci_high"] == 0.1
    assert b["difference"] == b["ci_low"] == b["ci_high"] == 0.0 and not b["regressed"]
    assert a["p_value"] == b["p_value"] == 1.0  # no spread and no drop: p = 1 (SPEC §18)
    # A drop of exactly max_drop on every case is not a regression; a larger one is.
    drop = _cases(a=[(19, 20)] * 5)
    full = _cases(a=[(20, 20)] * 5)
    (entry,) = _paired(full, drop, max_drop=0.05)
    assert entry["ci_low"] == entry["ci_high"] == 19 / 20 - 1 and not entry["regressed"]
    assert entry["p_value"] == 1.0
    beyond = _paired(full, drop, max_drop=0.04)[0]
    assert beyond["regressed"] and beyond["p_value"] == 0.0  # no spread and a drop beyond max_drop: p = 0


def test_paired_needs_two_cases_measured_on_both_sides():
    base = _cases(a=[(1, 1), (1, 1), (0, 0)], b=[(1, 1), (1, 1)])
    # a: c00 measured on both sides, c01 only in the baseline, c02 only in the candidate; b: one case.
    cand = _cases(a=[(0, 1), (0, 0), (1, 1)], b=[(0, 1)])
    a, b = _paired(base, cand)
    for entry in (a, b):
        assert entry["status"] == "undefined" and not entry["regressed"] and entry["shared_cases"] == 1
        assert entry["difference"] == -1.0 and entry["ci_low"] is None and entry["ci_high"] is None
        assert entry["p_value"] is None and entry["p_adjusted"] is None
        assert entry["rule"] == "not compared: 1 case measured in both runs; a comparison needs at least 2"
    assert (a["cases_only_baseline"], a["cases_only_candidate"]) == (1, 1)
    # Both sides measured, never the same case: nothing to pair.
    (disjoint,) = _paired(_cases(a=[(1, 1), (0, 0)]), _cases(a=[(0, 0), (1, 1)]))
    assert disjoint["status"] == "undefined" and disjoint["shared_cases"] == 0 and disjoint["difference"] is None
    assert disjoint["rule"] == "not compared: 0 cases measured in both runs; a comparison needs at least 2"
    # The same holds for every method: pooled rates of (nearly) disjoint case sets are not comparable.
    for method in ("newcombe", "point"):
        assert all(e["status"] == "undefined" for e in regressions(
            _pooled(base), _pooled(cand), method, baseline_cases=base, candidate_cases=cand))


def test_paired_without_per_case_counts_falls_back_to_newcombe_and_says_so():
    base, cand = _dims(a=(40, 40)), _dims(a=(10, 40))
    newcombe = regressions(base, cand, "newcombe")[0]
    for cases, side in (({}, "neither side has none"),
                        ({"baseline_cases": _cases(a=[(1, 1)] * 40)}, "the candidate has none"),
                        ({"candidate_cases": _cases(a=[(1, 1)] * 10 + [(0, 1)] * 30)}, "the baseline has none")):
        (entry,) = regressions(base, cand, "paired", **cases)
        assert entry["method"] == "paired" and entry["method_used"] == "newcombe" and entry["controlled"]
        assert entry["status"] == "regressed" and entry["regressed"] and entry["shared_cases"] is None
        assert f"{side}: fell back to newcombe" in entry["rule"]
        assert entry["regressed_cases"] is None and entry["cases_only_baseline"] is None
        assert entry["p_value"] == pytest.approx(newcombe["p_value"], rel=1e-12)


def test_every_method_reports_the_difference_its_interval_and_the_cases():
    base = _cases(a=[(3, 3)] * 10 + [(1, 3)] * 10, z=[(0, 0)])
    cand = _cases(a=[(2, 3)] * 10 + [(1, 3)] * 12, z=[(1, 1)])  # 2 extra cases only in the candidate
    b_dims, c_dims = _pooled(base), _pooled(cand)
    keys = {"dimension", "method", "method_used", "controlled", "status", "regressed", "baseline", "candidate",
            "difference", "ci_low", "ci_high", "p_value", "p_adjusted", "shared_cases", "cases_only_baseline",
            "cases_only_candidate", "regressed_cases", "improved_cases", "rule", "limit"}
    for method in METHODS:
        a, z = regressions(b_dims, c_dims, method, baseline_cases=base, candidate_cases=cand)
        assert set(a) == keys == set(z)  # exactly the fields of the CONTRACT's "Comparison"
        assert a["method"] == a["method_used"] == method and a["controlled"] == (method != "point")
        assert a["shared_cases"] == 20 and z["shared_cases"] == 0 and z["status"] == "undefined"
        assert (a["cases_only_baseline"], a["cases_only_candidate"]) == (0, 2)
        assert (z["cases_only_baseline"], z["cases_only_candidate"]) == (0, 1)  # (0, 0) is not measured
        assert a["regressed_cases"]["total"] == 10 and a["improved_cases"] == {"total": 0, "listed": []}
        assert a["ci_low"] <= a["difference"] <= a["ci_high"]
        without = regressions(b_dims, c_dims, method)[0]
        assert without["shared_cases"] is None and without["regressed_cases"] is None
        if method != "paired":
            assert a["difference"] == pytest.approx(32 / 66 - 40 / 60)
    paired = regressions(b_dims, c_dims, "paired", baseline_cases=base, candidate_cases=cand)[0]
    assert paired["difference"] == pytest.approx(-1 / 6)  # mean over the 20 shared cases
    point = regressions(b_dims, c_dims, "point", baseline_cases=base, candidate_cases=cand)[0]
    assert point["p_value"] is None and point["p_adjusted"] is None and point["regressed"]


def test_paired_is_vectorised_over_dimensions():
    rng = np.random.default_rng(11)
    per = {}
    for d in range(12):
        m = int(rng.integers(0, 9))
        n_b, n_c = rng.integers(0, 4, m), rng.integers(0, 4, m)
        per[f"d{d:02d}"] = (list(zip(rng.integers(0, 4, m) % (n_b + 1), n_b, strict=True)),
                           list(zip(rng.integers(0, 4, m) % (n_c + 1), n_c, strict=True)))
    base = _cases(**{k: v[0] for k, v in per.items()})
    cand = _cases(**{k: v[1] for k, v in per.items()})
    names = sorted(per)
    b_dims, c_dims = _pooled(base).reindex(names, fill_value=0), _pooled(cand).reindex(names, fill_value=0)
    for drop in (0.0, 0.1):
        together = regressions(b_dims, c_dims, "paired", drop, baseline_cases=base, candidate_cases=cand)
        alone = [
            regressions(b_dims.loc[[k]], c_dims.loc[[k]], "paired", drop,
                        baseline_cases=base[base["dimension"] == k], candidate_cases=cand[cand["dimension"] == k])[0]
            for k in names
        ]
        assert [{k: v for k, v in e.items() if k != "p_adjusted"} for e in together] == [
            {k: v for k, v in e.items() if k != "p_adjusted"} for e in alone]
    assert {e["status"] for e in together} >= {"ok", "undefined"}


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)).map(lambda t: (min(t), max(t))),
                    min_size=0, max_size=12),
    dimensions=st.lists(st.sampled_from(["a", "b"]), min_size=12, max_size=12),
    data=st.data(),
)
def test_paired_does_not_depend_on_the_order_of_the_cases_and_never_flags_identical_runs(counts, dimensions, data):
    table = pd.DataFrame(
        [(dimensions[i], f"c{i:02d}", p, n) for i, (p, n) in enumerate(counts)],
        columns=["dimension", "case_id", "passes", "n"],
    )
    dims = _pooled(table).reindex(["a", "b"], fill_value=0)
    order = data.draw(st.permutations(range(len(table))))
    shuffled = table.iloc[list(order)].reset_index(drop=True)
    first = regressions(dims, dims, "paired", baseline_cases=table, candidate_cases=table)
    assert regressions(dims, dims, "paired", baseline_cases=shuffled, candidate_cases=table) == first
    for entry in first:
        assert not entry["regressed"]
        assert entry["status"] == ("ok" if entry["shared_cases"] >= 2 else "undefined")
        if entry["status"] == "ok":
            assert entry["ci_low"] == entry["difference"] == entry["ci_high"] == 0.0  # contains 0
            assert entry["p_value"] == 1.0 and entry["regressed_cases"]["total"] == 0


@pytest.mark.parametrize(
    ("frame", "error", "match"),
    [
        (pd.DataFrame({"dimension": ["a"], "case_id": ["x"], "passes": [1]}), ValueError, "missing n"),
        (pd.DataFrame({"dimension": ["a"], "case_id": ["x"], "passes": [2], "n": [1]}), ValueError, "exceed"),
        (pd.DataFrame({"dimension": ["a"], "case_id": ["x"], "passes": [-1], "n": [1]}), ValueError, "non-negative"),
        (pd.DataFrame({"dimension": ["a", "a"], "case_id": ["x", "x"], "passes": [1, 0], "n": [1, 1]}),
         ValueError, "twice"),
        ({"dimension": "a"}, TypeError, "DataFrame"),
    ],
)
def test_case_tables_are_validated(frame, error, match):
    good = _cases(a=[(1, 1), (1, 1)])
    with pytest.raises(error, match=match):
        regressions(_pooled(good), _pooled(good), "paired", baseline_cases=frame, candidate_cases=good)


# --------------------------------------------------------------------------- p-values (SPEC §18)
def _brute_force_newcombe_p(p1: float, e1: float, p2: float, e2: float, max_drop: float) -> float:
    """The α′ at which statsmodels' Wilson bounds (at sizes e1, e2) put Newcombe's upper end at −max_drop.

    An independent scalar bisection on α′ itself (not on the quantile), 200 halvings of (0, ½).
    """
    from statsmodels.stats.proportion import proportion_confint

    if p2 - p1 >= -max_drop:
        return 1.0

    def upper(level: float) -> float:
        l1, _ = proportion_confint(p1 * e1, e1, alpha=2 * level, method="wilson")
        _, u2 = proportion_confint(p2 * e2, e2, alpha=2 * level, method="wilson")
        return (p2 - p1) + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)

    lo, hi = 0.0, 0.5  # upper(lo) is high (≥ −max_drop), upper(hi) = the difference, below it
    for _ in range(200):
        mid = (lo + hi) / 2
        if upper(mid) >= -max_drop:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


NEWCOMBE_P_CASES = [  # (baseline passes, n), (candidate passes, n), max_drop
    ((95, 100), (80, 100), 0.0),
    ((95, 100), (80, 100), 0.05),
    ((45, 50), (40, 50), 0.0),
    ((9, 10), (7, 10), 0.0),
    ((30, 30), (25, 30), 0.0),
    ((30, 30), (0, 30), 0.0),   # p far below 1e-12
    ((140, 150), (120, 150), 0.02),
    ((5, 6), (1, 6), 0.1),
    ((50, 100), (49, 100), 0.0),
    ((40, 60), (32, 66), 0.0),
]


def test_newcombe_p_value_matches_a_brute_force_bisection():
    pytest.importorskip("statsmodels")
    for (c1, n1), (c2, n2), drop in NEWCOMBE_P_CASES:
        (entry,) = regressions(_dims(a=(c1, n1)), _dims(a=(c2, n2)), "newcombe", drop)
        expected = _brute_force_newcombe_p(c1 / n1, n1, c2 / n2, n2, drop)
        assert entry["p_value"] == pytest.approx(expected, abs=1e-12), ((c1, n1), (c2, n2), drop)
        assert entry["regressed"] == (expected <= 0.025)


def test_newcombe_p_value_is_where_statsmodels_newcombe_interval_touches_minus_max_drop():
    sm = pytest.importorskip("statsmodels.stats.proportion")
    for (c1, n1), (c2, n2), drop in NEWCOMBE_P_CASES:
        (entry,) = regressions(_dims(a=(c1, n1)), _dims(a=(c2, n2)), "newcombe", drop)
        p = entry["p_value"]
        if p == 1.0:
            assert c2 / n2 - c1 / n1 >= -drop
            continue
        if p < 1e-9:  # the interval at 1 − 2p is beyond what statsmodels' quantile resolves
            continue
        _, high = sm.confint_proportions_2indep(c2, n2, c1, n1, method="newcomb", compare="diff", alpha=2 * p)
        assert float(high) == pytest.approx(-drop, abs=1e-10)


def test_newcombe_p_value_is_monotone_in_the_drop():
    p = [regressions(_dims(a=(90, 100)), _dims(a=(c, 100)), "newcombe")[0]["p_value"] for c in range(60, 91)]
    assert all(a <= b for a, b in itertools.pairwise(p)) and p[-1] == 1.0 and p[0] < 1e-6


def test_newcombe_uses_each_sides_case_clustered_effective_size():
    """SPEC §10: newcombe from the clustered intervals, Wilson at N/deff (deff of SPEC §6's reference)."""
    pytest.importorskip("statsmodels")
    base = _cases(a=[(5, 5), (5, 5), (5, 5), (5, 5), (4, 5)])
    cand = _cases(a=[(5, 5), (3, 5), (4, 5), (0, 5), (2, 5)])  # SPEC §6: deff 3.0032467532467533
    deff_c = 3.0032467532467533
    base_p = 24 / 25
    # its own deff by SPEC §6's formula: m/(m−1)·Σ(cᵢ − p̂nᵢ)²/(N·p̂(1−p̂)), inside [1, Σnᵢ²/N]
    ref_deff_b = min(max(5 / 4 * (4 * (5 - 5 * base_p) ** 2 + (4 - 5 * base_p) ** 2) / (25 * base_p * (1 - base_p)),
                         1.0), 5.0)
    assert ref_deff_b == pytest.approx(1.0416666666666667)
    (entry,) = regressions(_pooled(base), _pooled(cand), "newcombe", baseline_cases=base, candidate_cases=cand)
    expected = _brute_force_newcombe_p(base_p, 25 / ref_deff_b, 14 / 25, 25 / deff_c, 0.0)
    assert entry["p_value"] == pytest.approx(expected, abs=1e-12)
    pooled = regressions(_pooled(base), _pooled(cand), "newcombe")[0]["p_value"]
    assert pooled < entry["p_value"]  # pooled Wilson is too narrow when trials repeat
    # Without per-case counts, a `deff` column (a stored scorecard records it) gives the same test.
    dims_b, dims_c = _pooled(base).assign(deff=ref_deff_b), _pooled(cand).assign(deff=deff_c)
    (stored,) = regressions(dims_b, dims_c, "newcombe")
    assert stored["p_value"] == pytest.approx(entry["p_value"], rel=1e-12)
    assert (stored["ci_low"], stored["ci_high"]) == pytest.approx((entry["ci_low"], entry["ci_high"]), rel=1e-12)
    # Its interval: Newcombe from statsmodels' Wilson bounds at the effective sizes.
    from statsmodels.stats.proportion import proportion_confint

    l1, u1 = proportion_confint(base_p * 25 / ref_deff_b, 25 / ref_deff_b, alpha=0.05, method="wilson")
    l2, u2 = proportion_confint(14 / 25 * 25 / deff_c, 25 / deff_c, alpha=0.05, method="wilson")
    d = 14 / 25 - base_p
    assert entry["ci_low"] == pytest.approx(d - math.hypot(14 / 25 - l2, u1 - base_p), abs=1e-12)
    assert entry["ci_high"] == pytest.approx(d + math.hypot(u2 - 14 / 25, base_p - l1), abs=1e-12)
    with pytest.raises(ValueError, match="deff must be >= 1"):
        regressions(dims_b.assign(deff=0.5), dims_c, "newcombe")


def test_paired_p_value_matches_scipy_one_sided_t_test():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(5)
    for trial in range(6):
        m = int(rng.integers(2, 40))
        n_b, n_c = rng.integers(1, 5, m), rng.integers(1, 5, m)
        p_b = rng.binomial(n_b, 0.85)
        p_c = rng.binomial(n_c, 0.85 - 0.05 * (trial % 3))
        base, cand = _cases(a=list(zip(p_b, n_b, strict=True))), _cases(a=list(zip(p_c, n_c, strict=True)))
        d = p_c / n_c - p_b / n_b
        for drop in (0.0, 0.03):
            (entry,) = _paired(base, cand, max_drop=drop)
            if np.ptp(d) == 0:
                continue
            expected = stats.ttest_1samp(d, -drop, alternative="less").pvalue
            assert entry["p_value"] == pytest.approx(expected, rel=1e-12, abs=1e-300), (trial, drop)
            assert entry["p_adjusted"] == entry["p_value"]  # Holm over one dimension
            assert entry["regressed"] == (expected <= 0.025)


# --------------------------------------------------------------------------- Holm (SPEC §18)
def test_holm_adjust_matches_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    from scorekit._regression import holm_adjust

    rng = np.random.default_rng(17)
    for m in (1, 2, 3, 8, 20):
        for _ in range(10):
            p = rng.uniform(0, 0.1, m) ** rng.uniform(0.5, 3)
            if m > 2:
                p[1] = p[2]  # a tie
            for alpha in (0.025, 0.05):
                reject, corrected, _, _ = multitest.multipletests(p, alpha=alpha, method="holm")
                adjusted, rejected = holm_adjust(p, alpha)
                np.testing.assert_allclose(adjusted, corrected, rtol=0, atol=1e-12)
                assert rejected.tolist() == reject.tolist()


def test_holm_across_dimensions_through_regressions():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    base = _dims(**{f"d{i}": (95, 100) for i in range(8)}, z=(0, 0))
    cand = _dims(**{f"d{i}": (95 - 2 * i, 100) for i in range(8)}, z=(5, 5))
    holm = regressions(base, cand, "newcombe")
    none = regressions(base, cand, "newcombe", multiplicity="none")
    usable = [e for e in holm if e["p_value"] is not None]
    assert len(usable) == 8 and holm[-1]["status"] == "undefined" and holm[-1]["p_adjusted"] is None
    p = np.array([e["p_value"] for e in usable])
    reject, corrected, _, _ = multitest.multipletests(p, alpha=0.025, method="holm")
    np.testing.assert_allclose([e["p_adjusted"] for e in usable], corrected, rtol=0, atol=1e-12)
    assert [e["regressed"] for e in usable] == reject.tolist()
    assert [e["status"] == "regressed" for e in usable] == reject.tolist()
    # none: each at α, p_adjusted = p_value
    assert [e["regressed"] for e in none if e["p_value"] is not None] == (p <= 0.025).tolist()
    assert all(e["p_adjusted"] == e["p_value"] for e in none)
    assert sum(e["regressed"] for e in none) > sum(e["regressed"] for e in holm)  # Holm is stricter here
    # The level follows the confidence: α = (1 − 0.9)/2 = 0.05.
    wide = regressions(base, cand, "newcombe", confidence=0.9)
    reject_05 = multitest.multipletests([e["p_value"] for e in wide if e["p_value"] is not None],
                                        alpha=0.05, method="holm")[0]
    assert [e["regressed"] for e in wide if e["p_value"] is not None] == reject_05.tolist()


def test_point_is_uncontrolled_and_outside_holm():
    base, cand = _dims(a=(95, 100), b=(95, 100)), _dims(a=(80, 100), b=(94, 100))
    a, b = regressions(base, cand, "point")
    assert not a["controlled"] and a["p_value"] is None and a["p_adjusted"] is None and a["regressed"]
    assert b["regressed"] and "uncontrolled" in b["rule"]
    from scorekit._regression import usable_comparisons

    assert usable_comparisons([a, b]) == 0 and usable_comparisons(regressions(base, cand)) == 2


def test_verdict_meaning_states_the_level_and_the_control():
    from scorekit._regression import verdict_meaning

    assert verdict_meaning(0.025, 8, "holm") == "a drop shown at the 2.5% level across the 8 dimensions compared, Holm"
    assert verdict_meaning(0.05, 1, "holm") == "a drop shown at the 5% level across the 1 dimension compared, Holm"
    assert "no multiplicity control" in verdict_meaning(0.025, 3, "none")
    assert "no dimension had a usable controlled comparison" in verdict_meaning(0.025, 0, "holm")


# --------------------------------------------------------------------------- the cases that changed
def test_regressed_and_improved_cases_are_listed_largest_change_first_then_case_id():
    base_rows = [("a", f"c{i:03d}", 3, 3) for i in range(120)] + [("a", "up1", 0, 3), ("a", "up2", 1, 3)]
    cand_rows = ([("a", f"c{i:03d}", 0, 3) for i in range(0, 30)]      # −1
                 + [("a", f"c{i:03d}", 2, 3) for i in range(30, 90)]   # −1/3
                 + [("a", f"c{i:03d}", 3, 3) for i in range(90, 120)]
                 + [("a", "up1", 3, 3), ("a", "up2", 2, 3), ("a", "new", 1, 1)])
    base = pd.DataFrame(base_rows, columns=["dimension", "case_id", "passes", "n"]).iloc[::-1]
    cand = pd.DataFrame(cand_rows, columns=["dimension", "case_id", "passes", "n"])
    (entry,) = regressions(_pooled(base), _pooled(cand), baseline_cases=base, candidate_cases=cand)
    fell, rose = entry["regressed_cases"], entry["improved_cases"]
    assert fell["total"] == 90 and len(fell["listed"]) == 50
    assert [c["case_id"] for c in fell["listed"][:30]] == [f"c{i:03d}" for i in range(30)]
    assert [c["case_id"] for c in fell["listed"][30:]] == [f"c{i:03d}" for i in range(30, 50)]
    assert fell["listed"][0] == {"case_id": "c000", "baseline": 1.0, "candidate": 0.0, "change": -1.0}
    assert fell["listed"][-1]["change"] == pytest.approx(-1 / 3)
    assert rose == {"total": 2, "listed": [
        {"case_id": "up1", "baseline": 0.0, "candidate": 1.0, "change": 1.0},
        {"case_id": "up2", "baseline": 1 / 3, "candidate": 2 / 3, "change": pytest.approx(1 / 3)}]}
    assert (entry["shared_cases"], entry["cases_only_baseline"], entry["cases_only_candidate"]) == (122, 0, 1)


def test_paired_differences_follow_the_order_of_names():
    from scorekit._regression import paired_differences

    base = _cases(a=[(3, 3), (1, 3), (2, 3)], b=[(1, 1), (0, 1), (1, 1)], c=[(2, 2), (2, 2)])
    cand = _cases(a=[(2, 3), (1, 3), (0, 3)], b=[(1, 1), (1, 1), (0, 1)], c=[(1, 2), (2, 2)])
    forward = paired_differences(base, cand, ["a", "b", "c"])
    backward = paired_differences(base, cand, ["c", "b", "a"])
    for key in ("shared", "mean", "sd", "low", "high"):
        np.testing.assert_array_equal(forward[key], backward[key][::-1])
    assert forward["mean"].tolist() == pytest.approx([-1 / 3, 0.0, -0.25])
