"""Benchmark importing a directory of Inspect AI logs: scorekit vs inspect_ai's own reader.

Times, each in its own fresh process (one process per tool, so neither pays for the other's
imports or caches), the median of ``--runs`` repetitions of

* scorekit: ``scorekit.import_results(DIR, format="inspect")`` (every log to SPEC §2 rows);
* inspect_ai: ``inspect_ai.log.read_eval_log(path)`` on every ``.eval``/``.json`` log of DIR
  (its pydantic models, samples included), in a separate virtual environment: inspect_ai is
  not a dependency of scorekit.

Both exclude interpreter start-up and the first import of the library (measured after a warm-up
read in the same process). Prints both medians and the ratio.

Usage::

    python -m venv /tmp/inspect-venv && /tmp/inspect-venv/bin/pip install inspect_ai
    python benchmarks/bench_import.py [--dir tests/data/imports/inspect] [--runs 5] \\
        [--inspect-python /tmp/inspect-venv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_SCOREKIT = """
import json, sys, time
import scorekit as sk
d, runs = sys.argv[1], int(sys.argv[2])
sk.import_results(d, format="inspect")  # warm-up: imports, first read
times = []
for _ in range(runs):
    t = time.perf_counter(); out = sk.import_results(d, format="inspect"); times.append(time.perf_counter() - t)
print(json.dumps({"times": times, "runs": len(out), "rows": sum(len(r.rows) for r in out)}))
"""

_INSPECT = """
import json, sys, time
from pathlib import Path
from inspect_ai.log import read_eval_log
d, runs = Path(sys.argv[1]), int(sys.argv[2])
files = sorted(p for p in d.rglob("*") if p.suffix in (".eval", ".json"))
def read_all():
    return [read_eval_log(str(p)) for p in files]
read_all()  # warm-up
times = []
for _ in range(runs):
    t = time.perf_counter(); logs = read_all(); times.append(time.perf_counter() - t)
print(json.dumps({"times": times, "logs": len(logs), "samples": sum(len(l.samples or []) for l in logs)}))
"""


def _run(python: str, code: str, directory: Path, runs: int) -> dict[str, object]:
    proc = subprocess.run([python, "-c", code, str(directory), str(runs)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{python}: benchmark failed:\n{proc.stderr.strip()}")
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=ROOT / "tests" / "data" / "imports" / "inspect")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--inspect-python", default="/tmp/inspect-venv/bin/python")
    args = parser.parse_args(argv)
    ours = _run(sys.executable, _SCOREKIT, args.dir, args.runs)
    theirs = _run(args.inspect_python, _INSPECT, args.dir, args.runs)
    a, b = _median(ours["times"]), _median(theirs["times"])  # type: ignore[arg-type]
    print(f"directory: {args.dir} ({theirs['logs']} logs, {theirs['samples']} samples)")
    print(f"scorekit.import_results:   {a * 1000:8.1f} ms median of {args.runs} ({ours['runs']} runs, "
          f"{ours['rows']} rows)")
    print(f"inspect_ai read_eval_log:  {b * 1000:8.1f} ms median of {args.runs}")
    print(f"ratio (inspect_ai / scorekit): {b / a:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
