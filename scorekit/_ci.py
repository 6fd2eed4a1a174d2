"""What ``scorekit run --gate`` tells a CI system (SPEC §17): a job summary, annotations, JUnit.

All three are drawn from the section model (:mod:`scorekit.reports._sections`),
so the numbers are the reports' own:

* :func:`step_summary` — the decision banner and the summary table as plain
  GitHub Markdown, appended (never overwritten: other steps write there too) to the
  file ``$GITHUB_STEP_SUMMARY`` names, by :func:`append_step_summary`;
* :func:`gate_annotations` — one ``::error::`` workflow command per dimension that
  stops the release (FAIL, or INCOMPLETE: nothing decided is not a pass), with
  user text escaped (:func:`scorekit._escape.workflow_command`);
* JUnit XML — :mod:`scorekit.reports.junit`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ._errors import ScorekitError
from ._escape import workflow_command

if TYPE_CHECKING:
    from .reports._sections import Sections

__all__ = ["SUMMARY_ENV", "append_step_summary", "gate_annotations", "step_summary"]

#: The environment variable GitHub Actions sets to the job summary file.
SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
_BLOCKING = ("FAIL", "INCOMPLETE")


def step_summary(sections: Sections) -> str:
    """The job summary: heading, decision banner with its reasons and what a verdict means at the stated
    level, the summary table, each dimension's notes (assurance, rate bounds, pass^1, judge agreement) and,
    when a comparison ran, its tests with the regressed and improved cases (Markdown)."""
    from .notebook import Report

    report = Report(sections)
    summary = report.decision(heading="scorekit run") + report.summary()
    if sections.dimension_notes:
        summary += report.dimension_notes()
    if sections.regressions is not None:
        summary += report.comparison()
    return summary.markdown.rstrip("\n") + "\n"


def append_step_summary(sections: Sections, environ: Mapping[str, str] | None = None) -> Path | None:
    """Append :func:`step_summary` to ``$GITHUB_STEP_SUMMARY``; None when the variable is unset or empty.

    Raises
    ------
    ScorekitError
        The file cannot be appended to (one line naming it).
    """
    target = (os.environ if environ is None else environ).get(SUMMARY_ENV, "")
    if not target:
        return None
    path = Path(target)
    text = step_summary(sections)
    try:
        with open(path, "a", encoding="utf-8", newline="\n") as handle:
            if handle.tell() > 0:
                text = "\n" + text  # a blank line after what earlier steps wrote
            handle.write(text)
    except OSError as exc:
        raise ScorekitError(f"{path}: cannot append the job summary (${SUMMARY_ENV}): "
                            f"{exc.strerror or exc}") from None
    return path


def gate_annotations(sections: Sections) -> list[str]:
    """One ``::error::`` line per dimension in scope whose verdict stops the release."""
    table = sections.thresholds
    verdict_at, reasons_at = table.column("verdict"), table.column("verdict reasons")
    rate_at, threshold_at = table.column("rate"), table.column("threshold")
    lines = []
    for cells in table.rows:
        verdict = cells[verdict_at].text
        if verdict not in _BLOCKING:
            continue
        dimension = cells[0].text
        message = (f"{dimension} {verdict}: rate {cells[rate_at].text}, threshold {cells[threshold_at].text}; "
                   f"{cells[reasons_at].text}")
        lines.append(workflow_command("error", message, title=f"scorekit gate: {dimension}"))
    return lines
