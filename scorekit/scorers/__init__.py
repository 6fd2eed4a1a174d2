"""Row scorers, one module per dimension family (SPEC §3, §4).

``scorer_for(dimension)`` returns the scorer of a built-in deterministic
dimension, or the judge-panel scorer for any other (judged) dimension.
"""

from __future__ import annotations

from importlib import import_module

from ._base import ABSTAIN, ERROR, FAIL, PASS, Context, Outcome, Scorer

__all__ = [
    "ABSTAIN",
    "BUILTIN_SCORERS",
    "ERROR",
    "FAIL",
    "PASS",
    "Context",
    "Outcome",
    "Scorer",
    "all_reasons",
    "scorer_for",
]

# dimension -> (module, function); imported on first use (jsonschema etc. stay lazy).
BUILTIN_SCORERS: dict[str, tuple[str, str]] = {
    "task_completion": ("task", "score"),
    "tool_call": ("tools", "score"),
    "action_correctness": ("actions", "score"),
    "pii": ("pii", "score"),
    "injection": ("injection", "score"),
    "cost": ("budgets", "score_cost"),
    "latency": ("budgets", "score_latency"),
}
JUDGED = ("judges", "score")
# Modules of reason codes for rows scored outside a dimension's scorer.
_OTHER_REASON_MODULES = ("external",)


def scorer_for(dimension: str) -> Scorer:
    """The scoring function for rows of ``dimension``."""
    module, function = BUILTIN_SCORERS.get(dimension, JUDGED)
    scorer: Scorer = getattr(import_module(f"{__name__}.{module}"), function)  # BUILTIN_SCORERS names scorers
    return scorer


def all_reasons() -> dict[str, str]:
    """Every reason code a scorer can emit, with its one-line description."""
    reasons: dict[str, str] = {}
    for module in sorted({m for m, _ in BUILTIN_SCORERS.values()} | {JUDGED[0], *_OTHER_REASON_MODULES}):
        reasons.update(getattr(import_module(f"{__name__}.{module}"), "REASONS", {}))
    return reasons
