"""Ordinal classification metrics for release scorecards (seed "Acceptance metric — email triage").

Triage priority is an ordinal scale (``URGENT > NEEDS_RESPONSE > FYI >
PROMOTIONAL`` by default), so the gated acceptance metric credits a prediction
that is exact **or one bucket away**; labels not on the scale (``PERSONAL``)
are scored exact-only. Secondaries are reported with weight 0.

Labels are compared case-insensitively, after trimming surrounding
whitespace: ``"fyi"``, ``"FYI"`` and ``" Fyi "`` are one label (the seed's
breakdown writes categories in lower case, its scale in upper case). The
breakdown and confusion tables report labels in lower case. A missing
prediction (None/NaN) is never credited; a missing expected label is an error.

Every function takes array-likes (lists, NumPy arrays, pandas Series) of equal
length and works on whole arrays at once; two Series must share an index.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from ._payload import Metric

__all__ = [
    "DEFAULT_ATTENTION",
    "DEFAULT_SCALE",
    "breakdown",
    "category_accuracy",
    "needs_attention_accuracy",
    "ordinal_metrics",
    "per_category_breakdown",
    "top_confusions",
    "urgent_recall",
    "within_one_bucket_accuracy",
]

#: The triage priority scale, highest first: URGENT (3) > NEEDS_RESPONSE (2) > FYI (1) > PROMOTIONAL (0).
DEFAULT_SCALE: tuple[str, ...] = ("URGENT", "NEEDS_RESPONSE", "FYI", "PROMOTIONAL")
#: The needs-attention side of the binary axis: {URGENT, NEEDS_RESPONSE} vs the rest.
DEFAULT_ATTENTION: tuple[str, ...] = ("URGENT", "NEEDS_RESPONSE")

_MISSING = "\x00missing"  # the normalised form of a missing prediction: matches no label


def _normalise(values: Any, name: str, *, allow_missing: bool) -> pd.Series:
    """Labels as a str Series, trimmed and upper-cased; missing → a sentinel (or ValueError)."""
    if isinstance(values, (str, bytes)) or values is None:
        raise TypeError(f"{name} must be a sequence of labels (list, array, Series); got {values!r}")
    if isinstance(values, pd.Series):
        series = values.astype(object)
    else:
        array = np.asarray(values, dtype=object)
        if array.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional; got shape {array.shape}")
        series = pd.Series(array, dtype=object)
    missing = series.isna().to_numpy()
    if missing.any() and not allow_missing:
        position = int(np.flatnonzero(missing)[0])
        raise ValueError(f"{name} has a missing label at position {position}; every case needs an expected label")
    text = series.where(~missing, _MISSING).map(lambda v: v if v == _MISSING else str(v).strip().upper())
    return text.astype("str")


def _pair(expected: Any, predicted: Any) -> tuple[np.ndarray, np.ndarray]:
    if (
        isinstance(expected, pd.Series)
        and isinstance(predicted, pd.Series)
        and not expected.index.equals(predicted.index)
    ):
        raise ValueError("expected and predicted are Series with different indexes; align them first")
    exp = _normalise(expected, "expected", allow_missing=False)
    pred = _normalise(predicted, "predicted", allow_missing=True)
    if len(exp) != len(pred):
        raise ValueError(f"expected and predicted must have the same length; got {len(exp)} and {len(pred)}")
    return exp.to_numpy(dtype=object), pred.to_numpy(dtype=object)


def _labels(labels: Any, name: str) -> tuple[str, ...]:
    if isinstance(labels, str) or not isinstance(labels, Sequence) or not labels:
        raise ValueError(f"{name} must be a non-empty sequence of labels; got {labels!r}")
    out = tuple(str(label).strip().upper() for label in labels)
    if len(set(out)) != len(out) or not all(out):
        raise ValueError(f"{name} must list distinct, non-empty labels (case-insensitive); got {labels!r}")
    return out


def _ranks(labels: np.ndarray, scale: tuple[str, ...]) -> np.ndarray:
    """Rank on the scale (highest label = len(scale) − 1), NaN when off the scale."""
    rank = {label: float(len(scale) - 1 - i) for i, label in enumerate(scale)}
    ranks: np.ndarray = pd.Series(labels, dtype=object).map(rank).to_numpy(dtype="float64")  # pandas is untyped
    return ranks


def _mean(flags: np.ndarray) -> float:
    return float(flags.mean()) if flags.size else math.nan


def within_one_bucket_accuracy(expected: Any, predicted: Any, *, scale: Sequence[str] = DEFAULT_SCALE) -> float:
    """Share of predictions that are exact or one bucket away on the ordinal ``scale``.

    Credited when ``|rank(predicted) − rank(expected)| ≤ 1``; a label not on the
    scale (e.g. ``PERSONAL``) on either side is credited only on an exact
    match. NaN for no cases.

    Examples
    --------
    >>> within_one_bucket_accuracy(["URGENT", "fyi", "PERSONAL"], ["NEEDS_RESPONSE", "URGENT", "FYI"])
    0.3333333333333333
    """
    exp, pred = _pair(expected, predicted)
    scale = _labels(scale, "scale")
    distance = np.abs(_ranks(exp, scale) - _ranks(pred, scale))  # NaN when either is off the scale
    credited = (exp == pred) | (distance <= 1)
    return _mean(credited)


def category_accuracy(expected: Any, predicted: Any) -> float:
    """Exact-match accuracy (case-insensitive); NaN for no cases.

    Examples
    --------
    >>> category_accuracy(["URGENT", "FYI"], ["urgent", "PROMOTIONAL"])
    0.5
    """
    exp, pred = _pair(expected, predicted)
    return _mean(exp == pred)


def needs_attention_accuracy(expected: Any, predicted: Any, *, attention: Sequence[str] = DEFAULT_ATTENTION) -> float:
    """Binary accuracy on the needs-attention axis (``attention`` labels vs the rest).

    Reported as ``urgent_vs_not_accuracy``. NaN for no cases.

    Examples
    --------
    >>> needs_attention_accuracy(["URGENT", "FYI", "NEEDS_RESPONSE"], ["NEEDS_RESPONSE", "URGENT", "FYI"])
    0.3333333333333333
    """
    exp, pred = _pair(expected, predicted)
    axis = list(_labels(attention, "attention"))
    return _mean(np.isin(exp, axis) == np.isin(pred, axis))


def urgent_recall(expected: Any, predicted: Any, *, attention: Sequence[str] = DEFAULT_ATTENTION) -> float:
    """Recall on the needs-attention axis: of the cases that need attention, the share predicted so.

    The input of the gate's anti-gaming floor. NaN when no expected label is
    on the attention side (recall is undefined without positives).

    Examples
    --------
    >>> urgent_recall(["URGENT", "NEEDS_RESPONSE", "FYI"], ["NEEDS_RESPONSE", "FYI", "URGENT"])
    0.5
    """
    exp, pred = _pair(expected, predicted)
    axis = list(_labels(attention, "attention"))
    positive = np.isin(exp, axis)
    return _mean(np.isin(pred[positive], axis))


def _display(label: str) -> str:
    return "(missing)" if label == _MISSING else label.lower()


def per_category_breakdown(
    expected: Any, predicted: Any, *, as_frame: bool = False
) -> list[dict[str, Any]] | pd.DataFrame:
    """Per expected label: ``total``, exact ``correct`` and ``accuracy`` (4 dp).

    Rows are sorted by category name (lower case), so the order is
    deterministic. ``as_frame=True`` returns a DataFrame with the same columns.

    Examples
    --------
    >>> for row in per_category_breakdown(["FYI", "fyi", "URGENT"], ["FYI", "URGENT", "URGENT"]):
    ...     print(row)
    {'category': 'fyi', 'total': 2, 'correct': 1, 'accuracy': 0.5}
    {'category': 'urgent', 'total': 1, 'correct': 1, 'accuracy': 1.0}
    """
    exp, pred = _pair(expected, predicted)
    frame = pd.DataFrame({"category": [_display(e) for e in exp], "correct": exp == pred})
    grouped = frame.groupby("category", sort=True)["correct"].agg(["size", "sum"])
    rows = [
        {"category": str(category), "total": int(total), "correct": int(correct),
         "accuracy": round(int(correct) / int(total), 4)}
        for category, (total, correct) in grouped.iterrows()
    ]
    if as_frame:
        return pd.DataFrame(rows, columns=["category", "total", "correct", "accuracy"])
    return rows


def top_confusions(expected: Any, predicted: Any, *, n: int | None = 5) -> list[dict[str, Any]]:
    """The most frequent ``expected → predicted`` mistakes (labels in lower case).

    Sorted by ``count`` descending, then ``expected`` and ``predicted``
    ascending, so ties always come out in the same order. ``n=None`` returns
    every confusion.

    Examples
    --------
    >>> expected, predicted = ["FYI", "FYI", "URGENT", "FYI"], ["NEEDS_RESPONSE", "NEEDS_RESPONSE", "FYI", "FYI"]
    >>> for row in top_confusions(expected, predicted, n=2):
    ...     print(row)
    {'expected': 'fyi', 'predicted': 'needs_response', 'count': 2}
    {'expected': 'urgent', 'predicted': 'fyi', 'count': 1}
    """
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        raise ValueError(f"n must be a non-negative integer or None; got {n!r}")
    exp, pred = _pair(expected, predicted)
    wrong = exp != pred
    frame = pd.DataFrame({"expected": [_display(e) for e in exp[wrong]],
                          "predicted": [_display(p) for p in pred[wrong]]}, dtype="str")
    if frame.empty:
        return []
    counts = frame.groupby(["expected", "predicted"], sort=False).size().rename("count").reset_index()
    counts = counts.sort_values(["count", "expected", "predicted"], ascending=[False, True, True], kind="mergesort")
    if n is not None:
        counts = counts.head(n)
    return [{"expected": str(r.expected), "predicted": str(r.predicted), "count": int(r.count)}
            for r in counts.itertuples(index=False)]


def breakdown(expected: Any, predicted: Any, *, n: int | None = 5) -> dict[str, list[dict[str, Any]]]:
    """``results.breakdown`` for a scorecard: ``per_category`` and ``top_confusions``.

    Examples
    --------
    >>> breakdown(["FYI", "URGENT"], ["FYI", "FYI"])["top_confusions"]
    [{'expected': 'urgent', 'predicted': 'fyi', 'count': 1}]
    """
    return {"per_category": per_category_breakdown(expected, predicted),
            "top_confusions": top_confusions(expected, predicted, n=n)}


def ordinal_metrics(
    expected: Any,
    predicted: Any,
    *,
    scale: Sequence[str] = DEFAULT_SCALE,
    attention: Sequence[str] = DEFAULT_ATTENTION,
    digits: int | None = 4,
) -> list[Metric]:
    """The seed's metric set: the gated acceptance metric and three weight-0 secondaries.

    ``within_one_bucket_accuracy`` (weight 1), then ``urgent_vs_not_accuracy``,
    ``urgent_recall`` and ``category_accuracy`` (weight 0: displayed, excluded
    from the aggregate). Values are rounded to ``digits`` decimals (None: not
    rounded).

    Raises
    ------
    ValueError
        No cases, or no expected label on the attention side (``urgent_recall``
        would be undefined and a card must not carry NaN).

    Examples
    --------
    >>> for m in ordinal_metrics(["URGENT", "FYI"], ["NEEDS_RESPONSE", "FYI"]):
    ...     print(m.name, m.value, m.weight)
    within_one_bucket_accuracy 1.0 1.0
    urgent_vs_not_accuracy 1.0 0.0
    urgent_recall 1.0 0.0
    category_accuracy 0.5 0.0
    """
    from ._payload import Metric

    values = {
        "within_one_bucket_accuracy": within_one_bucket_accuracy(expected, predicted, scale=scale),
        "urgent_vs_not_accuracy": needs_attention_accuracy(expected, predicted, attention=attention),
        "urgent_recall": urgent_recall(expected, predicted, attention=attention),
        "category_accuracy": category_accuracy(expected, predicted),
    }
    if math.isnan(values["category_accuracy"]):
        raise ValueError("expected is empty: metrics of no cases are undefined")
    if math.isnan(values["urgent_recall"]):
        raise ValueError(f"urgent_recall is undefined: no expected label is in attention={tuple(attention)!r}")
    if digits is not None:
        values = {k: round(v, digits) for k, v in values.items()}
    return [Metric(name, value, 1.0 if name == "within_one_bucket_accuracy" else 0.0) for name, value in values.items()]
