"""The result of an import: one :class:`ImportedRun` per (agent, task, source log) (SPEC §15).

Every format module under :mod:`scorekit.importers` turns another tool's file into a list of
these; nothing downstream knows which tool wrote the file. The rows are ordinary SPEC §2 rows
and pass the same validation and scoring as any other rows.

A run knows its own facts (:func:`run_status`, :func:`dimension_coverage`) but not how it is
shown: Jupyter's ``_repr_html_`` asks :mod:`scorekit._renderers` for ``imported_runs.html``,
which the front door registers (:func:`scorekit.notebook.imported_runs_html`, the table
:func:`scorekit.reports._sections.runs_table` that ``scorekit import`` prints too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._renderers import renderer

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ImportedRun", "ImportedRuns", "SOURCE_STATUSES", "dimension_coverage", "run_status"]

#: What a source may say of its own run (``source["status"]``); ``None`` where the format states none.
SOURCE_STATUSES = ("success", "cancelled", "error", "started")


@dataclass(frozen=True, eq=False)
class ImportedRun:
    """One run of one agent on one task, read from another tool's file.

    Attributes
    ----------
    agent : str
        The agent (model, provider) measured; every row's ``agent`` field says the same.
    task : str
        The task (eval, suite) the source names.
    rows : pandas.DataFrame
        SPEC §2 rows (``id``, ``dimension``, ``case_id``, ``trial``, ``status``/``score``,
        ``evaluator``, ``reason``, ``agent``, ``run``, inputs and measured fields). Every row
        of a partial run carries ``partial_run: true`` (set here, whatever built the run).
    partial : bool
        The source marks the run cancelled, errored or limited, or fewer samples ran than its
        dataset holds: an evaluation of it decides TRIAGE (SPEC §8). The run's partiality
        travels with its rows (SPEC §15): the rows alone, or any frame or file made of them,
        decide TRIAGE too.
    source : dict
        ``format``, ``files``, ``status`` (one of :data:`SOURCE_STATUSES` or None),
        ``samples_run``, ``epochs``, ``dataset_size`` and ``limit`` where stated, ``created``,
        ``harness`` and ``harness_version``, ``metrics`` (the source's own headline metrics) and
        ``notes`` (a list of str: every mapping decision the importer made).
    """

    agent: str
    task: str
    rows: pd.DataFrame
    partial: bool
    source: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.partial and hasattr(self.rows, "assign"):
            # A copy: the frame the format module built stays as it was (copy-on-write, no data copied).
            object.__setattr__(self, "rows", self.rows.assign(partial_run=True))

    @property
    def notes(self) -> list[str]:
        """The importer's mapping decisions (``source["notes"]``)."""
        return list(self.source.get("notes", []))

    def _repr_html_(self) -> str:
        """Jupyter: the run as a one-row table (agent, task, rows, dimensions, coverage, status)."""
        html: str = renderer("imported_runs.html")([self])
        return html

    def __repr__(self) -> str:
        return (f"<ImportedRun agent={self.agent!r} task={self.task!r} rows={len(self.rows)} "
                f"status={run_status(self)!r}>")


class ImportedRuns(list[ImportedRun]):
    """What :func:`scorekit.import_results` returns: a list of runs that Jupyter shows as one table.

    The table is the one ``scorekit import`` prints (agent, task, rows, dimensions, coverage,
    status), one row per run.
    """

    def _repr_html_(self) -> str:
        html: str = renderer("imported_runs.html")(list(self))
        return html


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
