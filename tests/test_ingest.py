"""The streaming ingest: no C helper gives exactly what the C helper gives (worker processes: tests/engines/)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from shared import c_helper_built, evidence_hash_of, python_paths

import scorekit as sk

COMPARED = ("decision", "dimensions", "validation", "hashes", "findings", "controls", "coverage", "judges")


def _card(path, **kwargs):
    card = sk.evaluate(path, **kwargs)
    return {key: card.to_dict()[key] for key in COMPARED}, card.evidence


def _write_rows(path: Path, n_cases: int = 5000) -> Path:
    """25,000 rows with problems spread across the file: bad
    lines, blank lines, an id and a trial claimed twice far apart, one case
    with two definitions, unlabeled rows, a nested repeated key, controls."""
    lines = []
    for case in range(n_cases):
        dimension = ("task_completion", "cost", "action_correctness", "pii", "tool_call", "helpfulness")[case % 6]
        for trial in range(5):
            row = {"id": f"c{case}-t{trial}", "case_id": f"c{case}", "dimension": dimension, "trial": trial}
            if dimension == "task_completion":
                row.update(must_include=["done"], agent_output="done" if (case + trial) % 7 else "no")
            elif dimension == "cost":
                row.update(cost_budget_usd=0.05, cost_usd=0.01 * (trial + case % 3))
            elif dimension == "action_correctness":
                row.update(expected_actions=["a", "b"], agent_actions=["a", "b"] if trial else ["b"],
                           expected_state={"x": {"id": 1}}, observed_state={"x": {"id": 1, "y": 2}})
            elif dimension == "pii":
                row["agent_output"] = "call 415-555-0199" if case % 11 == 0 else "fine"
            elif dimension == "tool_call":  # contracts memoised per case definition, in each process
                row.update(
                    tool_schemas={
                        "send": {
                            "type": "object",
                            "properties": {"to": {"type": "string"}},
                            "required": ["to"],
                            "maxProperties": 1 if case % 5 == 0 else 2,
                        }
                    },
                    tool_calls=[{"name": "send", "arguments": {"to": "a", "cc": "b"} if trial == 4 else {"to": "a"}}],
                )
            else:  # judged: votes from a panel, one case judged by a mock
                judge = "mock-judge" if case in (5, 4997) else "judge-b"  # one near each end of the file
                row.update(judge_criteria="polite", agent_output="thanks",
                           judge_votes=[{"judge": "judge-a", "verdict": "PASS"}, {"judge": judge, "verdict": "PASS"}])
            if case == 17:
                row["tags"] = ["known-bad"]
            if case % 997 == 5:
                row.pop("must_include", None) if dimension == "task_completion" else row.pop("cost_budget_usd", None)
            lines.append(json.dumps(row))
    lines[3] = "{not json"
    lines[40] = ""
    lines[-2] = json.dumps({"id": "c1-t1", "case_id": "c1x", "dimension": "cost", "trial": 0, "cost_budget_usd": 1,
                            "cost_usd": 0.5})  # an id claimed again at the far end
    repeated = max(i for i, line in enumerate(lines) if '"agent_output": "fine"' in line)
    lines[repeated] = lines[repeated].replace('"agent_output": "fine"', '"agent_output": "fine", "agent_output": "bad"')
    nested = max(i for i, line in enumerate(lines) if '"observed_state"' in line)
    lines[nested] = lines[nested].replace(
        '"observed_state": {"x": {"id": 1', '"observed_state": {"x": {"id": 1, "id": 3'
    )
    conflicting = json.loads(lines[-7])
    conflicting["case_id"] = "c0"
    conflicting["id"] = "c0-t9"
    conflicting["trial"] = 9
    conflicting["dimension"] = "task_completion"
    conflicting["must_include"] = ["other"]
    lines[-7] = json.dumps(conflicting)  # case c0 with a second definition, far from its first rows
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def many_rows(tmp_path_factory):
    path = _write_rows(tmp_path_factory.mktemp("ingest") / "rows.jsonl")
    assert len(path.read_text().splitlines()) == 25_000
    return path


@pytest.fixture(scope="module")
def one_process(many_rows):
    saved = os.environ.get("SCOREKIT_WORKERS")
    os.environ["SCOREKIT_WORKERS"] = "1"
    try:
        return _card(many_rows)
    finally:
        if saved is None:
            os.environ.pop("SCOREKIT_WORKERS")
        else:
            os.environ["SCOREKIT_WORKERS"] = saved


def _assert_same(card, expected):
    summary, evidence = card
    want_summary, want_evidence = expected
    for key in COMPARED:
        assert summary[key] == want_summary[key], key
    assert evidence.equals(want_evidence)


def test_the_corpus_covers_what_it_should(one_process):
    summary, evidence = one_process
    problems = [(p["field"], p["message"]) for p in summary["validation"]["problems"]]
    repeated = {field for field, message in problems if message.startswith("duplicate key")}
    assert repeated == {"agent_output", "id"}  # a top-level and a nested repeat
    assert any(field == "row" and "not valid JSON" in message for field, message in problems)
    assert any(field == "id" and message.startswith("duplicate id") for field, message in problems)
    assert any(field == "case_id" and "more than one definition" in message for field, message in problems)
    assert summary["validation"]["unlabeled"] > 0 and summary["controls"]
    assert summary["decision"] == "SELF_TEST" and {"judge-a", "judge-b"} <= set(summary["judges"])
    reasons = {(f["dimension"], f["reason"]) for f in summary["findings"]}
    assert ("tool_call", "invalid_tool_arguments") in reasons


def test_the_evidence_hash_recomputes_when_rows_changed_status_after_ingest(one_process, tmp_path):
    summary, evidence = one_process  # duplicates and a conflict: their rows became invalid after ingest
    assert summary["hashes"]["evidence"] == evidence_hash_of(evidence)
    clean = tmp_path / "clean.jsonl"
    clean.write_text("".join(json.dumps({"id": f"r{i}", "dimension": "pii", "agent_output": "ok"}) + "\n"
                             for i in range(50)), encoding="utf-8")
    card = sk.evaluate(clean)  # nothing changed after ingest: the sorted runs are used
    assert card.hashes["evidence"] == evidence_hash_of(card.evidence)


@pytest.mark.skipif(not c_helper_built(), reason="the C helper scorekit._speedups is not built")
def test_rows_score_the_same_without_the_c_helper(monkeypatch, many_rows, one_process):
    monkeypatch.setenv("SCOREKIT_WORKERS", "1")
    corpus = sorted((Path(__file__).parent / "data" / "malformed").glob("*.jsonl")) + [sk.example_path()]
    readable = []
    for path in corpus:
        try:
            readable.append((path, _card(path)))
        except sk.InputError:
            continue
    with python_paths():
        for path, expected in readable:
            _assert_same(_card(path), expected)
        _assert_same(_card(many_rows), one_process)


# A directory of results files (the pandas engine): each member read alone, in name order, its
# lines numbered on from the members before it: the one file they make.
_PRESCORED = [
    {"id": f"r{i}", "case_id": f"c{i % 4}", "trial": i // 4, "dimension": "graded", "evaluator": "harness",
     "status": ("PASS", "FAIL", "ERROR")[i % 3]} for i in range(12)
]


def _in(folder: Path, name: str, **kwargs):
    saved = os.getcwd()
    os.chdir(folder)
    try:
        return _card(name, **kwargs)
    finally:
        os.chdir(saved)


def _jsonl_lines() -> list[str]:
    lines = [json.dumps(row) for row in _PRESCORED]
    lines[2] = "{not json"  # an invalid row: its problem names the directory and the line as in the one file
    lines[7] = json.dumps({**_PRESCORED[1], "trial": 9})  # an id claimed twice, across members
    return lines


@pytest.mark.parametrize("limit", [None, 7])
def test_a_directory_of_json_lines_files_reads_as_the_one_file_they_make(tmp_path, limit):
    lines = _jsonl_lines()
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "rows.jsonl").write_text("\n".join(lines[:5] + ["", "  "] + lines[5:]) + "\n", encoding="utf-8")
    parts = tmp_path / "many" / "rows.jsonl"
    (parts / "b").mkdir(parents=True)
    (parts / "a-000.jsonl").write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    (parts / "a-001.jsonl").write_text(lines[3] + "\n" + lines[4], encoding="utf-8")  # no final line break
    (parts / "a-002.jsonl").write_text("\n \n", encoding="utf-8")  # white space only: two lines, no row
    (parts / "b" / "000.ndjson").write_text("\n".join(lines[5:]) + "\n", encoding="utf-8")  # deeper, named later
    kwargs = {} if limit is None else {"limit": limit}
    want = _in(tmp_path / "one", "rows.jsonl", **kwargs)
    assert want[0]["validation"]["problems"]
    _assert_same(_in(tmp_path / "many", "rows.jsonl", **kwargs), want)


def test_a_directory_of_csv_or_parquet_files_reads_as_the_one_file_they_make(tmp_path):
    import pandas as pd

    frame = pd.DataFrame(_PRESCORED)
    for suffix, write in ((".csv", lambda f, p: f.to_csv(p, index=False)),
                          (".parquet", lambda f, p: f.to_parquet(p, index=False))):
        (tmp_path / "one").mkdir(exist_ok=True)
        write(frame, tmp_path / "one" / f"rows{suffix}")
        parts = tmp_path / "many" / f"rows{suffix}"
        parts.mkdir(parents=True)
        for n, (a, b) in enumerate([(0, 5), (5, 5), (5, 12)]):  # an empty member in the middle
            if suffix == ".parquet" or a < b:
                write(frame.iloc[a:b], parts / f"part-{n}{suffix}")
        _assert_same(_in(tmp_path / "many", f"rows{suffix}"), _in(tmp_path / "one", f"rows{suffix}"))


def test_a_directory_of_no_rows_or_of_two_kinds_is_refused_in_one_line(tmp_path):
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / "a.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(sk.InputError, match="empty files, no rows"):
        sk.evaluate(tmp_path / "blank")
    (tmp_path / "mixed").mkdir()
    (tmp_path / "mixed" / "a.jsonl").write_text(json.dumps(_PRESCORED[0]) + "\n", encoding="utf-8")
    (tmp_path / "mixed" / "b.csv").write_text("id,dimension,status,evaluator\nb,graded,PASS,h\n", encoding="utf-8")
    with pytest.raises(sk.InputError, match="CSV and JSON Lines files"):
        sk.evaluate(tmp_path / "mixed")
    (tmp_path / "none").mkdir()
    with pytest.raises(sk.InputError, match="no Parquet, CSV or JSON Lines files"):
        sk.evaluate(tmp_path / "none")
