"""Issue 26 (SPEC §18): every report says what its decisions mean and carries the new per-dimension fields.

The scorecard is a real evaluation of the bundled example written before issue 26 (schema_version 1,
``tests/data/stored/scorecard_ecf8f4a_interval.json``) with the issue 26 keys added as
CONTRACT.md defines them (:func:`_issue26_fields.with_decision_fields`); the scorecard without
them must still show exactly what it showed before.
"""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _issue26_fields import HOSTILE_CASE, jeffreys_assurance, with_decision_fields
from _rendered import parse_html, table_rows

from scorekit import notebook
from scorekit._ci import step_summary
from scorekit.reports import render_html, render_markdown
from scorekit.reports._format import (
    agreement_text,
    error_rates_text,
    fmt_ci,
    fmt_p,
    fmt_pass_k,
    interval_label,
    md_escape,
    md_unescape,
    rate_bounds_text,
)
from scorekit.reports._sections import build_sections
from scorekit.reports.junit import render_junit
from scorekit.reports.text import demo_text, run_text

HOLM = ("A regression verdict is a drop shown at the 2.5% level (one-sided) across the 8 dimensions compared "
        "(Holm); 95% intervals.")


#: The bundled example's scorecard.json as main wrote it before issue 26 (schema_version 1).
WRITTEN_BEFORE = Path(__file__).parents[1] / "data" / "stored" / "scorecard_ecf8f4a_interval.json"


@pytest.fixture(scope="module")
def plain() -> dict:
    data = json.loads(WRITTEN_BEFORE.read_text(encoding="utf-8"))
    assert data["schema_version"] == 1 and "wilson_low" not in data["dimensions"][0]
    return data


@pytest.fixture(scope="module")
def decided(plain) -> dict:
    return with_decision_fields(plain, flip="tool_call", judged="helpfulness")


def _everything(data: dict) -> dict[str, str]:
    """Every rendering of ``data``, as text (the Markdown ones unescaped)."""
    s = build_sections(data)
    report = notebook.Report(s)
    fragments = [report.decision(), report.dimensions(), report.summary(), report.comparison()]
    return {
        "html": render_html(s),
        "markdown": md_unescape(render_markdown(s)),
        "terminal": run_text(s),
        "notebook html": "".join(f.html for f in fragments),
        "notebook markdown": md_unescape("\n".join(f.markdown for f in fragments)),
        "job summary": md_unescape(step_summary(s)),
        "junit": render_junit(s),
    }


def _html_text(html: str) -> str:
    import html as std

    return std.unescape(html)


# --------------------------------------------------------------------------- what a verdict means
def test_error_rates_sentence_with_a_comparison_is_in_every_report(decided):
    assert error_rates_text(decided["error_rates"], decided["comparison"]) == HOLM
    for name, text in _everything(decided).items():
        assert HOLM in (_html_text(text) if "html" in name or name == "junit" else text), name


def test_without_a_comparison_the_sentence_says_what_pass_and_fail_mean_at_the_level(plain):
    data = with_decision_fields(plain, comparison=False)
    sentence = build_sections(data).error_rates
    assert sentence.startswith("PASS means every dimension in scope measured at or above its threshold")
    assert "no regression comparison was made; 95% intervals." in sentence
    assert "about half the time" in sentence  # the point basis (the default) is a coin flip at the threshold
    data["policy"]["gate"]["threshold_basis"] = "wilson_lower"
    lower = build_sections(data).error_rates
    assert "95% lower bound (wilson_lower) meets its threshold" in lower and "at most 2.5% of the time" in lower
    for name, text in _everything(with_decision_fields(plain, comparison=False)).items():
        assert "no regression comparison was made" in text, name


def test_multiplicity_none_and_one_comparison_read_naturally(decided):
    rates = dict(decided["error_rates"], multiplicity="none", comparisons=1)
    assert error_rates_text(rates, decided["comparison"]) == (
        "A regression verdict is a drop shown at the 2.5% level (one-sided) in each of the one dimension compared, "
        "without multiplicity correction; 95% intervals.")


def test_a_scorecard_written_before_issue_26_shows_what_it_showed(plain):
    s = build_sections(plain)
    assert s.error_rates == "" and s.dimension_notes == () and s.case_changes == ()
    assert s.measures.columns == ("dimension", "n", "passes", "fails", "errors", "abstains", "rate",
                                  "95% Wilson CI", "coverage")
    assert "assurance" not in s.thresholds.columns and "P(meets threshold)" not in s.summary.columns
    assert s.rate_chart.title == "Pass rate per dimension (95% Wilson interval, threshold)"
    for name, text in _everything(plain).items():
        assert "regression verdict" not in text and "probability" not in text, name


# --------------------------------------------------------------------------- beside each verdict
def test_assurance_and_cases_to_settle_stand_beside_each_verdict(decided):
    s = build_sections(decided)
    columns = s.thresholds.columns
    assert columns[columns.index("verdict") + 1] == "assurance"
    root, _ = parse_html(render_html(s))
    rows = {r[0]: dict(zip(h, r, strict=True)) for t in root.find_all("table")
            for h, body in [table_rows(t)] if h and "assurance" in h for r in body}
    for dim in decided["dimensions"]:
        # the reference: the Jeffreys posterior itself, from the counts
        p = jeffreys_assurance(dim["passes"], dim["n"], dim["threshold"], dim["deff"])
        want = f"meets {dim['threshold'] * 100:.1f}% with probability {100 * p:.1f}%"
        assert rows[dim["name"]]["assurance"].startswith(want), dim["name"]
        if dim["cases_to_settle"] is not None:
            assert f"about {dim['cases_to_settle']} cases would settle it" in rows[dim["name"]]["assurance"]
    # the point basis (the default) says what to read; another basis does not
    assert "passes about half the time, so read the assurance" in s.assurance_note
    other = copy.deepcopy(decided)
    other["policy"]["gate"]["threshold_basis"] = "wilson_lower"
    assert build_sections(other).assurance_note == ""


def test_the_terminal_and_the_job_summary_write_the_assurance_out(decided):
    for text in (run_text(build_sections(decided)), md_unescape(step_summary(build_sections(decided)))):
        assert "P(meets threshold)" in text
        assert "cost: PASS: meets 95.0% with probability" in text.replace("- cost", "cost")
        assert "so read the assurance beside its verdict" in text


def test_rate_bounds_are_said_whenever_rows_are_missing():
    assert rate_bounds_text([0.61, 0.78], 9) == "between 61.0% and 78.0% had the 9 missing rows been measured"
    assert rate_bounds_text(None, 0) == ""


def test_rate_bounds_and_a_verdict_missing_rows_could_flip_read_naturally(decided):
    tool_call = next(d for d in decided["dimensions"] if d["name"] == "tool_call")
    low, high = tool_call["rate_bounds"]
    bounds = f"between {100 * low:.1f}% and {100 * high:.1f}% had the 3 missing rows been measured"
    flip = "counted as FAIL they could take it below its threshold 95.0%, so the verdict waits for them"
    everything = _everything(decided)
    for name, text in everything.items():
        text = _html_text(text) if "html" in name or name == "junit" else text
        assert bounds in text and flip in text, name
    junit = ET.fromstring(everything["junit"].split("\n", 1)[1])
    error = next(c for c in junit.iter("testcase") if c.get("name") == "tool_call").find("error")
    assert error is not None and error.get("type") == "INCOMPLETE" and flip in error.text
    measures = build_sections(decided).measures
    assert measures.cell("tool_call", "rate had the missing rows been measured").text == fmt_ci(low, high)
    assert measures.cell("injection", "rate had the missing rows been measured").text == "—"  # nothing missing


def test_the_headline_interval_is_named_and_wilson_kept_in_the_detailed_table(decided, plain):
    s = build_sections(decided)
    assert s.measures.columns[7:9] == ("95% CI (case-clustered)", "95% Wilson CI")
    for dim, old in zip(decided["dimensions"], plain["dimensions"], strict=True):
        assert s.measures.cell(dim["name"], "95% CI (case-clustered)").text == \
            fmt_ci(old["ci_cluster_low"], old["ci_cluster_high"])
        assert s.measures.cell(dim["name"], "95% Wilson CI").text == fmt_ci(old["ci_low"], old["ci_high"])
    assert s.rate_chart.title == "Pass rate per dimension (95% CI (case-clustered), threshold)"
    assert "pass rate, 95% CI (case-clustered)" in render_html(s)  # the chart's legend


def test_single_trial_dimensions_name_wilson_and_a_mixed_card_names_each_cell(decided):
    single = copy.deepcopy(decided)
    for dim in single["dimensions"]:
        dim["interval_method"] = "wilson"
    s = build_sections(single)
    assert "95% CI (Wilson)" in s.measures.columns and "95% Wilson CI" not in s.measures.columns
    mixed = copy.deepcopy(decided)
    mixed["dimensions"][0]["interval_method"] = "wilson"
    s = build_sections(mixed)
    assert interval_label("95%", ["wilson", "wilson_clustered"]) == "95% CI"
    assert s.measures.cell(mixed["dimensions"][0]["name"], "95% CI").text.endswith("(Wilson)")
    assert s.measures.cell(mixed["dimensions"][1]["name"], "95% CI").text.endswith("(case-clustered)")


def test_pass_1_is_shown_beside_the_rate_only_when_trials_vary(decided):
    s = build_sections(decided)
    label = "pass^1 (every case weighs the same)"
    assert s.thresholds.columns[s.thresholds.columns.index("rate") + 1] == label
    dim = decided["dimensions"][0]
    assert s.thresholds.cell(dim["name"], label).text == f"{100 * dim['pass_1']:.1f}%"
    assert f"pass^1 (every case weighs the same) {100 * dim['pass_1']:.1f}% beside the rate" in \
        run_text(s)
    even = copy.deepcopy(decided)
    for d in even["dimensions"]:
        d["trials_vary"] = False
    s = build_sections(even)
    assert label not in s.thresholds.columns and "pass^1 (every case weighs the same)" not in run_text(s)


def test_pass_k_intervals_stand_beside_pass_k(decided):
    s = build_sections(decided)
    dim = decided["dimensions"][0]
    low, high = dim["pass_k_ci"]["2"]
    cell = s.pass_k[0].cell(dim["name"], "pass^2").text
    assert cell == f"{100 * dim['pass_k']['2']:.1f}% (CI {fmt_ci(low, high)})" == fmt_pass_k(dim, "2", interval=True)
    assert "over 11 of 12 cases; CI" in s.pass_k[0].cell(dim["name"], "pass^4").text


def test_judge_agreement_is_said_where_present(decided):
    assert agreement_text({"krippendorff_alpha": 0.62, "unanimous_share": 0.75, "units": 40}) == \
        "judge agreement: Krippendorff's α 0.62 over 40 rows, 75.0% unanimous"
    assert agreement_text({"krippendorff_alpha": None, "unanimous_share": 1.0, "units": 1}).startswith(
        "judge agreement: Krippendorff's α undefined over 1 row")
    for name, text in _everything(decided).items():
        text = _html_text(text) if "html" in name or name == "junit" else text
        assert "judge agreement: Krippendorff's α 0.62 over 40 rows, 75.0% unanimous" in text, name


# --------------------------------------------------------------------------- the comparison
def test_the_comparison_shows_each_test_with_its_p_values_method_and_cases(decided):
    table = build_sections(decided).regressions
    assert table is not None
    assert table.columns == ("dimension", "status", "baseline", "candidate", "difference", "p-value",
                             "p adjusted (Holm)", "method", "cases compared", "rule")
    first = decided["comparison"]["regressions"][0]
    name = first["dimension"]
    assert table.cell(name, "p-value").text == "0.0004" and table.cell(name, "p adjusted (Holm)").text == "0.0032"
    assert table.cell(name, "difference").text == "-8.0 pp (-13.0 pp to -3.1 pp)"
    assert table.cell(name, "cases compared").text == "48 shared, 2 only in the baseline, 1 only in the candidate"
    assert table.cell(name, "method").text == "paired"
    assert fmt_p(0.02494) == "0.0249" and fmt_p(1e-9) == "< 0.0001"


def test_a_fallback_method_says_which_ran_and_why(decided):
    data = copy.deepcopy(decided)
    data["comparison"]["regressions"][1].update(method_used="newcombe", shared_cases=None, cases_only_baseline=None,
                                                cases_only_candidate=None, regressed_cases=None, improved_cases=None)
    table = build_sections(data).regressions
    name = data["comparison"]["regressions"][1]["dimension"]
    assert table.cell(name, "method").text == "newcombe (paired asked; no per-case counts on both sides)"
    assert table.cell(name, "cases compared").text == "—"


def test_regressed_cases_are_listed_first_few_inline_and_all_in_the_html(decided):
    s = build_sections(decided)
    regressed = s.case_changes[0]
    assert (regressed.dimension, regressed.kind, regressed.total) == ("action_correctness", "regressed", "57")
    assert regressed.text.startswith("action_correctness: 57 regressed cases: case-000 100.0% → 33.3% (-66.7 pp), ")
    assert regressed.text.endswith(" and 52 more")
    for name, text in _everything(decided).items():
        text = _html_text(text) if "html" in name or name == "junit" else text
        assert "57 regressed cases" in text and "and 52 more" in text, name
    html = render_html(s)
    root, _ = parse_html(html)
    details = root.find_all("details")
    assert len(details) == 1  # the improved lists (2 cases) are all inline
    listed = [li.all_text() for li in details[0].find_all("li")]
    assert len(listed) == 50 and "case-049" in listed[49] and "100.0% → 33.3% (-66.7 pp)" in listed[49]
    assert "… and 7 more not listed" in details[0].all_text()


def test_a_case_total_without_listed_cases_says_none_are_listed(decided):
    data = copy.deepcopy(decided)
    data["comparison"]["regressions"][0]["regressed_cases"] = {"total": 4, "listed": []}
    regressed = build_sections(data).case_changes[0]
    assert regressed.text == "action_correctness: 4 regressed cases: none listed"


def test_case_ids_in_the_lists_stay_inert_in_every_format(decided):
    html = render_html(build_sections(decided))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    markdown = render_markdown(build_sections(decided))
    assert md_escape(HOSTILE_CASE) in markdown and HOSTILE_CASE not in markdown
    xml = render_junit(build_sections(decided))
    assert "<script>" not in xml and ET.fromstring(xml.split("\n", 1)[1]) is not None


def test_a_comparison_written_before_issue_26_keeps_its_columns(plain):
    old = copy.deepcopy(plain)
    old["comparison"] = {"status": "passed", "method": "newcombe", "max_drop": 0.02, "baseline": {"id": 1},
                         "regressions": [{
                             "dimension": "cost", "method": "newcombe", "status": "ok", "regressed": False,
                             "baseline": {"n": 70, "passes": 67, "rate": 67 / 70, "ci_low": 0.88, "ci_high": 0.98},
                             "candidate": {"n": 70, "passes": 67, "rate": 67 / 70, "ci_low": 0.88, "ci_high": 0.98},
                             "difference": 0.0, "diff_low": -0.06, "diff_high": 0.06, "diff_interval": "newcombe",
                             "shared_cases": None, "limit": -0.02, "rule": "Newcombe interval wholly below"}]}
    s = build_sections(old)
    assert s.regressions is not None
    assert s.regressions.columns == ("dimension", "status", "baseline", "candidate", "difference", "shared cases",
                                     "limit", "rule")
    assert s.regressions.cell("cost", "difference").text == "+0.0 pp (-6.0 pp to +6.0 pp, Newcombe)"
    assert s.case_changes == ()


# --------------------------------------------------------------------------- findings
def test_a_low_confidence_finding_renders_as_info(decided):
    data = copy.deepcopy(decided)
    data["findings"] = [{"dimension": "cost", "reason": "low_confidence", "severity": "info", "status": "PASS",
                         "case_ids": [], "rows": 0, "details": [],
                         "review": "PASS with assurance 0.493, below the confidence 0.95; about 28 cases would "
                                   "settle it.", "suggested_fix": "Add cases before relying on this PASS."}]
    s = build_sections(data)
    assert s.findings is not None and s.findings.cell("1", "severity").tone == "info"
    html = render_html(s)
    assert '<span class="sk-sev-info">info</span>' in html and "about 28 cases would settle it" in html
    assert "findings:" not in run_text(s)  # the terminal counts blocker/high findings only
    assert demo_text(s)
