"""Cards and the run sequence shared by the history tests (import as ``from history_cards import ...``)."""

from __future__ import annotations

import scorekit as sk
from scorekit.history import compare, record, with_comparison

DIM = "task_completion"
REQUIRED = {"regression": {"required": True}, "gate": {"thresholds": {DIM: 0.5}}}


def make_card(
    passes: int,
    fails: int = 0,
    version: str | None = "1",
    *,
    policy: dict | None = None,
    output: str | None = None,
    name: str = "agent",
    case_prefix: str = "c",
    judge: str | None = None,
    dimension: str = DIM,
) -> sk.Scorecard:
    """A card from pre-scored rows (or judged rows when ``judge`` is given).

    ``output`` is the captured output (it defaults to one per agent version,
    so two versions have different results hashes, as two real runs do).
    """
    output = f"output of {version}" if output is None else output
    rows = []
    for i in range(passes + fails):
        row = {"id": f"r{i}", "dimension": dimension, "case_id": f"{case_prefix}{i}", "trial": 0,
               "agent_output": f"{output} #{i}"}
        if judge is None:
            row.update(status="PASS" if i < passes else "FAIL", evaluator="h")
        else:
            row.update(input="q", judge_criteria="answers the question",
                       judge_votes=[{"judge": judge, "verdict": "PASS" if i < passes else "FAIL"}])
        rows.append(row)
    return sk.evaluate(rows, policy=REQUIRED if policy is None else policy, agent_name=name, agent_version=version)


def run(card, db, *, label=None, baseline=None, regression=None):
    """What ``scorekit run --history DB --label L [--baseline B]`` does."""
    comparison = compare(card, db, baseline_label=baseline, regression=regression)
    final = with_comparison(card, comparison)
    rid = record(final, db, label=label)
    return final, comparison, rid
