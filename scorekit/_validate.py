"""Validation before scoring (SPEC §5): labeled, unlabeled or invalid.

The reader (:mod:`scorekit._rows`) already rejects rows that cannot be
normalised. This module adds the rule that needs all rows at once — one case
cannot have two definitions — and assembles the validation summary the
Scorecard reports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ._errors import Problem

__all__ = ["DEFINITION_FIELDS", "Validation", "case_definition_conflicts", "definition_key"]

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
)


def definition_key(row: dict[str, Any]) -> str:
    """Canonical text of a row's case definition (``1`` and ``1.0`` stay different)."""
    return json.dumps(
        [row.get(name) for name in DEFINITION_FIELDS], sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )


def case_definition_conflicts(
    cases: Sequence[Any], dimensions: Sequence[Any], keys: Sequence[str | None], lines: Sequence[int],
    ids: Sequence[Any], source: str,
) -> tuple[np.ndarray, list[Problem]]:
    """Rows whose (case_id, dimension) carries more than one definition.

    ``keys`` are :func:`definition_key` texts (None for rows already invalid,
    which take no part). Returns a boolean mask and one problem per conflicting
    row, naming the fields that differ from the case's first row.
    """
    first: dict[tuple[Any, Any], int] = {}
    conflicted: set[tuple[Any, Any]] = set()
    for pos, (case, dim, key) in enumerate(zip(cases, dimensions, keys)):
        if key is None:
            continue
        group = (case, dim)
        ref = first.setdefault(group, pos)
        if ref != pos and keys[ref] != key:
            conflicted.add(group)
    mask = np.zeros(len(keys), dtype=bool)
    problems: list[Problem] = []
    if not conflicted:
        return mask, problems
    for pos, (case, dim, key) in enumerate(zip(cases, dimensions, keys)):
        if key is None or (case, dim) not in conflicted:
            continue
        mask[pos] = True
        ref = first[(case, dim)]
        mine, theirs = json.loads(key), json.loads(keys[ref])
        differing = [name for name, a, b in zip(DEFINITION_FIELDS, mine, theirs) if _strict_json(a) != _strict_json(b)]
        detail = f"differs in {', '.join(differing)} from line {lines[ref]}" if differing else f"as line {lines[ref]}, which differs from other trials"
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


def _strict_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


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
