"""The history database: SQLite schema, migrations, connections, append and read (SPEC §10).

The storage rules (WAL, one ``BEGIN IMMEDIATE`` transaction per write, the
``meta`` table, schema versions and their migration) are described in
:mod:`scorekit.history`. :func:`record` appends a card; :func:`read_history`
reads the records, their dimensions or their cases as DataFrames.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._decide import COMPARISON_STATUSES
from .._errors import HistoryError
from .._version import __version__
from ._card import _case_counts, _confidence, _dimension_counts, _key
from ._check import check_history
from ._eligibility import _eligible

__all__ = ["APPLICATION", "DEFAULT_PATH", "SCHEMA_VERSION", "read_history", "record"]

#: Where history lives when ``--history`` is given without a path.
DEFAULT_PATH = Path("reports") / "history.sqlite"
#: Schema of the database this scorekit writes (``meta.schema_version``).
SCHEMA_VERSION = 3
APPLICATION = "scorekit-history"
_BUSY_TIMEOUT_S = 60.0
_SQLITE_HEADER = b"SQLite format 3\x00"

# Schema 1, as the first scorekit history created it; later versions are
# migrations from it (_MIGRATIONS), for new and old databases alike.
_SCHEMA_V1 = (
    """CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    """CREATE TABLE records (
        id                  INTEGER PRIMARY KEY AUTOINCREMENT,
        label               TEXT,
        agent_name          TEXT,
        agent_version       TEXT,
        created_at          TEXT NOT NULL,
        generated_at        TEXT,
        suite_hash          TEXT,
        policy_hash         TEXT,
        results_hash        TEXT,
        evidence_hash       TEXT,
        judges              TEXT NOT NULL,
        scoring_version     TEXT NOT NULL,
        purpose             TEXT,
        partial             INTEGER NOT NULL DEFAULT 0,
        confidence          REAL NOT NULL,
        decision            TEXT NOT NULL,
        measured_decision   TEXT NOT NULL,
        comparison_status   TEXT NOT NULL,
        comparison_required INTEGER NOT NULL,
        comparison_method   TEXT,
        baseline_id         INTEGER REFERENCES records(id),
        scorekit_version    TEXT NOT NULL
    )""",
    """CREATE TABLE dimensions (
        record_id INTEGER NOT NULL REFERENCES records(id),
        dimension TEXT NOT NULL,
        in_scope  INTEGER NOT NULL,
        verdict   TEXT,
        n         INTEGER NOT NULL,
        passes    INTEGER NOT NULL,
        fails     INTEGER NOT NULL,
        errors    INTEGER NOT NULL,
        abstains  INTEGER NOT NULL,
        PRIMARY KEY (record_id, dimension)
    )""",
    "CREATE INDEX records_comparable ON records (suite_hash, policy_hash, judges, scoring_version)",
    "CREATE INDEX records_label ON records (label)",
    "CREATE INDEX records_results ON records (results_hash)",
)
#: Statements that bring a database from version - 1 to version (only additions,
#: so a reader of an older snapshot keeps working while a writer migrates).
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (
        # 1: the record's per-case counts are in `cases`; 0: recorded before they were stored.
        "ALTER TABLE records ADD COLUMN has_case_counts INTEGER NOT NULL DEFAULT 0",
        """CREATE TABLE cases (
            record_id INTEGER NOT NULL REFERENCES records(id),
            dimension TEXT NOT NULL,
            case_id   TEXT NOT NULL,
            passes    INTEGER NOT NULL,
            n         INTEGER NOT NULL,
            PRIMARY KEY (record_id, dimension, case_id)
        )""",
    ),
    3: (
        # A pinned record (scorekit history pin): when, and the order of the pins (the
        # latest pinned comparable eligible record is the default baseline); NULL: not pinned.
        "ALTER TABLE records ADD COLUMN pinned_at TEXT",
        "ALTER TABLE records ADD COLUMN pin_order INTEGER",
        "CREATE INDEX records_pinned ON records (pin_order)",
    ),
}
# The tables each schema version must have.
_TABLES = {
    1: {"meta", "records", "dimensions"},
    2: {"meta", "records", "dimensions", "cases"},
    3: {"meta", "records", "dimensions", "cases"},
}
# Columns of `records` added after schema 1, and the value an older record reads as.
_LATER_RECORD_COLUMNS: dict[str, Any] = {"has_case_counts": 0, "pinned_at": None, "pin_order": None}

_RECORD_COLUMNS = (
    "id", "label", "agent_name", "agent_version", "created_at", "generated_at", "suite_hash", "policy_hash",
    "results_hash", "evidence_hash", "judges", "scoring_version", "purpose", "partial", "confidence", "decision",
    "measured_decision", "comparison_status", "comparison_required", "comparison_method", "baseline_id",
    "scorekit_version", "has_case_counts", "pinned_at", "pin_order",
)
_CASE_COLUMNS = (
    "record_id", "label", "agent_name", "agent_version", "created_at", "dimension", "case_id", "passes", "n",
)


# --------------------------------------------------------------------------- database
def _resolve(db: str | os.PathLike[str] | None) -> Path:
    return DEFAULT_PATH if db is None else Path(db)


def _fail(path: Path, message: str) -> HistoryError:
    return HistoryError(f"{path}: {message}")


def _describe(exc: sqlite3.Error) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if "locked" in text or "busy" in text:
        return f"database is locked by another writer for more than {_BUSY_TIMEOUT_S:g} s ({text})"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return f"not a readable scorekit history database: corrupt file ({text})"
    return f"history database error: {text}"


def _check_file(path: Path) -> bool:
    """True when ``path`` exists (and starts like an SQLite file or is empty)."""
    if not path.exists():
        return False
    if path.is_dir():
        raise _fail(path, "is a directory, not a history database file")
    from .._errors import FileProblem
    from .._io import read_bounded

    try:  # a regular file only: a FIFO would hang the read, a device feed SQLite forever
        header = read_bounded(path, len(_SQLITE_HEADER), head=True)
    except FileProblem as problem:
        if problem.kind == "unreadable":
            raise _fail(path, f"cannot read the history database: {problem.detail}") from None
        raise HistoryError(problem.message(str(path), "history database file")) from None
    if header and header != _SQLITE_HEADER:  # an empty file is an empty database
        raise _fail(path, "not a scorekit history database (not an SQLite file)")
    return True


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _check_schema(conn: sqlite3.Connection, path: Path, tables: set[str]) -> int:
    """The schema version; refuse another application's database or a schema this scorekit does not know."""
    if "meta" not in tables:
        raise _fail(path, "not a scorekit history database (an SQLite database of another application)")
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.OperationalError:
        raise _fail(path, "not a scorekit history database (an SQLite database of another application)") from None
    if meta.get("application") != APPLICATION:
        raise _fail(path, "not a scorekit history database (an SQLite database of another application)")
    raw: Any = meta.get("schema_version")
    try:
        version = int(raw)
    except (TypeError, ValueError):
        raise _fail(path, f"scorekit history database with an invalid schema version {raw!r}") from None
    if version > SCHEMA_VERSION:
        raise _fail(
            path,
            f"history schema version {version} is newer than this scorekit supports ({SCHEMA_VERSION}); "
            "upgrade scorekit",
        )
    if version < 1 or not _TABLES[version] <= tables:
        raise _fail(path, f"scorekit history database with an unknown or incomplete schema (version {version})")
    return version


def _initialise(conn: sqlite3.Connection, path: Path) -> None:
    """Create the schema in an empty database (once, even with racing creators)."""
    with _transaction(conn):
        tables = _tables(conn)
        if not tables:
            for statement in _SCHEMA_V1:
                conn.execute(statement)
            conn.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [("application", APPLICATION), ("schema_version", "1"), ("created_by", f"scorekit {__version__}")],
            )
            _migrate(conn, path)
    if tables:
        _check_schema(conn, path, tables)


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the database to :data:`SCHEMA_VERSION`; call inside a write transaction.

    The version is read under the write lock, so of racing writers exactly one
    migrates and the others find the new schema.
    """
    version = _check_schema(conn, path, _tables(conn))
    if version >= SCHEMA_VERSION:
        return
    for target in range(version + 1, SCHEMA_VERSION + 1):
        for statement in _MIGRATIONS[target]:
            conn.execute(statement)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))


def _ensure_wal(conn: sqlite3.Connection, path: Path) -> None:
    """Switch to WAL (persistent: once per database file).

    Changing the journal mode needs an exclusive lock and SQLite returns
    SQLITE_BUSY at once instead of calling the busy handler, so racing creators
    retry here, within the same time budget as the busy timeout.
    """
    if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
        return
    deadline = time.monotonic() + _BUSY_TIMEOUT_S
    delay = 0.002
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(2 * delay, 0.05)
    if mode is None or str(mode[0]).lower() != "wal":
        raise _fail(path, f"cannot switch the history database to WAL mode (got {mode!r})")


@contextlib.contextmanager
def _connect(db: str | os.PathLike[str] | None, *, create: bool) -> Iterator[sqlite3.Connection | None]:
    """An open, checked connection; ``None`` when the file is absent and ``create`` is false."""
    path = _resolve(db)
    if not _check_file(path):
        if not create:
            yield None
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _fail(path, f"cannot create the history directory: {exc.strerror or exc}") from None
    try:
        conn = sqlite3.connect(str(path), timeout=_BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as exc:
        raise _fail(path, f"cannot open the history database: {_describe(exc)}") from None
    try:
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")
            # Identify the file before changing anything in it: another
            # application's database is left exactly as it was. One read
            # snapshot, so a writer migrating meanwhile is seen whole or not at all.
            with _transaction(conn, "DEFERRED"):
                tables = _tables(conn)
                if tables:
                    _check_schema(conn, path, tables)
            if not tables and not create:
                conn.close()
                yield None
                return
            _ensure_wal(conn, path)
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            if not tables:
                _initialise(conn, path)
        except sqlite3.Error as exc:
            raise _fail(path, _describe(exc)) from None
        try:
            yield conn
        except sqlite3.Error as exc:
            raise _fail(path, _describe(exc)) from None
    finally:
        conn.close()


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection, mode: str = "IMMEDIATE") -> Iterator[sqlite3.Connection]:
    """One transaction: ``IMMEDIATE`` for a write (all of it or none of it),
    ``DEFERRED`` for reads that must see one snapshot."""
    conn.execute(f"BEGIN {mode}")
    try:
        yield conn
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _fetch(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> dict[str, Any] | None:
    cur = conn.execute(sql, params)
    row = cur.fetchone()
    if row is None:
        return None
    return dict(zip([c[0] for c in cur.description], row, strict=True))


_Rows = tuple[list[str], list[dict[str, Any]]]


def _latest_labelled(conn: sqlite3.Connection, label: str) -> dict[str, Any] | None:
    """The latest record carrying ``label`` (``--baseline LABEL``, ``history pin``), or None."""
    return _fetch(conn, "SELECT * FROM records WHERE label = ? ORDER BY id DESC LIMIT 1", (label,))


def _record_dimensions(conn: sqlite3.Connection, record_id: int) -> _Rows:
    """One record's dimension rows: the counts and verdicts a stored record is checked by (SPEC §20)."""
    return _rows(
        conn,
        "SELECT record_id, dimension, in_scope, verdict, n, passes, fails, errors, abstains "
        "FROM dimensions WHERE record_id = ?",
        (record_id,),
    )


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> _Rows:
    """A query's column names and rows (column → value, as SQLite stored it; sqlite3 errors stay sqlite3 errors)."""
    cur = conn.execute(sql, params)
    columns = [c[0] for c in cur.description]
    return columns, [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]


def _as_frame(rows: _Rows) -> pd.DataFrame:
    """Rows :func:`_rows` read (and :func:`check_history` checked) as a DataFrame."""
    columns, values = rows
    return pd.DataFrame.from_records([tuple(v.values()) for v in values], columns=columns)


# --------------------------------------------------------------------------- record
def record(card: Any, db: str | os.PathLike[str] | None, *, label: str | None = None) -> int:
    """Append ``card`` to the history ``db`` with its final decision; return the record id.

    ``db=None`` writes to ``reports/history.sqlite``. The database (and its
    directory) is created when absent. The card's ``comparison`` (from
    :func:`compare`, applied with :func:`with_comparison`) is recorded with it:
    its status decides whether this record can become a baseline.

    One ``BEGIN IMMEDIATE`` transaction writes the record, its dimension
    counts and its per-(dimension, case) counts (migrating a database of an
    older schema first): safe with concurrent writers, and a writer killed
    midway leaves no trace.
    """
    if label is not None and (not isinstance(label, str) or not label.strip()):
        raise ValueError(f"label must be a non-empty string or None; got {label!r}")
    comparison = card.comparison or {}
    status = comparison.get("status", "not_requested")
    if status not in COMPARISON_STATUSES:
        raise ValueError(f"card.comparison status must be one of {', '.join(COMPARISON_STATUSES)}; got {status!r}")
    baseline = comparison.get("baseline") or None
    baseline_id = baseline.get("id") if isinstance(baseline, Mapping) else None
    suite, policy_hash, judges, scoring_version = _key(card)
    hashes = card.hashes or {}
    agent = card.agent or {}
    values = {
        "label": label,
        "agent_name": None if agent.get("name") is None else str(agent.get("name")),
        "agent_version": None if agent.get("version") is None else str(agent.get("version")),
        "created_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="microseconds"),
        "generated_at": getattr(card, "generated_at", None) or None,
        "suite_hash": suite,
        "policy_hash": policy_hash,
        "results_hash": hashes.get("results"),
        "evidence_hash": hashes.get("evidence"),
        "judges": judges,
        "scoring_version": scoring_version,
        "purpose": getattr(card, "purpose", None),
        "partial": int(bool(getattr(card, "partial", False))),
        "confidence": _confidence(card),
        "decision": str(card.decision),
        "measured_decision": str(card.measured_decision),
        "comparison_status": status,
        "comparison_required": int(bool(comparison.get("required", False))),
        "comparison_method": comparison.get("method"),
        "baseline_id": None if baseline_id is None else int(baseline_id),
        "scorekit_version": __version__,
        "has_case_counts": 1,
    }
    dims = _dimension_counts(card)
    dim_rows = [
        (name, int(r.in_scope), r.verdict, int(r.n), int(r.passes), int(r.fails), int(r.errors), int(r.abstains))
        for name, r in zip(dims.index, dims.itertuples(index=False), strict=True)
    ]
    cases = _case_counts(card)
    case_rows = [] if cases is None else list(
        zip(
            cases["dimension"].tolist(), cases["case_id"].tolist(), cases["passes"].tolist(), cases["n"].tolist(),
            strict=True,
        )
    )
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    path = _resolve(db)
    with _connect(path, create=True) as conn:
        assert conn is not None
        with _transaction(conn):
            _migrate(conn, path)  # an older database: migrated by its first write, in this transaction
            cur = conn.execute(f"INSERT INTO records ({columns}) VALUES ({marks})", tuple(values.values()))
            rowid: Any = cur.lastrowid
            record_id = int(rowid)
            _insert_dimensions(conn, record_id, dim_rows)
            _insert_cases(conn, record_id, case_rows)
    return record_id


def _insert_dimensions(conn: sqlite3.Connection, record_id: int, rows: list[tuple[Any, ...]]) -> None:
    conn.executemany(
        "INSERT INTO dimensions (record_id, dimension, in_scope, verdict, n, passes, fails, errors, abstains) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(record_id, *row) for row in rows],
    )


def _insert_cases(conn: sqlite3.Connection, record_id: int, rows: list[tuple[Any, ...]]) -> None:
    conn.executemany(
        "INSERT INTO cases (record_id, dimension, case_id, passes, n) VALUES (?, ?, ?, ?, ?)",
        [(record_id, *row) for row in rows],
    )


# --------------------------------------------------------------------------- read
def read_history(
    db: str | os.PathLike[str] | None = None, *, dimensions: bool = False, cases: bool = False
) -> pd.DataFrame:
    """The history as a DataFrame (for notebooks and ``scorekit history``).

    Parameters
    ----------
    db : path or None
        The history database (``reports/history.sqlite`` when ``None``). A path
        that does not exist is an error.
    dimensions : bool, default False
        False: one row per record, indexed by ``id``, oldest first, with the
        stored fields, ``judges`` as a list, an ``eligible`` column (could it
        be a baseline for a comparable run) and per-dimension columns
        ``<dimension>.rate``, ``.ci_low``, ``.ci_high`` (Wilson at the record's
        confidence), ``.n`` and ``.verdict``: one row per version, its
        dimensions side by side (the trend ``scorekit history --plot`` draws). True: one row per (record,
        dimension) with ``record_id``, ``label``, ``agent_name``,
        ``agent_version``, ``created_at``, ``dimension``, ``in_scope``,
        ``verdict``, the counts and the recomputed ``rate``, ``ci_low``,
        ``ci_high`` (Wilson at the record's confidence).
        The record frame's ``has_case_counts`` says whether a record's
        per-case counts are stored (False for records written before they were);
        ``pinned_at`` (UTC time, NaT when not pinned) and ``pin_order`` (Int64,
        1, 2, … in the order of the pins; the highest comparable eligible one is
        the default baseline) say whether and when it was pinned.
    cases : bool, default False
        True: one row per (record, dimension, case) with ``record_id``,
        ``label``, ``agent_name``, ``agent_version``, ``created_at``,
        ``dimension``, ``case_id``, ``passes``, ``n`` (measured trials: PASS +
        FAIL) and ``rate`` (NaN when n = 0), sorted by record, dimension, case.
        Records without per-case counts have no rows.

    Notes
    -----
    A database of an older schema is read as it is, never changed by a read.
    """
    if dimensions and cases:
        raise ValueError("read_history: give dimensions=True or cases=True, not both")
    path = _resolve(db)
    with _connect(path, create=False) as conn:
        if conn is None:
            raise _fail(path, "no history database here")
        with _transaction(conn, "DEFERRED"):  # one snapshot, even while a writer migrates
            records = _rows(conn, "SELECT * FROM records ORDER BY id")
            dim_rows = _rows(
                conn,
                "SELECT d.record_id, r.label, r.agent_name, r.agent_version, r.created_at, r.confidence, "
                "d.dimension, d.in_scope, d.verdict, d.n, d.passes, d.fails, d.errors, d.abstains "
                "FROM dimensions d LEFT JOIN records r ON r.id = d.record_id ORDER BY d.record_id, d.dimension",
            )
            case_rows = None
            if cases and "cases" in _tables(conn):  # schema 1: no per-case counts anywhere
                case_rows = _rows(
                    conn,
                    "SELECT c.record_id, r.label, r.agent_name, r.agent_version, r.created_at, "
                    "c.dimension, c.case_id, c.passes, c.n "
                    "FROM cases c LEFT JOIN records r ON r.id = c.record_id "
                    "ORDER BY c.record_id, c.dimension, c.case_id",
                )
    # Every reader checks what it read before deriving a number from it (SPEC §20).
    check_history(path, records[1], dim_rows[1], None if case_rows is None else case_rows[1])
    dims = _dimension_frame(_as_frame(dim_rows))
    if dimensions:
        return dims
    if cases:
        if case_rows is None:
            return _case_frame(pd.DataFrame({c: pd.Series(dtype=object) for c in _CASE_COLUMNS}))
        return _case_frame(_as_frame(case_rows))
    frame = _as_frame(records)
    for column, value in _LATER_RECORD_COLUMNS.items():  # an older schema: not stored, so not set
        if column not in frame.columns:
            frame[column] = value
    return _with_dimension_columns(_record_frame(frame[list(_RECORD_COLUMNS)]), dims)


#: The per-dimension columns of the record frame: ``<dimension>.<field>``.
DIMENSION_FIELDS = ("rate", "ci_low", "ci_high", "n", "verdict")


def _with_dimension_columns(records: pd.DataFrame, dims: pd.DataFrame) -> pd.DataFrame:
    """``records`` with one column per (dimension, field) of :data:`DIMENSION_FIELDS`, named
    ``<dimension>.<field>`` (``task_completion.rate``): each record's rate, Wilson interval, n and
    verdict side by side, NaN / missing where a record has no such dimension."""
    if dims.empty:
        return records
    wide = dims.pivot(index="record_id", columns="dimension", values=list(DIMENSION_FIELDS))
    wide.columns = [f"{dimension}.{name}" for name, dimension in wide.columns]
    order = [f"{d}.{name}" for d in sorted(dims["dimension"].unique()) for name in DIMENSION_FIELDS]
    wide = wide[order].reindex(records.index)
    for column in order:
        if column.endswith((".rate", ".ci_low", ".ci_high")):
            wide[column] = wide[column].astype("float64")
        elif column.endswith(".n"):
            wide[column] = wide[column].astype("Int64")
    return records.join(wide)


def dimension_rows(records: pd.DataFrame) -> pd.DataFrame:
    """The per-dimension columns of ``read_history(db)`` (``<dimension>.<field>``) back as rows.

    One row per (record, dimension) the record measured or holds: ``record_id`` (the frame's
    index), ``dimension``, ``rate``, ``ci_low``, ``ci_high``, ``n`` and ``verdict``, ordered by
    record then dimension; a record without a dimension has no row for it. A dimension is
    recognised by its five columns (:data:`DIMENSION_FIELDS`) all present, so a dimension name
    holding dots (``a.b.rate``) reads back whole. This is what ``df.scorekit.plot_trend()`` draws,
    so it works on any rows of the frame (``df[df.agent_name == "x"]``) without a second query.

    Raises
    ------
    ValueError
        ``records`` has no per-dimension column and no ``id`` index (not ``read_history``'s frame).
    """
    names = [str(c)[:-len(".verdict")] for c in records.columns
             if str(c).endswith(".verdict") and str(c) not in _RECORD_COLUMNS]
    dims = [d for d in names if all(f"{d}.{f}" in records.columns for f in DIMENSION_FIELDS)]
    if not dims and records.index.name != "id":
        raise ValueError("not a history frame: give read_history(db), whose per-dimension columns are "
                         "<dimension>.rate, .ci_low, .ci_high, .n, .verdict")
    parts = []
    for d in dims:
        part = records[[f"{d}.{f}" for f in DIMENSION_FIELDS]].copy()
        part.columns = list(DIMENSION_FIELDS)
        part = part[part["n"].notna() | part["verdict"].notna()]
        part.insert(0, "dimension", d)
        part.insert(0, "record_id", part.index.to_numpy(dtype=np.int64))
        parts.append(part.reset_index(drop=True))
    columns = ["record_id", "dimension", *DIMENSION_FIELDS]
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    frame = pd.concat(parts, ignore_index=True)
    return frame.sort_values(["record_id", "dimension"], kind="stable").reset_index(drop=True)[columns]


def _record_frame(records: pd.DataFrame) -> pd.DataFrame:
    if records.empty:
        records = pd.DataFrame({c: pd.Series(dtype=object) for c in _RECORD_COLUMNS})
    frame = records.copy()
    frame["id"] = frame["id"].astype(np.int64)
    frame["created_at"] = pd.to_datetime(frame["created_at"], utc=True, format="ISO8601")
    frame["judges"] = [json.loads(j) if isinstance(j, str) else [] for j in frame["judges"]]
    for column in ("partial", "comparison_required", "has_case_counts"):
        frame[column] = frame[column].astype(bool)
    for column in ("baseline_id", "pin_order"):
        frame[column] = pd.array([None if v is None or v != v else int(v) for v in frame[column]], dtype="Int64")
    frame["pinned_at"] = pd.to_datetime(frame["pinned_at"], utc=True, format="ISO8601")
    frame["eligible"] = np.array(
        [
            _eligible({"decision": d, "measured_decision": m, "comparison_status": s})
            for d, m, s in zip(frame["decision"], frame["measured_decision"], frame["comparison_status"], strict=True)
        ],
        dtype=bool,
    )
    return frame.set_index("id")


def _case_frame(cases: pd.DataFrame) -> pd.DataFrame:
    frame = cases.copy()
    for column in ("record_id", "passes", "n"):
        frame[column] = frame[column].astype(np.int64)
    frame["created_at"] = pd.to_datetime(frame["created_at"], utc=True, format="ISO8601")
    n = frame["n"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["rate"] = np.where(n > 0, frame["passes"].to_numpy(dtype=float) / n, np.nan)
    return frame.reset_index(drop=True)


def _dimension_frame(dims: pd.DataFrame) -> pd.DataFrame:
    from .._stats import wilson_interval

    frame = dims.copy()
    for column in ("record_id", "n", "passes", "fails", "errors", "abstains"):
        frame[column] = frame[column].astype(np.int64)
    frame["in_scope"] = frame["in_scope"].astype(bool)
    frame["created_at"] = pd.to_datetime(frame["created_at"], utc=True, format="ISO8601")
    n = frame["n"].to_numpy(dtype=float)
    passes = frame["passes"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        frame["rate"] = np.where(n > 0, passes / n, np.nan)
    low = np.full(len(frame), np.nan)
    high = np.full(len(frame), np.nan)
    for conf in pd.unique(frame["confidence"]):  # one confidence per policy: a handful of groups
        sel = (frame["confidence"] == conf).to_numpy()
        lo, hi = wilson_interval(passes[sel], n[sel], confidence=float(conf))
        low[sel], high[sel] = lo, hi
    frame["ci_low"], frame["ci_high"] = low, high
    return frame.drop(columns=["confidence"]).reset_index(drop=True)
