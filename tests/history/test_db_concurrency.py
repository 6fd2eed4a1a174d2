"""History under concurrent writers and a killed writer (SPEC §10: safe under both).

Writers are separate processes (``subprocess``), as CI jobs sharing one history
file are.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import scorekit as sk
from scorekit.history import compare, read_history, record

ROOT = Path(__file__).resolve().parents[2]
WRITERS, RECORDS_EACH = 6, 20

# A child builds a small card, says "ready", waits for "go" on stdin (so every
# writer starts at once), writes RECORDS_EACH records and prints their ids.
WRITER = textwrap.dedent(
    """
    import json, sys
    import scorekit as sk
    from scorekit.history import record

    db, writer, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = [{"id": f"r{i}", "dimension": "task_completion", "case_id": f"c{i}", "status": "PASS",
             "evaluator": "h", "agent_output": f"writer {writer}"} for i in range(5)]
    card = sk.evaluate(rows, policy={"regression": {"required": True}}, agent_name="w", agent_version=str(writer))
    print("ready", flush=True)
    sys.stdin.readline()
    ids = [record(card, db, label=f"w{writer}-{k}") for k in range(count)]
    print(json.dumps(ids), flush=True)
    """
)

# A child that stops inside record()'s BEGIN IMMEDIATE transaction, after the
# record row and its dimension rows are written but before COMMIT, and sleeps
# there holding the write lock until it is killed.
KILLED = textwrap.dedent(
    """
    import sys, time
    import scorekit as sk
    from scorekit import history

    rows = [{"id": "r0", "dimension": "task_completion", "case_id": "c0", "status": "PASS", "evaluator": "h"}]
    card = sk.evaluate(rows, agent_name="killed", agent_version="9")
    from scorekit.history import _db
    original = _db._insert_dimensions

    def stall(conn, record_id, dim_rows):
        original(conn, record_id, dim_rows)
        print("ready", record_id, flush=True)
        time.sleep(120)

    _db._insert_dimensions = stall  # record() looks it up in _db at call time
    history.record(card, sys.argv[1], label="killed")
    """
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _spawn(script: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
    )


def race(procs: list[subprocess.Popen], while_running: Callable[[], None]) -> list[str]:
    """Release ``_spawn``-ed processes at once and call ``while_running`` until they have all exited.

    Each process prints ``ready`` and waits for a line on stdin; all are released
    together, every one must exit 0, and their stdouts are returned in order. A
    process still running when the test fails is killed.
    """
    try:
        for proc in procs:
            assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        for proc in procs:  # all at once
            proc.stdin.write("go\n")
            proc.stdin.flush()
        while any(p.poll() is None for p in procs):
            while_running()
            time.sleep(0.01)
        outputs = []
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            outputs.append(out)
        return outputs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _card(version: str = "1") -> sk.Scorecard:
    rows = [{"id": f"r{i}", "dimension": "task_completion", "case_id": f"c{i}", "status": "PASS",
             "evaluator": "h", "agent_output": version} for i in range(5)]
    return sk.evaluate(rows, policy={"regression": {"required": True}}, agent_name="main", agent_version=version)


@pytest.mark.timeout(120)
def test_concurrent_writers_lose_nothing(tmp_path):
    db = tmp_path / "sub" / "history.sqlite"  # does not exist yet: the writers race to create it
    procs = [_spawn(WRITER, str(db), str(w), str(RECORDS_EACH)) for w in range(WRITERS)]
    seen = 0

    def read() -> None:  # meanwhile this process reads: WAL readers never block writers or fail
        nonlocal seen
        if db.exists():
            try:
                frame = read_history(db)
            except sk.HistoryError as exc:
                assert "another application" not in str(exc)  # only a half-created file could say so
            else:
                assert len(frame) >= seen
                seen = len(frame)

    ids = []
    for w, out in enumerate(race(procs, read)):
        got = json.loads(out.strip().splitlines()[-1])
        assert len(got) == RECORDS_EACH and got == sorted(got), w
        ids += got
    assert len(ids) == len(set(ids)) == WRITERS * RECORDS_EACH
    frame = read_history(db)
    assert sorted(frame.index) == sorted(ids)
    assert sorted(frame["label"]) == sorted(f"w{w}-{k}" for w in range(WRITERS) for k in range(RECORDS_EACH))
    long = read_history(db, dimensions=True)
    assert sorted(long["record_id"]) == sorted(ids)  # every record has its dimension row
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM meta WHERE key = 'schema_version'").fetchone()[0] == 1
    finally:
        conn.close()


@pytest.mark.timeout(120)
def test_killed_writer_leaves_a_consistent_database(tmp_path):
    db = tmp_path / "history.sqlite"
    first = record(_card("1"), db, label="before")
    proc = _spawn(KILLED, str(db))
    try:
        line = proc.stdout.readline().split()
        assert line[:1] == ["ready"], proc.stderr.read()
        # The killed writer is inside its transaction, holding the write lock.
        # A reader is not blocked and does not see the uncommitted record.
        assert list(read_history(db).index) == [first]
        assert compare(_card("2"), db)["baseline"]["id"] == first
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # The database opens, holds exactly what was committed, and the next write works at once.
    frame = read_history(db)
    assert list(frame.index) == [first] and "killed" not in set(frame["label"])
    assert list(read_history(db, dimensions=True)["record_id"]) == [first]  # no orphan dimension rows
    started = time.monotonic()
    after = record(_card("3"), db, label="after")
    assert time.monotonic() - started < 10  # no stale lock to wait out
    assert after > first and list(read_history(db).index) == [first, after]
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_concurrent_threads_in_one_process(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    db = tmp_path / "history.sqlite"
    card = _card()
    with ThreadPoolExecutor(max_workers=8) as pool:
        ids = list(pool.map(lambda k: record(card, db, label=f"t{k}"), range(40)))
    assert len(set(ids)) == 40 and sorted(read_history(db).index) == sorted(ids)
