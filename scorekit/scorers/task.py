"""``task_completion``: required and forbidden content in the agent's output (SPEC §3).

Every ``must_include`` string must appear in ``agent_output`` and no
``must_not_include`` string may, both compared case-insensitively (Unicode case
folding). Empty strings are not criteria (every text contains ``""``); a row
without any criterion cannot establish success (unlabeled).

Order: no criteria → unlabeled ``empty_completion_criteria`` (a property of the
answer key, whatever was measured); no output → ERROR ``missing_output``; a
forbidden string present → FAIL ``forbidden_content`` (reported when both
failures apply: it is the more severe finding); a required string missing →
FAIL ``missing_required_content``; else PASS.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._base import Context, Outcome, error, failed, passed, unlabeled

__all__ = ["REASONS", "score"]

REASONS = {
    "empty_completion_criteria": (
        "neither must_include nor must_not_include has a criterion: nothing can establish success"
    ),
    "missing_output": "the row has no agent_output (missing evidence)",
    "forbidden_content": "the output contains a must_not_include string",
    "missing_required_content": "the output lacks a must_include string",
}


def _criteria(row: Mapping[str, Any], key: str) -> list[str]:
    value = row.get(key)
    if not isinstance(value, (list, tuple)):
        return []
    return [item for item in value if isinstance(item, str) and item]


def _listed(items: list[str]) -> str:
    return ", ".join(repr(item) for item in items)


def score(row: Mapping[str, Any], ctx: Context) -> Outcome:
    """Score one ``task_completion`` row (see the module docstring).

    A FAIL's detail names the answer key's strings that decided it (the key's
    own words, never the output's).
    """
    required = _criteria(row, "must_include")
    banned = _criteria(row, "must_not_include")
    if not required and not banned:
        return unlabeled("empty_completion_criteria", "must_include and must_not_include are empty")
    output = row.get("agent_output")
    if not isinstance(output, str):
        return error("missing_output", "the row has no agent_output")
    text = output.casefold()
    present = [item for item in banned if item.casefold() in text]
    if present:
        return failed("forbidden_content", f"must_not_include present: {_listed(present)}")
    absent = [item for item in required if item.casefold() not in text]
    if absent:
        return failed("missing_required_content", f"must_include missing: {_listed(absent)}")
    return passed()
