"""Hostile text through every writer (issue 25, item 12 and SPEC §20: one escaping module).

A scorecard is built with :func:`scorekit.evaluate` from rows whose dimension
names, case ids, evaluators, reasons and details, and whose agent name, version
and history label, carry what an attacker or a broken tool writes: a forged
``::error::`` line, CR, ESC sequences, U+2028 / U+2029 / U+0085, VT and FF,
bidi overrides, ``|``, ``<script>``, ``<img onerror>``, ``<details>`` and
``<!--``, ``]]>``, ``--``, every C0 control, a lone surrogate, Markdown
heading / list / quote / link / image / autolink / math syntax and a very long
string. Every writer's output is then *parsed* and checked:

* Markdown (``scorecard.md``, the job summary, the notebook's Markdown twins,
  ``agent-card.md``, ``SCORECARD.md``): every table row has the header's number
  of cells, no line break of any kind sits in a cell, no raw HTML, no link or
  image or autolink, and the document's block structure (parsed with mistune)
  is the same as that of the same scorecard with plain names;
* HTML (``scorecard.html``, the notebook fragments): ``html.parser`` finds the
  same elements as for plain names, no ``on*`` attribute, no ``<script>``, and
  the hostile text as text;
* XML (JUnit): ``xml.etree`` parses it and every dimension name round-trips,
  modulo the controls XML 1.0 cannot hold;
* terminal and CI log (``run_text``, ``demo_text``, ``validation_text``, the
  ``::error::`` lines, ``scorekit run --gate``'s stdout): no control character,
  no line starting with ``::`` that scorekit did not write.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from test_escape import _INLINE, LINE_BREAK_CHARS, _forbidden, _markdown_tree, _walk

import scorekit as sk
from scorekit._ci import SUMMARY_ENV, gate_annotations, step_summary
from scorekit.reports._sections import build_sections

HOSTILE = {
    "command": "x\n::error::injected",
    "command_cr": "x\r::add-mask::injected\r\n  ::stop-commands::x",
    "escape": "\x1b[31mred\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\",
    "line_separator": "a\u2028| b",
    "paragraph_separator": "a\u2029## b",
    "next_line": "a\x85- b",
    "vt_ff": "a\x0b1. b\x0c> c",
    "bidi": "abc\u202edcba\u2066x\u2069\u200f",
    "pipe": "a|b\\|c||",
    "script": "<script>alert(1)</script>",
    "img": "<img src=x onerror=alert(1)>",
    "details": "<details open><summary>s</summary><!-- c",
    "cdata": "]]><![CDATA[x]]>",
    "dashes": "-- x --",
    "controls": "c0 " + "".join(map(chr, range(0, 32))) + "\x7f\x9b",
    "heading": "# heading",
    "list": "- item",
    "ordered": "1. item",
    "quote": "> quote",
    "setext": "=== x",
    "link": "[l](http://evil.example/x) ![i](http://evil.example/i.png) <http://evil.example> www.evil.example",
    "math": "$\\unicode{x}$ `code` *em* ~~s~~ &lt; &amp;",
    "long": "L" * 5000,
}
AGENT = "agent " + HOSTILE["command"] + HOSTILE["line_separator"] + HOSTILE["script"] + HOSTILE["bidi"]
VERSION = "1.0" + HOSTILE["paragraph_separator"] + HOSTILE["command_cr"]
LABEL = "label " + HOSTILE["command"] + HOSTILE["line_separator"]
KINDS = list(HOSTILE)


def _rows(text: dict[str, str]) -> list[dict[str, Any]]:
    """Per kind one dimension named by it: a steady case (PASS, PASS) and a flaky one (PASS, FAIL with
    the kind's reason and detail), and one row that a lone surrogate makes invalid."""
    rows: list[dict[str, Any]] = []
    for i, kind in enumerate(KINDS):
        value = text[kind]
        dim = f"d{i} {value}"
        for trial in range(2):
            rows.append({"id": f"r{i}-a{trial}", "dimension": dim, "case_id": f"c{i} {value} steady",
                         "trial": trial, "status": "PASS", "evaluator": f"e {value}"})
            row = {"id": f"r{i}-b{trial}", "dimension": dim, "case_id": f"c{i} {value} flaky", "trial": trial,
                   "status": "PASS" if trial == 0 else "FAIL", "evaluator": f"e {value}"}
            if trial:
                row.update(reason=f"why {value}", detail=f"detail {value}")
            rows.append(row)
    rows.append({"id": "surrogate", "dimension": f"d0 {text[KINDS[0]]}", "case_id": "s", "status": "FAIL",
                 "evaluator": "e", "reason": "lone \ud800 surrogate"})
    return rows


def _policy(text: dict[str, str]) -> dict[str, Any]:
    """Even kinds pass (threshold 0.5 < 75%), odd kinds fail (0.9): both verdicts meet every writer."""
    return {"gate": {"thresholds": {f"d{i} {text[k]}": 0.5 if i % 2 == 0 else 0.9 for i, k in enumerate(KINDS)}}}


PLAIN = {kind: f"plain{i}" for i, kind in enumerate(KINDS)}


def _card(text: dict[str, str], agent: str, version: str, label: str, history: Path) -> Any:
    return sk.evaluate(_rows(text), policy=_policy(text), agent_name=agent, agent_version=version, label=label,
                       history=str(history))


@pytest.fixture(scope="module")
def cards(tmp_path_factory) -> dict[str, Any]:
    """The hostile scorecard and its plain twin (same rows and structure, plain names)."""
    d = tmp_path_factory.mktemp("hostile")
    hostile = _card(HOSTILE, AGENT, VERSION, LABEL, d / "hostile.sqlite")
    plain = _card(PLAIN, "agent plain", "1.0", "label plain", d / "plain.sqlite")
    assert len(hostile.dimensions) == len(KINDS) == len(plain.dimensions)
    assert hostile.to_dict()["validation"]["invalid"] == 1 == plain.to_dict()["validation"]["invalid"]
    return {"hostile": hostile, "plain": plain}


# --------------------------------------------------------------------------- Markdown
_UNESCAPED_PIPE = re.compile(r"(?<!\\)(?:\\\\)*\|")


def _skeleton(nodes: list[dict[str, Any]], depth: int = 0) -> list[tuple[int, str, Any]]:
    """The block and inline structure without the text: what hostile text must never change."""
    out = []
    for node in nodes:
        if node["type"] in _INLINE:
            continue
        attrs = node.get("attrs") or {}
        out.append((depth, node["type"], attrs.get("level"), attrs.get("ordered")))
        out += _skeleton(node.get("children") or [], depth + 1)
    return out


def _check_tables(text: str) -> int:
    """Every row of every pipe table has as many unescaped ``|`` as its header; returns the rows seen."""
    seen = 0
    header: int | None = None
    for line in text.split("\n"):
        if line.startswith("|"):
            count = len(_UNESCAPED_PIPE.findall(line))
            if header is None:
                header = count
            assert count == header, f"a table row has {count - 1} cells, its header {header - 1}: {line[:200]!r}"
            seen += 1
        else:
            header = None
    return seen


def assert_markdown_safe(text: str, plain_text: str, *, html: bool = True, links: tuple[str, ...] = ()) -> None:
    """``text`` (rendered from hostile data) is the Markdown of ``plain_text`` with other words in it."""
    bad = sorted({f"U+{ord(c):04X}" for c in text if _forbidden(c)})
    assert not bad, f"line breaks or controls in the Markdown: {bad}"
    assert _check_tables(text) == _check_tables(plain_text)
    tree = _markdown_tree(text)
    for node in _walk(tree):
        assert node["type"] != "block_html", node
        if node["type"] == "inline_html":
            assert html and node["raw"].lower() in ("<br>",), node
        if node["type"] in ("link", "image"):
            assert node["attrs"]["url"] in links, node
    assert _skeleton(tree) == _skeleton(_markdown_tree(plain_text))


# --------------------------------------------------------------------------- HTML
class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.attributes: list[tuple[str, str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        self.attributes += [(tag, name, value) for name, value in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.tags["<!--"] += 1


def _elements(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    parser.close()
    return parser


_HTML_WHITE_SPACE = "\t\r\u2028\u2029"  # white space to HTML (CR is read as LF): harmless in a page


def assert_html_safe(page: str, plain_page: str) -> None:
    bad = sorted({f"U+{ord(c):04X}" for c in page if _forbidden(c) and c not in _HTML_WHITE_SPACE})
    assert not bad, f"controls in the HTML: {bad}"
    hostile, plain = _elements(page), _elements(plain_page)
    assert hostile.tags == plain.tags
    assert "script" not in hostile.tags
    assert not [a for a in hostile.attributes if a[1].startswith("on")]
    assert sorted(a[:2] for a in hostile.attributes) == sorted(a[:2] for a in plain.attributes)
    text = "".join(hostile.text)
    assert HOSTILE["img"] in text and HOSTILE["script"] in text  # shown as text, not dropped


# --------------------------------------------------------------------------- terminal
def assert_terminal_safe(text: str, *, annotations: int = 0) -> None:
    lines = text.split("\n")
    bad = sorted({f"U+{ord(c):04X}" for c in text if _forbidden(c)})
    assert not bad, f"controls on the terminal: {bad}"
    commands = [line for line in lines if line.lstrip().startswith("::") or "##[" in line]
    assert len(commands) == annotations, commands
    for line in commands:
        assert line.startswith("::error title=scorekit gate%3A d"), line


# --------------------------------------------------------------------------- the writers
def _sections(card: Any) -> Any:
    return build_sections(card.to_dict())


def test_scorecard_md_keeps_its_tables_and_blocks(cards):
    from scorekit.reports.markdown import render_markdown

    text = render_markdown(cards["hostile"].to_dict())
    assert_markdown_safe(text, render_markdown(cards["plain"].to_dict()))
    assert "a\\|b" in text  # escaped, not dropped


def test_a_line_separator_in_a_dimension_name_stays_in_its_cell():
    """Item 12 exactly: U+2028 / U+2029 in a dimension name cut the tables of ``scorecard.md``."""
    from scorekit.reports.markdown import render_markdown

    rows = [{"id": f"r{i}", "dimension": "tool\u2028call\u2029x", "status": "PASS" if i else "FAIL",
             "evaluator": "e"} for i in range(3)]
    text = render_markdown(sk.evaluate(rows).to_dict())
    assert "\u2028" not in text and "\u2029" not in text
    assert text.splitlines() == text.rstrip("\n").split("\n")
    assert any(line.startswith("| tool<br>call<br>x |") for line in text.split("\n"))
    _check_tables(text)


def test_scorecard_html_injects_no_element(cards):
    from scorekit.reports.html import render_html

    assert_html_safe(render_html(cards["hostile"].to_dict()), render_html(cards["plain"].to_dict()))


def test_notebook_display_and_style_inject_no_element(cards):
    assert_html_safe(cards["hostile"]._repr_html_(), cards["plain"]._repr_html_())
    assert_html_safe(cards["hostile"].style().to_html(), cards["plain"].style().to_html())


def test_job_summary_keeps_its_tables(cards):
    assert_markdown_safe(step_summary(_sections(cards["hostile"])), step_summary(_sections(cards["plain"])),
                         html=False)


def _blocking(card: Any) -> int:
    return sum(v in ("FAIL", "INCOMPLETE") for v in card.dimensions["verdict"])


def test_error_annotations_are_one_line_each_with_nothing_forged(cards):
    lines = gate_annotations(_sections(cards["hostile"]))
    assert len(lines) == _blocking(cards["hostile"]) == len(KINDS) // 2 + 1  # odd kinds FAIL, d0 INCOMPLETE
    assert_terminal_safe("\n".join(lines), annotations=len(lines))
    assert any("x%0A::error::injected" in line for line in lines)  # GitHub's escape: data, not a command


def test_junit_parses_and_every_dimension_round_trips(cards):
    from scorekit.reports.junit import render_junit

    xml = render_junit(_sections(cards["hostile"]))
    root = ET.fromstring(xml.encode("utf-8"))
    names = [case.get("name") for case in root.iter("testcase")]

    def expected(name: str) -> str:
        name = re.sub("\r\n?", "\n", name)
        return "".join("\ufffd" if _forbidden(c) and c != "\n" and c != "\t" and c not in "\u2028\u2029" else c
                       for c in name)

    assert sorted(names) == sorted(expected(d) for d in cards["hostile"].dimensions.index)
    suite = root.find("testsuite")
    assert suite is not None and suite.get("name", "").startswith("scorekit: agent ")
    for element in root.iter():
        for value in [element.text or "", *element.attrib.values()]:
            assert not any(0xD800 <= ord(c) <= 0xDFFF or (ord(c) < 0x20 and c not in "\t\n") for c in value)


def test_terminal_reports_are_one_line_per_value(cards):
    from scorekit.reports.text import demo_text, run_text, validation_text

    s = _sections(cards["hostile"])
    for text in (run_text(s), demo_text(s), validation_text(s, HOSTILE["command"], strict=True)):
        assert_terminal_safe(text)


def test_notebook_fragments_keep_their_structure(cards):
    from scorekit.notebook import Report

    hostile, plain = Report(cards["hostile"].to_dict()), Report(cards["plain"].to_dict())
    for name in ("decision", "scope_and_validation", "dimensions", "findings"):
        h, p = getattr(hostile, name)(), getattr(plain, name)()
        assert_markdown_safe(h.markdown, p.markdown, html=False)
        assert "<" not in h.markdown.replace("&lt;", "")  # plain GitHub Markdown: no HTML at all
        page = f"<div>{h.html}</div>"
        bad = sorted({f"U+{ord(c):04X}" for c in page if _forbidden(c) and c not in _HTML_WHITE_SPACE})
        assert not bad
        elements, plain_elements = _elements(page), _elements(f"<div>{p.html}</div>")
        assert elements.tags == plain_elements.tags and "script" not in elements.tags


def test_agent_card_markdown_and_json(cards, tmp_path):
    from scorekit.agent_card import build_agent_card, render_agent_card_markdown

    hostile = build_agent_card(cards["hostile"].to_dict(), generated_at="2026-01-01T00:00:00+00:00")
    plain = build_agent_card(cards["plain"].to_dict(), generated_at="2026-01-01T00:00:00+00:00")
    assert_markdown_safe(render_agent_card_markdown(hostile), render_agent_card_markdown(plain), html=False)
    assert json.loads(json.dumps(hostile))["agent"]["name"] == AGENT  # the JSON keeps the data as it is


def test_release_scorecard_md(cards):
    from scorekit.release import render_scorecard

    def text(card: Any, name: str, reference: str, command: str) -> str:
        payload = card.to_release_payload(name, "1.2.3", require_pass=False, dataset_reference=reference,
                                          dataset_description=reference, reproduction_command=command)
        return render_scorecard(payload).split("\n---\n", 1)[1]  # the Markdown body after the front matter

    reference = ("suite" + HOSTILE["line_separator"] + HOSTILE["paragraph_separator"] + HOSTILE["next_line"]
                 + HOSTILE["bidi"] + HOSTILE["escape"] + "```")
    command = "scorekit run --agent-name 'a ``` b'\nscorekit gate"
    assert_markdown_safe(text(cards["hostile"], AGENT, reference, command),
                         text(cards["plain"], "agent plain", "suite`", command))
    # A shell command is shown as it is or not at all: one a code block cannot show is refused.
    for bad in ("line_separator", "paragraph_separator", "next_line", "bidi", "escape"):
        with pytest.raises(ValueError, match="reproduction_command holds U\\+"):
            text(cards["plain"], "agent plain", "suite", "scorekit run --agent-name '" + HOSTILE[bad] + "'")
    # (a backtick: the plain reference is not a code span either)


def test_history_listing_on_a_terminal(cards, tmp_path):
    from scorekit.history import read_history
    from scorekit.reports._sections import history_sections
    from scorekit.reports.text import history_text

    db = tmp_path / "h.sqlite"
    _card(HOSTILE, AGENT, VERSION, LABEL, db)
    text = history_text(history_sections(read_history(str(db)), read_history(str(db), dimensions=True)))
    assert_terminal_safe(text)
    assert "label x\\n::error::injected" in text


def test_run_gate_stdout_summary_and_junit(run_cli, cards, tmp_path, monkeypatch):
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in _rows(HOSTILE)), encoding="utf-8")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(_policy(HOSTILE)), encoding="utf-8")
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv(SUMMARY_ENV, str(summary))
    code, out, err = run_cli("run", "--results", results, "--policy", policy, "--out-dir", tmp_path / "r",
                             "--gate", "--junit", tmp_path / "junit.xml", "--agent-name", AGENT,
                             "--agent-version", VERSION)
    assert code == 1, err
    assert_terminal_safe(out, annotations=_blocking(cards["hostile"]))
    assert_terminal_safe(err)
    written = summary.read_text(encoding="utf-8").split("\n", 1)[1]
    assert_markdown_safe(written, step_summary(_sections(cards["plain"])), html=False)
    ET.parse(tmp_path / "junit.xml")
    md = (tmp_path / "r" / "scorecard.md").read_text(encoding="utf-8")
    assert not any(c in md for c in LINE_BREAK_CHARS)
    _check_tables(md)


def test_a_lone_surrogate_in_the_agent_name_is_replaced_in_every_writer():
    from scorekit.reports.html import render_html
    from scorekit.reports.junit import render_junit
    from scorekit.reports.markdown import render_markdown
    from scorekit.reports.text import run_text

    rows = [{"id": f"r{i}", "dimension": "d", "status": "PASS" if i else "FAIL", "evaluator": "e"} for i in range(3)]
    card = sk.evaluate(rows, agent_name="ag\ud800ent", agent_version="1\udfff")
    s = _sections(card)
    texts = {"md": render_markdown(card.to_dict()), "html": render_html(card.to_dict()),
             "junit": render_junit(s), "summary": step_summary(s)}
    for kind, text in texts.items():
        text.encode("utf-8")  # strict: a lone surrogate cannot be written
        assert "ag\ufffdent" in text, kind
    assert_terminal_safe(run_text(s))
    ET.fromstring(texts["junit"].encode("utf-8"))


def test_notebook_reproduction_block_is_literal_but_clean():
    from scorekit.notebook import reproduction

    command = "scorekit run --agent-name '" + AGENT + HOSTILE["escape"] + HOSTILE["next_line"] + "'\nscorekit gate"
    hostile = reproduction([command], {AGENT: VERSION})
    plain = reproduction(["scorekit run --agent-name 'agent plain'\nscorekit gate"], {"agent plain": "1.0"})
    assert_markdown_safe(hostile.markdown, plain.markdown, html=False)
    assert "\nscorekit gate\n" in hostile.markdown  # the command's own lines stay lines
