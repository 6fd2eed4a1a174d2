"""Run-to-run variance of the acceptance metric from N runs (seed "Trustworthy numbers", SPEC §13).

The block goes into ``recipe.config.acceptance_variance``. It never affects
``aggregate.value``; the gate uses the recorded ``stdev`` as its noise band.
Statistics come from :func:`scorekit.mean_ci` (t-based CI, z figure beside it).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._io import finite_float

__all__ = ["acceptance_variance"]


def _ci_key(confidence: float) -> str:
    """``ci95`` for 0.95, ``ci90`` for 0.90, ``ci99_5`` for 0.995: the name says the level."""
    pct = f"{round(confidence * 100, 6):g}".replace(".", "_")
    return f"ci{pct}"


def _finite_or_none(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def _runs_table(runs: Any) -> tuple[list[dict[str, float]], list[str] | None]:
    """Per-run ``{metric: value}`` dicts plus the names with weight > 0 (when weights were given)."""
    if isinstance(runs, pd.DataFrame):
        return [{str(k): v for k, v in row.items()} for row in runs.to_dict(orient="records")], None
    if isinstance(runs, (str, bytes, Mapping)) or not isinstance(runs, Sequence):
        raise TypeError(
            "runs must be a list of per-run {metric: value} dicts, a list of per-run metric lists, or a DataFrame; "
            f"got {type(runs).__name__}"
        )
    table: list[dict[str, float]] = []
    weighted: list[str] | None = None
    for index, run in enumerate(runs):
        if isinstance(run, Mapping):
            table.append({str(k): v for k, v in run.items()})
        elif isinstance(run, Sequence) and not isinstance(run, (str, bytes)):
            from ._payload import _as_metric

            metrics = [_as_metric(m) for m in run]
            table.append({m.name: m.value for m in metrics})
            positive = [m.name for m in metrics if isinstance(m.weight, numbers.Real) and m.weight > 0]
            weighted = positive if weighted is None else [n for n in weighted if n in positive]
        else:
            raise TypeError(f"runs[{index}] must be a {{metric: value}} dict or a list of metrics; got {run!r}")
    return table, weighted


def acceptance_variance(
    runs: Any, *, metric: str | Sequence[str] | None = None, confidence: float = 0.95
) -> dict[str, Any]:
    """Mean, sample stdev, CV% and t-based CI of metric(s) over N runs of the same corpus.

    Parameters
    ----------
    runs : list of dict, list of metric lists, or DataFrame
        One entry per run: ``{metric_name: value}``, or the run's metrics as a
        list of :class:`Metric` / ``{name, value, weight}``; or a DataFrame
        with one row per run and one column per metric.
    metric : str or list of str, optional
        Which metric(s) to summarise. Default: the metrics with weight > 0
        when the runs carry weights, else every metric present.
    confidence : float, default 0.95
        Two-sided level of the interval; the keys say it (``ci95_*``).

    Returns
    -------
    dict
        ``{"n_runs": N, <metric>: {n, mean, stdev, min, max, cv_pct,
        ci95_half_width, ci95_low, ci95_high, z_half_width}}``. Undefined
        figures (``stdev``, ``cv_pct`` and the intervals with a single run;
        ``cv_pct`` when the mean is 0) are None, never NaN.

    Raises
    ------
    ValueError
        No runs, a metric missing from a run, or a value that is not a finite number.

    Examples
    --------
    >>> block = acceptance_variance([{"within_one_bucket_accuracy": v} for v in (0.84, 0.85, 0.83)])
    >>> block["n_runs"], round(block["within_one_bucket_accuracy"]["stdev"], 6)
    (3, 0.01)
    """
    from .._stats import mean_ci

    table, weighted = _runs_table(runs)
    if not table:
        raise ValueError("runs must contain at least one run; got none")
    if metric is None:
        names = weighted if weighted else list(dict.fromkeys(k for run in table for k in run))
    elif isinstance(metric, str):
        names = [metric]
    else:
        names = list(metric)
    if not names:
        raise ValueError("metric: no metric to summarise (runs are empty dicts)")
    if "n_runs" in names:
        raise ValueError("metric: 'n_runs' is reserved for the run count in the block; rename the metric")
    key = _ci_key(confidence)
    block: dict[str, Any] = {"n_runs": len(table)}
    for name in names:
        values = []
        for index, run in enumerate(table):
            if name not in run:
                raise ValueError(f"runs[{index}] has no value for metric {name!r}")
            value = run[name]
            if finite_float(value) is None:
                raise ValueError(f"runs[{index}][{name!r}] must be a finite number; got {value!r}")
            values.append(float(value))
        ci = mean_ci(values, confidence)
        block[name] = {
            "n": int(ci["n"]),
            "mean": _finite_or_none(ci["mean"]),
            "stdev": _finite_or_none(ci["stdev"]),
            "min": min(values),
            "max": max(values),
            "cv_pct": _finite_or_none(ci["cv_pct"]),
            f"{key}_half_width": _finite_or_none(ci["ci_half_width"]),
            f"{key}_low": _finite_or_none(ci["ci_low"]),
            f"{key}_high": _finite_or_none(ci["ci_high"]),
            "z_half_width": _finite_or_none(ci["z_half_width"]),
        }
    return block
