"""Build ``v2.sqlite``: a history database written by scorekit before baselines could be pinned.

Run once, at commit ecf8f4a (history schema 2: per-case counts, no pins), from
the repository root::

    .venv/bin/python tests/data/history/build_v2_fixture.py

The file is committed as it came out; later scorekits must read it, compare
against it (its earliest comparable eligible record, never its latest) and pin
its records, migrating it on that first write (tests/history/test_pin_old.py).
Running this script with a newer scorekit would write a newer schema, so it
refuses to.

The records, all of one suite and policy (a required comparison):

1. ``release-1.0``: the first run: measured PASS, no baseline, INCOMPLETE (eligible);
2. ``nightly``: compared with record 1, PASS (eligible; the latest eligible one);
3. ``broken``: compared with record 2 (scorekit at ecf8f4a took the latest), regressed: FAIL.
"""

from __future__ import annotations

import sys
from pathlib import Path

import scorekit as sk
from scorekit import history

OUT = Path(__file__).with_name("v2.sqlite")
POLICY = {"regression": {"required": True}, "gate": {"thresholds": {"task_completion": 0.5, "tool_call": 0.5}}}
CASES, TRIALS = 8, 3


def card(version: str, fails: int) -> sk.Scorecard:
    """``CASES`` cases of ``TRIALS`` trials per dimension; the first ``fails`` cases fail every trial."""
    rows = []
    for dimension in ("task_completion", "tool_call"):
        for case in range(CASES):
            for trial in range(TRIALS):
                rows.append({
                    "id": f"{dimension}-{case}-{trial}", "dimension": dimension, "case_id": f"case-{case}",
                    "trial": trial, "status": "FAIL" if case < fails else "PASS", "evaluator": "h",
                    "agent_output": f"output of {version} #{case}/{trial}",
                })
    return sk.evaluate(rows, policy=POLICY, agent_name="fixture-agent", agent_version=version)


def main() -> None:
    if history.SCHEMA_VERSION != 2:
        sys.exit(f"this scorekit writes history schema {history.SCHEMA_VERSION}; the fixture is schema 2")
    if OUT.exists():
        sys.exit(f"{OUT} exists; delete it first")
    for version, fails, label in (("1.0", 0, "release-1.0"), ("1.1", 0, "nightly"), ("1.2", 4, "broken")):
        c = card(version, fails)
        final = history.with_comparison(c, history.compare(c, OUT))
        history.record(final, OUT, label=label)
    print(history.read_history(OUT).to_string())


if __name__ == "__main__":
    main()
