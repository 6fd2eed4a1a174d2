"""Benchmark the duckdb engine on pre-scored CSV and JSON Lines files (SPEC §16).

N pre-scored rows (10 dimensions, 10 trials per case, 88% PASS) are written by
DuckDB as one CSV and one JSON Lines file; each file is then evaluated in a
fresh process with ``engine="duckdb"`` and ``engine="pandas"``: wall time and
peak RSS of the whole process (``/usr/bin/time -v``), and whether the two
scorecards (but ``generated_at``) and evidence tables are identical.

Usage::

    python benchmarks/bench_duckdb_text.py --rows 1000000 --dir /tmp/sk-text
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluate import _parse_time  # noqa: E402

DIMENSIONS = 10
TRIALS = 10

_EVALUATE = """
import hashlib, json, sys
import scorekit as sk
card = sk.evaluate(sys.argv[1], engine=sys.argv[2])
data = card.to_dict(); data.pop("generated_at")
evidence = card.evidence.to_csv(index=False).encode()
print(hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode() + evidence).hexdigest(), card.decision)
"""


def generate(rows: int, folder: Path) -> dict[str, Path]:
    """``rows`` pre-scored rows as ``rows.csv`` and ``rows.jsonl``, written by DuckDB."""
    import duckdb

    folder.mkdir(parents=True, exist_ok=True)
    paths = {"csv": folder / "rows.csv", "jsonl": folder / "rows.jsonl"}
    if all(p.exists() for p in paths.values()):
        return paths
    con = duckdb.connect()
    con.execute("SET memory_limit = '2GB'")
    con.execute("SET enable_progress_bar = false")
    select = f"""
        SELECT 'r' || i AS id, 'dim' || ((i // {TRIALS}) % {DIMENSIONS}) AS dimension,
               'c' || (i // ({TRIALS} * {DIMENSIONS})) AS case_id, (i % {TRIALS})::BIGINT AS trial,
               CASE WHEN hash(i) % 100 < 88 THEN 'PASS' WHEN hash(i) % 100 < 98 THEN 'FAIL' ELSE 'ERROR' END
                 AS status,
               'harness-x' AS evaluator
        FROM range({rows}) t(i) ORDER BY i"""
    con.execute(f"COPY ({select}) TO '{paths['csv']}' (FORMAT csv, HEADER true)")
    con.execute(f"COPY ({select}) TO '{paths['jsonl']}' (FORMAT json)")
    con.close()
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path)
    args = parser.parse_args(argv)
    folder = args.dir or Path(tempfile.mkdtemp(prefix="sk-text-"))
    t = time.perf_counter()
    paths = generate(args.rows, folder)
    print(f"{args.rows:,} pre-scored rows written in {time.perf_counter() - t:.1f} s: "
          + ", ".join(f"{p.name} {p.stat().st_size / 2**20:.0f} MiB" for p in paths.values()))
    for kind, path in paths.items():
        digests = {}
        for engine in ("duckdb", "pandas"):
            proc = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c", _EVALUATE, str(path), engine],
                                  capture_output=True, text=True)
            wall, rss = _parse_time(proc)
            digests[engine] = proc.stdout.strip()
            print(f"{kind} {engine:>6}: {wall:6.1f} s wall, peak RSS {rss / 1024:6.0f} MiB  ({digests[engine]})")
        print(f"{kind}: scorecard and evidence identical: {digests['duckdb'] == digests['pandas']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
