"""Hostile input, PII (issue 25 item 3): no detected value is written, whatever the row's dimension.

Before the fix only ``pii`` rows were redacted: the same SSN, card number or
e-mail on another dimension of the same case reached ``evidence.parquet`` and
``card.evidence`` raw (agent output, a schema error or a state mismatch quoting
the value, a pre-scored reason, a validation problem quoting a field), and API
keys and tokens were not detected at all.

Each case puts one set of values (personal data and one secret of each kind)
on every dimension kind, evaluates it with every engine that applies, writes
every artifact the front doors write, and searches every file written (Parquet
read back through pyarrow, SQLite dumped with ``iterdump``) for any of the values.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import scorekit as sk

SSN = "123-45-6789"
CARD = "4111 1111 1111 1111"  # Luhn-valid (Visa's test number)
EMAIL = "jane.doe@example.com"
PHONE = "+1 415-555-0132"
IBAN = "DE89 3704 0044 0532 0130 00"
_B62 = "Xq3vN9kLm2Pz8RtY6wB1cD4fG7hJ0aSe5uViOoQjZ"
KEYS = {
    "openai": "sk-proj-" + _B62 + "_" + _B62[:12],
    "anthropic": "sk-ant-api03-" + (_B62 * 3)[:93] + "-AA",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "github": "ghp_" + _B62[:36],
    "github_fine_grained": "github_pat_11ABCDEFG0" + _B62[:12] + "_" + (_B62 * 2)[:59],
    "slack": "xoxb-123456789012-1234567890123-" + _B62[:24],
    "bearer": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
}
VALUES = {"ssn": SSN, "credit_card": CARD, "email": EMAIL, "phone": PHONE, "iban": IBAN, **KEYS}
# What must appear nowhere: each value as written, and its digits or characters without separators.
NEEDLES = sorted({*VALUES.values(), *(v.replace(" ", "").replace("-", "") for v in (SSN, CARD, PHONE, IBAN)),
                  KEYS["bearer"].split(".")[2]})


def leak_text(where: str) -> str:
    """A text holding every value (the Bearer token behind its scheme)."""
    parts = [f"{kind} {value}" for kind, value in VALUES.items() if kind != "bearer"]
    return f"{where}: " + ", ".join(parts) + f"; Authorization: Bearer {KEYS['bearer']}"


def scored_rows() -> list[dict]:
    """One case, the values on every dimension kind (and on the pii dimension)."""
    text = leak_text
    return [
        {"id": "task", "case_id": "c1", "dimension": "task_completion", "must_include": ["refund"],
         "agent_output": text("output")},
        # The schema error quotes the contract's allowed values; the arguments hold every value.
        {"id": "tool", "case_id": "c1", "dimension": "tool_call", "allowed_tools": ["send_email"],
         "tool_schemas": {"send_email": {"type": "object", "properties": {"to": {"enum": [EMAIL, PHONE]},
                                                                         "body": {"type": "integer"}}}},
         "tool_calls": [{"name": "send_email", "arguments": {"to": "someone", "body": text("arguments")}}],
         "agent_output": "sent"},
        # The detail quotes the observed actions; the observed state holds every value.
        {"id": "action", "case_id": "c1", "dimension": "action_correctness", "expected_actions": ["lookup"],
         "forbidden_actions": [text("action")], "agent_actions": ["lookup", text("action")],
         "expected_state": {"note": "ok"}, "observed_state": {"note": text("observed_state")},
         "agent_output": text("action output")},
        # The judges' reasons are the detail of a judged row.
        {"id": "judged", "case_id": "c1", "dimension": "helpfulness", "judge_criteria": "answers the question",
         "judge_votes": [{"judge": "j1", "verdict": "FAIL", "reason": text("vote j1")},
                         {"judge": "j2", "verdict": "FAIL", "reason": text("vote j2")}],
         "agent_output": text("judged output")},
        {"id": "pii", "case_id": "c1", "dimension": "pii", "agent_output": text("pii output")},
        *prescored_rows(),
        # A row with partial credit: its output is written too.
        {"id": "scored", "case_id": "c1", "dimension": "quality", "score": 0, "evaluator": "grader",
         "agent_output": text("scored output")},
        # An invalid row: its problem quotes the field's value.
        {"id": "bad", "case_id": "c2", "dimension": "safety", "status": f"FAILED {SSN} {KEYS['openai']}",
         "evaluator": "harness"},
    ]


def prescored_rows() -> list[dict]:
    """Rows an external harness scored: its reason text and a detail field carry the values."""
    return [
        {"id": f"pre-{i}", "case_id": f"c{i}", "dimension": "safety", "status": "FAIL", "evaluator": "harness",
         "reason": f"leaked {'Bearer ' if kind == 'bearer' else ''}{value}", "detail": leak_text("harness detail")}
        for i, (kind, value) in enumerate(VALUES.items())
    ] + [{"id": "pre-pass", "case_id": "c-pass", "dimension": "safety", "status": "PASS", "evaluator": "harness"}]


# --------------------------------------------------------------------------- scanning
def _parquet_text(path: Path) -> str:
    table = pq.read_table(path)
    meta = {k.decode(): v.decode("utf-8", "replace") for k, v in (table.schema.metadata or {}).items()}
    return json.dumps(table.to_pylist(), default=str) + json.dumps(meta)


def _sqlite_text(path: Path) -> str:
    con = sqlite3.connect(path)
    try:
        return "\n".join(con.iterdump())
    finally:
        con.close()


def file_text(path: Path) -> str:
    """Every string a file holds: Parquet decompressed, SQLite dumped, other files as bytes."""
    data = path.read_bytes()
    if data.startswith(b"PAR1"):
        return _parquet_text(path)
    if data.startswith(b"SQLite format 3\x00"):
        return _sqlite_text(path)
    return data.decode("utf-8", "replace")


def leaks(directory: Path) -> list[tuple[str, str]]:
    """(file, value) for every value found in any file under ``directory``."""
    found = []
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            text = file_text(path)
            found.extend((str(path.relative_to(directory)), n) for n in NEEDLES if n in text)
    return found


def frame_leaks(frame: pd.DataFrame) -> list[str]:
    text = frame.to_csv()
    return [n for n in NEEDLES if n in text]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_values_are_detected():
    # The fixture is what the detector finds: otherwise the scans below prove nothing.
    from scorekit.scorers.pii import find_pii

    found = find_pii(leak_text("all"))
    assert sorted(v for _, v in found) == sorted(VALUES.values())
    assert {k for k, _ in found} == {"ssn", "credit_card", "email", "phone", "iban", "api_key"}


# --------------------------------------------------------------------------- library, each engine
def _check_card(card: sk.Scorecard, out: Path) -> None:
    assert frame_leaks(card.evidence) == []
    assert [n for n in NEEDLES if n in json.dumps(card.to_dict())] == []
    card.write(out)
    assert leaks(out) == []
    written = {p.name for p in out.iterdir()}
    assert {"scorecard.json", "scorecard.md", "scorecard.html"} <= written
    assert "evidence.parquet" in written or "evidence" in written


def _redacted(card: sk.Scorecard) -> str:
    return card.evidence.to_csv()


def test_pandas_engine_redacts_every_dimension(tmp_path):
    card = sk.evaluate(scored_rows())
    _check_card(card, tmp_path / "out")
    ev = card.evidence.set_index("id")
    # Kind and place are kept: the evidence says what was there.
    assert "[REDACTED:ssn]" in ev.loc["task", "agent_output"]
    assert "[REDACTED:api_key]" in ev.loc["task", "agent_output"]
    assert "Bearer [REDACTED:api_key]" in ev.loc["task", "agent_output"]
    assert "[REDACTED:email]" in ev.loc["tool", "detail"]
    assert "[REDACTED:ssn]" in ev.loc["action", "detail"] and "[REDACTED:api_key]" in ev.loc["action", "detail"]
    assert "[REDACTED:credit_card]" in ev.loc["judged", "detail"]
    assert ev.loc["pre-0", "reason"] == "leaked [REDACTED:ssn]"
    assert ev.loc["pre-5", "reason"] == "leaked [REDACTED:api_key]"
    assert ev.loc["pii", "reason"] == "pii_leak"
    problems = card.to_dict()["validation"]["problems"]
    assert any("[REDACTED:ssn]" in p["message"] for p in problems)
    # The results hash is over the captured values: the same rows with other secrets differ.
    other = [{**r, "agent_output": r["agent_output"].replace(SSN, "123-45-6780")} if r["id"] == "task" else r
             for r in scored_rows()]
    assert sk.evaluate(other).hashes["results"] != card.hashes["results"]


def test_evidence_dataset_of_a_large_run_is_redacted(tmp_path):
    card = sk.evaluate(scored_rows(), evidence_rows_in_memory=0)
    with pytest.raises(sk.EvidenceNotInMemoryError):
        card.evidence  # noqa: B018 - the property raises above the threshold
    table = card.evidence_dataset().to_table()
    assert [n for n in NEEDLES if n in json.dumps(table.to_pylist(), default=str)] == []
    out = tmp_path / "out"
    card.write(out)
    assert (out / "evidence").is_dir()
    assert leaks(out) == []


@pytest.mark.timeout(300)
def test_dask_engine_redacts_every_dimension_and_agrees_with_pandas(tmp_path, cluster):
    path = _write_jsonl(tmp_path / "rows.jsonl", scored_rows())
    card = sk.evaluate(str(path), engine="dask", scheduler=cluster)
    _check_card(card, tmp_path / "out")
    pandas = sk.evaluate(str(path))
    pd.testing.assert_frame_equal(card.evidence, pandas.evidence)
    assert card.hashes == pandas.hashes


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_duckdb_engine_redacts_prescored_reasons_and_agrees_with_pandas(tmp_path, kind):
    pytest.importorskip("duckdb")
    rows = [{k: v for k, v in r.items() if k != "detail"} for r in prescored_rows()]  # its columns only
    frame = pd.DataFrame(rows)
    path = tmp_path / f"rows.{kind}"
    if kind == "jsonl":
        _write_jsonl(path, rows)
    elif kind == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    card = sk.evaluate(str(path), engine="duckdb")
    _check_card(card, tmp_path / "out")
    pandas = sk.evaluate(str(path))
    pd.testing.assert_frame_equal(card.evidence, pandas.evidence)
    assert card.hashes == pandas.hashes
    assert card.to_dict()["findings"] == pandas.to_dict()["findings"]


@pytest.mark.timeout(120)
def test_duckdb_engine_large_run_redacts_the_evidence_dataset(tmp_path):
    pytest.importorskip("duckdb")
    rows = [{k: v for k, v in r.items() if k != "detail"} for r in prescored_rows()]
    path = tmp_path / "rows.parquet"
    pd.DataFrame(rows).to_parquet(path, index=False)
    card = sk.evaluate(str(path), engine="duckdb", evidence_rows_in_memory=0)
    table = card.evidence_dataset().to_table()
    assert [n for n in NEEDLES if n in json.dumps(table.to_pylist(), default=str)] == []
    out = tmp_path / "out"
    card.write(out)
    assert leaks(out) == []


# --------------------------------------------------------------------------- every artifact the CLI writes
def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


@pytest.mark.timeout(600)
def test_no_value_in_any_file_the_cli_writes(tmp_path):
    results = _write_jsonl(tmp_path / "rows.jsonl", scored_rows())
    out, summary, junit, history = tmp_path / "out", tmp_path / "summary.md", tmp_path / "junit.xml", tmp_path / "h.db"
    summary.write_text("", encoding="utf-8")
    run = _cli("run", "--results", str(results), "--out-dir", str(out), "--gate", "--junit", str(junit),
               "--history", str(history), "--label", "v1", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert run.returncode == 1, run.stderr  # the gate fails: the leaks FAIL the pii row
    assert summary.read_text(encoding="utf-8").strip() and junit.read_text(encoding="utf-8").strip()
    assert history.stat().st_size > 0
    report = _cli("report", str(out / "scorecard.json"), "--out-dir", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    again = _cli("run", "--results", str(results), "--out-dir", str(tmp_path / "again"), "--history", str(history),
                 "--label", "v2", "--engine", "pandas")
    assert again.returncode in (0, 1), again.stderr
    compare = _cli("compare", "v1", "v2", "--history", str(history), "--out-dir", str(tmp_path / "compare"))
    assert compare.returncode == 0, compare.stderr
    validate = _cli("validate", str(results))
    assert validate.returncode == 1 and "[REDACTED:ssn]" in validate.stdout, validate.stdout + validate.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != results]
    assert {p.suffix for p in written} >= {".json", ".md", ".html", ".parquet", ".xml", ".db"}
    assert [(f, n) for f, n in leaks(tmp_path) if f != results.name] == []
    for proc in (run, report, again, compare, validate):
        assert [n for n in NEEDLES if n in proc.stdout + proc.stderr] == []


def test_an_imported_runs_source_texts_are_redacted(tmp_path):
    # An importer keeps the source's own texts (notes, an error message) in scorecard.json's source.
    from scorekit.importers import ImportedRun

    rows = pd.DataFrame(prescored_rows()).drop(columns=["detail"])
    run = ImportedRun(agent="agent-a", task="t", rows=rows, partial=True, source={
        "format": "inspect", "files": ["logs/run.eval"], "status": "error", "samples_run": 8,
        "error": f"AuthenticationError: Incorrect API key provided: {KEYS['openai']}",
        "notes": [leak_text("note")], "metrics": {"accuracy": 0.5}})
    card = sk.evaluate(run)
    source = card.to_dict()["source"]
    assert source["error"] == "AuthenticationError: Incorrect API key provided: [REDACTED:api_key]"
    assert source["status"] == "error" and source["files"] == ["logs/run.eval"] and source["agent"] == "agent-a"
    _check_card(card, tmp_path / "out")
