"""Local worker processes for the ``pandas`` engine (SPEC §16; docs/engines.md).

A large JSON Lines file is cut into ranges of whole lines: this process scores from the front,
the workers of a ``ProcessPoolExecutor`` (forkserver or spawn, never a fork) from the back, each
reading its own range from the file. A worker that fails, is killed or does not answer costs
time, never rows: what it did not deliver is scored here (partials combine in any order).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from .._errors import InputError
from .._partial import Partial, combine, read_range, score_lines, shrink
from .._rows._formats import FileLines
from .._spool import Spool

__all__ = ["MIN_ROWS", "checked_range", "line_ranges", "min_rows", "range_task", "score_file", "wants_workers",
           "workers"]

# Below this many rows a worker process costs more than it saves, so the rows are scored in the calling
# process and no worker (nor the forkserver) is started. Measured on a 2-core machine shared with other
# jobs (benchmarks/bench_evaluate.py --break-even, bench_evaluate's six dimensions, whole `scorekit run`,
# medians of 2 alternated runs; wall s, CPU s summed over the process group, group peak RSS MiB):
#     50,000 rows   in process 18.8 s  5.6 s CPU  211 MiB   one worker 18.3 s   9.3 s CPU  357 MiB
#    100,000 rows   in process 55.3 s  9.2 s CPU  263 MiB   one worker 58.2 s  14.2 s CPU  402 MiB
#    200,000 rows   in process 99.2 s 18.0 s CPU  229 MiB   one worker 82.8 s  26.0 s CPU  390 MiB
# A worker costs 4-8 s of CPU (the forkserver and its imports) and ~150 MiB; it wins back wall time
# between 100,000 and 200,000 rows: the threshold is set between them.
MIN_ROWS = 150_000
# How long this process waits for the workers' last ranges, beyond twice its
# own scoring time, before it stops them and scores those ranges itself.
GRACE_SECONDS = 30.0


def _setting(name: str, default: int, least: int) -> int:
    """The whole number in environment variable ``name`` (at least ``least``), else ``default``;
    any other text is an :class:`~scorekit.InputError` naming the variable."""
    text = os.environ.get(name)
    if not text:
        return default
    try:
        return max(least, int(text))
    except ValueError:
        raise InputError(f"{name} must be a whole number; got {text!r}") from None


def workers() -> int:
    """Processes to score with (this one included): ``SCOREKIT_WORKERS``, else
    the cores this process may use (at most 8)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return _setting("SCOREKIT_WORKERS", max(1, min(8, cores)), 1)


def min_rows() -> int:
    """Rows from which worker processes score too: ``SCOREKIT_MIN_WORKER_ROWS``, else :data:`MIN_ROWS`."""
    return _setting("SCOREKIT_MIN_WORKER_ROWS", MIN_ROWS, 0)


def wants_workers(n_lines: int) -> bool:
    """Whether ``n_lines`` lines are worth worker processes: at least :func:`min_rows`, and more than one core."""
    return n_lines >= min_rows() and workers() > 1


def _pool(n: int) -> Executor:
    """``n`` workers started from a forkserver where the platform has one (it preloads the scoring
    modules once, never the caller's ``__main__``), else by spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx: Any = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["scorekit._partial"])
    else:  # pragma: no cover - Windows
        ctx = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=n, mp_context=ctx)


def line_ranges(n_rows: int, n_workers: int) -> list[tuple[int, int]]:
    """[start, stop) line ranges small enough that the processes taking them in
    turn finish within a fraction of a second of each other."""
    size = max(500, -(-n_rows // (32 * n_workers)))
    return [(start, min(start + size, n_rows)) for start in range(0, n_rows, size)]


def checked_range(path: str, start: int, stop: int, crc: int, first: int, source: str, ctx_args: dict[str, Any],
                  strict: bool) -> Partial:
    """Score the JSON Lines rows in bytes [start, stop) of ``path`` (``start`` at the beginning of line
    number ``first``), refusing bytes other than those this process read: what a worker runs, reading
    its own range, so no row is sent to it."""
    data = read_range(path, start, stop, source)
    if zlib.crc32(data) != crc:
        raise OSError(f"{source}: the file changed while it was being scored")
    return score_lines(FileLines(data), first, source, ctx_args, strict)


def range_task(path: str, lines: Any, ctx_args: dict[str, Any], strict: bool) -> Callable[[int, int], tuple[Any, ...]]:
    """For lines [a, b) of ``lines`` (read from ``path``), the arguments of
    :func:`checked_range` that score them in another process from the file."""
    absolute = os.path.abspath(path)
    with open(absolute, "rb") as fh:
        base = 3 if fh.read(3) == b"\xef\xbb\xbf" else 0  # the reader dropped a UTF-8 byte order mark
    data = memoryview(lines.data) if lines.data is not None else None

    def task(a: int, b: int) -> tuple[Any, ...]:
        start, stop = int(lines.starts[a]), int(lines.ends[b - 1])
        # Lines not held are read back here (refused if the file changed since it was checked).
        crc = zlib.crc32(data[start:stop] if data is not None else lines[a:b].load().data)
        return (absolute, base + start, base + stop, crc, a + 1, path, ctx_args, strict)

    return task


def _stop(pool: Executor) -> None:
    """Stop ``pool`` without waiting for a worker that does not answer."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError, AttributeError):  # already gone
            process.kill()
    pool.shutdown(wait=True, cancel_futures=True)


def score_file(path: str, lines: Any, ctx_args: dict[str, Any], strict: bool, *, n_workers: int | None = None,
               executor: Callable[[int], Executor] = _pool) -> Partial:
    """Score the JSON Lines ``lines`` read from ``path`` here and in worker processes; ``executor(n)``
    makes the pool of ``n`` workers (tests hand over one whose workers are killed)."""
    n_workers = n_workers or workers()
    chunks = line_ranges(len(lines), n_workers)
    task = range_task(path, lines, ctx_args, strict)
    spool = Spool()  # each partial is reduced as it arrives (shrink): only compact columns are held

    def here(n: int) -> Partial:
        a, b = chunks[n]
        return shrink(score_lines(lines[a:b], a + 1, path, ctx_args, strict), spool)

    todo = deque(range(len(chunks)))
    done: dict[int, Partial] = {}
    lock = threading.Lock()
    abandoned = threading.Event()
    pool: Executor | None = None
    try:
        pool = executor(n_workers - 1) if n_workers > 1 else None
    except (OSError, ValueError, NotImplementedError):  # no worker processes here: this one scores everything
        pool = None

    def feed() -> None:
        """Hand ranges from the back of the queue to one worker at a time."""
        while not abandoned.is_set():
            with lock:
                if not todo:
                    return
                n = todo.pop()
            try:
                part = shrink(pool.submit(checked_range, *task(*chunks[n])).result(), spool)  # type: ignore[union-attr]
            except BaseException:  # noqa: BLE001 - a broken or killed worker: its range is scored here
                with lock:
                    if n not in done:
                        todo.append(n)
                return
            with lock:
                if not abandoned.is_set():
                    done[n] = part

    from .._progress import progress_bar

    bar = progress_bar(len(chunks), "scoring")
    feeders = [threading.Thread(target=feed, daemon=True, name=f"scorekit-feed-{i}") for i in range(n_workers - 1)]
    if pool is not None:
        for thread in feeders:
            thread.start()
    try:
        started = time.monotonic()
        while True:
            with lock:
                if not todo:
                    break
                n = todo.popleft()
            part = here(n)
            with lock:
                done[n] = part
                finished = len(done)
            if bar is not None:
                bar.update(finished - bar.n)
        if pool is not None:
            deadline = time.monotonic() + GRACE_SECONDS + 2 * (time.monotonic() - started)
            for thread in feeders:
                thread.join(max(0.0, deadline - time.monotonic()))
                with lock:  # a worker failed meanwhile: its range came back to the queue
                    again = list(todo)
                    todo.clear()
                for n in again:
                    done.setdefault(n, here(n))
    finally:
        abandoned.set()
        if bar is not None:
            bar.close()
        if pool is not None:
            if any(thread.is_alive() for thread in feeders):
                _stop(pool)
            else:
                pool.shutdown(wait=True)
    with lock:
        missing = [n for n in range(len(chunks)) if n not in done]
    for n in missing:  # held by a worker that did not answer in time
        done[n] = here(n)
    return combine(done.pop(n) for n in sorted(done))
