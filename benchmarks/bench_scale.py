"""Benchmark the engines at scale (SPEC §16, issue 15).

(a) ``prescored``: N pre-scored rows (10 dimensions, repeated trials) generated
    as Parquet by DuckDB itself. On the same files, in the same minutes and
    alternating (``--repeat`` times, medians reported): DuckDB's own floor — every
    step a scorecard needs done by DuckDB alone (:data:`FLOOR`: counts per
    (dimension, case, status), a duplicate-id check, an order-free digest over
    every row, every row written back as Parquet) — and ``scorekit run --engine
    duckdb`` as a whole process; wall time and peak RSS of each, and the ratio
    (issue 27: at most 2x at 100M rows; 1B rows under 4 GB peak RSS).
    ``--in-process`` also times ``evaluate(engine="duckdb")`` beside a bare
    ``GROUP BY`` in one process (the older figure).
(b) ``dask``: N raw rows (bench_evaluate's six deterministic dimensions) with
    the dask engine on a 2-worker LocalCluster vs the pandas engine: identical
    scorecard.json (but generated_at), time, rows/s and peak RSS of both, the
    largest single process's and each process's (client with the scheduler, each
    worker; issue 27: under 2 GB per process at 10M rows, where ``--engines dask``
    leaves the pandas engine out).
(c) ``local``: see ``bench_evaluate.py --compare-with`` (local workers vs the
    old fork queue).
(d) ``memory``: peak RSS of ``scorekit run`` (pandas engine) against the number
    of raw rows, and the RSS per row.

Every figure is of one whole process (``/usr/bin/time -v``), so peak RSS
includes pandas, DuckDB and the evidence table.

Usage::

    python benchmarks/bench_scale.py prescored --rows 10000000 --dir /tmp/sk-scale-10m --repeat 3
    python benchmarks/bench_scale.py prescored --rows 1000000000 --dir /tmp/sk-scale
    python benchmarks/bench_scale.py dask --rows 1000000
    python benchmarks/bench_scale.py dask --rows 10000000 --engines dask --dir /tmp/sk-dask-10m
    python benchmarks/bench_scale.py memory --rows 100000 200000 400000
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluate import _parse_time, make_rows, process_tree, processes  # noqa: E402

DIMENSIONS = 10
TRIALS = 10


def _timed(cmd: list[str], ok: tuple[int, ...] = (0, 1),
           each: dict[int, tuple[int, str]] | None = None) -> tuple[float, int, str, int]:
    """Wall time, peak RSS (KiB) of the largest single process (/usr/bin/time -v: the command or
    one of its children, e.g. a dask worker), stdout, and the peak of the whole process tree's
    summed RSS (KiB, sampled every 0.5 s) of ``cmd``; its stderr (without progress bars) when its
    exit status is not one of ``ok`` (``scorekit run`` exits 1 on a FAIL; a Python script, on an error).
    ``each``, when given, is filled with every process's sampled peak RSS (KiB) and role
    (:func:`_processes`), by process id."""
    import threading

    proc = subprocess.Popen(["/usr/bin/time", "-v", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.5):
            table = processes()  # one look at /proc for both figures
            peak[0] = max(peak[0], sum(table[pid][1] for pid, _ in process_tree(table, proc.pid)))
            if each is not None:
                for pid, (rss, role) in _processes(table, proc.pid).items():
                    each[pid] = (max(rss, each.get(pid, (0, ""))[0]), role)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = proc.communicate()
    done.set()
    sampler.join()
    finished = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    if finished.returncode not in ok:
        lines = [line for line in stderr.replace("\r", "\n").splitlines() if "\u2595" not in line]
        print(f"exit status {finished.returncode}:", "\n".join(lines)[-3000:], file=sys.stderr)
    wall, rss = _parse_time(finished)
    return wall, rss, stdout, peak[0]


def generate_prescored(rows: int, folder: Path, files: int, trials: int = TRIALS) -> None:
    """``rows`` pre-scored rows as ``files`` Parquet files, written by DuckDB.

    Row i is trial ``i % trials`` of case ``i // (trials * 10)`` on dimension ``(i // trials) % 10``.
    Cases differ as real ones do: by the case's hash, 80% always pass, 10% always fail and 10%
    are flaky (each trial passes or fails by the row's hash); 1 row in 1,000 is an ERROR.
    """
    import duckdb

    folder.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET memory_limit = '3GB'")
    con.execute("SET enable_progress_bar = false")
    per_file = -(-rows // files)
    for f in range(files):
        start, stop = f * per_file, min(rows, (f + 1) * per_file)
        if start >= stop:
            break
        con.execute(f"""
            COPY (
              SELECT 'r' || i AS id, 'dim' || ((i // {trials}) % {DIMENSIONS}) AS dimension,
                     'c' || (i // ({trials} * {DIMENSIONS})) AS case_id, (i % {trials})::BIGINT AS trial,
                     CASE WHEN hash(i) % 1000 = 0 THEN 'ERROR'
                          WHEN hash(i // {trials}) % 100 < 80 THEN 'PASS'
                          WHEN hash(i // {trials}) % 100 < 90 THEN 'FAIL'
                          WHEN hash(i) % 2 = 0 THEN 'PASS' ELSE 'FAIL' END AS status,
                     'harness-x' AS evaluator
              FROM range({start}, {stop}) t(i)
            ) TO '{folder}/part-{f:05d}.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)
        """)
    con.close()


_GROUP_BY = """
import sys, time, resource, duckdb
con = duckdb.connect(); con.execute("SET memory_limit = '2GB'")
t = time.perf_counter()
n = con.execute("SELECT count(*) FROM (SELECT dimension, case_id, count(*) FILTER (status = 'PASS') AS c, "
                "count(*) FILTER (status IN ('PASS', 'FAIL')) AS n FROM read_parquet(?) GROUP BY ALL)",
                [sys.argv[1] + '/*.parquet']).fetchall()[0][0]
g = time.perf_counter() - t
import scorekit as sk
t = time.perf_counter()
card = sk.evaluate(sys.argv[1], engine="duckdb", evidence_rows_in_memory=int(sys.argv[2]))
e = time.perf_counter() - t
print(f"groups {n}; bare GROUP BY {g:.2f} s; duckdb engine {e:.2f} s; ratio {e / g:.1f}; decision {card.decision}; "
      f"evidence {card.to_dict()['evidence']}")
"""


# DuckDB's own floor for a pre-scored scorecard (issue 27; the query set of the session's
# tools/duckdb_floor.py): counts per (dimension, case, status), a duplicate-id check, an order-free
# digest over every row, and every row written back as Parquet (the evidence).
FLOOR = """
import os, sys, tempfile, time, duckdb
data = sys.argv[1]
con = duckdb.connect()
src = f"read_parquet('{data}/*.parquet')"
t = time.perf_counter()
con.execute(f"CREATE TEMP TABLE c AS SELECT dimension, case_id, status, count(*) n FROM {src} GROUP BY ALL").fetchall()
con.execute(f"SELECT id FROM {src} GROUP BY id HAVING count(*) > 1 LIMIT 1").fetchall()
con.execute(f"SELECT bit_xor(hash(id, case_id, dimension, trial, status, evaluator)) FROM {src}").fetchall()
with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as out:
    con.execute(f"COPY (SELECT * FROM {src}) TO '{out}/ev' (FORMAT parquet, PER_THREAD_OUTPUT true)")
print(f"floor queries {time.perf_counter() - t:.2f} s")
"""


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def bench_prescored(args: argparse.Namespace) -> None:
    folder = args.dir or Path(tempfile.mkdtemp(prefix="sk-scale-"))
    if not any(folder.glob("*.parquet")):
        t = time.perf_counter()
        generate_prescored(args.rows, folder, max(1, args.rows // 10_000_000), args.trials)
        size = sum(p.stat().st_size for p in folder.glob("*.parquet"))
        print(f"generated {args.rows:,} pre-scored rows in {time.perf_counter() - t:.1f} s: {size / 2**20:.1f} MiB")
    if args.in_process:
        wall, rss, out, _tree = _timed([sys.executable, "-c", _GROUP_BY, str(folder),
                                        str(args.evidence_rows_in_memory)], ok=(0,))
        print(out.strip())
        print(f"(a) evaluate(engine='duckdb'), {args.rows:,} pre-scored rows: whole process {wall:.1f} s wall, "
              f"peak RSS {rss / 2**20:.2f} GiB")
    floors: list[tuple[float, int]] = []
    runs: list[tuple[float, int]] = []
    out_dir = Path(tempfile.mkdtemp(prefix="sk-scale-out-"))
    try:
        for i in range(args.repeat):
            wall, rss, _out, _tree = _timed([sys.executable, "-c", FLOOR, str(folder)], ok=(0,))
            floors.append((wall, rss))
            wall_sk, rss_sk, _out, tree = _timed(
                [sys.executable, "-m", "scorekit", "run", "--results", str(folder), "--engine", "duckdb",
                 "--out-dir", str(out_dir / f"run-{i}"), "--evidence-rows-in-memory",
                 str(args.evidence_rows_in_memory)])
            runs.append((wall_sk, rss_sk))
            print(f"(a) {args.rows:,} rows, try {i + 1}: floor {wall:.1f} s ({rss / 2**20:.2f} GiB), scorekit run "
                  f"--engine duckdb {wall_sk:.1f} s ({rss_sk / 2**20:.2f} GiB; process tree {tree / 2**20:.2f} GiB "
                  f"sampled), ratio {wall_sk / wall:.2f}", flush=True)
            shutil.rmtree(out_dir / f"run-{i}", ignore_errors=True)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    floor_s, sk_s = _median([w for w, _ in floors]), _median([w for w, _ in runs])
    pairs = _median([sk / fl for (sk, _), (fl, _) in zip(runs, floors, strict=True)])
    print(f"(a) {args.rows:,} pre-scored rows, median of {args.repeat}: DuckDB floor {floor_s:.1f} s, "
          f"scorekit run --engine duckdb {sk_s:.1f} s, ratio {sk_s / floor_s:.2f} (median of the tries' "
          f"ratios {pairs:.2f}); peak RSS floor "
          f"{max(r for _, r in floors) / 2**20:.2f} GiB, scorekit {max(r for _, r in runs) / 2**20:.2f} GiB")


def _processes(table: dict[int, tuple[int, int, float]], root: int) -> dict[int, tuple[int, str]]:
    """The RSS (KiB) and role of every process of ``table`` (:func:`processes`) below ``root``
    (``/usr/bin/time``): ``client`` (the command itself: with a LocalCluster, the client and the
    scheduler), ``worker`` (a process it spawned: a dask worker, a local worker forked by the
    forkserver), or what else it is (``resource tracker``, ``forkserver``)."""
    out: dict[int, tuple[int, str]] = {}
    for pid, depth in process_tree(table, root):
        if depth == 0:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                command = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # a process that ended meanwhile
            continue
        above = out.get(table[pid][0], (0, ""))[1]
        role = ("client" if depth == 1 else "resource tracker" if "resource_tracker" in command
                else "forkserver" if "forkserver" in command and above != "forkserver" else "worker")
        out[pid] = (table[pid][1], role)
    return out


def _raw(rows: int, work: Path) -> Path:
    path = work / f"raw-{rows}.jsonl"
    if not path.exists():
        with path.open("w", encoding="utf-8") as fh:
            done = 0
            while done < rows:  # in blocks: the generator holds one block of dicts
                block = make_rows(min(100_000, rows - done), seed=11 + done)
                for row in block:
                    row["id"] = f"b{done}-{row['id']}"
                    row["case_id"] = f"b{done}-{row['case_id']}"
                    fh.write(json.dumps(row))
                    fh.write("\n")
                done += len(block)
    return path


def _scorecard(folder: Path) -> str:
    return re.sub(r'"generated_at": "[^"]*"', "", (folder / "scorecard.json").read_text())


def bench_dask(args: argparse.Namespace) -> None:
    """(b): the dask engine (a LocalCluster of two worker processes) and, unless left out with
    ``--engines``, the pandas engine on the same raw rows; per process its sampled peak RSS."""
    work = args.dir or Path(tempfile.mkdtemp(prefix="sk-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    path = _raw(args.rows, work)
    print(f"{args.rows:,} raw rows: {path.stat().st_size / 2**30:.2f} GiB (ready in {time.perf_counter() - t:.0f} s)",
          flush=True)
    results = {}
    for engine in args.engines:
        out = work / f"out-{engine}"
        each: dict[int, tuple[int, str]] = {}
        load = os.getloadavg()[0]
        threshold = [] if args.evidence_rows_in_memory is None else [
            "--evidence-rows-in-memory", str(args.evidence_rows_in_memory)]
        wall, rss, _, tree = _timed([sys.executable, "-m", "scorekit", "run", "--results", str(path), "--engine",
                                     engine, "--out-dir", str(out), *threshold], each=each)
        results[engine] = _scorecard(out)
        peaks = ", ".join(f"{role} {kib / 2**20:.2f}" for kib, role in sorted(each.values(), key=lambda e: e[1]))
        print(f"(b) {engine} engine, {args.rows:,} raw rows: {wall:.1f} s wall ({args.rows / wall:,.0f} rows/s; load "
              f"{load:.2f} before, {os.getloadavg()[0]:.2f} after), peak RSS {rss / 2**20:.2f} GiB (largest single "
              f"process, time -v), {tree / 2**20:.2f} GiB (all its processes together, sampled); per process "
              f"(sampled, GiB): {peaks}", flush=True)
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
    if len(results) == 2:
        print("(b) scorecard.json identical (but generated_at):", results["pandas"] == results["dask"])


def bench_memory(args: argparse.Namespace) -> None:
    work = args.dir or Path(tempfile.mkdtemp(prefix="sk-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    for rows in args.rows_list:
        path = _raw(rows, work)
        wall, rss, _, _tree = _timed([sys.executable, "-m", "scorekit", "run", "--results", str(path),
                                      "--out-dir", str(work / f"mem-{rows}")])
        print(f"(d) pandas engine, {rows:,} raw rows: {wall:.1f} s, peak RSS {rss / 1024:.0f} MiB "
              f"({rss * 1024 / rows:.0f} bytes per row)")
    if not args.dir:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    a = sub.add_parser("prescored")
    a.add_argument("--rows", type=int, default=1_000_000_000)
    a.add_argument("--dir", type=Path)
    a.add_argument("--trials", type=int, default=TRIALS, help="trials per case (default %(default)s)")
    a.add_argument("--evidence-rows-in-memory", type=int, default=10_000_000,
                   help="evaluate's threshold (0: always the evidence/ dataset)")
    a.add_argument("--repeat", type=int, default=1, help="floor and scorekit runs, alternating (medians)")
    a.add_argument("--in-process", action="store_true",
                   help="also time evaluate(engine='duckdb') beside a bare GROUP BY in one process")
    b = sub.add_parser("dask")
    b.add_argument("--rows", type=int, default=10_000_000)
    b.add_argument("--dir", type=Path)
    b.add_argument("--engines", nargs="+", choices=("pandas", "dask"), default=["pandas", "dask"],
                   help="engines to run (default both, compared); at 10M rows `--engines dask` alone")
    b.add_argument("--keep", action="store_true", help="keep each engine's --out-dir")
    b.add_argument("--evidence-rows-in-memory", type=int,
                   help="scorekit run's threshold (default its own, 10M: up to 10M rows the client reads the "
                        "whole evidence back into a frame; below the rows, the engine alone is measured)")
    d = sub.add_parser("memory")
    d.add_argument("--rows", dest="rows_list", type=int, nargs="+", default=[100_000, 200_000, 400_000])
    d.add_argument("--dir", type=Path)
    args = parser.parse_args(argv)
    {"prescored": bench_prescored, "dask": bench_dask, "memory": bench_memory}[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
