"""The Agent Card (SPEC §11): evidence mapped to control families, verdicts as they are."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

import pytest

import scorekit as sk
from scorekit import InputError
from scorekit.agent_card import (
    FAMILY_STATUSES,
    build_agent_card,
    control_families,
    render_agent_card_markdown,
    write_agent_card,
)
from scorekit.scorers import BUILTIN_SCORERS
from scorekit.signing import VerifyResult, sign_scorecard, verify_scorecard, write_keypair

BUILTIN = sorted(BUILTIN_SCORERS)
JUDGES = {"panel": [], "pass_score": 4}


@cache
def _scorecard(kind: str = "example") -> str:
    """Real scorecards (as JSON text, so each test gets a fresh copy)."""
    if kind == "example":  # release policy: action_correctness FAIL, the rest PASS
        card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"),
                           agent_name="email-assistant", agent_version="1.2.3")
    elif kind == "incomplete":  # default min_coverage 1.0: dimensions with ERROR rows are INCOMPLETE
        card = sk.evaluate(sk.example_path(), policy={"purpose": "release", "judges": JUDGES,
                                                      "gate": {"thresholds": {"helpfulness": 0.8}}})
    elif kind == "scoped":  # declared scope: NOT_IN_SCOPE dimensions and a skipped judged one
        card = sk.evaluate(sk.example_path(), policy={
            "purpose": "release", "judges": JUDGES,
            "gate": {"thresholds": {"helpfulness": 0.8, "tone": 0.9},
                     "required_dimensions": ["pii", "tool_call", "task_completion", "helpfulness", "tone"]}})
    elif kind == "no_pii":  # the pii dimension (and its controls) absent from the card
        rows = sk.read_rows(sk.example_path())
        card = sk.evaluate(rows[rows["dimension"] != "pii"].reset_index(drop=True), policy={
            "purpose": "release", "judges": JUDGES, "gate": {"thresholds": {"helpfulness": 0.8}, "min_coverage": 0.9}})
    elif kind == "triage":
        card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), limit=200)
    else:
        raise ValueError(kind)
    return card.to_json()


def scorecard_text(kind: str = "example") -> str:
    return _scorecard(kind)  # always keyed by kind: one cached evaluation (one generated_at) per kind


def scorecard(kind: str = "example") -> dict[str, Any]:
    return json.loads(scorecard_text(kind))


def _source(card: dict, sid: str) -> dict:
    return next(s for s in card["evidence"] if s["id"] == sid)


def _families(card: dict) -> dict[str, dict]:
    return {f["id"]: f for fw in card["frameworks"] for f in fw["families"]}


def _md_row(md: str, first_cell: str) -> str:
    return next(line for line in md.splitlines() if line.startswith(f"| {first_cell} |"))


# --------------------------------------------------------------------------- the data file
def test_data_file_maps_every_builtin_dimension_to_some_family():
    table = control_families()
    dimension_sources = {sid for sid, s in table["evidence_sources"].items() if s["kind"] == "dimension"}
    assert dimension_sources == set(BUILTIN)
    cited = {sid for fw in table["frameworks"] for fam in fw["families"] for sid in fam["evidence"]}
    assert set(BUILTIN) <= cited


@pytest.mark.parametrize("source", ["judged", "controls", "reliability", "history", "signing", "validation",
                                    "decision", "hashes"])
def test_data_file_maps_each_kind_of_evidence_to_some_family(source):
    table = control_families()
    assert source in table["evidence_sources"]
    assert any(source in fam["evidence"] for fw in table["frameworks"] for fam in fw["families"])


def test_data_file_covers_the_four_frameworks_named_by_the_spec():
    families = {fw["id"]: {f["id"] for f in fw["families"]} for fw in control_families()["frameworks"]}
    nist = families["nist-ai-rmf"]
    for function in ("GOVERN", "MAP", "MEASURE", "MANAGE"):
        assert any(f.startswith(function + " ") for f in nist), function
    assert {"GAI Data Privacy", "GAI Information Integrity", "GAI Information Security"} <= families["nist-ai-600-1"]
    assert all(f.startswith("A.") for f in families["iso-iec-42001"]) and "A.6.2.4" in families["iso-iec-42001"]
    eu = families["eu-ai-act"]
    for article in ("Art. 9", "Art. 10", "Art. 12", "Art. 13", "Art. 14"):
        assert article in eu
    assert any(f.startswith("Art. 15") for f in eu)
    assert {"LLM01:2025", "LLM02:2025", "LLM05:2025", "LLM06:2025", "LLM10:2025"} <= families["owasp-llm-2025"]


def test_data_file_header_documents_the_verdict_mapping_and_the_disclaimer():
    text = resources.files("scorekit").joinpath("data", "control_families.yaml").read_text(encoding="utf-8")
    header = text.split("schema_version:")[0]
    assert "NOT LEGAL COMPLIANCE OR CERTIFICATION" in header
    for rule in ("absent from the scorecard", "INCOMPLETE", "PASS", "FAIL", "INCOMPLETE is never shown as FAIL"):
        assert rule in header, rule


# --------------------------------------------------------------------------- dimensions and verdicts
def test_agent_card_maps_every_builtin_dimension_with_its_verdict():
    sc = scorecard()
    card = build_agent_card(sc)
    verdicts = {d["name"]: d["verdict"] for d in sc["dimensions"]}
    # SPEC §18: one missing row counted as FAIL could flip cost and latency, so they are
    # INCOMPLETE (missing_could_flip), shown as is: evidence partial, never FAIL or evidenced
    flip = {d["name"] for d in sc["dimensions"] if d["missing_could_flip"]}
    assert flip == {"cost", "latency"} and {verdicts[name] for name in flip} == {"INCOMPLETE"}
    for name in BUILTIN:
        source = _source(card, name)
        assert source["verdict"] == verdicts[name]
        assert source["status"] == ("partial" if name in flip else "evidenced")
    judged = _source(card, "judged")
    assert [d["name"] for d in judged["dimensions"]] == ["helpfulness"]
    assert {d["name"]: d["kind"] for d in card["dimensions"]}["helpfulness"] == "judged"
    assert [d["verdict"] for d in card["dimensions"]] == [d["verdict"] for d in sc["dimensions"]]


def test_fail_is_evidenced_and_shown_as_fail():
    card = build_agent_card(scorecard())
    source = _source(card, "action_correctness")
    assert (source["status"], source["verdict"], source["evidence_says_no"]) == ("evidenced", "FAIL", True)
    family = _families(card)["LLM06:2025"]  # Excessive Agency: action_correctness + tool_call
    assert family["status"] == "evidenced" and family["evidence_says_no"] is True
    md = render_agent_card_markdown(card)
    assert "**FAIL**" in _md_row(md, "action\\_correctness")
    assert "evidence says no" in _md_row(md, "LLM06:2025")


def test_incomplete_is_shown_as_incomplete_never_as_fail():
    sc = scorecard("incomplete")
    incomplete = [d["name"] for d in sc["dimensions"] if d["verdict"] == "INCOMPLETE"]
    assert {"cost", "latency", "helpfulness"} <= set(incomplete)
    card = build_agent_card(sc)
    md = render_agent_card_markdown(card)
    for name in incomplete:
        entry = next(d for d in card["dimensions"] if d["name"] == name)
        assert (entry["verdict"], entry["status"]) == ("INCOMPLETE", "partial")
        row = _md_row(md, name.replace("_", "\\_"))
        assert "INCOMPLETE" in row and "FAIL" not in row
    for sid in ("cost", "latency"):
        source = _source(card, sid)
        assert (source["status"], source["verdict"], source["evidence_says_no"]) == ("partial", "INCOMPLETE", False)
    unbounded = _families(card)["LLM10:2025"]  # cost + latency, both INCOMPLETE
    assert unbounded["status"] == "partial" and unbounded["evidence_says_no"] is False
    assert [e["verdict"] for e in unbounded["evidence"]] == ["INCOMPLETE", "INCOMPLETE"]
    assert "FAIL" not in _md_row(md, "LLM10:2025")
    assert "INCOMPLETE" in _md_row(md, "LLM10:2025")


def test_a_dimension_absent_from_the_scorecard_is_not_evidenced():
    sc = scorecard("no_pii")
    assert "pii" not in {d["name"] for d in sc["dimensions"]}
    card = build_agent_card(sc)
    assert (_source(card, "pii")["status"], _source(card, "pii")["verdict"]) == ("not_evidenced", None)
    assert _source(card, "controls")["status"] == "not_evidenced"  # the known-bad rows were pii rows
    families = _families(card)
    for fid in ("LLM02:2025", "MEASURE 2.10", "GAI Data Privacy", "A.5.4"):
        assert families[fid]["status"] == "not_evidenced", fid


def test_a_skipped_dimension_is_not_evidenced_and_shown_incomplete():
    sc = scorecard("scoped")
    tone = next(d for d in sc["dimensions"] if d["name"] == "tone")
    assert tone["verdict"] == "INCOMPLETE" and tone["n"] == 0
    card = build_agent_card(sc)
    entry = next(d for d in card["dimensions"] if d["name"] == "tone")
    assert (entry["status"], entry["verdict"]) == ("not_evidenced", "INCOMPLETE")
    judged = _source(card, "judged")
    assert (judged["status"], judged["verdict"]) == ("partial", "INCOMPLETE")  # helpfulness INCOMPLETE, tone skipped
    assert {d["name"]: d["verdict"] for d in judged["dimensions"]} == {"helpfulness": "INCOMPLETE",
                                                                       "tone": "INCOMPLETE"}


def test_a_dimension_outside_the_declared_scope_is_partial_and_shown_not_in_scope():
    card = build_agent_card(scorecard("scoped"))
    source = _source(card, "injection")
    assert (source["status"], source["verdict"]) == ("partial", "NOT_IN_SCOPE")


def test_family_status_combines_its_sources():
    card = build_agent_card(scorecard())
    families = _families(card)
    assert families["LLM01:2025"]["status"] == "evidenced"  # injection PASS
    assert families["Art. 12"]["status"] == "partial"  # hashes yes, unsigned, no history
    assert families["Art. 72"]["status"] == "not_evidenced"  # history not requested
    for fw in card["frameworks"]:
        for family in fw["families"]:
            assert family["status"] in FAMILY_STATUSES
        assert sum(fw["summary"].values()) == len(fw["families"])


@pytest.mark.parametrize("decision", ["TRIAGE", "SELF_TEST"])
def test_triage_and_self_test_scorecards_are_capped_at_partial(decision):
    sc = scorecard("triage") if decision == "TRIAGE" else dict(scorecard(), decision="SELF_TEST")
    assert sc["decision"] == decision
    card = build_agent_card(sc)
    measurement = set(control_families()["measurement_kinds"])
    for source in card["evidence"]:
        if source["kind"] in measurement:
            assert source["status"] != "evidenced", source
    assert _source(card, "decision")["verdict"] == decision
    assert _source(card, "hashes")["status"] == "evidenced"  # records are not capped


# --------------------------------------------------------------------------- other evidence
def test_controls_reliability_validation_and_hashes_are_reported():
    card = build_agent_card(scorecard())
    controls = _source(card, "controls")
    assert (controls["status"], controls["verdict"]) == ("evidenced", "PASS")
    assert "2 of 2" in controls["detail"]
    reliability = _source(card, "reliability")
    assert reliability["status"] == "evidenced" and "consistency" in reliability["detail"]
    assert (_source(card, "validation")["status"], _source(card, "validation")["verdict"]) == ("evidenced", "PASS")
    assert _source(card, "hashes")["status"] == "evidenced"


def test_a_missed_control_is_evidenced_and_shown_as_fail():
    sc = scorecard()
    sc["controls"][0]["passed"] = False
    controls = _source(build_agent_card(sc), "controls")
    assert (controls["status"], controls["verdict"], controls["evidence_says_no"]) == ("evidenced", "FAIL", True)


@pytest.mark.parametrize(
    ("status", "expected", "says_no"),
    [("not_requested", "not_evidenced", False), ("missing", "partial", False), ("incompatible", "partial", False),
     ("unusable", "partial", False), ("regressed", "evidenced", True), ("passed", "evidenced", False),
     ("something-new", "partial", False)],
)
def test_comparison_status_maps_to_history_evidence(status, expected, says_no):
    sc = scorecard()
    sc["comparison"]["status"] = status
    card = build_agent_card(sc)
    history = _source(card, "history")
    assert (history["status"], history["verdict"], history["evidence_says_no"]) == (expected, status, says_no)
    assert card["comparison"]["status"] == status


def test_data_file_maps_every_comparison_status_the_history_module_writes():
    history = pytest.importorskip("scorekit.history")
    assert set(history.COMPARISON_STATUSES) <= set(control_families()["comparison_status"])


# --------------------------------------------------------------------------- signature outcome
def test_signature_outcomes_are_shown_and_mapped(tmp_path):
    path = tmp_path / "scorecard.json"
    path.write_text(scorecard_text(), encoding="utf-8")
    write_keypair(tmp_path / "k.pem", tmp_path / "k.pub")
    sign_scorecard(path, tmp_path / "k.pem")
    sc = json.loads(path.read_text(encoding="utf-8"))
    expected = {"verified": "evidenced", "integrity-only": "partial", "unsigned": "not_evidenced"}
    results = {"verified": verify_scorecard(path, public_key_path=tmp_path / "k.pub"),
               "integrity-only": verify_scorecard(path), "unsigned": None}
    for outcome, result in results.items():
        card = build_agent_card(sc, result)
        assert card["signature"]["outcome"] == outcome
        assert _source(card, "signing")["status"] == expected[outcome]
    path.write_text(scorecard_text().replace('"decision": "FAIL"', '"decision": "PASS"', 1), encoding="utf-8")
    failed = verify_scorecard(path, public_key_path=tmp_path / "k.pub")
    card = build_agent_card(json.loads(path.read_text(encoding="utf-8")), failed)
    assert card["signature"]["outcome"] == "failed"
    signing = _source(card, "signing")
    assert (signing["status"], signing["verdict"], signing["evidence_says_no"]) == ("evidenced", "failed", True)
    assert "**failed**" in render_agent_card_markdown(card)


def test_a_verification_result_for_other_content_is_shown_as_failed():
    result = VerifyResult("verified", "ok", True, None, "0" * 64)
    card = build_agent_card(scorecard(), result)
    assert card["signature"]["outcome"] == "failed"


# --------------------------------------------------------------------------- what the card states
def test_card_states_decision_agent_hashes_signature_and_comparison():
    sc = scorecard()
    card = build_agent_card(sc)
    assert card["decision"] == sc["decision"] and card["overall_pass"] is sc["overall_pass"]
    assert card["agent"] == {"name": "email-assistant", "version": "1.2.3"}
    assert card["scorecard"]["hashes"] == sc["hashes"]
    assert re.fullmatch(r"[0-9a-f]{64}", card["scorecard"]["content_sha256"])
    assert card["signature"]["outcome"] == "unsigned"
    assert card["comparison"]["status"] == sc["comparison"]["status"]
    md = render_agent_card_markdown(card)
    plain = md.replace("\\", "")  # Markdown escapes removed
    for text in (sc["decision"], "email-assistant", "1.2.3", sc["hashes"]["suite"], "unsigned", "not_requested",
                 card["scorecard"]["content_sha256"]):
        assert text in plain, text


def test_card_content_hash_equals_the_signed_content_hash(tmp_path):
    path = tmp_path / "scorecard.json"
    path.write_text(scorecard_text(), encoding="utf-8")
    write_keypair(tmp_path / "k.pem", tmp_path / "k.pub")
    envelope = json.loads(sign_scorecard(path, tmp_path / "k.pem").read_text())
    assert build_agent_card(scorecard())["scorecard"]["content_sha256"] == envelope["content_sha256"]


def test_disclaimer_in_both_files(tmp_path):
    paths = write_agent_card(build_agent_card(scorecard()), tmp_path / "card")
    assert set(paths) == {"json", "md"}
    assert paths["json"].name == "agent-card.json" and paths["md"].name == "agent-card.md"
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert "not legal compliance" in data["disclaimer"] and "certification" in data["disclaimer"]
    assert "maps scorekit evaluation evidence to governance control families" in data["disclaimer"]
    md = paths["md"].read_text(encoding="utf-8")
    assert "Not legal compliance or certification." in md
    assert "It is not legal compliance" in md


def test_card_is_a_deterministic_json_document():
    sc = scorecard()
    a = build_agent_card(sc, generated_at="2026-01-01T00:00:00+00:00")
    b = build_agent_card(json.loads(json.dumps(sc)), generated_at="2026-01-01T00:00:00+00:00")
    assert json.dumps(a, allow_nan=False) == json.dumps(b, allow_nan=False)


def test_a_scorecard_object_is_accepted():
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    assert build_agent_card(card)["decision"] == card.decision


@pytest.mark.parametrize("bad", [[], "PASS", {"decision": "PASS"}, {"dimensions": []},
                                 {"decision": "PASS", "dimensions": [{"verdict": "PASS"}]}])
def test_something_that_is_not_a_scorecard_is_an_input_error(bad):
    with pytest.raises(InputError, match="not a scorekit scorecard"):
        build_agent_card(bad)


# --------------------------------------------------------------------------- escaping
XSS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "| injected | cell |",
    "line\n# Heading injected\n- item",
    "[click](javascript:alert(1))",
    "**bold** _em_ `code`",
    "&lt;already&gt;",
]


def _cells(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


@pytest.mark.parametrize("payload", XSS)
def test_untrusted_strings_are_escaped_in_markdown(payload):
    sc = scorecard()
    sc["agent"] = {"name": payload, "version": payload}
    sc["dimensions"][2]["name"] = payload  # a judged dimension
    sc["decision_reasons"] = [payload]
    sc["judges"] = [payload]
    sc["hashes"]["suite"] = payload
    sc["comparison"]["status"] = payload
    sc["controls"][0]["dimension"] = payload
    md = render_agent_card_markdown(build_agent_card(sc))
    assert "<script" not in md and "<img" not in md
    assert not re.search(r"(?<!\\)\]\(", md)  # no live link: every "](" has its bracket escaped
    assert "&lt;already&gt;" not in md  # the ampersand itself is escaped
    assert not any(line.startswith("# Heading") or line.startswith("- item") for line in md.splitlines())
    lines = md.splitlines()
    for i, line in enumerate(lines):  # every table row has as many cells as its header
        if line.startswith("|") and not line.startswith("|---"):
            header = next(lines[j] for j in range(i, -1, -1) if j == 0 or not lines[j - 1].startswith("|"))
            assert _cells(line) == _cells(header), line
