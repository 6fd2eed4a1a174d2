"""Judged dimensions: a row's status from its captured judge panel (SPEC §4).

A panel is the policy's ``judges.panel`` or, when that is empty, the judges
present on the row. PASS needs a strict majority of the *full* panel voting PASS
with every member present and valid; an incomplete or invalid panel whose valid
FAIL votes already form a strict majority of the full panel is FAIL; anything
else is ERROR. A complete, valid panel split evenly ABSTAINs. Scores (1–5) are
reduced to PASS/FAIL per vote before counting, so no rounding can turn a tie
into a pass. A mock judge anywhere (an identity with a segment starting with
``mock``, see :func:`is_mock`, or a vote with ``"mock": true``) makes the
evaluation a SELF_TEST (SPEC §4); its votes count as cast (SPEC §18): the row's
status is the panel's outcome and its reason ``mock_judge`` (:func:`with_mock`),
so a self-test shows what its evaluator measured.

A non-PASS row's ``detail`` lists each panel member's vote and reason (reasons
are shortened, and any personal data the PII detector finds in them is
replaced by ``[REDACTED:<kind>]``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._base import ABSTAIN, Context, Outcome, error, failed, passed, unlabeled

REASONS = {
    "judge_fail": "the judge panel's majority voted FAIL",
    "panel_tie": "the judge panel split evenly; no decision (ABSTAIN)",
    "panel_incomplete": "a panel member's vote is missing, so the panel cannot establish PASS",
    "judge_invalid_value": "a vote has a value that is neither a PASS/FAIL verdict nor an integer score 1–5",
    "duplicate_judge": "a judge voted more than once, so the panel is invalid",
    "mock_judge": "a mock judge or evaluator took part: its votes count as cast, in an evaluator demonstration "
                  "(SELF_TEST), never a release measurement",
    "missing_judge_votes": "a judged dimension with neither judge votes nor a pre-scored status",
    "missing_judge_criteria": "judge votes without judge_criteria: nothing states what the judges checked",
}



_SEGMENTS = re.compile(r"[/:@,\s]+")


def is_mock(judge: Any, vote: Mapping[str, Any] | None = None) -> bool:
    """A mock judge, evaluator or agent (SPEC §4): an identity one of whose segments
    (split on ``/ : @ ,`` and white space) starts with ``mock``, any case, or a
    vote marked ``"mock": true``.

    Examples
    --------
    >>> [is_mock(name) for name in ("Mock-Judge", "mockllm/model", "inspect:model_graded_qa@mockllm/grader",
    ...                              "gpt-4o", "hammock-judge")]
    [True, True, True, False, False]
    """
    if isinstance(judge, str) and any(part.lower().startswith("mock") for part in _SEGMENTS.split(judge)):
        return True
    # Any marking other than an explicit false counts: "mock": "yes" is not a
    # measurement either (fail closed).
    return vote is not None and vote.get("mock") not in (None, False, 0, "", "false", "False")


def vote_value(vote: Mapping[str, Any], pass_score: int) -> str | None:
    """PASS/FAIL for a valid vote, None for an invalid one.

    Valid: exactly one of ``verdict`` ("PASS"/"FAIL") or ``score`` (an int 1–5,
    not a bool, not a float, not a string). Anything else (99, "5", true, NaN,
    missing) is invalid.
    """
    has_verdict, has_score = "verdict" in vote, "score" in vote
    if has_verdict == has_score:
        return None
    if has_verdict:
        verdict = vote["verdict"]
        return verdict if verdict in ("PASS", "FAIL") and isinstance(verdict, str) else None
    score = vote["score"]
    if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
        return None
    return "PASS" if score >= pass_score else "FAIL"


def panel_outcome(votes: list[Any], panel: tuple[str, ...], pass_score: int) -> tuple[Outcome, set[str]]:
    """Outcome of one row's votes against a panel, as cast; also the mock judges seen (on
    the row or declared in the panel), which :func:`with_mock` marks the outcome with."""
    mocks: set[str] = set()
    by_judge: dict[str, list[str | None]] = {}
    for vote in votes:
        judge = vote.get("judge") if isinstance(vote, Mapping) else None
        if isinstance(vote, Mapping) and is_mock(judge, vote):
            mocks.add(str(judge))
        if not isinstance(judge, str) or not judge:
            # A vote with no identity cannot belong to the panel; with an
            # undeclared panel it still spoils it (someone voted invalidly).
            by_judge.setdefault("", []).append(None)
            continue
        by_judge.setdefault(judge, []).append(vote_value(vote, pass_score))
    # An anonymous vote spoils an undeclared panel (someone voted invalidly);
    # a declared panel simply does not count it.
    anonymous_spoils = not panel and "" in by_judge
    if not panel:
        panel = tuple(sorted(j for j in by_judge if j))
    if not panel:
        return error("missing_judge_votes"), mocks
    size = len(panel)
    pass_judges = fail_judges = 0
    complete, duplicate, invalid = True, False, anonymous_spoils
    for member in panel:
        member_votes = by_judge.get(member, [])
        if not member_votes:
            complete = False
            continue
        if len(member_votes) > 1:
            duplicate = True
        if any(v is None for v in member_votes):
            invalid = True
        # A judge counts towards FAIL if any of its valid votes is FAIL: moving
        # away from PASS is always safe; towards it only with one clean vote.
        if "FAIL" in member_votes:
            fail_judges += 1
        elif len(member_votes) == 1 and member_votes[0] == "PASS":
            pass_judges += 1
    mocks |= {m for m in panel if is_mock(m)}  # a declared mock member, even without a vote
    if complete and not duplicate and not invalid:
        if 2 * pass_judges > size:
            return passed(), mocks
        if 2 * fail_judges > size:
            return failed("judge_fail"), mocks
        return Outcome(ABSTAIN, "panel_tie", True), mocks
    if 2 * fail_judges > size:
        return failed("judge_fail"), mocks
    if invalid:
        return error("judge_invalid_value"), mocks
    if duplicate:
        return error("duplicate_judge"), mocks
    return error("panel_incomplete"), mocks


def cast_votes(votes: Any, panel: tuple[str, ...], pass_score: int) -> tuple[int, int]:
    """(valid values, PASS values) of one row's votes as a unit of judge agreement (SPEC §18).

    ``panel_outcome``'s rules pick the values: the panel is the declared one, else the
    judges on the row; each panel member with exactly one vote, valid (:func:`vote_value`),
    gives one PASS/FAIL value. A member without a vote, with an invalid one or with two
    or more (a duplicate judge: which one would count?) gives none; votes without a
    judge, or from judges outside a declared panel, give none. A mock judge's vote
    counts as cast.

    Examples
    --------
    >>> votes = [{"judge": "a", "verdict": "PASS"}, {"judge": "b", "score": 2},
    ...          {"judge": "c", "score": 99}, {"judge": "d", "verdict": "PASS"}, {"judge": "d", "verdict": "PASS"}]
    >>> cast_votes(votes, (), 4), cast_votes(votes, ("a", "c"), 4)
    ((2, 1), (1, 1))
    """
    if not isinstance(votes, list):
        return (0, 0)
    by_judge: dict[str, list[str | None]] = {}
    for vote in votes:
        judge = vote.get("judge") if isinstance(vote, Mapping) else None
        if isinstance(judge, str) and judge:
            by_judge.setdefault(judge, []).append(vote_value(vote, pass_score))
    values = [cast[0] for member in (panel or by_judge) if len(cast := by_judge.get(member, [])) == 1
              and cast[0] is not None]
    return (len(values), values.count("PASS"))


def score(row: Mapping[str, Any], ctx: Context) -> Outcome:
    """Score a judged row from its ``judge_votes``.

    Examples
    --------
    >>> from scorekit.scorers._base import Context
    >>> votes = [{"judge": "a", "verdict": "PASS"}, {"judge": "b", "score": 5},
    ...          {"judge": "c", "score": 2, "reason": "too terse"}]
    >>> score({"judge_votes": votes, "judge_criteria": "polite"}, Context())
    Outcome(status='PASS', reason=None, labeled=True, detail=None, output=None)
    >>> score({"judge_votes": votes[1:], "judge_criteria": "polite"}, Context()).detail
    "b: PASS (score 5); c: FAIL (score 2): 'too terse'"
    """
    votes = row.get("judge_votes")
    if votes is None:
        return unlabeled("missing_judge_votes") if "judge_criteria" not in row else error("missing_judge_votes")
    outcome, mocks = panel_outcome(list(votes), tuple(ctx.judge_panel), ctx.pass_score)
    ctx.mock_judges.update(mocks)
    panel = ctx.judge_panel or tuple(
        sorted({judge for v in votes if isinstance(v, Mapping) and isinstance(judge := v.get("judge"), str)})
    )
    ctx.judges_seen.update(panel)
    if not str(row.get("judge_criteria", "")).strip():
        # Votes with no stated criteria cannot establish success (SPEC §5).
        return unlabeled("missing_judge_criteria", "judge votes without judge_criteria")
    if outcome.status != "PASS" and outcome.detail is None:
        outcome = outcome._replace(detail=panel_detail(list(votes), panel, ctx.pass_score))
    return with_mock(outcome, mocks)


def with_mock(outcome: Outcome, mocks: set[str]) -> Outcome:
    """``outcome`` of a row a mock judge or evaluator (``mocks``) took part in (SPEC §4, §18).

    The status stays as the votes were cast (a mock's PASS counts like its FAIL), the
    reason becomes ``mock_judge`` and the detail names the mocks, then the reason as
    cast and the row's own detail. An unlabeled outcome, one already marked, or a row
    without mocks is returned as it is. The evaluation is a SELF_TEST either way: the
    caller records ``mocks`` in ``Context.mock_judges``.

    Examples
    --------
    >>> with_mock(passed(), {"mockllm/grader"})[:2]
    ('PASS', 'mock_judge')
    >>> with_mock(failed("judge_fail", "a: FAIL"), {"mock-a"}).detail
    'mock judge or evaluator mock-a (judge_fail); a: FAIL'
    """
    if not mocks or not outcome.labeled or outcome.reason == "mock_judge":
        return outcome
    detail = "mock judge or evaluator " + ", ".join(sorted(mocks))
    if outcome.reason is not None:
        detail += f" ({outcome.reason})"
    if outcome.detail:
        detail += f"; {outcome.detail}"
    return outcome._replace(reason="mock_judge", detail=detail)


_REASON_CHARS = 160


def _vote_text(vote: Any, pass_score: int) -> str:
    if not isinstance(vote, Mapping):
        return "invalid vote"
    value = vote_value(vote, pass_score)
    if value is None:
        shown = "verdict" if "verdict" in vote else "score" if "score" in vote else None
        text = f"invalid {shown} value" if shown else "no verdict or score"
    elif "score" in vote:
        text = f"{value} (score {vote['score']})"
    else:
        text = value
    reason = vote.get("reason")
    if isinstance(reason, str) and reason.strip():
        from .pii import redact  # lazy: only non-PASS judged rows

        reason = redact(" ".join(reason.split()))
        if len(reason) > _REASON_CHARS:
            reason = reason[: _REASON_CHARS - 1] + "…"
        text += f": {reason!r}"
    return text


def panel_detail(votes: list[Any], panel: tuple[str, ...], pass_score: int) -> str:
    """Each panel member's vote (and reason) in panel order, for a non-PASS row's detail."""
    by_judge: dict[str, list[Any]] = {}
    for vote in votes:
        judge = vote.get("judge") if isinstance(vote, Mapping) else None
        by_judge.setdefault(judge if isinstance(judge, str) else "", []).append(vote)
    parts = []
    for member in panel or tuple(sorted(j for j in by_judge if j)):
        member_votes = by_judge.get(member, [])
        if not member_votes:
            parts.append(f"{member}: no vote")
        else:
            parts.append(f"{member}: " + " / ".join(_vote_text(v, pass_score) for v in member_votes))
    if "" in by_judge:
        parts.append(f"{len(by_judge[''])} vote(s) without a judge")
    outside = sorted(j for j in by_judge if j and panel and j not in panel)
    if outside:
        parts.append("not on the panel: " + ", ".join(outside))
    return "; ".join(parts) or "no votes"
