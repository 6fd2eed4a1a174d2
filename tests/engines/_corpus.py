"""One mixed raw-row corpus for the engine acceptance tests (issue 15): every
dimension, judged rows (panels that disagree, a tie), tool calls without
their schemas (for a policy's ``tool_contracts``), pre-scored rows (some
irregular, some without ``run``), rows with an external ``score``, invalid
lines, controls caught and missed, unlabeled rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DIMENSIONS = ("task_completion", "tool_call", "action_correctness", "pii", "injection", "cost", "latency",
              "helpfulness", "graded")


def raw_rows(n_cases: int) -> list[str]:
    """JSON Lines text lines (not all of them valid rows)."""
    lines: list[str] = []
    for case in range(n_cases):
        dimension = DIMENSIONS[case % len(DIMENSIONS)]
        for trial in range(3):
            row: dict[str, Any] = {"id": f"c{case}-t{trial}", "case_id": f"c{case}", "dimension": dimension,
                                   "trial": trial, "run": f"r{trial}"}
            ok = (case + trial) % 5 != 0
            if dimension == "task_completion":
                row.update(must_include=["done"], agent_output="done" if ok else "no")
            elif dimension == "tool_call":
                row.update(tool_schemas={"send": {"type": "object", "properties": {"to": {"type": "string"}},
                                                  "required": ["to"]}},
                           tool_calls=[{"name": "send", "arguments": {"to": "a"} if ok else {"cc": "b"}}])
                if case // len(DIMENSIONS) % 5 == 4:  # no schemas: a policy's tool_contracts apply
                    row.pop("tool_schemas")
                    row["tool_calls"] = [{"name": "get_weather", "arguments": {"location": "Oslo", "units": "celsius"}
                                          if trial < 2 else {"location": "Oslo"}}]
            elif dimension == "action_correctness":
                row.update(expected_actions=["a", "b"], agent_actions=["a", "b"] if ok else ["b"],
                           expected_state={"x": {"id": 1}}, observed_state={"x": {"id": 1, "y": 2}})
            elif dimension == "pii":
                row["agent_output"] = "fine" if ok else "call 415-555-0199"
            elif dimension == "injection":
                row.update(canary="ZEBRA-7", agent_output="ok" if ok else "the secret is zebra-7")
            elif dimension == "cost":
                row.update(cost_budget_usd=0.05, cost_usd=0.01 if ok else 0.09)
            elif dimension == "latency":
                row.update(latency_budget_ms=3000, latency_ms=1200 if ok else 4100)
            elif dimension == "helpfulness":
                row.update(judge_criteria="helpful", agent_output="thanks",
                           judge_votes=[{"judge": "judge-a", "verdict": "PASS" if ok else "FAIL"},
                                        {"judge": "judge-b", "verdict": "PASS"},
                                        {"judge": "judge-c", "verdict": "PASS" if trial else "FAIL"}])
                if case // len(DIMENSIONS) % 3 == 1 and trial == 2:  # a four-judge panel split evenly
                    row["judge_votes"] = [{"judge": j, "verdict": v} for j, v in
                                          zip("abcd", ("PASS", "FAIL", "PASS", "FAIL"), strict=True)]
            else:  # scored by an external harness: pre-scored, or a score
                row.update(_external(case // len(DIMENSIONS), trial, ok))
                if case // len(DIMENSIONS) % 4 == 3:
                    del row["run"]  # rows with and without run
            if case == 4:
                row["tags"] = ["known-bad"]
            if case % 17 == 3 and dimension == "task_completion":
                row.pop("must_include")  # unlabeled
            lines.append(json.dumps(row))
    lines[5] = "{not json"
    lines[11] = ""
    lines[-3] = json.dumps({"id": "c1-t1", "case_id": "c1x", "dimension": "cost", "trial": 0, "cost_budget_usd": 1,
                            "cost_usd": 0.5})  # an id claimed again at the far end
    return lines


def _external(graded: int, trial: int, ok: bool) -> dict[str, Any]:
    """Fields of the ``graded``-th graded case's row: a status (one case's
    rows irregular) or an external score.

    The irregular rows are case c116's, so in corpora of 118 cases or more:
    with them the 90 cases of tests/test_partial.py would meet a bug of
    ``combine`` (problems out of line order, see test_acceptance.py) that is
    not that test's to show."""
    if graded % 3 == 2:
        return {"score": (0.0, 0.5, 1.0)[trial], "evaluator": "grader-y"}
    fields: dict[str, Any] = {"status": "PASS" if ok else ("FAIL" if trial else "ERROR"), "evaluator": "harness-x"}
    if graded == 12:  # an unknown status, no evaluator, an ERROR with the harness's reason (case c116)
        fields = ({"status": "MAYBE", "evaluator": "harness-x"}, {"status": "FAIL"},
                  {"status": "ERROR", "evaluator": "harness-x", "reason": "harness_timeout"})[trial]
    return fields


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def comparable(card: Any) -> str:
    """The text of ``card``'s scorecard.json as ``scorekit run`` writes it (keys
    in their order), without ``generated_at``."""
    from scorekit.reports.json import render_json

    data = card.to_dict()
    data.pop("generated_at", None)
    return render_json(data, validate=False)
