"""The table of imported runs (agent, task, rows, dimensions, coverage, status), as a section-model Table.

``scorekit import`` prints it (:func:`scorekit.reports.text.table_text`) and an
:class:`~scorekit.importers.ImportedRun` shows it in Jupyter (the report's table macro): one
model, so both say the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..reports._sections import Table
    from ._run import ImportedRun

__all__ = ["COLUMNS", "dimension_coverage", "run_status", "runs_table"]

COLUMNS = ("agent", "task", "rows", "dimensions", "coverage", "status")


def dimension_coverage(run: ImportedRun) -> dict[str, tuple[int, int]]:
    """Per dimension: (rows with a measurement — PASS, FAIL or a score —, all rows)."""
    rows = run.rows
    if len(rows) == 0 or "dimension" not in rows:
        return {}
    import pandas as pd

    status = rows["status"] if "status" in rows else pd.Series(pd.NA, index=rows.index, dtype="object")
    score = rows["score"] if "score" in rows else pd.Series(float("nan"), index=rows.index)
    measured = status.isin(["PASS", "FAIL"]) | (status.isna() & score.notna())
    grouped = measured.groupby(rows["dimension"], sort=True)
    return {str(d): (int(m), int(n)) for d, m, n in zip(grouped.sum().index, grouped.sum(), grouped.size(),
                                                       strict=True)}


def run_status(run: ImportedRun) -> str:
    """What the source says of the run, and whether it is partial (an evaluation of it decides TRIAGE)."""
    source: Mapping[str, Any] = run.source
    said = source.get("status") or "status not stated"
    return f"{said}, partial" if run.partial else str(said)


def runs_table(runs: Sequence[ImportedRun]) -> Table:
    """One row per run: agent, task, rows, dimensions, coverage ((PASS+FAIL+scored)/rows), status."""
    from ..reports._format import fmt_count, fmt_pct
    from ..reports._sections import Cell, _code, _num, _table

    body = []
    for run in runs:
        cover = dimension_coverage(run)
        measured = sum(m for m, _ in cover.values())
        total = sum(n for _, n in cover.values())
        body.append([
            _code(run.agent), _code(run.task), _num(fmt_count(len(run.rows))), _num(fmt_count(len(cover))),
            _num(fmt_pct(measured / total if total else None)), Cell(run_status(run)),
        ])
    return _table("imported-runs", list(COLUMNS), body)
