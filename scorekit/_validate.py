"""Validation before scoring (SPEC §5): labeled, unlabeled or invalid.

The reader (:mod:`scorekit._rows`) already rejects rows that cannot be
normalised one at a time. This module holds every rule that needs all rows at
once, and both :func:`scorekit.read_rows` and :func:`scorekit.evaluate` call
it: one identity per row (:func:`duplicate_identities`: an id, or a trial of a
case on a dimension, claimed twice makes *every* claimant invalid) and one
definition per case (:func:`case_definition_conflicts`; a pre-scored ERROR or
ABSTAIN row without any definition field takes its case's definition,
:func:`takes_case_definition`). It also assembles the validation summary the
Scorecard reports.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# C helper (scorekit/_speedups.c); None for the Python path (scorekit/_accel.py).
from ._accel import definition_text as _c_definition_text
from ._accel import exact_key as _c_exact_key
from ._errors import Problem

__all__ = [
    "DEFINITION_FIELDS",
    "Validation",
    "case_definition_conflicts",
    "definition_key",
    "duplicate_identities",
    "takes_case_definition",
    "text_definition_key",
]

# Inputs and answer keys: what defines a case (and enters the suite hash).
DEFINITION_FIELDS: tuple[str, ...] = (
    "input",
    "context",
    "must_include",
    "must_not_include",
    "allowed_tools",
    "forbidden_tools",
    "tool_schemas",
    "expected_tool_calls",
    "expected_actions",
    "forbidden_actions",
    "match",
    "expected_state",
    "canary",
    "should_refuse",
    "cost_budget_usd",
    "latency_budget_ms",
    "judge_criteria",
    "pii_allowed",
)


# Pre-scored statuses that are missing evidence, not a measurement (SPEC §3).
_MISSING = frozenset({"ERROR", "ABSTAIN"})


def takes_case_definition(row: Mapping[str, Any]) -> bool:
    """Whether ``row`` (one that passed the row checks) takes its case's definition from the other
    rows (SPEC §2): a pre-scored ERROR or ABSTAIN row that carries none of the definition fields (a
    crashed sample has nothing to compare). Such a row has no definition key: it never conflicts
    with its case's other rows and adds nothing to the suite hash. A row with some definition
    fields, or a PASS/FAIL row without any, is compared like every other row.

    Examples
    --------
    >>> takes_case_definition({"id": "r", "dimension": "d", "status": "ERROR", "evaluator": "h"})
    True
    >>> takes_case_definition({"id": "r", "dimension": "d", "status": "ERROR", "evaluator": "h", "input": "q"})
    False
    >>> takes_case_definition({"id": "r", "dimension": "d", "status": "FAIL", "evaluator": "h"})
    False
    """
    return row.get("status") in _MISSING and _DEFINITION_SET.isdisjoint(row)


def definition_key(row: dict[str, Any], fields: Sequence[str] | None = None) -> bytes:
    """A 16-byte digest of a row's case definition, for grouping trials.

    The C helper's exact form (``1``, ``1.0``, ``True`` and ``"1"`` differ;
    object key order does not matter) when it is built; else ``marshal``
    (format 2: no back-references, so equal values give equal bytes), which
    keeps the same values apart but depends on the order of object keys. Either
    way, two digests that differ are confirmed with :func:`definition_json`
    before a conflict is reported. ``fields``, when given, are the definition
    fields ``row`` has, in :data:`DEFINITION_FIELDS` order (the engine caches
    them per row layout).
    """
    if fields is None:
        fields = [name for name in DEFINITION_FIELDS if name in row]
    if _c_exact_key is not None:
        text = _c_exact_key({name: row[name] for name in fields})
        if text is not None:
            return hashlib.sha256(text).digest()[:16]  # SHA-256 runs in hardware on most CPUs: faster than BLAKE2
    return hashlib.blake2b(marshal.dumps([(name, row[name]) for name in fields], 2), digest_size=16).digest()


_DEFINITION_NAMES = tuple(name.encode("ascii") for name in DEFINITION_FIELDS)
_DEFINITION_SET = frozenset(DEFINITION_FIELDS)


def text_definition_key(raw: bytes) -> bytes | None:
    """A definition key read from a row's JSON text, without parsing it again.

    Equal text of the definition fields (names and values, in text order)
    means equal definitions, which is all a key must guarantee; equal
    definitions written differently (spacing, key order) get different keys,
    which only costs the exact confirmation in
    :func:`case_definition_conflicts`. None without the C helper, or when the
    text has an escaped top-level key (its name is not what the text shows);
    then :func:`definition_key` serves.
    """
    if _c_definition_text is None:
        return None
    text = _c_definition_text(raw, _DEFINITION_NAMES)
    if text is None:
        return None
    return hashlib.sha256(b"text\0" + text).digest()[:16]  # its own domain: never equal to another kind of key


def _any_identity_twice(
    ids: Sequence[Any], cases: Sequence[Any], dimensions: Sequence[Any], trials: Sequence[Any],
    valid: Sequence[bool], frame: Mapping[str, Any] | None,
) -> bool:
    """True when an id, or a (case_id, dimension, trial) of a valid row, occurs twice
    (checked at C speed; ``frame`` may hold the columns as arrays already)."""
    import pandas as pd

    n_none = sum(1 for i in ids if i is None)
    if len(set(ids)) - (1 if n_none else 0) != len(ids) - n_none:
        return True
    if frame is None:
        frame = {"case_id": list(cases), "dimension": list(dimensions), "trial": pd.array(list(trials), dtype="Int64")}
    keys = pd.DataFrame({name: frame[name] for name in ("case_id", "dimension", "trial")})
    keys = keys[np.asarray(valid, dtype=bool) & keys["trial"].notna().to_numpy()]
    return bool(keys.duplicated().any())


def duplicate_identities(
    ids: Sequence[Any],
    cases: Sequence[Any],
    dimensions: Sequence[Any],
    trials: Sequence[Any],
    valid: Sequence[bool],
    lines: Sequence[int],
    source: str,
    *,
    frame: Mapping[str, Any] | None = None,
) -> tuple[list[int], list[Problem]]:
    """Rows sharing an id, or a (case_id, dimension, trial) among valid rows: all invalid.

    Which of two rows claiming one identity is right cannot be known, so none
    counts, and the result cannot depend on which came first. Rows that are
    already invalid (``valid`` false) still claim their id. Returns the sorted
    positions to mark invalid and one problem per newly invalid row (rows
    already invalid keep their own problems).
    """
    if not _any_identity_twice(ids, cases, dimensions, trials, valid, frame):
        return [], []
    by_id: dict[str, list[int]] = {}
    by_trial: dict[tuple[Any, Any, int], list[int]] = {}
    for pos, (rid, case, dim, trial) in enumerate(zip(ids, cases, dimensions, trials, strict=True)):
        if rid is not None:
            by_id.setdefault(rid, []).append(pos)
        if trial is not None and dim is not None and valid[pos]:
            by_trial.setdefault((case, dim, trial), []).append(pos)
    marked: dict[int, Problem] = {}
    for rid, positions in by_id.items():
        if len(positions) > 1:
            where = ", ".join(str(lines[p]) for p in positions)
            for pos in positions:
                marked.setdefault(
                    pos, Problem(source, int(lines[pos]), "id", f"duplicate id {rid!r} (lines {where})", rid)
                )
    for (case, dim, trial), positions in by_trial.items():
        if len(positions) > 1:
            where = ", ".join(str(lines[p]) for p in positions)
            for pos in positions:
                marked.setdefault(pos, Problem(
                    source, int(lines[pos]), "trial",
                    f"trial {trial} of case {case!r} on dimension {dim!r} appears more than once (lines {where})",
                    ids[pos],
                ))
    positions = sorted(marked)
    return positions, [marked[p] for p in positions if valid[p]]


def definition_json(row: dict[str, Any]) -> list[str]:
    """Each definition field as canonical JSON (sorted keys; ``1`` ≠ ``1.0``)."""
    return [json.dumps(row.get(name), sort_keys=True, ensure_ascii=False) for name in DEFINITION_FIELDS]


def case_definition_conflicts(
    cases: Sequence[Any],
    dimensions: Sequence[Any],
    keys: Sequence[bytes | None],
    lines: Sequence[int],
    ids: Sequence[Any],
    source: str,
    row_of: Callable[[int], dict[str, Any]],
) -> tuple[np.ndarray, list[Problem]]:
    """Rows whose (case_id, dimension) carries more than one definition.

    ``keys`` are :func:`definition_key` digests (None for rows already invalid
    and for rows that take their case's definition, :func:`takes_case_definition`:
    neither takes part); ``row_of(pos)`` gives a row back for the rare exact
    check. Returns a boolean mask and one problem per conflicting row, naming
    the fields that differ from the case's first row.
    """
    first: dict[tuple[Any, Any], int] = {}
    suspects: list[int] = []
    for pos, (case, dim, key) in enumerate(zip(cases, dimensions, keys, strict=True)):
        if key is None:
            continue
        ref = first.setdefault((case, dim), pos)
        if ref != pos and keys[ref] != key:
            suspects.append(pos)
    mask = np.zeros(len(keys), dtype=bool)
    problems: list[Problem] = []
    if not suspects:
        return mask, problems
    exact: dict[int, list[str]] = {}

    def definition(pos: int) -> list[str]:
        if pos not in exact:
            exact[pos] = definition_json(row_of(pos))
        return exact[pos]

    conflicted = {
        (cases[pos], dimensions[pos])
        for pos in suspects
        if definition(pos) != definition(first[(cases[pos], dimensions[pos])])
    }
    for pos, (case, dim, key) in enumerate(zip(cases, dimensions, keys, strict=True)):
        if key is None or (case, dim) not in conflicted:
            continue
        mask[pos] = True
        ref = first[(case, dim)]
        differing = [
            name for name, a, b in zip(DEFINITION_FIELDS, definition(pos), definition(ref), strict=True) if a != b
        ]
        detail = (
            f"differs in {', '.join(differing)} from line {lines[ref]}"
            if differing
            else f"line {lines[ref]} differs from other trials"
        )
        problems.append(
            Problem(
                source,
                int(lines[pos]),
                "case_id",
                f"case {case!r} on dimension {dim!r} has more than one definition ({detail}); "
                "one case cannot have two definitions",
                ids[pos],
            )
        )
    return mask, problems


@dataclass
class Validation:
    """Counts and problems of the validation step, as the Scorecard reports them."""

    strict: bool
    labeled: int = 0
    unlabeled: int = 0
    invalid: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """False when strict validation found an invalid or unlabeled row."""
        return not (self.strict and (self.invalid or self.unlabeled))

    def to_dict(self) -> dict[str, Any]:
        return {
            "strict": self.strict,
            "labeled": self.labeled,
            "unlabeled": self.unlabeled,
            "invalid": self.invalid,
            "complete": self.complete,
            "problems": [
                {"source": p.source, "line": p.line, "field": p.field, "message": p.message, "id": p.row_id,
                 "text": str(p)}
                for p in self.problems
            ],
        }
