"""Counted rows → a :class:`~scorekit.Scorecard` (SPEC §5–§10): the validation summary,
the verdicts per dimension, the decision, the findings and the hashes, from the
:class:`~scorekit._tally.Counted` alone, whichever engine counted it."""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ._agreement import judge_agreement
from ._counts import variance_table
from ._decide import decide, dimension_table
from ._errors import Problem
from ._findings import build_findings, low_confidence
from ._hashing import SCORING_VERSION, row_digest
from ._policy import Policy
from ._run_source import partial_reason
from ._scorecard import Scorecard
from ._tally import Counted
from ._validate import Validation
from .scorers.judges import is_mock
from .scorers.pii import scrub

__all__ = ["assemble"]

# The field a user would add to make an unlabeled row labeled.
_UNLABELED_FIELD = {
    "empty_completion_criteria": "must_include",
    "missing_tool_contract": "tool_schemas",
    "missing_action_contract": "expected_actions",
    "missing_injection_check": "canary",
    "missing_judge_criteria": "judge_criteria",
    "missing_judge_votes": "judge_votes",
    "invalid_tool_schema": "tool_schemas",
}


def _scrubbed(problem: Problem) -> Problem:
    """``problem`` with every value the PII detector finds in its message redacted."""
    message = scrub(problem.message)
    return problem if message == problem.message else dataclasses.replace(problem, message=message)


def _unlabeled_problem(source: str, line: int, row_id: str, dimension: str, reason: str, detail: Any) -> Problem:
    field = _UNLABELED_FIELD.get(reason)
    if reason == "missing_budget":
        field = "cost_budget_usd" if dimension == "cost" else "latency_budget_ms"
    message = f"unlabeled ({reason}): nothing in this row can establish success"
    if isinstance(detail, str) and detail:
        message += f" ({detail})"
    return Problem(source, int(line), field or "row", message, row_id)


def _findings(tally_findings: Any, controls: list[dict[str, Any]], result: Any, dims: pd.DataFrame,
              pol: Policy) -> Any:
    """The findings (SPEC §8): the rows' groups, then what the verdicts add, then the advisories."""
    extra: list[tuple[str, str, str, list[str]]] = []
    for c in controls:
        if not c["passed"]:
            extra.append((c["dimension"], "control_failed", "ERROR", [c["case_id"]]))
    for name in result.missing_dimensions:
        extra.append((name, "dimension_missing", "ERROR", []))
    for name, row in dims.iterrows():
        if row["in_scope"] and pd.isna(row["threshold"]):
            extra.append((name, "no_threshold", "ERROR", []))
        if row["verdict"] == "FAIL":
            extra.append((name, "threshold_not_met", "FAIL", []))
    return build_findings(tally_findings, extra, low_confidence(dims, pol))


def assemble(counted: Counted, pol: Policy, *, limit: int | None, source: Mapping[str, Any] | None,
             agent_name: str | None, agent_version: str | None, measured_agent: str | None) -> Scorecard:
    """The Scorecard of ``counted`` under ``pol`` (before any comparison with history)."""
    tally = counted.tally
    hashes = {
        "suite": counted.hashes["suite"],
        "policy": row_digest({"scoring_version": SCORING_VERSION, "policy": pol.hash_payload()}),
        "results": counted.hashes["results"],
        "evidence": counted.hashes["evidence"],
    }
    # Validation summary: every problem, in source order.
    unlabeled_problems = [_unlabeled_problem(counted.source, *row) for row in tally.unlabeled]
    # A problem may quote the row's text: no detected value leaves scorekit (SPEC §3).
    problems = sorted((_scrubbed(p) for p in counted.problems + unlabeled_problems), key=lambda p: (p.line, p.field))
    validation = Validation(strict=pol.strict, **tally.labels, problems=problems)

    # Controls: did the evaluator catch each known-bad row (scored FAIL)?
    controls = tally.controls
    failed_controls = {c["dimension"] for c in controls if not c["passed"]}

    scope, inferred = pol.scope(tally.dimensions)
    cases = tally.cases
    variance = variance_table(tally.runs, confidence=pol.confidence).table
    result = dimension_table(cases, pol, scope, failed_controls, variance)
    dims = result.table
    dims["judge_agreement"] = judge_agreement(counted.agreement, dims.index)  # SPEC §18 (wt-judges)

    # A partial scan, a partial source, or rows from a partial run (SPEC §2, §8, §15): TRIAGE.
    partial = limit is not None or bool(source is not None and source["partial"]) or counted.partial_rows > 0
    # The comparison step comes after the card exists (it needs its hashes).
    comparison_status = "not_requested"
    decision, measured, why = decide(
        policy=pol,
        dimensions=dims,
        missing_dimensions=result.missing_dimensions,
        validation_complete=validation.complete,
        failed_controls=sorted(failed_controls),
        mock_judges=bool(counted.mock_judges) or any(is_mock(j) for j in pol.judges.panel),
        mock_agent=is_mock(measured_agent) or is_mock(agent_name),
        partial=partial,
        partial_reason=partial_reason(limit, source, counted.partial_rows),
        comparison_status=comparison_status,
    )
    in_scope = dims[dims["in_scope"]]
    measured_rows = int(in_scope["n"].sum())
    all_rows = int((in_scope["n"] + in_scope["errors"] + in_scope["abstains"]).sum())
    return Scorecard(
        decision=decision,
        measured_decision=measured,
        decision_reasons=why,
        purpose=pol.purpose,
        scope={
            "required_dimensions": list(pol.gate.required_dimensions),
            "dimensions": list(scope),
            "inferred": inferred,
            "missing_dimensions": list(result.missing_dimensions),
        },
        dimensions=dims,
        evidence_store=counted.store,
        controls=controls,
        findings=_findings(tally.findings, controls, result, dims, pol),
        validation=validation,
        coverage=(measured_rows / all_rows) if all_rows else None,
        judges=sorted(counted.judges_seen),
        agent={"name": agent_name, "version": agent_version},
        policy=pol.to_dict(),
        partial=partial,
        source=dict(source) if source is not None else None,
        comparison={
            "status": comparison_status,
            "required": bool(pol.regression.required),
            "baseline": None,
            "regressions": [],
        },
        hashes=hashes,
        generated_at=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        per_case=tally.per_case,
    )
