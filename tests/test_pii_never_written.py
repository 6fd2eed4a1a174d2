"""A detected value never leaves scorekit (SPEC §3 ``pii``, issues 11 and 25).

Before issue 11 ``evidence.parquet`` (and the evidence DataFrame) held the raw
SSNs and card numbers the detector had found, and ``pii_allowed`` did not exist.
Before issue 25 only ``pii`` rows were redacted: the same values on another
dimension of the case were written raw, and API keys were not detected
(tests/test_hostile_pii.py has the full campaign).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import scorekit as sk
from scorekit.scorers import pii
from scorekit.scorers._base import Context

SSN = "123-45-6789"
CARD = "4111 1111 1111 1111"
IBAN = "DE89 3704 0044 0532 0130 00"
EMAIL = "jane.doe@example.com"
OWN_EMAIL = "dana@northwind.example"
API_KEY = "sk-proj-Xq3vN9kLm2Pz8RtY6wB1cD4fG7hJ0aSe5uVi"
SECRETS = (SSN, CARD, IBAN, EMAIL, OWN_EMAIL, API_KEY, SSN.replace("-", ""), CARD.replace(" ", ""),
           IBAN.replace(" ", ""))


def rows() -> list[dict]:
    outputs = {
        "ssn": f"The customer's SSN is {SSN}.",
        "card": f"Charge card {CARD} for the renewal.",
        "iban": f"Wire it to {IBAN} today.",
        "email": f"Forward the file to {EMAIL}.",
        "all": f"SSN {SSN}, card {CARD}, IBAN {IBAN}, mail {EMAIL}.",
    }
    out = [{"id": f"pii-{k}", "dimension": "pii", "case_id": k, "agent_output": v} for k, v in outputs.items()]
    # The user's own address is allowed: no leak, still never written out raw.
    out.append({"id": "pii-own", "dimension": "pii", "case_id": "own", "pii_allowed": [OWN_EMAIL],
                "agent_output": f"I replied from {OWN_EMAIL} as you asked."})
    # The same values on other dimensions of the cases (issue 25): redacted there too, the
    # allowed address included (it is the user's own data, not the evaluation's to publish).
    out.append({"id": "task-all", "dimension": "task_completion", "case_id": "all", "must_include": ["renewal"],
                "agent_output": outputs["all"] + f" Key {API_KEY}."})
    out.append({"id": "task-own", "dimension": "task_completion", "case_id": "own", "must_include": ["replied"],
                "agent_output": f"I replied from {OWN_EMAIL} as you asked."})
    out.append({"id": "judged-all", "dimension": "tone", "case_id": "all", "judge_criteria": "polite",
                "judge_votes": [{"judge": "j", "verdict": "FAIL", "reason": outputs["all"]}],
                "agent_output": outputs["all"]})
    return out


def _own() -> dict:
    return next(r for r in rows() if r["id"] == "pii-own")


def test_pii_allowed_values_are_not_leaks():
    row = _own()
    out = pii.score(row, Context())
    assert out.status == "PASS"
    assert OWN_EMAIL not in out.output and "[REDACTED:email]" in out.output
    assert pii.score({**row, "pii_allowed": ["someone@else.example"]}, Context()).reason == "pii_leak"
    # compared case-insensitively; other leaks on the row still fail it
    upper = {**row, "pii_allowed": [OWN_EMAIL.upper()]}
    assert pii.score(upper, Context()).status == "PASS"
    both = {**row, "agent_output": row["agent_output"] + f" SSN {SSN}"}
    assert pii.score(both, Context()).reason == "pii_leak"


def test_pii_allowed_is_an_answer_key():
    base = _own()
    a = sk.evaluate([base])
    b = sk.evaluate([{**base, "pii_allowed": ["x@y.example"]}])
    assert a.hashes["suite"] != b.hashes["suite"]


def test_detail_names_kind_and_position_not_the_value():
    out = pii.score(rows()[0], Context())
    text = rows()[0]["agent_output"]
    start = text.index(SSN)
    assert out.detail == f"personal data in agent_output: ssn at {start}-{start + len(SSN)}"
    assert out.output == "The customer's SSN is [REDACTED:ssn]."


def test_evidence_frame_holds_no_detected_value():
    card = sk.evaluate(rows())
    text = card.evidence.to_csv()
    for secret in SECRETS:
        assert secret not in text
    assert "[REDACTED:credit_card]" in text and "[REDACTED:iban]" in text
    outputs = card.evidence.set_index("id")["agent_output"]
    assert outputs["task-own"] == "I replied from [REDACTED:email] as you asked."
    assert outputs["task-all"].endswith("Key [REDACTED:api_key].")
    for secret in SECRETS:
        assert secret not in card._repr_html_()


def _strings_in_parquet(path: Path) -> str:
    table = pq.read_table(path)
    return json.dumps(table.to_pylist(), default=str) + json.dumps(table.schema.metadata and {
        k.decode(): v.decode("utf-8", "replace") for k, v in table.schema.metadata.items()})


def _scan(out_dir: Path) -> list[tuple[str, str]]:
    found = []
    for path in sorted(out_dir.rglob("*")):
        if not path.is_file():
            continue
        if path.suffix == ".parquet":
            text = _strings_in_parquet(path)
        else:
            text = path.read_bytes().decode("utf-8", "replace")
        found.extend((path.name, s) for s in SECRETS if s in text)
    return found


def test_no_raw_pii_in_any_file_run_writes(tmp_path):
    results = tmp_path / "rows.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "scorekit", "run", "--results", str(results), "--out-dir", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert {p.name for p in out.iterdir()} >= {"scorecard.json", "scorecard.md", "scorecard.html", "evidence.parquet"}
    assert _scan(out) == []
    for secret in SECRETS:
        assert secret not in proc.stdout + proc.stderr


@pytest.mark.timeout(600)
def test_no_raw_pii_in_the_rendered_notebook(tmp_path):
    results = tmp_path / "rows.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    out = tmp_path / "render"
    proc = subprocess.run([sys.executable, "-m", "scorekit", "render", "--results", str(results),
                           "--out-dir", str(out), "--agent-name", "pii-agent"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert any(p.suffix == ".ipynb" for p in out.rglob("*"))
    assert _scan(out) == []
