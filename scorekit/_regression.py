"""Regression tests of a candidate against a baseline, per dimension (SPEC §10).

Pure and vectorised over dimensions: every figure is computed from the PASS and
PASS+FAIL counts of each side with NumPy, no loop per dimension in the
statistics.

Methods (``regression.method`` of the policy):

``interval``
    the candidate rate lies below the baseline's Wilson lower bound;
``newcombe``
    the Newcombe (1998) hybrid-score interval of the difference
    (candidate − baseline) lies wholly below ``−max_drop``;
``point``
    the drop (baseline rate − candidate rate) exceeds ``max_drop``.

A dimension whose rate is undefined on either side (no PASS/FAIL row: n = 0)
cannot be compared: it is reported with status ``undefined`` and is never a
regression; :func:`scorekit.history.compare` then calls the comparison
``unusable`` (it cannot establish that nothing regressed).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ._stats import _check_confidence, _successes_and_n, _template, _wrap, wilson_interval

__all__ = ["METHODS", "newcombe_interval", "regressions"]

METHODS: tuple[str, ...] = ("interval", "newcombe", "point")

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


def regressions(
    baseline_dims: pd.DataFrame,
    candidate_dims: pd.DataFrame,
    method: str = "interval",
    max_drop: float = 0.0,
    confidence: float = 0.95,
) -> list[dict[str, Any]]:
    """Compare a candidate with a baseline, one entry per dimension (SPEC §10).

    Parameters
    ----------
    baseline_dims, candidate_dims : DataFrame
        Indexed by dimension, with ``passes`` and ``n`` (PASS + FAIL) columns
        (or ``passes`` and ``fails``) — e.g. ``Scorecard.dimensions``. The
        dimensions compared are the union of both indexes; a dimension missing
        on one side has n = 0 there.
    method : {"interval", "newcombe", "point"}
    max_drop : float, default 0.0
        Tolerated drop of the rate (``newcombe`` and ``point``; the ``interval``
        rule is the baseline's Wilson lower bound alone, as SPEC §10 states it).
    confidence : float, default 0.95
        Level of the Wilson and Newcombe intervals.

    Returns
    -------
    list of dict
        Sorted by dimension. Keys: ``dimension``, ``status`` (``regressed``,
        ``ok`` or ``undefined``), ``regressed`` (bool), ``baseline`` and
        ``candidate`` (each ``{n, passes, rate, ci_low, ci_high}``),
        ``difference`` (candidate − baseline rate), ``difference_ci_low`` /
        ``difference_ci_high`` (Newcombe), ``limit`` (what the method compares
        against: the baseline Wilson lower bound for ``interval``, −max_drop
        otherwise) and ``rule`` (the test, in words). Undefined numbers are
        ``None``, so the entries are JSON-ready.
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

    with np.errstate(divide="ignore", invalid="ignore"):
        b_rate = np.where(bn > 0, bp / bn, np.nan)
        c_rate = np.where(cn > 0, cp / cn, np.nan)
    b_low, b_high = (np.asarray(x, dtype="float64") for x in wilson_interval(bp, bn, confidence=confidence))
    c_low, c_high = (np.asarray(x, dtype="float64") for x in wilson_interval(cp, cn, confidence=confidence))
    d_low, d_high = (np.asarray(x, dtype="float64") for x in newcombe_interval(bp, bn, cp, cn, confidence=confidence))
    diff = c_rate - b_rate
    defined = (bn > 0) & (cn > 0)

    with np.errstate(invalid="ignore"):
        if method == "interval":
            limit = b_low
            regressed = defined & (c_rate < b_low)
            rule = "candidate rate < baseline Wilson lower bound"
        elif method == "newcombe":
            limit = np.full(len(names), -max_drop)
            regressed = defined & (d_high < -max_drop)
            rule = f"Newcombe interval of (candidate − baseline) wholly below −max_drop ({-max_drop:g})"
        else:
            limit = np.full(len(names), -max_drop)
            regressed = defined & ((b_rate - c_rate) - max_drop > _POINT_TOLERANCE)
            rule = f"drop (baseline − candidate rate) > max_drop ({max_drop:g})"
    status = np.where(~defined, "undefined", np.where(regressed, "regressed", "ok"))

    entries = []
    for i, name in enumerate(names):
        entries.append(
            {
                "dimension": name,
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
                "difference": _num(diff[i]),
                "difference_ci_low": _num(d_low[i]),
                "difference_ci_high": _num(d_high[i]),
                "limit": _num(limit[i]),
                "rule": rule if defined[i] else "not compared: no PASS/FAIL row on "
                + ("either side" if bn[i] == 0 and cn[i] == 0 else "the baseline" if bn[i] == 0 else "the candidate"),
            }
        )
    return entries
