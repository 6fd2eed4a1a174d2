"""The normaliser: each row checked against the field table, the rules across rows applied,
the rows that pass typed into one frame (:class:`RowTable`, :func:`read_rows`).

A row that cannot be normalised (not an object, missing ``id``/``dimension``,
a field failing its check in :data:`~scorekit._rows._fields.FIELDS`, a bad
number, a duplicate identity, a case defined two ways) produces
:class:`~scorekit.Problem` entries naming file, line and field;
:func:`read_rows` raises :class:`~scorekit.InputError` listing them all, the
evaluation engine classifies such rows as invalid instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._counts import STATUS_DTYPE
from .._errors import InputError, Problem
from ._fields import (
    BOOL_FIELDS,
    CONTROL_TAGS,
    FIELDS,
    FLOAT_FIELDS,
    NULL_IS_VALUE,
    STR_FIELDS,
    any_value,
    is_nonempty_str,
    is_str,
    kind,
)
from ._formats import open_source
from ._screens import NESTED_TOO_DEEPLY, bad_numbers, nested_too_deeply, plain_json

__all__ = ["RowTable", "check_row", "read_row_table", "read_rows"]


@dataclass
class RowTable:
    """Rows read from one source, before scoring.

    Attributes
    ----------
    frame : DataFrame
        The rows that normalised cleanly, typed (see :func:`read_rows`).
    lines : ndarray of int
        Source line (or 1-based row position) of each row of ``frame``.
    problems : list of Problem
        Every row-level problem, in source order.
    invalid : list of dict
        One record per rejected row: ``line``, and ``id`` / ``dimension`` /
        ``case_id`` when they could be read, so the engine can still list it.
    source : str
        File name (or ``<DataFrame>``/``<rows>``) used in messages.
    """

    frame: pd.DataFrame
    lines: np.ndarray
    problems: list[Problem] = field(default_factory=list)
    invalid: list[dict[str, Any]] = field(default_factory=list)
    source: str = "<rows>"


_CHECK_PLANS: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, Any], ...]]] = {}


def _check_plan(keys: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, Any], ...]]:
    """The field checks a row with these keys needs, cached per key layout: names
    checked as non-empty strings, names checked as strings, other (name, check)."""
    plan = _CHECK_PLANS.get(keys)
    if plan is None:
        checks = [(name, FIELDS[name]) for name in keys if name in FIELDS and FIELDS[name] is not any_value]
        plan = (
            tuple(name for name, check in checks if check is is_nonempty_str),
            tuple(name for name, check in checks if check is is_str),
            tuple((name, check) for name, check in checks if check not in (is_nonempty_str, is_str)),
        )
        if len(_CHECK_PLANS) < 4096:
            _CHECK_PLANS[keys] = plan
    return plan


def check_row(value: Any, deep: bool = True) -> tuple[dict[str, Any] | None, list[tuple[str, str]]]:
    """Validate one parsed row; return the normalised row (or None) and its problems.

    ``deep`` walks every nested value for NaN/Infinity and unsafe integers, and
    refuses a row nesting more than :data:`~scorekit._io.ROW_NESTING` levels; the
    JSON Lines reader turns it off for lines whose text cannot contain them (and
    whose nesting it checked on the text).
    """
    if not isinstance(value, dict):
        return None, [("row", f"expected a JSON object, got {kind(value)}")]
    if deep and nested_too_deeply(value):  # before any check or walk that recurses
        return None, [("row", NESTED_TOO_DEEPLY)]
    row = value
    problems: list[tuple[str, str]] = []
    if deep:  # a row given as Python values: a dict subclass, a tuple, a NumPy number is read as its JSON value
        row, problems = plain_json(row)
        problems = [(path.lstrip(".") or "row", message) for path, message in problems]
    if "trial_id" in row:
        if row.get("trial") is not None:
            if row["trial_id"] != row["trial"]:
                problems.append(("trial_id", "conflicts with 'trial'"))
            row = {k: v for k, v in row.items() if k != "trial_id"}
        else:
            row = {("trial" if k == "trial_id" else k): v for k, v in row.items()}
    if None in row.values():  # null = absent, except where null is a value
        row = {k: v for k, v in row.items() if v is not None or k in NULL_IS_VALUE}
    if "id" not in row:
        problems.append(("id", "required field is missing"))
    if "dimension" not in row:
        problems.append(("dimension", "required field is missing"))
    nonempty, plain, other = _check_plan(tuple(row))
    found: list[tuple[str, str]] = []
    # The common string checks inline (a call per field costs more than the
    # check); any doubt calls the real check, which words the message.
    for name in nonempty:
        val = row[name]
        if type(val) is not str or not val or val.isspace():
            message = is_nonempty_str(val)
            if message:
                found.append((name, message))
    for name in plain:
        if type(row[name]) is not str:
            message = is_str(row[name])
            if message:
                found.append((name, message))
    for name, check in other:
        message = check(row[name])
        if message:
            found.append((name, message))
    if found:
        order = {name: i for i, name in enumerate(row)}
        found.sort(key=lambda problem: order[problem[0]])  # field order, as the row has them
        problems.extend(found)
    if deep:
        for path, message in bad_numbers(row, ""):
            problems.append((path.lstrip("."), message))
    if "evaluator" not in row:
        if "status" in row and "status" not in {p[0] for p in problems}:
            problems.append(("evaluator", "a pre-scored status needs the evaluator that produced it"))
        elif "score" in row and "status" not in row and "score" not in {p[0] for p in problems}:
            problems.append(("evaluator", "a score needs the evaluator that produced it"))
    if not problems:
        return row, problems
    # One message per field, in field order, so reports stay short and deterministic.
    seen: set[str] = set()
    unique = []
    for name, message in problems:
        if name not in seen:
            seen.add(name)
            unique.append((name, message))
    return (None if unique else row), unique


def _build_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows) if rows else pd.DataFrame({"id": [], "dimension": []})
    n = len(frame)
    for name in STR_FIELDS:
        if name in frame.columns:
            frame[name] = frame[name].astype("str") if frame[name].notna().all() else _str_with_na(frame[name])
    if "case_id" not in frame.columns:
        frame["case_id"] = frame["id"]
    else:
        frame["case_id"] = frame["case_id"].fillna(frame["id"])
    if "trial" in frame.columns:
        frame["trial"] = frame["trial"].astype("Int64")
    else:
        frame["trial"] = pd.array([pd.NA] * n, dtype="Int64")
    frame["status"] = (
        pd.Categorical(frame["status"], dtype=STATUS_DTYPE)
        if "status" in frame.columns
        else pd.Categorical([None] * n, dtype=STATUS_DTYPE)
    )
    for name in FLOAT_FIELDS:
        if name in frame.columns:
            frame[name] = frame[name].astype("float64")
    for name in BOOL_FIELDS:
        if name in frame.columns:
            frame[name] = frame[name].astype("boolean")
    tags = frame["tags"] if "tags" in frame.columns else pd.Series([None] * n, dtype=object)
    frame["control"] = np.fromiter(
        (isinstance(t, list) and not CONTROL_TAGS.isdisjoint(t) for t in tags), dtype=bool, count=n
    )
    leading = ["id", "dimension", "case_id", "trial", "status"]
    return frame[leading + [c for c in frame.columns if c not in leading]]


def _str_with_na(series: pd.Series) -> pd.Series:
    return series.astype(pd.StringDtype(na_value=np.nan))


def _normalise(records: Iterator[tuple[int, Any, Any, bool, bytes | None]], source: str) -> RowTable:
    # Every row once, in source order: (line, identity, normalised row or None, its problems).
    entries: list[tuple[int, dict[str, Any], dict[str, Any] | None, list[Problem]]] = []
    for line, value, error, deep, _raw in records:
        row_id = value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None
        if error is not None:
            field_errors = error if isinstance(error, list) else [("row", error)]
            row = None
        else:
            row, field_errors = check_row(value, deep)
        found = [Problem(source, line, name, message, row_id) for name, message in field_errors] if row is None else []
        entries.append((line, _identity(value, line), row, found))
    # The rules across rows live in _validate, as evaluate() applies them.
    from .._validate import case_definition_conflicts, definition_key, duplicate_identities, takes_case_definition

    valid = [row is not None for _, _, row, _ in entries]
    marked, duplicate_problems = duplicate_identities(
        [row["id"] if row is not None else ident.get("id") for _, ident, row, _ in entries],
        [row.get("case_id", row["id"]) if row is not None else ident.get("case_id") for _, ident, row, _ in entries],
        [row["dimension"] if row is not None else ident.get("dimension") for _, ident, row, _ in entries],
        [row.get("trial") if row is not None else None for _, _, row, _ in entries],
        valid,
        [line for line, _, _, _ in entries],
        source,
    )
    by_position = dict(zip((p for p in marked if valid[p]), duplicate_problems, strict=True))
    # One definition per (case_id, dimension), over the rows still valid.
    kept_pairs = [
        (pos, row) for pos, (_, _, row, _) in enumerate(entries) if row is not None and pos not in by_position
    ]
    kept = [pos for pos, _ in kept_pairs]
    kept_rows = [row for _, row in kept_pairs]
    conflict, conflict_problems = case_definition_conflicts(
        [row.get("case_id", row["id"]) for row in kept_rows],
        [row["dimension"] for row in kept_rows],
        [None if takes_case_definition(row) else definition_key(row) for row in kept_rows],
        [entries[pos][0] for pos in kept],
        [row["id"] for row in kept_rows],
        source,
        lambda i: kept_rows[i],
    )
    by_position.update(
        {kept[i]: problem for i, problem in zip(np.flatnonzero(conflict), conflict_problems, strict=True)}
    )
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    problems: list[Problem] = []
    invalid: list[dict[str, Any]] = []
    for pos, (line, ident, row, found) in enumerate(entries):
        if pos in by_position:
            found, row = [by_position[pos]], None
        if row is None:
            problems.extend(found)
            invalid.append(ident)
            continue
        rows.append(row)
        lines.append(line)
    return RowTable(
        frame=_build_frame(rows),
        lines=np.asarray(lines, dtype=np.int64),
        problems=problems,
        invalid=invalid,
        source=source,
    )


def _identity(value: Any, line: int) -> dict[str, Any]:
    out: dict[str, Any] = {"line": line}
    if isinstance(value, dict):
        for name in ("id", "dimension", "case_id"):
            if isinstance(value.get(name), str):
                out[name] = value[name]
    return out



def read_row_table(source: Any, *, format: str | None = None) -> RowTable:
    """Read rows from any supported source, collecting row-level problems.

    Parameters
    ----------
    source : str, os.PathLike, DataFrame or list of dict
        A ``.jsonl``/``.json``/``.ndjson``, ``.csv`` or ``.parquet`` file, or rows
        already in memory.
    format : {"jsonl", "json", "csv", "parquet"}, optional
        Overrides detection from the file suffix ("jsonl" and "json" both read
        JSON Lines or a JSON array, by content).

    Raises
    ------
    InputError
        Only when the source cannot be read as rows at all.
    """
    src = open_source(source, format=format)
    return _normalise(src.items(), src.name)


def read_rows(source: Any, *, format: str | None = None) -> pd.DataFrame:
    """Read evaluation result rows into one typed DataFrame.

    Parameters
    ----------
    source : str, os.PathLike, DataFrame or list of dict
        JSON Lines (``.jsonl``), a JSON array of row objects (``.json``; problems
        name the line each element starts on), CSV (``.csv``; structured cells
        hold JSON text), Parquet (``.parquet``), or rows already in memory. A
        UTF-8 BOM is accepted.
    format : {"jsonl", "json", "csv", "parquet"}, optional
        Overrides detection from the file suffix ("jsonl" and "json" both read
        JSON Lines or a JSON array, by content).

    Returns
    -------
    DataFrame
        One row per result row, columns first ``id``, ``dimension``, ``case_id``
        (defaults to ``id``), ``trial`` (``Int64``, ``trial_id`` accepted),
        ``status`` (categorical of PASS/FAIL/ERROR/ABSTAIN, missing when the row
        is not pre-scored), then the other fields as given, plus ``control``
        (bool: the row is tagged ``known-bad``/``negative-example``).

    Raises
    ------
    InputError
        When any row cannot be normalised; ``err.problems`` lists every problem
        as ``file:line: field: message``. Also for a file that cannot be read as
        rows (missing, empty, not UTF-8, not JSON Lines/CSV/Parquet).

    Examples
    --------
    >>> import scorekit as sk
    >>> rows = sk.read_rows([{"id": "r1", "dimension": "pii", "status": "PASS", "evaluator": "h"}])
    >>> rows.loc[0, "status"], rows.loc[0, "case_id"]
    ('PASS', 'r1')
    """
    table = read_row_table(source, format=format)
    if table.problems:
        shown = table.problems[:20]
        more = len(table.problems) - len(shown)
        lines = "\n".join(f"  {p}" for p in shown)
        if more:
            lines += f"\n  ... and {more} more"
        raise InputError(
            f"{len(table.invalid)} row(s) in {table.source} cannot be used:\n{lines}",
            problems=table.problems,
        )
    return table.frame
