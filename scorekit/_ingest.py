"""Validate and score rows in one streaming pass, keeping only compact columns.

Each row is parsed, checked (SPEC §5), scored (SPEC §3–§4) and reduced to the
few values the evidence table keeps; the parsed dict is dropped straight away,
so memory stays near the size of the file. Large JSON Lines files are split
between two processes (fork) on machines with more than one core.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Iterable, Iterator, Sequence

from ._partial import COLUMNS, Partial as Ingested, score_items as _ingest_items
from ._rows._formats import Source, jsonl_records
from .scorers import Context

__all__ = ["Ingested", "ingest"]

# Below this many rows a second process costs more than it saves.
PARALLEL_MIN_ROWS = 20_000
# How long this process waits for the second one's last chunks, beyond twice
# its own scoring time, before it stops it and scores them itself.
CHILD_GRACE_SECONDS = 30.0
def _workers() -> int:
    override = os.environ.get("SCOREKIT_WORKERS")
    if override:
        try:
            return max(1, int(override))
        except ValueError:
            return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return min(2, cores)


def ingest(src: Source, ctx_args: dict[str, Any], *, limit: int | None = None, strict: bool = True) -> Ingested:
    """Validate and score every row of ``src`` (the first ``limit`` rows when given)."""
    if src.kind == "jsonl" and src.lines is not None:
        lines: Sequence[bytes] = src.lines
        if limit is not None:
            lines = _first_rows(lines, limit)
        if len(lines) >= PARALLEL_MIN_ROWS and _workers() > 1 and sys.platform.startswith("linux"):
            return _ingest_parallel(lines, src, ctx_args, strict)
        return _ingest_items(jsonl_records(lines, 1), src.name, Context(**ctx_args), strict)
    items: Iterable[Any] = src.items()
    if limit is not None:
        items = _take(items, limit)
    return _ingest_items(items, src.name, Context(**ctx_args), strict)


def _first_rows(lines: Sequence[bytes], limit: int) -> Sequence[bytes]:
    """The prefix of ``lines`` holding the first ``limit`` non-blank lines."""
    seen = 0
    for i, line in enumerate(lines):
        if line and not line.isspace():
            seen += 1
            if seen == limit:
                return lines[: i + 1]
    return lines


def _take(items: Iterable[Any], limit: int) -> Iterable[Any]:
    for i, item in enumerate(items):
        if i >= limit:
            return
        yield item


def _chunks(n_rows: int) -> list[tuple[int, int]]:
    """[start, stop) row ranges small enough that two processes taking them in
    turn finish within a fraction of a second of each other."""
    size = max(500, -(-n_rows // 64))
    return [(start, min(start + size, n_rows)) for start in range(0, n_rows, size)]


def _take_chunks(tasks: int) -> Iterator[int]:
    """Chunk numbers from the shared task pipe until it is empty (both
    processes read it; a 4-byte read from a pipe is never split)."""
    while True:
        token = os.read(tasks, 4)
        if len(token) < 4:
            return
        yield int.from_bytes(token, "little")


def _ingest_chunks(lines: Sequence[bytes], chunks: list[tuple[int, int]], numbers: Iterable[int], source: str,
                   ctx: Context, strict: bool) -> dict[int, Ingested]:
    return {
        number: _ingest_items(jsonl_records(lines[chunks[number][0]:chunks[number][1]], chunks[number][0] + 1),
                              source, ctx, strict)
        for number in numbers
    }


def _receive(fd: int, timeout: float) -> dict[int, Ingested] | None:
    """The child's pickled chunks from pipe ``fd``; None when they have not all
    arrived within ``timeout`` seconds, {} when what arrived is unusable."""
    import pickle
    import select
    import time

    received = bytearray()
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        data = os.read(fd, 1 << 20)
        if not data:
            break
        received += data
    try:
        parts = pickle.loads(received)
    except Exception:  # noqa: BLE001 - a child killed while writing leaves a truncated pickle
        return {}
    return parts if isinstance(parts, dict) else {}


def _child_main(lines: Sequence[bytes], chunks: list[tuple[int, int]], tasks: int, results: int, source: str,
                ctx_args: dict[str, Any], strict: bool, mask: Any) -> None:
    """The forked process: score chunks from the queue, send them, and leave
    without running the caller's code or exit handlers (never returns)."""
    import pickle
    import signal

    code = 1
    try:
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends this process at once
        except ValueError:  # pragma: no cover - not the main thread
            pass
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        done = _ingest_chunks(lines, chunks, _take_chunks(tasks), source, Context(**ctx_args), strict)
        with os.fdopen(results, "wb") as out:
            pickle.dump(done, out, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    finally:
        os._exit(code)


def _ingest_parallel(lines: Sequence[bytes], src: Source, ctx_args: dict[str, Any], strict: bool) -> Ingested:
    """Score ``lines`` in two processes (fork) taking chunks from a shared queue.

    The child inherits the lines (never pickled) and sends back its chunks'
    compact columns once the queue is empty. Whatever the child does not
    deliver in time (it failed, crashed, hung, was killed, or could not be
    started) is scored here, so the result never depends on the second process.
    If this process fails or is interrupted, the child is stopped before the
    error goes on.
    """
    import signal
    import time

    chunks = _chunks(len(lines))
    ctx = Context(**ctx_args)
    tasks_read, tasks_write = os.pipe()
    results_read, results_write = os.pipe()
    os.write(tasks_write, b"".join(number.to_bytes(4, "little") for number in range(len(chunks))))
    os.close(tasks_write)  # readers see the end of the queue once it is empty
    # SIGINT is held back across the fork: the child must never run the caller's code.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pid = os.fork()
    except OSError:  # no second process (EAGAIN, ENOMEM): this one scores everything
        pid = None
    if pid == 0:
        _child_main(lines, chunks, tasks_read, results_write, src.name, ctx_args, strict, mask)
    os.close(results_write)
    done: dict[int, Ingested] = {}
    child_finished = pid is None
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        started = time.monotonic()
        done = _ingest_chunks(lines, chunks, _take_chunks(tasks_read), src.name, ctx, strict)
        if pid is not None:
            # The child has one chunk at most left to score: far less than this
            # process needed for all of its own.
            parts = _receive(results_read, timeout=CHILD_GRACE_SECONDS + 2 * (time.monotonic() - started))
            child_finished = parts is not None
            done.update(parts or {})
    finally:
        os.close(results_read)  # a child still writing gets a broken pipe, never a deadlock
        os.close(tasks_read)
        if pid is not None:
            if not child_finished:
                os.kill(pid, signal.SIGKILL)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:  # SIGCHLD ignored: the system reaped it already
                pass
    missing = [number for number in range(len(chunks)) if number not in done]
    done.update(_ingest_chunks(lines, chunks, missing, src.name, ctx, strict))
    out = done.pop(0)
    for number in range(1, len(chunks)):
        out.extend(done.pop(number))  # each part freed once merged: the peak holds one copy
    return out
