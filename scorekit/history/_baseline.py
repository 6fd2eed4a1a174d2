"""Which record is a run's baseline: pins and the default choice (SPEC §10, §18: baselines never ratchet).

:func:`pin` marks the latest record of a label as the release to compare
against; :func:`unpin` removes the pins of a label. Without a baseline label,
:func:`_default_baseline` picks the latest pinned comparable eligible record,
else the earliest comparable eligible one: never simply the latest, so an
unchanged agent run again and again meets the same baseline and a lucky run
does not raise the bar for the next.
"""

from __future__ import annotations

import datetime as _dt
import os
import sqlite3
from typing import Any, Literal

from .._errors import InputError
from ._check import check_history
from ._db import _connect, _fail, _fetch, _latest_labelled, _migrate, _record_dimensions, _resolve, _transaction
from ._eligibility import _COMPARABLE_SQL, _ELIGIBLE_SQL, _why_ineligible

__all__ = ["pin", "unpin"]

#: Why the baseline is the record it is (the ``chosen`` key of the comparison's ``baseline``).
Chosen = Literal["label", "pinned", "earliest"]


def _has_pins(conn: sqlite3.Connection) -> bool:
    """Whether the database stores pins (schema 3 and later); an older one has none."""
    return any(row[1] == "pin_order" for row in conn.execute("PRAGMA table_info(records)"))


def _default_baseline(
    conn: sqlite3.Connection, key: tuple[Any, ...]
) -> tuple[dict[str, Any] | None, Chosen | None]:
    """The baseline when no label is asked for: the latest pinned comparable eligible record, else the
    earliest comparable eligible record; ``(None, None)`` when no record is comparable and eligible."""
    where = f"{_COMPARABLE_SQL} AND {_ELIGIBLE_SQL}"
    if _has_pins(conn):
        row = _fetch(
            conn, f"SELECT * FROM records WHERE {where} AND pin_order IS NOT NULL ORDER BY pin_order DESC LIMIT 1", key
        )
        if row is not None:
            return row, "pinned"
    row = _fetch(conn, f"SELECT * FROM records WHERE {where} ORDER BY id ASC LIMIT 1", key)
    return row, None if row is None else "earliest"


def _check_label(label: Any) -> str:
    if not isinstance(label, str) or not label.strip():
        raise ValueError(f"label must be a non-empty string; got {label!r}")
    return label


def _who(row: dict[str, Any], label: str) -> str:
    named = [str(v) for v in (row.get("agent_name"), row.get("agent_version")) if v is not None]
    agent = f"agent {' '.join(named)}" if named else "agent not named"
    return f"record {row['id']} labelled {label!r} ({agent})"


def pin(db: str | os.PathLike[str] | None, label: str) -> int:
    """Pin the latest record labelled ``label``: the default baseline of the runs comparable with it.

    Without a baseline label (``--baseline``, ``regression.baseline``), a run
    compares with the latest pinned comparable eligible record, else the
    earliest comparable eligible record (SPEC §10). Pins are kept: pinning a
    newer release leaves the older pins in place (the history of releases), and
    the latest pin wins; pinning a record again makes it the latest pin.

    Parameters
    ----------
    db : path or None
        The history database (``reports/history.sqlite`` when ``None``); it must exist.
        A database of an older schema is migrated by this write, in its transaction.
    label : str
        The label of the record to pin; its latest record is pinned.

    Returns
    -------
    int
        The id of the pinned record.

    Raises
    ------
    HistoryError
        The database does not exist, or is corrupt, foreign or of a newer schema.
    InputError
        No record carries ``label``, or its latest record is not eligible as a
        baseline (its decision is not PASS or its comparison regressed); nothing is written.
    """
    label = _check_label(label)
    path = _resolve(db)
    with _connect(path, create=False) as conn:
        if conn is None:
            raise _fail(path, "no history database here")
        with _transaction(conn):
            row = _latest(conn, path, label)
            why = _why_ineligible(row)
            if why:
                raise InputError(f"{path}: {_who(row, label)} cannot be pinned: {why}; only a baseline can be pinned")
            _migrate(conn, path)  # an older database: migrated by its first write, in this transaction
            _set_pin(conn, int(row["id"]))
    return int(row["id"])


def _set_pin(conn: sqlite3.Connection, record_id: int) -> None:
    """Make ``record_id`` the latest pin (inside the caller's write transaction: the order is read under its lock)."""
    conn.execute(
        "UPDATE records SET pin_order = (SELECT COALESCE(MAX(pin_order), 0) + 1 FROM records), pinned_at = ? "
        "WHERE id = ?",
        (_dt.datetime.now(_dt.UTC).isoformat(timespec="microseconds"), record_id),
    )


def unpin(db: str | os.PathLike[str] | None, label: str) -> list[int]:
    """Remove the pin of every record labelled ``label``; return their ids (oldest first).

    The next runs compare with the latest remaining pin, else the earliest
    comparable eligible record.

    Raises
    ------
    HistoryError
        The database does not exist, or is corrupt, foreign or of a newer schema.
    InputError
        No record carries ``label``, or none of them is pinned; nothing is written.
    """
    label = _check_label(label)
    path = _resolve(db)
    with _connect(path, create=False) as conn:
        if conn is None:
            raise _fail(path, "no history database here")
        with _transaction(conn):
            _latest(conn, path, label)
            ids = [] if not _has_pins(conn) else [
                int(r[0]) for r in conn.execute(
                    "SELECT id FROM records WHERE label = ? AND pin_order IS NOT NULL ORDER BY id", (label,)
                )
            ]
            if not ids:
                raise InputError(f"{path}: no record labelled {label!r} is pinned")
            conn.execute("UPDATE records SET pin_order = NULL, pinned_at = NULL WHERE label = ?", (label,))
    return ids


def _latest(conn: sqlite3.Connection, path: Any, label: str) -> dict[str, Any]:
    """The latest record labelled ``label``, checked (SPEC §20) before its decision is trusted."""
    row = _latest_labelled(conn, label)
    if row is None:
        raise InputError(f"{path}: no record labelled {label!r}")
    _, dims = _record_dimensions(conn, row["id"])
    check_history(path, [row], dims)
    return row
