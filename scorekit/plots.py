"""Matplotlib figures drawn from tables scorekit already computed.

Plots never compute statistics: they take the DataFrames returned by
``df.scorekit.summary()`` / ``pass_k()`` / ``variance()`` (or a Scorecard) and
draw them. One style everywhere: readable at report size, intervals and
thresholds visible, the Okabe–Ito colour-blind-safe palette.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

__all__ = ["PALETTE", "pass_k_frame", "plot_pass_k", "plot_rates", "plot_variance", "save_figure"]

# Okabe & Ito (2008): distinguishable under the common colour-vision deficiencies.
# Yellow comes last: it is the hardest to see on white, so it is used only for
# the eighth series (and then with a dark marker edge and a dashed line).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"]
THRESHOLD_COLOR = "#D55E00"
RATE_COLOR = "#0072B2"
RUN_COLOR = "#E69F00"
GRID_COLOR = "#dddddd"
#: Font sizes (points) of every figure: readable when a 7.5-inch figure is shown at report width.
FONT_SIZES = {"title": 12.5, "label": 11, "tick": 10.5, "legend": 10, "annotation": 10}
_LINESTYLES = ["-", "-", "-", "-", "--", "--", "--", "--"]
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


def _lower_limit(*arrays: Any) -> float:
    """Where a 0–100% axis starts: 0, or lower when every value sits high (a zoom in steps of 10%).

    Rates near 100% are the usual case; on a full 0–100% axis their intervals
    and thresholds collapse into a few pixels.
    """
    values = np.concatenate([np.asarray(a, dtype=float).ravel() for a in arrays]) if arrays else np.array([])
    values = values[~np.isnan(values)]
    if values.size == 0:
        return 0.0
    return float(max(0.0, np.floor((values.min() - 0.05) * 10.0) / 10.0))


def _new_axes(ax: Any, height: float) -> Any:
    if ax is not None:
        return ax
    plt = _pyplot()
    _, ax = plt.subplots(figsize=(7.5, max(2.2, height)), layout="constrained")
    return ax


#: Longest dimension label drawn (characters); a longer one is cut with "…" so the plot keeps its width
#: (at 40 the run-to-run figure's legend row no longer fits beside the labels in a notebook kernel).
LABEL_LIMIT = 32


def _label(key: Any) -> str:
    text = " / ".join(map(str, key)) if isinstance(key, tuple) else str(key)
    return text if len(text) <= LABEL_LIMIT else text[: LABEL_LIMIT - 1] + "…"


def _confidence_text(confidence: float) -> str:
    from .reports._format import fmt_confidence

    return fmt_confidence(confidence)


def plot_rates(
    summary: pd.DataFrame,
    *,
    thresholds: float | Mapping[str, float] | None = None,
    confidence: float = 0.95,
    ax: Any = None,
) -> Any:
    """Pass rate per dimension with Wilson-interval error bars.

    Parameters
    ----------
    summary : DataFrame
        As returned by ``df.scorekit.summary()`` (``rate``, ``ci_low``,
        ``ci_high``, ``n``).
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
    labels = [_label(k) for k in summary.index]
    ax = _new_axes(ax, 0.5 * len(labels) + 1.4)
    y = np.arange(len(labels))[::-1]
    rate = summary["rate"].to_numpy(dtype=float, na_value=np.nan)
    low = summary["ci_low"].to_numpy(dtype=float, na_value=np.nan)
    high = summary["ci_high"].to_numpy(dtype=float, na_value=np.nan)
    defined = ~np.isnan(rate)
    ax.errorbar(
        rate[defined],
        y[defined],
        xerr=np.vstack([rate[defined] - low[defined], high[defined] - rate[defined]]),
        fmt="o",
        color=RATE_COLOR,
        ecolor=RATE_COLOR,
        elinewidth=2.2,
        capsize=5,
        capthick=1.8,
        markersize=7,
        zorder=4,
        label=f"pass rate, Wilson {_confidence_text(confidence)} CI",
    )
    for yi, n, r in zip(y, summary["n"].to_numpy(), rate):
        text = "no evidence" if np.isnan(r) else f"{100 * r:.1f}%  n={n}"
        ax.annotate(text, (1.02, yi), xycoords=("axes fraction", "data"), va="center",
                    fontsize=FONT_SIZES["annotation"])
    values = np.array([])
    if thresholds is not None:
        values = _thresholds_for(summary.index, thresholds)
        has = ~np.isnan(values)
        ax.scatter(
            values[has], y[has], marker="|", s=700, linewidths=3, color=THRESHOLD_COLOR, label="threshold", zorder=3
        )
    ax.set_yticks(y, labels)
    ax.set_xlim(_lower_limit(rate, low, values) - 0.02, 1.02)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlabel("pass rate  (PASS / (PASS + FAIL))")
    ax.xaxis.set_major_formatter(_percent_formatter())
    _title(ax, "Pass rate per dimension", pad=_LEGEND_PAD)
    _legend_above(ax, ncols=2, markerscale=0.6)
    _style(ax)
    return ax


def _thresholds_for(index: pd.Index, thresholds: float | Mapping[str, float]) -> np.ndarray:
    if isinstance(thresholds, Mapping):
        return np.array([float(thresholds.get(k, np.nan)) for k in index], dtype=float)
    value = float(thresholds)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"thresholds must be in [0, 1]; got {thresholds!r}")
    return np.full(len(index), value)


def _percent_formatter() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1.0, decimals=0)


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
    """pass^k against k, one line per dimension (from ``df.scorekit.pass_k([...])``).

    pass^k can only fall as k grows over one set of cases (SPEC §6). With
    ``curve_k`` (per dimension, the largest k every case reaches) each line is
    drawn only over ``k <= curve_k``; a value for a larger k covers a subset of
    the cases and is never drawn on the curve: it is listed under the plot with
    its case count (from ``cases``, dimensions × k).
    """
    if isinstance(pass_k, pd.Series):
        pass_k = pass_k.to_frame()
    # Taller with many dimensions: the legend beside the plot holds one line per dimension.
    ax = _new_axes(ax, max(4.2, 0.22 * len(pass_k) + 1.2))
    ks = [int(k) for k in pass_k.columns]
    off_curve: list[str] = []
    shown = np.full(pass_k.shape, np.nan)
    for i, (key, row) in enumerate(pass_k.iterrows()):
        colour = PALETTE[i % len(PALETTE)]
        values = row.to_numpy(dtype=float, na_value=np.nan)
        limit = int(curve_k.get(key, 0)) if curve_k is not None else max(ks, default=0)
        on = np.array([k <= limit for k in ks], dtype=bool)
        for k, value, keep in zip(ks, values, on):
            if not keep and np.isfinite(value):
                covered = "" if cases is None else f" over {int(cases.loc[key, k])} of {int(cases.loc[key, min(ks)])} cases"
                off_curve.append(f"{_label(key)}: pass^{k} {100 * value:.1f}%{covered}")
        shown[i] = np.where(on, values, np.nan)
        ax.plot(
            [k for k, keep in zip(ks, on) if keep],
            values[on],
            marker=_MARKERS[i % len(_MARKERS)],
            linestyle=_LINESTYLES[i % len(_LINESTYLES)],
            color=colour,
            markeredgecolor="#333333" if colour == "#F0E442" else colour,
            markersize=7,
            linewidth=2,
            label=_label(key),
        )
    ax.set_xticks(ks)
    ax.set_xlabel("k (trials that must all pass)")
    ax.set_ylabel("pass^k")
    ax.set_ylim(_lower_limit(shown) - 0.02, 1.02)
    ax.yaxis.set_major_formatter(_percent_formatter())
    _title(ax, "Reliability over repeated trials (pass^k)")
    if len(pass_k):  # no dimension: no line, and no empty legend
        ax.legend(fontsize=FONT_SIZES["legend"], frameon=False, loc="center left", bbox_to_anchor=(1.01, 0.5))
    if off_curve:
        shown_notes = off_curve[:6] + ([f"… and {len(off_curve) - 6} more"] if len(off_curve) > 6 else [])
        ax.text(0.0, -0.16, "Not on the curve (a subset of the cases): " + "; ".join(shown_notes),
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
    labels = [_label(k) for k in run_rates.index]
    ax = _new_axes(ax, 0.5 * len(labels) + 1.4)
    y = np.arange(len(labels))[::-1]
    for yi, key in zip(y, run_rates.index):
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
    ax.set_xlim(_lower_limit(run_rates.to_numpy(dtype=float, na_value=np.nan),
                             variance["ci_low"].to_numpy(dtype=float, na_value=np.nan)) - 0.02, 1.02)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.xaxis.set_major_formatter(_percent_formatter())
    ax.set_xlabel("pass rate per run")
    _title(ax, "Run-to-run variation", pad=_LEGEND_PAD)
    _legend_above(ax, ncols=3)
    _style(ax)
    return ax


def save_figure(ax: Any, path: Any, *, dpi: int = 144) -> None:
    """Write the figure of ``ax`` to ``path`` (format from the suffix) and close it."""
    plt = _pyplot()
    figure = ax.get_figure()
    figure.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(figure)
