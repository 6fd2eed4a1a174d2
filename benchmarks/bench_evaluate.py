"""Benchmark the evaluation engine on 100,000 raw rows.

Six deterministic dimensions (task_completion with must_include, tool_call with
JSON Schema tool contracts, action_correctness with actions and state, pii, cost,
latency), 5 trials per case. Prints:

* in-process: rows/s of ``scorekit.evaluate`` and its peak traced memory;
* whole process: ``scorekit run --results F --out-dir D`` timed with
  ``/usr/bin/time -v`` (wall clock and peak RSS), median of ``--runs`` runs.

With ``--peer assevra`` (Assevra 0.6, installed in its own virtual
environment: ``--peer-python`` names its interpreter), ``scorekit run --results
F --out-dir D`` and ``assevra run --dataset F --out-dir D`` run on the same
file, alternating, ``--runs`` times each, in the same minutes. Assevra reads
this row format as it is (the six dimensions have the same names and fields
there), so both score the same rows on the same dimensions and write their
default reports (scorecard JSON, Markdown, HTML; scorekit also its evidence
Parquet). For each program the medians of wall time, CPU time and peak memory
summed over the whole process group (its process and every process below it,
forkserver and workers included, sampled from /proc every 0.1 s) are printed,
with the two ratios the issue's target is stated in: speed (Assevra's wall time
over scorekit's; the target is ≥ 10) and memory (scorekit's process-group peak
over Assevra's; the target is ≤ 0.5). On a shared machine wall time follows the
load; CPU time (user + system, summed over the process group) does less, so its
ratio is printed beside.

With ``--break-even N [N ...]``, ``scorekit run`` on N rows runs in one process
(``SCOREKIT_WORKERS=1``) and with a local worker (``SCOREKIT_WORKERS=2``, the
workers forced on whatever the size), alternating: the size from which a worker
pays is the threshold :data:`scorekit.engines.local.MIN_ROWS` is set from.

With ``--compare-with SRC`` (a directory holding another ``scorekit`` package,
e.g. an export of an older commit with its compiled helper), the whole-process
runs alternate between that code and this one, in the same minutes, and the
two medians are printed (A/B of an engine change, such as the local workers
replacing the fork queue).

Usage::

    python benchmarks/bench_evaluate.py [--rows 100000] [--runs 3] [--keep DIR] [--compare-with SRC]
    python benchmarks/bench_evaluate.py --peer assevra [--peer-python /tmp/assevra-venv/bin/python]
    python benchmarks/bench_evaluate.py --break-even 25000 50000 100000 200000 [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
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
    parser.add_argument("--peer", choices=("assevra",), help="run a peer program beside scorekit on the same rows")
    parser.add_argument("--peer-python", type=Path, default=Path("/tmp/assevra-venv/bin/python"),
                        help="the interpreter of the peer's virtual environment")
    parser.add_argument("--break-even", type=int, nargs="+", metavar="N",
                        help="sizes at which to run scorekit with and without a local worker")
    args = parser.parse_args(argv)
    if args.break_even:
        return _break_even(args)

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
    if args.peer is not None:
        return _beside_peer(args, work, results)
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
    print(f"scorekit run (whole process, median of {args.runs}): {wall:.2f} s wall, {rss / 1024:.0f} MiB peak RSS "
          "(of the largest process; --peer assevra compares with the peer, process group summed)")
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


# Clock ticks per second of /proc/<pid>/stat's CPU times.
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def processes() -> dict[int, tuple[int, int, float]]:
    """Every process now, by process id: its parent's id, its RSS (KiB) and its CPU seconds so far
    (user + system, its own and its waited-for children's), from /proc."""
    page_kib = os.sysconf("SC_PAGE_SIZE") // 1024
    table: dict[int, tuple[int, int, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/statm") as fh:
                pages = int(fh.read().split()[1])
        except (OSError, IndexError, ValueError):  # a process that ended meanwhile
            continue
        # fields[0] is the state (field 3 of stat): utime, stime, cutime, cstime are fields 14-17.
        table[int(entry)] = (int(fields[1]), pages * page_kib, sum(int(t) for t in fields[11:15]) / _TICKS)
    return table


def process_tree(table: dict[int, tuple[int, int, float]], root: int) -> list[tuple[int, int]]:
    """``root`` (depth 0) and every process of ``table`` (:func:`processes`) below it, as
    (process id, depth), each after its parent."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], [(root, 0)]
    while todo:
        pid, depth = todo.pop()
        if pid in table:
            found.append((pid, depth))
        todo.extend((child, depth + 1) for child in children.get(pid, []))
    return found


def _tree_sample(root: int) -> tuple[int, dict[int, float]]:
    """The summed RSS (KiB) of ``root`` and every process below it, and each one's CPU
    seconds so far (user + system, its own and its waited-for children's), from /proc."""
    table = processes()
    tree = [pid for pid, _ in process_tree(table, root)]
    return sum(table[pid][1] for pid in tree), {pid: table[pid][2] for pid in tree}


def measure_group(cmd: list[str], env: dict[str, str] | None = None, every: float = 0.1) -> tuple[float, float, int]:
    """Run ``cmd``: its wall seconds, the CPU seconds of its whole process group, and
    the peak of the group's summed RSS (KiB), sampled every ``every`` seconds.

    A process's CPU time is its last sample's, so a process living less than
    ``every`` may be missed; the command's own is exact (from its exit)."""
    import resource
    import threading

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak, cpu = [0], {}
    done = threading.Event()

    def sample() -> None:
        while True:
            rss, seen = _tree_sample(proc.pid)
            peak[0] = max(peak[0], rss)
            cpu.update(seen)
            if done.wait(every):
                return

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):  # scorekit and assevra exit 1 on a FAIL
        raise SystemExit(f"{cmd[0]} failed ({proc.returncode}):\n{stderr.decode(errors='replace')[-2000:]}")
    own = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    cpu.pop(proc.pid, None)  # its own (and its waited-for children's) time is exact from rusage
    return wall, own + sum(cpu.values()), peak[0]


def _beside_peer(args: argparse.Namespace, work: Path, results: Path) -> int:
    """``scorekit run`` and the peer's run on ``results``, alternating, ``args.runs`` each."""
    import compileall

    here = Path(__file__).resolve().parents[1]
    compileall.compile_dir(str(here / "scorekit"), quiet=1)  # as an installed package is
    if not args.peer_python.exists():
        raise SystemExit(f"{args.peer_python} not found: python3.11 -m venv /tmp/assevra-venv && "
                         "/tmp/assevra-venv/bin/pip install assevra==0.6.0.post1")
    env = dict(os.environ, PYTHONPATH=str(here))
    peer_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    commands = {
        "scorekit": ([sys.executable, "-m", "scorekit", "run", "--results", str(results), "--out-dir"], env),
        # --config none: no project configuration found by walking up; judge none: deterministic dimensions only.
        "assevra": ([str(args.peer_python), "-m", "assevra", "run", "--config", "none", "--judge-provider", "none",
                     "--quiet", "--dataset", str(results), "--out-dir"], peer_env),
    }
    figures: dict[str, list[tuple[float, float, int]]] = {name: [] for name in commands}
    for i in range(args.runs):
        for name, (cmd, cmd_env) in commands.items():
            wall, cpu, rss = measure_group([*cmd, str(work / f"{name}-{i}")], cmd_env)
            figures[name].append((wall, cpu, rss))
            print(f"  run {i + 1} {name:<8}: {wall:6.2f} s wall, {cpu:6.2f} s CPU, "
                  f"{rss / 1024:5.0f} MiB peak RSS (process group)", flush=True)
    medians = {name: [statistics.median(f[k] for f in runs) for k in range(3)] for name, runs in figures.items()}
    for name, (wall, cpu, rss) in medians.items():
        print(f"{name:<8} median of {args.runs}: {wall:6.2f} s wall, {cpu:6.2f} s CPU, {rss / 1024:5.0f} MiB peak RSS")
    (s_wall, s_cpu, s_rss), (a_wall, a_cpu, a_rss) = medians["scorekit"], medians["assevra"]
    print(f"speed: {a_wall / s_wall:.1f}× faster (wall; target ≥ 10), {a_cpu / s_cpu:.1f}× (CPU); "
          f"memory: {s_rss / a_rss:.2f} of the peer's process-group peak (target ≤ 0.5)")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _break_even(args: argparse.Namespace) -> int:
    """``scorekit run`` in one process and with one local worker at each size, alternating."""
    import compileall

    here = Path(__file__).resolve().parents[1]
    compileall.compile_dir(str(here / "scorekit"), quiet=1)
    work = args.keep or Path(tempfile.mkdtemp(prefix="scorekit-break-even-"))
    work.mkdir(parents=True, exist_ok=True)
    # SCOREKIT_MIN_WORKER_ROWS=0: the worker path at any size (the size is what is measured here).
    modes = {"in process": {"SCOREKIT_WORKERS": "1"},
             "1 worker": {"SCOREKIT_WORKERS": "2", "SCOREKIT_MIN_WORKER_ROWS": "0"}}
    print(f"{'rows':>9}  {'mode':<11}{'wall s':>8}{'CPU s':>8}{'group MiB':>11}   (medians of {args.runs})")
    for n in args.break_even:
        results = work / f"rows-{n}.jsonl"
        write_jsonl(make_rows(n), results)
        figures: dict[str, list[tuple[float, float, int]]] = {mode: [] for mode in modes}
        for i in range(args.runs):
            for mode, extra in modes.items():
                env = dict(os.environ, PYTHONPATH=str(here), **extra)
                cmd = [sys.executable, "-m", "scorekit", "run", "--results", str(results), "--out-dir",
                       str(work / f"out-{n}-{i}")]
                figures[mode].append(measure_group(cmd, env))
        for mode, runs in figures.items():
            wall, cpu, rss = (statistics.median(f[k] for f in runs) for k in range(3))
            print(f"{n:>9,}  {mode:<11}{wall:>8.2f}{cpu:>8.2f}{rss / 1024:>11.0f}", flush=True)
        results.unlink()
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
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
