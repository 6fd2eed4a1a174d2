"""scorecard.md: content, percentages, undefined values, escaping, truncation."""

from __future__ import annotations

import re

import mistune
import pytest
from hypothesis import given
from hypothesis import strategies as st

import scorekit as sk
from scorekit._findings import verification_guidance
from scorekit.reports import render_markdown, write_reports
from scorekit.reports._format import (
    LIST_LIMIT,
    UNDEFINED,
    fmt_ci,
    fmt_pct,
    md_escape,
    md_unescape,
    more_text,
)

CELL_SPLIT = re.compile(r"(?<!\\)\|")


@pytest.fixture(scope="module")
def card() -> sk.Scorecard:
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))


@pytest.fixture(scope="module")
def md(card) -> str:
    return render_markdown(card.to_dict(), evidence_rows=len(card.evidence))


def _table_after(md: str, heading: str) -> list[list[str]]:
    """Rows (header first, separator dropped) of the first table after ``heading``."""
    lines = md.splitlines()
    start = lines.index(heading) - (1 if heading.startswith("|") else 0)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            cells = [c.strip() for c in CELL_SPLIT.split(line)[1:-1]]
            if not all(set(c) <= {"-", ":"} for c in cells):
                rows.append(cells)
        elif rows:
            break
    return rows


# --------------------------------------------------------------------------- formatting
def test_percentages_have_one_decimal():
    assert fmt_pct(0.8473) == "84.7%"
    assert fmt_pct(0.5) == "50.0%"
    assert fmt_pct(1.0) == "100.0%"
    assert fmt_pct(0.0) == "0.0%"
    assert fmt_ci(0.795361863737675, 0.9525520275375955) == "79.5% – 95.3%"


def test_undefined_is_a_dash_never_zero_percent():
    assert fmt_pct(None) == UNDEFINED == "—"
    assert fmt_pct(float("nan")) == UNDEFINED
    assert fmt_ci(None, None) == UNDEFINED
    assert fmt_ci(0.1, None) == UNDEFINED


def test_near_extremes_are_not_rounded_onto_them():
    assert fmt_pct(0.99996) == "99.9%"
    assert fmt_pct(0.00001) == "0.1%"


@pytest.mark.parametrize(
    ("char", "escaped"),
    [("|", "\\|"), ("<", "&lt;"), (">", "&gt;"), ("&", "&amp;"), ("`", "\\`"), ("*", "\\*"), ("_", "\\_"),
     ("[", "\\["), ("]", "\\]"), ("\\", "\\\\"), ("\n", "<br>"), ("~", "\\~"), ("#", "\\#"), ("!", "\\!")],
)
def test_md_escape_escapes_each_special_character(char, escaped):
    assert md_escape(f"a{char}b") == f"a{escaped}b"


def test_md_escape_cannot_break_a_table_row_or_inject_html():
    text = md_escape("a|b\nc <script>alert(1)</script> [x](javascript:alert(1)) ![i](http://evil/x.png)")
    assert "\n" not in text
    assert not CELL_SPLIT.search(text)
    assert "<script" not in text and "](" not in text.replace("\\](", "")
    assert md_escape("\r\n") == "<br>"
    assert md_escape("a\x00b\x1bc") == "a\ufffdb\ufffdc"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"))))
def test_md_unescape_inverts_md_escape(text):  # every line break becomes LF (tests/test_escape.py)
    assert md_unescape(md_escape(text)) == text


def test_more_text_names_the_number_left_out():
    assert more_text(0) == ""
    assert more_text(1234) == "… and 1,234 more (see evidence.parquet)"


# --------------------------------------------------------------------------- content
def test_markdown_shows_decision_overall_pass_purpose_and_identity(md, card):
    data = card.to_dict()
    assert md.startswith(f"# Scorecard: {data['decision']}\n")
    assert f"**Decision: {data['decision']}**" in md
    assert "- overall_pass: **false**" in md
    assert "- purpose: release" in md
    assert "- agent: —, version —" in md
    assert f"- generated_at: {data['generated_at']}" in md
    for judge in data["judges"]:
        assert md_escape(judge) in md


def test_markdown_shows_scope(md):
    assert "## Scope" in md
    assert "- required dimensions: action\\_correctness, cost, helpfulness" in md
    assert "- inferred: false" in md
    assert "- missing dimensions: —" in md


def test_markdown_splits_the_dimension_table_into_measures_thresholds_and_reliability(md, card):
    measures = _table_after(md, "### Measures")
    # the headline interval (case-clustered: the example repeats trials) beside the rate, Wilson kept (SPEC §18)
    assert measures[0] == ["dimension", "n", "passes", "fails", "errors", "abstains", "rate", "95% CI (case-clustered)",
                           "95% Wilson CI", "coverage", "rate had the missing rows been measured"]
    thresholds = _table_after(md, "### Thresholds")
    assert thresholds[0] == ["dimension", "verdict", "assurance", "rate", "pass^1 (every case weighs the same)",
                             "threshold", "measure (point)", "verdict reasons"]
    reliability = _table_after(md, "### Reliability")
    assert reliability[0] == ["dimension", "cases", "deff", "95% clustered CI", "this evaluation can detect",
                              "consistency", "flaky cases"]
    pass_k = _table_after(md, "| dimension | pass^1 | pass^2 | pass^4 |")
    assert [md_unescape(c) for c in pass_k[0]] == ["dimension", "pass^1", "pass^2", "pass^4"]
    tables = [{md_unescape(r[0]): r for r in t[1:]} for t in (measures, thresholds, reliability, pass_k)]
    assert all(list(t) == list(card.dimensions.index) for t in tables)
    action = [t["action_correctness"] for t in tables]
    # bounds: 53 of 61 and 55 of 61 with the 2 ERROR rows counted as FAIL / PASS; clustered: t with 11 dof
    assert action[0][1:] == ["59", "53", "6", "2", "0", "89.8%", "59.5% – 98.2%", "79.5% – 95.3%", "96.7%",
                             "86.9% – 90.2%"]
    assert action[1][1:7] == ["**FAIL**", "meets 95.0% with probability 17.8%", "89.8%", "90.0%", "95.0%", "89.8%"]
    assert "threshold" in action[1][7]
    assert action[2][1:4] == ["12", "4.65", "59.5% – 98.2%"] and action[2][6] == "1"
    assert action[3][1:] == ["90.0% (CI 71.6% – 100.0%)", "88.3% (CI 69.2% – 100.0%)",
                             "83.6% (over 11 of 12 cases; CI 59.0% – 100.0%)"]


def test_markdown_lists_flaky_cases_and_both_caveats(md, card):
    assert "- action\\_correctness (1 of 12 repeated cases): forward-invoice-ap" in md
    for caveat in card.to_dict()["caveats"]:
        assert md_escape(caveat) in md
    assert "supplied cases only" in md and "correlated" in md


def test_markdown_lists_findings_with_review_and_fix(md, card):
    rows = _table_after(md, "## Findings")
    assert [md_unescape(c) for c in rows[0]] == ["#", "severity", "dimension", "reason", "status", "rows", "case ids"]
    findings = card.to_dict()["findings"]
    assert len(rows) - 1 == len(findings)
    for row, finding in zip(rows[1:], findings, strict=True):
        assert md_unescape(row[2]) == finding["dimension"]
        assert md_unescape(row[3]) == finding["reason"]
        assert row[1] == finding["severity"]
    guidance = verification_guidance()
    for finding in findings:  # each keeps its own advice; the guidance they all end with is said once
        fix = finding["suggested_fix"].removesuffix(" " + guidance)
        assert fix != finding["suggested_fix"]
        assert f"- Suggested fix: {md_escape(fix)}\n" in md
        assert md_escape(finding["review"]) in md
    assert md.count(md_escape(guidance)) == 1
    assert md.index(md_escape(guidance)) < md.index(md_escape(findings[0]["review"]))
    assert "does not prove the root cause" in md


def test_markdown_shows_validation_controls_comparison_hashes_and_evidence_rows(md, card):
    data = card.to_dict()
    assert "- labeled: 525\n- unlabeled: 0\n- invalid: 0\n" in md
    controls = _table_after(md, "## Controls")
    assert controls[0] == ["id", "dimension", "case id", "status", "reason", "passed"]
    assert len(controls) - 1 == len(data["controls"])
    assert "- status: not\\_requested\n- required: false\n" in md
    assert "- regressions: 0 regressed of 0 compared" in md
    assert "- baseline: none" in md
    hashes = dict(_table_after(md, "## Hashes and identity")[1:])
    assert hashes == {k: v for k, v in data["hashes"].items()}
    assert f"{len(card.evidence)} rows" in md
    assert "failing evidence first" in md


def test_markdown_shows_undefined_rates_as_dash():
    rows = [{"id": "a", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"}]
    card = sk.evaluate(rows, policy={"gate": {"required_dimensions": ["task_completion", "tool_call"]}})
    md = render_markdown(card.to_dict())
    table = {md_unescape(r[0]): r for r in _table_after(md, "### Measures")[1:]}
    tool = table["tool_call"]
    assert tool[1] == "0"
    assert tool[6] == "—" and tool[7] == "—"
    assert "0.0%" not in tool[6:8]
    assert "- missing dimensions: tool\\_call" in md


def test_markdown_problems_use_file_line_field_message(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"id": "a", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"}\n'
                    "not json\n", encoding="utf-8")
    card = sk.evaluate(path)
    md = render_markdown(card.to_dict())
    problems = [line for line in md.splitlines() if line.startswith("- ") and "results.jsonl:2:" in line]
    assert len(problems) == 1
    assert re.match(r"- .*results\.jsonl:2: \S+: ", problems[0])


def test_long_problem_list_is_truncated_with_and_n_more(tmp_path):
    n_bad = LIST_LIMIT + 75
    lines = ['{"id": "ok", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"}']
    lines += [f'{{"id": "bad{i}", "dimension": "task_completion", "trial": "t{i}"}}' for i in range(n_bad)]
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    card = sk.evaluate(path)
    data = card.to_dict()
    assert len(data["validation"]["problems"]) == n_bad
    md = render_markdown(data, evidence_rows=len(card.evidence))
    listed = [line for line in md.splitlines() if line.startswith("- ") and "results.jsonl:" in line]
    assert len(listed) == LIST_LIMIT
    assert "- … and 75 more (see scorecard.json)" in md
    # the finding's case ids are truncated the same way
    invalid = next(f for f in data["findings"] if f["reason"] == "invalid_row")
    assert len(invalid["case_ids"]) == n_bad
    assert f"… and {n_bad - LIST_LIMIT} more (see evidence.parquet)" in md
    assert f"{len(card.evidence)} rows" in md


def test_markdown_renders_as_gfm_tables_with_consistent_columns(md):
    html = mistune.create_markdown(escape=False, plugins=["table", "strikethrough", "url"])(md)
    tables = re.findall(r"<table>.*?</table>", html, re.S)
    assert len(tables) >= 4
    for table in tables:
        widths = {len(re.findall(r"<t[hd]\b", row)) for row in re.findall(r"<tr>.*?</tr>", table, re.S)}
        assert len(widths) == 1


def test_write_reports_writes_the_markdown(card, tmp_path):
    paths = write_reports(card, tmp_path)
    text = paths["markdown"].read_text(encoding="utf-8")
    assert paths["markdown"].name == "scorecard.md"
    assert text.replace(card.to_dict()["generated_at"], "T").startswith("# Scorecard: FAIL")
