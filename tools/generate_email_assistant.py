"""Write the bundled example evaluation's results from its cases.

Reads ``scorekit/examples/email_assistant/cases.yaml`` (the cases of an e-mail
assistant agent: inputs, answer keys, and what the agent did on each trial) and
writes ``results.jsonl`` beside it: one row per measured trial of one case on one
dimension (SPEC §2). The rows carry no ``status``: scorekit scores them, and each
trial's measured fields are picked (seeded) so that scoring gives the outcome its
case plans (``outcomes``: P PASS, F FAIL, E ERROR, A ABSTAIN, one letter per trial).
Two ``known-bad`` control rows check the PII detector itself.

Trial ``t`` of every case was measured in run ``run-{t+1}``: run-1..run-3 measure
every case of every dimension (complete runs); later runs re-ran some cases only.

Kept outside the package (the wheel ships the data and its results, not this
script). Run it from the repository root; the output is byte-identical on re-run::

    python tools/generate_email_assistant.py
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

EXAMPLE = Path(__file__).resolve().parents[1] / "scorekit" / "examples" / "email_assistant"
CASES = yaml.safe_load((EXAMPLE / "cases.yaml").read_text(encoding="utf-8"))

STATUS = {"P": "PASS", "F": "FAIL", "E": "ERROR", "A": "ABSTAIN"}
PREFIX = {"task_completion": "tc", "tool_call": "tool", "action_correctness": "act", "pii": "pii",
          "injection": "inj", "latency": "lat", "cost": "cost", "helpfulness": "help"}
PRICE_IN = CASES["price_per_million_tokens"]["input"] / 1_000_000
PRICE_OUT = CASES["price_per_million_tokens"]["output"] / 1_000_000
PLANNED: dict[str, str] = {}  # row id -> the status its measurements are written to produce


def measured_usage(input_tokens: int, output_tokens: int) -> tuple[dict[str, int], float]:
    """usage + cost_usd for given token counts."""
    cost = round(input_tokens * PRICE_IN + output_tokens * PRICE_OUT, 6)
    return {"input_tokens": input_tokens, "output_tokens": output_tokens}, cost


def generic_usage(rng: random.Random, case_input: Any, output: str) -> dict[str, Any]:
    """Plausible usage, latency and cost for rows whose dimension is not latency/cost."""
    input_tokens = 900 + len(json.dumps(case_input)) // 4 + rng.randint(0, 150)
    output_tokens = max(12, len(output) // 4 + rng.randint(-5, 40))
    usage, cost = measured_usage(input_tokens, output_tokens)
    latency_ms = 600 + output_tokens * 14 + rng.randint(150, 1400)
    return {"usage": usage, "latency_ms": latency_ms, "cost_usd": cost}


def base_row(dimension: str, case: str, trial: int, case_input: Any, extra_context: Any = None) -> dict[str, Any]:
    context = dict(CASES["context"])
    if extra_context:
        context.update(extra_context)
    return {"id": f"{PREFIX[dimension]}-{case}-t{trial}", "dimension": dimension, "case_id": case, "trial": trial,
            "run": f"run-{trial + 1}", "input": case_input, "context": context}


def finish(row: dict[str, Any], outcome: str) -> dict[str, Any]:
    PLANNED[row["id"]] = STATUS[outcome]  # kept aside: tests check the scorers reproduce it
    return row


def trials(dimension: str) -> Iterator[tuple[dict[str, Any], int, str]]:
    for case in CASES["dimensions"][dimension]:
        for trial, outcome in enumerate(case["outcomes"]):
            yield case, trial, outcome


def rows_task_completion(rng: random.Random) -> Iterator[dict[str, Any]]:
    for c, trial, outcome in trials("task_completion"):
        row = base_row("task_completion", c["case"], trial, c["input"])
        row["must_include"] = c["must_include"]
        if "must_not_include" in c:
            row["must_not_include"] = c["must_not_include"]
        row["agent_output"] = rng.choice(c["pass"] if outcome == "P" else c["fail"])
        row.update(generic_usage(rng, c["input"], row["agent_output"]))
        yield finish(row, outcome)


def rows_tool_call(rng: random.Random) -> Iterator[dict[str, Any]]:
    for c, trial, outcome in trials("tool_call"):
        row = base_row("tool_call", c["case"], trial, c["input"])
        row["allowed_tools"] = c["allowed"]
        row["forbidden_tools"] = c["forbidden"]
        row["tool_schemas"] = {name: CASES["tool_schemas"][name] for name in c["allowed"]}
        row["expected_tool_calls"] = c["expected"]
        row["agent_output"] = c["output"]
        row["tool_calls"] = rng.choice(c["pass"] if outcome == "P" else c["fail"])
        row.update(generic_usage(rng, c["input"], row["agent_output"]))
        yield finish(row, outcome)


def rows_action_correctness(rng: random.Random) -> Iterator[dict[str, Any]]:
    for c, trial, outcome in trials("action_correctness"):
        row = base_row("action_correctness", c["case"], trial, c["input"])
        for key in ("expected_actions", "match", "forbidden_actions", "expected_state"):
            row[key] = c[key]
        row["agent_output"] = c["output"]
        attempt = rng.choice(c["fail"] if outcome == "F" else c["pass"])
        row["agent_actions"] = attempt["actions"]
        if outcome != "E":  # ERROR: the final-state snapshot is missing
            row["observed_state"] = attempt["state"]
        row.update(generic_usage(rng, c["input"], row["agent_output"]))
        yield finish(row, outcome)


def rows_pii(rng: random.Random) -> Iterator[dict[str, Any]]:
    for c, trial, outcome in trials("pii"):
        row = base_row("pii", c["case"], trial, c["input"])
        row["agent_output"] = rng.choice(c["pass"])
        row.update(generic_usage(rng, c["input"], row["agent_output"]))
        yield finish(row, outcome)


def rows_injection(rng: random.Random) -> Iterator[dict[str, Any]]:
    for c, trial, outcome in trials("injection"):
        row = base_row("injection", c["case"], trial, c["input"], c.get("context"))
        row["canary"] = c["canary"]
        row["should_refuse"] = c["should_refuse"]
        row["agent_output"] = rng.choice(c["pass"])
        row["tool_calls"] = c.get("tool_calls", [])
        row.update(generic_usage(rng, c["input"], row["agent_output"]))
        yield finish(row, outcome)


def _request(c: dict[str, Any]) -> Any:
    return CASES["long_thread_input"] if c["request"] is None else {"request": c["request"]}


def rows_latency(rng: random.Random) -> Iterator[dict[str, Any]]:
    for c, trial, outcome in trials("latency"):
        budget, case_input = c["budget_ms"], _request(c)
        row = base_row("latency", c["case"], trial, case_input)
        row["latency_budget_ms"] = budget
        row["agent_output"] = c["output"]
        measured = generic_usage(rng, case_input, c["output"])
        if outcome == "P":
            measured["latency_ms"] = rng.randint(int(budget * 0.35), int(budget * 0.85))
        elif outcome == "F":
            measured["latency_ms"] = rng.randint(int(budget * 1.10), int(budget * 1.45))
        else:  # ERROR: no timing captured
            del measured["latency_ms"]
        row.update(measured)
        yield finish(row, outcome)


def rows_cost(rng: random.Random) -> Iterator[dict[str, Any]]:
    for c, trial, outcome in trials("cost"):
        budget, case_input = c["budget_usd"], _request(c)
        row = base_row("cost", c["case"], trial, case_input)
        row["cost_budget_usd"] = budget
        row["agent_output"] = c["output"]
        usage, cost = measured_usage(rng.randint(*c["input_tokens"]), rng.randint(*c["output_tokens"]))
        if outcome != "E":  # ERROR: no billing record (usage and cost) captured
            row["usage"] = usage
        row["latency_ms"] = 600 + usage["output_tokens"] * 14 + rng.randint(150, 1400)
        if outcome != "E":
            row["cost_usd"] = cost
            assert (cost <= budget) == (outcome == "P"), (c["case"], trial, cost, budget)
        yield finish(row, outcome)


def judge_votes(rng: random.Random, judges: list[str], outcome: str, case: str) -> list[dict[str, Any]]:
    scores = CASES["invalid_votes"] if outcome == "E" else rng.choice(CASES["votes"][f"{len(judges)}{outcome}"])
    reasons = CASES["low_score_reasons"].get(case, CASES["generic_low_reasons"])
    votes = []
    for position, (judge, score) in enumerate(zip(judges, scores, strict=True)):
        vote: dict[str, Any] = {"judge": judge, "score": score}
        if isinstance(score, int) and score < 4:
            vote["reason"] = reasons[position % len(reasons)]
        votes.append(vote)
    return votes


def rows_helpfulness(rng: random.Random) -> Iterator[dict[str, Any]]:
    for c, trial, outcome in trials("helpfulness"):
        row = base_row("helpfulness", c["case"], trial, c["input"])
        row["judge_criteria"] = c["judge_criteria"]
        row["agent_output"] = rng.choice(c["fail"] if outcome == "F" else c["pass"])
        row["judge_votes"] = judge_votes(rng, c.get("judges", CASES["judges"]["panel_3"]), outcome, c["case"])
        row.update(generic_usage(rng, c["input"], row["agent_output"]))
        yield finish(row, outcome)


def rows_controls(rng: random.Random) -> Iterator[dict[str, Any]]:
    """Known-bad outputs the PII detector must flag: evaluator controls (SPEC §8)."""
    for control in CASES["pii_controls"]:
        row = base_row("pii", control["case"], 0, {"request": "Summarise the customer record for the support ticket."})
        row["tags"] = ["known-bad"]
        row["agent_output"] = control["output"]
        yield row


def build_rows() -> list[dict[str, Any]]:
    rng = random.Random(CASES["seed"])
    rows: list[dict[str, Any]] = []
    for generate in (rows_task_completion, rows_tool_call, rows_action_correctness, rows_pii, rows_injection,
                     rows_latency, rows_cost, rows_helpfulness, rows_controls):
        rows.extend(generate(rng))
    return rows


def planned_statuses() -> dict[str, str]:
    """{row id: planned status} for every row (controls: FAIL, the detector must catch them)."""
    PLANNED.clear()
    return {row["id"]: PLANNED.get(row["id"], "FAIL") for row in build_rows()}


def main() -> None:
    rows = build_rows()
    path = EXAMPLE / "results.jsonl"
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
    print(f"wrote {len(rows)} rows to {path}")


if __name__ == "__main__":
    main()
