"""A JSON array file of row objects is read as rows (SPEC §2).

Each element is checked as a JSON Lines row (strict JSON: duplicate keys,
NaN/Infinity, unsafe integers refused) and its problems read
``file:LINE: field: message`` with LINE the line the element starts on. A JSON
document that is not an array of rows is an input error naming what it is.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from shared import scorekit_process

import scorekit as sk
from scorekit._errors import InputError
from scorekit._rows import read_row_table

ROOT = Path(__file__).resolve().parents[2]
POLICY = str(sk.example_path(file="policy.yml"))


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return scorekit_process(*args, cwd=cwd)


def _example_rows() -> list[dict]:
    return [json.loads(line) for line in sk.example_path().read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_pretty_printed_json_array_scores_as_its_json_lines(tmp_path):
    rows = _example_rows()
    array = tmp_path / "results.json"
    array.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    lines = tmp_path / "results.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    from_array = sk.evaluate(array, policy=POLICY).to_dict()
    from_lines = sk.evaluate(lines, policy=POLICY).to_dict()
    assert from_array["validation"]["invalid"] == 0 and from_array["validation"]["problems"] == []
    for key in ("decision", "dimensions", "hashes", "findings", "controls"):
        assert from_array[key] == from_lines[key], key


def test_a_one_line_json_array_is_read_as_rows(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps([{"id": "a", "dimension": "helpfulness", "status": "PASS", "evaluator": "h"},
                                {"id": "b", "dimension": "helpfulness", "status": "FAIL", "evaluator": "h"}]),
                    encoding="utf-8")
    frame = sk.read_rows(path)
    assert list(frame["id"]) == ["a", "b"] and list(frame["status"]) == ["PASS", "FAIL"]


ARRAY_WITH_PROBLEMS = """[
  {"id": "ok1", "dimension": "helpfulness", "status": "PASS", "evaluator": "h"},
  {
    "id": "dup",
    "dimension": "helpfulness",
    "status": "PASS",
    "evaluator": "h",
    "status": "FAIL"
  },
  {"id": "nan", "dimension": "helpfulness", "status": "PASS", "evaluator": "h", "cost_usd": NaN},
  ["not", "an", "object"],
  {"id": "big", "dimension": "helpfulness", "status": "PASS", "evaluator": "h", "input": 12345678901234567890},
  {"id": "odd", "dimension": "helpfulness", "status": "MAYBE", "evaluator": "h"},
  {"id": "ok1", "dimension": "helpfulness", "status": "PASS", "evaluator": "h"}
]
"""


def test_array_element_problems_name_the_line_the_element_starts_on(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(ARRAY_WITH_PROBLEMS, encoding="utf-8")
    table = read_row_table(path)
    found = [(p.line, p.field) for p in table.problems]
    # ok1 appears twice (lines 2 and 14): every claimant of an id is invalid.
    assert found == [(2, "id"), (3, "status"), (10, "cost_usd"), (11, "row"), (12, "input"), (13, "status"), (14, "id")]
    assert "duplicate key" in table.problems[1].message
    assert list(table.frame["id"]) == [] and list(table.lines) == []


def test_validate_lists_array_problems_as_file_line_field_message(tmp_path):
    (tmp_path / "results.json").write_text(ARRAY_WITH_PROBLEMS, encoding="utf-8")
    proc = _cli("validate", "results.json", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    out = proc.stdout.splitlines()
    # Every row sharing the id ok1 is invalid in an evaluation (lines 2 and 14).
    assert out[0].startswith("results.json: 0 labeled, 0 unlabeled, 7 invalid")
    assert [line.split(": ")[0] for line in out[1:]] == [f"results.json:{n}" for n in (2, 3, 10, 11, 12, 13, 14)]


@pytest.mark.parametrize(
    ("document", "named"),
    [
        ({"eval": {"task": "t", "model": "m"}, "samples": [], "version": 2}, "an Inspect AI eval log"),
        ({"evalId": "x", "results": {"results": []}, "config": {}}, "a promptfoo eval output"),
        ({"info": {}, "tasks": [], "simulations": []}, "a τ²-bench results file"),
        ([{"task_id": 1, "trial": 0, "reward": 1.0, "info": {}, "traj": []}], "τ-bench results"),
        ({"schema_version": 1, "decision": "PASS", "dimensions": []}, "a scorekit scorecard.json"),
        ({"rows": [{"id": "a"}]}, "a single JSON object (keys 'rows')"),
        ({"id": "a", "dimension": "helpfulness", "status": "PASS", "evaluator": "h"}, "a single JSON object"),
        ([], "an empty JSON array"),
    ],
)
def test_a_json_document_that_is_not_rows_is_an_input_error_naming_it(tmp_path, document, named):
    (tmp_path / "results.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
    with pytest.raises(InputError, match="results.json: ") as info:
        read_row_table(tmp_path / "results.json")
    assert named in str(info.value) and info.value.problems == []
    proc = _cli("run", "--results", "results.json", "--gate", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    # Another tool's file: the CLI names the format and --from (SPEC §15); otherwise what the reader said.
    foreign = ("Inspect", "promptfoo", "τ")
    kind = named.removeprefix("an ").removeprefix("a ")
    if kind.startswith(foreign):
        assert "another tool's format" in proc.stderr and (named in proc.stderr or "--from" in proc.stderr)
    else:
        assert named in proc.stderr
    assert not (tmp_path / "reports" / "scorecard.json").exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[\n  {"id": "a"},\n  {"id": \n]\n', "results.json:4: not valid JSON (Expecting value"),
        ('[\n  {"id": "a"},\n]\n', "results.json:3: not valid JSON (Expecting value"),
        (
            '{\n  "id": "a",\n  "dimension": "x"\n}\n{\n  "id": "b"\n}\n',
            "not JSON Lines (its first value spans lines 1-4",
        ),
    ],
)
def test_a_json_document_that_cannot_be_read_names_its_line(tmp_path, text, expected):
    (tmp_path / "results.json").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_row_table(tmp_path / "results.json")
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_json_lines_with_a_broken_first_row_is_still_read_row_by_row(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"id": "a", "dimension": "helpfulness", "status": \n'
                    '{"id": "b", "dimension": "helpfulness", "status": "PASS", "evaluator": "h"}\n', encoding="utf-8")
    table = read_row_table(path)
    assert [(p.line, p.field) for p in table.problems] == [(1, "row")]
    assert list(table.frame["id"]) == ["b"]
