"""What every row scorer shares: the outcome type, the scoring context, reason codes.

A scorer is a plain function ``score(row, ctx) -> Outcome`` over one normalised
row (a dict, as ``scorekit._rows`` produced it: absent fields are absent keys,
never None). Scorers never raise for bad data: every irregularity becomes an
outcome that is not PASS (fail closed, SPEC §1).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

PASS, FAIL, ERROR, ABSTAIN = "PASS", "FAIL", "ERROR", "ABSTAIN"


class Outcome(NamedTuple):
    """The scored result of one row.

    status : PASS | FAIL | ERROR | ABSTAIN
    reason : machine-readable reason code; None only for PASS
    labeled : False when nothing in the row can establish success (SPEC §5
        "unlabeled"); such a row is never PASS (status ERROR).
    detail : for a non-PASS row, what a person needs to see why (SPEC §3): the
        JSON Schema error and its path, the PII kind and position, the missing or
        forbidden action, the judges' reasons, the budget and the measured value.
        Never a value a detector found (PII) and never free text copied from the
        row beyond names the answer key declares, and a pre-scored row's own
        ``detail`` (the harness's words; redacted like every evidence text).
    output : the text the evidence keeps in place of the row's ``agent_output``
        when the scorer found personal data in it (each value replaced by
        ``[REDACTED:<kind>]``); None keeps the output as captured.
    """

    status: str
    reason: str | None = None
    labeled: bool = True
    detail: str | None = None
    output: str | None = None


def passed(output: str | None = None) -> Outcome:
    return Outcome(PASS, None, True, None, output)


def failed(reason: str, detail: str | None = None) -> Outcome:
    return Outcome(FAIL, reason, True, detail)


def error(reason: str, detail: str | None = None) -> Outcome:
    return Outcome(ERROR, reason, True, detail)


def unlabeled(reason: str, detail: str | None = None) -> Outcome:
    return Outcome(ERROR, reason, False, detail)


@dataclass
class Context:
    """Policy settings and per-evaluation caches a scorer may use.

    budgets : the policy's ``budgets`` ({"cost_usd": 0.05, "latency_ms": 3000}); a
        row's own ``cost_budget_usd`` / ``latency_budget_ms`` wins over it.
    judge_panel : the policy's ``judges.panel`` (empty: the judges on each row).
    pass_score : the policy's ``judges.pass_score``: a 1–5 score ≥ it is a PASS vote.
    cache : scratch space keyed by the scorer (e.g. compiled JSON Schema validators,
        so each tool contract is compiled once per evaluation, not per row).
    mock_judges : filled by the judge scorer with every mock judge identity seen
        (any one makes the evaluation a SELF_TEST).
    judges_seen : filled by the judge scorer with the panel members of judged rows.
    definition : set by the engine to the row's case-definition key before each
        row is scored (equal keys: exactly equal inputs and answer keys), so a
        scorer may memoise per-case work; None when unknown.
    partial : the policy's ``partial`` rule for a ``score`` strictly between 0
        and 1: ``"fail"``, ``"abstain"`` or ``{"min": x}`` (SPEC §7).
    agent : set by the engine when one agent of several is evaluated: rows
        naming another agent are left out before scoring.
    tool_contracts : the policy's ``tool_contracts`` (tool name → JSON Schema), given
        by the engine to every ``tool_call`` row without ``tool_schemas``; None without.
    """

    budgets: Mapping[str, float] = field(default_factory=dict)
    judge_panel: tuple[str, ...] = ()
    pass_score: int = 4
    cache: dict[Hashable, Any] = field(default_factory=dict)
    mock_judges: set[str] = field(default_factory=set)
    judges_seen: set[str] = field(default_factory=set)
    definition: bytes | None = None
    partial: Any = "fail"
    agent: str | None = None
    tool_contracts: Mapping[str, Any] | None = None


Scorer = Callable[[Mapping[str, Any], Context], Outcome]
