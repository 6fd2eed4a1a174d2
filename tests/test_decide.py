"""Dimension verdicts and the scorecard decision (SPEC §8), rule by rule and in order."""

from __future__ import annotations

from pathlib import Path

import pytest

import scorekit as sk
from scorekit._decide import decide
from scorekit._policy import load_policy

DIM = "helpfulness"


def rows_for(passes=0, fails=0, errors=0, abstains=0, dimension=DIM, prefix=None):
    statuses = ["PASS"] * passes + ["FAIL"] * fails + ["ERROR"] * errors + ["ABSTAIN"] * abstains
    prefix = prefix or dimension
    return [
        {"id": f"{prefix}-{i}", "dimension": dimension, "status": s, "evaluator": "harness"}
        for i, s in enumerate(statuses)
    ]


def trials(case, statuses, dimension=DIM):
    return [
        {"id": f"{case}-t{t}", "dimension": dimension, "case_id": case, "trial": t, "status": s, "evaluator": "h"}
        for t, s in enumerate(statuses)
    ]


def policy(threshold, basis="point", **gate):
    return {"gate": {"thresholds": {DIM: threshold}, "threshold_basis": basis, **gate}}


def verdict(card, name=DIM):
    return card.dimensions.loc[name, "verdict"]


def reasons(card, name=DIM):
    return " | ".join(card.dimensions.loc[name, "verdict_reasons"])


# =========================================================================== rule 1: certain FAIL
@pytest.mark.parametrize("basis", ["point", "wilson_lower"])
def test_certain_fail_despite_missing_evidence(basis):
    # 5 PASS 5 FAIL + 1 ERROR vs 0.9: even counting the ERROR as PASS, 6/11 < 0.9.
    card = sk.evaluate(rows_for(5, 5, errors=1), policy=policy(0.9, basis))
    assert verdict(card) == "FAIL"
    assert card.decision == "FAIL"
    assert "even counting missing rows as PASS" in reasons(card)


def test_point_not_certain_fail_is_incomplete_via_coverage():
    # 8 PASS + 2 ERROR vs 0.95: optimistic 10/10 >= 0.95 → the failure is not certain.
    card = sk.evaluate(rows_for(8, errors=2), policy=policy(0.95))
    assert verdict(card) == "INCOMPLETE"
    assert card.decision == "INCOMPLETE"
    assert "coverage" in reasons(card)


def test_wilson_lower_recomputes_the_basis_with_missing_rows_as_passes():
    # 8 PASS + 2 ERROR vs 0.95 on the Wilson lower bound: wilson_low(10, 10) = 0.722 < 0.95 → certain.
    low10, _ = sk.wilson_interval(10, 10)
    assert low10 < 0.95
    card = sk.evaluate(rows_for(8, errors=2), policy=policy(0.95, "wilson_lower"))
    assert verdict(card) == "FAIL"
    # 50 PASS + 5 ERROR vs 0.9: wilson_low(55, 55) ≈ 0.935 >= 0.9 → not certain → INCOMPLETE.
    low55, _ = sk.wilson_interval(55, 55)
    assert low55 >= 0.9
    card = sk.evaluate(rows_for(50, errors=5), policy=policy(0.9, "wilson_lower"))
    assert verdict(card) == "INCOMPLETE"
    # ... and with no missing rows the measure is wilson_low(50, 50) ≈ 0.929 >= 0.9 → PASS.
    card = sk.evaluate(rows_for(50), policy=policy(0.9, "wilson_lower"))
    assert verdict(card) == "PASS" and card.decision == "PASS"
    assert card.dimensions.loc[DIM, "measure"] == pytest.approx(sk.wilson_interval(50, 50)[0], abs=1e-12)


@pytest.mark.parametrize("basis", ["point", "wilson_lower"])
def test_abstain_counts_as_missing_like_error(basis):
    a = sk.evaluate(rows_for(5, 5, errors=1), policy=policy(0.9, basis))
    b = sk.evaluate(rows_for(5, 5, abstains=1), policy=policy(0.9, basis))
    assert verdict(a) == verdict(b) == "FAIL"
    a = sk.evaluate(rows_for(8, errors=2), policy=policy(0.95))
    b = sk.evaluate(rows_for(8, abstains=2), policy=policy(0.95))
    assert verdict(a) == verdict(b) == "INCOMPLETE"


def test_certain_fail_wins_over_every_incomplete_reason():
    # n < min_samples, coverage < min_coverage, failed control: still FAIL when certain.
    rows = rows_for(1, 5, errors=1) + [
        {"id": "kb", "dimension": DIM, "status": "PASS", "evaluator": "h", "tags": ["known-bad"]}
    ]
    card = sk.evaluate(rows, policy=policy(0.9, min_samples=50))
    assert verdict(card) == "FAIL"
    assert card.decision == "FAIL"


def test_uncertain_measured_fail_with_enough_coverage_is_fail():
    # 8 PASS 1 FAIL 1 ERROR vs 0.9 with min_coverage 0.9: 8/9 < 0.9 but 9/10 >= 0.9 (not certain);
    # nothing is INCOMPLETE, so rule 3 decides: the measure does not meet the threshold → FAIL.
    card = sk.evaluate(rows_for(8, 1, errors=1), policy=policy(0.9, min_coverage=0.9))
    assert verdict(card) == "FAIL"


# --------------------------------------------------------------------------- pass^k thresholds
def k_policy(k, minimum, **gate):
    return {"gate": {"thresholds": {DIM: 0.0}, "pass_k_thresholds": {DIM: {"k": k, "min": minimum}}, **gate}}


def test_pass_k_threshold_met_is_pass():
    rows = trials("a", ["PASS"] * 3) + trials("b", ["PASS"] * 3)
    card = sk.evaluate(rows, policy=k_policy(3, 0.8))
    assert verdict(card) == "PASS" and card.decision == "PASS"


def test_pass_k_threshold_certain_fail():
    # case b: PASS PASS FAIL → pass^3 = 0; mean 0.5 < 0.8 with nothing missing.
    rows = trials("a", ["PASS"] * 3) + trials("b", ["PASS", "PASS", "FAIL"])
    card = sk.evaluate(rows, policy=k_policy(3, 0.8))
    assert verdict(card) == "FAIL"
    assert "pass^3" in reasons(card)


def test_pass_k_missing_trials_are_not_a_certain_fail_when_they_could_pass():
    # Two trials per case, all PASS: the missing third trials could pass → not certain;
    # no case has 3 measured trials → INCOMPLETE.
    rows = trials("a", ["PASS", "PASS"]) + trials("b", ["PASS", "PASS"])
    card = sk.evaluate(rows, policy=k_policy(3, 0.8))
    assert verdict(card) == "INCOMPLETE"
    assert "pass^3" in reasons(card)
    assert card.decision == "INCOMPLETE"


def test_pass_k_missing_trials_cannot_hide_a_certain_fail():
    # Each case already has a FAIL: whatever the missing trials, pass^3 = 0 < 0.8.
    rows = trials("a", ["PASS", "FAIL"]) + trials("b", ["FAIL", "PASS"])
    card = sk.evaluate(rows, policy=k_policy(3, 0.8))
    assert verdict(card) == "FAIL"
    assert "even counting missing trials as PASS" in reasons(card)


def test_pass_k_error_trial_counts_as_pass_for_certainty():
    # case b: PASS PASS ERROR — counted as PASS the case could reach pass^3 = 1: not certain.
    rows = trials("a", ["PASS"] * 3) + trials("b", ["PASS", "PASS", "ERROR"])
    card = sk.evaluate(rows, policy=k_policy(3, 0.8))
    assert verdict(card) == "INCOMPLETE"  # via coverage < 1
    # ... but a FAIL next to the ERROR is certain: C(3,3)/C(4,3) = 0.25 for b → mean 0.625 < 0.8.
    rows = trials("a", ["PASS"] * 4) + trials("b", ["PASS", "PASS", "ERROR", "FAIL"])
    card = sk.evaluate(rows, policy=k_policy(3, 0.8))
    assert verdict(card) == "FAIL"


def test_pass_k_threshold_extends_the_scope():
    rows = rows_for(3, dimension="tone")
    card = sk.evaluate(rows, policy={"gate": {"thresholds": {"tone": 0.5},
                                              "pass_k_thresholds": {DIM: {"k": 2, "min": 0.5}}}})
    assert DIM in card.scope["dimensions"]
    assert verdict(card) == "INCOMPLETE"
    assert card.decision == "INCOMPLETE"


# =========================================================================== rule 2: INCOMPLETE
def test_incomplete_when_skipped():
    card = sk.evaluate(rows_for(3, dimension="tone"),
                       policy={"gate": {"thresholds": {"tone": 0.5, DIM: 0.5}}})
    assert verdict(card) == "INCOMPLETE"
    assert "skipped" in reasons(card)
    assert card.scope["missing_dimensions"] == [DIM]


def test_incomplete_when_n_below_min_samples():
    card = sk.evaluate(rows_for(10), policy=policy(0.9, min_samples=11))
    assert verdict(card) == "INCOMPLETE" and "min_samples" in reasons(card)
    card = sk.evaluate(rows_for(11), policy=policy(0.9, min_samples=11))
    assert verdict(card) == "PASS"


def test_incomplete_when_coverage_below_min_coverage():
    card = sk.evaluate(rows_for(9, errors=1), policy=policy(0.5, min_coverage=0.95))
    assert verdict(card) == "INCOMPLETE" and "coverage" in reasons(card)
    card = sk.evaluate(rows_for(9, errors=1), policy=policy(0.5, min_coverage=0.9))
    assert verdict(card) == "PASS"  # coverage 0.9 meets 0.9


def test_incomplete_when_no_threshold_for_a_judged_dimension_under_release():
    card = sk.evaluate(rows_for(10), policy=None)
    assert card.dimensions.loc[DIM, "threshold"] is None
    assert verdict(card) == "INCOMPLETE" and "no threshold" in reasons(card)
    assert card.decision == "INCOMPLETE"
    assert any(f["reason"] == "no_threshold" and f["dimension"] == DIM for f in card.findings)


def test_builtin_default_thresholds_apply_to_deterministic_dimensions():
    card = sk.evaluate([{"id": f"p{i}", "dimension": "pii", "agent_output": "no personal data"} for i in range(3)])
    assert card.dimensions.loc["pii", "threshold"] == 1.0
    assert card.decision == "PASS"


def test_incomplete_when_its_evaluator_control_failed():
    rows = rows_for(10) + [{"id": "kb", "dimension": DIM, "status": "PASS", "evaluator": "h", "tags": ["known-bad"]}]
    card = sk.evaluate(rows, policy=policy(0.5))
    assert verdict(card) == "INCOMPLETE" and "control" in reasons(card)
    caught = rows_for(10) + [{"id": "kb", "dimension": DIM, "status": "FAIL", "evaluator": "h", "tags": ["known-bad"]}]
    assert verdict(sk.evaluate(caught, policy=policy(0.5))) == "PASS"


# =========================================================================== rule 3
def test_pass_when_measure_meets_threshold_exactly():
    card = sk.evaluate(rows_for(9, 1), policy=policy(0.9))
    assert verdict(card) == "PASS"
    card = sk.evaluate(rows_for(9, 1), policy=policy(0.9000001))
    assert verdict(card) == "FAIL"


def test_threshold_zero_and_one():
    assert verdict(sk.evaluate(rows_for(0, 5), policy=policy(0.0))) == "PASS"
    assert verdict(sk.evaluate(rows_for(99, 1), policy=policy(1.0))) == "FAIL"


# =========================================================================== decision order
def test_decision_order_self_test_then_triage_then_fail_then_incomplete():
    failing = rows_for(1, 9)
    mock = [{"id": "m", "dimension": DIM, "judge_votes": [{"judge": "mock-1", "verdict": "PASS"}],
             "judge_criteria": "x"}]
    # SELF_TEST beats a failing dimension, a partial scan and an exploratory purpose.
    assert sk.evaluate(failing + mock, policy=policy(0.9)).decision == "SELF_TEST"
    assert sk.evaluate(failing + mock, policy={**policy(0.9), "purpose": "exploratory"}).decision == "SELF_TEST"
    assert sk.evaluate(failing, policy={**policy(0.9), "purpose": "self_test"}).decision == "SELF_TEST"
    # TRIAGE beats FAIL.
    assert sk.evaluate(failing, policy=policy(0.9), limit=len(failing)).decision == "TRIAGE"
    assert sk.evaluate(failing, policy={**policy(0.9), "purpose": "exploratory"}).decision == "TRIAGE"
    # FAIL beats INCOMPLETE (another dimension skipped, validation incomplete).
    rows = failing + [{"id": "u", "dimension": "task_completion", "agent_output": "x"}]
    card = sk.evaluate(rows, policy={"gate": {"thresholds": {DIM: 0.9, "tone": 0.9}}})
    assert card.dimensions.loc["tone", "verdict"] == "INCOMPLETE"
    assert card.validation.complete is False
    assert card.decision == "FAIL"


def _decide(card, pol, **kw):
    args = dict(policy=pol, dimensions=card.dimensions, missing_dimensions=card.scope["missing_dimensions"],
                validation_complete=card.validation.complete, mock_judges=False, partial=False,
                comparison_status="not_requested")
    args.update(kw)
    return decide(**args)


@pytest.mark.parametrize(
    "status, expected",
    [
        # Required but never run: missing (fail closed), as the live step in
        # history always decided; the dead copy in decide() said PASS.
        ("not_requested", "INCOMPLETE"),
        ("regressed", "FAIL"),
        ("missing", "INCOMPLETE"),
        ("incompatible", "INCOMPLETE"),
        ("unusable", "INCOMPLETE"),
    ],
)
def test_required_comparison_status_moves_a_measured_pass(status, expected):
    pol = load_policy({**policy(0.5), "regression": {"required": True}})
    card = sk.evaluate(rows_for(5), policy=pol)
    decision, measured, _ = _decide(card, pol, comparison_status=status)
    assert measured == "PASS"
    assert decision == expected


def test_regressed_comparison_turns_incomplete_into_fail_and_never_improves_a_fail():
    pol = load_policy({**policy(0.5), "regression": {"required": True}})
    incomplete = sk.evaluate(rows_for(5, errors=1), policy=pol)
    decision, measured, _ = _decide(incomplete, pol, comparison_status="regressed")
    assert (decision, measured) == ("FAIL", "INCOMPLETE")
    failing = sk.evaluate(rows_for(0, 5), policy=pol)
    for status in ("missing", "incompatible", "unusable"):
        assert _decide(failing, pol, comparison_status=status)[0] == "FAIL"


def test_required_comparison_with_no_history_is_incomplete():
    card = sk.evaluate(rows_for(5), policy={**policy(0.5), "regression": {"required": True}})
    assert card.measured_decision == "PASS"
    assert card.decision == "INCOMPLETE"
    assert card.comparison["status"] == "missing"
    assert card.to_dict()["comparison"]["status"] == "missing"
    # An optional comparison does not block.
    card = sk.evaluate(rows_for(5), policy={**policy(0.5), "regression": {"required": False}})
    assert card.decision == "PASS"


def test_mock_and_partial_flags_of_decide():
    pol = load_policy(policy(0.5))
    card = sk.evaluate(rows_for(5), policy=pol)
    assert _decide(card, pol, mock_judges=True)[0] == "SELF_TEST"
    assert _decide(card, pol, partial=True)[0] == "TRIAGE"
    assert _decide(card, pol, mock_judges=True, partial=True)[0] == "SELF_TEST"
    assert _decide(card, pol, validation_complete=False)[0] == "INCOMPLETE"
    assert _decide(card, pol, missing_dimensions=["pii"])[0] == "INCOMPLETE"


# =========================================================================== monotonicity counterexamples
def test_pass_to_error_below_min_coverage_moves_an_uncertain_fail_to_incomplete_never_to_pass():
    """SPEC §8 rule order: an uncertain measured FAIL (rule 3) becomes INCOMPLETE
    when a PASS turns into ERROR and coverage drops below what the policy accepts
    (rule 2 comes first). Both block release; the decision never moves to PASS."""
    pol = policy(0.9, min_coverage=0.9)
    before = sk.evaluate(rows_for(8, 1, errors=1), policy=pol)
    after = sk.evaluate(rows_for(7, 1, errors=2), policy=pol)
    assert before.decision == "FAIL"
    assert after.decision == "INCOMPLETE"
    assert not before.overall_pass and not after.overall_pass


def test_pass_to_error_on_the_only_case_with_k_trials_leaves_pass_k_undefined_never_pass():
    """A pass^k FAIL measured on the only case with k trials becomes INCOMPLETE
    ("no case has k measured trials") when that case loses a trial to ERROR:
    the evidence is gone, and the decision still cannot pass."""
    pol = k_policy(2, 0.8)
    singles = [r for i in range(9) for r in trials(f"s{i}", ["PASS"])]
    before = sk.evaluate(trials("a", ["PASS", "FAIL"]) + singles, policy=pol)
    after = sk.evaluate(trials("a", ["ERROR", "FAIL"]) + singles, policy=pol)
    assert before.decision == "FAIL"
    assert after.decision == "INCOMPLETE"
    assert not after.overall_pass


def test_the_comparison_step_has_one_home():
    # SPEC §8's comparison step lives in _decide alone; history uses it.
    import scorekit.history as history
    from scorekit import _decide

    assert history.apply_comparison is _decide.apply_comparison
    assert history.COMPARISON_STATUSES is _decide.COMPARISON_STATUSES
    sources = [path.read_text(encoding="utf-8") for path in Path(history.__file__).parent.glob("*.py")]
    assert len(sources) > 1 and not any("def apply_comparison" in text for text in sources)


def test_a_comparison_that_is_not_required_changes_nothing():
    pol = load_policy(policy(0.5))
    card = sk.evaluate(rows_for(5), policy=pol)
    for status in ("regressed", "missing", "incompatible", "unusable", "not_requested"):
        assert _decide(card, pol, comparison_status=status)[0] == "PASS"


def test_a_mock_evaluator_is_named_as_such_in_the_self_test_reason():
    import scorekit as sk

    rows = [{"id": f"r{i}", "dimension": "helpfulness", "status": "PASS", "evaluator": "mockllm/model"}
            for i in range(3)]
    card = sk.evaluate(rows)
    assert card.decision == "SELF_TEST"
    assert any("mock judge or evaluator" in reason for reason in card.decision_reasons)
