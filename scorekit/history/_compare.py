"""The comparison with a baseline in the history, and the decision step it implies (SPEC §8, §10).

:func:`compare` finds the baseline (by label; else the latest pinned
comparable eligible record, else the earliest one: never simply the latest,
SPEC §10) and compares per dimension with the policy's ``regression.method``
and ``regression.multiplicity`` (:func:`scorekit._regression.regressions`, SPEC §18);
:func:`with_comparison` applies the result to the card's decision.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Mapping
from typing import Any

import pandas as pd

from .._decide import COMPARISON_REASON_PREFIX as _REASON_PREFIX
from .._decide import COMPARISON_STATUSES, apply_comparison
from .._policy import Regression, load_policy, readable_recorded_policy
from .._regression import regressions as _regressions
from .._regression import usable_comparisons
from .._stats import one_sided_alpha
from ._baseline import Chosen, _default_baseline
from ._card import _case_counts, _confidence, _dimension_counts, _key
from ._check import check_history
from ._db import _as_frame, _connect, _fetch, _latest_labelled, _record_dimensions, _rows, _transaction
from ._eligibility import _why_not

__all__ = ["COMPARISON_STATUSES", "compare", "with_comparison"]

def _regression_of(card: Any, regression: Regression | Mapping[str, Any] | None) -> tuple[Regression, str | None]:
    """The ``regression`` section to compare with, and a note when the card recorded a retired method.

    ``regression`` given: checked as a policy's section (a retired method such
    as ``interval`` is refused: that is choosing one). ``None``: the card's own
    recorded section, read back as an old record is read (SPEC §10): a retired
    method is replaced by today's default, and the note says so.
    """
    if isinstance(regression, Regression):
        return regression, None
    note = None
    if regression is None:
        recorded = (getattr(card, "policy", None) or {}).get("regression") or {}
        if not isinstance(recorded, Mapping):
            raise TypeError(f"the card's policy regression must be a mapping; got {type(recorded).__name__}")
        readable: Mapping[str, Any] = readable_recorded_policy({"regression": recorded})["regression"]
        if readable.get("method") != recorded.get("method"):
            note = (
                f"the card recorded the retired method {recorded.get('method')!r}; read, not chosen: "
                f"compared with today's default {Regression().method!r}"
            )
        regression = readable
    if isinstance(regression, Mapping):
        return load_policy({"regression": dict(regression)}).regression, note
    raise TypeError(f"regression must be a Regression, a mapping or None; got {type(regression).__name__}")


def _summary(row: Mapping[str, Any], chosen: Chosen | None) -> dict[str, Any]:
    """A record as the ``baseline`` entry of a comparison, with why it was ``chosen``."""
    return {
        "chosen": chosen,
        "pinned_at": row.get("pinned_at"),  # absent before schema 3: not pinned
        "id": int(row["id"]),
        "label": row["label"],
        "agent": {"name": row["agent_name"], "version": row["agent_version"]},
        "created_at": row["created_at"],
        "decision": row["decision"],
        "measured_decision": row["measured_decision"],
        "comparison_status": row["comparison_status"],
        "hashes": {"suite": row["suite_hash"], "policy": row["policy_hash"], "results": row["results_hash"]},
        "judges": json.loads(row["judges"]),
        "scoring_version": row["scoring_version"],
    }

# --------------------------------------------------------------------------- compare
def _with_deff(counts: Any, card: Any) -> Any:
    """The card's counts with its recorded design effects (what ``newcombe`` uses without per-case counts)."""
    dims = card.dimensions
    if "deff" not in dims.columns:
        return counts
    return counts.assign(deff=pd.to_numeric(dims["deff"], errors="coerce").rename(index=str).reindex(counts.index))


def _test_named(entries: list[dict[str, Any]], reg: Regression, alpha: float) -> str:
    """The test that ran and its level, as the detail names it ("paired, Holm at 2.5%")."""
    used = entries[0]["method_used"] if entries else reg.method
    if used == "point":
        return "point, uncontrolled"
    level = f"{100 * alpha:.4g}%"
    named = f"{used}, Holm at {level}" if reg.multiplicity == "holm" else f"{used}, each at {level}"
    if used != reg.method:
        named += f"; {reg.method} fell back to {used}: per-case counts missing"
    return named


def _status(entries: list[dict[str, Any]], record_id: Any, reg: Regression, alpha: float) -> tuple[str, str]:
    """The comparison's status and its one-line detail from the entries (SPEC §10, §18)."""
    regressed = [e["dimension"] for e in entries if e["regressed"]]
    undefined = [e for e in entries if e["status"] == "undefined"]
    test = _test_named(entries, reg, alpha)
    if regressed:
        return "regressed", f"regressed against record {record_id} ({test}): " + ", ".join(regressed)
    if not entries:
        return "unusable", f"no dimension in scope to compare with record {record_id}"
    if undefined:
        return "unusable", "cannot compare " + "; ".join(
            f"{e['dimension']} ({e['rule'].removeprefix('not compared: ')})" for e in undefined
        )
    return "passed", f"no regression against record {record_id} ({test})"


def compare(
    card: Any,
    db: str | os.PathLike[str] | None,
    *,
    baseline_label: str | None = None,
    regression: Regression | Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Compare a scorecard with its baseline in the history ``db`` (SPEC §10).

    Reads only; nothing is written (see :func:`record`). Call it before
    recording the card, so the card is not its own baseline.

    Parameters
    ----------
    card : Scorecard
        The candidate (its hashes, judges, agent identity and dimension counts).
    db : path or None
        The history database. ``None``: no history was given, so there is no
        baseline (``not_requested``, or ``missing`` when the comparison is
        required). A path that does not exist yet is an empty history.
    baseline_label : str, optional
        Compare with the latest record carrying this label, which must itself be
        comparable and eligible (else ``incompatible``). Defaults to the
        policy's ``regression.baseline``; when both are unset, the baseline is
        the latest pinned comparable eligible record (:func:`pin`), else the
        earliest comparable eligible record: never simply the latest, so an
        unchanged agent run again and again meets the same baseline.
    regression : Regression or mapping, optional
        ``required``, ``method``, ``max_drop`` (and ``baseline``); defaults to the
        card's policy ``regression`` section.

    Returns
    -------
    dict
        ``status`` (one of :data:`COMPARISON_STATUSES`), ``required`` (bool),
        ``baseline`` (summary of the baseline record: ``chosen`` (why it is
        the baseline: ``"label"`` asked for by label, ``"pinned"`` the latest
        pinned comparable eligible record, ``"earliest"`` the earliest
        comparable eligible record, none being pinned), ``pinned_at`` (when it
        was pinned, or ``None``), ``id``, ``label``, ``agent``, ``created_at``,
        ``decision``, ``measured_decision``, ``comparison_status``, ``hashes``,
        ``judges``, ``scoring_version``; or ``None``), ``regressions`` (one
        entry per compared dimension, see :func:`scorekit._regression.regressions`:
        each says whether it regressed after the multiplicity control), ``method``
        (asked; each entry's ``method_used`` says what ran), ``max_drop``, ``multiplicity``
        (``holm`` or ``none``), ``alpha`` (the one-sided level, (1 − confidence)/2),
        ``comparisons`` (the entries with a usable controlled comparison: Holm's
        m), ``baseline_label`` (the label asked for, or ``None``), ``rescored_from``
        (id of the recorded run whose output this card re-scores, or ``None``)
        and ``detail`` (one line saying why the status is what it is, naming the
        test that ran and its level: "regressed against record 3 (paired, Holm
        at 2.5%): tool_call"; a card that recorded a retired method says it was
        compared with today's default).

    Raises
    ------
    HistoryError
        The database is corrupt, foreign or of a newer schema.
    """
    reg, reading_note = _regression_of(card, regression)
    label = baseline_label if baseline_label is not None else reg.baseline
    out: dict[str, Any] = {
        "status": "not_requested",
        "required": bool(reg.required),
        "baseline": None,
        "regressions": [],
        "method": reg.method,
        "max_drop": float(reg.max_drop),
        "multiplicity": reg.multiplicity,
        "alpha": one_sided_alpha(_confidence(card)),
        "comparisons": 0,
        "baseline_label": label,
        "rescored_from": None,
        "detail": "no history database given",
    }
    if db is None:
        if reg.required:
            out["status"] = "missing"
            out["detail"] = "comparison required but no history database given"
        return out
    key = _key(card)
    agent = getattr(card, "agent", None) or {}
    name, version = agent.get("name"), agent.get("version")
    results_hash = (card.hashes or {}).get("results")
    with _connect(db, create=False) as conn, (
        contextlib.nullcontext() if conn is None else _transaction(conn, "DEFERRED")
    ):
        baseline_row: dict[str, Any] | None = None
        chosen: Chosen | None = None
        baseline_dims: Any = None
        baseline_cases: Any = None
        rescored: dict[str, Any] | None = None
        if conn is None:
            status, detail = "missing", "the history database does not exist yet: no baseline"
            if label is not None:
                status, detail = "incompatible", f"no record labelled {label!r} (empty history)"
        elif None in key[:2]:
            status, detail = "unusable", "the scorecard has no suite or policy hash"
        else:
            if label is not None:
                row = _latest_labelled(conn, label)
                if row is None:
                    status, detail = "incompatible", f"no record labelled {label!r}"
                else:
                    why = _why_not(row, key)
                    if why:
                        status, detail = "incompatible", f"record {row['id']} labelled {label!r}: " + "; ".join(why)
                    else:
                        baseline_row, chosen = row, "label"
            else:  # the latest pinned, else the earliest comparable eligible record: never the latest
                baseline_row, chosen = _default_baseline(conn, key)
                if baseline_row is None:
                    status, detail = "missing", "no comparable eligible baseline in the history"
            if baseline_row is not None:
                dim_rows = _record_dimensions(conn, baseline_row["id"])
                case_rows = _rows(
                    conn,
                    "SELECT record_id, dimension, case_id, passes, n FROM cases WHERE record_id = ? "
                    "ORDER BY dimension, case_id",
                    (baseline_row["id"],),
                ) if "has_case_counts" in baseline_row else None  # schema 1: no cases table
                # The baseline is stored evidence read back: checked before a number is derived from it.
                check_history(db, [baseline_row], dim_rows[1], None if case_rows is None else case_rows[1])
                baseline_dims = _as_frame(dim_rows)[["dimension", "n", "passes", "fails", "in_scope"]]
                baseline_dims = baseline_dims.set_index("dimension")
                if baseline_row.get("has_case_counts"):  # absent or 0: recorded without them
                    assert case_rows is not None
                    baseline_cases = _as_frame(case_rows)[["dimension", "case_id", "passes", "n"]]
            if results_hash is not None:
                rescored = _fetch(
                    conn,
                    "SELECT id, agent_name, agent_version FROM records WHERE results_hash = ? "
                    "AND (agent_name IS NOT ? OR agent_version IS NOT ?) ORDER BY id DESC LIMIT 1",
                    (results_hash, name, version),
                )
    if baseline_row is not None:
        out["baseline"] = _summary(baseline_row, chosen)
        cand = _dimension_counts(card)
        base = baseline_dims
        names = sorted(set(cand.index[cand["in_scope"]]) | set(base.index[base["in_scope"].astype(bool)]))
        entries = _regressions(
            base.reindex(names), _with_deff(cand, card).reindex(names), reg.method, reg.max_drop, _confidence(card),
            multiplicity=reg.multiplicity, baseline_cases=baseline_cases, candidate_cases=_case_counts(card),
        ) if names else []
        out["regressions"] = entries
        out["comparisons"] = usable_comparisons(entries)
        status, detail = _status(entries, baseline_row["id"], reg, out["alpha"])
    if rescored is not None:
        out["rescored_from"] = int(rescored["id"])
        if status != "regressed":
            status = "unusable"
            detail = (
                f"re-scored old output: results hash equals record {rescored['id']} "
                f"(agent {rescored['agent_name']} {rescored['agent_version']}), not a new run of "
                f"agent {name} {version}"
            )
    out["status"] = status
    out["detail"] = detail if reading_note is None else f"{detail} ({reading_note})"
    return out


# --------------------------------------------------------------------------- decision step
def with_comparison(card: Any, comparison: Mapping[str, Any]) -> Any:
    """A copy of ``card`` with ``comparison`` and the decision it implies.

    Starts from ``card.measured_decision`` (the decision before the comparison
    step) and replaces any earlier comparison reason, so it is correct both for
    a card decided without a comparison and for one decided with a placeholder.
    """
    decision, reasons = apply_comparison(
        card.measured_decision, card.measured_decision, comparison, bool(comparison.get("required", False))
    )
    kept = [r for r in card.decision_reasons if not r.startswith(_REASON_PREFIX)]
    return dataclasses.replace(card, comparison=dict(comparison), decision=decision, decision_reasons=kept + reasons)
