"""Every printed or rendered interval label says the policy's confidence (here 0.8: "80%"), never a fixed 95%.

The CLI tables (``run``, ``demo``), the Markdown and HTML reports, the notebook
fragments (``scorekit.notebook``), the figures' legends and the Agent Card all
label their intervals from the scorecard's ``confidence``.
"""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

import scorekit as sk
from scorekit import cli, notebook, plots
from scorekit.reports._format import fmt_confidence
from scorekit.reports._sections import build_sections
from scorekit.reports.text import demo_text

POLICY_80 = {"purpose": "release", "confidence": 0.8, "pass_k": [1, 2]}
# "95%" as a label; a rate or threshold of 95% is written "95.0%" and does not match.
FIXED_95 = re.compile(r"(?<![\d.])95%")


def _rows() -> list[dict]:
    rows = []
    for i in range(12):
        rows.append({"id": f"r{i}", "dimension": "tool_call", "case_id": f"c{i // 3}", "trial": i % 3,
                     "status": "FAIL" if i in (4, 7) else "PASS", "evaluator": "harness/2.0"})
    return rows


@pytest.fixture(scope="module")
def card():
    return sk.evaluate(_rows(), policy=POLICY_80)


def test_fmt_confidence_keeps_every_digit_of_the_level():
    assert [fmt_confidence(c) for c in (0.8, 0.95, 0.975, 0.999, 0.9999)] == ["80%", "95%", "97.5%", "99.9%", "99.99%"]


def test_cli_run_table_labels_intervals_with_the_policy_confidence(tmp_path):
    results = tmp_path / "rows.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in _rows()), encoding="utf-8")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(POLICY_80), encoding="utf-8")
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["run", "--results", str(results), "--policy", str(policy), "--out-dir", str(tmp_path)]) == 0
    text = out.getvalue()
    assert "80% CI (case-clustered)" in text  # the headline interval: the cases repeat trials (SPEC §18)
    assert not FIXED_95.search(text), text


def test_cli_demo_table_labels_intervals_with_the_scorecard_confidence(card):
    text = demo_text(build_sections(card.to_dict()))
    header = next(line for line in text.splitlines() if line.startswith("dimension"))
    assert "80% Wilson CI" in header
    assert not FIXED_95.search(text)


def test_reports_label_intervals_with_the_policy_confidence(card, tmp_path):
    written = card.write(tmp_path)
    for kind in ("markdown", "html"):
        text = Path(written[kind]).read_text(encoding="utf-8")
        assert "80% Wilson" in text, kind
        assert not FIXED_95.search(text), kind


def test_notebook_fragments_label_intervals_with_the_policy_confidence(card):
    report = notebook.Report(card.to_dict())
    table = report.dimensions()
    for text in (table.html, table.markdown):
        assert "80% Wilson CI" in text and "80% clustered CI" in text and not FIXED_95.search(text)
    fragment = report.variance()  # four cases × trials 0, 1, 2: the trial index stands in for runs
    for text in (fragment.html, fragment.markdown):
        assert "80% t-interval of the mean" in text and not FIXED_95.search(text)
    chart = report.rate_chart()
    assert "80% CI (case-clustered)" in chart.html and not FIXED_95.search(chart.html)


def test_figure_legends_label_intervals_with_the_given_confidence(card):
    data = card.to_dict()
    # the bars are ci_low/ci_high, the case-clustered interval here (interval_method): the legend names it
    ax = plots.plot_rates(card.dimensions, confidence=data["confidence"])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["pass rate, 80% CI (case-clustered)"]
    single = sk.evaluate([r for r in _rows() if r["trial"] == 0], policy=POLICY_80)
    ax = plots.plot_rates(single.dimensions, confidence=0.8)
    assert ax.get_legend().get_texts()[0].get_text() == "pass rate, 80% CI (Wilson)"
    ax = plots.plot_rates(single.dimensions.drop(columns="interval_method"), confidence=0.8)  # a frame of before
    assert ax.get_legend().get_texts()[0].get_text() == "pass rate, Wilson 80% CI"
    evidence = card.evidence
    ax = plots.plot_variance(evidence.scorekit.run_rates("trial"),
                             evidence.scorekit.variance("trial", confidence=0.8), confidence=0.8)
    assert "80% t-interval of the mean" in [t.get_text() for t in ax.get_legend().get_texts()]
    ax = evidence.scorekit.plot_rates(confidence=0.8)  # the accessor passes its confidence on
    assert ax.get_legend().get_texts()[0].get_text() == "pass rate, 80% CI (case-clustered)"


def test_explorer_figure_labels_intervals_with_the_policy_confidence():
    from scorekit.widgets import explore_state

    view = explore_state(pd.DataFrame(_rows()), policy=POLICY_80)
    assert "pass rate, 80% CI (case-clustered)" in [t.get_text() for t in view.rates_axes().get_legend().get_texts()]


def test_agent_card_labels_intervals_with_the_scorecard_confidence(card, tmp_path):
    from scorekit.agent_card import build_agent_card, write_agent_card

    agent_card = build_agent_card(card.to_dict())
    text = write_agent_card(agent_card, tmp_path)["md"].read_text(encoding="utf-8")
    # the table and each dimension's detail name the interval ci_low/ci_high are (case-clustered: trials repeat)
    dim = card.to_dict()["dimensions"][0]
    shown = f"{100 * dim['ci_low']:.1f}% – {100 * dim['ci_high']:.1f}%"
    assert "| 80% CI (case-clustered) |" in text and shown in text and "Wilson CI" not in text
    assert "80% CI (case-clustered) " in json.dumps(agent_card)
    assert not FIXED_95.search(text)


@pytest.mark.timeout(300)
def test_rendered_release_notebook_labels_intervals_with_the_policy_confidence(tmp_path):
    from scorekit.render import render_notebook

    policy = tmp_path / "policy.yml"
    text = sk.example_path(file="policy.yml").read_text(encoding="utf-8")
    assert "\nconfidence: 0.95\n" in text
    policy.write_text(text.replace("\nconfidence: 0.95\n", "\nconfidence: 0.8\n"), encoding="utf-8")
    result = render_notebook(sk.example_path(), policy, agent_name="email-assistant", agent_version="1.0.0",
                             out_dir=tmp_path / "out", timeout=240)
    for path in (result.html, result.markdown):
        report = path.read_text(encoding="utf-8")
        assert "Interval: 80%, case-clustered where some case" in report, path.name
        assert "80% CI (case-clustered)" in report and "80% Wilson CI" in report, path.name
        assert "80% t-interval of the mean" in report, path.name
        assert not FIXED_95.search(report), (path.name, FIXED_95.search(report))


def test_agent_card_of_mixed_intervals_names_each_cell(tmp_path):
    from scorekit.agent_card import build_agent_card, write_agent_card

    single = [dict(r, id=f"s{r['id']}", dimension="task_completion") for r in _rows() if r["trial"] == 0]
    data = sk.evaluate([*_rows(), *single], policy=POLICY_80).to_dict()
    methods = {d["name"]: d["interval_method"] for d in data["dimensions"]}
    assert methods == {"task_completion": "wilson", "tool_call": "wilson_clustered"}
    text = write_agent_card(build_agent_card(data), tmp_path)["md"].read_text(encoding="utf-8")
    assert "| 80% CI |" in text  # the column cannot say which interval, so each cell does
    for dim in data["dimensions"]:
        name = {"wilson": "Wilson", "wilson_clustered": "case-clustered"}[dim["interval_method"]]
        escaped = dim["name"].replace("_", "\\_")  # Markdown-escaped in the table
        row = next(line for line in text.splitlines() if line.startswith(f"| {escaped} |"))
        assert f"{100 * dim['ci_low']:.1f}% – {100 * dim['ci_high']:.1f}% ({name})" in row, row
