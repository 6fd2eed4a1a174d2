"""History records read back: each stored value checked against what the record's counts give (SPEC §20).

SQLite stores whatever a row is edited to hold — text in an ``INTEGER`` column,
``1e30``, a negative count, a decision its verdicts cannot produce. Every
reader (:func:`~scorekit.history.read_history`, hence ``scorekit history``,
``history --plot`` and ``compare --history``) therefore checks the rows it read,
before any number is derived from them:

* counts are whole numbers from 0 to 2**53, ``n = passes + fails`` per
  dimension and ``passes <= n`` per case; a record that stores per-case counts
  has, per dimension, case counts that add up to the dimension's;
* ``confidence`` is in (0, 1); flags are 0 or 1; decisions, verdicts and
  comparison statuses are the known words; ``created_at`` is an ISO 8601 time
  and ``judges`` a JSON list of names;
* a pin (schema 3) is both ``pinned_at`` (an ISO 8601 time) and ``pin_order``
  (a whole number from 1, no two records alike) or neither, and only an
  eligible record is pinned (``scorekit history pin`` refuses the others);
* a verdict is ``NOT_IN_SCOPE`` exactly when the dimension is out of scope,
  and a PASS has measured rows;
* the measured decision is one :func:`scorekit._decide.decide` allows for the
  stored verdicts, purpose and ``partial`` (validation and controls are not
  stored: they can only lower a PASS to INCOMPLETE; a mock evaluator only
  makes SELF_TEST), and the final decision is what
  :func:`scorekit._decide.apply_comparison` gives for the measured decision
  and the stored comparison.

A record that disagrees is a :class:`~scorekit.HistoryError` naming the
database, the record (id and label) and the field: exit 2 from the CLI, one line.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._decide import COMPARISON_STATUSES, DECISIONS, VERDICTS, apply_comparison, decide
from .._errors import HistoryError, PolicyError, StoredMismatch
from ._eligibility import _why_ineligible

__all__ = ["MAX_COUNT", "check_history"]

#: Largest count a record may hold: every integer up to it is exact in float64.
MAX_COUNT = 2**53
_PURPOSES = ("release", "exploratory", "self_test")


def _mismatch(record: Any, field: str, problem: str) -> StoredMismatch:
    """A history field that disagrees: ``record`` (its row), the column or dimension field, what is wrong."""
    return StoredMismatch(field, problem, record)


def _is_count(value: Any) -> bool:
    return type(value) is int and 0 <= value <= MAX_COUNT


def _flag(row: Mapping[str, Any], key: str) -> bool:
    value = row.get(key, 0)
    if type(value) is not int or value not in (0, 1):
        raise _mismatch(row, key, f"is {value!r}, not 0 or 1")
    return bool(value)


def _word(row: Mapping[str, Any], key: str, words: tuple[str, ...], *, optional: bool = False) -> Any:
    value = row.get(key)
    if (value is None and optional) or value in words:
        return value
    raise _mismatch(row, key, f"is {value!r}, not one of {', '.join(words)}")


def _check_record(row: Mapping[str, Any]) -> None:
    confidence = row.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
            math.isfinite(confidence) and 0 < confidence < 1):
        raise _mismatch(row, "confidence", f"is {confidence!r}, not a level in (0, 1)")
    for key in ("partial", "comparison_required", "has_case_counts"):
        _flag(row, key)
    _word(row, "decision", DECISIONS)
    _word(row, "measured_decision", DECISIONS)
    _word(row, "comparison_status", COMPARISON_STATUSES)
    _word(row, "purpose", _PURPOSES, optional=True)
    _time(row, "created_at")
    judges = row.get("judges")
    try:
        names = json.loads(judges) if isinstance(judges, str) else None
    except ValueError:
        names = None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _mismatch(row, "judges", f"is {judges!r}, not a JSON list of names")


def _time(row: Mapping[str, Any], key: str) -> None:
    value = row.get(key)
    try:
        pd.Timestamp(_dt.datetime.fromisoformat(value if isinstance(value, str) else ""))
    except (TypeError, ValueError):
        raise _mismatch(row, key, f"is {value!r}, not an ISO 8601 time") from None


def _check_pin(row: Mapping[str, Any], orders: set[int]) -> None:
    """A pin is a time and an order, on an eligible record (``orders``: those seen so far)."""
    at, order = row.get("pinned_at"), row.get("pin_order")
    if at is None and order is None:
        return
    if at is None or order is None:
        missing, present = ("pinned_at", "pin_order") if at is None else ("pin_order", "pinned_at")
        raise _mismatch(row, missing, f"is NULL, but {present} is {row.get(present)!r} (a pin sets both)")
    _time(row, "pinned_at")
    if type(order) is not int or not 1 <= order <= MAX_COUNT:
        raise _mismatch(row, "pin_order", f"is {order!r}, not a whole number from 1 to 2**53")
    if order in orders:
        raise _mismatch(row, "pin_order", f"is {order}, the order of another pinned record too")
    orders.add(order)
    why = _why_ineligible(row)
    if why:
        raise _mismatch(row, "pinned_at", f"is set, but the record can never be a baseline ({why})")


def _check_dimension(record: Mapping[str, Any], d: Mapping[str, Any]) -> None:
    name = d.get("dimension")
    at = f"dimension {name!r}"
    for key in ("n", "passes", "fails", "errors", "abstains"):
        if not _is_count(d.get(key)):
            raise _mismatch(record, f"{at} {key}", f"is {d.get(key)!r}, not a count (a whole number from 0 to 2**53)")
    if d["n"] != d["passes"] + d["fails"]:
        raise _mismatch(record, f"{at} n", f"is {d['n']}, but passes {d['passes']} + fails {d['fails']} "
                                          f"= {d['passes'] + d['fails']}")
    in_scope = _flag(d, "in_scope") if "in_scope" in d else True
    verdict = d.get("verdict")
    if verdict not in VERDICTS:
        raise _mismatch(record, f"{at} verdict", f"is {verdict!r}, not one of {', '.join(VERDICTS)}")
    if (verdict == "NOT_IN_SCOPE") == in_scope:
        raise _mismatch(record, f"{at} verdict", f"is {verdict}, but the dimension is "
                                                f"{'in' if in_scope else 'out of'} scope")
    if verdict == "PASS" and d["n"] == 0:
        raise _mismatch(record, f"{at} verdict", "is PASS, but the dimension has no measured (PASS/FAIL) row")


def _measured_allowed(record: Mapping[str, Any], dims: list[Mapping[str, Any]]) -> set[str]:
    """The measured decisions SPEC §8 allows for the stored verdicts, purpose and ``partial``."""
    from .._policy import load_policy

    try:
        policy = load_policy({"purpose": record.get("purpose") or "release", "confidence": record["confidence"]})
    except PolicyError as exc:  # pragma: no cover - purpose and confidence were checked above
        raise _mismatch(record, "purpose", str(exc)) from None
    frame = pd.DataFrame({"in_scope": [bool(d.get("in_scope", 1)) for d in dims],
                          "verdict": [d.get("verdict") for d in dims]},
                         index=pd.Index([str(d.get("dimension")) for d in dims]))
    missing = [str(d.get("dimension")) for d in dims
               if d.get("in_scope", 1) and d["n"] + d["errors"] + d["abstains"] == 0]
    # The most favourable reading: validation complete, no failed control, no mock.
    _, best, _ = decide(policy=policy, dimensions=frame, missing_dimensions=missing, validation_complete=True,
                        mock_judges=False, partial=bool(record.get("partial")))
    return {best, "SELF_TEST"} | ({"INCOMPLETE"} if best == "PASS" else set())


def _check_decisions(record: Mapping[str, Any], dims: list[Mapping[str, Any]]) -> None:
    measured = record["measured_decision"]
    allowed = _measured_allowed(record, dims)
    if measured not in allowed:
        raise _mismatch(record, "measured_decision", f"is {measured}, but its verdicts, purpose and partial flag give "
                                                    f"{' or '.join(sorted(allowed - {'SELF_TEST'}))} (SPEC §8)")
    status, required = record["comparison_status"], bool(record.get("comparison_required"))
    decision, _ = apply_comparison(measured, measured, status, required)
    if record["decision"] != decision:
        raise _mismatch(record, "decision", f"is {record['decision']}, but the measured decision {measured} and "
                                           f"the {'required' if required else 'optional'} comparison {status} "
                                           f"give {decision} (SPEC §8)")


def _check_cases(record: Mapping[str, Any], dims: list[Mapping[str, Any]], cases: list[Mapping[str, Any]]) -> None:
    totals: dict[Any, list[int]] = {}
    for c in cases:
        at = f"case {c.get('case_id')!r} of dimension {c.get('dimension')!r}"
        if not isinstance(c.get("case_id"), str):
            raise _mismatch(record, f"{at} case_id", f"is {c.get('case_id')!r}, not a case id")
        for key in ("passes", "n"):
            if not _is_count(c.get(key)):
                raise _mismatch(record, f"{at} {key}", f"is {c.get(key)!r}, not a count (a whole number from 0 to "
                                                      "2**53)")
        if c["passes"] > c["n"]:
            raise _mismatch(record, f"{at} passes", f"is {c['passes']}, more than its n {c['n']}")
        total = totals.setdefault(c.get("dimension"), [0, 0])
        total[0] += c["passes"]
        total[1] += c["n"]
    if not record.get("has_case_counts"):
        if totals:
            raise _mismatch(record, "has_case_counts", "is 0, but the record has per-case counts")
        return
    for d in dims:
        name = d.get("dimension")
        passes, n = totals.pop(name, [0, 0])
        if (passes, n) != (d["passes"], d["n"]):
            raise _mismatch(record, f"dimension {name!r} passes", f"and n are {d['passes']} and {d['n']}, but its "
                                                                 f"cases add up to {passes} and {n}")
    if totals:
        raise _mismatch(record, f"dimension {next(iter(totals))!r}", "has per-case counts but no dimension row")


def check_history(path: Any, records: Sequence[Mapping[str, Any]], dims: Sequence[Mapping[str, Any]],
                  cases: Sequence[Mapping[str, Any]] | None = None) -> None:
    """Refuse history rows that disagree with themselves (see the module docstring).

    Parameters
    ----------
    path : path
        The database, for the message.
    records, dims : sequence of mapping
        The ``records`` and ``dimensions`` rows as SQLite returned them, column → value
        (before any conversion: an edited row may hold any SQLite type).
    cases : sequence of mapping, optional
        The ``cases`` rows, when they were read; checked against the dimensions.

    Raises
    ------
    HistoryError
        ``<db>: history record <id> (label <label>): <field> <problem>; the
        record disagrees with its own counts (edited or damaged): refused``.
    """
    dims_of: dict[Any, list[Mapping[str, Any]]] = {}
    for d in dims:
        dims_of.setdefault(d.get("record_id"), []).append(d)
    cases_of: dict[Any, list[Mapping[str, Any]]] = {}
    for c in cases or ():
        cases_of.setdefault(c.get("record_id"), []).append(c)
    orders: set[int] = set()
    try:
        for row in records:
            if type(row.get("id")) is not int:
                raise _mismatch(row, "id", f"is {row.get('id')!r}, not a record id")
            _check_record(row)
            _check_pin(row, orders)
            mine = dims_of.pop(row["id"], [])
            for d in mine:
                _check_dimension(row, d)
            _check_decisions(row, mine)
            if cases is not None:
                _check_cases(row, mine, cases_of.pop(row["id"], []))
        orphan = next(iter(dims_of), None) if dims_of else next(iter(cases_of), None)
        if orphan is not None:
            raise _mismatch({"id": orphan}, "record_id", "has dimension or case rows but no record")
    except StoredMismatch as refusal:
        record = refusal.record
        label = record.get("label")
        who = f"history record {record.get('id')!r}" + (f" (label {label!r})" if label is not None else "")
        raise HistoryError(f"{path}: {who}: {refusal.field} {refusal.problem}; the record disagrees with its own "
                           "counts (edited or damaged): refused") from None
