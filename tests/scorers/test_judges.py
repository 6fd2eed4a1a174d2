"""Judged dimensions: captured judge panels (SPEC §4), fail-closed.

Checked both at the scorer (``scorekit.scorers.judges.score``) and through
``scorekit.evaluate`` (row status, decision, ``card.judges``).
"""

from __future__ import annotations

import json

import pytest

import scorekit as sk
from scorekit.scorers import judges
from scorekit.scorers._base import Context

CRITERIA = "The reply answers the question politely and correctly."


def V(judge, verdict=None, score=None, **extra):
    vote = {"judge": judge}
    if verdict is not None:
        vote["verdict"] = verdict
    if score is not None:
        vote["score"] = score
    vote.update(extra)
    return vote


def row(votes, criteria=CRITERIA, rid="j1", dimension="helpfulness", **extra):
    r = {"id": rid, "dimension": dimension, "judge_votes": votes}
    if criteria is not None:
        r["judge_criteria"] = criteria
    r.update(extra)
    return r


def run(votes, panel=(), pass_score=4, criteria=CRITERIA):
    """(status, reason, labeled) of one judged row at the scorer."""
    ctx = Context(judge_panel=tuple(panel), pass_score=pass_score)
    out = judges.score(row(votes, criteria), ctx)
    return out.status, out.reason, out.labeled


def evaluate(rows, panel=None, pass_score=None, threshold=0.0, **policy):
    pol = {"gate": {"thresholds": {"helpfulness": threshold}, "min_coverage": 0.0}}
    j = {}
    if panel is not None:
        j["panel"] = list(panel)
    if pass_score is not None:
        j["pass_score"] = pass_score
    if j:
        pol["judges"] = j
    pol.update(policy)
    return sk.evaluate(rows, policy=pol)


def row_status(card, rid="j1"):
    ev = card.evidence.set_index("id")
    reason = ev.loc[rid, "reason"]
    return str(ev.loc[rid, "status"]), (None if reason != reason else reason)


# =========================================================================== the panel
def test_panel_from_row_is_the_judges_present_on_the_row():
    assert run([V("a", "PASS"), V("b", "PASS")])[:2][:3] == ("PASS", None)
    assert run([V("a", "PASS"), V("b", "FAIL"), V("c", "PASS")])[:2][:3] == ("PASS", None)
    assert run([V("a", "FAIL"), V("b", "FAIL"), V("c", "PASS")])[:2][:3] == ("FAIL", "judge_fail")


def test_declared_panel_requires_every_member():
    # Two PASS votes are a majority of the row's judges, not of the declared three.
    assert run([V("a", "PASS"), V("b", "PASS")], panel=("a", "b", "c"))[:2][:3] == ("ERROR", "panel_incomplete")
    assert run([V("a", "PASS"), V("b", "PASS"), V("c", "FAIL")], panel=("a", "b", "c"))[:2][:3] == ("PASS", None)


def test_declared_panel_through_evaluate_versus_row_panel():
    rows = [row([V("a", "PASS"), V("b", "PASS")])]
    assert row_status(evaluate(rows))[:3] == ("PASS", None)
    assert row_status(evaluate(rows, panel=["a", "b", "c"]))[:3] == ("ERROR", "panel_incomplete")


def test_votes_from_judges_outside_a_declared_panel_do_not_count():
    votes = [V("a", "FAIL"), V("b", "PASS"), V("c", "PASS"), V("x", "FAIL"), V("y", "FAIL")]
    assert run(votes, panel=("a", "b", "c"))[:2][:3] == ("PASS", None)
    # ... neither towards PASS: outsiders cannot complete an incomplete panel.
    votes = [V("a", "PASS"), V("x", "PASS"), V("y", "PASS")]
    assert run(votes, panel=("a", "b", "c"))[:2][:3] == ("ERROR", "panel_incomplete")
    # An invalid outsider vote does not spoil a declared panel either.
    votes = [V("a", "PASS"), V("b", "PASS"), V("c", "PASS"), V("x", score=99)]
    assert run(votes, panel=("a", "b", "c"))[:2][:3] == ("PASS", None)


# =========================================================================== votes
@pytest.mark.parametrize(
    "vote, expected",
    [
        ({"verdict": "PASS"}, "PASS"),
        ({"verdict": "FAIL"}, "FAIL"),
        ({"score": 5}, "PASS"),
        ({"score": 4}, "PASS"),
        ({"score": 3}, "FAIL"),
        ({"score": 1}, "FAIL"),
    ],
)
def test_valid_votes_reduce_to_pass_or_fail(vote, expected):
    assert judges.vote_value(vote, 4) == expected


@pytest.mark.parametrize("pass_score, score, expected", [(3, 3, "PASS"), (3, 2, "FAIL"), (5, 4, "FAIL"), (5, 5, "PASS"),
                                                         (1, 1, "PASS")])
def test_pass_score_sets_the_score_pass_bar(pass_score, score, expected):
    assert judges.vote_value({"score": score}, pass_score) == expected
    status = run([V("a", score=score)], pass_score=pass_score)[0]
    assert status == expected
    card = evaluate([row([V("a", score=score)])], pass_score=pass_score)
    assert row_status(card)[0] == expected


INVALID_VOTES = {
    "score-99": {"score": 99},
    "score-string": {"score": "5"},
    "score-true": {"score": True},
    "score-false": {"score": False},
    "score-nan": {"score": float("nan")},
    "score-0": {"score": 0},
    "score-6": {"score": 6},
    "score-negative": {"score": -1},
    "score-float": {"score": 4.0},
    "score-null": {"score": None},
    "score-list": {"score": [5]},
    "verdict-lower": {"verdict": "pass"},
    "verdict-true": {"verdict": True},
    "verdict-other": {"verdict": "MAYBE"},
    "verdict-null": {"verdict": None},
    "missing": {},
    "both": {"verdict": "PASS", "score": 5},
}


@pytest.mark.parametrize("name", sorted(INVALID_VOTES))
def test_invalid_vote_values_are_invalid(name):
    assert judges.vote_value(INVALID_VOTES[name], 4) is None


@pytest.mark.parametrize("name", sorted(INVALID_VOTES))
def test_invalid_vote_makes_the_panel_error_not_pass(name):
    votes = [V("a", "PASS"), V("b", "PASS"), {"judge": "c", **INVALID_VOTES[name]}]
    assert run(votes)[:2][:3] == ("ERROR", "judge_invalid_value")
    assert run(votes, panel=("a", "b", "c"))[:2][:3] == ("ERROR", "judge_invalid_value")


@pytest.mark.parametrize("name", sorted(INVALID_VOTES))
def test_invalid_vote_through_evaluate_is_never_pass(name):
    votes = [V("a", "PASS"), V("b", "PASS"), {"judge": "c", **INVALID_VOTES[name]}]
    card = evaluate([row(votes)])
    status, reason = row_status(card)
    assert status == "ERROR"
    if name == "score-nan":
        # NaN cannot come through JSON; through a dict row it makes the row invalid (SPEC §5).
        assert reason in ("judge_invalid_value", "invalid_row")
    else:
        assert reason == "judge_invalid_value"
    assert card.dimensions.loc["helpfulness", "n"] == 0


def test_invalid_values_through_a_json_lines_file(tmp_path):
    lines = [
        row([V("a", "PASS"), V("b", "PASS"), {"judge": "c", "score": 99}], rid="r99"),
        row([V("a", "PASS"), V("b", "PASS"), {"judge": "c", "score": "5"}], rid="rstr"),
        row([V("a", "PASS"), V("b", "PASS"), {"judge": "c", "score": True}], rid="rtrue"),
        row([V("a", "PASS"), V("b", "PASS"), {"judge": "c", "score": 4.0}], rid="rfloat"),
        row([V("a", "PASS"), V("b", "PASS"), {"judge": "c"}], rid="rmissing"),
        row([V("a", "PASS"), V("b", "PASS"), V("c", score=5)], rid="rok"),
    ]
    path = tmp_path / "judged.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    card = evaluate(str(path))
    for rid in ("r99", "rstr", "rtrue", "rfloat", "rmissing"):
        assert row_status(card, rid)[:3] == ("ERROR", "judge_invalid_value"), rid
    assert row_status(card, "rok")[:3] == ("PASS", None)


# =========================================================================== majority rules
@pytest.mark.parametrize(
    "votes, panel, expected",
    [
        # complete, valid
        (["PASS", "PASS", "FAIL"], 3, ("PASS", None)),
        (["PASS", "FAIL", "FAIL"], 3, ("FAIL", "judge_fail")),
        (["PASS", "PASS", "PASS", "FAIL"], 4, ("PASS", None)),
        (["PASS", "PASS", "FAIL", "FAIL"], 4, ("ABSTAIN", "panel_tie")),
        (["PASS", "FAIL"], 2, ("ABSTAIN", "panel_tie")),
        (["PASS"], 1, ("PASS", None)),
        (["FAIL"], 1, ("FAIL", "judge_fail")),
        # incomplete: PASS impossible; FAIL only when FAIL votes are a strict majority of the FULL panel
        (["PASS", "PASS"], 3, ("ERROR", "panel_incomplete")),
        (["PASS", "PASS", "PASS"], 4, ("ERROR", "panel_incomplete")),
        (["FAIL", "FAIL"], 3, ("FAIL", "judge_fail")),
        (["FAIL", "FAIL"], 4, ("ERROR", "panel_incomplete")),
        (["FAIL", "FAIL", "FAIL"], 4, ("FAIL", "judge_fail")),
        (["FAIL"], 2, ("ERROR", "panel_incomplete")),
        (["FAIL", "PASS"], 3, ("ERROR", "panel_incomplete")),
        ([], 3, ("ERROR", "panel_incomplete")),
    ],
)
def test_strict_majority_of_the_full_panel(votes, panel, expected):
    names = [f"judge{i}" for i in range(panel)]
    cast = [V(names[i], verdict) for i, verdict in enumerate(votes)]
    assert run(cast, panel=names)[:2] == expected


@pytest.mark.parametrize(
    "others, expected",
    [
        (["FAIL", "FAIL"], ("FAIL", "judge_fail")),  # valid FAIL votes already a strict majority of 3
        (["PASS", "PASS"], ("ERROR", "judge_invalid_value")),
        (["PASS", "FAIL"], ("ERROR", "judge_invalid_value")),
    ],
)
def test_invalid_panel_is_fail_only_with_a_fail_majority_of_the_full_panel(others, expected):
    votes = [V("a", score=99)] + [V(n, v) for n, v in zip("bc", others, strict=True)]
    assert run(votes)[:2] == expected
    assert run(votes, panel=("a", "b", "c"))[:2] == expected


def test_scores_are_reduced_per_vote_so_no_rounding_turns_a_tie_into_pass():
    # Mean score 3.0, median 3.0: a panel-level rounding could pass; per vote it is 2-2.
    votes = [V("a", score=5), V("b", score=5), V("c", score=1), V("d", score=1)]
    assert run(votes)[:2][:3] == ("ABSTAIN", "panel_tie")
    votes = [V("a", score=4), V("b", score=4), V("c", score=3), V("d", score=3)]  # mean 3.5 rounds to 4
    assert run(votes)[:2][:3] == ("ABSTAIN", "panel_tie")
    # Mixed verdicts and scores.
    votes = [V("a", "PASS"), V("b", score=5), V("c", score=2), V("d", "FAIL")]
    assert run(votes)[:2][:3] == ("ABSTAIN", "panel_tie")
    # Mean 3.67 would round to a pass; per vote it is 1 PASS vs 2 FAIL.
    votes = [V("a", score=5), V("b", score=3), V("c", score=3)]
    assert run(votes)[:2][:3] == ("FAIL", "judge_fail")
    card = evaluate([row([V("a", score=5), V("b", score=5), V("c", score=1), V("d", score=1)])])
    assert row_status(card)[:3] == ("ABSTAIN", "panel_tie")
    assert card.dimensions.loc["helpfulness", ["n", "abstains"]].tolist() == [0, 1]


# =========================================================================== duplicates
@pytest.mark.parametrize(
    "votes, expected",
    [
        ([V("a", "PASS"), V("a", "PASS"), V("b", "PASS"), V("c", "PASS")], ("ERROR", "duplicate_judge")),
        ([V("a", "PASS"), V("a", "FAIL"), V("b", "PASS"), V("c", "PASS")], ("ERROR", "duplicate_judge")),
        ([V("a", "FAIL"), V("a", "FAIL"), V("b", "FAIL"), V("c", "PASS")], ("FAIL", "judge_fail")),
        ([V("a", "PASS"), V("a", "PASS"), V("b", "FAIL"), V("c", "FAIL")], ("FAIL", "judge_fail")),
    ],
)
def test_duplicate_votes_from_one_judge_make_the_panel_invalid_unless_fail_majority(votes, expected):
    assert run(votes)[:2] == expected
    assert run(votes, panel=("a", "b", "c"))[:2] == expected


def test_duplicate_judge_votes_cannot_outvote_the_panel():
    # "a" voting PASS three times must not beat b and c voting FAIL... nor make a PASS.
    votes = [V("a", "PASS"), V("a", "PASS"), V("a", "PASS"), V("b", "PASS"), V("c", "FAIL")]
    assert run(votes)[0] == "ERROR"


# =========================================================================== mock judges
@pytest.mark.parametrize("name", ["mock", "mock-judge", "MOCK_gpt", "Mock judge", "mockingbird"])
def test_mock_identity_prefix_is_case_insensitive(name):
    assert judges.is_mock(name)


@pytest.mark.parametrize("name", ["gpt-4o", "claude-judge", "judge-mock", "smock"])
def test_other_identities_are_not_mock(name):
    assert not judges.is_mock(name)
    assert not judges.is_mock(name, {"judge": name, "verdict": "PASS", "mock": False})


def test_vote_marked_mock_true_is_a_mock():
    assert judges.is_mock("gpt-4o", {"judge": "gpt-4o", "verdict": "PASS", "mock": True})


@pytest.mark.parametrize("position", [0, 1, 2])
@pytest.mark.parametrize("kind", ["prefix", "flag"])
def test_mock_judge_anywhere_in_the_panel_makes_self_test_and_its_votes_count_as_cast(position, kind):
    # SPEC §18: a mock's PASS votes count like its FAIL votes; the row says mock_judge.
    names = ["gpt-judge", "claude-judge", "gemini-judge"]
    votes = [V(n, "PASS") for n in names]
    if kind == "prefix":
        votes[position] = V("Mock-" + names[position], "PASS")
    else:
        votes[position]["mock"] = True
    ctx = Context()
    out = judges.score(row(votes), ctx)
    assert (out.status, out.reason) == ("PASS", "mock_judge")
    assert ctx.mock_judges
    others = [{"id": f"p{i}", "dimension": "helpfulness", "status": "PASS", "evaluator": "h"} for i in range(5)]
    card = evaluate([row(votes)] + others)
    assert card.decision == "SELF_TEST"
    assert card.overall_pass is False
    assert row_status(card) == ("PASS", "mock_judge")
    assert card.dimensions.at["helpfulness", "rate"] == 1.0
    # A PASS row is no finding, whatever its reason.
    assert not [f for f in card.findings if f["reason"] == "mock_judge"]


@pytest.mark.parametrize(("verdicts", "status", "cast"), [
    (["PASS", "PASS", "FAIL"], "PASS", None),
    (["FAIL", "FAIL", "PASS"], "FAIL", "judge_fail"),
    (["PASS", "FAIL"], "ABSTAIN", "panel_tie"),
    (["PASS", None, "PASS"], "ERROR", "panel_incomplete"),
])
def test_a_mock_panel_row_is_the_panels_outcome_as_cast_with_reason_mock_judge(verdicts, status, cast):
    names = ["mockllm/a", "mockllm/b", "mockllm/c"]
    votes = [V(n, v) for n, v in zip(names, verdicts, strict=False) if v is not None]
    panel = names[:len(verdicts)]
    ctx = Context(judge_panel=tuple(panel))
    out = judges.score(row(votes), ctx)
    assert (out.status, out.reason) == (status, "mock_judge")
    assert ctx.mock_judges == set(panel)  # a declared mock counts even without a vote
    assert out.detail.startswith("mock judge or evaluator mockllm/")
    if cast is not None:  # the reason as cast stays in the detail
        assert f"({cast})" in out.detail


def test_a_mock_evaluators_prescored_rows_count_as_given():
    rows = [{"id": f"r{i}", "dimension": "qa", "case_id": f"c{i}", "status": s,
             "evaluator": "inspect:model_graded_qa@mockllm/grader"}
            for i, s in enumerate(["PASS", "PASS", "PASS", "FAIL"])]
    card = sk.evaluate(rows, policy={"gate": {"thresholds": {"qa": 0.5}}})
    assert card.decision == "SELF_TEST"
    assert card.dimensions.at["qa", "rate"] == 0.75
    ev = card.evidence
    assert ev["reason"].tolist() == ["mock_judge"] * 4
    assert ev["status"].astype(str).tolist() == ["PASS", "PASS", "PASS", "FAIL"]
    (finding,) = [f for f in card.findings if f["reason"] == "mock_judge"]
    assert finding["case_ids"] == ["c3"]


def test_a_mock_evaluators_prescored_error_keeps_the_harness_reason():
    # An ERROR the harness reports (a crashed sample) is no vote the mock cast: its reason stays.
    rows = [{"id": "r0", "dimension": "qa", "case_id": "c0", "status": "PASS",
             "evaluator": "inspect:model_graded_qa@mockllm/grader"},
            {"id": "r1", "dimension": "qa", "case_id": "c1", "status": "ERROR", "reason": "sample_error",
             "detail": "RuntimeError('boom')", "evaluator": "inspect:model_graded_qa@mockllm/grader"}]
    card = sk.evaluate(rows, policy={"gate": {"thresholds": {"qa": 0.5}}})
    assert card.decision == "SELF_TEST"
    ev = card.evidence
    assert ev["reason"].tolist() == ["mock_judge", "sample_error"]
    assert ev["detail"].iloc[1] == "pre-scored ERROR by inspect:model_graded_qa@mockllm/grader: RuntimeError('boom')"


def test_mock_judge_is_self_test_even_with_fail_or_tie_or_exploratory():
    for votes in (
        [V("mock-a", "FAIL"), V("b", "FAIL"), V("c", "FAIL")],
        [V("mock-a", "PASS"), V("b", "FAIL")],
    ):
        assert evaluate([row(votes)]).decision == "SELF_TEST"
    # SELF_TEST comes before TRIAGE in the decision order.
    card = evaluate([row([V("mock-a", "PASS"), V("b", "PASS"), V("c", "PASS")])], purpose="exploratory")
    assert card.decision == "SELF_TEST"
    card = sk.evaluate([row([V("mock-a", "PASS"), V("b", "PASS"), V("c", "PASS")])],
                       policy={"gate": {"thresholds": {"helpfulness": 0.0}}}, limit=1)
    assert card.decision == "SELF_TEST"


def test_mock_outside_a_declared_panel_still_makes_self_test():
    votes = [V("a", "PASS"), V("b", "PASS"), V("c", "PASS"), V("mock-extra", "PASS")]
    card = evaluate([row(votes)], panel=["a", "b", "c"])
    assert card.decision == "SELF_TEST"
    assert row_status(card) == ("PASS", "mock_judge")
    votes = [V("a", "PASS"), V("b", "PASS"), V("c", "PASS"), V("outsider", "PASS", mock=True)]
    card = evaluate([row(votes)], panel=["a", "b", "c"])
    assert card.decision == "SELF_TEST"


def test_mock_on_an_unlabeled_row_still_makes_self_test():
    card = evaluate([row([V("mock-a", "PASS")], criteria=None)])
    assert card.decision == "SELF_TEST"


def test_mock_judge_in_the_declared_policy_panel_makes_self_test():
    votes = [V("a", "PASS"), V("b", "PASS")]
    card = evaluate([row(votes)], panel=["a", "b", "mock-judge"])
    assert row_status(card) == ("ERROR", "mock_judge")  # the declared mock did not vote: incomplete
    assert card.decision == "SELF_TEST"


def test_mock_judge_votes_on_a_prescored_row_make_self_test():
    r = row([V("mock-judge", "PASS"), V("b", "PASS"), V("c", "PASS")], status="PASS", evaluator="harness")
    card = evaluate([r])
    assert card.decision == "SELF_TEST"
    assert row_status(card) == ("PASS", "mock_judge")


# =========================================================================== identity, labels, odds and ends
def test_judge_identity_is_the_sorted_panel_names():
    rows = [
        row([V("zeta", "PASS"), V("alpha", "PASS")], rid="r1"),
        row([V("mu", "PASS"), V("alpha", "FAIL"), V("zeta", "PASS")], rid="r2"),
    ]
    card = evaluate(rows)
    assert card.judges == ["alpha", "mu", "zeta"]
    assert card.to_dict()["judges"] == ["alpha", "mu", "zeta"]
    card = evaluate(rows, panel=["zeta", "alpha", "mu"])
    assert card.judges == ["alpha", "mu", "zeta"]
    # No judged rows: no judges.
    card = sk.evaluate([{"id": "p", "dimension": "pii", "agent_output": "hi"}])
    assert card.judges == []


def test_no_judge_criteria_is_unlabeled():
    votes = [V("a", "PASS"), V("b", "PASS"), V("c", "PASS")]
    for criteria in (None, "", "   "):
        assert run(votes, criteria=criteria)[:3] == ("ERROR", "missing_judge_criteria", False)
    card = evaluate([row(votes, criteria=None)] + [row(votes, rid="ok")])
    ev = card.evidence.set_index("id")
    assert str(ev.loc["j1", "label"]) == "unlabeled"
    assert str(ev.loc["j1", "status"]) != "PASS"
    assert card.validation.unlabeled == 1
    assert card.decision == "INCOMPLETE"  # release: an unlabeled row blocks


def test_judged_dimension_without_votes_or_status():
    ctx = Context()
    assert judges.score({"id": "x", "dimension": "helpfulness"}, ctx)[:2][:3] == ("ERROR", "missing_judge_votes")
    out = judges.score({"id": "x", "dimension": "helpfulness", "judge_criteria": CRITERIA}, ctx)
    assert out.status == "ERROR"
    assert run([])[:2][:3] == ("ERROR", "missing_judge_votes")


def test_vote_without_judge_identity_spoils_an_undeclared_panel():
    votes = [V("a", "PASS"), V("b", "PASS"), {"verdict": "PASS"}]
    assert run(votes)[0] == "ERROR"
    votes = [V("a", "PASS"), V("b", "PASS"), {"judge": "", "verdict": "PASS"}]
    assert run(votes)[0] == "ERROR"


def test_prescored_status_wins_over_judge_votes():
    r = row([V("a", "FAIL"), V("b", "FAIL"), V("c", "FAIL")], status="PASS", evaluator="harness")
    assert row_status(evaluate([r]))[:3] == ("PASS", None)


def test_judged_rows_count_only_pass_and_fail_in_the_rate():
    rows = [
        row([V("a", "PASS"), V("b", "PASS"), V("c", "FAIL")], rid="pass"),
        row([V("a", "FAIL"), V("b", "FAIL"), V("c", "PASS")], rid="fail"),
        row([V("a", "PASS"), V("b", "FAIL")], rid="tie"),
        row([V("a", "PASS"), V("b", "PASS"), V("c", score=0)], rid="invalid"),
    ]
    card = evaluate(rows)
    d = card.dimensions.loc["helpfulness"]
    assert (d["n"], d["passes"], d["fails"], d["errors"], d["abstains"]) == (2, 1, 1, 1, 1)
    assert d["rate"] == 0.5
