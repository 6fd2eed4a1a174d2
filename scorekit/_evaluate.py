"""``evaluate``: rows → validate → score → controls → counts → verdicts → Scorecard.

Data flows one way; each step lives in its own module. This one only wires them
together and builds the evidence table.
"""

from __future__ import annotations

import datetime as _dt
import numbers
from typing import Any

import numpy as np
import pandas as pd

from ._counts import STATUS_DTYPE, count_cases
from ._decide import decide, dimension_table
from ._errors import Problem
from ._findings import build_findings
from ._policy import Policy, load_policy
from ._rows import RowTable, read_row_table
from ._scorecard import Scorecard
from ._validate import Validation, case_definition_conflicts
from .scorers import Context, Outcome, scorer_for

__all__ = ["evaluate", "score_table"]


def _check_limit(limit: Any) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, numbers.Integral) or limit < 1:
        raise ValueError(f"limit must be a positive integer or None; got {limit!r}")
    return int(limit)


def _apply_limit(table: RowTable, limit: int) -> RowTable:
    """Keep the first ``limit`` rows of the source (valid or not), in source order."""
    all_lines = np.sort(np.concatenate([table.lines, np.array([r["line"] for r in table.invalid], dtype=np.int64)]))
    if len(all_lines) <= limit:
        return table
    cutoff = all_lines[limit - 1]
    keep = table.lines <= cutoff
    return RowTable(
        frame=table.frame.loc[keep].reset_index(drop=True),
        lines=table.lines[keep],
        problems=[p for p in table.problems if p.line <= cutoff],
        invalid=[r for r in table.invalid if r["line"] <= cutoff],
        source=table.source,
        records=[r for r, k in zip(table.records, keep) if k],
    )


def _prescored(row: dict[str, Any]) -> Outcome:
    status = row["status"]
    if status == "PASS":
        return Outcome("PASS", None, True)
    reason = row.get("reason") or f"prescored_{status.lower()}"
    return Outcome(status, reason, True)


def score_table(records: list[dict[str, Any]], ctx: Context) -> tuple[list[str], list[str | None], list[bool]]:
    """Score every row: a valid pre-scored ``status`` wins, else the dimension's scorer."""
    statuses: list[str] = []
    reasons: list[str | None] = []
    labeled: list[bool] = []
    scorers: dict[str, Any] = {}
    for row in records:
        if "status" in row:
            outcome = _prescored(row)
        else:
            dimension = row["dimension"]
            scorer = scorers.get(dimension)
            if scorer is None:
                scorer = scorers[dimension] = scorer_for(dimension)
            outcome = scorer(row, ctx)
            if not outcome.labeled and outcome.status == "PASS":  # fail closed
                outcome = Outcome("ERROR", outcome.reason or "unlabeled", False)
        statuses.append(outcome.status)
        reasons.append(outcome.reason)
        labeled.append(outcome.labeled)
    return statuses, reasons, labeled


def _evidence(table: RowTable, statuses, reasons, labels, conflict: np.ndarray, strict: bool) -> pd.DataFrame:
    frame = table.frame.copy()
    frame["status"] = pd.Categorical(statuses, dtype=STATUS_DTYPE)
    frame["reason"] = pd.array(reasons, dtype="str")
    label = np.where(np.asarray(labels, dtype=bool), "labeled", "unlabeled").astype(object)
    label[conflict] = "invalid"
    frame.loc[conflict, "status"] = "ERROR"
    frame.loc[conflict, "reason"] = "case_definition_mismatch"
    frame["label"] = label
    frame["line"] = table.lines
    if table.invalid:
        bad = pd.DataFrame(
            {
                "id": [r.get("id") for r in table.invalid],
                "dimension": [r.get("dimension") for r in table.invalid],
                "case_id": [r.get("case_id", r.get("id")) for r in table.invalid],
                "status": pd.Categorical(["ERROR"] * len(table.invalid), dtype=STATUS_DTYPE),
                "reason": ["invalid_row"] * len(table.invalid),
                "label": ["invalid"] * len(table.invalid),
                "control": [False] * len(table.invalid),
                "line": [r["line"] for r in table.invalid],
            }
        )
        frame = pd.concat([frame, bad], ignore_index=True)
        frame = frame.sort_values("line", kind="stable").reset_index(drop=True)
    frame["label"] = frame["label"].astype("category")
    frame["control"] = frame["control"].fillna(False).astype(bool)
    for name in ("id", "dimension", "case_id", "reason"):
        frame[name] = frame[name].astype("str")
    # Under release every agent row counts: invalid/unlabeled ones as ERROR (they
    # lower coverage and can never pass). An exploratory scan drops them.
    has_dimension = frame["dimension"].notna()
    if strict:
        frame["included"] = has_dimension.to_numpy()
    else:
        frame["included"] = (has_dimension & (frame["label"] == "labeled")).to_numpy()
    leading = ["id", "dimension", "case_id", "trial", "status", "reason", "label", "control", "included", "line"]
    return frame[leading + [c for c in frame.columns if c not in leading]]


def evaluate(
    rows: Any,
    policy: Any = None,
    *,
    agent_name: str | None = None,
    agent_version: str | None = None,
    limit: int | None = None,
) -> Scorecard:
    """Score captured evaluation rows and decide, fail-closed (SPEC §2–§9).

    Parameters
    ----------
    rows : str, os.PathLike, DataFrame or list of dict
        A results file (JSON Lines, CSV, Parquet) or rows in memory.
    policy : str, os.PathLike, dict, Policy or None
        Policy file (YAML/JSON), mapping, or None for the defaults (SPEC §7).
    agent_name, agent_version : str, optional
        Identity of the agent measured (recorded; used by history).
    limit : int, optional
        Score only the first ``limit`` rows: a partial scan, decided TRIAGE.

    Returns
    -------
    Scorecard

    Raises
    ------
    InputError
        Only when ``rows`` cannot be read as rows at all.
    PolicyError
        When the policy is malformed.

    Examples
    --------
    >>> import scorekit as sk
    >>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    >>> card.decision, card.overall_pass
    ('FAIL', False)
    """
    pol: Policy = load_policy(policy)
    limit = _check_limit(limit)
    table = read_row_table(rows)
    if limit is not None:
        table = _apply_limit(table, limit)
    conflict, conflict_problems = case_definition_conflicts(table.records, table.lines, table.source)
    ctx = Context(
        budgets=dict(pol.budgets),
        judge_panel=tuple(pol.judges.panel),
        pass_score=pol.judges.pass_score,
    )
    statuses, reasons, labels = score_table(table.records, ctx)
    strict = pol.strict
    evidence = _evidence(table, statuses, reasons, labels, conflict, strict)

    # Validation summary: every problem, in source order.
    unlabeled_problems = [
        _unlabeled_problem(table.source, line, rid, dim, reason)
        for line, rid, dim, reason, lab in zip(
            evidence["line"], evidence["id"], evidence["dimension"], evidence["reason"], evidence["label"]
        )
        if lab == "unlabeled"
    ]
    problems = sorted(table.problems + conflict_problems + unlabeled_problems, key=lambda p: (p.line, p.field))
    label_counts = evidence["label"].value_counts()
    validation = Validation(
        strict=strict,
        labeled=int(label_counts.get("labeled", 0)),
        unlabeled=int(label_counts.get("unlabeled", 0)),
        invalid=int(label_counts.get("invalid", 0)),
        problems=problems,
    )

    # Controls: did the evaluator catch each known-bad row (scored FAIL)?
    control_rows = evidence[evidence["control"]]
    controls = [
        {"id": rid, "dimension": dim, "case_id": case, "passed": bool(status == "FAIL"), "status": str(status),
         "reason": None if reason != reason else reason}
        for rid, dim, case, status, reason in zip(
            control_rows["id"], control_rows["dimension"], control_rows["case_id"], control_rows["status"],
            control_rows["reason"],
        )
    ]
    failed_controls = {c["dimension"] for c in controls if not c["passed"]}

    agent = evidence[evidence["included"] & ~evidence["control"]]
    scope, inferred = pol.scope(sorted(agent["dimension"].dropna().unique().tolist()))
    cases = count_cases(agent)
    result = dimension_table(cases, pol, scope, failed_controls)
    dims = result.table

    comparison_status = "missing" if pol.regression.required else "not_requested"
    decision, measured, why = decide(
        policy=pol,
        dimensions=dims,
        missing_dimensions=result.missing_dimensions,
        validation_complete=validation.complete,
        mock_judges=bool(ctx.mock_judges),
        partial=limit is not None,
        comparison_status=comparison_status,
    )

    extra: list[tuple[str, str, str, list[str]]] = []
    for c in controls:
        if not c["passed"]:
            extra.append((c["dimension"], "control_failed", "ERROR", [c["case_id"]]))
    for name in result.missing_dimensions:
        extra.append((name, "dimension_missing", "ERROR", []))
    for name, row in dims.iterrows():
        if row["in_scope"] and row["threshold"] is None:
            extra.append((name, "no_threshold", "ERROR", []))
    findings = build_findings(evidence, extra)

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
        evidence=evidence,
        controls=controls,
        findings=findings,
        validation=validation,
        coverage=(measured_rows / all_rows) if all_rows else None,
        judges=sorted(ctx.judges_seen),
        agent={"name": agent_name, "version": agent_version},
        policy=pol.to_dict(),
        partial=limit is not None,
        comparison={
            "status": comparison_status,
            "required": bool(pol.regression.required),
            "baseline": None,
            "regressions": [],
        },
        generated_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    )


# The field a user would add to make an unlabeled row labeled.
_UNLABELED_FIELD = {
    "empty_completion_criteria": "must_include",
    "missing_tool_contract": "tool_schemas",
    "missing_action_contract": "expected_actions",
    "missing_injection_check": "canary",
    "missing_judge_criteria": "judge_criteria",
    "missing_judge_votes": "judge_votes",
}


def _unlabeled_problem(source: str, line: int, row_id: str, dimension: str, reason: str) -> Problem:
    field = _UNLABELED_FIELD.get(reason)
    if reason == "missing_budget":
        field = "cost_budget_usd" if dimension == "cost" else "latency_budget_ms"
    message = f"unlabeled ({reason}): nothing in this row can establish success"
    return Problem(source, int(line), field or "row", message, row_id)
