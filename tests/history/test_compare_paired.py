"""The ``paired`` regression method through the history (SPEC §10, Miller 2024 §4)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit.history import compare, record, with_comparison

DIM = "task_completion"


def policy(method: str = "paired", max_drop: float = 0.0, **gate) -> dict:
    return {"regression": {"required": True, "method": method, "max_drop": max_drop},
            "gate": {"thresholds": {DIM: 0.5}, **gate}}


def card_of(cases: dict[str, str], version: str, *, pol: dict | None = None, order=None) -> sk.Scorecard:
    """A card from per-case trial statuses ("PPF": PASS, PASS, FAIL; "E" ERROR)."""
    code = {"P": "PASS", "F": "FAIL", "E": "ERROR"}
    rows = [{"id": f"{case}-{t}", "dimension": DIM, "case_id": case, "trial": t, "status": code[s],
             "evaluator": "h", "agent_output": f"run of {version}: {case}/{t}"}
            for case, trials in cases.items() for t, s in enumerate(trials)]
    if order is not None:
        rows = [rows[i] for i in order]
    return sk.evaluate(rows, policy=policy() if pol is None else pol, agent_name="agent", agent_version=version)


def run(card, db):
    final = with_comparison(card, compare(card, db))
    record(final, db)
    return final


# --------------------------------------------------------------------------- the acceptance fixture
def test_paired_detects_a_five_point_drop_the_pooled_method_misses(tmp_path):
    """40 cases × 3 trials; the candidate loses one trial on 6 of the same cases: −5 points.

    Pooled over 120 trials, the Newcombe interval of the difference straddles 0,
    so ``newcombe`` sees noise. Case by case, 34
    differences are 0 and 6 are −1/3: the t interval of their mean is
    (−0.089, −0.011), wholly below 0, so ``paired`` sees the drop.
    """
    db = tmp_path / "history.sqlite"
    baseline = {f"case-{i:02d}": "PPP" if i < 30 else "PPF" for i in range(40)}
    candidate = dict(baseline)
    for i in range(6):
        candidate[f"case-{i:02d}"] = "PFP"
    run(card_of(baseline, "1"), db)
    card = card_of(candidate, "2")
    rates = card.dimensions.loc[DIM, "rate"], 110 / 120
    assert rates[0] == pytest.approx(rates[1] - 0.05)

    interval = compare(card, db, regression={"required": True, "method": "newcombe"})
    paired = compare(card, db, regression={"required": True, "method": "paired"})
    (i_entry,), (p_entry,) = interval["regressions"], paired["regressions"]
    assert interval["status"] == "passed" and not i_entry["regressed"]
    assert i_entry["ci_low"] < i_entry["difference"] < 0 < i_entry["ci_high"]
    assert paired["status"] == "regressed" and p_entry["regressed"]
    assert with_comparison(card, paired).decision == "FAIL"
    assert p_entry["shared_cases"] == i_entry["shared_cases"] == 40
    assert p_entry["difference"] == pytest.approx(-0.05)
    assert p_entry["method_used"] == "paired" and p_entry["ci_low"] < -0.05 < p_entry["ci_high"] < 0
    assert p_entry["ci_high"] == pytest.approx(-0.011449407343790, abs=1e-12)
    # The one-sided paired t-test (SPEC §18), from SciPy: the same m − 1 dof test as the interval.
    from scipy import stats

    expected = stats.ttest_1samp([-1 / 3] * 6 + [0.0] * 34, 0.0, alternative="less").pvalue
    assert p_entry["p_value"] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert p_entry["p_adjusted"] == p_entry["p_value"] < 0.025  # Holm over one dimension
    assert paired["comparisons"] == 1 and paired["alpha"] == 0.025 and paired["multiplicity"] == "holm"
    assert paired["detail"].startswith(f"regressed against record {paired['baseline']['id']} (paired, Holm at 2.5%)")
    json.dumps(paired, allow_nan=False)


# --------------------------------------------------------------------------- unusable
def test_paired_with_one_shared_case_is_unusable(tmp_path):
    db = tmp_path / "history.sqlite"
    pol = policy(min_coverage=0.0)
    run(card_of({"a": "PP", "b": "PP", "c": "PF"}, "1", pol=pol), db)
    # The same suite; only case a was measured this time (b and c errored).
    card = card_of({"a": "PP", "b": "EE", "c": "EE"}, "2", pol=pol)
    comp = compare(card, db)
    assert comp["status"] == "unusable"
    assert "1 case measured in both runs" in comp["detail"] and "at least 2" in comp["detail"]
    (entry,) = comp["regressions"]
    assert entry["status"] == "undefined" and entry["shared_cases"] == 1 and entry["ci_high"] is None
    assert with_comparison(card, comp).decision == "INCOMPLETE"


def test_paired_with_two_shared_cases_compares(tmp_path):
    db = tmp_path / "history.sqlite"
    pol = policy(min_coverage=0.0)
    run(card_of({"a": "PP", "b": "PP", "c": "PF"}, "1", pol=pol), db)
    card = card_of({"a": "PP", "b": "PF", "c": "EE"}, "2", pol=pol)
    (entry,) = compare(card, db)["regressions"]
    assert entry["status"] == "ok" and entry["shared_cases"] == 2 and entry["difference"] == -0.25


# --------------------------------------------------------------------------- an unchanged agent
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cases=st.lists(st.text("PFE", min_size=1, max_size=4), min_size=2, max_size=10),
    data=st.data(),
)
def test_paired_never_flags_an_unchanged_agent(cases, data):
    assume(sum(1 for trials in cases if set(trials) != {"E"}) >= 2)  # at least 2 measured cases
    pol = policy(min_coverage=0.0, thresholds={DIM: 0.0})
    baseline = {f"c{i}": trials for i, trials in enumerate(cases)}
    # A re-run with the same result per case: trials in another order, new outputs, rows shuffled.
    rerun = {case: "".join(data.draw(st.permutations(trials))) for case, trials in baseline.items()}
    size = sum(map(len, cases))
    order = data.draw(st.permutations(range(size)))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "history.sqlite"
        first = run(card_of(baseline, "1", pol=pol), db)
        assert first.comparison["status"] == "missing"
        for version, cards in (("2", rerun), ("3", baseline)):
            comp = compare(card_of(cards, version, pol=pol, order=order), db)
            assert comp["status"] == "passed", comp["detail"]
            (entry,) = comp["regressions"]
            assert not entry["regressed"]
            assert entry["ci_low"] <= 0.0 <= entry["ci_high"]  # the paired interval contains 0
            assert entry["difference"] == entry["ci_low"] == entry["ci_high"] == 0.0
