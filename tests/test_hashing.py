"""Hash input form (SPEC §10): the fast paths agree with RFC 8785 of the type-tagged structure."""

from __future__ import annotations

import pytest
import rfc8785
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shared import JSON_TEXT, JSON_VALUES, c_helper_built, evidence_hash_of, python_paths

from scorekit._hashing import (
    canonical_bytes,
    evidence_digest,
    evidence_sql,
    list_hash,
    packed_list_hash,
    results_digest,
    results_sql,
    row_digest,
    sha256_hex,
    sql_digest,
    sql_int,
    sql_string,
    sql_text,
    sql_text_or_int,
    suite_sql,
    tag_numbers,
)


@pytest.fixture(scope="module", params=["c", "python"], autouse=True)
def implementation(request):
    """Every test here runs with the C helper and with the Python path."""
    if request.param == "c":
        if not c_helper_built():
            pytest.skip("the C helper scorekit._speedups is not built")
        yield "c"
    else:
        with python_paths():
            yield "python"


TEXT, JSON = JSON_TEXT, JSON_VALUES


def _is_ijson(value) -> bool:
    """rfc8785 (the reference) can write it: no lone surrogate."""
    try:
        rfc8785.dumps(tag_numbers(value))
    except Exception:
        return False
    return True


@settings(max_examples=300)
@given(JSON)
def test_canonical_bytes_equal_rfc8785_of_the_tagged_structure(value):
    try:
        expected = rfc8785.dumps(tag_numbers(value))
    except Exception:  # lone surrogates: not valid I-JSON; nothing to compare
        expected = None
    assume(expected is not None)
    assert canonical_bytes(value) == expected


def test_one_and_one_point_zero_hash_differently():
    assert row_digest({"x": 1}) != row_digest({"x": 1.0}) != row_digest({"x": True})
    assert canonical_bytes({"b": 1, "a": [1.0, None]}) == b'{"a":["f:1.0",null],"b":"i:1"}'


@settings(max_examples=300)
@given(TEXT, TEXT, TEXT, st.none() | st.integers(0, 10**6), st.dictionaries(
    st.sampled_from(["agent_output", "cost_usd", "latency_ms", "usage", "tool_calls", "status"]), JSON, max_size=4))
def test_results_digest_fast_path_equals_row_digest(row_id, case_id, dimension, trial, measured):
    assume(_is_ijson([row_id, case_id, dimension, measured]))
    expected = row_digest(
        {"id": row_id, "case_id": case_id, "dimension": dimension, "trial": trial, "measured": measured}
    )
    assert results_digest(row_id, case_id, dimension, trial, measured).hex() == expected


@settings(max_examples=300)
@given(st.none() | TEXT, st.none() | TEXT, st.none() | TEXT, st.none() | st.integers(0, 10**6),
       st.sampled_from(["PASS", "FAIL", "ERROR", "ABSTAIN"]), st.none() | TEXT,
       st.sampled_from(["labeled", "unlabeled", "invalid"]), st.booleans(), st.booleans())
def test_evidence_digest_fast_path_equals_row_digest(rid, dim, case, trial, status, reason, label, control, included):
    record = {"case_id": case, "control": control, "dimension": dim, "id": rid, "included": included,
              "label": label, "reason": reason, "status": status, "trial": trial}
    assume(_is_ijson(record))
    assert evidence_digest(rid, dim, case, trial, status, reason, label, control, included).hex() == row_digest(record)


def test_list_hash_is_the_hash_of_the_canonical_list():
    digests = ["b" * 64, "a" * 64]
    assert list_hash(digests, sort=True) == sha256_hex(rfc8785.dumps(sorted(digests)))
    assert list_hash(digests + digests, sort=True, unique=True) == list_hash(digests, sort=True)
    assert list_hash([], sort=True) == sha256_hex(rfc8785.dumps([]))
    assert list_hash(reversed(digests), sort=False) == sha256_hex(rfc8785.dumps(list(reversed(digests))))


@settings(max_examples=200)
@given(st.lists(st.binary(min_size=32, max_size=32), max_size=40))
def test_packed_digests_hash_like_the_sorted_hex_list(digests):
    digests += digests[:3]  # repeats stay (the results hash is a list, not a set)
    assert packed_list_hash(b"".join(digests)) == list_hash([d.hex() for d in digests], sort=True)
    assert packed_list_hash(bytearray(b"".join(digests))) == packed_list_hash(b"".join(reversed(digests)))


@settings(max_examples=200)
@given(digests=st.lists(st.binary(min_size=32, max_size=32), max_size=40), block=st.integers(1, 45),
       repeats=st.integers(0, 5))
def test_packed_digests_hashed_in_blocks_hash_like_one_list(digests, block, repeats):
    """The list written and hashed a block at a time is the whole sorted list,
    at every block boundary (repeated digests included)."""
    import scorekit._hashing as hashing

    digests += digests[:repeats]
    saved = hashing.HASH_BLOCK
    hashing.HASH_BLOCK = block
    try:
        got = packed_list_hash(b"".join(digests))
    finally:
        hashing.HASH_BLOCK = saved
    assert got == list_hash([d.hex() for d in digests], sort=True)


@settings(max_examples=200)
@given(digests=st.lists(st.binary(min_size=32, max_size=32), max_size=30), repeats=st.lists(st.integers(0, 29)),
       prefix=st.booleans())
def test_packed_digests_each_once_hash_like_the_unique_list(digests, repeats, prefix):
    """``unique=True`` hashes each digest once, like ``list_hash(..., unique=True)``
    (repeats anywhere; digests sharing their first 8 bytes or not)."""
    if prefix:
        digests = [b"\x07" * 8 + d[8:] for d in digests]
    digests += [digests[i] for i in repeats if i < len(digests)]
    want = list_hash([d.hex() for d in digests], sort=True, unique=True)
    assert packed_list_hash(b"".join(digests), unique=True) == want


def test_packed_digests_sharing_their_first_bytes_sort_on_the_rest():
    digests = [b"\x00" * 8 + bytes([tail]) * 24 for tail in (9, 3, 200, 3)] + [b"\xff" * 32, b"\x01" * 32]
    assert packed_list_hash(b"".join(digests)) == list_hash([d.hex() for d in digests], sort=True)


def test_packed_digests_of_a_wrong_length_are_refused():
    for size in (5, 40):
        with pytest.raises(ValueError, match="32 bytes each"):
            packed_list_hash(b"x" * size)
    words = memoryview(bytearray(64)).cast("I")  # 16 items, 64 bytes: two digests
    assert packed_list_hash(words) == list_hash(["00" * 32] * 2, sort=True)


def _example_card(rows=None):
    import scorekit as sk

    return sk.evaluate(rows if rows is not None else sk.example_path(), policy=sk.example_path(file="policy.yml"))


def test_evidence_hash_recomputes_from_the_evidence_table():
    card = _example_card()
    assert card.hashes["evidence"] == evidence_hash_of(card.evidence)


def test_suite_and_results_hashes_ignore_row_order_and_suite_ignores_trial_count():
    import json
    import random

    import scorekit as sk

    rows = [json.loads(line) for line in sk.example_path().read_text(encoding="utf-8").splitlines()]
    base = _example_card(rows)
    shuffled = rows[:]
    random.Random(3).shuffle(shuffled)
    again = _example_card(shuffled)
    assert base.hashes == again.hashes
    fewer = _example_card([r for r in rows if r.get("trial", 0) < 2])
    assert fewer.hashes["suite"] == base.hashes["suite"]
    assert fewer.hashes["results"] != base.hashes["results"]


def test_suite_hash_excludes_measured_fields_and_results_hash_excludes_answer_keys():
    import scorekit as sk

    row = {"id": "r", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"}
    a = sk.evaluate([row])
    b = sk.evaluate([dict(row, agent_output="x and more")])
    c = sk.evaluate([dict(row, must_include=["x", "y"])])
    assert a.hashes["suite"] == b.hashes["suite"] and a.hashes["results"] != b.hashes["results"]
    assert a.hashes["results"] == c.hashes["results"] and a.hashes["suite"] != c.hashes["suite"]


# --------------------------------------------------------------------------- the SQL twin (DuckDB)
# Text DuckDB can hold (valid UTF-8: no lone surrogate), weighted to what needs escaping.
SQL_TEXT = st.text(st.characters(blacklist_categories=("Cs",)) | st.sampled_from('"\\\x00\x01\x0b\x1f\x7f\u2028é😀\''),
                   max_size=10)
BIGINT = st.integers(-(2**63), 2**63 - 1)
EVIDENCE_ROW = st.fixed_dictionaries({
    "id": st.none() | SQL_TEXT, "dimension": st.none() | SQL_TEXT, "case_id": st.none() | SQL_TEXT,
    "trial": st.none() | BIGINT, "status": st.sampled_from(["PASS", "FAIL", "ERROR", "ABSTAIN"]),
    "reason": st.none() | SQL_TEXT, "label": st.sampled_from(["labeled", "unlabeled", "invalid"]),
    "control": st.none() | st.booleans(), "included": st.none() | st.booleans(),
    "run_text": st.none() | SQL_TEXT, "run_int": st.none() | BIGINT,
})


def _sql_digests(rows, expression):
    """``expression`` (SQL over the columns of ``rows``) evaluated by DuckDB for each row, in order."""
    duckdb = pytest.importorskip("duckdb")
    pa = pytest.importorskip("pyarrow")
    con = duckdb.connect()
    types = {"trial": pa.int64(), "run_int": pa.int64(), "control": pa.bool_(), "included": pa.bool_()}
    table = pa.table({name: pa.array([row[name] for row in rows], types.get(name, pa.string()))
                      for name in rows[0]}
                     | {"n": pa.array(range(len(rows)), pa.int64())})
    con.register("t", table)
    return [d for (d,) in con.execute(f"SELECT {sql_digest(expression)} FROM t ORDER BY n").fetchall()]


@settings(max_examples=60, deadline=None)
@given(st.lists(EVIDENCE_ROW, min_size=1, max_size=25))
def test_sql_twin_of_the_evidence_form_gives_the_python_digest(rows):
    got = _sql_digests(rows, evidence_sql(row_id="id", dimension="dimension", case_id="case_id", trial="trial",
                                          status="status", reason="reason", label="label", control="control",
                                          included="included"))
    for row, digest in zip(rows, got, strict=True):
        record = {k: row[k] for k in ("case_id", "control", "dimension", "id", "included", "label", "reason",
                                      "status", "trial")}
        assert digest == row_digest(record), record
        if row["control"] is not None and row["included"] is not None:
            assert digest == evidence_digest(row["id"], row["dimension"], row["case_id"], row["trial"], row["status"],
                                             row["reason"], row["label"], row["control"], row["included"]).hex()


@settings(max_examples=60, deadline=None)
@given(st.lists(EVIDENCE_ROW, min_size=1, max_size=25))
def test_sql_twin_of_the_results_and_suite_forms_gives_the_python_digests(rows):
    results = _sql_digests(rows, results_sql(row_id="id", case_id="case_id", dimension="dimension", trial="trial",
                                             measured={"status": sql_string("status"),
                                                       "run": sql_text_or_int("run_text", "run_int")}))
    suite = _sql_digests(rows, suite_sql(case_id="case_id", dimension="dimension"))
    for row, result, case in zip(rows, results, suite, strict=True):
        measured = {"status": row["status"]}
        if row["run_text"] is not None or row["run_int"] is not None:
            measured["run"] = row["run_text"] if row["run_text"] is not None else row["run_int"]
        assert result == row_digest({"id": row["id"], "case_id": row["case_id"], "dimension": row["dimension"],
                                     "trial": row["trial"], "measured": measured}), row
        if None not in (row["id"], row["case_id"], row["dimension"]):
            assert result == results_digest(row["id"], row["case_id"], row["dimension"], row["trial"],
                                            measured).hex()
        assert case == row_digest({"case_id": row["case_id"], "dimension": row["dimension"], "definition": {}})


def test_sql_twin_writes_integers_beyond_64_bits_as_python_does():
    duckdb = pytest.importorskip("duckdb")
    for value in (2**100, -(2**126), 0, -1):
        (text,) = duckdb.connect().execute(f"SELECT {sql_text(sql_int(f'CAST({value!r} AS HUGEINT)'))}").fetchall()[0]
        assert text.encode() == canonical_bytes(value)


@settings(max_examples=40, deadline=None)
@given(st.lists(EVIDENCE_ROW, min_size=1, max_size=10), SQL_TEXT, st.booleans(), st.booleans())
def test_sql_twin_writes_literal_fields_as_python_does(rows, label, control, included):
    """A field given as an SQL literal (a string with quotes, backslashes or control characters, true or
    false) is written when the SQL is made; the digest is the Python one."""
    literal = "'" + label.replace("'", "''") + "'"
    got = _sql_digests(rows, evidence_sql(row_id="id", dimension="dimension", case_id="case_id", trial="trial",
                                          status="status", reason="reason", label=literal,
                                          control=str(control).lower(), included=str(included).lower()))
    for row, digest in zip(rows, got, strict=True):
        assert digest == evidence_digest(row["id"], row["dimension"], row["case_id"], row["trial"], row["status"],
                                         row["reason"], label, control, included).hex(), row
