"""Regression statistics (SPEC §10): the Newcombe interval and the three methods."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

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
    c1, n1, c2, n2 = (np.array(x) for x in zip(*cases))
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
    [((6, 5, 1, 2), ValueError), ((1, 2, -1, 2), ValueError), (("1", 2, 1, 2), TypeError), ((1.5, 2, 1, 2), ValueError)],
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


def test_interval_method_uses_baseline_wilson_lower_bound():
    base = _dims(a=(40, 40), b=(40, 40))
    lb = float(wilson_interval(40, 40)[0])  # 0.9124
    cand = _dims(a=(37, 40), b=(36, 40))  # 0.925 >= lb, 0.9 < lb
    entries = regressions(base, cand, "interval")
    assert [e["dimension"] for e in entries] == ["a", "b"]
    a, b = _one(entries, "a"), _one(entries, "b")
    assert not a["regressed"] and a["status"] == "ok"
    assert b["regressed"] and b["status"] == "regressed"
    assert b["limit"] == pytest.approx(lb) and b["baseline"]["ci_low"] == pytest.approx(lb)
    assert b["candidate"]["rate"] == 0.9 and b["difference"] == pytest.approx(-0.1)
    # A higher candidate never regresses; equal to the baseline never does.
    assert not regressions(base, base, "interval")[0]["regressed"]


def test_interval_method_is_the_spec_rule_regardless_of_max_drop():
    base, cand = _dims(a=(40, 40)), _dims(a=(36, 40))
    assert regressions(base, cand, "interval", max_drop=0.5)[0]["regressed"]


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
