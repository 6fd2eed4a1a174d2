"""``evaluate``: rows → validate → score → controls → counts → verdicts → Scorecard.

Data flows one way; each step lives in its own module. This one only wires them
together and builds the evidence table.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import engines
from ._agreement import judge_agreement
from ._constraints import Integral, Optional, Text, validate
from ._counts import STATUS_DTYPE, flat_case_counts, variance_table
from ._decide import decide, dimension_table
from ._errors import InputError, Problem
from ._evidence import EVIDENCE_ROWS_IN_MEMORY, EvidenceStore, check_threshold
from ._findings import build_findings, low_confidence
from ._hashing import SCORING_VERSION, evidence_digest, packed_list_hash, row_digest
from ._ingest import Ingested
from ._partial import ENCODED, LABELS, SPOOLED, orphan_digests, release_memory, shrink, undefined_pairs
from ._policy import Policy, load_policy
from ._scorecard import Scorecard
from ._spool import Spool
from ._tally import Counted, tally_frame
from ._validate import Validation, case_definition_conflicts, duplicate_identities
from .scorers.judges import is_mock
from .scorers.pii import scrub

__all__ = ["evaluate"]


_LIMIT = Optional(Integral(min=1))
_AGENT = Optional(Text())


_LABELS = pd.CategoricalDtype(list(LABELS))
# The evidence table's columns, in order, as the compact columns name them.
_EVIDENCE = ("id", "dimension", "case_id", "trial", "status", "reason", "detail", "label", "control", "line",
             "evaluator", "agent_output", "cost_usd", "latency_ms", "run")


def _column(name: str, values: Any) -> Any:
    """Evidence column ``name`` from its Arrow ``values`` (of :func:`scorekit._partial.schema`),
    typed like ``read_rows``: text columns take the Arrow buffers as they are."""
    import pyarrow.compute as pc

    if name == "status":
        return pd.Categorical.from_codes(values.to_numpy(), dtype=STATUS_DTYPE)
    if name == "label":
        return pd.Categorical.from_codes(values.to_numpy(), dtype=_LABELS)
    if name == "trial":
        return pd.array(values, dtype="Int64")
    if name in ("cost_usd", "latency_ms"):
        return pc.fill_null(values, np.nan).to_numpy()
    if name in ("control", "line"):
        return values.to_numpy()
    return pd.array(values, dtype="str")


def _evidence(table: Any) -> pd.DataFrame:
    """The evidence table from the compact columns (a ``pyarrow.Table`` of
    :func:`scorekit._partial.schema`)."""
    return pd.DataFrame({name: _column(name, table.column(name)) for name in _EVIDENCE})


def _codes(values: Any) -> tuple[np.ndarray, Any]:
    """Integer codes (-1 where missing) and the dictionary of a dictionary-encoded Arrow column."""
    import pyarrow as pa

    column: Any = pa.table({"v": values}).unify_dictionaries().column("v")
    if not column.num_chunks:
        return np.zeros(0, dtype=np.int32), pa.array([], column.type.value_type)
    indices: Any = pa.chunked_array([chunk.indices for chunk in column.chunks], type=column.type.index_type)
    return indices.fill_null(-1).to_numpy(), column.chunk(0).dictionary


def _counting(table: Any) -> pd.DataFrame:
    """What the cross-row checks and counting read of a shrunk partial's rows (SPEC §16):
    the evidence columns but the spooled ones, the dictionary-encoded ones as categoricals."""
    frame: dict[str, Any] = {}
    for name in _EVIDENCE:
        if name in SPOOLED:
            continue
        values = table.column(name)
        if name in ENCODED:
            codes, dictionary = _codes(values)
            categories = pd.Index(pd.array(dictionary, dtype="str"))
            frame[name] = pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(categories))
        else:
            frame[name] = _column(name, values)
    return pd.DataFrame(frame)


def _segments(counting: pd.DataFrame, spool: Spool, strict: bool) -> Iterator[pd.DataFrame]:
    """The evidence table, segment by segment: the (checked) counting columns of each spool
    segment's rows with its spooled columns, in the evidence columns' order."""
    import pyarrow as pa

    from ._partial import schema

    if not spool.segments():  # no row: the empty table, typed
        evidence = _evidence(schema().empty_table())
        _insert_included(evidence, strict)
        yield evidence
    start = 0
    for key, rows in spool.segments():
        batch = spool.batch(key)
        part = counting.iloc[start: start + rows]
        if not np.array_equal(part["line"].to_numpy(), batch.column("line").to_numpy()):  # pragma: no cover - a bug
            raise AssertionError(f"spooled rows of {key} out of step with the counted rows")
        frame: dict[str, Any] = {}
        for name in _EVIDENCE:
            if name in SPOOLED:
                frame[name] = _column(name, batch.column(name))
            elif name in ENCODED:
                frame[name] = _column(name, pa.array(part[name]).cast(pa.large_string()))
            else:
                frame[name] = part[name].to_numpy() if name in ("control", "line") else part[name].array
        evidence = pd.DataFrame(frame)
        _insert_included(evidence, strict)
        yield evidence
        start += rows
    if start != len(counting):  # pragma: no cover - a bug, never the user's data
        raise AssertionError("spooled rows out of step with the counted rows")


def _python(column: pd.Series) -> list[Any]:
    """``column``'s values as Python objects, None where missing."""
    import pyarrow as pa

    if isinstance(column.dtype, pd.CategoricalDtype) or column.dtype == bool:
        plain: list[Any] = column.tolist()
        if column.hasnans:  # a missing category reads NaN: None, as for the other columns
            return [None if isinstance(value, float) else value for value in plain]
        return plain
    values: list[Any] = pa.array(column).to_pylist()
    return values


def _ids_repeat(ids: pd.Series) -> bool:
    """Whether an id (not missing) occurs twice. 64-bit hashes of the ids, a partition at a
    time, are compared first (8 bytes a row; Arrow's exact count of distinct strings holds
    every string again in a hash table); only when two hashes meet are the ids counted."""
    import pyarrow.compute as pc

    arrow = ids.array.__arrow_array__()  # the Arrow strings, no copy
    chunks = arrow.chunks if hasattr(arrow, "chunks") else [arrow]
    hashes = [pd.util.hash_array(chunk.drop_null().to_numpy(zero_copy_only=False)) for chunk in chunks]
    ordered = np.sort(np.concatenate(hashes)) if hashes else np.zeros(0, dtype=np.uint64)
    if not bool((ordered[1:] == ordered[:-1]).any()):
        return False
    return bool(pc.count_distinct(arrow).as_py() != pc.count(arrow).as_py())


def _integer_codes(values: pd.Series) -> np.ndarray:
    """An int64 code per row, equal for equal values, -1 where missing."""
    codes: np.ndarray
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy().astype(np.int64)
        return codes
    codes = pd.factorize(values, use_na_sentinel=True)[0].astype(np.int64, copy=False)
    return codes


def _duplicates(evidence: pd.DataFrame, source: str) -> tuple[list[int], list[Problem]]:
    """:func:`duplicate_identities` of the evidence rows, its Python-object walk
    taken only when an identity occurs twice (checked on the columns)."""
    valid = (evidence["label"] != "invalid").to_numpy()
    twice = _ids_repeat(evidence["id"])
    if not twice:
        keep = valid & evidence["trial"].notna().to_numpy()
        case, dimension = _integer_codes(evidence["case_id"])[keep], _integer_codes(evidence["dimension"])[keep]
        pair = case * (int(dimension.max(initial=0)) + 2) + (dimension + 1)
        trial = evidence["trial"].to_numpy(dtype=np.int64, na_value=0)[keep]
        order = np.lexsort((trial, pair))
        pair, trial = pair[order], trial[order]
        twice = bool(((pair[1:] == pair[:-1]) & (trial[1:] == trial[:-1])).any())
    if not twice:
        return [], []
    return duplicate_identities(
        _python(evidence["id"]), _python(evidence["case_id"]), _python(evidence["dimension"]),
        _python(evidence["trial"]), valid.tolist(), evidence["line"].tolist(), source,
    )


def _conflicts(evidence: pd.DataFrame, definitions: Any, keyed: np.ndarray, source: str,
               row_of: Callable[[int], dict[str, Any]]) -> tuple[np.ndarray, list[Problem]]:
    """:func:`case_definition_conflicts` of the rows with a definition key
    (``keyed``; ``definitions`` dictionary-encoded), its Python-object walk taken only
    when some (case_id, dimension) carries two keys (checked on the columns)."""
    codes, _ = _codes(definitions)
    pairs = pd.DataFrame({"case_id": evidence["case_id"], "dimension": evidence["dimension"], "key": codes})[keyed]
    if not pairs.drop_duplicates().duplicated(["case_id", "dimension"]).any():
        return np.zeros(len(evidence), dtype=bool), []
    keys = [key if ok else None for key, ok in zip(definitions.to_pylist(), keyed.tolist(), strict=True)]
    return case_definition_conflicts(
        _python(evidence["case_id"]), _python(evidence["dimension"]), keys, evidence["line"].tolist(),
        _python(evidence["id"]), source, row_of,
    )


def _rehash(digests: bytearray, evidence: pd.DataFrame, positions: Any, strict: bool) -> None:
    """Recompute the evidence digest (in ``digests``, 32 bytes a row) of rows whose status changed
    after ingest."""
    positions = sorted(set(positions))
    if not positions:
        return
    rows = evidence.iloc[positions]
    names = ("id", "dimension", "case_id", "trial", "status", "reason", "label", "control")
    for pos, (rid, dimension, case, trial, status, reason, label, control) in zip(
        positions, zip(*(_python(rows[name]) for name in names), strict=True), strict=True
    ):
        digests[32 * pos : 32 * pos + 32] = evidence_digest(
            rid, dimension, case, trial, status, reason, label, control, strict and dimension is not None,
        )


def _mark_invalid(evidence: pd.DataFrame, keyed: np.ndarray, positions: Any, reason: str,
                  problems: Sequence[Problem]) -> None:
    """Rows at ``positions`` become invalid with ``reason`` (and lose their
    definition key); their detail is their problem (the first one of
    ``problems`` on the row's line)."""
    positions = np.asarray(positions, dtype=np.intp)
    if not len(positions):
        return
    message = {p.line: f"{p.field}: {p.message}" for p in reversed(problems)}
    reasons = evidence["reason"]
    if isinstance(reasons.dtype, pd.CategoricalDtype) and reason not in reasons.cat.categories:
        evidence["reason"] = reasons.cat.add_categories([reason])
    fresh = positions[(evidence["label"].iloc[positions] != "invalid").to_numpy()]
    if len(fresh):
        evidence.iloc[fresh, evidence.columns.get_loc("detail")] = [
            message.get(line) for line in evidence["line"].to_numpy()[fresh].tolist()
        ]
    evidence.iloc[positions, evidence.columns.get_loc("status")] = "ERROR"
    evidence.iloc[positions, evidence.columns.get_loc("reason")] = reason
    evidence.iloc[positions, evidence.columns.get_loc("label")] = "invalid"
    keyed[positions] = False


def _row_of(spool: Spool, lines: Sequence[bytes] | None) -> Callable[[int], dict[str, Any]]:
    """Read row ``pos`` again (its kept JSON text, or its line of the file)."""

    def row_of(pos: int) -> dict[str, Any]:
        import json

        raw: Any = spool.value("row_json", pos)
        if raw is None and lines is not None:
            raw = lines[int(spool.value("line", pos)) - 1]
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
    source: Mapping[str, Any] | None = None,
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
        (``scorekit[duckdb]``; their rows are also counted there, so the
        files may be larger than memory). The Scorecard is the same. In
        every engine, a row with ``partial_run: true`` (SPEC §2: it comes from
        a run its source marks partial) decides TRIAGE.
    scheduler : str, optional
        Address of a dask scheduler (engine ``dask``); default: a LocalCluster.
    evidence_rows_in_memory : int, default 10,000,000
        Above this many scored rows the evidence is written as an ``evidence/``
        Parquet dataset and not kept in memory (SPEC §16): ``card.evidence``
        then raises :class:`~scorekit.EvidenceNotInMemoryError` and
        ``card.evidence_dataset()`` reads the rows. The scorecard's numbers
        are the same either way.
    source : dict, optional
        For rows read from a file that ``scorekit import`` wrote: the ``source.json``
        beside it (``agent``, ``task``, ``partial`` and the run's source, SPEC §15). It is
        written into the scorecard, and a partial source decides TRIAGE. Not with an
        ImportedRun, which carries its own.

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
        if source is not None:
            raise InputError("evaluate: source= is for rows read from a file; an ImportedRun carries its own")
        rows = imported.rows
        if agent_name is None:
            agent_name = imported.agent
        source = _source_record(imported)
    elif source is not None:
        source = _given_source(source)
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
        held = list(ingested)  # [source, partial], handed over so _count_rows can let them go
        del ingested
        measured_agent = _one_agent(held[1].agents, agent, held[1].source)
        counted = _count_rows(held, strict, evidence_rows_in_memory)
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
    # A problem may quote the row's text: no detected value leaves scorekit (SPEC §3).
    problems = sorted((_scrubbed(p) for p in counted.problems + unlabeled_problems), key=lambda p: (p.line, p.field))
    validation = Validation(strict=strict, **tally.labels, problems=problems)

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
        partial_reason=_partial_reason(limit, source, counted.partial_rows),
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
        partial=partial,
        source=source,
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


def _count_rows(held: list[Any], strict: bool, threshold: int) -> Counted:
    """Check the scored rows across partitions (duplicate identities, one definition per
    case), hash them, reduce them to a Tally and keep the evidence (the pandas and dask
    engines). ``held`` is [source or None, combined partial], emptied here so that what
    is no longer needed (the source's line index, digests already hashed) goes before the
    next step's peak. Only the compact columns are read; the evidence table is put
    together from them and the spooled columns when it is written or asked for."""
    src: Any = held[0]
    data: Ingested = held[1]
    held.clear()
    if data.spool is None:  # a partial no engine shrank as it arrived
        shrink(data, Spool())
    spool: Spool = data.spool
    # The results digests never change after scoring: hashed and let go first.
    results_hash = packed_list_hash(data.result_digests)
    data.result_digests = bytearray()
    table = data.table()
    data.batches = []  # the table holds the rows now
    evidence = _counting(table)
    definitions = table.column("definition")
    del table
    keyed = definitions.is_valid().to_numpy(zero_copy_only=False)  # rows taking part in the definition check
    # shrink() packed the suite digests; a case only rows without a definition measure joins them (SPEC §2).
    undefined = undefined_pairs(data.orphans, evidence["case_id"], evidence["dimension"], keyed)
    suite_hash = packed_list_hash(data.suite_packed + bytes.fromhex("".join(orphan_digests(undefined))), unique=True)
    data.suite_packed = bytearray()
    duplicates, duplicate_problems = _duplicates(evidence, data.source)
    release_memory()
    _mark_invalid(evidence, keyed, duplicates, "invalid_row", duplicate_problems)
    conflict, conflict_problems = _conflicts(evidence, definitions, keyed, data.source,
                                             _row_of(spool, src.lines if src is not None else None))
    del src, definitions  # the file's lines and the definition keys are no longer needed
    release_memory()
    _mark_invalid(evidence, keyed, np.flatnonzero(conflict), "case_definition_mismatch", conflict_problems)
    _rehash(data.evidence_digests, evidence, [*duplicates, *np.flatnonzero(conflict)], strict)
    if len(data.evidence_digests) != 32 * len(evidence):  # pragma: no cover - a bug, never the user's data
        raise AssertionError("evidence digests out of step with the evidence rows")
    hashes = {
        "suite": suite_hash,
        "results": results_hash,
        "evidence": packed_list_hash(data.evidence_digests),
    }
    data.evidence_digests = bytearray()
    evidence["included"] = _included(evidence, strict)
    tally = tally_frame(evidence)
    del evidence["included"]
    return Counted(
        source=data.source,
        tally=tally,
        hashes=hashes,
        store=EvidenceStore.deferred(lambda: _segments(evidence, spool, strict), rows=len(evidence),
                                     evaluators=sorted(data.evaluators), threshold=threshold,
                                     evidence_hash=hashes["evidence"]),
        problems=data.problems + duplicate_problems + conflict_problems,
        agents=data.agents,
        judges_seen=data.judges_seen,
        mock_judges=data.mock_judges,
        partial_rows=data.partial_rows,
        agreement=data.agreement,
    )


def _included(evidence: pd.DataFrame, strict: bool) -> np.ndarray:
    """Which rows are counted in the statistics. Under release every agent row counts:
    invalid/unlabeled ones as ERROR (they lower coverage and can never pass). An
    exploratory scan drops them."""
    has_dimension: np.ndarray = evidence["dimension"].notna().to_numpy(dtype=bool)
    if strict:
        return has_dimension
    labeled: np.ndarray = (evidence["label"] == "labeled").to_numpy(dtype=bool)
    both: np.ndarray = np.logical_and(has_dimension, labeled)
    return both


def _insert_included(evidence: pd.DataFrame, strict: bool) -> None:
    """Add ``included`` (:func:`_included`) at its place in the evidence table."""
    evidence.insert(9, "included", _included(evidence, strict))


def _imported(rows: Any) -> Any:
    """``rows`` when it is an ImportedRun (SPEC §15), else None (importers are loaded only then)."""
    if type(rows).__name__ != "ImportedRun":
        return None
    from .importers import ImportedRun

    return rows if isinstance(rows, ImportedRun) else None


def _partial_reason(limit: int | None, source: Mapping[str, Any] | None, partial_rows: int) -> str | None:
    """Why the evaluation is partial (TRIAGE), in the decision's reasons: a ``limit`` scan, a
    source that marks its run partial, else rows that say they come from a partial run."""
    why = ["partial scan (limit)"] if limit is not None else []
    if source is not None and source["partial"]:
        from .importers._base import source_line

        why.append(f"partial import ({source_line(source)})")
    elif partial_rows:
        rows = f"{partial_rows} row" + (" says" if partial_rows == 1 else "s say")
        why.append(f"the rows come from a partial run ({rows} partial_run: true)")
    return "; ".join(why) or None


def _given_source(source: Any) -> dict[str, Any]:
    """``source`` (evaluate's argument) as the scorecard records it: a JSON object whose
    ``partial`` is true or false (InputError otherwise)."""
    import json

    if not isinstance(source, Mapping):
        raise InputError(f"source must be a mapping (source.json); got {type(source).__name__}")
    if not isinstance(source.get("partial"), bool):
        raise InputError("source: partial must be true or false (whether the source marks the run partial)")
    try:
        record: dict[str, Any] = json.loads(json.dumps(dict(source), allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InputError(f"source: not JSON data ({exc})") from None
    return record


def _source_record(run: Any) -> dict[str, Any]:
    """The run's ``source`` as recorded in scorecard.json: the agent and task it names, then the source."""
    import json

    # A JSON round trip: only JSON values reach the scorecard (its hash and signature).
    record = {"agent": run.agent, "task": run.task, "partial": bool(run.partial), **run.source}
    plain = dict(json.loads(json.dumps(record, allow_nan=False, default=str)))
    # The source's own texts (notes, error messages) are written out: redacted (SPEC §3).
    return {key: value if key in ("agent", "task") else _scrub_json(value) for key, value in plain.items()}


def _scrub_json(value: Any) -> Any:
    """``value`` (JSON) with every string redacted by the PII detector."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_scrub_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_json(v) for k, v in value.items()}
    return value


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
