"""Untrusted strings render escaped in HTML and Markdown (issue 4 acceptance: the XSS corpus).

The corpus (tests/data/xss/corpus.json) goes into case ids, row ids, agent
outputs, evaluator and judge names, reason codes of pre-scored rows (and so into
findings), dimension names, control rows, invalid rows (validation problems) and
the agent name/version; the rows are evaluated with an exploratory and with a
release policy, and the reports must contain every string only as inert text.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import mistune
import pytest

import scorekit as sk
from scorekit.reports import render_html, render_markdown, write_reports
from scorekit.reports._format import clean_text, md_unescape

CORPUS: list[str] = json.loads((Path(__file__).parents[1] / "data" / "xss" / "corpus.json").read_text("utf-8"))[
    "strings"
]

HTML_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "main", "footer", "section", "figure", "div", "span",
    "h1", "h2", "h3", "p", "strong", "code", "br", "ul", "ol", "li", "dl", "dt", "dd",
    "table", "thead", "tbody", "tr", "th", "td", "svg", "g", "rect", "line", "circle", "polyline", "text", "tspan",
}
MARKDOWN_TAGS = {"h1", "h2", "h3", "p", "strong", "code", "br", "ul", "ol", "li", "table", "thead", "tbody", "tr",
                 "th", "td"}


def xss_rows(corpus: list[str]) -> list[dict]:
    rows: list[dict] = []
    for i, x in enumerate(corpus):
        for trial in range(2):  # one FAIL and one PASS trial: a finding and a flaky case
            rows.append({
                "id": f"r{i}t{trial}{x}", "dimension": f"d{i}{x}", "case_id": f"c{i}{x}", "trial": trial,
                "status": "FAIL" if trial == 0 else "PASS", "evaluator": f"ev{i}{x}", "reason": f"why{i}{x}",
                "agent_output": x,
            })
        rows.append({
            "id": f"j{i}{x}", "dimension": f"judged{i}{x}", "case_id": f"jc{i}{x}", "judge_criteria": f"rubric {x}",
            "agent_output": x, "judge_votes": [{"judge": f"judge{i}{x}", "verdict": "FAIL", "reason": x}],
        })
        rows.append({"id": f"k{i}{x}", "dimension": "pii", "case_id": f"kc{i}{x}", "tags": ["known-bad"],
                     "agent_output": f"no personal data here {x}"})
        rows.append({"id": f"bad{i}{x}", "dimension": "task_completion", "case_id": f"bc{i}{x}", "trial": f"t{x}"})
        for trial, key in enumerate((x, "other")):  # one case, two definitions: a problem naming the case
            rows.append({"id": f"m{i}t{trial}{x}", "dimension": "task_completion", "case_id": f"mc{i}{x}",
                         "trial": trial, "must_include": [key], "agent_output": x})
    return rows


def evaluate_corpus(purpose: str) -> sk.Scorecard:
    rows = xss_rows(CORPUS)
    policy: dict = {"purpose": purpose}
    if purpose == "release":
        dims = sorted({r["dimension"] for r in rows if r["dimension"] not in ("pii", "task_completion")})
        policy["gate"] = {"thresholds": {d: 0.5 for d in dims}}
    return sk.evaluate(rows, policy=policy, agent_name=CORPUS[0], agent_version=CORPUS[1])


@pytest.fixture(scope="module", params=["exploratory", "release"])
def card(request) -> sk.Scorecard:
    return evaluate_corpus(request.param)


@pytest.fixture(scope="module")
def data(card) -> dict:
    return card.to_dict()


@pytest.fixture(scope="module")
def reports(card, tmp_path_factory) -> dict[str, str]:
    paths = write_reports(card, tmp_path_factory.mktemp("xss"))
    return {kind: paths[kind].read_text(encoding="utf-8") for kind in ("html", "markdown", "json")}


def untrusted_strings(data: dict) -> list[str]:
    """The data's untrusted strings that contain corpus text, as the reports should show them."""
    found = [d["name"] for d in data["dimensions"]]
    found += [c for d in data["dimensions"] for c in d["flaky_cases"]]
    found += [f["reason"] for f in data["findings"]] + [c for f in data["findings"] for c in f["case_ids"]]
    found += data["judges"] + [c["id"] for c in data["controls"]]
    found += [data["agent"]["name"], data["agent"]["version"]]
    return [s for s in found if any(x in s for x in CORPUS)]


class Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.styles: list[str] = []
        self.comments: list[str] = []
        self.other: list[str] = []
        self._style = False
        self._anchor: list[str] | None = None
        self.anchors: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._style = tag == "style"
        if tag == "br":
            self.text.append("\n")
        if tag == "a":
            self._anchor = []
            self._href = dict(attrs).get("href") or ""

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "br":
            self.text.append("\n")

    def handle_endtag(self, tag):
        if tag == "style":
            self._style = False
        if tag == "a" and self._anchor is not None:
            self.anchors.append((self._href, "".join(self._anchor)))
            self._anchor = None

    def handle_data(self, data):
        (self.styles if self._style else self.text).append(data)
        if self._anchor is not None:
            self._anchor.append(data)

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_pi(self, data):
        self.other.append(data)

    def unknown_decl(self, data):
        self.other.append(data)


def collect(text: str) -> Collector:
    parser = Collector()
    parser.feed(text)
    parser.close()
    return parser


def test_corpus_reaches_every_untrusted_field(data, card):
    """The rows really put the corpus into the scorecard: the test below is not vacuous."""
    assert any(x in d["name"] for d in data["dimensions"] for x in CORPUS)
    assert any(x in c for d in data["dimensions"] for c in d["flaky_cases"] for x in CORPUS)
    assert any(x in f["reason"] for f in data["findings"] for x in CORPUS)
    assert any(x in f["dimension"] for f in data["findings"] for x in CORPUS)
    assert any(x in j for j in data["judges"] for x in CORPUS)
    assert any(x in c["id"] for c in data["controls"] for x in CORPUS)
    assert any(x in p["text"] for p in data["validation"]["problems"] for x in CORPUS)
    assert any(x in str(e) for e in card.evidence["evaluator"].dropna() for x in CORPUS)
    assert data["agent"] == {"name": CORPUS[0], "version": CORPUS[1]}


def test_html_escapes_the_corpus(reports, data):
    html = reports["html"]
    assert "<script" not in html.lower()
    page = collect(html)
    assert {tag for tag, _ in page.tags} <= HTML_TAGS
    assert page.comments == [] and page.other == []
    assert len(page.styles) == 1 and "<" not in page.styles[0]
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert name not in ("href", "src", "style", "xlink:href"), (tag, name)
            value = value or ""
            assert not re.search(r"https?://|javascript:|alert|[<>{}]", value, re.I), (tag, name, value)
    text = "".join(page.text)
    for s in untrusted_strings(data):
        assert clean_text(s) in text, s
    assert "{{7*7}}" in text and "${7*7}" in text


def test_html_escapes_quotes_inside_svg_text(reports):
    for svg in re.findall(r"<svg.*?</svg>", reports["html"], re.S):
        assert "<script" not in svg.lower()
        for text in re.findall(r">([^<]+)<", svg):  # every text node of the chart
            assert '"' not in text and "'" not in text and ">" not in text


def test_markdown_source_has_no_raw_html_from_the_data(reports):
    md = reports["markdown"]
    stripped = md.replace("<br>", "")
    assert "<" not in stripped and ">" not in stripped
    assert "](" not in md.replace("\\](", "")
    for line in md.splitlines():
        if line.startswith("|"):
            assert "\n" not in line


def test_markdown_renders_without_injected_html_links_images_or_emphasis(reports, data):
    rendered = mistune.create_markdown(escape=False, plugins=["table", "strikethrough", "url"])(reports["markdown"])
    page = collect(rendered)
    tags = {tag for tag, _ in page.tags}
    assert tags <= MARKDOWN_TAGS, tags - MARKDOWN_TAGS
    assert page.anchors == []  # not even a GFM autolink of a bare URL from the data
    for _tag, attrs in page.tags:
        assert not any(name.startswith("on") for name in attrs)
    text = "".join(page.text)
    for s in untrusted_strings(data):
        assert clean_text(s).replace("\r", "") in text, s


def test_markdown_tables_keep_their_columns_with_pipes_and_newlines(reports):
    rendered = mistune.create_markdown(escape=False, plugins=["table"])(reports["markdown"])
    for table in re.findall(r"<table>.*?</table>", rendered, re.S):
        widths = {len(re.findall(r"<t[hd]\b", row)) for row in re.findall(r"<tr>.*?</tr>", table, re.S)}
        assert len(widths) == 1, widths


def test_markdown_cells_unescape_to_the_original_strings(reports, data):
    md = reports["markdown"]
    for dim in data["dimensions"]:
        line = next(line for line in md.splitlines() if line.startswith("| ") and
                    md_unescape(re.split(r"(?<!\\)\|", line)[1].strip()) == clean_text(dim["name"]))
        assert line


def test_json_keeps_the_strings_exactly(reports, data):
    assert json.loads(reports["json"])["dimensions"] == data["dimensions"]


@pytest.mark.parametrize("x", CORPUS)
def test_each_corpus_string_alone_renders_escaped(x):
    """One string at a time in every renderable field of a minimal dictionary."""
    card = evaluate_corpus("exploratory")
    data = card.to_dict()
    data["decision_reasons"] = [x]
    data["comparison"] = {
        "status": x, "required": True, "method": x, "max_drop": 0.0, "detail": x, "baseline_label": x,
        "baseline": {"id": 1, "label": x, "agent": {"name": x, "version": x}, "decision": x},
        "regressions": [{"dimension": x, "status": x, "rule": x, "baseline": {"n": 1, "rate": 0.5}},
                        {"other": x}, x],
    }
    data["validation"]["problems"] = [{"source": x, "line": 1, "field": x, "message": x, "text": x}]
    data["caveats"] = [x]
    data["findings"][0]["review"] = x
    data["findings"][0]["suggested_fix"] = x
    html = render_html(data)
    assert "<script" not in html.lower()
    page = collect(html)
    assert {tag for tag, _ in page.tags} <= HTML_TAGS
    assert clean_text(x) in "".join(page.text)
    md = render_markdown(data)
    assert "<" not in md.replace("<br>", "")
