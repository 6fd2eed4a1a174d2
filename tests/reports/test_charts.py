"""One implementation per chart: the reports' SVG and ``scorekit.plots`` draw the same chart model.

The model (:mod:`scorekit.reports._charts`) holds the rows in order, their values,
intervals and thresholds, the texts of the numbers and the axis range; the SVG
(:mod:`scorekit.reports._svg`) and the matplotlib Axes both draw it, so neither
computes a number, an order or an axis of its own.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import scorekit as sk
from scorekit import plots
from scorekit.reports._charts import (
    LABEL_LIMIT,
    axis_floor,
    axis_ticks,
    chart_label,
    pass_k_chart,
    rate_chart,
    tick_label,
)
from scorekit.reports._format import fmt_pct
from scorekit.reports._svg import pass_k_svg, rate_svg


@pytest.fixture(scope="module")
def card():
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))


@pytest.fixture(scope="module")
def dims(card):
    return card.to_dict()["dimensions"]


def _svg_texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)", svg)


def test_rate_chart_svg_and_matplotlib_draw_one_model(card, dims):
    model = rate_chart(dims, "95%")
    thresholds = {d["name"]: d["threshold"] for d in dims}
    ax = plots.plot_rates(card.dimensions, thresholds=thresholds, confidence=0.95)
    # rows, top to bottom, and their labels
    top_down = sorted(zip(ax.get_yticks(), [t.get_text() for t in ax.get_yticklabels()], strict=True), reverse=True)
    assert [label for _, label in top_down] == [p.label for p in model.points]
    # the axis and its ticks
    assert ax.get_xlim() == pytest.approx((model.floor - 0.02, 1.02))
    assert [t.get_text() for t in ax.get_xticklabels()] == [tick_label(t) for t in model.ticks]
    # the numbers, in the reports' words
    assert [t.get_text() for t in ax.texts] == [f"{p.rate_text}  n={p.n_text}" for p in model.points]
    (marks,) = [c for c in ax.collections if c.get_label() == "threshold"]
    assert sorted(x for x, _ in marks.get_offsets()) == sorted(p.threshold for p in model.points)
    svg = rate_svg(model)
    texts = _svg_texts(svg)
    assert [tick_label(t) for t in model.ticks] == texts[:len(model.ticks)]
    assert [p.label for p in model.points] == [t for t in texts if t in {p.label for p in model.points}]
    assert all(f"{p.rate_text} " in texts for p in model.points)
    assert svg.count('stroke-width="3"') == sum(p.threshold is not None for p in model.points) + 1  # + legend


def test_rate_chart_colours_each_dot_by_verdict_in_both_drawings(card, dims):
    model = rate_chart(dims, "95%")
    ax = plots.plot_rates(card.dimensions, confidence=0.95)
    (dots,) = [c for c in ax.collections if c.get_label() != "threshold" and len(c.get_offsets()) == len(dims)]
    from matplotlib.colors import to_hex

    assert [to_hex(c).upper() for c in dots.get_facecolors()] == [p.colour.upper() for p in model.points]
    svg = rate_svg(model)
    assert [c.upper() for c in re.findall(r'<circle cx="[^"]+" cy="[^"]+" r="6" fill="(#[0-9A-Fa-f]{6})"', svg)][
        :len(dims)] == [p.colour.upper() for p in model.points]


def test_pass_k_chart_svg_and_matplotlib_draw_one_model(card, dims):
    model = pass_k_chart(dims)
    frame = card.dimensions
    ax = plots.plot_pass_k(plots.pass_k_frame(frame), curve_k=frame["curve_k"],
                           cases=plots.pass_k_frame(frame, "pass_k_cases"))
    assert [line.get_label() for line in ax.lines] == [line.label for line in model.lines]
    for drawn, line in zip(ax.lines, model.lines, strict=True):
        assert list(drawn.get_xdata()) == [k for k, _, _ in line.points]
        assert list(drawn.get_ydata()) == pytest.approx([v for _, v, _ in line.points])
    assert ax.get_ylim() == pytest.approx((model.floor - 0.02, 1.02))
    (note,) = [t.get_text() for t in ax.texts if t.get_text().startswith("Not on the curve")]
    assert all(text in note for text in model.off_curve) and model.more in note
    svg = pass_k_svg(model)
    assert svg.count("<polyline") == sum(len(line.points) > 1 for line in model.lines)
    assert all(text in _svg_texts(svg) for text in model.off_curve)


def test_values_over_a_subset_of_the_cases_are_never_on_a_curve(dims):
    model = pass_k_chart(dims)
    for dim, line in zip(dims, model.lines, strict=True):
        assert all(k <= dim["curve_k"] for k, _, _ in line.points)
        values = [v for _, v, _ in line.points]
        assert values == sorted(values, reverse=True), dim["name"]  # pass^k never rises over one set of cases
    assert len(model.off_curve) <= 6 and model.more == "… and 2 more (see the pass^k table)"


@given(st.lists(st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0)), max_size=12))
def test_axis_floor_is_a_tenth_at_least_five_points_under_every_value(values):
    defined = [v for v in values if v is not None]
    floor = axis_floor(values)
    assert 0.0 <= floor <= 1.0
    assert math.isclose(floor * 10, round(floor * 10))
    assume(defined)
    assert floor == 0.0 or floor <= min(defined) - 0.05 + 1e-9
    assert axis_ticks(floor)[0] == pytest.approx(floor) and axis_ticks(floor)[-1] == 1.0


def test_chart_labels_are_cut_at_one_limit_in_both_drawings():
    assert plots.LABEL_LIMIT == LABEL_LIMIT
    long = "d" * 200
    assert len(chart_label(long)) == LABEL_LIMIT and chart_label(long).endswith("…")
    model = rate_chart([{"name": long, "rate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "n": 10}], "95%")
    assert model.points[0].label == chart_label(long)
    assert chart_label(long) in rate_svg(model) and long not in rate_svg(model).split("<title>")[2].split("</g>")[1]


def test_an_undefined_rate_is_drawn_as_no_evidence_never_zero():
    model = rate_chart([{"name": "judged", "rate": None, "ci_low": None, "ci_high": None, "n": 0,
                         "threshold": 0.8, "verdict": "INCOMPLETE"}], "95%")
    (point,) = model.points
    assert point.rate_text == point.ci_text == "—" and point.n_text == "0"
    svg = rate_svg(model)
    assert "no evidence (n = 0)" in svg and fmt_pct(0.0) not in _svg_texts(svg)
