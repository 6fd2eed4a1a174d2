"""Build ``v1.sqlite``: a history database written by scorekit before per-case counts.

Run once, at commit ca9fc39 (history schema 1), from the repository root::

    .venv/bin/python tests/data/history/build_v1_fixture.py

The file is committed as it came out; later scorekits must read it and migrate
it on their first write (tests/history/test_db_cases.py). Running this script
with a newer scorekit would write a newer schema, so it refuses to.
"""

from __future__ import annotations

import sys
from pathlib import Path

import scorekit as sk
from scorekit import history

OUT = Path(__file__).with_name("v1.sqlite")
POLICY = {"regression": {"required": True}, "gate": {"thresholds": {"task_completion": 0.5, "tool_call": 0.5}}}


def card(version: str, fails: int) -> sk.Scorecard:
    rows = []
    for dimension in ("task_completion", "tool_call"):
        for case in range(8):
            for trial in range(3):
                failed = case < fails and trial == 0
                rows.append({
                    "id": f"{dimension}-{case}-{trial}", "dimension": dimension, "case_id": f"case-{case}",
                    "trial": trial, "status": "FAIL" if failed else "PASS", "evaluator": "h",
                    "agent_output": f"output of {version} #{case}/{trial}",
                })
    return sk.evaluate(rows, policy=POLICY, agent_name="fixture-agent", agent_version=version)


def main() -> None:
    if history.SCHEMA_VERSION != 1:
        sys.exit(f"this scorekit writes history schema {history.SCHEMA_VERSION}; the fixture is schema 1")
    if OUT.exists():
        sys.exit(f"{OUT} exists; delete it first")
    for version, fails, label in (("1.0", 1, "release-1.0"), ("1.1", 2, "release-1.1")):
        c = card(version, fails)
        final = history.with_comparison(c, history.compare(c, OUT))
        history.record(final, OUT, label=label)
    print(history.read_history(OUT).to_string())


if __name__ == "__main__":
    main()
