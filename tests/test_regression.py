"""Regression statistics (SPEC §10): the Newcombe interval and the three methods."""

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
    assert e["regressed"] and e["difference_ci_high"] == pytest.approx(high) and e["limit"] == 0.0
    # max_drop just below -high: still wholly below; just above: not.
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
        together = regressions(base, cand, method, drop)
        alone = [regressions(base.iloc[[i]], cand.iloc[[i]], method, drop)[0] for i in range(40)]
        assert together == alone


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"method": "wilson"}, ValueError),
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
        assert entry["method"] == "paired" and entry["diff_interval"] == "t" and entry["shared_cases"] == 30
        assert entry["difference"] == pytest.approx(d.mean(), abs=1e-15)
        assert (entry["diff_low"], entry["diff_high"]) == pytest.approx((low, high), abs=1e-12)
        assert entry["regressed"] == (high < 0)
    # The pooled Newcombe interval stays beside it, for information.
    assert entry["difference_ci_low"] == pytest.approx(newcombe_interval(p_b.sum(), n_b.sum(), p_c.sum(), n_c.sum(),
                                                                         confidence=0.9)[0])


def test_paired_regressed_only_when_the_interval_lies_wholly_below_minus_max_drop():
    base = _cases(a=[(3, 3)] * 20)
    cand = _cases(a=[(2, 3)] * 4 + [(3, 3)] * 16)  # mean −1/15, interval about (−0.117, −0.017)
    (entry,) = _paired(base, cand)
    assert entry["regressed"] and entry["status"] == "regressed" and entry["limit"] == 0.0
    assert not _paired(base, cand, max_drop=-entry["diff_high"] + 1e-6)[0]["regressed"]
    assert _paired(base, cand, max_drop=-entry["diff_high"] - 1e-6)[0]["regressed"]
    # A gain is never a regression.
    assert not _paired(cand, base)[0]["regressed"]


def test_paired_equal_differences_give_a_zero_width_interval_at_their_value():
    # Every case gains exactly 0.1; Σdᵢ/m would be 0.10000000000000002 and the spread ~1e-34.
    base = _cases(a=[(0, 10)] * 3, b=[(5, 5)] * 7)
    cand = _cases(a=[(1, 10)] * 3, b=[(5, 5)] * 7)
    a, b = _paired(base, cand)
    assert a["status"] == "ok" and a["difference"] == a["diff_low"] == a["diff_high"] == 0.1
    assert b["difference"] == b["diff_low"] == b["diff_high"] == 0.0 and not b["regressed"]
    # A drop of exactly max_drop on every case is not a regression; a larger one is.
    drop = _cases(a=[(19, 20)] * 5)
    full = _cases(a=[(20, 20)] * 5)
    (entry,) = _paired(full, drop, max_drop=0.05)
    assert entry["diff_low"] == entry["diff_high"] == 19 / 20 - 1 and not entry["regressed"]
    assert _paired(full, drop, max_drop=0.04)[0]["regressed"]


def test_paired_needs_two_cases_measured_on_both_sides():
    base = _cases(a=[(1, 1), (1, 1), (0, 0)], b=[(1, 1), (1, 1)])
    # a: c00 measured on both sides, c01 only in the baseline, c02 only in the candidate; b: one case.
    cand = _cases(a=[(0, 1), (0, 0), (1, 1)], b=[(0, 1)])
    a, b = _paired(base, cand)
    for entry in (a, b):
        assert entry["status"] == "undefined" and not entry["regressed"] and entry["shared_cases"] == 1
        assert entry["difference"] == -1.0 and entry["diff_low"] is None and entry["diff_high"] is None
        assert entry["rule"] == "not compared: 1 case measured in both runs; the paired method needs at least 2"
    # Both sides measured, never the same case: nothing to pair.
    (disjoint,) = _paired(_cases(a=[(1, 1), (0, 0)]), _cases(a=[(0, 0), (1, 1)]))
    assert disjoint["status"] == "undefined" and disjoint["shared_cases"] == 0 and disjoint["difference"] is None
    assert disjoint["rule"] == "not compared: 0 cases measured in both runs; the paired method needs at least 2"


def test_paired_without_per_case_counts_is_undefined():
    base, cand = _dims(a=(40, 40)), _dims(a=(10, 40))
    (entry,) = regressions(base, cand, "paired")
    assert entry["status"] == "undefined" and not entry["regressed"] and entry["shared_cases"] is None
    assert "baseline has no per-case counts" in entry["rule"]
    (entry,) = regressions(base, cand, "paired", baseline_cases=_cases(a=[(1, 1)] * 40))
    assert "candidate has no per-case counts" in entry["rule"]


def test_every_method_reports_the_difference_its_interval_and_the_shared_cases():
    base = _cases(a=[(3, 3)] * 10 + [(1, 3)] * 10, z=[(0, 0)])
    cand = _cases(a=[(2, 3)] * 10 + [(1, 3)] * 12, z=[(1, 1)])  # 2 extra cases only in the candidate
    b_dims, c_dims = _pooled(base), _pooled(cand)
    kinds = {"newcombe": "newcombe", "point": "newcombe", "paired": "t"}
    assert set(kinds) == set(METHODS)
    for method in METHODS:
        a, z = regressions(b_dims, c_dims, method, baseline_cases=base, candidate_cases=cand)
        assert a["method"] == method and a["diff_interval"] == kinds[method]
        assert a["shared_cases"] == 20 and z["shared_cases"] == 0 and z["status"] == "undefined"
        assert a["diff_low"] <= a["difference"] <= a["diff_high"]
        for key in ("status", "regressed", "baseline", "candidate", "difference_ci_low", "difference_ci_high",
                    "limit", "rule"):
            assert key in a  # the keys entries had before
        without = regressions(b_dims, c_dims, method)[0]
        assert without["shared_cases"] is None
        if method != "paired":
            assert a["difference"] == pytest.approx(32 / 66 - 40 / 60)
            assert {k: v for k, v in a.items() if k != "shared_cases"} == {
                k: v for k, v in without.items() if k != "shared_cases"}
    low, high = newcombe_interval(40, 60, 32, 66)
    for method in ("newcombe", "point"):
        a = regressions(b_dims, c_dims, method)[0]
        assert (a["diff_low"], a["diff_high"]) == (pytest.approx(low), pytest.approx(high))
    paired = regressions(b_dims, c_dims, "paired", baseline_cases=base, candidate_cases=cand)[0]
    assert paired["difference"] == pytest.approx(-1 / 6)  # mean over the 20 shared cases


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
        assert together == alone
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
            assert entry["diff_low"] == entry["difference"] == entry["diff_high"] == 0.0  # contains 0


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
