"""The case-clustered interval, power, honest pass^k and run-to-run variance in the scorecard (issue 12).

SPEC §6 defines the statistics (tested in test_cluster_interval.py and
test_power.py); these tests check that every dimension of a Scorecard reports
them, that ``threshold_basis: cluster_lower`` decides with them (the certain
FAIL rule of §8 included), that the advisory ``low_confidence`` finding says
how many cases would settle a doubtful PASS.
"""

from __future__ import annotations

import json
from itertools import pairwise

import numpy as np
import pytest

import scorekit as sk


def rows_for(pattern: list[list[str]], dimension: str = "helpfulness", **extra) -> list[dict]:
    """One pre-scored row per trial: pattern[i] are the statuses of case i's trials."""
    out = []
    for i, trials in enumerate(pattern):
        for t, status in enumerate(trials):
            out.append({"id": f"{dimension}-{i}-{t}", "dimension": dimension, "case_id": f"c{i}", "trial": t,
                        "status": status, "evaluator": "harness", **extra})
    return out


CORRELATED = [["PASS"] * 5] * 16 + [["FAIL"] * 5] * 4  # whole cases pass or fail: deff near 5
POLICY = {"gate": {"thresholds": {"helpfulness": 0.7}}}


def test_every_dimension_reports_cases_deff_clustered_interval_and_mde():
    card = sk.evaluate(rows_for(CORRELATED), policy=POLICY)
    dim = card.dimensions.loc["helpfulness"]
    c = np.array([5] * 16 + [0] * 4)
    n = np.array([5] * 20)
    low, high, deff = sk.cluster_interval(c, n)
    assert (dim["cases"], dim["n"]) == (20, 100)
    assert dim["deff"] == pytest.approx(deff, abs=1e-12) and deff > 4
    assert (dim["ci_cluster_low"], dim["ci_cluster_high"]) == pytest.approx((low, high), abs=1e-12)
    assert dim["ci_cluster_low"] < dim["wilson_low"]  # wider than Wilson
    # trials repeat: the headline interval is the clustered one (SPEC §18)
    assert (dim["ci_low"], dim["ci_high"], dim["interval_method"]) == (low, high, "wilson_clustered")
    from scorekit._stats import dimension_mde

    assert dim["mde"] == pytest.approx(dimension_mde(80, 100, deff, 0.95), abs=1e-12)
    entry = card.to_dict()["dimensions"][0]
    for key in ("cases", "deff", "ci_cluster_low", "ci_cluster_high", "mde", "pass_k_cases", "variance",
                "interval_method", "wilson_low", "wilson_high", "assurance", "cases_to_settle", "pass_k_ci"):
        assert key in entry


def test_summary_carries_both_intervals():
    card = sk.evaluate(rows_for(CORRELATED), policy=POLICY)
    summary = card.evidence.scorekit.summary()
    for column in ("cases", "deff", "ci_cluster_low", "ci_cluster_high", "ci_low", "ci_high", "wilson_low",
                   "wilson_high"):
        assert summary.loc["helpfulness", column] == pytest.approx(card.dimensions.loc["helpfulness", column])


def test_one_trial_per_case_gives_equal_intervals():
    card = sk.evaluate(rows_for([["PASS"]] * 8 + [["FAIL"]] * 2), policy=POLICY)
    dim = card.dimensions.loc["helpfulness"]
    assert dim["deff"] == 1.0
    assert (dim["ci_cluster_low"], dim["ci_cluster_high"]) == pytest.approx((dim["ci_low"], dim["ci_high"]), abs=1e-12)


def test_cluster_lower_threshold_basis_decides_on_the_clustered_bound():
    rows = rows_for(CORRELATED)
    point = sk.evaluate(rows, policy=POLICY)
    wilson = sk.evaluate(rows, policy={"gate": {"thresholds": {"helpfulness": 0.7}, "threshold_basis": "wilson_lower"}})
    cluster = sk.evaluate(
        rows, policy={"gate": {"thresholds": {"helpfulness": 0.7}, "threshold_basis": "cluster_lower"}}
    )
    assert point.dimensions.loc["helpfulness", "verdict"] == "PASS"  # 80%
    assert wilson.dimensions.loc["helpfulness", "verdict"] == "PASS"  # Wilson lower ~71%
    assert cluster.dimensions.loc["helpfulness", "verdict"] == "FAIL"  # clustered lower ~58%
    assert cluster.dimensions.loc["helpfulness", "measure"] == cluster.dimensions.loc["helpfulness", "ci_cluster_low"]


def test_cluster_lower_certain_fail_counts_missing_rows_as_passes():
    # Missing rows (ERROR) that, counted as PASS, lift the clustered bound over the threshold:
    # the verdict is not a certain FAIL, so it goes to INCOMPLETE (coverage), never FAIL by rule 1.
    pattern = [["PASS"] * 5] * 16 + [["FAIL", "ERROR", "ERROR", "ERROR", "ERROR"]] * 4
    policy = {"gate": {"thresholds": {"helpfulness": 0.8}, "threshold_basis": "cluster_lower"}}
    card = sk.evaluate(rows_for(pattern), policy=policy)
    dim = card.dimensions.loc["helpfulness"]
    assert dim["verdict"] == "INCOMPLETE" and any("coverage" in r for r in dim["verdict_reasons"])
    # Without a way out (the bound fails even with every missing row a PASS), it is a certain FAIL.
    strict = {"gate": {"thresholds": {"helpfulness": 0.99}, "threshold_basis": "cluster_lower"}}
    card = sk.evaluate(rows_for(pattern), policy=strict)
    assert card.dimensions.loc["helpfulness", "verdict"] == "FAIL"
    assert any("even counting missing rows as PASS" in r for r in card.dimensions.loc["helpfulness", "verdict_reasons"])


def test_low_confidence_finding_says_how_many_cases_would_settle_it():
    card = sk.evaluate(rows_for(CORRELATED), policy=POLICY)
    assert card.dimensions.loc["helpfulness", "verdict"] == "PASS"
    (finding,) = [f for f in card.findings if f["reason"] == "low_confidence"]
    assert finding["severity"] == "info" and finding["status"] == "PASS"
    dim = card.dimensions.loc["helpfulness"]
    from statsmodels.stats.proportion import proportion_confint

    # SPEC §18: the fewest cases (>= 20) whose Wilson lower bound, at the same rate, 5 trials per case
    # and deff, reaches the threshold: effective size m' * 5 / deff.
    def low(m):
        size = m * 5 / dim["deff"]
        return proportion_confint(0.8 * size, size, alpha=0.05, method="wilson")[0]

    needed = next(m for m in range(20, 10_000) if low(m) >= 0.7)
    assert dim["cases_to_settle"] == needed and dim["assurance"] < 0.95
    assert f"about {needed:,} cases ({needed - 20:,} more than the 20 measured)" in finding["review"]
    assert card.decision == "PASS"  # advisory: no verdict changes


def test_no_low_confidence_when_the_lower_bound_clears_the_threshold():
    card = sk.evaluate(rows_for([["PASS"]] * 400), policy={"gate": {"thresholds": {"helpfulness": 0.9}}})
    assert not [f for f in card.findings if f["reason"] == "low_confidence"]


def test_pass_k_cases_and_the_curve_over_the_ks_every_case_reaches():
    # 9 cases with 4 trials (3 pass, 1 fail), one case with 2 trials that fail: pass^4 over 9 cases
    # would rise above pass^2 over 10; it is reported over its 9 cases, off the curve.
    pattern = [["PASS", "PASS", "PASS", "FAIL"]] * 9 + [["FAIL", "FAIL"]]
    policy = {"gate": {"thresholds": {"helpfulness": 0.1}}, "pass_k": [1, 2, 4]}
    card = sk.evaluate(rows_for(pattern), policy=policy)
    dim = card.dimensions.loc["helpfulness"]
    assert dim["pass_k_cases"] == {"1": 10, "2": 10, "4": 9}
    assert dim["curve_k"] == 2
    on_curve = [dim["pass_k"][k] for k in ("1", "2") ]
    assert on_curve == sorted(on_curve, reverse=True)
    from scorekit.reports._format import fmt_pass_k

    assert fmt_pass_k(card.to_dict()["dimensions"][0], "4").endswith("(over 9 of 10 cases)")


def test_scorecard_variance_is_the_accessors_variance():
    rows = []
    for run in range(3):
        for c in range(20):
            rows.append({"id": f"r{run}-{c}", "dimension": "helpfulness", "case_id": f"c{c}", "trial": run, "run": run,
                         "status": "PASS" if (c + run) % 5 else "FAIL", "evaluator": "h"})
    card = sk.evaluate(rows, policy=POLICY)
    entry = card.to_dict()["dimensions"][0]["variance"]
    table = card.evidence.scorekit.variance().loc["helpfulness"]
    assert entry["basis"] == "run" and entry["runs"] == 3 and entry["incomplete_runs"] == 0
    assert entry["mean"] == pytest.approx(table["mean"]) and entry["ci_low"] == pytest.approx(table["ci_low"])
    assert 0.0 <= entry["ci_low"] <= entry["ci_high"] <= 1.0


def test_incomplete_runs_are_counted_not_averaged():
    rows = []
    for run in range(3):
        for c in range(10 if run < 2 else 6):  # the third run measured 6 of the 10 cases
            rows.append({"id": f"r{run}-{c}", "dimension": "helpfulness", "case_id": f"c{c}", "run": f"run-{run}",
                         "status": "PASS", "evaluator": "h"})
    entry = sk.evaluate(rows, policy=POLICY).to_dict()["dimensions"][0]["variance"]
    assert (entry["runs"], entry["incomplete_runs"]) == (2, 1)


def test_scorecard_json_validates_with_the_new_fields(tmp_path):
    card = sk.evaluate(rows_for(CORRELATED), policy=POLICY)
    written = card.write(tmp_path)
    data = json.loads(written["json"].read_text())
    assert data["dimensions"][0]["deff"] > 1


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def trial_patterns(draw):
    cases = draw(st.integers(1, 8))
    return [[draw(st.sampled_from(["PASS", "FAIL"])) for _ in range(draw(st.integers(1, 8)))] for _ in range(cases)]


@given(trial_patterns())
def test_pass_k_on_the_curve_never_rises_with_k(pattern):
    # Over the ks every case reaches, pass^k is a mean of per-case C(c,k)/C(n,k) over one
    # set of cases, each non-increasing in k; larger ks are off the curve (SPEC §6).
    policy = {"gate": {"thresholds": {"helpfulness": 0.5}}, "pass_k": [1, 2, 3, 4, 5, 6, 7, 8]}
    dim = sk.evaluate(rows_for(pattern), policy=policy).to_dict()["dimensions"][0]
    on_curve = [dim["pass_k"][str(k)] for k in range(1, 9) if k <= dim["curve_k"]]
    assert dim["curve_k"] == min(len(trials) for trials in pattern)
    assert all(a >= b - 1e-12 for a, b in pairwise(on_curve))
    for k in range(1, 9):
        assert dim["pass_k_cases"][str(k)] == sum(len(trials) >= k for trials in pattern)
