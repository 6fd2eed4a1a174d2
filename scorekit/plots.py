"""Matplotlib figures drawn from tables scorekit already computed, for users' own figures.

Plots never compute statistics, nor what a chart shows: ``plot_rates`` and
``plot_pass_k`` take the DataFrames returned by ``df.scorekit.summary()`` /
``pass_k()`` (or ``Scorecard.dimensions``) and draw the chart models of
:mod:`scorekit.reports._charts` — the same rows, order, values, intervals,
thresholds, texts and axis ranges the reports' and the notebook's SVG charts
draw. One style everywhere: readable at report size, intervals and thresholds
visible, the Okabe–Ito colour-blind-safe palette.

The reports and the notebooks never import this module (matplotlib costs about
half a second to import); it is for ``df.scorekit.plot_*`` and your own figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .reports._charts import (
    INTERVAL_COLOUR,
    LABEL_LIMIT,
    PALETTE,
    THRESHOLD_COLOUR,
    axis_floor,
    axis_ticks,
    chart_label,
    pass_k_chart,
    rate_chart,
    tick_label,
    trend_chart,
)

__all__ = ["LABEL_LIMIT", "PALETTE", "figure_bytes", "pass_k_frame", "plot_pass_k", "plot_rates", "plot_trend",
           "plot_variance", "save_figure"]

RATE_COLOR = PALETTE[0]
RUN_COLOR = PALETTE[1]
GRID_COLOR = "#dddddd"
#: Font sizes (points) of every figure: readable when a 7.5-inch figure is shown at report width.
FONT_SIZES = {"title": 12.5, "label": 11, "tick": 10.5, "legend": 10, "annotation": 10}
_MARKERS = "osD^vP*X"


def _pyplot() -> Any:
    # Lazy: matplotlib costs ~0.5 s to import. Without a display matplotlib
    # falls back to the Agg backend by itself; in Jupyter the inline backend wins.
    import matplotlib.pyplot as plt

    return plt


def _style(ax: Any, *, grid: str = "x") -> None:
    """The one style: light grid behind the data, no top/right spines, readable ticks."""
    ax.grid(axis=grid, color=GRID_COLOR, linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=FONT_SIZES["tick"])
    ax.xaxis.label.set_fontsize(FONT_SIZES["label"])
    ax.yaxis.label.set_fontsize(FONT_SIZES["label"])


def _title(ax: Any, text: str, *, pad: float = 12) -> None:
    ax.set_title(text, loc="left", fontsize=FONT_SIZES["title"], fontweight="bold", pad=pad)


def _legend_above(ax: Any, ncols: int, *, markerscale: float = 1.0) -> None:
    """Legend in one row between the title and the plot: never over the data.

    Pair with ``_title(..., pad=_LEGEND_PAD)`` so the title clears the legend.
    """
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncols=ncols, frameon=False,
              fontsize=FONT_SIZES["legend"], borderaxespad=0.3, handletextpad=0.5, columnspacing=1.6,
              markerscale=markerscale)


_LEGEND_PAD = 30  # points between the plot and a title that has a legend row under it


def _new_axes(ax: Any, height: float) -> Any:
    if ax is not None:
        return ax
    plt = _pyplot()
    _, ax = plt.subplots(figsize=(7.5, max(2.2, height)), layout="constrained")
    return ax


def _percent_axis(axis: Any, ticks: tuple[float, ...]) -> None:
    axis.set_ticks(list(ticks), [tick_label(t) for t in ticks])


def _confidence_text(confidence: float) -> str:
    from .reports._format import fmt_confidence

    return fmt_confidence(confidence)


def _interval_text(summary: pd.DataFrame, confidence: float) -> str:
    """The label of ``summary``'s ``ci_low``/``ci_high`` (``95% CI (case-clustered)``), or "" when the frame
    does not say which interval they are (a summary without ``interval_method``: the Wilson interval)."""
    if "interval_method" not in summary.columns:
        return ""
    from .reports._format import interval_label

    methods = [m for m in summary["interval_method"] if _value(m) is not None]
    return interval_label(_confidence_text(confidence), methods) if methods else ""


def _value(value: Any) -> Any:
    """A cell of a frame as the chart model reads it: NaN / NA → None."""
    return None if value is None or pd.isna(value) else value


def plot_rates(
    summary: pd.DataFrame,
    *,
    thresholds: float | Mapping[str, float] | None = None,
    confidence: float = 0.95,
    ax: Any = None,
) -> Any:
    """Pass rate per dimension with its headline interval as error bars (the chart of the reports).

    The bars are ``ci_low``/``ci_high``; the legend names them as the reports do
    (:func:`scorekit.reports._format.interval_label`): ``95% CI (case-clustered)``
    when ``interval_method`` says so (SPEC §18: some case repeats trials), the
    Wilson interval for a frame without ``interval_method``.

    Parameters
    ----------
    summary : DataFrame
        As returned by ``df.scorekit.summary()`` (``rate``, ``ci_low``,
        ``ci_high``, ``n``, ``interval_method``), or ``Scorecard.dimensions``
        (its ``verdict`` colours the dots as in the reports).
    thresholds : float or mapping, optional
        One threshold for every dimension, or per dimension name; drawn as
        vertical marks.
    confidence : float, default 0.95
        The confidence the intervals of ``summary`` were computed at (the
        legend says it); a Scorecard's is ``card.to_dict()["confidence"]``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    for column in ("rate", "ci_low", "ci_high", "n"):
        if column not in summary.columns:
            raise KeyError(f"summary has no column {column!r}; pass df.scorekit.summary()")
    limits = _thresholds_for(summary.index, thresholds) if thresholds is not None else np.full(len(summary), np.nan)
    verdicts = summary["verdict"] if "verdict" in summary.columns else pd.Series([None] * len(summary))
    chart = rate_chart([
        {"name": key, "rate": _value(row["rate"]), "ci_low": _value(row["ci_low"]), "ci_high": _value(row["ci_high"]),
         "n": _value(row["n"]), "threshold": _value(limit), "verdict": _value(verdict)}
        for (key, row), limit, verdict in zip(summary.iterrows(), limits, verdicts, strict=True)
    ], _confidence_text(confidence), _interval_text(summary, confidence))
    points = chart.points
    ax = _new_axes(ax, 0.5 * len(points) + 1.4)
    y = np.arange(len(points))[::-1]
    drawn = [(yi, p) for yi, p in zip(y, points, strict=True) if p.rate is not None]
    ys = np.array([yi for yi, _ in drawn], dtype=float)
    rate = np.array([p.rate for _, p in drawn], dtype=float)
    low = np.array([p.low if p.low is not None else p.rate for _, p in drawn], dtype=float)
    high = np.array([p.high if p.high is not None else p.rate for _, p in drawn], dtype=float)
    ax.errorbar(rate, ys, xerr=np.vstack([rate - low, high - rate]), fmt="o", color=INTERVAL_COLOUR,
                elinewidth=1.5, capsize=5, capthick=1.5, markersize=8, zorder=3,
                label=f"pass rate, {chart.whisker}")
    # Each dot in its verdict's colour, as in the reports (over the error bar's own black dot).
    ax.scatter(rate, ys, c=[p.colour for _, p in drawn], s=48, edgecolors="none", zorder=4)
    for yi, p in zip(y, points, strict=True):
        text = "no evidence" if p.rate is None else f"{p.rate_text}  n={p.n_text}"
        ax.annotate(text, (1.02, yi), xycoords=("axes fraction", "data"), va="center",
                    fontsize=FONT_SIZES["annotation"])
    marks = [(yi, p.threshold) for yi, p in zip(y, points, strict=True) if p.threshold is not None]
    if marks:
        ax.scatter([t for _, t in marks], [yi for yi, _ in marks], marker="|", s=700, linewidths=3,
                   color=THRESHOLD_COLOUR, label="threshold", zorder=5)
    ax.set_yticks(y, [p.label for p in points])
    ax.set_xlim(chart.floor - 0.02, 1.02)
    _percent_axis(ax.xaxis, chart.ticks)
    ax.set_ylim(-0.7, len(points) - 0.3)
    ax.set_xlabel("pass rate  (PASS / (PASS + FAIL))")
    _title(ax, "Pass rate per dimension", pad=_LEGEND_PAD)
    _legend_above(ax, ncols=2, markerscale=0.8)
    _style(ax)
    return ax


def _thresholds_for(index: pd.Index, thresholds: float | Mapping[str, float]) -> np.ndarray:
    if isinstance(thresholds, Mapping):
        return np.array([float(thresholds.get(k, np.nan)) for k in index], dtype=float)
    value = float(thresholds)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"thresholds must be in [0, 1]; got {thresholds!r}")
    return np.full(len(index), value)


def pass_k_frame(dimensions: pd.DataFrame, column: str = "pass_k") -> pd.DataFrame:
    """``Scorecard.dimensions['pass_k']`` (dicts keyed by k as text) as a dimensions × k frame
    (``column="pass_k_cases"``: the cases each k covers)."""
    frame = pd.DataFrame(
        [{int(k): (np.nan if v is None else v) for k, v in entry.items()} for entry in dimensions[column]],
        index=dimensions.index,
    )
    frame = frame.reindex(sorted(frame.columns), axis=1)
    frame.columns.name = "k"
    return frame


def plot_pass_k(pass_k: pd.DataFrame, *, curve_k: pd.Series | None = None, cases: pd.DataFrame | None = None,
                ax: Any = None) -> Any:
    """pass^k against k, one line per dimension (from ``df.scorekit.pass_k([...])``): the chart of the reports.

    pass^k can only fall as k grows over one set of cases (SPEC §6). With
    ``curve_k`` (per dimension, the largest k every case reaches) each line is
    drawn only over ``k <= curve_k``; a value for a larger k covers a subset of
    the cases and is never drawn on the curve: it is listed under the plot with
    its case count (from ``cases``, dimensions × k).
    """
    if isinstance(pass_k, pd.Series):
        pass_k = pass_k.to_frame()
    ks = [int(k) for k in pass_k.columns]
    dims = []
    for key, row in pass_k.iterrows():
        dim: dict[str, Any] = {
            "name": key,
            "pass_k": {str(k): _value(v) for k, v in zip(ks, row.tolist(), strict=True)},
            "curve_k": int(curve_k.get(key, 0)) if curve_k is not None else max(ks, default=0),
        }
        if cases is not None and ks:
            dim["pass_k_cases"] = {str(k): _value(cases.loc[key, k]) for k in ks}
            dim["cases"] = _value(cases.loc[key, min(ks)])
        dims.append(dim)
    chart = pass_k_chart(dims)
    # Taller with many dimensions: the legend beside the plot holds one line per dimension.
    ax = _new_axes(ax, max(4.2, 0.22 * len(chart.lines) + 1.2))
    for i, line in enumerate(chart.lines):
        ax.plot(
            [k for k, _, _ in line.points],
            [v for _, v, _ in line.points],
            marker=_MARKERS[i % len(_MARKERS)],
            linestyle="--" if line.dashed else "-",
            color=line.colour,
            markeredgecolor="#333333" if line.colour == "#F0E442" else line.colour,
            markersize=7,
            linewidth=2,
            label=line.label,
        )
    ax.set_xticks(list(chart.ks))
    ax.set_xlabel("k (trials that must all pass)")
    ax.set_ylabel("pass^k")
    ax.set_ylim(chart.floor - 0.02, 1.02)
    _percent_axis(ax.yaxis, chart.ticks)
    _title(ax, chart.title)
    if chart.lines:  # no dimension: no line, and no empty legend
        ax.legend(fontsize=FONT_SIZES["legend"], frameon=False, loc="center left", bbox_to_anchor=(1.01, 0.5))
    if chart.off_curve:
        notes = [*chart.off_curve, *([chart.more] if chart.more else [])]
        ax.text(0.0, -0.16, "Not on the curve (a subset of the cases): " + "; ".join(notes),
                transform=ax.transAxes, fontsize=FONT_SIZES["legend"], va="top", wrap=True)
    _style(ax, grid="both")
    return ax


def plot_variance(run_rates: pd.DataFrame, variance: pd.DataFrame, *, confidence: float = 0.95,
                  ax: Any = None) -> Any:
    """Per-run pass rates per dimension, their mean and t-interval band.

    Parameters
    ----------
    run_rates : DataFrame
        Dimensions × runs (``df.scorekit.run_rates(run)``).
    variance : DataFrame
        ``df.scorekit.variance(run)`` (``mean``, ``ci_low``, ``ci_high``).
    confidence : float, default 0.95
        The confidence ``variance`` was computed at (the legend says it).
    """
    labels = [chart_label(k) for k in run_rates.index]
    ax = _new_axes(ax, 0.5 * len(labels) + 1.4)
    y = np.arange(len(labels))[::-1]
    for yi, key in zip(y, run_rates.index, strict=True):
        low, high = variance.loc[key, "ci_low"], variance.loc[key, "ci_high"]
        if np.isfinite(low) and np.isfinite(high):
            ax.fill_betweenx([yi - 0.32, yi + 0.32], max(low, 0.0), min(high, 1.0), color=RATE_COLOR, alpha=0.2, lw=0)
        mean = variance.loc[key, "mean"]
        if np.isfinite(mean):
            ax.plot([mean, mean], [yi - 0.32, yi + 0.32], color=RATE_COLOR, linewidth=2.6)
        values = run_rates.loc[key].to_numpy(dtype=float, na_value=np.nan)
        values = values[~np.isnan(values)]
        ax.scatter(values, np.full(len(values), yi), color=RUN_COLOR, edgecolor="black", linewidths=0.6, s=40,
                   alpha=0.9, zorder=3)
    ax.scatter([], [], color=RUN_COLOR, edgecolor="black", linewidths=0.6, s=40, label="one run")
    ax.plot([], [], color=RATE_COLOR, linewidth=2.6, label="mean of runs")
    ax.fill_between([], [], color=RATE_COLOR, alpha=0.2, label=f"{_confidence_text(confidence)} t-interval of the mean")
    ax.set_yticks(y, labels)
    floor = axis_floor([*run_rates.to_numpy(dtype=float, na_value=np.nan).ravel(),
                        *variance["ci_low"].to_numpy(dtype=float, na_value=np.nan)])
    ax.set_xlim(floor - 0.02, 1.02)
    _percent_axis(ax.xaxis, axis_ticks(floor))
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlabel("pass rate per run")
    _title(ax, "Run-to-run variation", pad=_LEGEND_PAD)
    _legend_above(ax, ncols=3)
    _style(ax)
    return ax


def plot_trend(records: pd.DataFrame, dimensions: pd.DataFrame, *, ax: Any = None) -> Any:
    """Each dimension's pass rate with its Wilson interval across the recorded versions (SPEC §17).

    ``records`` and ``dimensions`` are ``read_history(db)`` and
    ``read_history(db, dimensions=True)``; the chart model
    (:func:`scorekit.reports._charts.trend_chart`) keeps the records of the newest
    record's suite and policy, oldest first.
    """
    chart = trend_chart(records, dimensions)
    ax = _new_axes(ax, 4.6)
    for i, line in enumerate(chart.lines):
        x = np.array([p[0] for p in line.points], dtype=float)
        rate = np.array([p[1] for p in line.points], dtype=float)
        low = np.array([p[2] for p in line.points], dtype=float)
        high = np.array([p[3] for p in line.points], dtype=float)
        offset = (i - (len(chart.lines) - 1) / 2) * 0.04  # intervals of equal rates stay apart
        ax.errorbar(x + offset, rate, yerr=np.vstack([rate - low, high - rate]), color=line.colour,
                    marker=_MARKERS[i % len(_MARKERS)], markersize=6, capsize=3, linewidth=1.8,
                    linestyle="--" if line.dashed else "-", label=line.label,
                    markeredgecolor="#333333" if line.colour == "#F0E442" else line.colour)
    ax.set_xticks(range(len(chart.records)), chart.records, rotation=30 if len(chart.records) > 6 else 0,
                  ha="right" if len(chart.records) > 6 else "center")
    ax.set_xlim(-0.5, max(len(chart.records) - 0.5, 0.5))
    ax.set_ylim(chart.floor - 0.02, 1.02)
    _percent_axis(ax.yaxis, chart.ticks)
    ax.set_xlabel("history record (label, else agent version)")
    ax.set_ylabel("pass rate")
    _title(ax, chart.title)
    if chart.lines:
        ax.legend(fontsize=FONT_SIZES["legend"], frameon=False, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.text(0.0, -0.2 if len(chart.records) <= 6 else -0.3, chart.note, transform=ax.transAxes,
            fontsize=FONT_SIZES["legend"], va="top")
    _style(ax, grid="both")
    return ax


def figure_bytes(ax: Any, *, format: str = "png", dpi: int = 144) -> bytes:
    """The figure of ``ax`` as ``format`` bytes (closed afterwards)."""
    import io

    buffer = io.BytesIO()
    save_figure(ax, buffer, dpi=dpi, format=format)
    return buffer.getvalue()


def save_figure(ax: Any, path: Any, *, dpi: int = 144, format: str | None = None) -> None:
    """Write the figure of ``ax`` to ``path`` (format from the suffix) and close it."""
    plt = _pyplot()
    figure = ax.get_figure()
    figure.savefig(path, dpi=dpi, bbox_inches="tight", format=format)
    plt.close(figure)
