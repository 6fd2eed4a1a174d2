"""``evaluate``: policy → rows scored (an engine) → counted (the kernel) → decided → Scorecard → history.

Data flows one way; each step lives in its own module. This one only wires them together.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from . import engines
from ._agents import one_agent
from ._assemble import assemble
from ._constraints import Integral, Optional, Text, validate
from ._errors import InputError
from ._evidence import EVIDENCE_ROWS_IN_MEMORY, check_threshold
from ._policy import Policy, load_policy
from ._run_source import given_source, imported_run, source_record
from ._scorecard import Scorecard
from ._tally import Counted

__all__ = ["evaluate"]


_LIMIT = Optional(Integral(min=1))
_AGENT = Optional(Text())


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
        A results file (JSON Lines, CSV, Parquet), rows in memory, or a run imported from another
        tool (:func:`scorekit.import_results`, SPEC §15: ``agent_name`` defaults to its agent, its
        ``source`` goes into the scorecard, a partial run decides TRIAGE). In every engine a row
        with ``partial_run: true`` (SPEC §2) decides TRIAGE.
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
        SQLite history database (SPEC §10): the evaluation is compared with its baseline there,
        then recorded; without it a required comparison is ``missing`` (INCOMPLETE).
    label : str, optional
        Label of this evaluation's history record.
    baseline : str, optional
        Compare with the latest record with this label (default: the policy's
        ``regression.baseline``, else the latest comparable eligible record).
    engine : {"pandas", "dask", "duckdb"}
        Where rows are scored (SPEC §16), the Scorecard being the same: in process and local
        worker processes; on a dask.distributed cluster (``scorekit[dask]``; JSON Lines or
        Parquet files or a dask DataFrame); or pre-scored rows in Parquet, CSV or JSON Lines
        files read, screened and counted by DuckDB (``scorekit[duckdb]``; larger than memory).
    scheduler : str, optional
        Address of a dask scheduler (engine ``dask``); default: a LocalCluster.
    evidence_rows_in_memory : int, default 10,000,000
        Above this many scored rows the evidence is an ``evidence/`` Parquet dataset, not held
        in memory (SPEC §16): ``card.evidence`` raises :class:`~scorekit.EvidenceNotInMemoryError`,
        ``card.evidence_dataset()`` reads the rows; the numbers are the same.
    source : dict, optional
        For rows of a file ``scorekit import`` wrote: the ``source.json`` beside it (SPEC §15),
        written into the scorecard (a partial source decides TRIAGE). Not with an ImportedRun.

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
    imported = imported_run(rows)
    if imported is not None:
        if source is not None:
            raise InputError("evaluate: source= is for rows read from a file; an ImportedRun carries its own")
        rows = imported.rows
        if agent_name is None:
            agent_name = imported.agent
        source = source_record(imported)
    elif source is not None:
        source = given_source(source)
    agent = validate(agent, "agent", _AGENT)
    ctx_args = {
        "budgets": dict(pol.budgets),
        "judge_panel": tuple(pol.judges.panel),
        "pass_score": pol.judges.pass_score,
        "partial": pol.partial if isinstance(pol.partial, str) else dict(pol.partial),
        "agent": agent,
        "tool_contracts": dict(pol.tool_contracts.schemas) if pol.tool_contracts is not None else None,
    }
    held = [engines.ingest(rows, ctx_args, engine=engine, scheduler=scheduler, limit=limit, strict=pol.strict,
                           evidence_rows_in_memory=evidence_rows_in_memory)]
    counted, measured_agent = _counted(held, agent, pol.strict, evidence_rows_in_memory)
    card = assemble(counted, pol, limit=limit, source=source,
                    agent_name=measured_agent if agent_name is None else agent_name,
                    agent_version=agent_version, measured_agent=measured_agent)
    from . import history as _history

    comparison = _history.compare(card, history, baseline_label=baseline)  # no history: no I/O
    compared: Scorecard = _history.with_comparison(card, comparison)  # history.py is not type-checked yet
    if history is not None:
        _history.record(compared, history, label=label)
    return compared


def _counted(held: list[Any], agent: str | None, strict: bool, threshold: int) -> tuple[Counted, str | None]:
    """The rows an engine gave (``held``'s one item, taken out so it can go) counted, and the agent
    they measure (SPEC §2: checked before counting). An engine either counted where its rows are
    (a Counted), or gave (source or None, the scored partial): one shard, counted here by the kernel."""
    ingested = held.pop()
    if isinstance(ingested, Counted):
        return ingested, one_agent(ingested.agents, agent, ingested.source)
    src, scored = ingested
    del ingested
    measured = one_agent(scored.agents, agent, scored.source)
    from . import kernel

    shard = kernel.open_shard(scored, strict, src.lines if src is not None else None)
    del scored
    return kernel.count(kernel.InProcess(), [shard], source=shard.source, threshold=threshold), measured
