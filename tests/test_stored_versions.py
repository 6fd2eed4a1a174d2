"""A stored scorecard's SPEC §18 numbers recomputed before it is shown, and version-1 files still read (SPEC §20).

``tests/data/v1/scorecard.json`` was written by scorekit at ecf8f4a (schema_version 1, before
SPEC §18) from the bundled example: its ``ci_low``/``ci_high`` are Wilson, its ``mde`` is one-sided
at 1 − confidence, its policy records ``regression.method: interval`` and two of its PASS
verdicts (cost, latency) are ones missing rows could flip under today's rules.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

import scorekit as sk
from scorekit._stored import check_scorecard

V1 = Path(__file__).parent / "data" / "v1" / "scorecard.json"
DIM = "task_completion"


def _v1() -> dict:
    return json.loads(V1.read_text("utf-8"))


def _rows():
    """Repeated trials (a clustered headline), 2 crashed trials, and a second dimension."""
    rows = []
    for c in range(20):
        statuses = ["FAIL"] * 3 if c == 0 else ["PASS"] * 3  # one case fails throughout: deff > 1
        if c == 19:
            statuses[2] = "ERROR"
        rows += [{"id": f"t{c}-{t}", "dimension": DIM, "case_id": f"c{c:02d}", "trial": t, "status": s,
                  "evaluator": "harness"} for t, s in enumerate(statuses)]
    rows += [{"id": f"p{c}", "dimension": "pii", "case_id": f"c{c:02d}", "status": "PASS", "evaluator": "harness"}
             for c in range(30)]
    return rows


POLICY = {"gate": {"thresholds": {DIM: 0.9, "pii": 0.9}, "min_coverage": 0.9}}


@pytest.fixture(scope="module")
def card() -> dict:
    data = sk.evaluate(_rows(), policy=POLICY, agent_name="a", agent_version="1").to_dict()
    d = data["dimensions"][1]
    assert d["name"] == DIM and d["interval_method"] == "wilson_clustered" and d["rate_bounds"] is not None
    assert d["verdict"] == "PASS" and d["assurance"] < 0.95 and d["cases_to_settle"] is not None
    return data


def _refused(data, field):
    with pytest.raises(sk.InputError, match=rf"^card: {re.escape(field)} is "):
        check_scorecard(data, "card")


def test_a_consistent_version_2_card_is_accepted(card):
    check_scorecard(card, "card")


def _dim_edit(key, value):
    def edit(data):
        data["dimensions"][1][key] = value
    return edit


TAMPERED = {
    "wilson_low": (_dim_edit("wilson_low", 0.5), "$.dimensions[1].wilson_low"),
    "interval_method": (_dim_edit("interval_method", "wilson"), "$.dimensions[1].interval_method"),
    "headline set to Wilson": (lambda d: d["dimensions"][1].update(ci_low=d["dimensions"][1]["wilson_low"]),
                               "$.dimensions[1].ci_low"),
    "rate_bounds": (_dim_edit("rate_bounds", [0.9, 0.95]), "$.dimensions[1].rate_bounds[0]"),
    "rate_bounds dropped": (_dim_edit("rate_bounds", None), "$.dimensions[1].rate_bounds"),
    "missing_could_flip": (_dim_edit("missing_could_flip", True), "$.dimensions[1].missing_could_flip"),
    "assurance": (_dim_edit("assurance", 0.99), "$.dimensions[1].assurance"),
    "cases_to_settle": (_dim_edit("cases_to_settle", 21), "$.dimensions[1].cases_to_settle"),
    "mde at the old level": (_dim_edit("mde", 0.05), "$.dimensions[1].mde"),
    "trials_vary": (_dim_edit("trials_vary", False), "$.dimensions[1].trials_vary"),
    "pass_1 not a proportion": (_dim_edit("pass_1", 1.5), "$.dimensions[1].pass_1"),
    "pass_1 off the rate": (lambda d: d["dimensions"][0].update(pass_1=0.5), "$.dimensions[0].pass_1"),
    "pass_k_ci where no case reaches k": (lambda d: d["dimensions"][0]["pass_k_ci"].update({"2": [0.0, 1.0]}),
                                          "$.dimensions[0].pass_k_ci['2']"),
    "pass_k_ci not around pass^k": (lambda d: d["dimensions"][1]["pass_k_ci"].update({"2": [0.0, 0.1]}),
                                    "$.dimensions[1].pass_k_ci['2']"),
    "judge_agreement units": (_dim_edit("judge_agreement", {"krippendorff_alpha": 0.5, "unanimous_share": 0.5,
                                                            "units": -1}), "$.dimensions[1].judge_agreement.units"),
    "judge_agreement alpha": (_dim_edit("judge_agreement", {"krippendorff_alpha": 1.5, "unanimous_share": 0.5,
                                                            "units": 3}),
                              "$.dimensions[1].judge_agreement.krippendorff_alpha"),
    "error_rates alpha": (lambda d: d["error_rates"].update(alpha=0.05), "$.error_rates.alpha"),
    "error_rates comparisons": (lambda d: d["error_rates"].update(comparisons=3), "$.error_rates.comparisons"),
    "error_rates multiplicity": (lambda d: d["error_rates"].update(multiplicity="none"),
                                 "$.error_rates.multiplicity"),
    "error_rates dropped": (lambda d: d.pop("error_rates"), "$.error_rates"),
    "a later layout": (lambda d: d.update(schema_version=3), "$.schema_version"),
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_every_new_number_is_recomputed_and_a_mismatch_refused(card, case):
    edit, field = TAMPERED[case]
    data = copy.deepcopy(card)
    edit(data)
    _refused(data, field)


def test_judge_agreement_of_a_sound_shape_is_accepted(card):
    data = copy.deepcopy(card)
    data["dimensions"][1]["judge_agreement"] = {"krippendorff_alpha": -0.2, "unanimous_share": 0.75, "units": 4}
    check_scorecard(data, "card")
    data["dimensions"][1]["judge_agreement"]["krippendorff_alpha"] = None
    check_scorecard(data, "card")


def test_a_pass_that_missing_rows_could_flip_is_refused_unless_the_policy_ignores_them():
    rows = [{"id": f"r{i}", "dimension": DIM, "status": s, "evaluator": "h"}
            for i, s in enumerate(["PASS"] * 25 + ["FAIL"] * 8 + ["ERROR"] * 3)]
    policy = {"gate": {"thresholds": {DIM: 0.7}, "min_coverage": 0.9}}
    bound = sk.evaluate(rows, policy=policy).to_dict()
    assert bound["dimensions"][0]["verdict"] == "INCOMPLETE"
    check_scorecard(bound, "card")
    edited = copy.deepcopy(bound)
    edited["dimensions"][0]["verdict"] = "PASS"
    edited.update(decision="PASS", measured_decision="PASS", overall_pass=True)
    _refused(edited, "$.dimensions[0].verdict")
    policy["gate"]["missing_evidence"] = "ignore"
    ignored = sk.evaluate(rows, policy=policy).to_dict()
    assert ignored["decision"] == "PASS" and ignored["dimensions"][0]["missing_could_flip"] is True
    check_scorecard(ignored, "card")
    edited = copy.deepcopy(ignored)
    edited["policy"]["gate"]["missing_evidence"] = "bound"  # the recorded policy decides which rule applies
    _refused(edited, "$.dimensions[0].verdict")


# --------------------------------------------------------------------------- schema_version 1
def test_a_version_1_file_is_read_by_its_own_rules():
    data = _v1()
    assert data["schema_version"] == 1 and data["policy"]["regression"]["method"] == "interval"
    cost = next(d for d in data["dimensions"] if d["name"] == "cost")
    assert cost["verdict"] == "PASS" and cost["errors"] > 0  # missing rows could flip it under version 2
    check_scorecard(data, "v1")


def test_a_version_1_file_is_refused_when_edited():
    data = _v1()
    d = data["dimensions"][0]
    assert d["ci_low"] != d["ci_cluster_low"]
    d["ci_low"] = d["ci_cluster_low"]  # version 1's headline interval is Wilson
    _refused_v1(data, "$.dimensions[0].ci_low")
    data = _v1()
    data["dimensions"][0]["mde"] *= 1.5  # one-sided at 1 - confidence: recomputed
    _refused_v1(data, "$.dimensions[0].mde")


def _refused_v1(data, field):
    with pytest.raises(sk.InputError, match=rf"^v1: {re.escape(field)} is "):
        check_scorecard(data, "v1")


def test_a_version_1_file_is_reported_and_compared(run_cli, tmp_path):
    code, out, err = run_cli("report", V1, "--out-dir", tmp_path / "r")
    assert code == 0, err
    assert (tmp_path / "r" / "scorecard.md").exists()
    new = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), agent_name="email-assistant",
                      agent_version="1.1.0").write(tmp_path / "new")["json"]
    code, out, err = run_cli("compare", V1, new, "--out-dir", tmp_path / "c")
    assert code == 0, err
    code, out, err = run_cli("compare", new, V1, "--out-dir", tmp_path / "c2")
    assert code == 0, err


def test_a_zero_tolerance_threshold_must_store_no_assurance():
    rows = [{"id": f"r{i}", "dimension": "pii", "status": "PASS", "evaluator": "h"} for i in range(30)]
    data = sk.evaluate(rows, policy={"gate": {"thresholds": {"pii": 1.0}}}).to_dict()
    assert data["dimensions"][0]["assurance"] is None
    check_scorecard(data, "card")
    data["dimensions"][0]["assurance"] = 0.0
    _refused(data, "$.dimensions[0].assurance")
