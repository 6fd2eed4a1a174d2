"""Hostile sizes and depths are one-line messages, never tracebacks (SPEC §1.5, §14).

Nesting 500–999 deep in a results row (the hash input form recursed past the
stack), a 400-digit integer in a policy (``float()`` overflowed) and a
5,000-digit number in a scorecard or envelope (Python's integer conversion
limit) each get what shallower or smaller inputs of the same kind get.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import rfc8785
from hypothesis import given, settings
from shared import JSON_VALUES, python_paths, scorekit_process

import scorekit as sk
from scorekit._errors import PolicyError
from scorekit._hashing import _deep_canonical_bytes, canonical_bytes, row_digest, tag_numbers
from scorekit._policy import load_policy

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return scorekit_process(*args, cwd=cwd)


def _nested(depth: int, leaf: str = "0") -> str:
    return "[" * depth + leaf + "]" * depth


def _row_text(field: str, depth: int) -> str:
    return ('{"id": "r1", "dimension": "helpfulness", "status": "PASS", "evaluator": "h", '
            f'"{field}": {_nested(depth)}}}')


# --------------------------------------------------------------------------- nesting in rows
@settings(max_examples=300)
@given(JSON_VALUES)
def test_the_deep_hash_path_writes_the_bytes_of_the_recursive_path(value):
    try:
        expected = rfc8785.dumps(tag_numbers(value))
    except rfc8785.CanonicalizationError:  # a lone surrogate: both paths refuse it
        with pytest.raises(rfc8785.CanonicalizationError):
            _deep_canonical_bytes(value)
    else:
        assert _deep_canonical_bytes(value) == expected


def test_the_deep_hash_path_orders_keys_by_utf16_units():
    value = {"\U0001f600": 1, "\uff61": [2.0], "a": {"\U00010000": None, "\ue000": True}}
    assert _deep_canonical_bytes(value) == rfc8785.dumps(tag_numbers(value))


@pytest.mark.parametrize("depth", [500, 750, 990])
def test_a_row_nested_as_deep_as_json_parses_is_hashed_not_a_traceback(depth):
    value: object = 0
    for _ in range(depth):  # built without recursion: pytest's own stack is deep already
        value = [value]
    with python_paths():  # the C helper stops at depth 100 and hands deeper values to the Python path
        data = canonical_bytes({"observed_state": value})
    assert data == b'{"observed_state":' + _nested(depth, '"i:0"').encode() + b"}"
    assert len(row_digest({"observed_state": value})) == 64


@pytest.mark.parametrize("field", ["observed_state", "input", "context"])
@pytest.mark.parametrize("depth", [63, 64, 500, 999])
def test_deep_nesting_in_a_results_row_is_read_or_reported_never_a_traceback(tmp_path, field, depth):
    (tmp_path / "rows.jsonl").write_text(_row_text(field, depth) + "\n", encoding="utf-8")
    proc = _cli("validate", "rows.jsonl", "--policy", str(sk.example_path(file="policy.yml")), cwd=tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr
    if depth >= 64:  # the row and its field nest more than ROW_NESTING (64) levels: an invalid row
        assert proc.returncode == 1
        assert "rows.jsonl:1: row: not valid JSON (nested too deeply)" in proc.stdout
    else:
        assert proc.returncode in (0, 1) and "0 invalid" in proc.stdout.splitlines()[0], proc.stdout
    run = _cli("run", "--results", "rows.jsonl", "--out-dir", "out", cwd=tmp_path)
    assert "Traceback" not in run.stderr and run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "out" / "scorecard.json").read_text(encoding="utf-8"))["decision"]


def test_a_csv_cell_nested_too_deeply_is_a_row_problem(tmp_path):
    (tmp_path / "rows.csv").write_text(
        f'id,dimension,status,evaluator,observed_state\nr1,helpfulness,PASS,h,"{_nested(5000)}"\n', encoding="utf-8")
    proc = _cli("validate", "rows.csv", cwd=tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1
    assert "rows.csv:2: observed_state: not valid JSON (nested too deeply)" in proc.stdout


# --------------------------------------------------------------------------- numbers in policies
@pytest.mark.parametrize(
    ("document", "where"),
    [({"gate": {"thresholds": {"helpfulness": 10**400}}}, "gate.thresholds.helpfulness"),
     ({"gate": {"thresholds": {"helpfulness": -(10**400)}}}, "gate.thresholds.helpfulness"),
     ({"confidence": 10**400}, "confidence"),
     ({"budgets": {"cost_usd": 10**400}}, "budgets.cost_usd"),
     ({"gate": {"pass_k_thresholds": {"pii": {"k": 2, "min": 10**400}}}}, "gate.pass_k_thresholds.pii.min")],
)
def test_an_integer_too_large_for_a_float_is_a_policy_error(document, where):
    with pytest.raises(PolicyError) as info:
        load_policy(document)
    message = str(info.value)
    assert message.startswith(f"{where}: must be a finite number") and "\n" not in message
    assert "about 401 digits" in message and len(message) < 200


@pytest.mark.parametrize("suffix", [".yml", ".json"])
def test_a_400_digit_threshold_in_a_policy_file_is_exit_2_in_one_line(tmp_path, suffix):
    digits = "1" + "0" * 400
    text = (f"gate:\n  thresholds:\n    helpfulness: {digits}\n" if suffix == ".yml"
            else f'{{"gate": {{"thresholds": {{"helpfulness": {digits}}}}}}}')
    (tmp_path / f"policy{suffix}").write_text(text, encoding="utf-8")
    proc = _cli("validate", str(sk.example_path()), "--policy", f"policy{suffix}", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"scorekit validate: policy{suffix}: gate.thresholds.helpfulness: must be a finite number in [0, 1]; "
        "got an integer of about 401 digits"]


# --------------------------------------------------------------------------- numbers in scorecards and envelopes
@pytest.fixture
def signed(tmp_path):
    from scorekit.signing import sign_scorecard, write_keypair

    card = tmp_path / "scorecard.json"
    card.write_text('{"decision": "PASS", "n": 3}', encoding="utf-8")
    write_keypair(tmp_path / "k.pem", tmp_path / "k.pub")
    envelope = sign_scorecard(card, tmp_path / "k.pem")
    return tmp_path, card, envelope


def test_a_5000_digit_number_in_a_scorecard_fails_verification_in_one_line(signed):
    tmp_path, card, envelope = signed
    card.write_text('{"decision": "PASS", "n": 1' + "0" * 5000 + "}", encoding="utf-8")
    proc = _cli("verify", "--scorecard", str(card), "--public-key", "k.pub", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.startswith("failed: the scorecard is not strict JSON (an integer with more than")
    # as a number overflowing to infinity already did
    card.write_text('{"decision": "PASS", "n": 1e999}', encoding="utf-8")
    assert sk.signing.verify_scorecard(card, envelope).outcome == "failed"


@pytest.mark.parametrize("command", ["sign", "attest"])
def test_a_5000_digit_number_in_a_scorecard_is_exit_2_for_sign_and_attest(signed, command):
    tmp_path, card, _ = signed
    card.write_text('{"decision": "PASS", "n": 1' + "0" * 5000 + "}", encoding="utf-8")
    args = ["--key", "k.pem"] if command == "sign" else ["--out-dir", "card"]
    proc = _cli(command, "--scorecard", str(card), *args, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "too long to read as a number" in lines[0] and str(card) in lines[0]


def test_a_5000_digit_number_in_an_envelope_is_a_malformed_envelope(signed):
    tmp_path, card, envelope = signed
    data = json.loads(envelope.read_text(encoding="utf-8"))
    envelope.write_text(json.dumps(data)[:-1] + ', "n": 1' + "0" * 5000 + "}", encoding="utf-8")
    proc = _cli("verify", "--scorecard", str(card), cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.startswith("failed: malformed envelope: an integer with more than")

