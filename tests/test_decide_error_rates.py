"""Decisions with stated error rates, per dimension and at the top level (SPEC §18).

Reference values come from an independent computation: statsmodels' Wilson
interval, scipy's Beta survival function and Student-t quantile, and the normal
quantile for the minimum detectable drop.
"""

from __future__ import annotations

import math

import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

import scorekit as sk
from scorekit._decide import error_rates
from scorekit._policy import load_policy

DIM = "helpfulness"


def cases(statuses_per_case, dimension=DIM):
    """One row per trial: ``statuses_per_case`` is a list of status lists, one per case."""
    return [
        {"id": f"{dimension}-c{c}-t{t}", "dimension": dimension, "case_id": f"c{c:03d}", "trial": t, "status": s,
         "evaluator": "harness"}
        for c, statuses in enumerate(statuses_per_case) for t, s in enumerate(statuses)
    ]


def single(passes=0, fails=0, errors=0, dimension=DIM):
    return cases([["PASS"]] * passes + [["FAIL"]] * fails + [["ERROR"]] * errors, dimension)


def policy(threshold, **gate):
    return {"gate": {"thresholds": {DIM: threshold}, **gate}}


def dim(card, name=DIM):
    return next(d for d in card.to_dict()["dimensions"] if d["name"] == name)


# --------------------------------------------------------------------------- headline interval
def test_headline_interval_is_the_clustered_one_when_a_case_repeats():
    rows = cases([["PASS", "PASS", "PASS"], ["PASS", "FAIL", "FAIL"], ["PASS", "PASS", "FAIL"], ["FAIL"] * 3,
                  ["PASS"] * 3])
    d = dim(sk.evaluate(rows, policy=policy(0.5)))
    low, high = proportion_confint(9, 15, alpha=0.05, method="wilson")
    assert d["interval_method"] == "wilson_clustered"
    assert (d["wilson_low"], d["wilson_high"]) == pytest.approx((low, high), abs=1e-12)
    assert (d["ci_low"], d["ci_high"]) == (d["ci_cluster_low"], d["ci_cluster_high"])
    assert d["ci_low"] < low and d["ci_high"] > high  # wider: the case is the unit of sampling


def test_headline_interval_is_wilson_with_one_trial_per_case():
    d = dim(sk.evaluate(single(8, 2), policy=policy(0.5)))
    low, high = proportion_confint(8, 10, alpha=0.05, method="wilson")
    assert d["interval_method"] == "wilson"
    assert (d["ci_low"], d["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    assert (d["wilson_low"], d["wilson_high"]) == (d["ci_low"], d["ci_high"])


def test_wilson_lower_basis_uses_the_pooled_wilson_bound_not_the_headline():
    rows = cases([["PASS", "PASS"], ["PASS", "FAIL"], ["PASS", "PASS"], ["PASS", "PASS"]])
    d = dim(sk.evaluate(rows, policy=policy(0.4, threshold_basis="wilson_lower")))
    assert d["interval_method"] == "wilson_clustered"
    assert d["measure"] == d["wilson_low"] != d["ci_low"]


# --------------------------------------------------------------------------- missing evidence
# The issue's run: 25 of 33 measured samples pass (75.8%), 3 crashed; counted as FAIL, 25/36 = 69.4%.
ISSUE = single(25, 8, errors=3)


def test_three_crashed_samples_cannot_turn_a_69_percent_agent_into_a_pass():
    assert round(25 / 33, 3) == 0.758 and round(25 / 36, 3) == 0.694
    card = sk.evaluate(ISSUE, policy=policy(0.7, min_coverage=0.9))
    d = dim(card)
    assert d["coverage"] == pytest.approx(33 / 36) and d["rate"] == pytest.approx(25 / 33)
    assert d["verdict"] == "INCOMPLETE" and d["missing_could_flip"] is True
    assert card.decision == "INCOMPLETE"
    reason = " | ".join(d["verdict_reasons"])
    assert "missing_could_flip" in reason and "counted as FAIL" in reason and "0.6944 < threshold 0.7" in reason
    assert d["rate_bounds"] == pytest.approx([25 / 36, 28 / 36], abs=1e-15)


def test_missing_evidence_ignore_judges_the_measured_rows_alone_and_is_recorded():
    card = sk.evaluate(ISSUE, policy=policy(0.7, min_coverage=0.9, missing_evidence="ignore"))
    d = dim(card)
    assert (d["verdict"], card.decision) == ("PASS", "PASS")
    assert d["missing_could_flip"] is True  # the fact is still stated
    assert card.to_dict()["policy"]["gate"]["missing_evidence"] == "ignore"


def test_a_pass_that_missing_rows_cannot_flip_stays_a_pass():
    card = sk.evaluate(single(30, 3, errors=1), policy=policy(0.7, min_coverage=0.9))
    d = dim(card)
    assert 30 / 34 >= 0.7 and (d["verdict"], d["missing_could_flip"]) == ("PASS", False)
    assert d["rate_bounds"] == pytest.approx([30 / 34, 31 / 34])
    full = dim(sk.evaluate(single(30, 3), policy=policy(0.7)))
    assert full["rate_bounds"] is None and full["missing_could_flip"] is False


@pytest.mark.parametrize("basis", ["wilson_lower", "cluster_lower"])
def test_missing_could_flip_recomputes_a_lower_bound_basis_pessimistically(basis):
    # 45/50 measured: Wilson lower 0.786 >= 0.78; with 3 missing counted as FAIL 45/53 → 0.7266 < 0.78.
    low, _ = proportion_confint(45, 50, alpha=0.05, method="wilson")
    worst, _ = proportion_confint(45, 53, alpha=0.05, method="wilson")
    assert worst < 0.78 <= low
    d = dim(sk.evaluate(single(45, 5, errors=3), policy=policy(0.78, threshold_basis=basis, min_coverage=0.5)))
    assert (d["verdict"], d["missing_could_flip"]) == ("INCOMPLETE", True)


def test_missing_trials_counted_as_fail_can_flip_a_pass_k_threshold():
    # pass^2: every case passes its 2 measured trials; a third trial crashed in one case of four.
    rows = cases([["PASS", "PASS"], ["PASS", "PASS"], ["PASS", "PASS"], ["PASS", "PASS", "ERROR"]])
    gate = {"min_coverage": 0.5, "pass_k_thresholds": {DIM: {"k": 2, "min": 0.9}}}
    d = dim(sk.evaluate(rows, policy=policy(0.5, **gate)))
    # With the crash as FAIL the last case's pass^2 is C(2,2)/C(3,2) = 1/3: mean (3 + 1/3)/4 = 0.833 < 0.9.
    assert (d["verdict"], d["missing_could_flip"]) == ("INCOMPLETE", True)
    assert "pass^2 0.8333 < 0.9" in " | ".join(d["verdict_reasons"])


# --------------------------------------------------------------------------- assurance, cases_to_settle
@pytest.mark.parametrize("passes, n, threshold", [(45, 50, 0.9), (48, 50, 0.9), (19, 20, 0.95)])
def test_assurance_is_the_jeffreys_posterior_probability_of_meeting_the_threshold(passes, n, threshold):
    d = dim(sk.evaluate(single(passes, n - passes), policy=policy(threshold)))
    assert d["assurance"] == pytest.approx(sps.beta.sf(threshold, passes + 0.5, n - passes + 0.5), abs=1e-12)


def test_a_pass_below_the_confidence_gets_cases_to_settle_and_an_advisory_finding():
    card = sk.evaluate(single(48, 2), policy=policy(0.9))
    d = dim(card)
    assert d["verdict"] == "PASS" and d["assurance"] < 0.95
    assert d["cases_to_settle"] == 97
    # independently: the fewest cases at 96% whose Wilson lower bound reaches 90%
    assert next(m for m in range(50, 500) if proportion_confint(0.96 * m, m, alpha=0.05, method="wilson")[0]
                >= 0.9) == 97
    [finding] = [f for f in card.findings if f["reason"] == "low_confidence"]
    assert finding["severity"] == "info" and finding["dimension"] == DIM
    assert "probability 93.5%" in finding["review"] and "97 cases (47 more than the 50 measured)" in finding["review"]
    assert card.decision == "PASS"  # advisory: changes no verdict


def test_a_settled_pass_and_a_fail_get_no_cases_to_settle_and_no_advisory():
    settled = sk.evaluate(single(100, 0), policy=policy(0.9))
    assert dim(settled)["assurance"] > 0.95 and dim(settled)["cases_to_settle"] is None
    assert not [f for f in settled.findings if f["reason"] == "low_confidence"]
    failed = dim(sk.evaluate(single(40, 10), policy=policy(0.9)))
    assert failed["verdict"] == "FAIL" and failed["cases_to_settle"] is None and failed["assurance"] < 0.5


def test_assurance_is_null_without_evidence_or_threshold():
    card = sk.evaluate(single(5, 1) + single(0, 0, errors=2, dimension="custom"), policy=policy(0.5))
    assert dim(card, "custom")["assurance"] is None  # no threshold and no measured row
    rows = single(5, 1, dimension="judged_extra")
    assert dim(sk.evaluate(rows, policy={}), "judged_extra")["assurance"] is None  # no threshold


# --------------------------------------------------------------------------- pass^k interval, pass^1
def test_pass_k_ci_is_the_t_interval_over_the_cases_that_reach_k():
    per_case = [3] * 4 + [2] * 3 + [1] * 2 + [0]
    rows = cases([["PASS"] * c + ["FAIL"] * (3 - c) for c in per_case])
    d = dim(sk.evaluate(rows, policy={"gate": {"thresholds": {DIM: 0.1}}, "pass_k": [2, 3, 4]}))
    values = [math.comb(c, 2) / math.comb(3, 2) for c in per_case]
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    half = sps.t.ppf(0.975, len(values) - 1) * sd / math.sqrt(len(values))
    assert d["pass_k"]["2"] == pytest.approx(0.5)
    assert d["pass_k_ci"]["2"] == pytest.approx([mean - half, mean + half], abs=1e-12)
    assert d["pass_k_ci"]["2"] == pytest.approx([0.1771340568262647, 0.8228659431737353], abs=1e-12)
    assert d["pass_k_ci"]["4"] is None  # no case reaches 4 trials


def test_pass_1_and_trials_vary_when_cases_have_unequal_trials():
    d = dim(sk.evaluate(cases([["PASS"], ["FAIL", "FAIL", "FAIL"]]), policy=policy(0.1)))
    assert d["trials_vary"] is True
    assert d["rate"] == pytest.approx(1 / 4) and d["pass_1"] == pytest.approx((1.0 + 0.0) / 2)
    same = dim(sk.evaluate(cases([["PASS", "FAIL"], ["FAIL", "FAIL"]]), policy=policy(0.1)))
    assert same["trials_vary"] is False and same["pass_1"] == same["rate"] == 0.25


# --------------------------------------------------------------------------- mde, error_rates
@pytest.mark.parametrize("multiplicity, divisor", [("holm", 3), ("none", 1)])
def test_mde_is_one_sided_at_half_the_complement_divided_among_the_dimensions_in_scope(multiplicity, divisor):
    rows = single(90, 10) + single(50, 0, dimension="pii") + single(20, 0, dimension="tool_call")
    card = sk.evaluate(rows, policy={**policy(0.5), "regression": {"multiplicity": multiplicity}})
    rate = (90 + 2) / (100 + 4)
    alpha = 0.025 / divisor
    expected = (sps.norm.ppf(1 - alpha) + sps.norm.ppf(0.8)) * math.sqrt(2 * rate * (1 - rate) / 100)
    assert dim(card)["mde"] == pytest.approx(expected, abs=1e-12)


def test_error_rates_state_the_level_of_every_decision():
    card = sk.evaluate(single(9, 1), policy={**policy(0.5), "confidence": 0.9})
    data = card.to_dict()
    assert data["schema_version"] == 2
    assert data["error_rates"] == {"confidence": 0.9, "alpha": 0.05, "multiplicity": "holm", "comparisons": 0}


def test_error_rates_count_the_usable_controlled_comparisons():
    comparison = {"regressions": [
        {"dimension": "a", "controlled": True, "status": "ok", "p_value": 0.4},
        {"dimension": "b", "controlled": True, "status": "regressed", "p_value": 0.001},
        {"dimension": "c", "controlled": True, "status": "undefined", "p_value": None},
        {"dimension": "d", "controlled": False, "status": "ok", "p_value": None},
    ]}
    pol = load_policy({"regression": {"multiplicity": "none"}})
    assert error_rates(pol, comparison) == {"confidence": 0.95, "alpha": 0.025, "multiplicity": "none",
                                            "comparisons": 2}
    assert error_rates(pol.to_dict(), comparison) == error_rates(pol, comparison)
    assert error_rates(pol, None)["comparisons"] == 0


@pytest.mark.parametrize("threshold", [1.0, 0.0])
def test_a_zero_tolerance_threshold_has_no_assurance_and_no_advisory(threshold):
    # 100%: every measured row must pass — a rule, not a rate to estimate (its Jeffreys assurance is 0 always).
    card = sk.evaluate(single(30), policy=policy(threshold))
    d = dim(card)
    assert (d["verdict"], d["assurance"], d["cases_to_settle"]) == ("PASS", None, None)
    assert not [f for f in card.findings if f["reason"] == "low_confidence"]


def test_error_rates_of_a_compared_card_count_its_controlled_comparisons(tmp_path):
    db = tmp_path / "history.sqlite"
    rows = cases([["PASS", "PASS"]] * 8 + [["PASS", "FAIL"]] * 2) + cases([["PASS"]] * 10, dimension="pii")
    pol = {"gate": {"thresholds": {DIM: 0.5, "pii": 0.5}}}
    sk.evaluate(rows, policy=pol, history=db, agent_name="a", agent_version="1")
    card = sk.evaluate(rows, policy=pol, history=db, agent_name="a", agent_version="2")
    data = card.to_dict()
    used = [e for e in data["comparison"]["regressions"] if e["controlled"] and e["p_value"] is not None]
    assert len(used) == 2
    assert data["error_rates"] == {"confidence": 0.95, "alpha": 0.025, "multiplicity": "holm", "comparisons": 2}
