"""Irregular row sets for the engine equivalence tests (issue 27, SPEC §16) and how their results
are compared.

Two strategies draw row sets: :func:`prescored_sets` (rows with a ``status`` and the columns the
duckdb engine reads, for all three engines) and :func:`raw_sets` (rows scorekit scores, for the
pandas and dask engines). A row is a dict, or a ``str``: a line of JSON Lines text as it is (not
valid JSON, blank), which no Parquet file can hold. :func:`parquet_table` is None for a row set
Parquet cannot express (a column of mixed types, a text line).

:func:`observe` takes what an engine gave: scorecard.json as the JSON writer writes it (but
``generated_at``) and the evidence rows; :func:`assert_same` compares two of them byte for byte
and row for row.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from _corpus import comparable
from hypothesis import strategies as st

Row = dict[str, Any] | str
ABSENT = object()  # a key the row does not have (JSON Lines); Parquet writes it as null

# ------------------------------------------------------------------------------------------ values
# The same odd case ids in every set: unicode, white space, quotes, separators, text that reads as a
# number or a null.
ODD_TEXT = ("ü-ß", "\u3000", " ", "", 'q"uote', "back\\slash", "a/b:c@d", "x\u2028y", "😀", "NaN", "null", "07",
            "Ｃ１", "e\u0301")
CASES = ("c0", "c1", "c2", *ODD_TEXT)
DIMENSIONS = ("d1", "d2", "graded")
STATUSES = ("PASS", "PASS", "PASS", "FAIL", "FAIL", "ERROR", "ABSTAIN")
BAD_STATUSES = ("pass", "MAYBE", "", " PASS", "Abstain")
EVALUATORS = ("harness-x", "harness-x", "harness-x", "harness-x", "grader-y", "grader-y", "mock-judge", "", " ")
REASONS = ("harness_timeout", "", "ünïcode reason", 'say "no"', "  ")


def _maybe(draw: st.DrawFn, chance: float, value: Any, otherwise: Any = ABSENT) -> Any:
    return value if draw(st.floats(0, 1)) < chance else otherwise


@dataclass(frozen=True)
class Kinds:
    """What a row set's format can hold: ``json`` any JSON value (JSON Lines), else one Arrow type a
    column (Parquet); ``int_run``: the ``run`` column holds integers (Parquet of typed runs)."""

    json: bool
    int_run: bool


def _prescored_row(draw: st.DrawFn, i: int, ids: list[Any], kinds: Kinds, agents: tuple[str, ...]) -> Row:
    row: dict[str, Any] = {}
    pick = draw(st.integers(0, 19))
    if pick < 13 or not ids:
        row["id"] = f"r{i}"
    elif pick < 17:
        row["id"] = draw(st.sampled_from(ids))  # an id claimed again
    else:
        row["id"] = draw(st.sampled_from(["", " ", None, ABSENT, "ü-id", 'i"d', *([7, 7.5] if kinds.json else [])]))
    row["case_id"] = draw(st.sampled_from(CASES[:3])) if draw(st.integers(0, 3)) else draw(
        st.sampled_from([*CASES, None, ABSENT, *([3, True] if kinds.json else [])]))
    row["dimension"] = draw(st.sampled_from(DIMENSIONS)) if draw(st.integers(0, 11)) else draw(
        st.sampled_from(["", None, ABSENT, "ü-dim", *([3] if kinds.json else [])]))
    row["trial"] = draw(st.integers(0, 2)) if draw(st.integers(0, 5)) else draw(  # repeats (case, dim, trial)
        st.sampled_from([ABSENT, None, -1, 2**60, *(["1", 1.5, True, 1.0, float("nan")] if kinds.json else [])]))
    row["status"] = draw(st.sampled_from(STATUSES)) if draw(st.integers(0, 9)) else draw(
        st.sampled_from([*BAD_STATUSES, None, ABSENT]))
    row["evaluator"] = draw(st.sampled_from(EVALUATORS)) if draw(st.integers(0, 9)) else draw(
        st.sampled_from([None, ABSENT]))
    if row["status"] in ("ERROR", "ABSTAIN", "FAIL") or draw(st.integers(0, 5)) == 0:
        row["reason"] = draw(st.sampled_from([*REASONS, None, ABSENT]))
    if draw(st.integers(0, 2)) == 0:  # a run on some rows only
        runs: list[Any] = [0, 1, None] if kinds.int_run else ["r0", "r1", " ", None]
        row["run"] = draw(st.sampled_from([*runs, *([0, "r1", 1.5] if kinds.json else [])]))
    if draw(st.integers(0, 9)) == 0:
        row["partial_run"] = draw(st.sampled_from([True, False, *(["true", 1, None] if kinds.json else [])]))
    if agents:  # one agent on every row, or a second one (or white space, an invalid row) on a few
        row["agent"] = agents[0] if draw(st.integers(0, 3)) else draw(st.sampled_from([*agents, ABSENT]))
    return {k: v for k, v in row.items() if v is not ABSENT}


@st.composite
def prescored_sets(draw: st.DrawFn, kinds: Kinds, max_rows: int = 14) -> list[Row]:
    """Pre-scored rows (the duckdb engine's columns only), regular and irregular: duplicate ids and
    (case, dimension, trial), ERROR/ABSTAIN with and without reasons, invalid statuses and evaluators,
    mock evaluators, rows without a trial, ``run`` on some rows, ``partial_run``, odd case ids, an
    ``agent`` on some rows; with ``kinds.json`` also values of another JSON type and text lines."""
    agents = draw(st.sampled_from([(), (), ("agent-a",), ("agent-a", " "), ("agent-a", "agent-b")]))
    rows: list[Row] = []
    ids: list[Any] = []
    for i in range(draw(st.integers(1, max_rows))):
        if kinds.json and draw(st.integers(0, 14)) == 0:
            rows.append(draw(st.sampled_from(["", "{not json", "   ", "[1, 2]", '{"id": "z", "trial": NaN}'])))
            continue
        row = _prescored_row(draw, i, ids, kinds, agents)
        assert isinstance(row, dict)
        ids.append(row.get("id"))
        rows.append(row)
    return rows


def _votes(draw: st.DrawFn) -> Any:
    """A judge panel's votes: agreeing, split, incomplete, invalid values, a duplicate judge, errors."""
    votes: list[Any] = []
    for judge in draw(st.sampled_from([("a", "b", "c"), ("a", "b", "c", "d"), ("a", "b"), ("a", "mock-b", "c")])):
        vote: dict[str, Any] = {"judge": judge}
        value = draw(st.integers(0, 11))
        if value < 5:
            vote["verdict"] = "PASS" if value < 3 else "FAIL"
        elif value < 8:
            vote["score"] = value - 3  # 2..4
        else:
            vote.update(draw(st.sampled_from([{"score": 99}, {"score": 5.0}, {"verdict": "MAYBE"},
                                              {"verdict": "PASS", "score": 5}, {"error": "judge timed out"},
                                              {"verdict": "FAIL", "reason": "rude: call 415-555-0199"}])))
        votes.append(vote)
    if draw(st.integers(0, 5)) == 0:
        votes.append({"judge": "a", "verdict": "PASS"})  # a duplicate judge
    if draw(st.integers(0, 7)) == 0:
        votes.append({"verdict": "PASS"})  # no judge
    return votes


def _raw_row(draw: st.DrawFn, i: int, json_only: bool) -> dict[str, Any]:
    case = draw(st.sampled_from(CASES)) if draw(st.integers(0, 4)) == 0 else f"c{draw(st.integers(0, 3))}"
    row: dict[str, Any] = {"id": f"r{i}", "case_id": case}
    if draw(st.integers(0, 2)):
        row["trial"] = draw(st.integers(0, 2))
    kind = draw(st.sampled_from(["task", "task", "judged", "judged", "score", "cost", "prescored", "pii", "action"]))
    ok = draw(st.booleans())
    if kind == "task":  # two answer keys for one case: a definition conflict
        row.update(dimension="task_completion", agent_output="done" if ok else "no")
        key = draw(st.sampled_from([["done"], ["done"], ["done", "sure"], [], ABSENT]))
        if key is not ABSENT:
            row["must_include"] = key  # [] or absent: unlabeled
    elif kind == "judged":
        row["dimension"] = draw(st.sampled_from(["helpfulness", "tone"]))
        row["agent_output"] = "thanks"
        if draw(st.integers(0, 5)):
            row["judge_criteria"] = draw(st.sampled_from(["helpful", " "]))
        if draw(st.integers(0, 7)):
            row["judge_votes"] = _votes(draw)
    elif kind == "score":
        row["dimension"] = "graded"
        row["evaluator"] = draw(st.sampled_from(["grader-y", "grader-y", "grader-y", "mock-grader"]))
        row["score"] = draw(st.sampled_from([0.0, 0.5, 1.0, 0.25, float("nan"), None, 1.5, -0.5,
                                             *(["0.5", True] if json_only else [])]))
    elif kind == "cost":
        row.update(dimension="cost", cost_usd=draw(st.sampled_from([0.01, 0.09, float("nan"), -1.0])))
        if draw(st.booleans()):
            row["cost_budget_usd"] = 0.05  # else the policy's budget, or unlabeled
    elif kind == "pii":
        row.update(dimension="pii", agent_output="fine" if ok else "mail jane@example.com")
    elif kind == "action":
        row.update(dimension="action_correctness", expected_actions=["a", "b"], agent_actions=["a", "b"] if ok
                   else ["b"])
        if draw(st.booleans()):
            row["expected_state"] = {"x": 1}
            if draw(st.booleans()):
                row["observed_state"] = {"x": 1 if ok else 2}
    else:  # pre-scored rows among raw ones
        row.update(dimension="graded", status=draw(st.sampled_from([*STATUSES, "MAYBE"])),
                   evaluator=draw(st.sampled_from(EVALUATORS)))
        if row["status"] != "PASS":
            row["reason"] = draw(st.sampled_from(REASONS))
            row["detail"] = "RuntimeError('tool crashed')"
    if draw(st.integers(0, 3)) == 0:
        row["run"] = draw(st.sampled_from(["r0", "r1"]))
    if draw(st.integers(0, 7)) == 0:
        row["tags"] = [draw(st.sampled_from(["known-bad", "negative-example", "smoke"]))]  # a control
    if draw(st.integers(0, 11)) == 0:
        row["partial_run"] = True
    return row


@st.composite
def raw_sets(draw: st.DrawFn, json_only: bool, max_rows: int = 14) -> list[Row]:
    """Rows scorekit scores, regular and irregular: unlabeled rows, two definitions of a case, judge
    panels with errors and invalid values, NaN and missing scores, pre-scored ERROR/ABSTAIN rows with
    reasons, rows without a trial, ``run`` on some rows, controls, ``partial_run``, odd case ids,
    duplicate ids and (case, dimension, trial)."""
    rows: list[Row] = []
    for i in range(draw(st.integers(1, max_rows))):
        if json_only and draw(st.integers(0, 14)) == 0:
            rows.append(draw(st.sampled_from(["", "{not json", '{"id": "z", "score": NaN}'])))
            continue
        row = _raw_row(draw, i, json_only)
        if i and draw(st.integers(0, 7)) == 0:
            earlier = [r for r in rows if isinstance(r, dict)]
            if earlier:
                row["id"] = draw(st.sampled_from(earlier))["id"]  # a duplicate id
        rows.append(row)
    return rows


# ------------------------------------------------------------------------------------------ writers
def jsonl_lines(rows: list[Row]) -> list[str]:
    return [row if isinstance(row, str) else json.dumps(row, ensure_ascii=False) for row in rows]


def lone_array(rows: list[Row]) -> bool:
    """Whether ``rows`` written as JSON Lines are one JSON array line (and blank lines): a file the
    rows reader reads as a JSON array of rows."""
    lines = [line for line in jsonl_lines(rows) if line.strip()]
    if len(lines) != 1:
        return False
    try:
        return isinstance(json.loads(lines[0]), list)
    except ValueError:
        return False


def _column_type(values: list[Any]) -> pa.DataType | None:
    """The one Arrow type of a column's values (None: none fits them all without changing one)."""
    present = [v for v in values if v is not None]
    if not present:
        return pa.string()
    if all(isinstance(v, bool) for v in present):
        return pa.bool_()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.int64() if all(-(2**63) <= v < 2**63 for v in present) else None
    if all(isinstance(v, float) for v in present):
        return pa.float64()
    if all(isinstance(v, str) for v in present):
        return pa.string()
    if all(isinstance(v, (list, dict)) for v in present):
        try:
            return pa.array(present).type
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None
    return None


def parquet_table(rows: list[Row]) -> pa.Table | None:
    """``rows`` as one Arrow table (an absent key a null), or None when Parquet cannot hold them."""
    if any(isinstance(row, str) for row in rows):
        return None
    names = list(dict.fromkeys(k for row in rows for k in row))  # type: ignore[union-attr]
    columns = {}
    for name in names:
        values = [row.get(name) for row in rows]  # type: ignore[union-attr]
        kind = _column_type(values)
        if kind is None:
            return None
        try:
            columns[name] = pa.array(values, type=kind, from_pandas=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None
    return pa.table(columns)


def bounds(n: int, cuts: list[int]) -> list[tuple[int, int]]:
    """[start, stop) of the parts of ``n`` items cut at the per-mille positions ``cuts`` (empty parts too)."""
    edges = [0, *sorted(n * c // 1000 for c in cuts), n]
    return list(zip(edges, edges[1:], strict=False))


def write_file(path: Path, rows: list[Row], row_group_size: int) -> Path:
    """``rows`` as one file of the kind ``path``'s suffix names (Parquet: row groups of ``row_group_size``)."""
    if path.suffix == ".parquet":
        table = parquet_table(rows)
        assert table is not None
        pq.write_table(table, path, row_group_size=max(1, row_group_size))
    else:
        path.write_text("".join(line + "\n" for line in jsonl_lines(rows)), encoding="utf-8")
    return path


def write_parts(folder: Path, rows: list[Row], parts: list[tuple[int, int]], suffix: str) -> Path:
    """``rows`` cut into ``parts``, one file each (``part-000``, … in row order) in ``folder``."""
    folder.mkdir(parents=True)
    table = parquet_table(rows) if suffix == ".parquet" else None
    lines = jsonl_lines(rows)
    for i, (a, b) in enumerate(parts):
        path = folder / f"part-{i:03d}{suffix}"
        if table is not None:
            pq.write_table(table.slice(a, b - a), path)
        else:
            path.write_text("".join(line + "\n" for line in lines[a:b]), encoding="utf-8")
    return folder


# ------------------------------------------------------------------------------------------ comparing
_GENERATED_AT = re.compile(rb'\n  "generated_at": "[^"]*",')


@dataclass(frozen=True, repr=False)
class Seen:
    """What one engine gave: scorecard.json but ``generated_at``, the evidence rows, or the one-line
    error it stopped with."""

    text: str
    evidence: pd.DataFrame | None
    error: str | None = None

    def __repr__(self) -> str:
        return f"<error {self.error!r}>" if self.error else f"<scorecard of {len(self.evidence)} rows>"


def observe(card: Any, *, dataset: bool = False) -> Seen:
    """``card``'s scorecard.json text as the JSON writer gives it (but ``generated_at``) and its
    evidence (with ``dataset``, read back from ``card.evidence_dataset()``)."""
    frame = card.evidence_dataset().to_table().to_pandas() if dataset else card.evidence
    return Seen(comparable(card), frame)


def written(card: Any, out: Path) -> bytes:
    """The bytes of the scorecard.json ``card.write`` writes, but its ``generated_at`` line."""
    card.write(out)
    data = (out / "scorecard.json").read_bytes()
    stripped, n = _GENERATED_AT.subn(b"", data)
    assert n == 1, data[:200]
    return stripped


def _diff(got: str, want: str) -> str:
    return "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "reference", "engine",
                                             n=2))[:60])


def assert_same(got: Seen, want: Seen, engine: str) -> None:
    """The same error, or byte-identical scorecard.json and equal evidence: the same rows in the
    same order, by line; the same dtypes and values."""
    assert got.error == want.error, f"{engine}: {got.error!r} != reference {want.error!r}"
    if want.error is not None:
        return
    assert got.text == want.text, f"{engine}: scorecard.json differs\n{_diff(got.text, want.text)}"
    assert got.evidence is not None and want.evidence is not None
    by_line = [frame.sort_values("line", kind="stable").reset_index(drop=True)
               for frame in (got.evidence, want.evidence)]
    pd.testing.assert_frame_equal(by_line[0], by_line[1], check_exact=True, obj=f"{engine} evidence")
    assert got.evidence["line"].tolist() == want.evidence["line"].tolist(), f"{engine}: evidence row order"


