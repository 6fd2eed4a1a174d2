"""Regression tests of a candidate against a baseline, per dimension (SPEC §10).

Pure and vectorised over dimensions: every figure is computed from the PASS and
PASS+FAIL counts of each side with NumPy, no loop per dimension in the
statistics; the paired method works on the per-(dimension, case) counts with
``np.bincount`` and ``reduceat``, no loop per case.

Methods (``regression.method`` of the policy):

``interval``
    the candidate rate lies below the baseline's Wilson lower bound;
``newcombe``
    the Newcombe (1998) hybrid-score interval of the difference
    (candidate − baseline) lies wholly below ``−max_drop``;
``point``
    the drop (baseline rate − candidate rate) exceeds ``max_drop``;
``paired``
    Miller (2024), *Adding Error Bars to Evals*, §4: the same cases measured
    twice are compared case by case. Over the cases measured in both runs
    (n ≥ 1 on both sides), dᵢ = candidate case rate − baseline case rate; the
    Student-t interval (m − 1 degrees of freedom, the policy's confidence) of
    the mean dᵢ lies wholly below ``−max_drop``. Equal differences give a
    zero-width interval at their value.

Every method reports the difference (candidate − baseline), its interval and
the number of shared cases (see :func:`regressions`).

A dimension whose rate is undefined on either side (no PASS/FAIL row: n = 0),
or, under ``paired``, one with fewer than 2 shared cases or without per-case
counts on a side, cannot be compared: it is reported with status
``undefined`` and is never a regression; :func:`scorekit.history.compare` then
calls the comparison ``unusable`` (it cannot establish that nothing regressed).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ._policy import REGRESSION_METHODS as METHODS
from ._stats import _check_confidence, _successes_and_n, _template, _wrap, mean_ci_arrays, wilson_interval

__all__ = ["CASE_COLUMNS", "METHODS", "newcombe_interval", "paired_differences", "regressions"]

#: Columns of a per-(dimension, case) count table (``passes`` of ``n`` measured trials).
CASE_COLUMNS: tuple[str, ...] = ("dimension", "case_id", "passes", "n")
# What each method reports as the interval of the difference.
_DIFF_INTERVAL = {"interval": "wilson", "newcombe": "newcombe", "point": "newcombe", "paired": "t"}

# Rates are ratios of counts; a drop of exactly max_drop must not become a
# regression through floating-point rounding (0.8 − 0.7 = 0.10000000000000009).
_POINT_TOLERANCE = 1e-12


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
    l1, u1 = wilson_interval(s1, t1, confidence=confidence)
    l2, u2 = wilson_interval(s2, t2, confidence=confidence)
    l1, u1, l2, u2 = (np.asarray(x, dtype="float64") for x in (l1, u1, l2, u2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = np.where(t1 > 0, s1 / t1, np.nan)
        p2 = np.where(t2 > 0, s2 / t2, np.nan)
        diff = p2 - p1
        low = diff - np.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
        high = diff + np.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return _wrap(np.asarray(low), template), _wrap(np.asarray(high), template)


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


def _num(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _case_table(frame: Any, which: str) -> pd.DataFrame:
    """A validated per-(dimension, case) count table: str keys, float64 counts, no duplicates."""
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
    return keys.assign(passes=passes, n=n)


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
        dᵢ = candidate case rate − baseline case rate; NaN when m = 0) and
        ``low`` / ``high``: the t interval with m − 1 degrees of freedom (NaN
        when m < 2). Equal differences give a zero-width interval exactly at
        their value, with no rounding residue in the mean or the spread.

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
    # Sorted by (dimension, case): the sums below add each dimension's cases in
    # one fixed order, so any order of the input gives the same bits.
    both = base.merge(cand, on=["dimension", "case_id"], how="inner", suffixes=("_b", "_c"), sort=True)
    group = pd.Index(names).get_indexer(both["dimension"])
    keep = (group >= 0) & (both["n_b"].to_numpy() > 0) & (both["n_c"].to_numpy() > 0)
    group = group[keep]
    order = np.argsort(group, kind="stable")
    group = group[order]
    with np.errstate(divide="ignore", invalid="ignore"):
        d = (both["passes_c"].to_numpy()[keep] / both["n_c"].to_numpy()[keep]
             - both["passes_b"].to_numpy()[keep] / both["n_b"].to_numpy()[keep])[order]
    size = len(names)
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
    half = mean_ci_arrays(shared, total, spread, confidence)["ci_half_width"]
    return {"shared": shared, "mean": mean, "low": mean - half, "high": mean + half}


def _not_compared(bn: float, cn: float, shared: int | None, cases_given: tuple[bool, bool], method: str) -> str | None:
    """Why a dimension cannot be compared (None: it can)."""
    if bn == 0 or cn == 0:
        side = "either side" if bn == 0 and cn == 0 else "the baseline" if bn == 0 else "the candidate"
        return f"not compared: no PASS/FAIL row on {side}"
    if method != "paired":
        return None
    if not cases_given[0]:
        return "not compared: the baseline has no per-case counts (the paired method needs them)"
    if not cases_given[1]:
        return "not compared: the candidate has no per-case counts (the paired method needs them)"
    if shared is not None and shared < 2:
        cases = f"{shared} case{'' if shared == 1 else 's'}"
        return f"not compared: {cases} measured in both runs; the paired method needs at least 2"
    return None


def regressions(
    baseline_dims: pd.DataFrame,
    candidate_dims: pd.DataFrame,
    method: str = "paired",
    max_drop: float = 0.0,
    confidence: float = 0.95,
    *,
    baseline_cases: pd.DataFrame | None = None,
    candidate_cases: pd.DataFrame | None = None,
) -> list[dict[str, Any]]:
    """Compare a candidate with a baseline, one entry per dimension (SPEC §10).

    Parameters
    ----------
    baseline_dims, candidate_dims : DataFrame
        Indexed by dimension, with ``passes`` and ``n`` (PASS + FAIL) columns
        (or ``passes`` and ``fails``) — e.g. ``Scorecard.dimensions``. The
        dimensions compared are the union of both indexes; a dimension missing
        on one side has n = 0 there.
    method : {"interval", "newcombe", "point", "paired"}
    max_drop : float, default 0.0
        Tolerated drop of the rate (``newcombe``, ``point`` and ``paired``; the
        ``interval`` rule is the baseline's Wilson lower bound alone, as SPEC
        §10 states it).
    confidence : float, default 0.95
        Level of the Wilson, Newcombe and t intervals.
    baseline_cases, candidate_cases : DataFrame, optional
        Per-(dimension, case) counts of each side (columns ``dimension``,
        ``case_id``, ``passes``, ``n``; see :func:`paired_differences`). The
        paired method needs both; the other methods use them only to count the
        shared cases.

    Returns
    -------
    list of dict
        Sorted by dimension. Keys: ``dimension``, ``method``, ``status``
        (``regressed``, ``ok`` or ``undefined``), ``regressed`` (bool),
        ``baseline`` and ``candidate`` (each ``{n, passes, rate, ci_low,
        ci_high}``), ``difference`` (candidate − baseline: of the pooled rates,
        or for ``paired`` the mean per-case difference dᵢ over the shared
        cases), ``diff_low`` / ``diff_high`` (the method's interval of it),
        ``diff_interval`` (what that interval is: ``wilson`` for ``interval`` —
        the candidate rate minus the baseline's Wilson interval, so the rule is
        ``diff_high < 0`` —, ``newcombe`` for ``newcombe`` and, for
        information, ``point``, ``t`` for ``paired``), ``shared_cases`` (cases
        measured on both sides; ``None`` without per-case counts on both
        sides), ``difference_ci_low`` / ``difference_ci_high`` (the Newcombe
        interval of the pooled difference, for every method), ``limit`` (what
        the method compares against: the baseline Wilson lower bound for
        ``interval``, −max_drop otherwise) and ``rule`` (the test in words, or
        why the dimension was not compared). Undefined numbers are ``None``, so
        the entries are JSON-ready.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if isinstance(max_drop, bool) or not isinstance(max_drop, (int, float, np.integer, np.floating)):
        raise TypeError(f"max_drop must be a number; got {max_drop!r}")
    max_drop = float(max_drop)
    if not math.isfinite(max_drop) or max_drop < 0:
        raise ValueError(f"max_drop must be a finite number >= 0; got {max_drop!r}")
    confidence = _check_confidence(confidence)
    for which, frame in (("baseline_dims", baseline_dims), ("candidate_dims", candidate_dims)):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{which} must be a DataFrame indexed by dimension; got {type(frame).__name__}")
    names = sorted(set(map(str, baseline_dims.index)) | set(map(str, candidate_dims.index)))
    baseline_dims = baseline_dims.rename(index=str)
    candidate_dims = candidate_dims.rename(index=str)
    bp, bn = _counts_of(baseline_dims, names, "baseline_dims")
    cp, cn = _counts_of(candidate_dims, names, "candidate_dims")
    cases_given = (baseline_cases is not None, candidate_cases is not None)
    paired = paired_differences(baseline_cases, candidate_cases, names, confidence) if all(cases_given) else None

    with np.errstate(divide="ignore", invalid="ignore"):
        b_rate = np.where(bn > 0, bp / bn, np.nan)
        c_rate = np.where(cn > 0, cp / cn, np.nan)
    b_low, b_high = (np.asarray(x, dtype="float64") for x in wilson_interval(bp, bn, confidence=confidence))
    c_low, c_high = (np.asarray(x, dtype="float64") for x in wilson_interval(cp, cn, confidence=confidence))
    d_low, d_high = (np.asarray(x, dtype="float64") for x in newcombe_interval(bp, bn, cp, cn, confidence=confidence))
    diff = c_rate - b_rate
    defined = (bn > 0) & (cn > 0)
    nothing = np.full(len(names), np.nan)

    with np.errstate(invalid="ignore"):
        if method == "interval":
            limit = b_low
            regressed = defined & (c_rate < b_low)
            estimate, low, high = diff, c_rate - b_high, c_rate - b_low
            rule = "candidate rate < baseline Wilson lower bound"
        elif method == "newcombe":
            limit = np.full(len(names), -max_drop)
            regressed = defined & (d_high < -max_drop)
            estimate, low, high = diff, d_low, d_high
            rule = f"Newcombe interval of (candidate − baseline) wholly below −max_drop ({-max_drop:g})"
        elif method == "point":
            limit = np.full(len(names), -max_drop)
            regressed = defined & ((b_rate - c_rate) - max_drop > _POINT_TOLERANCE)
            estimate, low, high = diff, d_low, d_high
            rule = f"drop (baseline − candidate rate) > max_drop ({max_drop:g})"
        else:  # paired
            limit = np.full(len(names), -max_drop)
            if paired is None:
                estimate, low, high = nothing, nothing, nothing
                defined = np.zeros(len(names), dtype=bool)
            else:
                estimate, low, high = paired["mean"], paired["low"], paired["high"]
                defined = defined & (paired["shared"] >= 2)
            # As for `point`: a drop of exactly max_drop (a zero-width interval
            # there) must not become a regression through rounding.
            regressed = defined & ((-max_drop - high) > _POINT_TOLERANCE)
            rule = (
                f"t interval ({confidence:g}) of the mean per-case difference (candidate − baseline) "
                f"wholly below −max_drop ({-max_drop:g})"
            )
    status = np.where(~defined, "undefined", np.where(regressed, "regressed", "ok"))
    shared = None if paired is None else paired["shared"]

    entries = []
    for i, name in enumerate(names):
        shared_i = None if shared is None else int(shared[i])
        why = _not_compared(bn[i], cn[i], shared_i, cases_given, method)
        entries.append(
            {
                "dimension": name,
                "method": method,
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
                "diff_low": _num(low[i]),
                "diff_high": _num(high[i]),
                "diff_interval": _DIFF_INTERVAL[method],
                "shared_cases": shared_i,
                "difference_ci_low": _num(d_low[i]),
                "difference_ci_high": _num(d_high[i]),
                "limit": _num(limit[i]),
                "rule": rule if why is None else why,
            }
        )
    return entries
