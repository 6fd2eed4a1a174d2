"""Statistics over counts: Wilson and case-clustered intervals, power, pass^k, pass@k, variance.

Pure NumPy (SciPy only for the Student t quantile, imported lazily; normal
quantiles come from :class:`statistics.NormalDist`). Every function is
vectorised over arrays and keeps pandas objects: a Series in gives a Series out
with the same index.

Conventions
-----------
* "no evidence" is NaN, never 0 or 1: ``n == 0`` for a rate, ``n < k`` for
  pass^k / pass@k, fewer than two values for a standard deviation.
* Bad input raises ``ValueError`` (a bad value) or ``TypeError`` (a bad type),
  naming the parameter and the first bad value.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from itertools import pairwise
from statistics import NormalDist
from typing import Any

import numpy as np

from ._constraints import Integral, Interval, validate

__all__ = [
    "assurance",
    "cases_needed",
    "cases_to_settle",
    "cluster_interval",
    "cluster_interval_grouped",
    "dimension_mde",
    "mean_ci",
    "minimum_detectable_drop",
    "one_sided_alpha",
    "pass_at_k",
    "pass_hat_k",
    "pass_k_interval",
    "wilson_interval",
    "z_value",
]


# --------------------------------------------------------------------------- helpers
# Scalar arguments, declared as data (scorekit._constraints: one validator for arguments and the policy).
_CONFIDENCE = Interval(0, 1, closed="neither")
_K = Integral(min=1)
_COMPARISONS = Integral(min=1)
_ALPHA = Interval(0, 1, closed="neither")


def _check_confidence(confidence: Any) -> float:
    """``confidence`` as a float in (0, 1), or InvalidParameterError (a ValueError and a TypeError) naming it."""
    return float(validate(confidence, "confidence", _CONFIDENCE))


def _k(k: Any) -> int:
    """``k`` as an int >= 1, or InvalidParameterError naming it."""
    return int(validate(k, "k", _K))


def k_values(k: Any) -> tuple[list[int], bool]:
    """``k`` (an int or a list of ints) as a list of ints >= 1, and whether a list was given.

    Examples
    --------
    >>> k_values(4), k_values([1, 2])
    (([4], False), ([1, 2], True))
    """
    import pandas as pd  # lazy: this module needs NumPy only

    if isinstance(k, (list, tuple, np.ndarray, pd.Index, range)):
        ks = list(k)
        if not ks:
            raise ValueError("k must be a positive integer or a non-empty list of them; got []")
        return [_k(item) for item in ks], True
    return [_k(k)], False


def z_value(confidence: float = 0.95) -> float:
    """Two-sided standard normal critical value for a confidence level.

    Exact from the confidence (``Φ⁻¹(1 − (1 − confidence)/2)``), not a rounded 1.96.

    Examples
    --------
    >>> round(z_value(0.95), 12)
    1.95996398454
    """
    confidence = _check_confidence(confidence)
    # -Φ⁻¹(α/2) rather than Φ⁻¹(1 − α/2): no rounding of 1 − α/2 to 1.0 for
    # confidences within 1e-16 of 1.
    return -NormalDist().inv_cdf((1.0 - confidence) / 2.0)


def one_sided_alpha(confidence: float = 0.95) -> float:
    """The one level of every test that can move a decision (SPEC §18): ``(1 − confidence)/2``.

    The policy's ``confidence`` sets every two-sided interval; each one-sided
    test (a regression, the power and the detectable drop) is at the level
    that makes it agree with that interval's bound.

    Examples
    --------
    >>> one_sided_alpha(0.95)
    0.025
    >>> one_sided_alpha(0.9)
    0.05
    """
    confidence = _check_confidence(confidence)
    # Rounded to 15 significant digits: a decimal confidence gives its decimal
    # level (0.025, not the 0.025000000000000022 of binary subtraction).
    return float(f"{(1.0 - confidence) / 2.0:.15g}")


def _template(*values: Any) -> Any:
    """The first pandas object among the inputs (its index is kept), else None."""
    for value in values:
        if hasattr(value, "index") and hasattr(value, "to_numpy"):
            return value
    return None


def _check_same_index(names: tuple[str, ...], values: tuple[Any, ...]) -> None:
    pandas_args = [(n, v) for n, v in zip(names, values, strict=True) if _template(v) is not None]
    for (name_a, a), (name_b, b) in pairwise(pandas_args):
        if not a.index.equals(b.index):
            raise ValueError(
                f"{name_a} and {name_b} are pandas objects with different indexes; "
                "align them first (e.g. b.reindex(a.index))"
            )


def _wrap(result: np.ndarray, template: Any) -> Any:
    """Give ``result`` the shape of the input: pandas stays pandas, scalars stay scalars."""
    if template is not None:
        import pandas as pd

        if isinstance(template, pd.DataFrame):
            return pd.DataFrame(result, index=template.index, columns=template.columns)
        return pd.Series(result, index=template.index, name=getattr(template, "name", None))
    if result.ndim == 0:
        return float(result)
    return result


def _numeric_array(value: Any, name: str, what: str) -> np.ndarray:
    """``value`` as float64, refusing strings (``"3"`` is a typo, not a count)."""
    if hasattr(value, "to_numpy") and hasattr(value, "dtype"):
        import pandas as pd

        if not (pd.api.types.is_numeric_dtype(value.dtype) or pd.api.types.is_bool_dtype(value.dtype)):
            raise TypeError(f"{name} must be {what}; got dtype {value.dtype}")
        floats: np.ndarray = value.to_numpy(dtype="float64", na_value=np.nan)  # pandas is untyped
        return floats
    arr = np.asarray(value)
    if arr.dtype == object:
        flat = arr.ravel()
        bad = [v for v in flat if isinstance(v, (str, bytes)) or not isinstance(v, numbers.Real)]
        if bad:
            raise TypeError(f"{name} must be {what}; got {bad[0]!r}")
        arr = arr.astype("float64")
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be {what}; got {value!r}")
    return arr.astype("float64", copy=False)


def _counts(value: Any, name: str) -> np.ndarray:
    """Validate non-negative integer counts; return them as float64 (NaN-friendly)."""
    arr = _numeric_array(value, name, "numeric counts")
    bad = ~np.isfinite(arr) | (arr < 0) | (arr != np.floor(arr))
    if bad.any():
        first = arr[bad].flat[0]
        raise ValueError(f"{name} must be non-negative integers; got {first!r}")
    return arr


def _successes_and_n(successes: Any, n: Any, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    _check_same_index(names, (successes, n))
    c = _counts(successes, names[0])
    total = _counts(n, names[1])
    try:
        c, total = np.broadcast_arrays(c, total)
    except ValueError as exc:
        raise ValueError(f"{names[0]} and {names[1]} have incompatible shapes: {exc}") from None
    over = c > total
    if over.any():
        i = np.flatnonzero(over.ravel())[0]
        raise ValueError(
            f"{names[0]} must not exceed {names[1]}; got {names[0]}={c.flat[i]:g}, "
            f"{names[1]}={total.flat[i]:g}"
        )
    return c, total


# --------------------------------------------------------------------------- Wilson
def _wilson_bounds(p: np.ndarray, n: np.ndarray, z: Any) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score bounds of a proportion ``p`` at sample size ``n`` (the one implementation).

    ``n`` may be real-valued (an effective sample size ``N/deff``); ``n == 0``
    (or NaN) gives NaN bounds. ``z`` is the quantile: a float, or an array
    broadcasting with ``p`` (the clustered interval's differs per group).
    Bounds are clipped to [0, 1] and are exactly 0 at ``p == 0`` and exactly 1
    at ``p == 1`` (rounding would leave ~1e-17).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        z2 = z * z
        denom = 1.0 + z2 / n
        center = (p + z2 / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
        low = np.where(p == 0, 0.0, np.clip(center - half, 0.0, 1.0))
        high = np.where(p == 1, 1.0, np.clip(center + half, 0.0, 1.0))
    empty = ~(n > 0)
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def wilson_interval(successes: Any, n: Any, confidence: float = 0.95) -> tuple[Any, Any]:
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    successes : int or array-like of int
        Number of successes (PASS rows); ``0 <= successes <= n``.
    n : int or array-like of int
        Number of trials (PASS + FAIL rows). ``n == 0`` gives NaN bounds: no
        evidence is not a rate of 0 or 1.
    confidence : float, default 0.95
        Two-sided confidence level in (0, 1); the critical value is exact.

    Returns
    -------
    low, high : float, ndarray or Series
        Bounds clipped to [0, 1], shaped like the input (a Series keeps its index).

    Examples
    --------
    >>> low, high = wilson_interval(5, 10)
    >>> round(low, 6), round(high, 6)
    (0.236593, 0.763407)
    """
    z = z_value(confidence)
    template = _template(successes, n)
    c, total = _successes_and_n(successes, n, ("successes", "n"))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = c / total
    low, high = _wilson_bounds(p, total, z)
    return _wrap(low, template), _wrap(high, template)


# --------------------------------------------------------------------------- case-clustered interval
def _group_codes(group: Any, size: int, ngroups: Any) -> tuple[np.ndarray, int]:
    """Validate integer group codes (one per case) and the number of groups."""
    if hasattr(group, "to_numpy") and hasattr(group, "dtype"):
        import pandas as pd

        if not pd.api.types.is_integer_dtype(group.dtype) or group.isna().any():
            raise TypeError(f"group must be integer group codes; got dtype {group.dtype}")
        codes = group.to_numpy(dtype="int64")
    else:
        codes = np.asarray(group)
        if codes.size == 0 and codes.dtype.kind == "f":  # an empty list: no codes, no type to judge
            codes = codes.astype(np.intp)
        if codes.dtype.kind not in "iu":
            raise TypeError(f"group must be integer group codes; got dtype {codes.dtype}")
    if codes.ndim != 1 or codes.size != size:
        raise ValueError(f"group must be one code per case ({size} cases); got shape {codes.shape}")
    if size and codes.min() < 0:
        raise ValueError(f"group codes must be non-negative; got {int(codes.min())}")
    top = int(codes.max()) + 1 if size else 0
    if ngroups is None:
        ngroups = top
    elif isinstance(ngroups, bool) or not isinstance(ngroups, numbers.Integral):
        raise TypeError(f"ngroups must be a non-negative integer; got {ngroups!r}")
    elif ngroups < top:
        raise ValueError(f"ngroups must exceed every group code; got ngroups={ngroups!r}, code {top - 1}")
    return codes.astype(np.intp, copy=False), int(ngroups)


def _per_case(c: Any, n: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validated per-case passes and measured trials: two 1-d float64 arrays."""
    cc, total = _successes_and_n(c, n, ("c", "n"))
    if cc.ndim != 1:
        raise ValueError(f"c and n must be one-dimensional, one entry per case; got shape {cc.shape}")
    return cc, total


def _cluster_quantile(cases: np.ndarray, repeated: np.ndarray, confidence: float) -> np.ndarray:
    """The clustered interval's quantile per group (SPEC §6): z, or Student t with m − 1 dof.

    t where some case of the group has more than one measured trial and the group
    has m >= 2 cases (the between-case variance is then estimated from m cases);
    z otherwise, so one trial per case gives exactly the pooled Wilson interval.
    SciPy is imported only when some group needs t.
    """
    quantile = np.full(cases.shape, z_value(confidence))
    use_t = (repeated > 0) & (cases >= 2)
    if use_t.any():
        quantile[use_t] = _t_quantile(1.0 - (1.0 - confidence) / 2.0, cases[use_t] - 1.0)
    return quantile


def _cluster_arrays(
    c: np.ndarray, n: np.ndarray, group: np.ndarray, ngroups: int, confidence: float,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Clustered Wilson bounds and design effect per group from validated per-case counts
    (each entry standing for ``weights`` cases with those counts, one when None).

    The cases are first folded into their distinct (group, cᵢ, nᵢ) (:func:`fold`), and every
    sum is one ``np.bincount`` over those in sorted order. Σnᵢ, Σcᵢ and Σnᵢ² are sums of
    integers, exact in float64 below 2**53; the residual sum of squares Σ(cᵢ − p̂nᵢ)² is
    a float sum, so the fold is what makes it the same bits for cases listed one by one,
    in any order, or as a histogram.
    """

    c, n, group, weights = fold(c, n, group, weights)

    def total(values: np.ndarray) -> np.ndarray:
        return np.bincount(group, weights=values * weights, minlength=ngroups)

    cases = total(n > 0)  # cases with nᵢ = 0 add nothing to any other sum
    trials = total(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = total(c) / trials
        ceiling = total(n * n) / trials
        residual = c - p[group] * n
        spread = total(residual * residual)
        estimate = cases / (cases - 1.0) * spread / (trials * p * (1.0 - p))
        deff = np.where(
            cases == 1,
            trials,
            np.where((p == 0) | (p == 1), ceiling, np.clip(estimate, 1.0, ceiling)),
        )
        deff = np.where(trials > 0, deff, np.nan)
    quantile = _cluster_quantile(cases, total(n > 1), confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = _wilson_bounds(p, trials / deff, quantile)
    return low, high, deff


def cluster_interval(c: Any, n: Any, confidence: float = 0.95) -> tuple[float, float, float]:
    """Case-clustered Wilson interval of one dimension's pass rate, and its design effect.

    Repeated trials of one case are correlated: the case, not the trial, is the
    unit of sampling, so the pooled Wilson interval is too narrow when trials
    repeat. This interval is the Wilson interval of the pooled rate at the
    effective sample size ``N / deff``.

    Parameters
    ----------
    c : array-like of int
        Passing (PASS) trials per case; ``0 <= c <= n``.
    n : array-like of int
        Measured (PASS + FAIL) trials per case. Cases with ``n == 0`` are ignored.
    confidence : float, default 0.95
        Two-sided confidence level in (0, 1); the quantile (z or Student t) is exact.

    Returns
    -------
    low, high, deff : float
        Bounds clipped to [0, 1] and the design effect; all NaN when no case has a
        measured trial (no evidence).

    See Also
    --------
    cluster_interval_grouped : the same for many dimensions in one vectorised call.
    wilson_interval : the pooled interval, which treats every trial as independent.

    Notes
    -----
    Over the cases i = 1..m with nᵢ ≥ 1, N = Σnᵢ, p̂ = Σcᵢ/N and D = Σnᵢ²/N (the
    design effect of perfectly correlated trials within a case)::

        deff = N                                               if m = 1
             = D                                               if p̂ = 0 or p̂ = 1
             = clamp(m/(m−1) · Σ(cᵢ − p̂nᵢ)² / (N·p̂(1−p̂)), 1, D)  otherwise

    The unclamped ratio is the cluster-robust variance of the ratio estimator p̂,
    ``m/(m−1) · Σ(cᵢ − p̂nᵢ)² / N²`` (Miller 2024, §2.2), over the binomial
    variance ``p̂(1−p̂)/N`` (Kish's design effect). A single case, or data with no
    variation, cannot show that trials are independent, so the worst case is
    assumed (fail closed). The interval is the Wilson interval of p̂ at the
    real-valued effective size ``N/deff`` (not rounded), clipped to [0, 1].

    Its quantile is Student t with m − 1 degrees of freedom when some case has
    more than one measured trial and m ≥ 2: the between-case variance behind
    ``deff`` is estimated from m cases, and with z the interval undercovers
    (89.6% for a nominal 95% at 5 cases × 5 trials). It is z when no case has
    more than one measured trial — then ``deff = 1`` and the interval equals the
    pooled Wilson interval — or when m = 1 (``deff = N`` already assumes the
    worst). SciPy is imported only when the t quantile is needed.

    References
    ----------
    .. [1] E. Miller, "Adding Error Bars to Evals: A Statistical Approach to
       Language Model Evaluations", arXiv:2411.00640, 2024.
    .. [2] L. Kish, *Survey Sampling*, Wiley, 1965, §8.2 (design effect).
    .. [3] E. B. Wilson, "Probable inference, the law of succession, and
       statistical inference", JASA 22:209–212, 1927.
    .. [4] A. C. Cameron and D. L. Miller, "A practitioner's guide to
       cluster-robust inference", J. Human Resources 50:317–372, 2015, §VI
       (t with G − 1 degrees of freedom for few clusters).

    Examples
    --------
    >>> low, high, deff = cluster_interval([5, 3, 4, 0, 2], [5, 5, 5, 5, 5])
    >>> round(deff, 6), round(low, 6), round(high, 6)   # t with 4 degrees of freedom
    (3.003247, 0.185752, 0.876552)
    >>> low, high, deff = cluster_interval([1, 0, 1], [1, 1, 1])   # one trial per case: Wilson
    >>> (low, high) == wilson_interval(2, 3)
    True
    """
    confidence = _check_confidence(confidence)
    cc, total = _per_case(c, n)
    low, high, deff = _cluster_arrays(cc, total, np.zeros(cc.size, dtype=np.intp), 1, confidence)
    return float(low[0]), float(high[0]), float(deff[0])


def cluster_interval_grouped(
    c: Any, n: Any, group: Any, confidence: float = 0.95, *, ngroups: int | None = None, weights: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`cluster_interval` for many dimensions at once, fully vectorised.

    Parameters
    ----------
    c, n : array-like of int
        Passing and measured (PASS + FAIL) trials, one entry per (dimension, case).
    group : array-like of int
        The dimension's integer code (``0 <= group < ngroups``) of each entry;
        entries need not be sorted or contiguous.
    confidence : float, default 0.95
        Two-sided confidence level in (0, 1).
    ngroups : int, optional
        Number of groups (default ``max(group) + 1``); a group without a measured
        case gets NaN.
    weights : array-like of int, optional
        How many cases each entry stands for (default one each): the counts of
        cases held as a histogram of their (cᵢ, nᵢ) give the same interval as
        the cases listed one by one, bit for bit.

    Returns
    -------
    low, high, deff : ndarray of shape (ngroups,)
        Per group, exactly what :func:`cluster_interval` returns for that group's
        entries taken in input order (the quantile, z or t with m − 1 degrees of
        freedom, is chosen per group).

    Notes
    -----
    The entries are first folded into their distinct (group, cᵢ, nᵢ) in sorted
    order, each with the number of cases it stands for (:func:`fold`); each
    per-group sum is then one ``np.bincount`` over those. The integer-valued
    sums (Σnᵢ, Σcᵢ, Σnᵢ², the number of cases) are exact; the residual sum of
    squares Σ(cᵢ − p̂nᵢ)² is a float sum, and the fold makes it the same bits
    whatever the order of the entries and whether cases come one by one or as
    a histogram (``weights``).

    Examples
    --------
    >>> low, high, deff = cluster_interval_grouped([3, 2, 5, 3, 4, 0, 2], [3, 3, 5, 5, 5, 5, 5],
    ...                                            [0, 0, 1, 1, 1, 1, 1])
    >>> deff.round(6).tolist()
    [1.2, 3.003247]
    """
    confidence = _check_confidence(confidence)
    _check_same_index(("c", "weights"), (c, weights))
    cc, total = _per_case(c, n)
    codes, ngroups = _group_codes(group, cc.size, ngroups)
    return _cluster_arrays(cc, total, codes, ngroups, confidence, _weights(weights, cc.size))


def _weights(weights: Any, size: int) -> np.ndarray | None:
    """Validated case weights (how many cases an entry stands for): integers >= 1, one per entry."""
    if weights is None:
        return None
    what = "integers >= 1 (the cases each entry stands for)"
    kind = getattr(getattr(weights, "dtype", None), "kind", None) or np.asarray(weights).dtype.kind
    if kind == "b":
        raise TypeError(f"weights must be {what}; got booleans")
    w = _numeric_array(weights, "weights", what)
    if w.shape != (size,):
        raise ValueError(f"weights must be one count per entry ({size} entries); got shape {w.shape}")
    bad = ~np.isfinite(w) | (w < 1) | (w != np.floor(w))
    if bad.any():
        raise ValueError(f"weights must be {what}; got {w[bad][0]!r}")
    return w


def grouped_case_mean(values: Callable[[np.ndarray, np.ndarray], Any], c: np.ndarray, n: np.ndarray,
                      group: np.ndarray, weights: np.ndarray | None, ngroups: int) -> np.ndarray:
    """Per group, the mean over its cases of ``values(cᵢ, nᵢ)`` ignoring NaN (NaN where none is
    defined), summed over the :func:`fold` of the cases: the mean :func:`pass_k_interval` reports,
    bit for bit, for pass^k."""
    cf, nf, gf, w = fold(c, n, group, weights)
    v = np.asarray(values(cf, nf), dtype=np.float64)
    defined = ~np.isnan(v)
    sums = np.bincount(gf, weights=np.where(defined, v, 0.0) * w, minlength=ngroups)
    counts = np.bincount(gf, weights=defined * w, minlength=ngroups)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean: np.ndarray = np.where(counts > 0, sums / counts, np.nan)
    return mean


def fold(c: np.ndarray, n: np.ndarray, group: np.ndarray, weights: np.ndarray | None = None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cases folded into their distinct (group, c, n), sorted, each with the number of cases it stands
    for: the one order every per-case sum here is taken in.

    A sum over the cases of a function of (cᵢ, nᵢ) is then the same float whether the cases come one
    by one, in any order, or already counted as a histogram (``weights``): the clustered interval and
    pass^k of a scorecard equal those of :func:`cluster_interval` and :func:`pass_k_interval` on its
    per-case counts, bit for bit.
    """
    w = np.ones(c.size) if weights is None else np.asarray(weights, dtype=np.float64)
    if not c.size:
        return c, n, group, w
    keys, folded = distinct_rows(np.column_stack([group, n, c]).astype(np.int64), w)
    return keys[:, 2].astype(np.float64), keys[:, 1].astype(np.float64), keys[:, 0].astype(np.intp), folded


def distinct_rows(table: np.ndarray, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of an (m, k) array of non-negative integers, in lexicographic order, and for
    each the sum of the ``weights`` of the rows equal to it (how many there are when None)."""
    w = np.ones(len(table)) if weights is None else weights
    widths = table.max(axis=0) + 1 if len(table) else np.ones(table.shape[1], dtype=np.int64)
    if float(np.prod(widths.astype(np.float64))) < 2.0**62:  # one mixed-radix int64 key per row
        key = np.zeros(len(table), dtype=np.int64)
        for column, width in zip(table.T, widths, strict=True):
            key *= width
            key += column
        _, first, at = np.unique(key, return_index=True, return_inverse=True)
        keys = table[first]
    else:  # pragma: no cover - values past 2**62 combined
        keys, at = np.unique(table, axis=0, return_inverse=True)
    summed: np.ndarray = np.bincount(np.ravel(at), weights=w, minlength=len(keys))
    return keys, summed


# --------------------------------------------------------------------------- power
# cases_needed refuses answers it could not count exactly in float64.
_MAX_CASES = 2.0**53 - 2.0


def _parameter(value: Any, name: str, what: str, inside: Any) -> np.ndarray:
    """A real-valued parameter as float64, finite and ``inside(arr)`` everywhere."""
    dtype = getattr(value, "dtype", None)
    if isinstance(value, (bool, np.bool_)) or getattr(dtype, "kind", None) == "b":
        raise TypeError(f"{name} must be {what}; got {value!r}")
    arr = _numeric_array(value, name, what)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr) | ~inside(arr)
    if bad.any():
        raise ValueError(f"{name} must be {what}; got {float(arr[bad].flat[0])!r}")
    return arr


def _unit(value: Any, name: str) -> np.ndarray:
    return _parameter(value, name, "a number in (0, 1)", lambda a: (a > 0) & (a < 1))


def _whole(value: Any, name: str) -> np.ndarray:
    return _parameter(value, name, "a whole number >= 1", lambda a: (a >= 1) & (a == np.floor(a)))


def _normal_quantile(p: np.ndarray) -> np.ndarray:
    """Φ⁻¹ elementwise (:class:`statistics.NormalDist`, as :func:`z_value`).

    Evaluated once per distinct value: alpha and power are settings, nearly
    always one value for a whole table.
    """
    values, inverse = np.unique(p, return_inverse=True)
    quantile = NormalDist().inv_cdf
    return np.array([quantile(float(v)) for v in values], dtype="float64")[inverse].reshape(p.shape)


def _z_sum(alpha: np.ndarray, power: np.ndarray) -> np.ndarray:
    """``z₁₋α + z_power`` (one-sided), refusing power ≤ alpha (a drop ≤ 0 is meaningless)."""
    weak = power <= alpha
    if weak.any():
        i = np.flatnonzero(weak.ravel())[0]
        raise ValueError(
            f"power must be greater than alpha; got power={float(power.flat[i])!r}, alpha={float(alpha.flat[i])!r}"
        )
    # −Φ⁻¹(α) rather than Φ⁻¹(1 − α): no rounding of 1 − α.
    z_sum: np.ndarray = -_normal_quantile(alpha) + _normal_quantile(power)
    return z_sum


def _drop(z_sum: np.ndarray, rate: np.ndarray, effective_n: np.ndarray) -> np.ndarray:
    """The one formula: ``(z₁₋α + z_power) · √(2·rate·(1 − rate) / effective n)``."""
    drop: np.ndarray = z_sum * np.sqrt(2.0 * rate * (1.0 - rate) / effective_n)
    return drop


def _effective_trials(cases: Any, trials: np.ndarray, icc: np.ndarray) -> np.ndarray:
    """``cases·trials / (1 + (trials − 1)·icc)``: trials correlated within a case count for less.

    Non-decreasing in ``cases`` in floating point too (a correctly rounded
    product, then a division by a fixed number: both monotone), which
    :func:`cases_needed` relies on.
    """
    effective: np.ndarray = cases * trials / (1.0 + (trials - 1.0) * icc)
    return effective


def _broadcast(names: tuple[str, ...], arrays: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    try:
        return list(np.broadcast_arrays(*arrays))
    except ValueError as exc:
        raise ValueError(f"{', '.join(names)} have incompatible shapes: {exc}") from None


def _positive(value: Any, name: str) -> np.ndarray:
    return _parameter(value, name, "a number > 0", lambda a: a > 0)


def _power_arguments(
    rate: Any, name: str, value: Any, check: Any, trials: Any, icc: Any, alpha: Any, power: Any
) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validate and broadcast the power functions' arguments (``value`` is cases or drop).

    Returns the pandas template, rate, ``value``, trials, icc and ``z₁₋α + z_power``.
    """
    names = ("rate", name, "trials", "icc", "alpha", "power")
    values = (rate, value, trials, icc, alpha, power)
    _check_same_index(names, values)
    r, x, t, rho, a, b = _broadcast(
        names,
        (
            _unit(rate, "rate"),
            check(value, name),
            _whole(trials, "trials"),
            _parameter(icc, "icc", "a number in [0, 1]", lambda v: (v >= 0) & (v <= 1)),
            _unit(alpha, "alpha"),
            _unit(power, "power"),
        ),
    )
    return _template(*values), r, x, t, rho, _z_sum(a, b)


def minimum_detectable_drop(
    rate: Any, cases: Any, *, trials: Any = 1, icc: Any = 0.0, alpha: Any = 0.025, power: Any = 0.8
) -> Any:
    """Smallest drop in pass rate an evaluation of this size detects with the given power.

    Parameters
    ----------
    rate : float or array-like
        The pass rate before the drop, in (0, 1).
    cases : int or array-like of int
        Number of cases evaluated on each side, ``>= 1``.
    trials : int or array-like of int, default 1
        Trials per case, ``>= 1``.
    icc : float or array-like, default 0.0
        Intra-case correlation of trials, in [0, 1]: 0 when repeated trials of a
        case are independent, 1 when they always agree.
    alpha : float or array-like, default 0.025
        One-sided significance level, in (0, 1). The default is the level of
        the gate's own one-sided tests at its default confidence 0.95,
        :func:`one_sided_alpha` ``(0.95)`` (SPEC §18): a drop of the returned
        size is then caught by the regression test with the stated power.
    power : float or array-like, default 0.8
        Probability of detecting a drop of the returned size, in (alpha, 1).

    Returns
    -------
    float, ndarray or Series
        The drop (a difference of rates), broadcast over the arguments; a Series
        argument gives a Series with its index.

    Raises
    ------
    TypeError
        An argument is not a number (a string, a boolean).
    ValueError
        An argument is out of range or not a whole number where one is needed;
        the message names the argument and the first bad value.

    See Also
    --------
    cases_needed : the inverse, the cases needed to detect a given drop.

    Notes
    -----
    One-sided normal approximation for the difference of two independent rates
    of equal size (Miller 2024, §5)::

        (z₁₋α + z_power) · √(2·rate·(1 − rate) · (1 + (trials − 1)·icc) / (cases·trials))

    ``1 + (trials − 1)·icc`` is the design effect of ``trials`` correlated trials
    per case: extra trials help only as far as they are independent. Quantiles
    come from :class:`statistics.NormalDist` (no SciPy import), evaluated once
    per distinct alpha and power.

    References
    ----------
    .. [1] E. Miller, "Adding Error Bars to Evals: A Statistical Approach to
       Language Model Evaluations", arXiv:2411.00640, 2024, §5.

    Examples
    --------
    >>> round(minimum_detectable_drop(0.9, 100), 12)
    0.118861194348
    >>> round(minimum_detectable_drop(0.9, 100, alpha=0.05), 12)
    0.105492194108
    >>> minimum_detectable_drop(0.9, [100, 400]).round(4).tolist()
    [0.1189, 0.0594]
    """
    template, r, m, t, rho, z_sum = _power_arguments(rate, "cases", cases, _whole, trials, icc, alpha, power)
    out = _drop(z_sum, r, _effective_trials(m, t, rho))
    return _wrap(np.asarray(out), template)


def cases_needed(
    rate: Any, drop: Any, *, trials: Any = 1, icc: Any = 0.0, alpha: Any = 0.025, power: Any = 0.8
) -> Any:
    """Smallest number of cases whose :func:`minimum_detectable_drop` is at most ``drop``.

    Parameters
    ----------
    rate : float or array-like
        The pass rate before the drop, in (0, 1).
    drop : float or array-like
        The drop in pass rate to detect, ``> 0``.
    trials, icc, alpha, power
        As for :func:`minimum_detectable_drop`.

    Returns
    -------
    int, ndarray of int64 or Series
        Cases per side, ``>= 1``, broadcast over the arguments.

    Raises
    ------
    TypeError, ValueError
        As for :func:`minimum_detectable_drop`; also ``ValueError`` when the
        answer would exceed 2**53 − 2 cases (``drop`` far too small to count).

    Notes
    -----
    Solved in closed form, ``ceil((z₁₋α + z_power)² · 2·rate·(1 − rate) ·
    (1 + (trials − 1)·icc) / (trials · drop²))``, then corrected one case at a
    time until the defining inequality holds exactly in floating point:
    ``minimum_detectable_drop(rate, m) <= drop`` and, for ``m > 1``,
    ``minimum_detectable_drop(rate, m − 1) > drop`` (the computed drop never
    increases with m, so the correction ends after a step or two).

    References
    ----------
    .. [1] E. Miller, "Adding Error Bars to Evals: A Statistical Approach to
       Language Model Evaluations", arXiv:2411.00640, 2024, §5.

    Examples
    --------
    >>> cases_needed(0.9, 0.05)
    566
    >>> cases_needed(0.9, 0.05, alpha=0.05)
    446
    >>> cases_needed(0.9, 0.05, trials=5, icc=0.25)   # 5 correlated trials per case
    227
    >>> cases_needed(0.9, [0.05, 0.1]).tolist()
    [566, 142]
    """
    template, r, d, t, rho, z_sum = _power_arguments(rate, "drop", drop, _positive, trials, icc, alpha, power)
    with np.errstate(over="ignore", divide="ignore"):  # a drop too small to count is refused next
        m = np.maximum(np.ceil(z_sum * z_sum * 2.0 * r * (1.0 - r) / (d * d * _effective_trials(1.0, t, rho))), 1.0)
    huge = ~(m <= _MAX_CASES)
    if huge.any():
        i = np.flatnonzero(huge.ravel())[0]
        raise ValueError(f"drop is too small to count the cases needed (more than 2**53); got {float(d.flat[i])!r}")

    def detectable(cases: np.ndarray) -> np.ndarray:
        return _drop(z_sum, r, _effective_trials(cases, t, rho))

    while True:
        more = detectable(m) > d
        fewer = ~more & (m > 1) & (detectable(np.maximum(m - 1.0, 1.0)) <= d)
        if not (more.any() or fewer.any()):
            break
        m = m + more - fewer
    out = m.astype(np.int64)
    if template is None and out.ndim == 0:
        return int(out)
    return _wrap(out, template)


def dimension_mde(
    passes: Any,
    n: Any,
    deff: Any,
    confidence: float = 0.95,
    *,
    power: float = 0.8,
    comparisons: int = 1,
    alpha: float | None = None,
) -> Any:
    """The drop a dimension's own evidence could detect (the scorecard's ``mde``).

    Parameters
    ----------
    passes, n : int or array-like of int
        PASS and measured (PASS + FAIL) trials per dimension.
    deff : float or array-like
        The dimension's design effect (:func:`cluster_interval`), ``>= 1`` where
        ``n > 0``; ignored (may be NaN) where ``n == 0``.
    confidence : float, default 0.95
        The policy's confidence; the test is one-sided at
        ``alpha = one_sided_alpha(confidence) / comparisons`` (SPEC §6, §18).
    power : float, default 0.8
        Probability of detecting the drop, greater than alpha.
    comparisons : int, default 1
        The number of dimensions compared under ``multiplicity: holm``: the
        level of Holm's first step is alpha divided by it (1 for
        ``multiplicity: none``).
    alpha : float, optional
        The one-sided level, in (0, 1) and below ``power``, in place of
        ``one_sided_alpha(confidence)``; still divided by ``comparisons``. For
        the notebook's ``alpha`` parameter, and for checking an ``mde`` stored
        before issue 26 (schema version 1: ``alpha = 1 − confidence``).

    Returns
    -------
    float, ndarray or Series
        NaN where ``n == 0`` (no evidence).

    Raises
    ------
    TypeError, ValueError
        A bad argument, named with its first bad value.

    Notes
    -----
    :func:`minimum_detectable_drop` with the rate ``p̃ = (passes + 2)/(n + 4)``
    (Agresti–Coull: never 0 or 1, so a perfect record still has a finite
    detectable drop) and the effective size ``n/deff`` in place of
    ``cases·trials/(1 + (trials − 1)·icc)``, at the level the regression test
    of that dimension is first held to: ``one_sided_alpha(confidence)``, and
    under Holm's procedure over ``comparisons`` dimensions that level divided
    by ``comparisons`` (the step a single regressed dimension must pass).

    References
    ----------
    .. [1] E. Miller, "Adding Error Bars to Evals: A Statistical Approach to
       Language Model Evaluations", arXiv:2411.00640, 2024, §5.
    .. [2] A. Agresti and B. A. Coull, "Approximate is better than 'exact' for
       interval estimation of binomial proportions", The American Statistician
       52:119–126, 1998.
    .. [3] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6:65–70, 1979.

    Examples
    --------
    >>> round(dimension_mde(98, 100, 1.0), 6)
    0.076193
    >>> round(dimension_mde(98, 100, 1.0, comparisons=8), 6)   # Holm over 8 dimensions
    0.097254
    >>> dimension_mde([98, 0], [100, 0], [2.5, float("nan")]).round(6).tolist()
    [0.120472, nan]
    """
    confidence = _check_confidence(confidence)
    level = one_sided_alpha(confidence) if alpha is None else validate(alpha, "alpha", _ALPHA)
    level /= validate(comparisons, "comparisons", _COMPARISONS)
    names = ("passes", "n", "deff")
    _check_same_index(names, (passes, n, deff))
    template = _template(passes, n, deff)
    c, total = _successes_and_n(passes, n, ("passes", "n"))
    c, total, design = _broadcast(names, (c, total, _design_effect_array(deff)))
    design = _check_design_effects(design, total)
    z_sum = _z_sum(np.asarray(level), _unit(power, "power"))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _drop(z_sum, (c + 2.0) / (total + 4.0), total / design)
    return _wrap(np.where(total > 0, out, np.nan), template)


# --------------------------------------------------------------------------- threshold assurance (§18)
def _thresholds(value: Any) -> np.ndarray:
    """Thresholds as float64: each in [0, 1] or NaN (no threshold set)."""
    dtype = getattr(value, "dtype", None)
    if isinstance(value, (bool, np.bool_)) or getattr(dtype, "kind", None) == "b":
        raise TypeError(f"threshold must be a number in [0, 1] or NaN; got {value!r}")
    arr = _numeric_array(value, "threshold", "a number in [0, 1] or NaN")
    with np.errstate(invalid="ignore"):
        bad = ~np.isnan(arr) & ~((arr >= 0.0) & (arr <= 1.0))
    if bad.any():
        raise ValueError(f"threshold must be a number in [0, 1] or NaN; got {float(arr[bad].flat[0])!r}")
    return arr


def _design_effect_array(deff: Any) -> np.ndarray:
    """Design effects as float64 (checked against ``n`` by :func:`_check_design_effects`)."""
    dtype = getattr(deff, "dtype", None)
    if isinstance(deff, (bool, np.bool_)) or getattr(dtype, "kind", None) == "b":
        raise TypeError(f"deff must be a number >= 1; got {deff!r}")
    return _numeric_array(deff, "deff", "design effects")


def _check_design_effects(design: np.ndarray, total: np.ndarray) -> np.ndarray:
    """``design``, each ``>= 1`` where there is evidence (``n > 0``); anything (NaN) elsewhere."""
    with np.errstate(invalid="ignore"):
        bad = (total > 0) & ~(np.isfinite(design) & (design >= 1.0))
    if bad.any():
        raise ValueError(f"deff must be a number >= 1 where n > 0; got {float(design[bad].flat[0])!r}")
    return design


def _evidence(
    passes: Any, n: Any, others: dict[str, Any]
) -> tuple[Any, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Validate ``passes``/``n`` and broadcast them with the other (already converted) arguments.

    ``others`` maps each other argument's name to a pair (its value as given,
    its validated float64 array). Returns the pandas template, passes, n and the
    other arrays by name, all of one shape.
    """
    names = ("passes", "n", *others)
    given = (passes, n, *(value for value, _ in others.values()))
    _check_same_index(names, given)
    c, total = _successes_and_n(passes, n, ("passes", "n"))
    arrays = _broadcast(names, (c, total, *(array for _, array in others.values())))
    return _template(*given), arrays[0], arrays[1], dict(zip(others, arrays[2:], strict=True))


def assurance(passes: Any, n: Any, threshold: Any, deff: Any = 1.0) -> Any:
    """Threshold assurance: the posterior probability that the true pass rate meets the threshold.

    ``P(rate >= threshold | evidence)`` under the Jeffreys posterior of the
    rate at the dimension's effective sample size (SPEC §18). Shown beside a
    verdict, it says how sure the evidence is of it: at the point estimate's
    own threshold it is close to one half, a coin flip.

    Parameters
    ----------
    passes, n : int or array-like of int
        PASS and measured (PASS + FAIL) trials; ``0 <= passes <= n``.
    threshold : float or array-like
        The threshold on the pass rate, in [0, 1]; NaN where there is none.
    deff : float or array-like, default 1.0
        The design effect (:func:`cluster_interval`), ``>= 1`` where ``n > 0``;
        ignored (may be NaN) where ``n == 0``.

    Returns
    -------
    float, ndarray or Series
        The probability, in [0, 1], broadcast over the arguments (a Series
        keeps its index); NaN where ``n == 0`` (no evidence) or the threshold is
        NaN (nothing to meet).

    Raises
    ------
    TypeError, ValueError
        A bad argument, named with its first bad value.

    See Also
    --------
    cases_to_settle : how many cases would settle a PASS the assurance leaves open.

    Notes
    -----
    With the effective size ``n′ = n/deff`` and effective passes
    ``x = p̂·n′ = passes/deff`` (not rounded), the posterior is
    ``Beta(x + ½, n′ − x + ½)`` (Jeffreys prior Beta(½, ½)) and::

        assurance = 1 − I_threshold(x + ½, n′ − x + ½)

    where ``I`` is the regularised incomplete beta function (computed as its
    complement, :func:`scipy.special.betaincc`, for accuracy near 1). Edge
    cases follow from the continuous posterior: threshold 0 gives exactly 1
    (every rate meets it) and threshold 1 gives exactly 0 (no finite evidence
    makes a perfect rate certain), whatever the evidence.

    References
    ----------
    .. [1] H. Jeffreys, *Theory of Probability*, 3rd ed., Oxford, 1961 (the
       prior Beta(½, ½)).
    .. [2] L. D. Brown, T. T. Cai and A. DasGupta, "Interval estimation for a
       binomial proportion", Statistical Science 16:101–133, 2001 (the
       Jeffreys posterior for a binomial rate).
    .. [3] L. Kish, *Survey Sampling*, Wiley, 1965, §8.2 (effective size n/deff).

    Examples
    --------
    >>> round(assurance(45, 50, 0.9), 6)     # 90% observed against a 90% threshold
    0.474319
    >>> round(assurance(48, 50, 0.9), 6)
    0.934736
    >>> assurance([48, 48, 0], [50, 50, 0], [0.9, float("nan"), 0.9]).round(4).tolist()
    [0.9347, nan, nan]
    >>> assurance(48, 50, 0.0), assurance(50, 50, 1.0)
    (1.0, 0.0)
    """
    template, c, total, other = _evidence(
        passes, n, {"threshold": (threshold, _thresholds(threshold)), "deff": (deff, _design_effect_array(deff))}
    )
    design = _check_design_effects(other["deff"], total)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = jeffreys_assurance(c / design, total / design, other["threshold"])
    return _wrap(out, template)


def jeffreys_assurance(x: Any, size: Any, threshold: Any) -> np.ndarray:
    """The core of :func:`assurance` on validated real-valued effective counts.

    ``1 − I_threshold(x + ½, size − x + ½)`` elementwise for effective passes
    ``0 <= x <= size`` (real-valued: a planned rate times a planned size need
    not be whole); NaN where ``size`` is not positive or the threshold is NaN.
    Callers validate (``scorekit plan`` through :func:`minimum_detectable_drop`).

    Examples
    --------
    >>> round(float(jeffreys_assurance(45.0, 50.0, 0.9)), 6)
    0.474319
    """
    from scipy.special import betaincc  # lazy: SciPy is heavy to import

    x, size, t = np.broadcast_arrays(*(np.asarray(v, dtype="float64") for v in (x, size, threshold)))
    usable = (size > 0) & ~np.isnan(t)
    safe_size = np.where(usable, size, 1.0)
    safe_x = np.where(usable, x, 0.5)
    out = betaincc(safe_x + 0.5, safe_size - safe_x + 0.5, np.where(usable, t, 0.5))
    return np.where(usable, out, np.nan)


def _case_counts(cases: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Cases with a measured trial: whole, ``>= 1`` and ``<= n`` where ``n > 0``, 0 where ``n == 0``."""
    bad = ((total > 0) & ((cases < 1) | (cases > total))) | ((total == 0) & (cases != 0))
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        raise ValueError(
            "cases must be the number of cases with a measured trial, between 1 and n (0 when n is 0); "
            f"got cases={cases.flat[i]:g}, n={total.flat[i]:g}"
        )
    return cases


def cases_to_settle(
    passes: Any, n: Any, cases: Any, threshold: Any, deff: Any = 1.0, confidence: float = 0.95
) -> Any:
    """The number of cases at which the same evidence would settle that the rate meets the threshold.

    The smallest whole number of cases ``m′ >= cases`` at which, with the same
    pass rate, the same trials per case and the same design effect, the
    Wilson lower bound reaches the threshold (SPEC §18): how far a PASS that
    :func:`assurance` leaves open is from one the interval confirms.

    Parameters
    ----------
    passes, n : int or array-like of int
        PASS and measured (PASS + FAIL) trials; ``0 <= passes <= n``.
    cases : int or array-like of int
        Cases with at least one measured trial: ``1 <= cases <= n`` where
        ``n > 0``, and 0 where ``n == 0``.
    threshold : float or array-like
        The threshold, in [0, 1]; NaN where there is none.
    deff : float or array-like, default 1.0
        The design effect, ``>= 1`` where ``n > 0``.
    confidence : float, default 0.95
        Two-sided level of the Wilson interval, in (0, 1) (its lower bound is
        the one-sided test at ``(1 − confidence)/2``).

    Returns
    -------
    float, ndarray or Series
        Whole numbers ``>= cases`` as float64 (``cases`` itself when the
        evidence already settles it), NaN where ``n == 0``, the threshold is
        NaN, or the rate ``p̂ = passes/n`` does not exceed the threshold (no
        number of cases at that rate can show it is met). In particular a
        threshold of 1 is never settled: the Wilson lower bound of a perfect
        record stays below 1.

    Raises
    ------
    TypeError, ValueError
        A bad argument, named with its first bad value.

    See Also
    --------
    assurance : the posterior probability that the rate meets the threshold.

    Notes
    -----
    The effective size of ``m′`` cases is ``s(m′) = m′·(n/cases)/deff``. The
    Wilson lower bound ``L(s)`` of a rate ``p̂ > t`` increases with ``s`` and
    solves ``(p̂ − L)² · s = z²·L·(1 − L)``, so it reaches ``t`` exactly at
    ``s* = z²·t·(1 − t)/(p̂ − t)²``; the answer is ``ceil(s*·deff·cases/n)``
    (at least ``cases``), then moved one case at a time, all rows at once,
    until the defining inequality holds for the lower bound as computed
    (:func:`wilson_interval`'s arithmetic): ``L(s(m′)) >= t`` and, above
    ``cases``, ``L(s(m′ − 1)) < t``. Answers beyond 2**53 cases are left as
    the closed form's (they cannot be counted exactly in float64).

    References
    ----------
    .. [1] E. B. Wilson, "Probable inference, the law of succession, and
       statistical inference", JASA 22:209–212, 1927.
    .. [2] L. Kish, *Survey Sampling*, Wiley, 1965, §8.2 (effective size n/deff).

    Examples
    --------
    >>> cases_to_settle(48, 50, 50, 0.9)     # 96% over 50 single-trial cases, threshold 90%
    97.0
    >>> cases_to_settle([48, 45, 150], [50, 50, 150], [50, 50, 50], 0.9).tolist()
    [97.0, nan, 50.0]
    """
    z = z_value(confidence)
    template, c, total, other = _evidence(
        passes,
        n,
        {
            "cases": (cases, _counts(cases, "cases")),
            "threshold": (threshold, _thresholds(threshold)),
            "deff": (deff, _design_effect_array(deff)),
        },
    )
    m = _case_counts(other["cases"], total)
    t = other["threshold"]
    design = _check_design_effects(other["deff"], total)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = c / total
        usable = (total > 0) & (p > t)  # False where t is NaN
        per_case = np.where(usable, total / (m * design), 1.0)  # effective size of one case
        p = np.where(usable, p, 0.5)
        t = np.where(usable, t, 0.0)
        target = z * z * t * (1.0 - t) / ((p - t) ** 2)
        answer = np.maximum(np.ceil(target / per_case), np.where(usable, m, 1.0))

    def settled(count: np.ndarray) -> np.ndarray:
        low, _ = _wilson_bounds(p, count * per_case, z)
        return low >= t

    exact = usable & (answer <= _MAX_CASES)
    while True:
        more = exact & ~settled(answer)
        fewer = exact & ~more & (answer > m) & settled(answer - 1.0)
        if not (more.any() or fewer.any()):
            break
        answer = answer + more - fewer
    return _wrap(np.where(usable, answer, np.nan), template)


# --------------------------------------------------------------------------- pass^k / pass@k
def _falling_ratio(top: np.ndarray, bottom: np.ndarray, k: int) -> np.ndarray:
    """``C(top, k) / C(bottom, k)`` as a product of k ratios, each in [0, 1].

    The product form never builds a large binomial coefficient, so it stays exact
    enough for any realistic n (no overflow, no cancellation). Callers turn
    ``bottom < k`` into NaN, so k beyond every ``bottom`` needs no loop at all.
    """
    out = np.ones(np.broadcast(top, bottom).shape, dtype="float64")
    if out.size == 0 or k > np.max(bottom):
        return np.where(top < k, 0.0, out)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(k):
            out *= (top - i) / (bottom - i)
    return np.where(top < k, 0.0, out)


def pass_hat_k(c: Any, n: Any, k: int) -> Any:
    """pass^k (τ-bench): probability that k trials drawn without replacement all pass.

    ``C(c, k) / C(n, k)`` per case, from that case's PASS (``c``) and PASS+FAIL
    (``n``) trials. NaN where ``n < k`` (not enough trials to say).

    Parameters
    ----------
    c : int or array-like of int
        Passing trials per case.
    n : int or array-like of int
        Measured (PASS + FAIL) trials per case.
    k : int
        Number of trials that must all pass; ``k >= 1``.

    Returns
    -------
    float, ndarray or Series

    Examples
    --------
    >>> round(pass_hat_k(6, 8, 4), 12)
    0.214285714286
    >>> pass_hat_k([3, 2], [3, 3], 2).round(4).tolist()   # cases TTT, TTF
    [1.0, 0.3333]
    """
    k = _k(k)
    template = _template(c, n)
    cc, total = _successes_and_n(c, n, ("c", "n"))
    out = _falling_ratio(cc, total, k)
    out = np.where(total < k, np.nan, out)
    return _wrap(out, template)


def pass_at_k(c: Any, n: Any, k: int) -> Any:
    """pass@k (Chen et al., 2021): probability that at least one of k trials passes.

    ``1 − C(n − c, k) / C(n, k)``, computed as a product of ratios (stable for
    large n). NaN where ``n < k``.

    Parameters
    ----------
    c : int or array-like of int
        Passing trials per case.
    n : int or array-like of int
        Measured (PASS + FAIL) trials per case.
    k : int
        Number of draws; ``k >= 1``.

    Returns
    -------
    float, ndarray or Series

    Examples
    --------
    >>> round(pass_at_k(3, 10, 5), 12)
    0.916666666667
    """
    k = _k(k)
    template = _template(c, n)
    cc, total = _successes_and_n(c, n, ("c", "n"))
    out = 1.0 - _falling_ratio(total - cc, total, k)
    out = np.where(total < k, np.nan, out)
    return _wrap(out, template)


# --------------------------------------------------------------------------- variance
def _t_quantile(p: float, dof: np.ndarray) -> np.ndarray:
    from scipy.special import stdtrit  # lazy: SciPy is heavy to import

    return stdtrit(dof, p)


def mean_ci_arrays(
    count: np.ndarray, total: np.ndarray, total_sq_dev: np.ndarray, confidence: float = 0.95
) -> dict[str, np.ndarray]:
    """Vectorised core of :func:`mean_ci` from per-group sufficient statistics.

    ``count`` values, their ``total`` and the sum of squared deviations from the
    group mean. Returns arrays keyed like :func:`mean_ci`.
    """
    confidence = _check_confidence(confidence)
    alpha_half = (1.0 - confidence) / 2.0
    count = np.asarray(count, dtype="float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(count > 0, total / count, np.nan)
        var = np.where(count > 1, total_sq_dev / (count - 1), np.nan)
        stdev = np.sqrt(np.maximum(var, 0.0))
        cv_pct = np.where(mean != 0, 100.0 * stdev / np.abs(mean), np.nan)
        se = stdev / np.sqrt(count)
        t = np.where(count > 1, _t_quantile(1.0 - alpha_half, np.maximum(count - 1, 1)), np.nan)
        half = t * se
        z_half = z_value(confidence) * se
    return {
        "n": count,
        "mean": mean,
        "stdev": stdev,
        "cv_pct": cv_pct,
        "ci_low": mean - half,
        "ci_high": mean + half,
        "ci_half_width": half,
        "z_half_width": z_half,
    }


def mean_ci(values: Any, confidence: float = 0.95) -> dict[str, float]:
    """Mean of repeated runs with a Student-t confidence interval.

    Parameters
    ----------
    values : array-like of float
        One figure per run (e.g. a pass rate per run). NaN/inf are rejected: a
        run with no evidence must be dropped explicitly, not averaged.
    confidence : float, default 0.95
        Two-sided confidence level in (0, 1).

    Returns
    -------
    dict
        ``n``, ``mean``, sample ``stdev`` (n − 1), ``cv_pct`` (100·stdev/|mean|),
        ``ci_low``/``ci_high``/``ci_half_width`` from the t distribution with
        n − 1 degrees of freedom, and ``z_half_width`` (the normal-approximation
        half-width, reported beside it). Undefined figures are NaN (``n < 2``
        leaves the spread undefined).

    Examples
    --------
    >>> ci = mean_ci([0.84, 0.85, 0.83])
    >>> round(ci["mean"], 6), round(ci["stdev"], 6), round(ci["ci_low"], 6)
    (0.84, 0.01, 0.815159)
    """
    confidence = _check_confidence(confidence)
    arr = _numeric_array(values, "values", "numbers")
    if arr.ndim != 1:
        raise ValueError(f"values must be one-dimensional; got shape {arr.shape}")
    if not np.isfinite(arr).all():
        bad = arr[~np.isfinite(arr)][0]
        raise ValueError(f"values must be finite numbers; got {bad!r}")
    n = arr.size
    mean = arr.mean() if n else math.nan
    sq_dev = float(((arr - mean) ** 2).sum()) if n else 0.0
    table = mean_ci_arrays(np.array([n]), np.array([arr.sum()]), np.array([sq_dev]), confidence)
    out = {key: float(value[0]) for key, value in table.items()}
    out["n"] = int(n)
    return out


# --------------------------------------------------------------------------- pass^k intervals (§18)
def pass_k_interval(
    c: Any, n: Any, k: int, group: Any, confidence: float = 0.95, *, ngroups: int | None = None,
    weights: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """pass^k per group (dimension) with a Student-t interval over the cases that reach k.

    Parameters
    ----------
    c, n : array-like of int
        Passing and measured (PASS + FAIL) trials, one entry per (dimension, case).
    k : int
        Number of trials that must all pass; ``k >= 1``.
    group : array-like of int
        The dimension's integer code (``0 <= group < ngroups``) of each entry.
    confidence : float, default 0.95
        Two-sided confidence level in (0, 1).
    ngroups : int, optional
        Number of groups (default ``max(group) + 1``).
    weights : array-like of int, optional
        How many cases each entry stands for (default one each).

    Returns
    -------
    value, low, high : ndarray of float64, shape (ngroups,)
        The mean of the per-case :func:`pass_hat_k` values over the cases with
        ``n >= k`` (NaN where no case reaches k), and its interval clipped to
        [0, 1] (NaN where fewer than two cases reach k: no spread to estimate).
    cases : ndarray of int64, shape (ngroups,)
        ``G_k``, the number of cases each value covers.

    Notes
    -----
    The G_k per-case values ``v_i = C(c_i, k)/C(n_i, k)`` are treated as a
    sample of cases (the case is the unit of sampling): the interval is
    ``v̄ ± t_{G_k−1}(1 − (1 − confidence)/2) · s/√G_k`` with the sample standard
    deviation ``s`` (n − 1), as :func:`mean_ci`, clipped to [0, 1] because
    pass^k is a probability. When every case agrees the interval is the point.

    References
    ----------
    .. [1] S. Yao et al., "τ-bench: A Benchmark for Tool-Agent-User Interaction
       in Real-World Domains", arXiv:2406.12045, 2024 (pass^k).
    .. [2] E. Miller, "Adding Error Bars to Evals: A Statistical Approach to
       Language Model Evaluations", arXiv:2411.00640, 2024 (intervals over cases).

    Examples
    --------
    >>> c = [3, 3, 3, 3, 2, 2, 2, 1, 1, 0]   # passes per case, 3 trials each
    >>> value, low, high, cases = pass_k_interval(c, [3] * 10, 2, [0] * 10)
    >>> value.round(6).tolist(), low.round(6).tolist(), high.round(6).tolist(), cases.tolist()
    ([0.5], [0.177134], [0.822866], [10])
    """
    k = _k(k)
    confidence = _check_confidence(confidence)
    cc, total = _per_case(c, n)
    _check_same_index(("c", "weights"), (c, weights))
    codes, ngroups = _group_codes(group, cc.size, ngroups)
    cc, total, codes, w = fold(cc, total, codes, _weights(weights, cc.size))
    values = np.asarray(pass_hat_k(cc, total, k), dtype="float64")  # NaN where n < k
    reach = total >= k
    values = np.where(reach, values, 0.0)

    def per_group(entries: np.ndarray) -> np.ndarray:
        return np.bincount(codes, weights=entries * w, minlength=ngroups)

    count = per_group(reach)
    value_sum = per_group(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(count > 0, value_sum / count, np.nan)
    deviation = np.where(reach, values - mean[codes], 0.0)
    spread = per_group(deviation * deviation)
    table = mean_ci_arrays(count, value_sum, spread, confidence)
    low = np.clip(table["ci_low"], 0.0, 1.0)
    high = np.clip(table["ci_high"], 0.0, 1.0)
    return table["mean"], low, high, count.astype(np.int64)
