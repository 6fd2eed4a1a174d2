"""The Scorecard's own displays (SPEC §17): ``_repr_html_`` for Jupyter, a readable ``repr``."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

import scorekit as sk


@pytest.fixture(scope="module")
def card() -> sk.Scorecard:
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"),
                       agent_name="mail-agent", agent_version="2.1.0")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _parse(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    return parser


def test_repr_html_holds_the_decision_every_dimension_and_no_script(card):
    html = card._repr_html_()
    parsed = _parse(html)
    text = " ".join(parsed.text)
    assert "script" not in parsed.tags and "<script" not in html.lower()
    assert 'class="sk-decision-value">FAIL<' in html
    for name in card.dimensions.index:
        assert name in text, name
    assert "http://" not in html and "https://" not in html  # self-contained: no CDN, no link out


def test_repr_html_summarises_the_findings_without_their_cases(card):
    data = card.to_dict()
    assert data["findings"]
    html = card._repr_html_()
    for finding in data["findings"]:
        assert finding["reason"] in html
    assert "Before acting on a finding" not in html  # the full findings stay in the report


def test_repr_html_of_a_card_without_findings_says_none():
    rows = [{"id": f"r{i}", "dimension": "task_completion", "agent_output": "done", "must_include": ["done"]}
            for i in range(400)]  # enough cases that not even a low-confidence note is due
    card = sk.evaluate(rows)
    assert card.findings == []
    html = card._repr_html_()
    assert "Findings" in html and "none" in html


def test_repr_html_numbers_are_the_reports_numbers(card, tmp_path):
    from _rendered import parse_html, table_rows

    from scorekit.notebook import Report

    # The dimension table is card.style()'s (SPEC §19): the summary table's every cell, as the reports say it.
    summary = Report(card.to_dict(), evidence_rows=len(card.evidence)).summary_table()
    root, _ = parse_html(card._repr_html_())
    (styled,) = [t for t in root.find_all("table") if "sk-styled" in t.classes]
    header, rows = table_rows(styled)
    assert header[1:] == list(summary.columns[1:])
    assert rows == [[" ".join(cell.text.split()) for cell in row] for row in summary.rows]


def test_repr_names_agent_decision_purpose_and_counts(card):
    text = repr(card)
    assert text.startswith("<Scorecard mail-agent 2.1.0: FAIL (release); ")
    verdicts = card.dimensions["verdict"].value_counts()
    assert f"{len(card.dimensions)} dimensions" in text and f"{verdicts['PASS']} PASS" in text
    assert f"{len(card.evidence):,} rows" in text and f"{len(card.findings)} findings>" in text
    assert "\n" not in text
