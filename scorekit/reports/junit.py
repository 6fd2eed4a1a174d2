"""JUnit XML of the section model: one test case per dimension in scope (SPEC §17, CI).

CI systems (GitHub, GitLab, Jenkins, Azure) show JUnit files as test reports, so a
release gate's dimensions appear beside the project's own tests. The mapping:

=============  ==========================================================
verdict        test case
=============  ==========================================================
PASS           passed
FAIL           ``<failure>`` whose message is the verdict reasons
INCOMPLETE     ``<error>`` whose message is the reason it could not be decided
NOT_IN_SCOPE   not written (not a test of this release)
=============  ==========================================================

The suite's properties carry the decision, its reasons and the purpose, so a
TRIAGE or SELF_TEST decision is visible even when every dimension passed.
The values are the section model's already-formatted strings (``84.7%``), the
same as every other report. Every text and attribute value passes through
:func:`scorekit._escape.xml_text` (XML 1.0 forbids most C0 controls even as
character references; they become U+FFFD) before ElementTree escapes it.

Examples
--------
>>> import scorekit as sk
>>> from scorekit.reports._sections import build_sections
>>> from scorekit.reports.junit import render_junit
>>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
>>> xml = render_junit(build_sections(card.to_dict()))
>>> xml.splitlines()[1]
'<testsuites name="scorekit" tests="8" failures="1" errors="2">'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .._escape import xml_text

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

    from ._sections import Sections

__all__ = ["render_junit", "write_junit"]

_OUTCOME = {"FAIL": "failure", "INCOMPLETE": "error"}
_SKIPPED_VERDICTS = ("NOT_IN_SCOPE",)


def _element(parent: ET.Element | None, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    """An element (a child of ``parent`` when given) whose text and attribute values are :func:`xml_text`."""
    import xml.etree.ElementTree as ET

    safe = {key: xml_text(value) for key, value in attrs.items()}
    element = ET.Element(tag, safe) if parent is None else ET.SubElement(parent, tag, safe)
    if text is not None:
        element.text = xml_text(text)
    return element


#: Columns of a dimension's comparison row that its test case repeats.
_COMPARISON_FACTS = ("status", "difference", "p-value", "p adjusted (Holm)", "p adjusted", "method",
                     "cases compared")


def _dimension_text(s: Sections, dimension: str) -> list[str]:
    """What the reports say of ``dimension`` beyond its row (SPEC §18): its notes (assurance, rate bounds,
    pass^1, judge agreement), its comparison and its regressed / improved cases."""
    lines = [line for note in s.dimension_notes if note.dimension == dimension for line in note.every_line]
    table = s.regressions
    for cells in () if table is None else table.rows:
        if table is not None and cells[0].text == dimension:
            lines.append("comparison: " + ", ".join(f"{label} {cells[table.column(label)].text}"
                                                    for label in _COMPARISON_FACTS if label in table.columns))
    lines += [c.text for c in s.case_changes if c.dimension == dimension]
    return lines


def render_junit(sections: Sections) -> str:
    """JUnit XML text (UTF-8 declaration, one ``<testsuite>``) of ``sections``."""
    import xml.etree.ElementTree as ET

    s = sections
    table = s.thresholds
    at = {label: table.column(label) for label in table.columns}
    rate_ci = {cells[0].text: cells[s.measures.column(f"{s.confidence} Wilson CI")].text
               for cells in s.measures.rows} if f"{s.confidence} Wilson CI" in s.measures.columns else {}
    headline = {cells[0].text: cells[s.measures.column(s.interval)].text
                for cells in s.measures.rows} if s.interval in s.measures.columns and \
        s.interval != f"{s.confidence} Wilson CI" else {}
    name = f"scorekit: {s.agent}" if s.agent else "scorekit"
    cases = []
    for cells in table.rows:
        dimension, verdict = cells[0].text, cells[at["verdict"]].text
        if verdict in _SKIPPED_VERDICTS:
            continue
        case = _element(None, "testcase", name=dimension, classname=f"scorekit.{s.decision.purpose}")
        facts = f"rate {cells[at['rate']].text}, threshold {cells[at['threshold']].text}"
        if dimension in headline:
            facts += f", {s.interval} {headline[dimension]}"
        if dimension in rate_ci:
            facts += f", {s.confidence} Wilson CI {rate_ci[dimension]}"
        facts = "\n".join([facts, *_dimension_text(s, dimension)])
        outcome = _OUTCOME.get(verdict)
        if outcome is not None:
            reasons = cells[at["verdict reasons"]].text
            _element(case, outcome, facts, message=f"{verdict}: {reasons}", type=verdict)
        else:
            _element(case, "system-out", facts)
        cases.append((verdict, case))
    failures = sum(v == "FAIL" for v, _ in cases)
    errors = sum(v == "INCOMPLETE" for v, _ in cases)
    root = _element(None, "testsuites", name="scorekit", tests=str(len(cases)), failures=str(failures),
                    errors=str(errors))
    suite = _element(root, "testsuite", name=name, tests=str(len(cases)), failures=str(failures),
                     errors=str(errors), skipped="0")
    if s.decision.generated_at:
        suite.set("timestamp", xml_text(s.decision.generated_at))
    props = _element(suite, "properties")
    for key, value in (("decision", s.decision.value), ("purpose", s.decision.purpose),
                       ("decision reasons", "; ".join(s.decision.reasons) or "—"),
                       *((("error rates", s.error_rates),) if s.error_rates else ())):
        _element(props, "property", name=key, value=value)
    suite.extend(case for _, case in cases)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(sections: Sections, path: str | os.PathLike[str]) -> Path:
    """Write :func:`render_junit` of ``sections`` to ``path`` atomically."""
    from .._io import atomic_write_bytes

    payload = render_junit(sections).encode("utf-8")
    return atomic_write_bytes(path, payload)
