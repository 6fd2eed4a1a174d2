"""Benchmark the evaluation engine on 100,000 raw rows.

Six deterministic dimensions (task_completion with must_include, tool_call with
JSON Schema tool contracts, action_correctness with actions and state, pii, cost,
latency), 5 trials per case. Prints:

* in-process: rows/s of ``scorekit.evaluate`` and its peak traced memory;
* whole process: ``scorekit run --results F --out-dir D`` timed with
  ``/usr/bin/time -v`` (wall clock and peak RSS), median of ``--runs`` runs.

The peer figure the issue quotes for such a run is about 33 s wall and 350 MB
peak RSS; the target is at least 10× faster (≤ 3.3 s) with peak RSS no higher.

With ``--compare-with SRC`` (a directory holding another ``scorekit`` package,
e.g. an export of an older commit with its compiled helper), the whole-process
runs alternate between that code and this one, in the same minutes, and the
two medians are printed (A/B of an engine change, such as the local workers
replacing the fork queue).

Usage::

    python benchmarks/bench_evaluate.py [--rows 100000] [--runs 3] [--keep DIR] [--compare-with SRC]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

DIMENSIONS = ("task_completion", "tool_call", "action_correctness", "pii", "cost", "latency")
TRIALS = 5

SEND_SCHEMA = {
    "type": "object",
    "properties": {
        "to": {"type": "array", "items": {"type": "string", "pattern": "^[^@]+@[^@]+$"}, "minItems": 1},
        "subject": {"type": "string", "maxLength": 200},
        "body": {"type": "string"},
        "cc": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["to", "subject", "body"],
    "additionalProperties": False,
}
CALENDAR_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "start": {"type": "string", "format": "date-time"},
        "duration_minutes": {"type": "integer", "minimum": 5, "maximum": 480},
        "attendees": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["title", "start", "duration_minutes"],
    "additionalProperties": False,
}
WORDS = ("invoice", "meeting", "budget", "quarterly", "review", "contract", "renewal", "deadline", "shipping", "refund")


def make_rows(n_rows: int, seed: int = 11) -> list[dict]:
    rng = random.Random(seed)
    rows: list[dict] = []
    case = 0
    while len(rows) < n_rows:
        dimension = DIMENSIONS[case % len(DIMENSIONS)]
        case_id = f"{dimension}-{case:06d}"
        topic = rng.choice(WORDS)
        base = {
            "dimension": dimension,
            "case_id": case_id,
            "input": f"Handle the {topic} thread #{case} and report back.",
        }
        for trial in range(TRIALS):
            if len(rows) >= n_rows:
                break
            ok = rng.random() < 0.9
            row = dict(base, id=f"{case_id}-t{trial}", trial=trial)
            output = f"Summary of the {topic} thread: the team agreed on next steps for case {case}."
            if dimension == "task_completion":
                row["must_include"] = [topic, "next steps"]
                row["must_not_include"] = ["password"]
                row["agent_output"] = output if ok else f"The {topic} thread was read."
            elif dimension == "tool_call":
                row["allowed_tools"] = ["send_email", "create_event", "search_mail"]
                row["forbidden_tools"] = ["delete_mailbox"]
                row["tool_schemas"] = {"send_email": SEND_SCHEMA, "create_event": CALENDAR_SCHEMA}
                row["expected_tool_calls"] = ["send_email"]
                args = {"to": [f"ops{case}@example.com"], "subject": f"Re: {topic}", "body": output}
                if not ok:
                    args = {"to": "ops@example.com", "subject": f"Re: {topic}"}
                row["tool_calls"] = [
                    {"name": "search_mail", "arguments": {"query": topic}},
                    {"name": "send_email", "arguments": args},
                ]
            elif dimension == "action_correctness":
                row["expected_actions"] = ["open_thread", "apply_label", "archive"]
                row["forbidden_actions"] = ["delete_message", ["read_secret", "send_email"]]
                row["expected_state"] = {"labels": ["finance"], "archived": True, "thread": {"id": case}}
                row["agent_actions"] = ["open_thread", "apply_label", "archive"] if ok else ["open_thread", "archive"]
                row["observed_state"] = {
                    "labels": ["finance"] if ok else [],
                    "archived": True,
                    "thread": {"id": case, "unread": 0},
                }
            elif dimension == "pii":
                row["agent_output"] = output if ok else output + f" Call me at +1 415-555-{1000 + case % 9000:04d}."
            elif dimension == "cost":
                row["cost_budget_usd"] = 0.05
                row["usage"] = {"input_tokens": 1200 + case % 400, "output_tokens": 300}
                row["cost_usd"] = 0.012 if ok else 0.08
            else:
                row["latency_budget_ms"] = 3000
                row["latency_ms"] = 1200 + case % 700 if ok else 4200
            rows.append(row)
        case += 1
    return rows


def write_jsonl(rows: list[dict], path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False))
            fh.write("\n")


def time_process(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one whole process, from /usr/bin/time -v."""
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    return _parse_time(proc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="keep the generated results file and reports here")
    parser.add_argument("--compare-with", type=Path, help="a directory with another scorekit package to A/B against")
    args = parser.parse_args(argv)

    work = args.keep or Path(tempfile.mkdtemp(prefix="scorekit-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    results = work / "results.jsonl"
    rows = make_rows(args.rows)
    write_jsonl(rows, results)
    del rows
    print(f"{args.rows:,} rows, {len(DIMENSIONS)} dimensions, {TRIALS} trials per case; "
          f"file {results.stat().st_size / 2**20:.1f} MiB")

    # Machine calibration: the same code has measured 60% slower on this shared
    # hardware from one hour to the next; the time the standard library takes
    # just to parse the file lets runs on different days be compared.
    start = time.perf_counter()
    with results.open("rb") as fh:
        for line in fh:
            json.loads(line)
    calibration = time.perf_counter() - start
    print(f"calibration: stdlib json.loads of every line takes {calibration:.2f} s on this machine now")
    try:
        import scorekit._speedups  # noqa: F401
        print("build: with the C helper (scorekit/_speedups.c)")
    except ImportError:
        print("build: pure Python (the C helper was not compiled; expect a slower run)")

    import scorekit

    start = time.perf_counter()
    card = scorekit.evaluate(results)
    elapsed = time.perf_counter() - start
    print(f"in-process evaluate: {elapsed:.2f} s = {args.rows / elapsed:,.0f} rows/s; decision {card.decision}")
    del card
    tracemalloc.start()
    scorekit.evaluate(results)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"in-process evaluate peak traced memory: {peak / 2**20:,.0f} MiB")

    if not Path("/usr/bin/time").exists():
        print("/usr/bin/time not found (Debian package 'time'); skipping whole-process timing")
        return 0
    # An installed package carries compiled bytecode; a checkout may not (and
    # PYTHONDONTWRITEBYTECODE keeps it that way), which would add recompiling
    # scorekit's modules to every timed process.
    import compileall

    import scorekit

    compileall.compile_dir(str(Path(scorekit.__file__).parent), quiet=1)
    exe = shutil.which("scorekit") or str(Path(sys.executable).with_name("scorekit"))
    if args.compare_with is not None:
        return _compare(args, work, results)
    walls, rsss = [], []
    for i in range(args.runs):
        out_dir = work / f"reports-{i}"
        wall, rss = time_process([exe, "run", "--results", str(results), "--out-dir", str(out_dir)])
        walls.append(wall)
        rsss.append(rss)
        print(f"  run {i + 1}: {wall:.2f} s wall, {rss / 1024:.0f} MiB peak RSS")
    wall, rss = statistics.median(walls), statistics.median(rsss)
    print(f"scorekit run (whole process, median of {args.runs}): {wall:.2f} s wall, {rss / 1024:.0f} MiB peak RSS; "
          f"vs the peer's ~33 s / 350 MB: {33 / wall:.1f}× faster, RSS {rss / 1024 / 350 * 100:.0f}% of the peer's")
    print(f"scorekit run / json.loads calibration: {wall / calibration:.2f}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _compare(args: argparse.Namespace, work: Path, results: Path) -> int:
    """Alternate whole-process runs of the other package and this one."""
    import compileall
    import os

    compileall.compile_dir(str(args.compare_with / "scorekit"), quiet=1)
    here = Path(__file__).resolve().parents[1]
    codes = {"other": str(args.compare_with.resolve()), "this": str(here)}
    figures: dict[str, list[tuple[float, int]]] = {name: [] for name in codes}
    for i in range(args.runs):
        for name, path in codes.items():
            env = dict(os.environ, PYTHONPATH=path)
            cmd = [sys.executable, "-m", "scorekit", "run", "--results", str(results), "--out-dir",
                   str(work / f"{name}-{i}")]
            proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env=env)
            wall, rss = _parse_time(proc)
            figures[name].append((wall, rss))
            print(f"  run {i + 1} {name}: {wall:.2f} s wall, {rss / 1024:.0f} MiB peak RSS")
    for name in codes:
        wall = statistics.median(w for w, _ in figures[name])
        rss = statistics.median(r for _, r in figures[name])
        print(f"{name} ({codes[name]}): median {wall:.2f} s wall, {rss / 1024:.0f} MiB peak RSS")
    same = [(work / f"{name}-0" / "scorecard.json").read_text() for name in codes]
    strip = [re.sub(r'"generated_at": "[^"]*"', "", text) for text in same]
    print("scorecard.json identical (but generated_at):", strip[0] == strip[1])
    return 0


def _parse_time(proc: subprocess.CompletedProcess[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) from /usr/bin/time -v output."""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"command failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):(\d+(?:\.\d+)?)", proc.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    if not wall or not rss:
        raise SystemExit("could not read /usr/bin/time -v output:\n" + proc.stderr[-2000:])
    hours, minutes, seconds = wall.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds), int(rss.group(1))


if __name__ == "__main__":
    sys.exit(main())
