"""The chart models: what the rate and pass^k charts show, computed once for every drawing.

Two drawings read these models: the inline SVG of the reports and the notebook
(:mod:`scorekit.reports._svg`) and the matplotlib Axes users draw into their own
figures (:mod:`scorekit.plots`). Each model holds the rows in drawing order,
their values and intervals, the thresholds, the texts of every number (through
:mod:`scorekit.reports._format`, so a chart says ``84.7%`` exactly where a table
does) and the axis range, so no number, ordering or axis is computed twice.

Inputs are mappings shaped like the dimensions of ``Scorecard.to_dict()``
(``name``, ``rate``, ``ci_low``, ``ci_high``, ``n``, ``threshold``, ``verdict``,
``pass_k``, ``pass_k_cases``, ``curve_k``, ``cases``); a missing key is an
undefined value. Pure Python: no NumPy, no matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._format import fmt_ci, fmt_count, fmt_pass_k, fmt_pct, more_text

__all__ = [
    "LABEL_LIMIT",
    "OFF_CURVE_LIMIT",
    "OKABE_ITO",
    "PALETTE",
    "THRESHOLD_COLOUR",
    "VERDICT_COLOURS",
    "PassKChart",
    "PassKLine",
    "RateChart",
    "RatePoint",
    "TrendChart",
    "TrendLine",
    "axis_floor",
    "axis_ticks",
    "chart_label",
    "pass_k_chart",
    "rate_chart",
    "tick_label",
    "trend_chart",
]

#: The Okabe–Ito colour-blind-safe palette (Okabe & Ito 2008).
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
#: Series colours in order. Yellow comes last: it is the hardest to see on white,
#: so it serves only the eighth series (drawn with a dark marker edge and dashed).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
#: Colour of a dimension's mark by verdict.
VERDICT_COLOURS = {
    "PASS": OKABE_ITO["bluish_green"],
    "FAIL": OKABE_ITO["vermillion"],
    "INCOMPLETE": OKABE_ITO["orange"],
    "NOT_IN_SCOPE": OKABE_ITO["sky_blue"],
}
UNKNOWN_COLOUR = "#999999"
#: The threshold mark and the interval whisker of the rate chart.
THRESHOLD_COLOUR = OKABE_ITO["blue"]
INTERVAL_COLOUR = "#000000"
#: Longest dimension label a chart draws (characters); a longer one is cut with "…"
#: so the plot keeps its width.
LABEL_LIMIT = 32
#: Off-curve pass^k values listed under the pass^k chart before "… and N more".
OFF_CURVE_LIMIT = 6


def chart_label(key: Any) -> str:
    """A dimension (or a tuple of grouping keys) as a chart label of at most :data:`LABEL_LIMIT` characters.

    >>> chart_label(("pii", "emails")), len(chart_label("x" * 80))
    ('pii / emails', 32)
    """
    text = " / ".join(map(str, key)) if isinstance(key, tuple) else str(key)
    return text if len(text) <= LABEL_LIMIT else text[: LABEL_LIMIT - 1] + "…"


def _number(value: Any) -> float | None:
    """A finite float, or None for an undefined value (None, NaN, NA, not a number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def axis_floor(values: Iterable[Any]) -> float:
    """Where a 0–100% axis starts: 0, or lower than every value by at least 5 points, in steps of 10%.

    Rates near 100% are the usual case; on a full 0–100% axis their intervals
    and thresholds collapse into a few pixels.

    >>> axis_floor([0.9, 0.97, None]), axis_floor([0.3]), axis_floor([])
    (0.8, 0.2, 0.0)
    """
    defined = [x for x in map(_number, values) if x is not None]
    if not defined:
        return 0.0
    return max(0.0, math.floor(round((min(defined) - 0.05) * 10.0, 9)) / 10.0)


def tick_label(value: float) -> str:
    """An axis tick as a whole percentage (``70%``): a place on the axis, not a measured number.

    >>> tick_label(0.7), tick_label(0.25)
    ('70%', '25%')
    """
    return f"{100.0 * value:.0f}%"


def axis_ticks(floor: float) -> tuple[float, ...]:
    """Axis ticks from ``floor`` to 100%: quarters on a full axis, tenths on a zoomed one."""
    if floor <= 0.0:
        return (0.0, 0.25, 0.5, 0.75, 1.0)
    start = round(floor * 10)
    return tuple(i / 10.0 for i in range(start, 11))


# --------------------------------------------------------------------------- rates
@dataclass(frozen=True)
class RatePoint:
    """One dimension of the rate chart; the ``*_text`` fields are the report's own strings."""

    name: str
    label: str
    rate: float | None
    low: float | None
    high: float | None
    threshold: float | None
    verdict: str | None
    colour: str
    n: int | None
    rate_text: str
    ci_text: str
    threshold_text: str
    n_text: str


@dataclass(frozen=True)
class RateChart:
    """Pass rate per dimension with its interval (``ci_low``/``ci_high``) and threshold, top to bottom."""

    points: tuple[RatePoint, ...]
    confidence: str
    floor: float
    ticks: tuple[float, ...]
    #: The interval drawn, as the reports label it (``95% CI (case-clustered)``); "" for the Wilson interval
    #: of a scorecard written before ``interval_method`` (SPEC §18).
    interval: str = ""

    @property
    def whisker(self) -> str:
        """What a whisker is: ``95% CI (case-clustered)``, or ``Wilson 95% CI``."""
        return self.interval or f"Wilson {self.confidence} CI"

    @property
    def title(self) -> str:
        if self.interval:
            return f"Pass rate per dimension ({self.interval}, threshold)"
        return f"Pass rate per dimension ({self.confidence} Wilson interval, threshold)"


def rate_chart(dimensions: Sequence[Mapping[str, Any]], confidence: str, interval: str = "") -> RateChart:
    """The rate chart of ``dimensions`` (in their order) labelled with ``confidence`` ("95%") and, when the
    dimensions name their headline interval, ``interval`` (``95% CI (case-clustered)``)."""
    points = []
    for dim in dimensions:
        verdict = dim.get("verdict")
        verdict = verdict if isinstance(verdict, str) else None
        rate, low, high = _number(dim.get("rate")), _number(dim.get("ci_low")), _number(dim.get("ci_high"))
        if rate is None:
            low = high = None
        n = _number(dim.get("n"))
        points.append(RatePoint(
            name=str(dim.get("name")),
            label=chart_label(dim.get("name")),
            rate=rate,
            low=low,
            high=high,
            threshold=_number(dim.get("threshold")),
            verdict=verdict,
            # No verdict (a summary of rows, not a scorecard): the first series colour.
            colour=PALETTE[0] if verdict is None else VERDICT_COLOURS.get(verdict, UNKNOWN_COLOUR),
            n=None if n is None else int(n),
            rate_text=fmt_pct(rate),
            ci_text=fmt_ci(low, high),
            threshold_text=fmt_pct(dim.get("threshold")),
            n_text=fmt_count(n),
        ))
    floor = axis_floor(v for p in points for v in (p.rate, p.low, p.threshold))
    return RateChart(points=tuple(points), confidence=confidence, floor=floor, ticks=axis_ticks(floor),
                     interval=interval)


# --------------------------------------------------------------------------- pass^k
@dataclass(frozen=True)
class PassKLine:
    """One dimension's pass^k curve: the points on the curve (k, value, text), in k order."""

    name: str
    label: str
    colour: str
    dashed: bool
    points: tuple[tuple[int, float, str], ...]


@dataclass(frozen=True)
class PassKChart:
    """pass^k against k, one line per dimension, drawn only over the ks every case reaches.

    ``off_curve`` lists the values over a subset of the cases (never drawn on a
    curve: they may be higher than the smaller ks), cut at
    :data:`OFF_CURVE_LIMIT` with ``more``.
    """

    ks: tuple[int, ...]
    lines: tuple[PassKLine, ...]
    floor: float
    ticks: tuple[float, ...]
    off_curve: tuple[str, ...]
    more: str

    title = "Reliability over repeated trials (pass^k)"

    @property
    def drawn(self) -> bool:
        """Whether any point lies on a curve."""
        return any(line.points for line in self.lines)


def _k(key: Any) -> int | None:
    try:
        return int(key)
    except (TypeError, ValueError):
        return None


def pass_k_chart(dimensions: Sequence[Mapping[str, Any]]) -> PassKChart:
    """The pass^k chart of ``dimensions`` (in their order).

    A value is on a dimension's curve when k ≤ its ``curve_k`` (the least trials
    of a case); the others are listed with their case count (:func:`fmt_pass_k`).
    """
    ks = sorted({k for dim in dimensions for key in (dim.get("pass_k") or {}) if (k := _k(key)) is not None})
    lines, off_curve, values = [], [], []
    for i, dim in enumerate(dimensions):
        pass_k = {_k(key): value for key, value in (dim.get("pass_k") or {}).items()}
        curve_k = _k(dim.get("curve_k")) or 0
        points = []
        for k in ks:
            value = _number(pass_k.get(k))
            if value is None:
                continue
            if k <= curve_k:
                points.append((k, value, fmt_pct(value)))
                values.append(value)
            else:
                off_curve.append(f"{chart_label(dim.get('name'))}: pass^{k} {fmt_pass_k(dim, str(k))}")
        lines.append(PassKLine(name=str(dim.get("name")), label=chart_label(dim.get("name")),
                               colour=PALETTE[i % len(PALETTE)], dashed=i % len(PALETTE) >= 4,
                               points=tuple(points)))
    floor = axis_floor(values)
    shown = tuple(off_curve[:OFF_CURVE_LIMIT])
    return PassKChart(ks=tuple(ks), lines=tuple(lines), floor=floor, ticks=axis_ticks(floor), off_curve=shown,
                      more=more_text(len(off_curve) - len(shown), "the pass^k table"))


# --------------------------------------------------------------------------- history trend
@dataclass(frozen=True)
class TrendLine:
    """One dimension across the records: ``points`` are ``(x, rate, low, high)`` with ``x`` the record's position."""

    dimension: str
    label: str
    colour: str
    dashed: bool
    points: tuple[tuple[int, float, float, float], ...]


@dataclass(frozen=True)
class TrendChart:
    """Each dimension's rate with its Wilson interval across the records of one suite and policy."""

    title: str
    records: tuple[str, ...]
    lines: tuple[TrendLine, ...]
    floor: float
    ticks: tuple[float, ...]
    note: str


def _record_name(record_id: Any, label: Any, version: Any) -> str:
    for value in (label, version):
        if value is not None and value == value and str(value).strip():
            return chart_label(str(value))
    return f"#{record_id}"


def trend_chart(records: Any, dimensions: Any) -> TrendChart:
    """The history trend of ``read_history(db)`` (``records``) and ``read_history(db, dimensions=True)``.

    The records shown are those of the newest record's suite and policy (their
    hashes), oldest first: a trend across different suites or policies would
    compare different things. Each dimension is a line of its rates with the
    Wilson interval the history recomputes (at each record's confidence); a
    record without a measured row of a dimension has no point there.
    """
    ordered = records.sort_index()
    if len(ordered) == 0:
        return TrendChart("History trend", (), (), 0.0, axis_ticks(0.0), "no records")
    newest = ordered.iloc[-1]
    same = ordered[(ordered["suite_hash"] == newest["suite_hash"]) & (ordered["policy_hash"] == newest["policy_hash"])]
    ids = [int(i) for i in same.index]
    position = {record_id: x for x, record_id in enumerate(ids)}
    names = tuple(_record_name(i, same.loc[i, "label"], same.loc[i, "agent_version"]) for i in ids)
    series: dict[str, list[tuple[int, float, float, float]]] = {}
    for row in dimensions.itertuples(index=False):
        x = position.get(int(row.record_id))
        rate = _number(row.rate)
        if x is None or rate is None:
            continue
        low, high = _number(row.ci_low), _number(row.ci_high)
        series.setdefault(str(row.dimension), []).append(
            (x, rate, rate if low is None else low, rate if high is None else high))
    lines = tuple(
        TrendLine(name, chart_label(name), PALETTE[i % len(PALETTE)], i >= len(PALETTE) - 1,
                  tuple(sorted(points)))
        for i, (name, points) in enumerate(sorted(series.items()))
    )
    floor = axis_floor(low for line in lines for _, _, low, _ in line.points)
    left_out = len(ordered) - len(same)
    note = (f"{len(same)} records of suite {str(newest['suite_hash'])[:12]} and policy "
            f"{str(newest['policy_hash'])[:12]}; Wilson intervals at each record's confidence")
    if left_out:
        note += f"; {left_out} records of other suites or policies left out"
    return TrendChart("Pass rate across versions", names, lines, floor, axis_ticks(floor), note)
