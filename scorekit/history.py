"""Comparable history in SQLite and the regression comparison (SPEC §8, §10).

One record per evaluation: label, agent identity, hashes (suite, policy,
results, evidence), judge identity, scoring version, the final decision, the
measured decision (before the comparison step), the comparison status, the
baseline it was compared with, per-dimension counts (enough to recompute
rates and Wilson bounds) and per-(dimension, case) passes and measured trials
(what the ``paired`` method compares, SPEC §10).

Typical use (what ``scorekit run --history DB --label L [--baseline L]`` does)::

    from scorekit import history
    comparison = history.compare(card, "reports/history.sqlite")
    card = history.with_comparison(card, comparison)   # final decision (SPEC §8)
    history.record(card, "reports/history.sqlite", label="nightly")

Comparability and eligibility (SPEC §10)
    A record is *comparable* with a card when suite hash, policy hash, judge
    identity (sorted names) and scoring version are all equal. It is *eligible*
    as a baseline when its final decision is PASS, or when its measured decision
    is PASS and its own comparison found no comparable baseline (status
    ``missing``: the first run of a suite/policy). A run whose comparison
    regressed never becomes a baseline, even when the comparison was optional
    and left its decision at PASS.

Comparison status
    ``not_requested`` no history given and no comparison required;
    ``missing``       no comparable eligible baseline;
    ``incompatible``  the baseline named by label does not exist, or its latest
                      record is not comparable or not eligible;
    ``unusable``      the candidate's results hash equals a recorded run's with a
                      different agent identity (re-scored old output), or a
                      compared dimension has no PASS/FAIL row on one side, or
                      (``paired``) fewer than 2 cases measured in both runs, or
                      a baseline recorded without per-case counts;
    ``regressed``     a dimension regressed (``regression.method``);
    ``passed``        compared, no regression.
    Precedence: regressed, then unusable, then incompatible/missing.

Storage
    stdlib ``sqlite3`` in WAL mode with a busy timeout; every write is one
    ``BEGIN IMMEDIATE`` transaction, so concurrent writers (threads or
    processes) lose nothing and a killed writer leaves the database as it was
    before its transaction. A ``meta`` table identifies the file as a scorekit
    history of a given schema version; anything else (not SQLite, corrupt,
    another application's SQLite, a newer schema) raises
    :class:`scorekit.HistoryError` with a one-line message.

Schema versions and migration
    1: records and per-dimension counts. 2: adds ``records.has_case_counts``
    and the ``cases`` table (per-(dimension, case) ``passes`` and ``n`` of the
    agent rows, counted by :func:`scorekit._counts.count_cases`). A database
    of an older schema is read as it is (its records have no per-case counts:
    they compare with the ``interval``, ``newcombe`` and ``point`` methods,
    and a ``paired`` comparison with one is ``unusable``) and is migrated by
    the first write, inside that write's ``BEGIN IMMEDIATE`` transaction:
    the migration and the record commit together or not at all, and a racing
    writer finds the database already migrated once it gets the lock. A new
    database is created at schema 1 and migrated in the same transaction, so
    both paths build the same schema. Reads see one snapshot (a deferred
    transaction), never half a migration.
"""

from __future__ import annotations

import contextlib
import dataclasses
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

from . import _hashing
from ._decide import COMPARISON_REASON_PREFIX as _REASON_PREFIX, COMPARISON_STATUSES, apply_comparison
from ._errors import HistoryError
from ._policy import REGRESSION_METHODS, Regression
from ._regression import regressions as _regressions
from ._version import __version__

__all__ = [
    "COMPARISON_STATUSES",
    "DEFAULT_PATH",
    "SCHEMA_VERSION",
    "apply_comparison",
    "compare",
    "read_history",
    "record",
    "with_comparison",
]

#: Where history lives when ``--history`` is given without a path.
DEFAULT_PATH = Path("reports") / "history.sqlite"
#: Schema of the database this scorekit writes (``meta.schema_version``).
SCHEMA_VERSION = 2
APPLICATION = "scorekit-history"
# The comparison statuses and the comparison step of the decision live in _decide (SPEC §8).
_BLOCKING = ("missing", "incompatible", "unusable")
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
}
# The tables each schema version must have.
_TABLES = {1: {"meta", "records", "dimensions"}, 2: {"meta", "records", "dimensions", "cases"}}

# Eligible as a baseline (SPEC §10); a regressed run never is.
_ELIGIBLE_SQL = (
    "((decision = 'PASS' AND comparison_status != 'regressed')"
    " OR (measured_decision = 'PASS' AND comparison_status = 'missing'))"
)
_COMPARABLE_SQL = "suite_hash = ? AND policy_hash = ? AND judges = ? AND scoring_version = ?"
_RECORD_COLUMNS = (
    "id", "label", "agent_name", "agent_version", "created_at", "generated_at", "suite_hash", "policy_hash",
    "results_hash", "evidence_hash", "judges", "scoring_version", "purpose", "partial", "confidence", "decision",
    "measured_decision", "comparison_status", "comparison_required", "comparison_method", "baseline_id",
    "scorekit_version", "has_case_counts",
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
    from ._errors import FileProblem
    from ._io import read_bounded

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
    raw = meta.get("schema_version")
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


# --------------------------------------------------------------------------- card fields
def _judges_json(judges: Any) -> str:
    names = sorted({str(j) for j in (judges or [])})
    return json.dumps(names, ensure_ascii=False, separators=(",", ":"))


def _scoring_version() -> str:
    # Read at call time (tests simulate another scorekit by patching it).
    return _hashing.SCORING_VERSION


def _key(card: Any) -> tuple[str | None, str | None, str, str]:
    hashes = card.hashes or {}
    return hashes.get("suite"), hashes.get("policy"), _judges_json(card.judges), _scoring_version()


def _regression_of(card: Any, regression: Regression | Mapping[str, Any] | None) -> Regression:
    if regression is None:
        regression = (getattr(card, "policy", None) or {}).get("regression") or {}
    if isinstance(regression, Regression):
        return regression
    if isinstance(regression, Mapping):
        unknown = set(regression) - {"required", "baseline", "method", "max_drop"}
        if unknown:
            raise ValueError(f"regression has unknown keys: {', '.join(sorted(map(str, unknown)))}")
        method = regression.get("method", "interval")
        if method not in REGRESSION_METHODS:
            raise ValueError(f"regression.method must be one of {', '.join(REGRESSION_METHODS)}; got {method!r}")
        return Regression(
            required=bool(regression.get("required", False)),
            baseline=regression.get("baseline"),
            method=method,
            max_drop=float(regression.get("max_drop", 0.0)),
        )
    raise TypeError(f"regression must be a Regression, a mapping or None; got {type(regression).__name__}")


def _confidence(card: Any) -> float:
    return float((getattr(card, "policy", None) or {}).get("confidence", 0.95))


def _dimension_counts(card: Any) -> pd.DataFrame:
    """The card's per-dimension counts: n, passes, fails, errors, abstains, in_scope, verdict."""
    dims = card.dimensions
    out = pd.DataFrame(index=pd.Index([str(i) for i in dims.index], name="dimension"))
    for column in ("n", "passes", "fails", "errors", "abstains"):
        values = dims[column] if column in dims.columns else 0
        out[column] = np.asarray(pd.Series(values, index=dims.index).fillna(0), dtype=np.int64)
    if "n" not in dims.columns:
        out["n"] = out["passes"] + out["fails"]
    in_scope = dims["in_scope"] if "in_scope" in dims.columns else True
    out["in_scope"] = np.asarray(pd.Series(in_scope, index=dims.index), dtype=bool)
    out["verdict"] = [str(v) for v in dims["verdict"]] if "verdict" in dims.columns else None
    return out


def _case_counts(card: Any) -> pd.DataFrame | None:
    """The card's per-(dimension, case) ``passes`` and ``n`` (PASS + FAIL) of its agent rows.

    Counted from ``card.evidence`` by :func:`scorekit._counts.count_cases` (the
    one counting path: controls and rows not included leave), sorted by
    (dimension, case); ``None`` for a card without evidence rows.
    """
    evidence = getattr(card, "evidence", None)
    if not isinstance(evidence, pd.DataFrame) or "dimension" not in evidence.columns:
        return None
    from ._counts import count_cases

    counts = count_cases(evidence)
    dimensions = pd.Index(counts.groups.index.astype(str)).take(counts.case_group)
    return pd.DataFrame(
        {
            "dimension": np.asarray(dimensions, dtype=object),
            "case_id": pd.Series(counts.case_ids, dtype=object).astype(str).to_numpy(dtype=object),
            "passes": counts.passes.astype(np.int64),
            "n": counts.n.astype(np.int64),
        }
    )


def _summary(row: Mapping[str, Any]) -> dict[str, Any]:
    """A record as the ``baseline`` entry of a comparison."""
    return {
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


def _fetch(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> dict[str, Any] | None:
    cur = conn.execute(sql, params)
    row = cur.fetchone()
    if row is None:
        return None
    return dict(zip([c[0] for c in cur.description], row))


def _frame(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> pd.DataFrame:
    """A query's rows as a DataFrame (sqlite3 errors stay sqlite3 errors)."""
    cur = conn.execute(sql, params)
    columns = [c[0] for c in cur.description]
    return pd.DataFrame.from_records(cur.fetchall(), columns=columns)


def _eligible(row: Mapping[str, Any]) -> bool:
    return (row["decision"] == "PASS" and row["comparison_status"] != "regressed") or (
        row["measured_decision"] == "PASS" and row["comparison_status"] == "missing"
    )


def _why_not(row: Mapping[str, Any], key: tuple[Any, ...]) -> list[str]:
    """Why a named record cannot be the baseline (empty: it can)."""
    why = []
    names = ("suite hash", "policy hash", "judge identity", "scoring version")
    stored = (row["suite_hash"], row["policy_hash"], row["judges"], row["scoring_version"])
    differs = [name for name, a, b in zip(names, stored, key) if a != b or a is None]
    if differs:
        why.append("not comparable: different " + ", ".join(differs))
    if not _eligible(row):
        if row["comparison_status"] == "regressed":
            why.append("not eligible: its comparison regressed")
        else:
            why.append(
                f"not eligible: decision {row['decision']}, measured decision {row['measured_decision']}, "
                f"comparison {row['comparison_status']}"
            )
    return why


# --------------------------------------------------------------------------- compare
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
        policy's ``regression.baseline``; when both are unset, the latest
        comparable eligible record is the baseline.
    regression : Regression or mapping, optional
        ``required``, ``method``, ``max_drop`` (and ``baseline``); defaults to the
        card's policy ``regression`` section.

    Returns
    -------
    dict
        ``status`` (one of :data:`COMPARISON_STATUSES`), ``required`` (bool),
        ``baseline`` (summary of the baseline record: ``id``, ``label``,
        ``agent``, ``created_at``, ``decision``, ``measured_decision``,
        ``comparison_status``, ``hashes``, ``judges``, ``scoring_version``; or
        ``None``), ``regressions`` (one entry per compared dimension, see
        :func:`scorekit._regression.regressions`), ``method``, ``max_drop``,
        ``baseline_label`` (the label asked for, or ``None``), ``rescored_from``
        (id of the recorded run whose output this card re-scores, or ``None``)
        and ``detail`` (one line saying why the status is what it is).

    Raises
    ------
    HistoryError
        The database is corrupt, foreign or of a newer schema.
    """
    reg = _regression_of(card, regression)
    label = baseline_label if baseline_label is not None else reg.baseline
    out: dict[str, Any] = {
        "status": "not_requested",
        "required": bool(reg.required),
        "baseline": None,
        "regressions": [],
        "method": reg.method,
        "max_drop": float(reg.max_drop),
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
        baseline_row = baseline_dims = baseline_cases = rescored = None
        if conn is None:
            status, detail = "missing", "the history database does not exist yet: no baseline"
            if label is not None:
                status, detail = "incompatible", f"no record labelled {label!r} (empty history)"
        elif None in key[:2]:
            status, detail = "unusable", "the scorecard has no suite or policy hash"
        else:
            if label is not None:
                row = _fetch(conn, "SELECT * FROM records WHERE label = ? ORDER BY id DESC LIMIT 1", (label,))
                if row is None:
                    status, detail = "incompatible", f"no record labelled {label!r}"
                else:
                    why = _why_not(row, key)
                    if why:
                        status, detail = "incompatible", f"record {row['id']} labelled {label!r}: " + "; ".join(why)
                    else:
                        baseline_row = row
            else:
                baseline_row = _fetch(
                    conn,
                    f"SELECT * FROM records WHERE {_COMPARABLE_SQL} AND {_ELIGIBLE_SQL} ORDER BY id DESC LIMIT 1",
                    key,
                )
                if baseline_row is None:
                    status, detail = "missing", "no comparable eligible baseline in the history"
            if baseline_row is not None:
                baseline_dims = _frame(
                    conn,
                    "SELECT dimension, n, passes, fails, in_scope FROM dimensions WHERE record_id = ?",
                    (int(baseline_row["id"]),),
                ).set_index("dimension")
                if baseline_row.get("has_case_counts"):  # absent or 0: recorded without them
                    baseline_cases = _frame(
                        conn,
                        "SELECT dimension, case_id, passes, n FROM cases WHERE record_id = ? "
                        "ORDER BY dimension, case_id",
                        (int(baseline_row["id"]),),
                    )
            if results_hash is not None:
                rescored = _fetch(
                    conn,
                    "SELECT id, agent_name, agent_version FROM records WHERE results_hash = ? "
                    "AND (agent_name IS NOT ? OR agent_version IS NOT ?) ORDER BY id DESC LIMIT 1",
                    (results_hash, name, version),
                )
    if baseline_row is not None:
        out["baseline"] = _summary(baseline_row)
        cand = _dimension_counts(card)
        base = baseline_dims
        names = sorted(set(cand.index[cand["in_scope"]]) | set(base.index[base["in_scope"].astype(bool)]))
        # The candidate's cases: what `paired` compares, and the shared-case count of every method.
        cand_cases = _case_counts(card) if baseline_cases is not None or reg.method == "paired" else None
        entries = _regressions(
            base.reindex(names), cand.reindex(names), reg.method, reg.max_drop, _confidence(card),
            baseline_cases=baseline_cases, candidate_cases=cand_cases,
        ) if names else []
        out["regressions"] = entries
        regressed = [e["dimension"] for e in entries if e["regressed"]]
        undefined = [e for e in entries if e["status"] == "undefined"]
        if regressed:
            status = "regressed"
            detail = f"regressed against record {baseline_row['id']} ({reg.method}): " + ", ".join(regressed)
        elif not entries:
            status, detail = "unusable", f"no dimension in scope to compare with record {baseline_row['id']}"
        elif reg.method == "paired" and baseline_cases is None:
            status = "unusable"
            detail = (
                f"the paired method compares case by case, but baseline record {baseline_row['id']} has no "
                "per-case counts (recorded before the history stored them)"
            )
        elif undefined:
            status = "unusable"
            detail = "cannot compare " + "; ".join(
                f"{e['dimension']} ({e['rule'].removeprefix('not compared: ')})" for e in undefined
            )
        else:
            status = "passed"
            detail = f"no regression against record {baseline_row['id']} ({reg.method})"
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
    out["detail"] = detail
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
        "created_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds"),
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
        for name, r in zip(dims.index, dims.itertuples(index=False))
    ]
    cases = _case_counts(card)
    case_rows = [] if cases is None else list(
        zip(cases["dimension"].tolist(), cases["case_id"].tolist(), cases["passes"].tolist(), cases["n"].tolist())
    )
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    path = _resolve(db)
    with _connect(path, create=True) as conn:
        assert conn is not None
        with _transaction(conn):
            _migrate(conn, path)  # an older database: migrated by its first write, in this transaction
            cur = conn.execute(f"INSERT INTO records ({columns}) VALUES ({marks})", tuple(values.values()))
            record_id = int(cur.lastrowid)
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
        stored fields, ``judges`` as a list and an ``eligible`` column (could it
        be a baseline for a comparable run). True: one row per (record,
        dimension) with ``record_id``, ``label``, ``agent_name``,
        ``agent_version``, ``created_at``, ``dimension``, ``in_scope``,
        ``verdict``, the counts and the recomputed ``rate``, ``ci_low``,
        ``ci_high`` (Wilson at the record's confidence).
        The record frame's ``has_case_counts`` says whether a record's
        per-case counts are stored (False for records written before they were).
    cases : bool, default False
        True: one row per (record, dimension, case) with ``record_id``,
        ``label``, ``agent_name``, ``agent_version``, ``created_at``,
        ``dimension``, ``case_id``, ``passes``, ``n`` (measured trials: PASS +
        FAIL) and ``rate`` (NaN when n = 0), sorted by record, dimension, case.
        Records without per-case counts have no rows.

    A database of an older schema is read as it is, never changed by a read.
    """
    if dimensions and cases:
        raise ValueError("read_history: give dimensions=True or cases=True, not both")
    path = _resolve(db)
    with _connect(path, create=False) as conn:
        if conn is None:
            raise _fail(path, "no history database here")
        with _transaction(conn, "DEFERRED"):  # one snapshot, even while a writer migrates
            if dimensions:
                return _dimension_frame(_frame(
                    conn,
                    "SELECT d.record_id, r.label, r.agent_name, r.agent_version, r.created_at, r.confidence, "
                    "d.dimension, d.in_scope, d.verdict, d.n, d.passes, d.fails, d.errors, d.abstains "
                    "FROM dimensions d JOIN records r ON r.id = d.record_id ORDER BY d.record_id, d.dimension",
                ))
            if cases:
                if "cases" not in _tables(conn):  # schema 1: no per-case counts anywhere
                    return _case_frame(pd.DataFrame({c: pd.Series(dtype=object) for c in _CASE_COLUMNS}))
                return _case_frame(_frame(
                    conn,
                    "SELECT c.record_id, r.label, r.agent_name, r.agent_version, r.created_at, "
                    "c.dimension, c.case_id, c.passes, c.n "
                    "FROM cases c JOIN records r ON r.id = c.record_id ORDER BY c.record_id, c.dimension, c.case_id",
                ))
            records = _frame(conn, "SELECT * FROM records ORDER BY id")
    if "has_case_counts" not in records.columns:  # schema 1
        records["has_case_counts"] = 0
    return _record_frame(records[list(_RECORD_COLUMNS)])


def _record_frame(records: pd.DataFrame) -> pd.DataFrame:
    if records.empty:
        records = pd.DataFrame({c: pd.Series(dtype=object) for c in _RECORD_COLUMNS})
    frame = records.copy()
    frame["id"] = frame["id"].astype(np.int64)
    frame["created_at"] = pd.to_datetime(frame["created_at"], utc=True, format="ISO8601")
    frame["judges"] = [json.loads(j) if isinstance(j, str) else [] for j in frame["judges"]]
    for column in ("partial", "comparison_required", "has_case_counts"):
        frame[column] = frame[column].astype(bool)
    frame["baseline_id"] = pd.array(
        [None if v is None or v != v else int(v) for v in frame["baseline_id"]], dtype="Int64"
    )
    frame["eligible"] = np.array(
        [
            _eligible({"decision": d, "measured_decision": m, "comparison_status": s})
            for d, m, s in zip(frame["decision"], frame["measured_decision"], frame["comparison_status"])
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
    from ._stats import wilson_interval

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
