"""scorekit.notebook: the report's sections as fragments, HTML with a plain Markdown twin."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from _rendered import parse_html, table_rows
from hypothesis import given
from hypothesis import strategies as st

import scorekit as sk
from scorekit import notebook
from scorekit.reports._format import clean_text, h

HTML_TAG = re.compile(r"<[A-Za-z!/?]")


@pytest.fixture(scope="module")
def data():
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), agent_name="mail",
                       agent_version="1.0").to_dict()


@pytest.fixture(scope="module")
def report(data):
    return notebook.Report(data)


def _fragments(report: notebook.Report) -> list[notebook.Fragment]:
    return [report.decision(), report.scope_and_validation(), report.dimensions(), report.summary(),
            report.rate_chart(), report.pass_k_chart(), report.variance(), report.controls(), report.findings(),
            report.comparison(), report.hashes(), notebook.signature_status(None),
            notebook.signature_status("verified", "made by the pinned key", "scorecard.sig.json"),
            notebook.reproduction(["scorekit run --results 'a b.jsonl'"], {"python": "3.11"}),
            notebook.files_list({"json": "out/scorecard.json"}), notebook.message("Cannot decide", "x")]


def test_every_fragment_has_a_markdown_twin_without_any_html_tag(report):
    for fragment in _fragments(report):
        assert fragment.markdown.strip(), fragment
        assert not HTML_TAG.search(fragment.markdown), fragment.markdown


def _hostile_card() -> sk.Scorecard:
    """The XSS corpus in dimension names, case ids, reasons, evaluators and the agent name."""
    corpus = json.loads((Path(__file__).parent / "data" / "xss" / "corpus.json").read_text("utf-8"))["strings"]
    rows = [{"id": f"r{i}t{t}{x}", "dimension": f"d{i}{x}", "case_id": f"c{i}{x}", "trial": t,
             "status": "FAIL" if t == 0 else "PASS", "evaluator": f"ev{x}", "reason": f"why{i}{x}"}
            for i, x in enumerate(corpus) for t in range(2)]
    return sk.evaluate(rows, policy={"purpose": "exploratory"}, agent_name=corpus[0], agent_version="1.0")


def test_markdown_twins_of_hostile_strings_hold_no_html_tag():
    report = notebook.Report(_hostile_card().to_dict())
    for fragment in _fragments(report):
        assert not HTML_TAG.search(fragment.markdown), fragment.markdown[:400]
        root, tags = parse_html(fragment.html)
        assert not [t for t, _ in tags if t in ("script", "img", "a", "iframe", "object")]


def test_fragments_display_as_html_with_the_report_css_and_as_markdown(report):
    fragment = report.decision()
    shown = fragment._repr_html_()
    assert shown.startswith('<div class="sk-report"><style>') and fragment.html in shown
    assert ".sk-report .sk-decision" in shown
    assert fragment._repr_markdown_() == fragment.markdown
    both = report.decision() + report.hashes()
    assert both.html.startswith(report.decision().html) and both.markdown.endswith(report.hashes().markdown)


@pytest.mark.parametrize("decision", ["PASS", "FAIL", "INCOMPLETE", "TRIAGE", "SELF_TEST"])
def test_decision_banner_has_a_class_per_decision_and_lists_the_reasons(data, decision):
    changed = {**data, "decision": decision, "decision_reasons": ["r1", "r2"]}
    root, _ = parse_html(notebook.Report(changed).decision().html)
    (banner,) = root.find_all(cls="sk-decision")
    assert f"sk-decision-{decision.lower().replace('_', '-')}" in banner.classes
    assert [li.all_text() for li in banner.find_all("li")] == ["r1", "r2"]
    (value,) = banner.find_all(cls="sk-decision-value")
    assert value.all_text() == decision


def test_undefined_numbers_are_a_dash_never_zero():
    data = {"dimensions": [{"name": "judged", "verdict": "INCOMPLETE", "n": 0, "passes": 0, "fails": 0, "errors": 3,
                            "abstains": 0, "rate": None, "ci_low": None, "ci_high": None, "threshold": None,
                            "pass_k": {"2": None}, "consistency": None, "flaky_cases": []}]}
    report = notebook.Report(data)
    header, (row,) = table_rows(parse_html(report.summary().html)[0].find_all("table")[0])
    cells = dict(zip(header, row, strict=True))
    for column in ("rate", "95% Wilson CI", "threshold", "pass^2"):
        assert cells[column] == "—", column
    assert cells["n"] == "0"


def test_write_charts_writes_standalone_svg_files_the_markdown_twins_link(report, tmp_path):
    written = report.write_charts(tmp_path)
    assert {k: p.name for k, p in written.items()} == {"rates": "rates.svg", "pass_k": "pass_k.svg"}
    for path in written.values():
        root = ET.parse(path).getroot()  # well-formed XML, in the SVG namespace
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("role") == "img"
    assert "](rates.svg)" in report.rate_chart().markdown and "](pass_k.svg)" in report.pass_k_chart().markdown


@pytest.mark.parametrize("link", ["../x.svg", "https://evil.example/x.svg", "a b.svg", "x.svg)![y](z"])
def test_chart_links_are_plain_relative_file_names(report, link):
    with pytest.raises(ValueError, match="link"):
        report.rate_chart(link=link)


def test_reproduction_commands_stay_literal_in_a_fence_no_backtick_run_can_close():
    fragment = notebook.reproduction(["scorekit run --results 'a ``` b.jsonl'"])
    fence = re.match(r"(`{3,})bash\n", fragment.markdown).group(1)
    assert len(fence) == 4 and fragment.markdown.rstrip().endswith(fence)
    assert "scorekit run --results 'a ``` b.jsonl'" in fragment.markdown  # not escaped inside the fence


def test_history_fragment_without_records_says_so():
    import pandas as pd

    fragment = notebook.history(pd.DataFrame())
    assert "no record yet" in fragment.html and "no record yet" in fragment.markdown


@given(st.text(max_size=80))
def test_escaped_text_reads_back_unchanged_and_is_never_markup_or_a_url(text):
    from scorekit.render import check_offline_html

    escaped = h(text)
    assert "<" not in escaped and ">" not in escaped and "://" not in escaped
    assert check_offline_html(f"<p>{escaped}</p>") == []
    root, _ = parse_html(f"<p>{escaped}</p>")
    assert root.find_all("p")[0].text == clean_text(text)


# ---------------------------------------------------------------------------- Scorecard.style (SPEC §19)
@pytest.fixture(scope="module")
def card():
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), agent_name="mail",
                       agent_version="1.0")


def _words(text: str) -> str:
    return " ".join(text.split())


def test_style_shows_every_cell_of_the_reports_summary_table(card):
    styler = card.style()
    table = notebook.Report(card.to_dict()).summary_table()
    root, _ = parse_html(styler.to_html())
    (html_table,) = root.find_all("table")
    header, rows = table_rows(html_table)
    assert header[1:] == list(table.columns[1:])
    assert rows == [[_words(cell.text) for cell in row] for row in table.rows]  # 84.7% as the reports say it


def test_style_data_holds_the_dictionarys_numbers_and_the_reports_text(card):
    frame = card.style().data
    data = card.to_dict()
    assert frame.index.name == "dimension" and list(frame.index) == [d["name"] for d in data["dimensions"]]
    for dim in data["dimensions"]:
        row = frame.loc[dim["name"]]
        assert row["rate"] == dim["rate"] and row["n"] == dim["n"] and row["passes"] == dim["passes"]
        assert row["verdict"] == dim["verdict"]
        if dim["threshold"] is None:
            assert pd.isna(row["threshold"])
        else:
            assert row["threshold"] == dim["threshold"]
        assert row["P(meets threshold)"] == dim["assurance"] or (dim["assurance"] is None
                                                                 and pd.isna(row["P(meets threshold)"]))


def _report_css_colour(tone: str) -> str:
    css = (Path(notebook.__file__).parent / "templates" / "report" / "report.css").read_text(encoding="utf-8")
    found = re.search(r"\.sk-v-" + re.escape(tone) + r"[^{]*\{\s*color:\s*(#[0-9a-fA-F]{6})", css)
    assert found, tone
    return found.group(1).lower()


def test_style_colours_each_verdict_as_the_report_does(card):
    styler = card.style()
    html = styler.to_html()
    verdicts = list(styler.data["verdict"])
    assert {"PASS", "FAIL", "INCOMPLETE"} <= set(verdicts)
    rules: dict[str, str] = {}  # selector → declarations (pandas groups equal rules: "#a, #b {...}")
    for selectors, declarations in re.findall(r"([^{}]+)\{([^}]*)\}", html.split("</style>")[0]):
        for selector in selectors.split(","):
            rules[selector.strip().removeprefix('<style type="text/css">').strip()] = declarations
    for i, verdict in enumerate(verdicts):
        declarations = rules[f"#T_{styler.uuid}_row{i}_col0"]
        colour = _report_css_colour(verdict.lower().replace("_", "-"))
        assert f"color: {colour};" in declarations, (verdict, declarations)


def test_style_escapes_a_hostile_dimension_name_and_keeps_it_in_the_data():
    name = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    rows = [{"id": f"r{i}", "dimension": name, "evaluator": "e", "status": "PASS"} for i in range(3)]
    styler = sk.evaluate(rows).style()
    html = styler.to_html()
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert list(styler.data.index) == [name]
    root, tags = parse_html(html)
    assert {t for t, _ in tags} <= {"style", "table", "thead", "tbody", "tr", "th", "td"}
    assert name in root.all_text()


def test_two_scorecards_styles_have_their_own_ids(card):
    other = sk.evaluate([{"id": "r", "dimension": "pii", "evaluator": "e", "status": "PASS"}])
    assert card.style().uuid != other.style().uuid
    assert card.style().to_html() == card.style().to_html()  # the same card: the same display


def test_repr_html_shows_the_styled_table_between_the_banner_and_the_findings(card):
    html = card._repr_html_()
    styled = card.style().to_html()
    assert styled in html
    assert html.index('class="sk-decision-value"') < html.index(styled) < html.index("severity")
