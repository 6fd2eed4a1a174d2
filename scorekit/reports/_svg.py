"""Inline SVG of the chart models (:mod:`scorekit.reports._charts`): the one drawing of every report and notebook.

Hand-written SVG, no matplotlib (writing the reports must stay fast on a
100,000-row evaluation). Every text from the data passes through
:func:`~scorekit.reports._format.h`; no attribute holds untrusted text. The
rate chart and the pass^k chart are drawn from the same models the matplotlib
figures of :mod:`scorekit.plots` draw, on the same axis ranges and ticks.
"""

from __future__ import annotations

from collections.abc import Callable

from ._charts import INTERVAL_COLOUR, OKABE_ITO, THRESHOLD_COLOUR, PassKChart, RateChart, tick_label
from ._format import UNDEFINED, h

__all__ = ["pass_k_svg", "rate_svg"]

_TEXT = "#1a1a1a"
_GRID = "#dddddd"
_MUTED = "#555555"


def _open(width: int, height: int, label: str, title: str, font: int = 12) -> list[str]:
    return [
        f'<svg role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="system-ui, sans-serif" font-size="{font}" aria-label="{h(label)}">',
        f"<title>{h(title)}</title>",
    ]


def _scale(floor: float, start: float, length: float) -> Callable[[float], float]:
    """value in [floor, 1] → pixel in [start, start + length] (clamped)."""
    span = max(1.0 - floor, 1e-9)

    def at(value: float) -> float:
        return start + length * (min(max(float(value), floor), 1.0) - floor) / span

    return at


def rate_svg(chart: RateChart) -> str:
    """Pass rate per dimension: dot = rate (coloured by verdict), whisker = its interval (``chart.whisker``),
    tick = threshold."""
    label_w, plot_w, right_w, row_h, top = 230, 460, 130, 30, 28
    width = label_w + plot_w + right_w
    axis_y = top + row_h * len(chart.points)
    height = axis_y + 64
    x = _scale(chart.floor, label_w, plot_w)
    conf = chart.confidence
    named = chart.interval or f"{conf} CI"
    parts = _open(width, height, f"Pass rate per dimension with {chart.whisker} whiskers and threshold ticks",
                  chart.title)
    for tick in chart.ticks:
        tx = x(tick)
        parts.append(
            f'<line x1="{tx:.1f}" y1="{top - 6}" x2="{tx:.1f}" y2="{axis_y}" stroke="{_GRID}" stroke-width="1"/>'
        )
        parts.append(f'<text x="{tx:.1f}" y="{top - 10}" text-anchor="middle" fill="#444444">{tick_label(tick)}</text>')
    for i, p in enumerate(chart.points):
        y0 = top + i * row_h
        cy = y0 + row_h / 2
        parts.append("<g>")
        parts.append(f"<title>{h(p.name)}: rate {p.rate_text}, {h(named)} {p.ci_text}, threshold "
                     f"{p.threshold_text}, verdict {h(p.verdict or UNDEFINED)}, n {p.n_text}</title>")
        parts.append(f'<text x="{label_w - 8}" y="{cy + 4:.1f}" text-anchor="end" fill="{_TEXT}">{h(p.label)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y0 + 4}" width="{plot_w}" height="{row_h - 8}" fill="#f6f6f6"/>')
        if p.low is not None and p.high is not None:
            x1, x2 = x(p.low), x(p.high)
            parts.append(f'<line x1="{x1:.1f}" y1="{cy:.1f}" x2="{x2:.1f}" y2="{cy:.1f}" stroke="{INTERVAL_COLOUR}" '
                         'stroke-width="1.5"/>')
            for xe in (x1, x2):
                parts.append(f'<line x1="{xe:.1f}" y1="{cy - 6:.1f}" x2="{xe:.1f}" y2="{cy + 6:.1f}" '
                             f'stroke="{INTERVAL_COLOUR}" stroke-width="1.5"/>')
        if p.threshold is not None:
            xt = x(p.threshold)
            parts.append(f'<line x1="{xt:.1f}" y1="{y0 + 2}" x2="{xt:.1f}" y2="{y0 + row_h - 2}" '
                         f'stroke="{THRESHOLD_COLOUR}" stroke-width="3"/>')
        if p.rate is None:
            parts.append(f'<text x="{label_w + 6}" y="{cy + 4:.1f}" fill="{_MUTED}" font-style="italic">'
                         "no evidence (n = 0)</text>")
        else:
            parts.append(f'<circle cx="{x(p.rate):.1f}" cy="{cy:.1f}" r="6" fill="{p.colour}" stroke="#000000" '
                         'stroke-width="0.8"/>')
        parts.append(f'<text x="{label_w + plot_w + 10}" y="{cy + 4:.1f}" fill="{_TEXT}">{p.rate_text} '
                     f'<tspan font-weight="700">{h(p.verdict or UNDEFINED)}</tspan></text>')
        parts.append("</g>")
    ly = axis_y + 22
    parts.append(f'<line x1="{label_w}" y1="{ly + 6}" x2="{label_w + 24}" y2="{ly + 6}" stroke="{INTERVAL_COLOUR}" '
                 'stroke-width="1.5"/>')
    for xe in (label_w, label_w + 24):
        parts.append(
            f'<line x1="{xe}" y1="{ly}" x2="{xe}" y2="{ly + 12}" stroke="{INTERVAL_COLOUR}" stroke-width="1.5"/>'
        )
    parts.append(f'<text x="{label_w + 30}" y="{ly + 10}" fill="{_TEXT}">pass rate, {h(chart.whisker)}</text>')
    tx = label_w + 220
    parts.append(
        f'<line x1="{tx}" y1="{ly - 2}" x2="{tx}" y2="{ly + 14}" stroke="{THRESHOLD_COLOUR}" stroke-width="3"/>'
    )
    parts.append(f'<text x="{tx + 8}" y="{ly + 10}" fill="{_TEXT}">threshold</text>')
    lx, ly2 = label_w, ly + 24
    for verdict, colour in (("PASS", OKABE_ITO["bluish_green"]), ("FAIL", OKABE_ITO["vermillion"]),
                            ("INCOMPLETE", OKABE_ITO["orange"]), ("NOT_IN_SCOPE", OKABE_ITO["sky_blue"])):
        parts.append(
            f'<circle cx="{lx + 6}" cy="{ly2 + 6}" r="6" fill="{colour}" stroke="#000000" stroke-width="0.8"/>'
        )
        parts.append(f'<text x="{lx + 16}" y="{ly2 + 10}" fill="{_TEXT}">{verdict}</text>')
        lx += 30 + 8 * len(verdict)
    parts.append("</svg>")
    return "".join(parts)


def pass_k_svg(chart: PassKChart) -> str:
    """pass^k against k, one line per dimension over the ks every case reaches; off-curve values listed below."""
    left, plot_w, plot_h, top, legend_w = 60, 460, 260, 30, 260
    legend_h = 18 * len(chart.lines) + 10
    body_h = max(plot_h + 40, legend_h)
    notes = [*chart.off_curve, *([chart.more] if chart.more else [])]
    width = left + plot_w + 20 + legend_w
    height = top + body_h + (20 + 16 * len(notes) if notes else 10)
    ks = chart.ks
    y = _scale(chart.floor, 0.0, plot_h)
    bottom = top + plot_h

    def py(value: float) -> float:
        return bottom - y(value)

    def px(k: int) -> float:
        if len(ks) < 2:
            return left + plot_w / 2
        return left + plot_w * (k - ks[0]) / (ks[-1] - ks[0])

    parts = _open(width, height, f"pass^k against k per dimension for k = {', '.join(map(str, ks)) or UNDEFINED}",
                  chart.title, font=11)
    for tick in chart.ticks:
        ty = py(tick)
        parts.append(
            f'<line x1="{left}" y1="{ty:.1f}" x2="{left + plot_w}" y2="{ty:.1f}" stroke="{_GRID}" stroke-width="1"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end" fill="#444444">{tick_label(tick)}</text>'
        )
    for k in ks:
        parts.append(
            f'<line x1="{px(k):.1f}" y1="{top}" x2="{px(k):.1f}" y2="{bottom}" stroke="{_GRID}" stroke-width="1"/>'
        )
        parts.append(f'<text x="{px(k):.1f}" y="{bottom + 16}" text-anchor="middle" fill="#444444">{k}</text>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{bottom + 32}" text-anchor="middle" fill="{_TEXT}">'
                 "k (trials that must all pass)</text>")
    if not chart.drawn:
        parts.append(f'<text x="{left + 8}" y="{top + 20}" fill="{_MUTED}" font-style="italic">'
                     "no pass^k value on a curve</text>")
    for i, line in enumerate(chart.lines):
        edge = "#333333" if line.colour == "#F0E442" else line.colour
        dash = ' stroke-dasharray="6 3"' if line.dashed else ""
        parts.append("<g>")
        parts.append(f"<title>{h(line.name)}: " + (", ".join(f"pass^{k} {text}" for k, _, text in line.points)
                                                   or "no value on the curve") + "</title>")
        if len(line.points) > 1:
            points = " ".join(f"{px(k):.1f},{py(v):.1f}" for k, v, _ in line.points)
            parts.append(f'<polyline points="{points}" fill="none" stroke="{line.colour}" stroke-width="2"{dash}/>')
        for k, v, _ in line.points:
            parts.append(f'<circle cx="{px(k):.1f}" cy="{py(v):.1f}" r="4" fill="{line.colour}" stroke="{edge}" '
                         'stroke-width="1"/>')
        ly = top + 8 + 18 * i
        lx = left + plot_w + 20
        parts.append(
            f'<line x1="{lx}" y1="{ly}" x2="{lx + 22}" y2="{ly}" stroke="{line.colour}" stroke-width="2"{dash}/>'
        )
        parts.append(f'<circle cx="{lx + 11}" cy="{ly}" r="4" fill="{line.colour}" stroke="{edge}" stroke-width="1"/>')
        parts.append(f'<text x="{lx + 28}" y="{ly + 4}" fill="{_TEXT}">{h(line.label)}</text>')
        parts.append("</g>")
    if notes:
        ny = top + body_h + 16
        parts.append(f'<text x="{left}" y="{ny}" fill="{_TEXT}">Not on the curve (a subset of the cases):</text>')
        for j, note in enumerate(notes, 1):
            parts.append(f'<text x="{left + 12}" y="{ny + 16 * j}" fill="{_MUTED}">{h(note)}</text>')
    parts.append("</svg>")
    return "".join(parts)
