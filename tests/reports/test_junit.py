"""JUnit XML of the section model (scorekit/reports/junit.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import scorekit as sk
from scorekit.reports._sections import build_sections
from scorekit.reports.junit import render_junit, write_junit


def _card(rows, policy=None):
    return sk.evaluate(rows, policy=policy)


def test_junit_numbers_are_the_reports_numbers():
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    sections = build_sections(card.to_dict())
    root = ET.fromstring(render_junit(sections).encode("utf-8"))
    failure = next(root.iter("failure"))
    rate = sections.thresholds.cell("action_correctness", "rate").text
    assert f"rate {rate}," in failure.text
    assert len(list(root.iter("testcase"))) == len(card.dimensions)


def test_markup_and_control_characters_in_names_stay_well_formed_xml(tmp_path):
    name = 'x<&>"\u202e\x07'
    rows = [{"id": f"r{i}", "dimension": name, "status": "FAIL", "evaluator": "h"} for i in range(3)]
    card = _card(rows, {"gate": {"thresholds": {name: 0.5}}})
    path = write_junit(build_sections(card.to_dict()), tmp_path / "junit.xml")
    (case,) = ET.parse(path).getroot().iter("testcase")  # parses: every character escaped or replaced
    assert case.get("name").startswith('x<&>"') and "\x07" not in case.get("name")
    assert case.find("failure") is not None


def test_the_suite_is_named_after_the_agent_and_carries_the_decision():
    rows = [{"id": f"r{i}", "dimension": "task_completion", "agent_output": "ok", "must_include": ["ok"]}
            for i in range(400)]
    card = sk.evaluate(rows, agent_name="mail", agent_version="1.2")
    root = ET.fromstring(render_junit(build_sections(card.to_dict())).encode("utf-8"))
    suite = root.find("testsuite")
    assert suite.get("name") == "scorekit: mail 1.2" and suite.get("failures") == "0"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["decision"] == card.decision == "PASS"
