"""What the decision reads from the scored rows, reduced (SPEC §5–§9, §16): a :class:`Tally`,
built by the kernel (:mod:`scorekit.kernel`) or by an engine where its rows are (SQL), so the
decision never depends on where the rows were counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ._counts import CaseCounts, RunTotals
from ._errors import Problem
from ._evidence import EvidenceStore
from ._findings import FindingGroups
from ._partial import LABELS

__all__ = ["LABELS", "Counted", "Tally", "control_order", "row_lists"]


@dataclass(frozen=True)
class Tally:
    """The reductions of one evaluation's scored rows."""

    labels: dict[str, int]  # rows per label: labeled, unlabeled, invalid (SPEC §5)
    unlabeled: list[tuple[int, Any, Any, Any, Any]]  # (line, id, dimension, reason, detail), in row order
    # Each control row (SPEC §2 tags known-bad): id, dimension, case_id, passed (scored FAIL: the evaluator
    # caught it), status, reason; sorted by (id, dimension).
    controls: list[dict[str, Any]]
    dimensions: list[str]  # the dimensions of the agent rows (counted, not controls), sorted
    cases: CaseCounts  # status counts per (dimension, case) of the agent rows, compact
    runs: RunTotals  # what run-to-run variance reads
    findings: FindingGroups  # the non-PASS, non-control rows grouped by (dimension, reason)
    # Per (dimension, case) of the agent rows: passes and n, as ``Scorecard.case_counts`` holds them
    # (_counts.flat_case_counts); or a function that counts them when asked (an engine at scale).
    per_case: Any = field(default=None, repr=False)


def row_lists(evidence: pd.DataFrame) -> tuple[dict[str, int], list[tuple[int, Any, Any, Any, Any]],
                                                list[dict[str, Any]]]:
    """The :class:`Tally` parts that list rows: the label counts, the unlabeled rows and the
    controls (sorted) of an evidence frame (or of one partition of it: the counts add up, the
    lists concatenate and sort again)."""
    label_counts = evidence["label"].value_counts()
    unlabeled = evidence.loc[evidence["label"] == "unlabeled", ["line", "id", "dimension", "reason", "detail"]]
    control_rows = evidence[evidence["control"]]
    controls = sorted(({"id": rid, "dimension": dim, "case_id": case, "passed": bool(status == "FAIL"),
                        "status": str(status), "reason": None if reason != reason else reason}
                       for rid, dim, case, status, reason in control_rows[
                           ["id", "dimension", "case_id", "status", "reason"]].itertuples(index=False, name=None)),
                      key=control_order)
    return ({label: int(label_counts.get(label, 0)) for label in LABELS},
            [(int(line), rid, dim, reason, detail)
             for line, rid, dim, reason, detail in unlabeled.itertuples(index=False, name=None)],
            controls)


def control_order(control: dict[str, Any]) -> tuple[str, str]:
    """How controls are listed: by (id, dimension)."""
    return (str(control["id"]), str(control["dimension"]))


@dataclass
class Counted:
    """One evaluation's rows scored, checked and reduced: all :func:`scorekit.evaluate` decides from."""

    source: str  # the rows' name in problems (a file name, ``<rows>``)
    tally: Tally
    hashes: dict[str, str]  # suite, results and evidence (SPEC §10)
    store: EvidenceStore  # the scored rows, in memory or as an evidence/ dataset
    problems: list[Problem] = field(default_factory=list)  # all but the unlabeled rows' (in ``tally``)
    agents: dict[str | None, int] = field(default_factory=dict)  # agents the valid rows name, with their rows
    judges_seen: set[str] = field(default_factory=set)
    mock_judges: set[str] = field(default_factory=set)
    partial_rows: int = 0  # valid rows with partial_run: true (SPEC §2): any makes the evaluation TRIAGE
    # Units of judge agreement per dimension by (valid votes, PASS votes) (Partial.agreement).
    agreement: dict[str, dict[tuple[int, int], int]] = field(default_factory=dict)
