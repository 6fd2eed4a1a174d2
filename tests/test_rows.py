"""Reading result rows: scorekit.read_rows and scorekit._rows.read_row_table (SPEC §2, §5)."""

from __future__ import annotations

import csv
import io
import json
import json as _json
from pathlib import Path

import numpy as np
import orjson as _orjson
import pandas as pd
import pytest
from hypothesis import given as _given
from hypothesis import strategies as _st
from shared import ROWS_DATA

import scorekit
import scorekit as sk
from scorekit import InputError, Problem, ScorekitError, read_rows
from scorekit._rows import FileLines, _formats, _screens, read_row_table, text_is_clean
from scorekit._rows._screens import may_repeat_a_key as _may_repeat_a_key

# --------------------------------------------------------------------------- the malformed corpus
# file -> (expected (line, field) of every problem in source order, ids of the good rows)
CORPUS: dict[str, tuple[list[tuple[int, str]], list[str]]] = {
    "bad_json_line.jsonl": ([(2, "row"), (4, "row"), (5, "row")], ["ok1", "ok2"]),
    "not_object.jsonl": ([(2, "row"), (3, "row"), (4, "row"), (5, "row")], ["ok1", "ok2"]),
    "missing_id.jsonl": (
        [(2, "id"), (3, "dimension"), (4, "id"), (5, "id"), (7, "id"), (7, "dimension")],
        ["ok1", "ok2"],
    ),
    "duplicate_id.jsonl": ([(1, "id"), (2, "id"), (3, "id"), (5, "id"), (6, "id")], ["r3"]),
    "unknown_status.jsonl": ([(2, "status"), (3, "status"), (4, "status")], ["ok1", "ok2"]),
    "unknown_match.jsonl": ([(2, "match"), (3, "match")], ["ok1", "ok2"]),
    "nan.jsonl": ([(2, "cost_usd"), (3, "observed_state.count"), (4, "input[1]")], ["ok1", "ok2"]),
    "infinity.jsonl": (
        [(2, "latency_ms"), (3, "latency_budget_ms"), (4, "context.x"), (5, "cost_usd")],
        ["ok1", "ok2"],
    ),
    "huge_int.jsonl": ([(2, "trial"), (3, "input.account"), (4, "usage.tokens")], ["ok1", "ok2"]),
    "wrong_types.jsonl": (
        [
            (2, "id"),
            (3, "dimension"),
            (4, "trial"),
            (5, "trial"),
            (6, "trial"),
            (7, "tags"),
            (8, "agent_output"),
            (9, "tool_calls"),
            (10, "tool_calls"),
            (11, "should_refuse"),
            (12, "cost_usd"),
            (13, "cost_budget_usd"),
            (14, "judge_votes"),
            (15, "forbidden_actions"),
            (16, "must_include"),
            (17, "tool_schemas"),
            (18, "trial_id"),
            (19, "case_id"),
            (20, "usage"),
            (22, "trial"),
            (22, "tags"),
        ],
        ["ok1", "ok2"],
    ),
    "status_without_evaluator.jsonl": ([(2, "evaluator"), (3, "evaluator"), (4, "evaluator")], ["ok1", "ok2"]),
}

FILE_LEVEL = ["empty.jsonl", "whitespace_only.jsonl", "not_utf8.jsonl", "policy.yml", "policy_as.jsonl",
              "not_parquet.parquet"]


def _problems(path) -> list[Problem]:
    with pytest.raises(InputError) as info:
        read_rows(path)
    return info.value.problems


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_malformed_rows_are_reported_with_line_and_field(name):
    path = ROWS_DATA / name
    expected, _ = CORPUS[name]
    problems = _problems(path)
    assert [(p.line, p.field) for p in problems] == expected


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_problem_str_is_file_line_field_message(name):
    path = ROWS_DATA / name
    for problem in _problems(path):
        assert isinstance(problem, Problem)
        assert problem.source == str(path)
        assert problem.message and "\n" not in problem.message
        assert str(problem) == f"{path}:{problem.line}: {problem.field}: {problem.message}"


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_good_rows_of_a_malformed_file_are_still_read(name):
    path = ROWS_DATA / name
    expected_problems, good_ids = CORPUS[name]
    table = read_row_table(path)
    assert table.frame["id"].tolist() == good_ids
    assert [(p.line, p.field) for p in table.problems] == expected_problems
    # every good row knows its source line, and no rejected line is among them
    assert len(table.lines) == len(good_ids)
    assert not set(table.lines.tolist()) & {line for line, _ in expected_problems}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_rejected_row_is_listed_as_invalid_once(name):
    table = read_row_table(ROWS_DATA / name)
    bad_lines = sorted({line for line, _ in CORPUS[name][0]})
    assert [record["line"] for record in table.invalid] == bad_lines


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_input_error_message_lists_every_problem(name):
    path = ROWS_DATA / name
    with pytest.raises(InputError) as info:
        read_rows(path)
    message = str(info.value)
    problems = info.value.problems
    assert str(path) in message
    assert f"{len({p.line for p in problems})} row(s)" in message
    for problem in problems[:20]:
        assert str(problem) in message
    if len(problems) > 20:  # wrong_types.jsonl: the message is capped, .problems is not
        assert f"and {len(problems) - 20} more" in message


def test_all_problems_are_listed_not_just_the_first(tmp_path):
    path = tmp_path / "many.jsonl"
    lines = ['{"id": "ok", "dimension": "pii"}'] + [f'{{"id": "b{i}", "dimension": 5}}' for i in range(30)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = _problems(path)
    assert [(p.line, p.field) for p in problems] == [(i, "dimension") for i in range(2, 32)]
    assert [p.row_id for p in problems] == [f"b{i}" for i in range(30)]


def test_long_problem_lists_are_shortened_in_the_message_but_complete_in_problems(tmp_path):
    path = tmp_path / "many.jsonl"
    path.write_text("".join(f'{{"id": "b{i}"}}\n' for i in range(25)), encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_rows(path)
    assert len(info.value.problems) == 25
    assert "and 5 more" in str(info.value)


def test_a_row_with_several_problems_reports_each_field():
    problems = read_row_table([{"id": 3, "dimension": None, "trial": "x", "tags": 5}]).problems
    assert sorted((p.line, p.field) for p in problems) == [(1, "dimension"), (1, "id"), (1, "tags"), (1, "trial")]


def test_duplicate_id_is_reported_with_every_line():
    problems = _problems(ROWS_DATA / "duplicate_id.jsonl")
    assert [p.row_id for p in problems] == ["r1", "r2", "r1", "r2", "r1"]
    assert "duplicate id 'r1' (lines 1, 3, 6)" in problems[0].message
    assert "duplicate id 'r2' (lines 2, 5)" in problems[1].message


def test_duplicate_id_makes_every_claimant_invalid():
    # Which of two rows claiming one id is right cannot be known: none counts
    # (the same rule evaluate() applies; before issue 11 the first one won here).
    table = read_row_table(ROWS_DATA / "duplicate_id.jsonl")
    assert table.frame["id"].tolist() == ["r3"]
    assert table.lines.tolist() == [4]


def test_id_of_an_invalid_row_is_still_reserved():
    table = read_row_table([{"id": "a", "dimension": "pii", "trial": -1}, {"id": "a", "dimension": "pii"}])
    assert [(p.line, p.field) for p in table.problems] == [(1, "trial"), (2, "id")]
    assert table.frame.empty


def test_repeated_trial_makes_both_rows_invalid():
    rows = [{"id": "a", "dimension": "pii", "case_id": "c", "trial": 0, "agent_output": "x"},
            {"id": "b", "dimension": "pii", "case_id": "c", "trial": 0, "agent_output": "y"},
            {"id": "c", "dimension": "pii", "case_id": "c", "trial": 1, "agent_output": "z"}]
    table = read_row_table(rows)
    assert [(p.line, p.field) for p in table.problems] == [(1, "trial"), (2, "trial")]
    assert table.frame["id"].tolist() == ["c"]


DUPLICATE_CORPUS = [
    {"id": "r1", "dimension": "pii", "agent_output": "a"},
    {"id": "r2", "dimension": "pii", "agent_output": "a"},
    {"id": "r1", "dimension": "cost", "cost_usd": 1, "cost_budget_usd": 2},
    {"id": "t0", "dimension": "pii", "case_id": "k", "trial": 0, "agent_output": "a"},
    {"id": "t1", "dimension": "pii", "case_id": "k", "trial": 0, "agent_output": "b"},
    {"id": "t2", "dimension": "pii", "case_id": "k", "trial": 1, "agent_output": "b"},
    {"id": "bad", "dimension": "pii", "trial": -1},
    {"id": "bad", "dimension": "pii", "agent_output": "a"},
]


def test_read_rows_and_evaluate_agree_on_duplicate_ids_and_repeated_trials():
    # One rule (scorekit._validate.duplicate_identities), applied by both readers.
    table = read_row_table(DUPLICATE_CORPUS)
    card = scorekit.evaluate(DUPLICATE_CORPUS, policy={"purpose": "exploratory"})
    invalid_lines = sorted(card.evidence.loc[card.evidence["label"] == "invalid", "line"].tolist())
    assert sorted(i["line"] for i in table.invalid) == invalid_lines == [1, 3, 4, 5, 7, 8]
    assert [(p.line, p.field, p.message) for p in table.problems] == [
        (p.line, p.field, p.message) for p in card.validation.problems
    ]


def test_unknown_status_message_names_the_value_and_the_allowed_statuses():
    problem = _problems(ROWS_DATA / "unknown_status.jsonl")[0]
    assert "'pass'" in problem.message
    for status in ("PASS", "FAIL", "ERROR", "ABSTAIN"):
        assert status in problem.message


def test_unknown_match_message_names_the_value_and_the_modes():
    problem = _problems(ROWS_DATA / "unknown_match.jsonl")[0]
    assert "'fuzzy'" in problem.message
    for mode in ("ordered", "exact", "set"):
        assert mode in problem.message


def test_huge_integer_message_names_the_limit():
    problem = _problems(ROWS_DATA / "huge_int.jsonl")[0]
    assert "9007199254740992" in problem.message
    assert "2^53" in problem.message


def test_largest_safe_integer_is_accepted():
    frame = read_row_table(ROWS_DATA / "huge_int.jsonl").frame
    assert frame.set_index("id").loc["ok2", "trial"] == 2**53 - 1


def test_invalid_records_carry_the_identity_that_could_be_read():
    table = read_row_table(ROWS_DATA / "unknown_status.jsonl")
    assert table.invalid[0] == {"line": 2, "id": "s1", "dimension": "helpfulness"}
    assert read_row_table(ROWS_DATA / "bad_json_line.jsonl").invalid[0] == {"line": 2}


def test_problems_carry_the_row_id_when_readable():
    problems = _problems(ROWS_DATA / "status_without_evaluator.jsonl")
    assert [p.row_id for p in problems] == ["e1", "e2", "e3"]


def test_pre_scored_status_needs_an_evaluator():
    problems = read_row_table([{"id": "a", "dimension": "helpfulness", "status": "PASS"}]).problems
    assert [(p.field, p.line) for p in problems] == [("evaluator", 1)]
    assert "evaluator" in problems[0].message


# --------------------------------------------------------------------------- file-level errors
@pytest.mark.parametrize("name", FILE_LEVEL)
def test_unreadable_file_is_an_input_error_without_problems(name):
    path = ROWS_DATA / name
    with pytest.raises(InputError) as info:
        read_rows(path)
    assert info.value.problems == []
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message


def test_missing_file_is_an_input_error_naming_the_file(tmp_path):
    path = tmp_path / "nope.jsonl"
    with pytest.raises(InputError, match="no such file") as info:
        read_rows(path)
    assert info.value.problems == [] and str(path) in str(info.value) and "\n" not in str(info.value)


def test_directory_is_an_input_error_naming_it(tmp_path):
    with pytest.raises(InputError, match="directory") as info:
        read_rows(tmp_path)
    assert info.value.problems == [] and str(tmp_path) in str(info.value)


@pytest.mark.parametrize(("name", "words"), [("empty.jsonl", "empty"), ("whitespace_only.jsonl", "empty"),
                                             ("not_utf8.jsonl", "UTF-8"), ("policy.yml", "JSON Lines"),
                                             ("policy_as.jsonl", "JSON Lines"), ("not_parquet.parquet", "Parquet")])
def test_file_level_error_says_what_is_wrong(name, words):
    with pytest.raises(InputError, match=words):
        read_rows(ROWS_DATA / name)


def test_bom_only_file_is_empty(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf\r\n")
    with pytest.raises(InputError, match="empty"):
        read_rows(path)


def test_empty_csv_is_an_input_error(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")
    with pytest.raises(InputError) as info:
        read_rows(path)
    assert info.value.problems == []


def test_header_only_csv_is_an_input_error(tmp_path):
    path = tmp_path / "header.csv"
    path.write_text("id,dimension,status\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty|no rows"):
        read_rows(path)


def test_empty_parquet_is_an_input_error(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "empty.parquet"
    pq.write_table(pa.table({"id": pa.array([], pa.string()), "dimension": pa.array([], pa.string())}), path)
    with pytest.raises(InputError, match="empty") as info:
        read_rows(path)
    assert info.value.problems == []


def test_input_error_is_a_value_error_and_a_scorekit_error():
    assert issubclass(InputError, ValueError)
    assert issubclass(InputError, ScorekitError)
    with pytest.raises(ValueError):
        read_rows(ROWS_DATA / "empty.jsonl")
    with pytest.raises(ScorekitError):
        read_rows(ROWS_DATA / "nan.jsonl")


def test_unsupported_source_type_is_a_type_error():
    with pytest.raises(TypeError, match="source"):
        read_rows(42)


def test_unknown_format_is_rejected(tmp_path):
    path = tmp_path / "rows.txt"
    path.write_text('{"id": "a", "dimension": "pii"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="format"):
        read_rows(path, format="yaml")


# --------------------------------------------------------------------------- one frame from every source
ROWS = [
    {
        "id": "r1",
        "dimension": "task_completion",
        "case_id": "c1",
        "trial": 0,
        "status": "PASS",
        "evaluator": "harness-v1",
        "tags": ["smoke"],
        "input": {"q": "Summarise the thread, please"},
        "agent_output": 'Done, "quoted", with a comma',
        "must_include": ["thread"],
        "cost_usd": 0.25,
        "should_refuse": False,
    },
    {
        "id": "r2",
        "dimension": "task_completion",
        "case_id": "c1",
        "trial": 1,
        "status": "FAIL",
        "evaluator": "harness-v1",
        "tags": ["smoke"],
        "input": {"q": "Summarise the thread, please"},
        "agent_output": "multi\nline output",
        "must_include": ["thread"],
        "cost_usd": 1.5,
        "should_refuse": False,  # one case, one definition (as r1)
    },
    {
        "id": "r3",
        "dimension": "tool_call",
        "case_id": None,
        "trial": 0,
        "status": None,
        "evaluator": None,
        "tags": ["known-bad"],
        "input": {"q": "Send it"},
        "agent_output": "sent",
        "must_include": None,
        "cost_usd": None,
        "should_refuse": True,
    },
    {
        "id": "r4",
        "dimension": "pii",
        "case_id": "c4",
        "trial": 2,
        "status": "ERROR",
        "evaluator": "harness-v1",
        "tags": ["negative-example", "x"],
        "input": {"q": "café ünïcode ✓"},
        "agent_output": "x",
        "must_include": None,
        "cost_usd": 3.0,
        "should_refuse": None,
    },
]
JSON_FIELDS = ("tags", "input", "must_include")


def _present(row):
    return {k: v for k, v in row.items() if v is not None}


def _write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(_present(r), ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _write_csv(path: Path, rows, newline: str = "\n", bom: bool = False) -> Path:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator=newline)
    writer.writeheader()
    for row in rows:
        cells = {}
        for key, value in row.items():
            if value is None:
                cells[key] = ""
            elif key in JSON_FIELDS:
                cells[key] = json.dumps(value, ensure_ascii=False)
            elif isinstance(value, bool):
                cells[key] = "true" if value else "false"
            else:
                cells[key] = str(value)
        writer.writerow(cells)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + buffer.getvalue().encode("utf-8"))
    return path


def _write_parquet(path: Path, rows) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


@pytest.fixture
def reference() -> pd.DataFrame:
    return read_rows([dict(r) for r in ROWS])


@pytest.mark.parametrize("kind", ["jsonl", "csv", "csv_bom_crlf", "parquet", "dataframe", "list_without_nulls"])
def test_every_source_gives_the_same_normalised_frame(kind, tmp_path, reference):
    if kind == "jsonl":
        source = _write_jsonl(tmp_path / "rows.jsonl", ROWS)
    elif kind == "csv":
        source = _write_csv(tmp_path / "rows.csv", ROWS)
    elif kind == "csv_bom_crlf":
        source = _write_csv(tmp_path / "rows.csv", ROWS, newline="\r\n", bom=True)
    elif kind == "parquet":
        source = _write_parquet(tmp_path / "rows.parquet", ROWS)
    elif kind == "dataframe":
        source = pd.DataFrame(ROWS)
    else:
        source = [_present(r) for r in ROWS]
    frame = read_rows(source)
    pd.testing.assert_frame_equal(frame, reference)


def test_jsonl_and_path_string_give_the_same_frame(tmp_path, reference):
    path = _write_jsonl(tmp_path / "rows.jsonl", ROWS)
    pd.testing.assert_frame_equal(read_rows(str(path)), reference)


def test_format_argument_overrides_the_suffix(tmp_path, reference):
    jsonl = _write_jsonl(tmp_path / "rows.txt", ROWS)
    csv_path = _write_csv(tmp_path / "rows.data", ROWS)
    pd.testing.assert_frame_equal(read_rows(jsonl, format="jsonl"), reference)
    pd.testing.assert_frame_equal(read_rows(csv_path, format="csv"), reference)


def test_read_rows_is_idempotent_on_its_own_output(reference):
    pd.testing.assert_frame_equal(read_rows(reference), reference)


def test_normalised_columns_come_first(reference):
    assert reference.columns[:5].tolist() == ["id", "dimension", "case_id", "trial", "status"]
    assert "control" in reference.columns


def test_status_is_categorical_with_the_four_statuses(reference):
    dtype = reference["status"].dtype
    assert isinstance(dtype, pd.CategoricalDtype)
    assert list(dtype.categories) == ["PASS", "FAIL", "ERROR", "ABSTAIN"]
    assert not dtype.ordered
    assert reference["status"].tolist()[:2] == ["PASS", "FAIL"]
    assert pd.isna(reference["status"].iloc[2])


def test_status_is_categorical_even_when_no_row_is_pre_scored():
    frame = read_rows([{"id": "a", "dimension": "pii"}])
    assert list(frame["status"].dtype.categories) == ["PASS", "FAIL", "ERROR", "ABSTAIN"]
    assert frame["status"].isna().all()


def test_trial_is_nullable_int64(reference):
    assert reference["trial"].dtype == "Int64"
    assert reference["trial"].tolist() == [0, 1, 0, 2]
    frame = read_rows([{"id": "a", "dimension": "pii"}, {"id": "b", "dimension": "pii", "trial": 4}])
    assert frame["trial"].dtype == "Int64"
    assert pd.isna(frame["trial"].iloc[0]) and frame["trial"].iloc[1] == 4


def test_trial_id_is_an_alias_of_trial():
    frame = read_rows([{"id": "a", "dimension": "pii", "trial_id": 3}])
    assert frame["trial"].tolist() == [3]
    assert frame["trial"].dtype == "Int64"
    assert "trial_id" not in frame.columns


def test_trial_id_equal_to_trial_is_accepted():
    frame = read_rows([{"id": "a", "dimension": "pii", "trial": 3, "trial_id": 3}])
    assert frame["trial"].tolist() == [3]


def test_trial_id_conflicting_with_trial_is_a_problem():
    problems = read_row_table([{"id": "a", "dimension": "pii", "trial": 3, "trial_id": 4}]).problems
    assert [(p.line, p.field) for p in problems] == [(1, "trial_id")]


def test_trial_id_alias_in_csv(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("id,dimension,trial_id\na,pii,2\n", encoding="utf-8")
    frame = read_rows(path)
    assert frame["trial"].tolist() == [2] and frame["trial"].dtype == "Int64"


def test_case_id_defaults_to_id(reference):
    assert reference["case_id"].tolist() == ["c1", "c1", "r3", "c4"]
    assert reference["case_id"].notna().all()


def test_case_id_defaults_to_id_when_no_row_has_one():
    frame = read_rows([{"id": "a", "dimension": "pii"}, {"id": "b", "dimension": "pii"}])
    assert frame["case_id"].tolist() == ["a", "b"]


def test_control_is_true_for_known_bad_and_negative_example_tags(reference):
    assert reference["control"].dtype == bool
    assert reference["control"].tolist() == [False, False, True, True]


def test_control_is_false_without_tags():
    frame = read_rows([{"id": "a", "dimension": "pii"}])
    assert frame["control"].dtype == bool and frame["control"].tolist() == [False]


def test_string_fields_are_pandas_strings(reference):
    for column in ("id", "dimension", "case_id", "evaluator", "agent_output"):
        assert pd.api.types.is_string_dtype(reference[column].dtype), column


def test_number_and_boolean_fields_are_typed(reference):
    assert reference["cost_usd"].dtype == np.float64
    assert reference["should_refuse"].dtype == "boolean"
    refuse = reference["should_refuse"]
    assert refuse.isna().tolist() == [False, False, False, True]
    assert bool(refuse.iloc[0]) is False and bool(refuse.iloc[2]) is True
    assert reference["cost_usd"].isna().tolist() == [False, False, True, False]


def test_structured_fields_keep_their_json_values(reference):
    assert reference["input"].iloc[0] == {"q": "Summarise the thread, please"}
    assert reference["tags"].iloc[3] == ["negative-example", "x"]
    assert reference["agent_output"].iloc[1] == "multi\nline output"


def test_null_means_absent():
    frame = read_rows([{"id": "a", "dimension": "pii", "status": None, "case_id": None, "trial": None}])
    assert frame["case_id"].tolist() == ["a"]
    assert pd.isna(frame["trial"].iloc[0]) and pd.isna(frame["status"].iloc[0])


def test_utf8_bom_is_accepted(tmp_path, reference):
    path = tmp_path / "bom.jsonl"
    text = "".join(json.dumps(_present(r), ensure_ascii=False) + "\n" for r in ROWS)
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    pd.testing.assert_frame_equal(read_rows(path), reference)


def test_crlf_line_endings_are_accepted(tmp_path, reference):
    path = tmp_path / "crlf.jsonl"
    text = "".join(json.dumps(_present(r), ensure_ascii=False) + "\r\n" for r in ROWS)
    path.write_bytes(text.encode("utf-8"))
    pd.testing.assert_frame_equal(read_rows(path), reference)


def test_blank_lines_are_skipped_and_line_numbers_stay_physical(tmp_path, reference):
    path = tmp_path / "blank.jsonl"
    lines = ["", json.dumps(_present(ROWS[0])), "   ", "\t", json.dumps(_present(ROWS[1])), "",
             json.dumps(_present(ROWS[2])), json.dumps(_present(ROWS[3])), "", ""]
    path.write_bytes(("\r\n".join(lines)).encode("utf-8"))
    table = read_row_table(path)
    pd.testing.assert_frame_equal(table.frame, reference)
    assert table.lines.tolist() == [2, 5, 7, 8]
    assert table.problems == []


def test_problem_lines_count_blank_lines_and_crlf(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": "a", "dimension": "pii"}\r\n\r\n\r\n{"id": "b", "dimension": 1}\r\n')
    problems = _problems(path)
    assert [(p.line, p.field) for p in problems] == [(4, "dimension")]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"], ids=["U+2028", "U+2029", "U+0085"])
def test_unicode_line_separators_inside_json_strings_do_not_split_rows(tmp_path, separator):
    path = tmp_path / "rows.jsonl"
    rows = [{"id": "a", "dimension": "pii", "agent_output": f"one{separator}two"}, {"id": "b", "dimension": "pii"}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    frame = read_rows(path)
    assert frame["agent_output"].iloc[0] == f"one{separator}two"
    assert frame["id"].tolist() == ["a", "b"]


# --------------------------------------------------------------------------- CSV specifics
def test_csv_structured_cells_are_json_text(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text(
        'id,dimension,tags,tool_calls,observed_state,expected_state,cost_usd,should_refuse,trial\n'
        'a,tool_call,"[""known-bad""]","[{""name"": ""send"", ""arguments"": {""to"": ""x""}}]",'
        '"{""sent"": true}",null,0.5,TRUE,3\n',
        encoding="utf-8",
    )
    frame = read_rows(path)
    row = frame.iloc[0]
    assert row["tags"] == ["known-bad"] and bool(row["control"]) is True
    assert row["tool_calls"] == [{"name": "send", "arguments": {"to": "x"}}]
    assert row["observed_state"] == {"sent": True}
    # JSON null is absence, except for the state fields where null is a value
    # ("None only matches None", SPEC §3).
    assert frame.loc[0, "expected_state"] is None
    assert row["cost_usd"] == 0.5 and bool(row["should_refuse"]) is True and row["trial"] == 3


def test_csv_empty_cell_is_an_absent_field(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('id,dimension,agent_output,case_id\na,pii,,\nb,pii,hi,c\n', encoding="utf-8")
    frame = read_rows(path)
    assert pd.isna(frame["agent_output"].iloc[0]) and frame["agent_output"].iloc[1] == "hi"
    assert frame["case_id"].tolist() == ["a", "c"]


def test_csv_problems_name_the_physical_line(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("id,dimension,status\na,pii,PASS\nb,pii,MAYBE\n\nc,pii,\n", encoding="utf-8")
    problems = _problems(path)
    assert [(p.line, p.field) for p in problems] == [(2, "evaluator"), (3, "status")]


def test_csv_row_with_more_cells_than_header_is_a_problem(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("id,dimension\na,pii\nb,pii,extra\n", encoding="utf-8")
    table = read_row_table(path)
    assert [(p.line, p.field) for p in table.problems] == [(3, "row")]
    assert table.frame["id"].tolist() == ["a"]


def test_csv_cell_with_broken_json_is_a_problem_on_its_line(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('id,dimension,tags\na,pii,"[""x"""\nb,pii,"[""y""]"\n', encoding="utf-8")
    table = read_row_table(path)
    assert [p.line for p in table.problems] == [2]
    assert "tags" in str(table.problems[0])
    assert table.frame["id"].tolist() == ["b"]


def test_csv_cell_with_broken_json_names_its_field(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('id,dimension,tags\na,pii,"[""x"""\n', encoding="utf-8")
    problems = _problems(path)
    assert [(p.line, p.field) for p in problems] == [(2, "tags")]


def test_csv_not_utf8_is_an_input_error(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes("id,dimension\na,caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="UTF-8") as info:
        read_rows(path)
    assert info.value.problems == []


# --------------------------------------------------------------------------- DataFrame / list / Parquet specifics
def test_dataframe_problems_use_one_based_row_positions():
    frame = pd.DataFrame({"id": ["a", "b", "c"], "dimension": ["pii", "pii", "pii"],
                          "status": [None, "MAYBE", None]}, index=[10, 20, 30])
    problems = _problems(frame)
    assert [(p.source, p.line, p.field) for p in problems] == [("<DataFrame>", 2, "status")]


def test_list_problems_use_one_based_positions():
    problems = _problems([{"id": "a", "dimension": "pii"}, "not a row", {"id": "c"}])
    assert [(p.source, p.line, p.field) for p in problems] == [("<rows>", 2, "row"), ("<rows>", 3, "dimension")]


def test_dataframe_with_some_rows_lacking_trial_is_accepted():
    rows = [{"id": "a", "dimension": "pii", "trial": 0}, {"id": "b", "dimension": "pii"}]
    frame = pd.DataFrame(rows)
    assert frame["trial"].dtype == np.float64  # how pandas stores an int column with a gap
    pd.testing.assert_frame_equal(read_rows(frame), read_rows(rows))


def test_dataframe_with_nullable_int_trial_is_accepted():
    frame = pd.DataFrame({"id": ["a", "b"], "dimension": ["pii", "pii"], "trial": pd.array([0, None], dtype="Int64")})
    out = read_rows(frame)
    assert out["trial"].dtype == "Int64" and out["trial"].iloc[0] == 0 and pd.isna(out["trial"].iloc[1])


def test_parquet_written_by_pandas_reads_back(tmp_path, reference):
    path = tmp_path / "rows.parquet"
    reference.to_parquet(path)
    pd.testing.assert_frame_equal(read_rows(path), reference)


def test_parquet_tool_call_without_arguments_is_accepted(tmp_path):
    rows = [{"id": "a", "dimension": "tool_call",
             "tool_calls": [{"name": "search", "arguments": {"q": "x"}}, {"name": "noop"}]}]
    assert read_row_table(rows).problems == []
    path = _write_parquet(tmp_path / "rows.parquet", rows)
    assert read_row_table(path).problems == []


def test_list_of_dicts_is_not_mutated():
    rows = [{"id": "a", "dimension": "pii", "trial_id": 1, "status": None}]
    before = json.dumps(rows)
    read_rows(rows)
    assert json.dumps(rows) == before


# --------------------------------------------------------------------------- bundled example
EXAMPLE = Path(sk.__file__).parent / "examples" / "email_assistant" / "results.jsonl"


@pytest.mark.skipif(not EXAMPLE.is_file(), reason="example results not written yet")
def test_bundled_example_reads_without_problems():
    table = read_row_table(sk.example_path())
    assert table.problems == []
    frame = read_rows(sk.example_path())
    assert len(frame) > 0
    assert frame["id"].is_unique
    assert list(frame["status"].dtype.categories) == ["PASS", "FAIL", "ERROR", "ABSTAIN"]


# --------------------------------------------------------------------------- FileLines
@_given(_st.binary(max_size=300).map(lambda b: b.replace(b"\x00", b"\n")), _st.integers(-5, 5), _st.integers(-5, 5))
def test_file_lines_split_exactly_like_bytes_split(data, start, stop):
    lines = FileLines(data)
    expected = data.split(b"\n")
    assert list(lines) == expected and len(lines) == len(expected)
    assert [lines[i] for i in range(len(lines))] == expected
    assert list(lines[start:stop]) == expected[start:stop]


def test_file_lines_clean_check_sees_markers_across_chunk_boundaries(monkeypatch):
    # A marker straddling the 1 MiB window boundary must still be found.
    filler = b'{"a": "x"}\n' * ((1 << 20) // 11)
    data = filler[: (1 << 20) - 2] + b'{"v": NaN}\n'
    assert not text_is_clean(data)
    assert FileLines(data).is_clean() is False
    assert FileLines(filler).is_clean() is True


# --------------------------------------------------------------------------- the orjson fast path
_CLEAN_NUMBERS = _st.one_of(
    _st.integers(-(10**15) + 1, 10**15 - 1),
    _st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: len(repr(f)) < 16),
)
_CLEAN_JSON = _st.recursive(
    _st.none() | _st.booleans() | _CLEAN_NUMBERS | _st.text(max_size=10),
    lambda c: _st.lists(c, max_size=4) | _st.dictionaries(_st.text(max_size=6), c, max_size=4),
    max_leaves=12,
)


@_given(_CLEAN_JSON)
def test_orjson_returns_what_json_returns_on_clean_text(value):
    text = _json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if not text_is_clean(text):
        return  # such text never takes the fast path
    try:
        fast = _orjson.loads(text)
    except _orjson.JSONDecodeError:
        return  # refused (a lone surrogate): the standard decoder takes over
    slow = _json.loads(text)
    assert fast == slow and _json.dumps(fast) == _json.dumps(slow)  # same values and same int/float types


@_given(_st.integers(0, 10**15 - 1), _st.text(alphabet="0123456789", max_size=15), _st.integers(-330, 330))
def test_orjson_rounds_decimal_text_to_the_same_float_as_json(whole, fraction, exponent):
    text = f"{whole}.{fraction or '0'}e{exponent}".encode()
    if not text_is_clean(text):
        return
    fast = _orjson.loads(text) if float(text) != float("inf") else None
    assert fast == _json.loads(text) or fast is None


def test_rows_are_read_the_same_without_orjson(monkeypatch):
    import scorekit as sk

    corpus = sorted((Path(__file__).parent / "data" / "malformed").glob("*.jsonl")) + [sk.example_path()]
    readable = []
    for path in corpus:
        try:
            readable.append((path, sk.evaluate(path).to_dict()))
        except sk.InputError:
            continue
    monkeypatch.setattr(_formats, "_fast_decoder", lambda: (None, ()))
    for path, with_fast in readable:
        without = sk.evaluate(path).to_dict()
        for key in ("decision", "dimensions", "validation", "hashes", "findings", "controls"):
            assert without[key] == with_fast[key], (path.name, key)


# --------------------------------------------------------------------------- repeated top-level keys
_ROW_HEAD = '{"id":"r1","dimension":"pii","evaluator":"h",'


@pytest.mark.parametrize(
    "tail",
    [
        '"status":"PASS","status":"FAIL"}',
        '"status":"PASS","status" :"FAIL"}',  # the repeat has a space before its colon
        '"status":"PASS","st\\u0061tus":"FAIL"}',  # the repeat's name is escaped
        '"x" : 1,"status":"PASS","status":"FAIL"}',  # another key hidden from the count
        '"status":"PASS","status":"FAIL","tool_calls":[{"status" :1}]}',  # a nested key hidden from the count
        '"status":"PASS","status":"FAIL","input":{"\\u0073tatus":1}}',
    ],
)
def test_a_repeated_top_level_key_is_reported_however_it_is_written(tmp_path, tail):
    path = tmp_path / "rows.jsonl"
    path.write_text(_ROW_HEAD + tail + "\n", encoding="utf-8")
    assert _may_repeat_a_key(path.read_bytes().strip(), json.loads(_ROW_HEAD + tail))
    problems = read_row_table(path).problems
    assert [(p.line, p.field) for p in problems] == [(1, "status")] and "duplicate key" in problems[0].message


@pytest.mark.skipif(_screens._c_duplicate_key is None, reason="the Python check parses escaped or spaced text strictly")
@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_nested_keys_named_like_top_level_keys_need_no_strict_parse(ensure_ascii, separators):
    row = {"id": "r1", "status": "PASS", "agent_output": "café \"id\": 1", "input": {"id": 2, "status": "x"},
           "tool_calls": [{"name": "send", "arguments": {"id": 3}}, {"id": 4}]}
    raw = json.dumps(row, ensure_ascii=ensure_ascii, separators=separators).encode()
    assert not _may_repeat_a_key(raw, json.loads(raw))


# --------------------------------------------------------------------------- per-layout check plans
def _reference_field_problems(row):
    """The field checks written plainly: every field with a check, in row order."""
    from scorekit._rows import FIELDS

    out = []
    for name, value in row.items():
        check = FIELDS.get(name)
        message = check(value) if check is not None else None
        if message:
            out.append((name, message))
    return out


_FIELD_VALUES = _st.sampled_from(
    ["x", "", "  ", "\x1c", 3, -1, 2.5, None, True, ["a"], [1], {}, {"a": 1}, "PASS", "set"]
)


@_given(_st.dictionaries(_st.sampled_from(["id", "dimension", "case_id", "trial", "status", "evaluator", "reason",
                                           "agent_output", "judge_criteria", "canary", "tags", "cost_usd", "match",
                                           "input", "usage", "extra"]), _FIELD_VALUES, max_size=9))
def test_field_checks_by_layout_give_the_plain_checks(row):
    from scorekit._rows._normalise import check_row as _check_row

    row = {k: v for k, v in row.items() if v is not None}
    row.setdefault("id", "r")
    row.setdefault("dimension", "task_completion")
    _, problems = _check_row(dict(row), deep=False)
    expected = _reference_field_problems(row)
    assert [p for p in problems if p in expected] == expected  # the same messages, in row order
    others = [p for p in problems if p not in expected]
    # The one other problem such a row can have: a pre-scored status without its evaluator.
    assert all(name == "evaluator" and "pre-scored" in message for name, message in others)


def test_read_rows_and_evaluate_agree_on_case_definition_conflicts():
    # One case cannot have two definitions: read_rows applies the rule evaluate() applies.
    rows = [
        {
            "id": "a",
            "dimension": "task_completion",
            "case_id": "k",
            "trial": 0,
            "must_include": ["x"],
            "agent_output": "x",
        },
        {
            "id": "b",
            "dimension": "task_completion",
            "case_id": "k",
            "trial": 1,
            "must_include": ["y"],
            "agent_output": "x",
        },
        {
            "id": "c",
            "dimension": "task_completion",
            "case_id": "m",
            "trial": 0,
            "must_include": ["x"],
            "agent_output": "x",
        },
    ]
    table = read_row_table(rows)
    card = scorekit.evaluate(rows, policy={"purpose": "exploratory"})
    assert table.frame["id"].tolist() == ["c"]
    assert [(p.line, p.field, p.message) for p in table.problems] == [
        (p.line, p.field, p.message) for p in card.validation.problems
    ]
    assert "must_include" in table.problems[1].message


# --------------------------------------------------------------------------- partial_run (SPEC §2, issue 25 a)
@pytest.mark.parametrize("value", ["true", 1, 0, [True], {"x": True}])
def test_partial_run_that_is_not_true_or_false_makes_the_row_invalid(value):
    table = read_row_table([{"id": "r", "dimension": "d", "status": "PASS", "evaluator": "h", "partial_run": value}])
    assert table.frame.empty
    assert [(p.field, p.message) for p in table.problems] == [("partial_run", table.problems[0].message)]
    assert "expected true or false" in table.problems[0].message


def test_partial_run_reads_from_csv_as_a_boolean(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("id,dimension,status,evaluator,partial_run\na,d,PASS,h,true\nb,d,PASS,h,FALSE\nc,d,PASS,h,\n"
                    "e,d,PASS,h,yes\n")
    table = read_row_table(path)
    assert table.frame["partial_run"].tolist()[:2] == [True, False] and pd.isna(table.frame["partial_run"].iloc[2])
    assert str(table.frame["partial_run"].dtype) == "boolean"
    assert [(p.line, p.field) for p in table.problems] == [(5, "partial_run")]


# --------------------------------------------------------------------------- a crashed sample (SPEC §2, issue 25 b)
def _case_rows(extra: dict | None = None) -> list[dict]:
    rows = [{"id": f"q/{t}", "case_id": "q", "dimension": "match", "trial": t, "status": s, "evaluator": "inspect:m",
             "input": "What is 2 + 2?", "context": {"target": "4"}} for t, s in enumerate(("PASS", "FAIL"))]
    if extra is not None:
        rows.append({"id": "q/2", "case_id": "q", "dimension": "match", "trial": 2, "evaluator": "inspect:m",
                     **extra})
    return rows


@pytest.mark.parametrize("status", ["ERROR", "ABSTAIN"])
def test_an_error_or_abstain_row_without_definition_takes_its_cases_definition(status):
    rows = _case_rows({"status": status, "reason": "sample_error", "detail": "RuntimeError: boom"})
    assert len(read_rows(rows)) == 3  # no second definition of case q
    card = sk.evaluate(rows, policy={"gate": {"thresholds": {"match": 0.5}}})
    assert card.validation.invalid == 0
    dim = card.dimensions.loc["match"]
    assert (int(dim["n"]), int(dim["errors"]), int(dim["abstains"])) == (2, int(status == "ERROR"),
                                                                         int(status == "ABSTAIN"))
    # The row adds no definition: the suite is the one of the scored rows alone.
    assert card.hashes["suite"] == sk.evaluate(_case_rows()).hashes["suite"]


@pytest.mark.parametrize("extra", [
    {"status": "ERROR", "input": "What is 2 + 2?"},  # some definition fields (not all): still compared
    {"status": "FAIL"},  # a measurement without a definition: a second definition of the case
    {"status": "PASS"},
    {"score": 0.0},  # not pre-scored
])
def test_other_rows_without_the_cases_definition_still_conflict(extra):
    table = read_row_table(_case_rows(extra))
    assert table.frame.empty and {p.field for p in table.problems} == {"case_id"}
    assert sk.evaluate(_case_rows(extra)).validation.invalid == 3


def test_a_case_only_crashed_rows_measure_keeps_its_place_in_the_suite():
    crashed = [{"id": "z", "case_id": "z", "dimension": "match", "status": "ERROR", "evaluator": "h"}]
    with_z = sk.evaluate(_case_rows() + crashed).hashes["suite"]
    assert with_z != sk.evaluate(_case_rows()).hashes["suite"]
    # ...as the same case's pre-scored row without a definition gives it.
    assert with_z == sk.evaluate(_case_rows() + [dict(crashed[0], status="PASS")]).hashes["suite"]
