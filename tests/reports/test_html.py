"""scorecard.html: self-contained, no script, no external URL, banner, SVG charts, valid HTML5."""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest

import scorekit as sk
from scorekit._findings import verification_guidance
from scorekit.reports import render_html, write_reports
from scorekit.reports._format import LIST_LIMIT, interval_label
from scorekit.reports.html import OKABE_ITO

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# SVG children that the page writes self-closed (<line/>, <rect/>)
SVG_EMPTY = {"line", "rect", "circle", "path", "polyline"}
URL_ATTRIBUTES = {"href", "src", "xlink:href", "action", "formaction", "srcset", "poster", "background", "data"}


class Page(HTMLParser):
    """Collects tags, attributes, style text and nesting errors of one HTML document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self.decls: list[str] = []
        self.comments: list[str] = []
        self._in_style = False

    def handle_decl(self, decl):
        self.decls.append(decl)

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "style":
            self._in_style = True
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID and tag not in SVG_EMPTY:
            self.errors.append(f"self-closed <{tag}/>")

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False
        if tag in VOID:
            self.errors.append(f"end tag for void <{tag}>")
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unbalanced </{tag}> (open: {self.stack[-3:]})")
            return
        self.stack.pop()

    def handle_data(self, data):
        (self.styles if self._in_style else self.text).append(data)


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


@pytest.fixture(scope="module")
def card() -> sk.Scorecard:
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))


@pytest.fixture(scope="module")
def html(card) -> str:
    return render_html(card.to_dict(), evidence_rows=len(card.evidence))


@pytest.fixture(scope="module")
def page(html) -> Page:
    return parse(html)


def test_html_has_no_script(html, page):
    assert "<script" not in html.lower()
    assert not any(tag == "script" for tag, _ in page.tags)
    assert not any(name.startswith("on") for _, attrs in page.tags for name in attrs)


def test_html_has_no_external_url_in_any_attribute_or_style(html, page):
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            assert name not in URL_ATTRIBUTES, (tag, name)
            assert not re.search(r"https?://", value or "", re.I), (tag, name, value)
            assert "javascript:" not in (value or "").lower()
    style = "".join(page.styles)
    assert style.strip()
    assert not re.search(r"https?://", style, re.I)
    assert "url(" not in style and "@import" not in style and "@font-face" not in style
    assert not re.search(r"(src|href)\s*=", html, re.I)


def test_html_is_one_self_contained_file_with_inline_style_only(page):
    tags = [tag for tag, _ in page.tags]
    assert tags.count("style") == 1
    assert not {"link", "img", "iframe", "object", "embed", "base", "script", "a"} & set(tags)
    csp = [a for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]["content"]


def test_html_has_the_decision_banner(page, card):
    banners = [attrs for tag, attrs in page.tags if attrs.get("id") == "sk-decision"]
    assert len(banners) == 1
    classes = banners[0]["class"].split()
    assert "sk-decision" in classes and f"sk-decision-{card.decision.lower()}" in classes


@pytest.mark.parametrize("decision", ["PASS", "FAIL", "INCOMPLETE", "TRIAGE", "SELF_TEST"])
def test_decision_banner_has_a_class_per_decision(card, decision):
    data = copy.deepcopy(card.to_dict())
    data["decision"], data["overall_pass"] = decision, decision == "PASS"
    page = parse(render_html(data))
    banner = next(attrs for tag, attrs in page.tags if attrs.get("id") == "sk-decision")
    assert f"sk-decision-{decision.lower().replace('_', '-')}" in banner["class"].split()
    assert f"Decision: {decision}" in "".join(page.text)


def test_html_charts_are_inline_svg_with_role_img_and_aria_label(page, card):
    svgs = [attrs for tag, attrs in page.tags if tag == "svg"]
    assert len(svgs) >= 1
    for attrs in svgs:
        assert attrs.get("role") == "img"
        assert attrs.get("aria-label")
    # the rate chart names the interval its whiskers draw (ci_low/ci_high: case-clustered when trials repeat)
    methods = [d["interval_method"] for d in card.to_dict()["dimensions"]]
    assert interval_label("95%", methods) == "95% CI (case-clustered)"
    assert "95% CI (case-clustered) whiskers" in svgs[0]["aria-label"] and "threshold" in svgs[0]["aria-label"]
    assert "Wilson" not in svgs[0]["aria-label"]


def test_rate_chart_has_a_whisker_and_threshold_tick_per_dimension(html, card):
    chart = re.search(r"<svg.*?</svg>", html, re.S).group(0)
    dims = card.to_dict()["dimensions"]
    threshold_ticks = chart.count(f'stroke="{OKABE_ITO["blue"]}" stroke-width="3"')
    assert threshold_ticks == sum(d["threshold"] is not None for d in dims) + 1  # + legend
    whiskers = chart.count('stroke="#000000" stroke-width="1.5"')
    assert whiskers == 3 * sum(d["ci_low"] is not None for d in dims) + 3  # line + 2 caps each, + legend


def test_chart_colours_are_okabe_ito(html):
    colours = set()
    for svg in re.findall(r"<svg.*?</svg>", html, re.S):
        colours |= {c.upper() for c in re.findall(r'(?:fill|stroke)="(#[0-9A-Fa-f]{6})"', svg)}
    greys = {c for c in colours if c[1:3] == c[3:5] == c[5:7]}
    assert colours - greys <= {c.upper() for c in OKABE_ITO.values()}


def test_html_is_valid_html5_that_html_parser_parses(html, page):
    assert html.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    assert page.decls == ["DOCTYPE html"]
    assert page.errors == []
    assert page.stack == []
    assert page.comments == []
    tags = [tag for tag, _ in page.tags]
    assert tags[:3] == ["html", "head", "meta"]
    assert tags.count("title") >= 1 and tags.count("body") == 1 and tags.count("main") == 1
    ids = [attrs["id"] for _, attrs in page.tags if "id" in attrs]
    assert len(ids) == len(set(ids))


def test_html_shows_every_section(page, card):
    text = "".join(page.text)
    data = card.to_dict()
    for heading in ("Scope", "Dimensions", "Measures", "Thresholds", "Reliability", "Findings", "Validation",
                    "Controls", "Comparison", "Evidence", "Hashes and identity"):
        assert heading in text
    for caveat in data["caveats"]:
        assert caveat in text
    for value in data["hashes"].values():
        assert value in text
    for judge in data["judges"]:
        assert judge in text
    assert "overall_pass: false" in text
    assert "purpose: release" in text
    assert data["generated_at"] in text
    assert "525 rows" in text
    assert "89.8%" in text and "79.5% – 95.3%" in text
    guidance = verification_guidance()
    for finding in data["findings"]:  # its own advice; the guidance every fix ends with is said once
        assert f"Suggested fix: {finding['suggested_fix'].removesuffix(' ' + guidance)}" in text
    assert text.count(guidance) == 1


def test_html_shows_undefined_rates_as_dash():
    rows = [{"id": "a", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"}]
    card = sk.evaluate(rows, policy={"gate": {"required_dimensions": ["task_completion", "tool_call"]}})
    html = render_html(card.to_dict())
    measures = re.search(r'<table id="measures".*?</table>', html, re.S).group(0)
    row = re.search(r"<tr><th scope=\"row\"><code>tool_call</code></th>(.*?)</tr>", measures, re.S).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[0] == "0"  # n
    assert cells[5] == "—" and cells[6] == "—"  # rate, Wilson CI
    assert "no evidence (n = 0)" in html


def test_long_lists_are_truncated_with_and_n_more(tmp_path):
    n_bad = LIST_LIMIT + 30
    lines = ['{"id": "ok", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"}']
    lines += [f'{{"id": "bad{i}", "dimension": "task_completion", "trial": "t{i}"}}' for i in range(n_bad)]
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    card = sk.evaluate(path)
    html = render_html(card.to_dict(), evidence_rows=len(card.evidence))
    problems = re.search(r'<ul id="sk-problems">(.*?)</ul>', html, re.S).group(1)
    assert problems.count("<li><code>") == LIST_LIMIT
    assert "… and 30 more (see scorecard.json)" in problems
    assert "… and 30 more (see evidence.parquet)" in html  # the invalid_row finding's case ids
    assert f"{len(card.evidence)} rows" in html


def test_report_path_does_not_import_matplotlib(tmp_path):
    code = (
        "import sys, scorekit as sk\n"
        "from scorekit.reports import write_reports\n"
        "card = sk.evaluate(sk.example_path(), policy=sk.example_path(file='policy.yml'))\n"
        f"write_reports(card, {str(tmp_path)!r})\n"
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_write_reports_writes_the_html(card, tmp_path):
    paths = write_reports(card, tmp_path)
    assert paths["html"].name == "scorecard.html"
    text = paths["html"].read_text(encoding="utf-8")
    assert parse(text).errors == []
