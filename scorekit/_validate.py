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
import pandas as pd

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
    records: Sequence[dict[str, Any]], lines: np.ndarray, source: str
) -> tuple[np.ndarray, list[Problem]]:
    """Rows whose (case_id, dimension) carries more than one definition.

    Returns a boolean mask over ``records`` and one problem per conflicting row,
    naming the fields that differ from the case's first row.
    """
    cases = [r.get("case_id", r["id"]) for r in records]
    dimensions = [r["dimension"] for r in records]
    frame = pd.DataFrame({"case": cases, "dimension": dimensions, "key": [definition_key(r) for r in records]})
    if frame.empty:
        return np.zeros(0, dtype=bool), []
    distinct = frame.groupby(["case", "dimension"], sort=False)["key"].transform("nunique")
    mask = distinct.to_numpy() > 1
    problems: list[Problem] = []
    if mask.any():
        first: dict[tuple[str, str], int] = {}
        for pos, group in enumerate(zip(cases, dimensions)):
            first.setdefault(group, pos)
        for pos in np.flatnonzero(mask):
            row = records[pos]
            group = (cases[pos], dimensions[pos])
            ref = records[first[group]]
            differing = [f for f in DEFINITION_FIELDS if row.get(f) != ref.get(f) or type(row.get(f)) is not type(ref.get(f))]
            detail = ", ".join(differing) if differing else "the same fields in another row"
            problems.append(
                Problem(
                    source,
                    int(lines[pos]),
                    "case_id",
                    f"case {group[0]!r} on dimension {group[1]!r} has more than one definition "
                    f"(differs in {detail} from line {int(lines[first[group]])}); one case cannot have two definitions",
                    row.get("id"),
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
