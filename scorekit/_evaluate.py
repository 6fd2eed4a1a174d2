"""``evaluate``: rows → validate → score → controls → counts → verdicts → Scorecard.

Data flows one way; each step lives in its own module. This one only wires them
together and builds the evidence table.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import engines
from ._constraints import Integral, Optional, Text, validate
from ._counts import STATUS_DTYPE, flat_case_counts, variance_table
from ._decide import decide, dimension_table
from ._errors import InputError, Problem
from ._evidence import EVIDENCE_ROWS_IN_MEMORY, EvidenceStore, check_threshold
from ._findings import build_findings, low_confidence
from ._hashing import SCORING_VERSION, evidence_digest, list_hash, packed_list_hash, row_digest
from ._ingest import Ingested
from ._policy import Policy, load_policy
from ._scorecard import Scorecard
from ._tally import Counted, tally_frame
from ._validate import Validation, case_definition_conflicts, duplicate_identities
from .scorers.judges import is_mock

__all__ = ["evaluate"]


_LIMIT = Optional(Integral(min=1))
_AGENT = Optional(Text())


_LABELS = pd.CategoricalDtype(["labeled", "unlabeled", "invalid"])


def _str_array(values: list[Any]) -> Any:
    """A ``str`` array from a list of str/None, built by Arrow (about twice as fast
    as letting pandas infer from Python objects)."""
    import pyarrow as pa  # lazy; pandas has imported it already for its str dtype

    return pd.array(pa.array(values, type=pa.string()), dtype="str")


def _categorical(values: list[str], dtype: pd.CategoricalDtype) -> pd.Categorical:
    """Categorical from values known to be categories, through their codes."""
    codes = {category: code for code, category in enumerate(dtype.categories)}
    try:
        return pd.Categorical.from_codes(
            np.fromiter(map(codes.__getitem__, values), dtype=np.int8, count=len(values)), dtype=dtype
        )
    except KeyError:  # pragma: no cover - every status/label is one of the categories
        return pd.Categorical(values, dtype=dtype)


def _identity(cols: dict[str, list[Any]]) -> dict[str, Any]:
    """The identity columns as arrays (id, dimension, case_id, trial): built once,
    for the duplicate check and the evidence table (later steps never change them)."""
    return {
        "id": _str_array(cols["id"]),
        "dimension": _str_array(cols["dimension"]),
        "case_id": _str_array(cols["case_id"]),
        "trial": pd.array(cols["trial"], dtype="Int64"),
    }


def _evidence(data: Ingested, identity: dict[str, Any]) -> pd.DataFrame:
    """The evidence table from the compact columns, typed like ``read_rows``."""
    cols = data.columns
    return pd.DataFrame(
        {
            **identity,
            "status": _categorical(cols["status"], STATUS_DTYPE),
            "reason": _str_array(cols["reason"]),
            "detail": _str_array(cols["detail"]),
            "label": _categorical(cols["label"], _LABELS),
            "control": np.asarray(cols["control"], dtype=bool),
            "line": np.asarray(cols["line"], dtype=np.int64),
            "evaluator": _str_array(cols["evaluator"]),
            "agent_output": _str_array(cols["agent_output"]),
            "cost_usd": np.array([np.nan if v is None else v for v in cols["cost_usd"]], dtype=np.float64),
            "latency_ms": np.array([np.nan if v is None else v for v in cols["latency_ms"]], dtype=np.float64),
            "run": _str_array(cols["run"]),
        }
    )


def _rehash(data: Ingested, positions: Any, strict: bool) -> None:
    """Recompute the evidence digest of rows whose status changed after ingest."""
    cols = data.columns
    for pos in positions:
        dimension = cols["dimension"][pos]
        data.evidence_digests[32 * pos : 32 * pos + 32] = evidence_digest(
            cols["id"][pos], dimension, cols["case_id"][pos], cols["trial"][pos], cols["status"][pos],
            cols["reason"][pos], cols["label"][pos], cols["control"][pos], strict and dimension is not None,
        )


def _mark_invalid(cols: dict[str, list[Any]], positions: Any, reason: str, problems: Sequence[Problem]) -> None:
    """Rows at ``positions`` become invalid with ``reason``; their detail is their
    problem (the first one of ``problems`` on the row's line)."""
    message = {p.line: f"{p.field}: {p.message}" for p in reversed(problems)}
    for pos in positions:
        if cols["label"][pos] != "invalid":
            cols["detail"][pos] = message.get(cols["line"][pos])
        cols["status"][pos] = "ERROR"
        cols["reason"][pos] = reason
        cols["label"][pos] = "invalid"
        cols["definition"][pos] = None


def _row_of(cols: dict[str, list[Any]], lines: Sequence[bytes] | None) -> Any:
    """Read row ``pos`` again (from the file's lines, or its kept JSON text)."""

    def row_of(pos: int) -> dict[str, Any]:
        import json

        raw = cols["row_json"][pos]
        if raw is None and lines is not None:
            raw = lines[cols["line"][pos] - 1]
        row: dict[str, Any] = json.loads(raw)  # a row's text, already read once as an object
        return row

    return row_of


def evaluate(
    rows: Any,
    policy: Any = None,
    *,
    agent_name: str | None = None,
    agent_version: str | None = None,
    agent: str | None = None,
    limit: int | None = None,
    history: str | os.PathLike[str] | None = None,
    label: str | None = None,
    baseline: str | None = None,
    engine: str = "pandas",
    scheduler: str | None = None,
    evidence_rows_in_memory: int = EVIDENCE_ROWS_IN_MEMORY,
) -> Scorecard:
    """Score captured evaluation rows and decide, fail-closed (SPEC §2–§10).

    Parameters
    ----------
    rows : str, os.PathLike, DataFrame, list of dict or ImportedRun
        A results file (JSON Lines, CSV, Parquet), rows in memory, or a run imported from
        another tool (:func:`scorekit.import_results`, SPEC §15): its rows are evaluated,
        ``agent_name`` defaults to its agent, its ``source`` is written into the scorecard,
        and a partial run decides TRIAGE.
    policy : str, os.PathLike, dict, Policy or None
        Policy file (YAML/JSON), mapping, or None for the defaults (SPEC §7).
    agent_name, agent_version : str, optional
        Identity of the agent measured (recorded; used by history).
        ``agent_name`` defaults to ``agent``, else to the one agent the rows name.
    agent : str, optional
        Evaluate only the rows whose ``agent`` field is this (SPEC §2). One
        evaluation measures one agent: rows naming two or more agents without
        ``agent`` are an :class:`~scorekit.InputError` naming them.
    limit : int, optional
        Score only the first ``limit`` rows: a partial scan, decided TRIAGE.
    history : str or os.PathLike, optional
        SQLite history database (SPEC §10). When given, the evaluation is
        compared with its baseline there and then recorded; without it a
        required comparison is ``missing`` (INCOMPLETE).
    label : str, optional
        Label of this evaluation's history record.
    baseline : str, optional
        Compare with the latest record with this label (default: the policy's
        ``regression.baseline``, else the latest comparable eligible record).
    engine : {"pandas", "dask", "duckdb"}
        Where rows are scored (SPEC §16): in process and local worker
        processes; on a dask.distributed cluster (``scorekit[dask]``; JSON
        Lines or Parquet files or a dask DataFrame); or pre-scored rows in
        Parquet, CSV or JSON Lines files read and screened by DuckDB
        (``scorekit[duckdb]``; Parquet rows are also counted there, so the
        files may be larger than memory). The Scorecard is the same.
    scheduler : str, optional
        Address of a dask scheduler (engine ``dask``); default: a LocalCluster.
    evidence_rows_in_memory : int, default 10,000,000
        Above this many scored rows the evidence is written as an ``evidence/``
        Parquet dataset and not kept in memory (SPEC §16): ``card.evidence``
        then raises :class:`~scorekit.EvidenceNotInMemoryError` and
        ``card.evidence_dataset()`` reads the rows. The scorecard's numbers
        are the same either way.

    Returns
    -------
    Scorecard

    Raises
    ------
    InputError
        When ``rows`` cannot be read as rows at all, name several agents and
        ``agent`` is not given, or hold no row of ``agent``.
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
    limit = validate(limit, "limit", _LIMIT)
    evidence_rows_in_memory = check_threshold(evidence_rows_in_memory)
    imported = _imported(rows)
    if imported is not None:
        rows = imported.rows
        if agent_name is None:
            agent_name = imported.agent
    agent = validate(agent, "agent", _AGENT)
    ctx_args = {
        "budgets": dict(pol.budgets),
        "judge_panel": tuple(pol.judges.panel),
        "pass_score": pol.judges.pass_score,
        "partial": pol.partial if isinstance(pol.partial, str) else dict(pol.partial),
        "agent": agent,
        "tool_contracts": dict(pol.tool_contracts.schemas) if pol.tool_contracts is not None else None,
    }
    strict = pol.strict
    ingested = engines.ingest(rows, ctx_args, engine=engine, scheduler=scheduler, limit=limit, strict=strict,
                              evidence_rows_in_memory=evidence_rows_in_memory)
    if isinstance(ingested, Counted):  # an engine that counted where its rows are (SPEC §16)
        counted = ingested
        measured_agent = _one_agent(counted.agents, agent, counted.source)
    else:
        src, data = ingested
        measured_agent = _one_agent(data.agents, agent, data.source)
        counted = _count_rows(src, data, strict, evidence_rows_in_memory)
        del src, data
    if agent_name is None:
        agent_name = measured_agent
    tally = counted.tally
    hashes = {
        "suite": counted.hashes["suite"],
        "policy": row_digest({"scoring_version": SCORING_VERSION, "policy": pol.hash_payload()}),
        "results": counted.hashes["results"],
        "evidence": counted.hashes["evidence"],
    }
    # Validation summary: every problem, in source order.
    unlabeled_problems = [_unlabeled_problem(counted.source, *row) for row in tally.unlabeled]
    problems = sorted(counted.problems + unlabeled_problems, key=lambda p: (p.line, p.field))
    validation = Validation(strict=strict, **tally.labels, problems=problems)

    # Controls: did the evaluator catch each known-bad row (scored FAIL)?
    controls = tally.controls
    failed_controls = {c["dimension"] for c in controls if not c["passed"]}

    scope, inferred = pol.scope(tally.dimensions)
    cases = tally.cases
    variance = variance_table(tally.runs, confidence=pol.confidence).table
    result = dimension_table(cases, pol, scope, failed_controls, variance)
    dims = result.table

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
        partial=limit is not None or (imported is not None and imported.partial),
        partial_reason=_partial_reason(limit, imported),
        comparison_status=comparison_status,
    )

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
    advisories = low_confidence(dims, pol)
    findings = build_findings(tally.findings, extra, advisories)

    in_scope = dims[dims["in_scope"]]
    measured_rows = int(in_scope["n"].sum())
    all_rows = int((in_scope["n"] + in_scope["errors"] + in_scope["abstains"]).sum())
    card = Scorecard(
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
        findings=findings,
        validation=validation,
        coverage=(measured_rows / all_rows) if all_rows else None,
        judges=sorted(counted.judges_seen),
        agent={"name": agent_name, "version": agent_version},
        policy=pol.to_dict(),
        partial=limit is not None or (imported is not None and imported.partial),
        source=None if imported is None else _source_record(imported),
        comparison={
            "status": comparison_status,
            "required": bool(pol.regression.required),
            "baseline": None,
            "regressions": [],
        },
        hashes=hashes,
        generated_at=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        case_counts=flat_case_counts(cases),
    )
    from . import history as _history

    comparison = _history.compare(card, history, baseline_label=baseline)  # no history: no I/O
    compared: Scorecard = _history.with_comparison(card, comparison)  # history.py is not type-checked yet
    if history is not None:
        _history.record(compared, history, label=label)
    return compared


def _count_rows(src: Any, data: Ingested, strict: bool, threshold: int) -> Counted:
    """Check the scored rows across partitions (duplicate identities, one definition per
    case), hash them, build the evidence table and reduce it (the pandas and dask engines)."""
    cols = data.columns
    identity = _identity(cols)
    duplicates, duplicate_problems = duplicate_identities(
        cols["id"], cols["case_id"], cols["dimension"], cols["trial"], [label != "invalid" for label in cols["label"]],
        cols["line"], data.source, frame=identity,
    )
    _mark_invalid(cols, duplicates, "invalid_row", duplicate_problems)
    conflict, conflict_problems = case_definition_conflicts(
        cols["case_id"], cols["dimension"], cols["definition"], cols["line"], cols["id"], data.source,
        _row_of(cols, src.lines if src is not None else None),
    )
    del src  # the file's lines are no longer needed
    _mark_invalid(cols, np.flatnonzero(conflict), "case_definition_mismatch", conflict_problems)
    _rehash(data, [*duplicates, *np.flatnonzero(conflict)], strict)
    if len(data.evidence_digests) != 32 * len(data):  # pragma: no cover - a bug, never the user's data
        raise AssertionError("evidence digests out of step with the evidence rows")
    hashes = {
        "suite": list_hash(data.suite_digests, sort=True, unique=True),
        "results": packed_list_hash(data.result_digests),
        "evidence": packed_list_hash(data.evidence_digests),
    }
    evidence = _evidence(data, identity)
    data.columns = {}  # the compact lists are in the frame now
    # Under release every agent row counts: invalid/unlabeled ones as ERROR (they
    # lower coverage and can never pass). An exploratory scan drops them.
    has_dimension = evidence["dimension"].notna().to_numpy()
    if strict:
        evidence.insert(9, "included", has_dimension)
    else:
        evidence.insert(9, "included", has_dimension & (evidence["label"] == "labeled").to_numpy())
    return Counted(
        source=data.source,
        tally=tally_frame(evidence),
        hashes=hashes,
        store=EvidenceStore.keep(evidence, threshold=threshold, evidence_hash=hashes["evidence"]),
        problems=data.problems + duplicate_problems + conflict_problems,
        agents=data.agents,
        judges_seen=data.judges_seen,
        mock_judges=data.mock_judges,
    )


def _imported(rows: Any) -> Any:
    """``rows`` when it is an ImportedRun (SPEC §15), else None (importers are loaded only then)."""
    if type(rows).__name__ != "ImportedRun":
        return None
    from .importers import ImportedRun

    return rows if isinstance(rows, ImportedRun) else None


def _partial_reason(limit: int | None, imported: Any) -> str | None:
    """Why the evaluation is partial (TRIAGE), in the decision's reasons."""
    if limit is not None:
        return None  # decide's own wording for a --limit scan
    if imported is not None and imported.partial:
        from .importers._base import source_line

        return f"partial import ({source_line(imported.source)})"
    return None


def _source_record(run: Any) -> dict[str, Any]:
    """The run's ``source`` as recorded in scorecard.json: the agent and task it names, then the source."""
    import json

    # A JSON round trip: only JSON values reach the scorecard (its hash and signature).
    record = {"agent": run.agent, "task": run.task, "partial": bool(run.partial), **run.source}
    return dict(json.loads(json.dumps(record, allow_nan=False, default=str)))


def _agent_list(agents: Any) -> str:
    return ", ".join(
        "(rows without agent)" if a is None else repr(a) for a in sorted(agents, key=lambda a: (a is None, a or ""))
    )


def _one_agent(agents: dict[str | None, int], selected: str | None, source: str) -> str | None:
    """The agent the evaluated rows measure (SPEC §2: one evaluation, one agent)."""
    named = [a for a in agents if a is not None]
    if selected is not None:
        if selected not in agents:
            found = f"; the rows name {_agent_list(agents)}" if named else "; no row names an agent"
            raise InputError(f"{source}: no row of agent {selected!r}{found}")
        return selected
    if len(agents) > 1:
        raise InputError(
            f"{source}: rows of {len(agents)} agents ({_agent_list(agents)}); one evaluation measures one agent: "
            "choose one with --agent NAME (evaluate(..., agent=NAME))"
        )
    return named[0] if named else None


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


def _unlabeled_problem(source: str, line: int, row_id: str, dimension: str, reason: str, detail: Any) -> Problem:
    field = _UNLABELED_FIELD.get(reason)
    if reason == "missing_budget":
        field = "cost_budget_usd" if dimension == "cost" else "latency_budget_ms"
    message = f"unlabeled ({reason}): nothing in this row can establish success"
    if isinstance(detail, str) and detail:
        message += f" ({detail})"
    return Problem(source, int(line), field or "row", message, row_id)
