"""Where an evaluation's rows come from (SPEC §2, §15): an imported run's or a given
``source`` record as the scorecard writes it, and why an evaluation is partial."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._errors import InputError
from .scorers.pii import scrub

__all__ = ["given_source", "imported_run", "partial_reason", "source_record"]


def imported_run(rows: Any) -> Any:
    """``rows`` when it is an ImportedRun (SPEC §15), else None (importers are loaded only then)."""
    if type(rows).__name__ != "ImportedRun":
        return None
    from .importers import ImportedRun

    return rows if isinstance(rows, ImportedRun) else None


def partial_reason(limit: int | None, source: Mapping[str, Any] | None, partial_rows: int) -> str | None:
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


def given_source(source: Any) -> dict[str, Any]:
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


def source_record(run: Any) -> dict[str, Any]:
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
