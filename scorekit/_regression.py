"""Regression tests of a candidate against a baseline, per dimension (SPEC §10, §18).

Pure and vectorised over dimensions: every figure is computed from the PASS and
PASS+FAIL counts of each side with NumPy, no loop per dimension in the
statistics; the per-case work uses ``np.bincount`` and ``reduceat`` over one
merged table, no loop per case.

Each dimension compared gets a one-sided test of H₀: true difference
(candidate − baseline) ≥ −max_drop, by the policy's ``regression.method``:

``paired`` (default)
    Miller (2024), *Adding Error Bars to Evals*, §4: the same cases measured
    twice are compared case by case. Over the m cases measured in both runs,
    dᵢ = candidate case rate − baseline case rate,
    t = (d̄ + max_drop) / (s_d / √m) and p = the Student-t (m − 1 degrees of
    freedom) lower tail; s_d = 0 gives p = 0 when d̄ < −max_drop, else 1.
    Without per-case counts on both sides (a stored ``scorecard.json``, a
    history record written before they were stored) it falls back to
    ``newcombe`` and says so (``method_used``, ``rule``).
``newcombe``
    Newcombe's (1998) hybrid-score interval of the difference of the two rates,
    built from each side's case-clustered interval: the Wilson interval at the
    effective size N/deff (SPEC §6), so repeated trials do not make it too
    narrow. The design effect comes from the side's per-case counts
    (:func:`scorekit._stats.cluster_interval_grouped`), else from a ``deff``
    column of its dimension table (a stored scorecard records it), else 1.
    The quantile is the normal z: the p-value is the α′ in (0, ½) at which
    the interval's upper end at confidence 1 − 2α′ equals −max_drop, and that
    needs one family of intervals monotone in α′ (the Student t of the
    clustered headline interval has a degrees-of-freedom per side, and the
    SPEC §10 parenthetical names Wilson at N/deff). p = 1 when the observed
    difference ≥ −max_drop; otherwise the α′ is found by bisection on the
    quantile (to far below 1e-12 in α′).
``point``
    the drop (baseline rate − candidate rate) exceeds ``max_drop``: no test and
    no error rate (``controlled: false``, ``p_value`` null).

Multiplicity (``regression.multiplicity``): ``holm`` (default) over the m
dimensions with a usable controlled comparison (Holm 1979): sort the p-values
ascending; dimension (i) regressed while every p(j) ≤ α/(m − j + 1) for j ≤ i;
``p_adjusted``(i) = max over j ≤ i of min(1, (m − j + 1)·p(j)). ``none``: a
dimension regressed when its p ≤ α. α = (1 − confidence)/2
(:func:`scorekit._stats.one_sided_alpha`), the one level of every decision
(SPEC §18).

Every entry reports the difference and its interval at the two-sided level
``confidence`` (unadjusted: the paired t interval, or Newcombe from the
clustered intervals), the shared cases and those only on one side, and the
shared cases whose rate fell or rose (see :func:`regressions`).

A dimension whose rate is undefined on either side (no PASS/FAIL row: n = 0),
or, with per-case counts on both sides, one with fewer than 2 cases measured
on both, cannot be compared: it is reported with status ``undefined`` and is
never a regression; :func:`scorekit.history.compare` then calls the comparison
``unusable`` (it cannot establish that nothing regressed).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ._policy import MULTIPLICITY_CONTROLS
from ._policy import REGRESSION_METHODS as METHODS
from ._stats import (
    _check_confidence,
    _successes_and_n,
    _template,
    _wilson_bounds,
    _wrap,
    cluster_interval_grouped,
    mean_ci_arrays,
    one_sided_alpha,
    z_value,
)

__all__ = [
    "CASE_COLUMNS",
    "CASES_LISTED",
    "METHODS",
    "holm_adjust",
    "newcombe_interval",
    "newcombe_p_value",
    "paired_differences",
    "regressions",
    "usable_comparisons",
    "verdict_meaning",
]

#: Columns of a per-(dimension, case) count table (``passes`` of ``n`` measured trials).
CASE_COLUMNS: tuple[str, ...] = ("dimension", "case_id", "passes", "n")
#: At most this many regressed (or improved) cases are listed per dimension; the total is always given.
CASES_LISTED = 50

# Rates are ratios of counts; a drop of exactly max_drop must not become a
# regression through floating-point rounding (0.8 − 0.7 = 0.10000000000000009).
_POINT_TOLERANCE = 1e-12
# Bisection on the normal quantile z ∈ [0, _Z_MAX] (Φ(−64) underflows to 0):
# 64 halvings leave a bracket of 64/2⁶⁴ ≈ 3.5e-18 in z, so below 1.4e-18 in α′.
_Z_MAX = 64.0
_BISECTIONS = 64


# --------------------------------------------------------------------------- Newcombe
def _newcombe_bounds(
    p1: np.ndarray, e1: np.ndarray, p2: np.ndarray, e2: np.ndarray, z: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid-score bounds of ``p2 − p1`` from Wilson intervals at (effective) sizes ``e1``, ``e2``.

    ``z`` is a scalar or an array broadcastable with the rates (one quantile per dimension).
    """
    l1, u1 = _wilson_bounds(p1, e1, z)
    l2, u2 = _wilson_bounds(p2, e2, z)
    with np.errstate(invalid="ignore"):
        diff = p2 - p1
        low = diff - np.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
        high = diff + np.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return low, high


def newcombe_interval(c1: Any, n1: Any, c2: Any, n2: Any, confidence: float = 0.95) -> tuple[Any, Any]:
    """Newcombe's hybrid score interval for the difference ``p2 − p1``.

    Method 10 of Newcombe (1998), *Interval estimation for the difference
    between independent proportions*, Statistics in Medicine 17:873–890: built
    from the two Wilson score intervals ``(l1, u1)`` and ``(l2, u2)``::

        low  = (p2 − p1) − sqrt((p2 − l2)² + (u1 − p1)²)
        high = (p2 − p1) + sqrt((u2 − p2)² + (p1 − l1)²)

    Parameters
    ----------
    c1, n1 : int or array-like of int
        PASS count and PASS+FAIL count of the first sample (the baseline).
    c2, n2 : int or array-like of int
        PASS count and PASS+FAIL count of the second sample (the candidate).
    confidence : float, default 0.95
        Two-sided confidence level in (0, 1); the critical value is exact.

    Returns
    -------
    low, high : float, ndarray or Series
        Bounds for ``p2 − p1``, shaped like the input; NaN where ``n1 == 0`` or
        ``n2 == 0`` (no evidence on one side).

    Examples
    --------
    Newcombe (1998), Table II, example (a): 56/70 vs 48/80.

    >>> low, high = newcombe_interval(48, 80, 56, 70)
    >>> round(low, 4), round(high, 4)
    (0.0524, 0.3339)
    """
    confidence = _check_confidence(confidence)
    template = _template(c1, n1, c2, n2)
    s1, t1 = _successes_and_n(c1, n1, ("c1", "n1"))
    s2, t2 = _successes_and_n(c2, n2, ("c2", "n2"))
    try:
        s1, t1, s2, t2 = np.broadcast_arrays(s1, t1, s2, t2)
    except ValueError as exc:
        raise ValueError(f"the two samples have incompatible shapes: {exc}") from None
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = _newcombe_bounds(s1 / t1, t1, s2 / t2, t2, z_value(confidence))
    return _wrap(np.asarray(low), template), _wrap(np.asarray(high), template)


def newcombe_p_value(p1: Any, e1: Any, p2: Any, e2: Any, max_drop: float = 0.0) -> np.ndarray:
    """One-sided p-value of H₀: ``p2 − p1 ≥ −max_drop`` by inverting Newcombe's interval (SPEC §18).

    The α′ in (0, ½) at which the upper end of the Newcombe hybrid-score
    interval at confidence 1 − 2α′ equals ``−max_drop``; 1 when the observed
    difference ``p2 − p1`` is ≥ ``−max_drop``. The upper end grows strictly
    with the quantile z = Φ⁻¹(1 − α′) whenever the difference is below
    ``−max_drop`` (then p1 > 0 and p2 < 1), so the root is found by bisection
    on z, vectorised over dimensions, and α′ = Φ(−z).

    Parameters
    ----------
    p1, e1 : array-like of float
        Rate and (effective) sample size of the baseline: the Wilson interval
        is taken at ``e1`` (``N/deff`` for the case-clustered interval).
    p2, e2 : array-like of float
        The same for the candidate.
    max_drop : float, default 0.0
        The tolerated drop.

    Returns
    -------
    ndarray of float
        One p-value per entry; NaN where a rate or size is undefined.

    Examples
    --------
    >>> p = newcombe_p_value(0.95, 100.0, 0.80, 100.0)
    >>> bool(0 < p[0] < 0.025)
    True
    >>> low, high = newcombe_interval(95, 100, 80, 100, confidence=1 - 2 * float(p[0]))
    >>> round(float(high), 9)
    0.0
    """
    from scipy.special import ndtr  # lazy: SciPy is heavy to import

    p1, e1, p2, e2 = np.broadcast_arrays(*(np.atleast_1d(np.asarray(x, dtype="float64")) for x in (p1, e1, p2, e2)))
    limit = -float(max_drop)
    with np.errstate(invalid="ignore"):
        undefined = np.isnan(p1) | np.isnan(p2) | ~(e1 > 0) | ~(e2 > 0)
        below = ~undefined & ((limit - (p2 - p1)) > _POINT_TOLERANCE)
    lo = np.zeros(p1.shape)
    hi = np.full(p1.shape, _Z_MAX)
    for _ in range(_BISECTIONS):  # each step halves every dimension's bracket at once
        mid = (lo + hi) / 2.0
        with np.errstate(divide="ignore", invalid="ignore"):
            _, high = _newcombe_bounds(p1, e1, p2, e2, mid)
        reached = high >= limit
        hi = np.where(reached, mid, hi)
        lo = np.where(reached, lo, mid)
    p = ndtr(-(lo + hi) / 2.0)
    return np.where(undefined, np.nan, np.where(below, p, 1.0))


# --------------------------------------------------------------------------- multiplicity
def holm_adjust(p_values: Any, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down procedure (Holm 1979) over the given p-values (SPEC §18).

    Parameters
    ----------
    p_values : array-like of float
        The m p-values of the comparisons to control together (no NaN).
    alpha : float
        The family-wise level.

    Returns
    -------
    p_adjusted, rejected : ndarray
        In the input's order: ``p_adjusted``(i) = max over j ≤ i of
        min(1, (m − j + 1)·p(j)) in ascending order of p, and whether each
        hypothesis is rejected (every p(j) ≤ α/(m − j + 1) for j ≤ i). Ties keep
        the input order.

    Examples
    --------
    >>> adjusted, rejected = holm_adjust([0.01, 0.04, 0.03, 0.005], 0.05)
    >>> [round(p, 12) for p in adjusted.tolist()], rejected.tolist()
    ([0.03, 0.06, 0.06, 0.02], [True, False, False, True])
    """
    p = np.asarray(p_values, dtype="float64").reshape(-1)
    if np.isnan(p).any():
        raise ValueError("p_values must not be NaN")
    m = p.size
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    factor = m - np.arange(m)  # m − j + 1 for j = 1..m
    adjusted = np.maximum.accumulate(np.minimum(1.0, factor * ranked))
    passes = np.logical_and.accumulate(ranked <= alpha / factor)
    out_p = np.empty(m)
    out_r = np.empty(m, dtype=bool)
    out_p[order] = adjusted
    out_r[order] = passes
    return out_p, out_r


def usable_comparisons(entries: Any) -> int:
    """How many entries of :func:`regressions` hold a usable controlled comparison (the m of Holm)."""
    return sum(1 for e in entries if e.get("controlled") and e.get("p_value") is not None)


def verdict_meaning(alpha: float, comparisons: int, multiplicity: str) -> str:
    """What a regression verdict means, in one phrase (SPEC §18).

    Examples
    --------
    >>> verdict_meaning(0.025, 8, "holm")
    'a drop shown at the 2.5% level across the 8 dimensions compared, Holm'
    >>> verdict_meaning(0.025, 1, "none")
    'a drop shown at the 2.5% level in each of the 1 dimension compared, no multiplicity control'
    """
    level = f"{100 * alpha:.4g}%"
    if comparisons == 0:
        return f"a drop shown at the {level} level; no dimension had a usable controlled comparison"
    dims = f"{comparisons} dimension{'' if comparisons == 1 else 's'} compared"
    if multiplicity == "holm":
        return f"a drop shown at the {level} level across the {dims}, Holm"
    return f"a drop shown at the {level} level in each of the {dims}, no multiplicity control"


# --------------------------------------------------------------------------- inputs
def _counts_of(frame: pd.DataFrame, names: list[str], which: str) -> tuple[np.ndarray, np.ndarray]:
    """PASS and PASS+FAIL counts of ``names`` (0 for a dimension the frame lacks)."""
    if "passes" not in frame.columns:
        raise ValueError(f"{which} needs a 'passes' column")
    if "n" in frame.columns:
        n = frame["n"]
    elif "fails" in frame.columns:
        n = frame["passes"] + frame["fails"]
    else:
        raise ValueError(f"{which} needs an 'n' (PASS+FAIL) or a 'fails' column")
    if not frame.index.is_unique:
        raise ValueError(f"{which} has duplicate dimensions in its index")
    passes = frame["passes"].reindex(names).fillna(0).to_numpy(dtype="float64")
    total = n.reindex(names).fillna(0).to_numpy(dtype="float64")
    passes, total = _successes_and_n(passes, total, (f"{which}.passes", f"{which}.n"))
    return passes, total


def _stated_deff(frame: pd.DataFrame, names: list[str], which: str) -> np.ndarray:
    """The ``deff`` column of a dimension table (1 where absent or undefined); each must be ≥ 1."""
    if "deff" not in frame.columns:
        return np.ones(len(names))
    deff = pd.to_numeric(frame["deff"], errors="coerce").reindex(names).to_numpy(dtype="float64")
    with np.errstate(invalid="ignore"):
        bad = np.isfinite(deff) & (deff < 1)
    if bad.any():
        raise ValueError(f"{which}.deff must be >= 1; got {deff[bad][0]!r}")
    return np.where(np.isfinite(deff), deff, 1.0)


def _num(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _case_table(frame: Any, which: str) -> pd.DataFrame:
    """A validated per-(dimension, case) count table: str keys, float64 counts, no duplicates.

    Sorted by (dimension, case id): every sum below adds a dimension's cases in one fixed
    order, so any order of the input gives the same bits.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"{which} must be a DataFrame with columns {', '.join(CASE_COLUMNS)}; got {type(frame).__name__}"
        )
    missing = [c for c in CASE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{which} needs the columns {', '.join(CASE_COLUMNS)}; missing {', '.join(missing)}")
    passes, n = _successes_and_n(
        frame["passes"].to_numpy(), frame["n"].to_numpy(), (f"{which}.passes", f"{which}.n")
    )
    keys = pd.DataFrame({"dimension": frame["dimension"].astype(str), "case_id": frame["case_id"].astype(str)})
    duplicated = keys.duplicated().to_numpy()
    if duplicated.any():
        first = keys.iloc[int(np.flatnonzero(duplicated)[0])]
        raise ValueError(f"{which} has case {first['case_id']!r} of dimension {first['dimension']!r} twice")
    return keys.assign(passes=passes, n=n).sort_values(["dimension", "case_id"], kind="stable", ignore_index=True)


def _case_deff(table: pd.DataFrame, names: list[str]) -> np.ndarray:
    """Each dimension's design effect from its per-case counts (a :func:`_case_table`; SPEC §6); NaN without one."""
    group = pd.Index(names).get_indexer(table["dimension"])
    keep = group >= 0
    _, _, deff = cluster_interval_grouped(
        table["passes"].to_numpy()[keep], table["n"].to_numpy()[keep], group[keep], ngroups=len(names),
    )
    return deff


def _pairs(base: pd.DataFrame, cand: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The (dimension, case) pairs measured (n ≥ 1) on both sides, sorted by (group, case), with dᵢ.

    Both are :func:`_case_table` s, sorted by (dimension, case id), and an inner merge keeps
    the left order; a stable sort by group (``names`` may come in any order) keeps each
    group's cases in id order.
    """
    both = base.merge(cand, on=["dimension", "case_id"], how="inner", suffixes=("_b", "_c"))
    group = pd.Index(names).get_indexer(both["dimension"])
    keep = np.flatnonzero((group >= 0) & (both["n_b"].to_numpy() > 0) & (both["n_c"].to_numpy() > 0))
    keep = keep[np.argsort(group[keep], kind="stable")]
    both = both.iloc[keep].assign(group=group[keep]).reset_index(drop=True)
    rate_b = both["passes_b"].to_numpy() / both["n_b"].to_numpy()
    rate_c = both["passes_c"].to_numpy() / both["n_c"].to_numpy()
    return both.assign(rate_b=rate_b, rate_c=rate_c, d=rate_c - rate_b)


def _measured_per_dimension(table: pd.DataFrame, names: list[str]) -> np.ndarray:
    group = pd.Index(names).get_indexer(table["dimension"])
    keep = (group >= 0) & (table["n"].to_numpy() > 0)
    return np.bincount(group[keep], minlength=len(names))


def _paired_stats(pairs: pd.DataFrame, size: int, confidence: float) -> dict[str, np.ndarray]:
    """Per-group m, mean dᵢ, sample sd and t interval (vectorised; equal dᵢ exactly)."""
    group = pairs["group"].to_numpy(dtype=np.intp)
    d = pairs["d"].to_numpy(dtype="float64")
    shared = np.bincount(group, minlength=size)
    total = np.bincount(group, weights=d, minlength=size)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(shared > 0, total / np.maximum(shared, 1), np.nan)
    spread = np.bincount(group, weights=(d - mean[group]) ** 2, minlength=size)
    # Equal differences: their value and no spread, exactly (a mean computed as
    # Σdᵢ/m can miss the common value by an ulp, and the spread by ~1e-34).
    present, starts = np.unique(group, return_index=True)
    smallest = np.full(size, np.nan)
    largest = np.full(size, np.nan)
    if len(d):
        smallest[present] = np.minimum.reduceat(d, starts)
        largest[present] = np.maximum.reduceat(d, starts)
    equal = (shared > 0) & (smallest == largest)
    mean = np.where(equal, smallest, mean)
    spread = np.where(equal, 0.0, spread)
    stats = mean_ci_arrays(shared, total, spread, confidence)
    half = stats["ci_half_width"]
    return {"shared": shared, "mean": mean, "sd": stats["stdev"], "low": mean - half, "high": mean + half}


def paired_differences(
    baseline_cases: pd.DataFrame, candidate_cases: pd.DataFrame, names: Any, confidence: float = 0.95
) -> dict[str, np.ndarray]:
    """Per-dimension paired difference of case rates (Miller 2024 §4), vectorised.

    Parameters
    ----------
    baseline_cases, candidate_cases : DataFrame
        One row per (dimension, case) with ``dimension``, ``case_id``,
        ``passes`` and ``n`` (measured trials, PASS + FAIL), in any order.
    names : sequence of str
        The dimensions to report, in this order; cases of other dimensions are
        ignored.
    confidence : float, default 0.95
        Level of the Student-t interval.

    Returns
    -------
    dict of ndarray, one entry per name
        ``shared`` (m: cases with n ≥ 1 on both sides), ``mean`` (of
        dᵢ = candidate case rate − baseline case rate; NaN when m = 0), ``sd``
        (their sample standard deviation; NaN when m < 2) and ``low`` /
        ``high``: the t interval with m − 1 degrees of freedom (NaN when
        m < 2). Equal differences give a zero-width interval exactly at their
        value, with no rounding residue in the mean or the spread.

    Examples
    --------
    >>> import pandas as pd
    >>> base = pd.DataFrame({"dimension": "d", "case_id": ["a", "b", "c"], "passes": [3, 3, 2], "n": 3})
    >>> cand = pd.DataFrame({"dimension": "d", "case_id": ["c", "b", "a"], "passes": [1, 2, 2], "n": 3})
    >>> out = paired_differences(base, cand, ["d"])
    >>> int(out["shared"][0]), round(float(out["mean"][0]), 6), float(out["high"][0]) < 0
    (3, -0.333333, True)
    """
    confidence = _check_confidence(confidence)
    names = [str(name) for name in names]
    if len(set(names)) != len(names):
        raise ValueError("names must not repeat a dimension")
    base = _case_table(baseline_cases, "baseline_cases")
    cand = _case_table(candidate_cases, "candidate_cases")
    return _paired_stats(_pairs(base, cand, names), len(names), confidence)


def _paired_p_value(stats: dict[str, np.ndarray], max_drop: float) -> np.ndarray:
    """One-sided paired t-test p-value of H₀: mean dᵢ ≥ −max_drop (SPEC §18)."""
    from scipy.special import stdtr  # lazy: SciPy is heavy to import

    m, mean, sd = stats["shared"].astype("float64"), stats["mean"], stats["sd"]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean + max_drop) / (sd / np.sqrt(m))
        p = stdtr(np.maximum(m - 1.0, 1.0), t)
        # No spread: the drop is certain or absent (a drop of exactly max_drop is not one).
        certain = np.where((-max_drop - mean) > _POINT_TOLERANCE, 0.0, 1.0)
    p = np.where(sd == 0, certain, p)
    return np.where(m >= 2, p, np.nan)


def _changed_cases(pairs: pd.DataFrame, names: list[str]) -> tuple[list[Any], list[Any]]:
    """Per dimension, the shared cases whose rate fell and rose: total and the largest |change| listed.

    ``pairs`` is sorted by (group, case id), so a case's row number is its rank by id: one
    ``np.lexsort`` orders every dimension's changes by |change| then id.
    """
    size = len(names)
    group = pairs["group"].to_numpy(dtype=np.intp)
    d = pairs["d"].to_numpy(dtype="float64")
    ids, before, after = pairs["case_id"].to_numpy(), pairs["rate_b"].to_numpy(), pairs["rate_c"].to_numpy()
    out: tuple[list[Any], list[Any]] = ([], [])
    for target, chosen in zip(out, (d < 0, d > 0), strict=True):
        rows = np.flatnonzero(chosen)
        rows = rows[np.lexsort((rows, -np.abs(d[rows]), group[rows]))]
        totals = np.bincount(group[rows], minlength=size)
        starts = np.concatenate(([0], np.cumsum(totals)))
        for k in range(size):
            head = rows[starts[k]:starts[k] + min(int(totals[k]), CASES_LISTED)]
            target.append({"total": int(totals[k]), "listed": [
                {"case_id": str(ids[r]), "baseline": float(before[r]), "candidate": float(after[r]),
                 "change": float(d[r])} for r in head]})
    return out


# --------------------------------------------------------------------------- the comparison
def _not_compared(bn: float, cn: float, shared: int | None, cases_given: tuple[bool, bool]) -> str | None:
    """Why a dimension cannot be compared (None: it can)."""
    if bn == 0 or cn == 0:
        side = "either side" if bn == 0 and cn == 0 else "the baseline" if bn == 0 else "the candidate"
        return f"not compared: no PASS/FAIL row on {side}"
    if all(cases_given) and shared is not None and shared < 2:
        cases = f"{shared} case{'' if shared == 1 else 's'}"
        return f"not compared: {cases} measured in both runs; a comparison needs at least 2"
    return None


def _rules(method: str, used: str, max_drop: float, confidence: float, alpha: float, multiplicity: str,
           cases_given: tuple[bool, bool]) -> str:
    """The test of one dimension in words (what ran, against what, at which level)."""
    level = f"{100 * alpha:.4g}%"
    limit = f"{-max_drop:g}" if max_drop else "0"  # not "-0"
    decided = (f"regressed when its Holm-adjusted p ≤ {level}" if multiplicity == "holm"
               else f"regressed when p ≤ {level}")
    if used == "point":
        return f"drop (baseline − candidate rate) > max_drop ({max_drop:g}); uncontrolled: no error rate"
    if used == "paired":
        return (f"one-sided paired t-test (m − 1 dof) of the mean per-case difference (candidate − baseline) "
                f"< −max_drop ({limit}); {decided}; interval: t at {confidence:g}")
    rule = (f"one-sided Newcombe test of (candidate − baseline) < −max_drop ({limit}) from the "
            f"case-clustered intervals (Wilson at N/deff, z); {decided}; interval: Newcombe at {confidence:g}")
    if method == "paired":
        side = "the baseline has" if not cases_given[0] else "the candidate has"
        if not any(cases_given):
            side = "neither side has"
        rule = f"paired needs per-case counts on both sides and {side} none: fell back to newcombe; " + rule
    return rule


def regressions(
    baseline_dims: pd.DataFrame,
    candidate_dims: pd.DataFrame,
    method: str = "paired",
    max_drop: float = 0.0,
    confidence: float = 0.95,
    *,
    multiplicity: str = "holm",
    baseline_cases: pd.DataFrame | None = None,
    candidate_cases: pd.DataFrame | None = None,
) -> list[dict[str, Any]]:
    """Compare a candidate with a baseline, one entry per dimension (SPEC §10, §18).

    Parameters
    ----------
    baseline_dims, candidate_dims : DataFrame
        Indexed by dimension, with ``passes`` and ``n`` (PASS + FAIL) columns
        (or ``passes`` and ``fails``) — e.g. ``Scorecard.dimensions`` — and
        optionally ``deff`` (the design effect ``newcombe`` uses for a side
        without per-case counts). The dimensions compared are the union of
        both indexes; a dimension missing on one side has n = 0 there.
    method : {"paired", "newcombe", "point"}, default "paired"
        The test asked for; ``paired`` without per-case counts on both sides
        runs ``newcombe`` (``method_used``).
    max_drop : float, default 0.0
        Tolerated drop of the rate: H₀ is "the difference is ≥ −max_drop".
    confidence : float, default 0.95
        Two-sided level of every interval; the tests are one-sided at
        α = (1 − confidence)/2.
    multiplicity : {"holm", "none"}, default "holm"
        ``holm``: Holm's step-down over the dimensions with a usable
        controlled comparison; ``none``: each at α.
    baseline_cases, candidate_cases : DataFrame, optional
        Per-(dimension, case) counts of each side (columns ``dimension``,
        ``case_id``, ``passes``, ``n``; see :func:`paired_differences`). The
        paired method needs both; ``newcombe`` takes each side's design effect
        from them; every method counts the shared cases and lists the changed
        ones from them.

    Returns
    -------
    list of dict
        Sorted by dimension, JSON-ready (undefined numbers are ``None``). Keys:
        ``dimension``; ``method`` (asked) and ``method_used`` (what ran);
        ``controlled`` (False for ``point``); ``status`` (``regressed``, ``ok``
        or ``undefined``); ``regressed`` (bool); ``baseline`` and
        ``candidate`` (each ``{n, passes, rate, ci_low, ci_high}``, the pooled
        Wilson interval); ``difference`` (candidate − baseline: of the pooled
        rates, or for ``paired`` the mean per-case difference over the shared
        cases); ``ci_low`` / ``ci_high`` (its interval at ``confidence``,
        unadjusted: t for ``paired``, Newcombe from the clustered intervals
        otherwise); ``p_value`` and ``p_adjusted`` (None for ``point`` and for
        an undefined entry; ``p_adjusted`` = ``p_value`` under ``none``);
        ``shared_cases``, ``cases_only_baseline``, ``cases_only_candidate``
        (cases measured on both sides or on one only; None without per-case
        counts on both sides); ``regressed_cases`` / ``improved_cases``
        (``{"total": int, "listed": [{case_id, baseline, candidate, change}]}``
        of the shared cases whose rate fell / rose, largest |change| first then
        case id, at most :data:`CASES_LISTED` listed; None without per-case
        counts on both sides); ``rule`` (the test in words, or why the
        dimension was not compared) and ``limit`` (−max_drop).

    Examples
    --------
    >>> import pandas as pd
    >>> base = pd.DataFrame({"passes": [95, 50], "n": [100, 100]}, index=["a", "b"])
    >>> cand = pd.DataFrame({"passes": [80, 49], "n": [100, 100]}, index=["a", "b"])
    >>> a, b = regressions(base, cand, "newcombe")
    >>> a["regressed"], b["regressed"], a["p_adjusted"] == min(1.0, 2 * a["p_value"])
    (True, False, True)
    """
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if not isinstance(multiplicity, str) or multiplicity not in MULTIPLICITY_CONTROLS:
        raise ValueError(f"multiplicity must be one of {', '.join(MULTIPLICITY_CONTROLS)}; got {multiplicity!r}")
    if isinstance(max_drop, bool) or not isinstance(max_drop, (int, float, np.integer, np.floating)):
        raise TypeError(f"max_drop must be a number; got {max_drop!r}")
    max_drop = float(max_drop)
    if not math.isfinite(max_drop) or max_drop < 0:
        raise ValueError(f"max_drop must be a finite number >= 0; got {max_drop!r}")
    confidence = _check_confidence(confidence)
    alpha = one_sided_alpha(confidence)
    for which, frame in (("baseline_dims", baseline_dims), ("candidate_dims", candidate_dims)):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{which} must be a DataFrame indexed by dimension; got {type(frame).__name__}")
    names = sorted(set(map(str, baseline_dims.index)) | set(map(str, candidate_dims.index)))
    size = len(names)
    baseline_dims = baseline_dims.rename(index=str)
    candidate_dims = candidate_dims.rename(index=str)
    bp, bn = _counts_of(baseline_dims, names, "baseline_dims")
    cp, cn = _counts_of(candidate_dims, names, "candidate_dims")
    base_table = None if baseline_cases is None else _case_table(baseline_cases, "baseline_cases")
    cand_table = None if candidate_cases is None else _case_table(candidate_cases, "candidate_cases")
    cases_given = (base_table is not None, cand_table is not None)
    used = "newcombe" if method == "paired" and not all(cases_given) else method

    # Each side's design effect: from its cases, else its table's `deff`, else 1 (SPEC §6, §10).
    b_deff = (_stated_deff(baseline_dims, names, "baseline_dims") if base_table is None
              else _case_deff(base_table, names))
    c_deff = (_stated_deff(candidate_dims, names, "candidate_dims") if cand_table is None
              else _case_deff(cand_table, names))
    with np.errstate(divide="ignore", invalid="ignore"):
        b_rate = np.where(bn > 0, bp / bn, np.nan)
        c_rate = np.where(cn > 0, cp / cn, np.nan)
        b_eff, c_eff = bn / b_deff, cn / c_deff
    z = z_value(confidence)
    b_low, b_high = _wilson_bounds(b_rate, bn, z)
    c_low, c_high = _wilson_bounds(c_rate, cn, z)
    diff = c_rate - b_rate
    defined = (bn > 0) & (cn > 0)

    shared = only_b = only_c = None
    fell: list[Any] = [None] * size
    rose: list[Any] = [None] * size
    paired = None
    if base_table is not None and cand_table is not None:
        pairs = _pairs(base_table, cand_table, names)
        paired = _paired_stats(pairs, size, confidence)
        shared = paired["shared"]
        only_b = _measured_per_dimension(base_table, names) - shared
        only_c = _measured_per_dimension(cand_table, names) - shared
        defined = defined & (shared >= 2)
        fell, rose = _changed_cases(pairs, names)

    p_value: np.ndarray | None
    with np.errstate(invalid="ignore"):
        if used == "paired":
            assert paired is not None
            estimate, low, high = paired["mean"], paired["low"], paired["high"]
            p_value = _paired_p_value(paired, max_drop)
        else:
            estimate = diff
            low, high = _newcombe_bounds(b_rate, b_eff, c_rate, c_eff, z)
            p_value = newcombe_p_value(b_rate, b_eff, c_rate, c_eff, max_drop) if used == "newcombe" else None
    controlled = used != "point"
    p_adjusted = np.full(size, np.nan)
    if p_value is None:  # point: the drop alone, uncontrolled
        regressed = defined & ((b_rate - c_rate) - max_drop > _POINT_TOLERANCE)
    else:
        usable = defined & np.isfinite(p_value)
        regressed = np.zeros(size, dtype=bool)
        if multiplicity == "holm":
            adjusted, rejected = holm_adjust(p_value[usable], alpha)
            p_adjusted[usable], regressed[usable] = adjusted, rejected
        else:
            p_adjusted[usable] = p_value[usable]
            regressed[usable] = p_value[usable] <= alpha
    status = np.where(~defined, "undefined", np.where(regressed, "regressed", "ok"))
    rule = _rules(method, used, max_drop, confidence, alpha, multiplicity, cases_given)

    entries = []
    for i, name in enumerate(names):
        shared_i = None if shared is None else int(shared[i])
        why = _not_compared(bn[i], cn[i], shared_i, cases_given)
        ok = why is None
        entries.append(
            {
                "dimension": name,
                "method": method,
                "method_used": used,
                "controlled": controlled,
                "status": str(status[i]),
                "regressed": bool(regressed[i]),
                "baseline": {
                    "n": int(bn[i]), "passes": int(bp[i]), "rate": _num(b_rate[i]),
                    "ci_low": _num(b_low[i]), "ci_high": _num(b_high[i]),
                },
                "candidate": {
                    "n": int(cn[i]), "passes": int(cp[i]), "rate": _num(c_rate[i]),
                    "ci_low": _num(c_low[i]), "ci_high": _num(c_high[i]),
                },
                "difference": _num(estimate[i]),
                "ci_low": _num(low[i]),
                "ci_high": _num(high[i]),
                "p_value": _num(p_value[i]) if p_value is not None and ok else None,
                "p_adjusted": _num(p_adjusted[i]) if ok else None,
                "shared_cases": shared_i,
                "cases_only_baseline": None if only_b is None else int(only_b[i]),
                "cases_only_candidate": None if only_c is None else int(only_c[i]),
                "regressed_cases": fell[i],
                "improved_cases": rose[i],
                "rule": rule if ok else why,
                "limit": -max_drop if max_drop else 0.0,
            }
        )
    return entries
