"""``scorekit.evaluate``: scope, partial scans, validation, the Scorecard contract (SPEC §5, §7, §8, §12)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import scorekit as sk

DIM = "helpfulness"
HELPFUL = {"gate": {"thresholds": {DIM: 0.5}}}


def pre(rid, status="PASS", dimension=DIM, **extra):
    return {"id": rid, "dimension": dimension, "status": status, "evaluator": "harness", **extra}


def task(rid, output="refund issued", must_include=("refund",), **extra):
    return {"id": rid, "dimension": "task_completion", "must_include": list(must_include), "agent_output": output,
            **extra}


def mixed_rows():
    """Rows touching every part of the scorecard: trials, controls, judges, errors, flaky cases."""
    rows = []
    for case in ("c1", "c2", "c3"):
        for t in range(3):
            out = "refund issued" if not (case == "c2" and t == 1) else "sorry"
            rows.append(task(f"{case}-t{t}", out, case_id=case, trial=t))
    rows += [
        {"id": "pii-1", "dimension": "pii", "agent_output": "Your meeting is at ten."},
        {"id": "pii-2", "dimension": "pii", "agent_output": "Write to omar@northwind.example"},
        {"id": "pii-kb", "dimension": "pii", "agent_output": "SSN 123-45-6789", "tags": ["known-bad"]},
        {"id": "j1", "dimension": DIM, "judge_criteria": "helpful",
         "judge_votes": [{"judge": "a", "verdict": "PASS"}, {"judge": "b", "score": 5}, {"judge": "c", "score": 2}]},
        {"id": "j2", "dimension": DIM, "judge_criteria": "helpful",
         "judge_votes": [{"judge": "a", "verdict": "PASS"}, {"judge": "b", "verdict": "FAIL"}]},
        pre("h3", "ERROR", reason="timeout"),
        {"id": "s1", "dimension": "action_correctness", "expected_state": {"done": True}},
    ]
    return rows


MIXED_POLICY = {"gate": {"thresholds": {DIM: 0.5}, "min_coverage": 0.5}, "pass_k": [1, 2, 3]}


def without_generated_at(d):
    d = dict(d)
    d.pop("generated_at", None)
    return d


# =========================================================================== scope
def test_scope_is_required_union_policy_thresholds_union_inferred_rows():
    rows = [pre("a"), task("t1")]
    card = sk.evaluate(rows, policy={"gate": {"thresholds": {DIM: 0.5, "tone": 0.7}}})
    assert card.scope["dimensions"] == ["helpfulness", "task_completion", "tone"]
    assert card.scope["inferred"] is True
    assert card.scope["missing_dimensions"] == ["tone"]
    assert card.decision == "INCOMPLETE"


def test_declared_required_dimensions_stop_inference():
    rows = [pre("a"), task("t1"), pre("x", dimension="tone", status="FAIL")]
    card = sk.evaluate(rows, policy={"gate": {"required_dimensions": [DIM, "task_completion"],
                                              "thresholds": {DIM: 0.5}}})
    assert card.scope["inferred"] is False
    assert card.scope["required_dimensions"] == [DIM, "task_completion"]
    assert card.scope["dimensions"] == [DIM, "task_completion"]
    # A measured dimension outside the declared scope is reported but does not decide.
    assert card.dimensions.loc["tone", "verdict"] == "NOT_IN_SCOPE"
    assert bool(card.dimensions.loc["tone", "in_scope"]) is False
    assert card.decision == "PASS"


def test_builtin_default_thresholds_never_extend_the_scope():
    card = sk.evaluate([pre("a")], policy=HELPFUL)
    assert card.scope["dimensions"] == [DIM]
    for name in ("task_completion", "tool_call", "action_correctness", "pii", "injection", "cost", "latency"):
        assert name not in card.dimensions.index
    assert card.decision == "PASS"


def test_scope_is_recorded_in_to_dict():
    card = sk.evaluate([pre("a")], policy={"gate": {"required_dimensions": [DIM], "thresholds": {DIM: 0.5}}})
    scope = card.to_dict()["scope"]
    assert scope["required_dimensions"] == [DIM]
    assert scope["inferred"] is False
    assert scope["missing_dimensions"] == []


# =========================================================================== partial scans
def test_limit_scores_only_the_first_n_rows_and_decides_triage():
    rows = [pre(f"r{i}") for i in range(10)]
    card = sk.evaluate(rows, policy=HELPFUL, limit=4)
    assert card.decision == "TRIAGE"
    assert card.overall_pass is False
    assert card.evidence["id"].tolist() == ["r0", "r1", "r2", "r3"]
    assert card.dimensions.loc[DIM, "n"] == 4
    # limit >= the number of rows is still a partial scan by declaration.
    assert sk.evaluate(rows, policy=HELPFUL, limit=100).decision == "TRIAGE"


def test_limit_on_a_file_counts_rows_not_blank_lines(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(["", json.dumps(pre("a")), "", json.dumps(pre("b")), json.dumps(pre("c"))]) + "\n",
                    encoding="utf-8")
    card = sk.evaluate(str(path), policy=HELPFUL, limit=2)
    assert card.evidence["id"].tolist() == ["a", "b"]
    assert card.decision == "TRIAGE"


@pytest.mark.parametrize("limit", [0, -1, True, 1.5, "3"])
def test_limit_must_be_a_positive_integer(limit):
    with pytest.raises((ValueError, TypeError)):
        sk.evaluate([pre("a")], policy=HELPFUL, limit=limit)


# =========================================================================== validation inside evaluate
def test_case_definition_mismatch_makes_those_rows_invalid():
    rows = [
        task("c-t0", case_id="c", trial=0),
        task("c-t1", case_id="c", trial=1, must_include=["refund", "today"]),
        task("d-t0", case_id="d", trial=0),
        task("d-t1", case_id="d", trial=1, agent_output="refund later"),  # measured field differs: fine
    ]
    card = sk.evaluate(rows)
    ev = card.evidence.set_index("id")
    assert ev.loc[["c-t0", "c-t1"], "label"].astype(str).tolist() == ["invalid", "invalid"]
    assert set(ev.loc[["c-t0", "c-t1"], "reason"]) == {"case_definition_mismatch"}
    assert ev.loc[["d-t0", "d-t1"], "label"].astype(str).tolist() == ["labeled", "labeled"]
    problems = [p for p in card.validation.problems if p.field == "case_id"]
    assert {p.line for p in problems} == {1, 2}
    assert any("must_include" in p.message for p in problems)
    assert card.decision == "INCOMPLETE"


def test_case_definition_types_are_significant_but_key_order_is_not():
    typed = [
        {
            "id": "a",
            "dimension": "action_correctness",
            "case_id": "c",
            "expected_state": {"n": 1},
            "observed_state": {"n": 1},
        },
        {
            "id": "b",
            "dimension": "action_correctness",
            "case_id": "c",
            "expected_state": {"n": 1.0},
            "observed_state": {"n": 1.0},
        },
    ]
    assert set(sk.evaluate(typed).evidence["label"].astype(str)) == {"invalid"}
    ordered = [
        {"id": "a", "dimension": "action_correctness", "case_id": "c", "expected_state": {"x": 1, "y": 2},
         "observed_state": {"x": 1, "y": 2}},
        {"id": "b", "dimension": "action_correctness", "case_id": "c", "expected_state": {"y": 2, "x": 1},
         "observed_state": {"x": 1, "y": 2}},
    ]
    card = sk.evaluate(ordered)
    assert set(card.evidence["label"].astype(str)) == {"labeled"}
    assert card.decision == "PASS"


def test_same_case_id_on_different_dimensions_is_not_a_mismatch():
    rows = [task("t", case_id="c"), {"id": "p", "dimension": "pii", "case_id": "c", "agent_output": "hi"}]
    assert set(sk.evaluate(rows).evidence["label"].astype(str)) == {"labeled"}


def test_duplicate_ids_are_invalid():
    rows = [pre("a"), pre("b"), pre("a", status="FAIL"), pre("a", status="PASS")]
    card = sk.evaluate(rows, policy=HELPFUL)
    labels = card.evidence["label"].astype(str).tolist()
    # The repeated rows are invalid; which of several rows claiming one id is right cannot
    # be known, so the first may be invalid too (it is, so the result is order-free).
    assert labels[1] == "labeled"
    assert labels[2:] == ["invalid", "invalid"]
    lines = {p.line for p in card.validation.problems if p.field == "id"}
    assert {3, 4} <= lines <= {1, 3, 4}
    assert all("duplicate id 'a'" in p.message for p in card.validation.problems if p.field == "id")
    labeled = labels.count("labeled")
    assert card.dimensions.loc[DIM, "passes"] == labeled  # an id is never counted twice
    assert card.decision == "INCOMPLETE"
    scan = sk.evaluate(rows, policy={**HELPFUL, "purpose": "exploratory"})
    assert scan.decision == "TRIAGE"
    assert scan.dimensions.loc[DIM, ["n", "errors"]].tolist() == [labeled, 0]


def test_release_counts_invalid_and_unlabeled_rows_as_missing_evidence_exploratory_drops_them():
    rows = [task(f"t{i}") for i in range(4)] + [task("u", must_include=()), task("bad", trial="x")]
    release = sk.evaluate(rows)
    d = release.dimensions.loc["task_completion"]
    assert (d["n"], d["errors"]) == (4, 2)
    assert release.decision == "INCOMPLETE"
    scan = sk.evaluate(rows, policy={"purpose": "exploratory"})
    d = scan.dimensions.loc["task_completion"]
    assert (d["n"], d["errors"]) == (4, 0)
    assert (scan.validation.unlabeled, scan.validation.invalid) == (1, 1)
    assert len(scan.validation.problems) == 2


# Regressions of bugs found by this campaign (each crashed with KeyError/ValueError).
def test_exploratory_scan_whose_every_row_is_dropped_is_triage():
    rows = [task("u1", must_include=()), pre("bad", status="SKIPPED")]
    card = sk.evaluate(rows, policy={"purpose": "exploratory"})
    assert card.decision == "TRIAGE"
    assert (card.validation.unlabeled, card.validation.invalid) == (1, 1)


def test_release_with_only_rows_without_a_dimension_is_incomplete():
    card = sk.evaluate([{"id": "x"}, {"id": "y", "dimension": 3}])
    assert card.decision == "INCOMPLETE"
    assert card.validation.invalid == 2


def test_release_with_only_control_rows_is_not_pass():
    # No agent evidence at all: nothing to release on.
    rows = [{"id": "kb", "dimension": "pii", "agent_output": "mail jane@example.com", "tags": ["known-bad"]}]
    card = sk.evaluate(rows)
    assert card.decision == "INCOMPLETE"


def test_rows_without_a_string_id_are_invalid_not_a_crash():
    rows = [pre("ok"), {"dimension": DIM, "status": "PASS", "evaluator": "h"},
            {"id": 7, "dimension": DIM, "status": "PASS", "evaluator": "h"}]
    card = sk.evaluate(rows, policy=HELPFUL)
    assert card.evidence["label"].astype(str).tolist() == ["labeled", "invalid", "invalid"]
    assert card.decision == "INCOMPLETE"
    assert sk.evaluate(rows, policy={**HELPFUL, "purpose": "exploratory"}).decision == "TRIAGE"


def test_failed_control_outside_the_scope_still_blocks_release():
    rows = [{"id": "t", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"},
            {"id": "kb", "dimension": "pii", "agent_output": "nothing personal", "tags": ["known-bad"]}]
    card = sk.evaluate(rows)
    assert "pii" not in card.scope["dimensions"]
    assert any(f["reason"] == "control_failed" and f["severity"] == "blocker" for f in card.findings)
    assert card.decision != "PASS"


# =========================================================================== the Scorecard contract
TOP_KEYS = {"schema_version", "scorekit_version", "generated_at", "agent", "decision", "overall_pass", "purpose",
            "scope", "dimensions", "controls", "findings", "validation", "coverage", "comparison", "hashes", "judges"}
DIMENSION_KEYS = {"name", "verdict", "n", "passes", "fails", "errors", "abstains", "rate", "ci_low", "ci_high",
                  "threshold", "pass_k", "consistency", "flaky_cases"}


def test_to_dict_has_every_spec_key():
    card = sk.evaluate(mixed_rows(), policy=MIXED_POLICY, agent_name="mail-bot", agent_version="1.2.3")
    d = card.to_dict()
    assert TOP_KEYS <= set(d)
    assert d["agent"] == {"name": "mail-bot", "version": "1.2.3"}
    assert {"required_dimensions", "inferred", "missing_dimensions"} <= set(d["scope"])
    assert isinstance(d["scope"]["inferred"], bool)
    for entry in d["dimensions"]:
        assert DIMENSION_KEYS <= set(entry), entry["name"]
        assert all(isinstance(k, str) for k in entry["pass_k"])
        assert entry["n"] == entry["passes"] + entry["fails"]
    assert set(d["dimensions"][0]["pass_k"]) == {"1", "2", "3"}
    assert d["controls"] and all({"id", "dimension", "passed"} <= set(c) for c in d["controls"])
    assert d["findings"] and all({"dimension", "reason", "severity", "case_ids", "suggested_fix"} <= set(f)
                                 for f in d["findings"])
    assert {"strict", "labeled", "unlabeled", "invalid", "problems"} <= set(d["validation"])
    assert {"status", "baseline", "regressions"} <= set(d["comparison"])
    assert {"suite", "policy", "results", "evidence"} <= set(d["hashes"])
    assert d["decision"] in ("PASS", "FAIL", "INCOMPLETE", "TRIAGE", "SELF_TEST")
    assert d["overall_pass"] is (d["decision"] == "PASS")


def test_to_dict_never_holds_nan():
    # Skipped dimension (rate NaN), no repeated cases (consistency NaN), pass^k without k trials.
    card = sk.evaluate([pre("a")], policy={"gate": {"required_dimensions": [DIM, "pii"], "thresholds": {DIM: 0.5}},
                                           "pass_k": [1, 8]})
    text = json.dumps(card.to_dict(), allow_nan=False)
    assert "NaN" not in text and "Infinity" not in text
    d = card.to_dict()
    pii = next(e for e in d["dimensions"] if e["name"] == "pii")
    assert pii["rate"] is None and pii["ci_low"] is None and pii["consistency"] is None
    assert pii["pass_k"] == {"1": None, "8": None}
    json.dumps(sk.evaluate(mixed_rows(), policy=MIXED_POLICY).to_dict(), allow_nan=False)


def test_dimensions_frame_is_indexed_by_name_and_matches_to_dict():
    card = sk.evaluate(mixed_rows(), policy=MIXED_POLICY)
    assert card.dimensions.index.name == "name"
    d = card.to_dict()
    assert [e["name"] for e in d["dimensions"]] == list(card.dimensions.index)
    for entry in d["dimensions"]:
        row = card.dimensions.loc[entry["name"]]
        for key in ("verdict", "n", "passes", "fails", "errors", "abstains"):
            assert entry[key] == row[key], (entry["name"], key)
        for key in ("rate", "ci_low", "ci_high"):
            if entry[key] is None:
                assert math.isnan(row[key])
            else:
                assert entry[key] == pytest.approx(row[key], abs=0, rel=0)


def test_evidence_has_the_spec_columns_and_one_row_per_input_row():
    rows = mixed_rows()
    card = sk.evaluate(rows, policy=MIXED_POLICY)
    ev = card.evidence
    assert {"id", "case_id", "trial", "dimension", "status", "reason", "label", "control"} <= set(ev.columns)
    assert ev["id"].tolist() == [r["id"] for r in rows]
    assert set(ev["status"].astype(str)) <= {"PASS", "FAIL", "ERROR", "ABSTAIN"}
    assert set(ev["label"].astype(str)) <= {"labeled", "unlabeled", "invalid"}
    assert ev["control"].dtype == bool
    assert ev.set_index("id").loc["c1-t2", "case_id"] == "c1"
    assert ev.set_index("id").loc["pii-1", "case_id"] == "pii-1"  # defaults to id
    assert int(ev.set_index("id").loc["c1-t2", "trial"]) == 2
    # Every non-PASS row carries a reason code.
    non_pass = ev[ev["status"].astype(str) != "PASS"]
    assert non_pass["reason"].notna().all()


def test_evidence_summary_equals_the_dimensions_table():
    card = sk.evaluate(mixed_rows(), policy=MIXED_POLICY)
    summary = card.evidence.scorekit.summary()
    dims = card.dimensions
    for name, row in summary.iterrows():
        for col in ("n", "passes", "fails", "errors", "abstains"):
            assert row[col] == dims.loc[name, col], (name, col)
        for col in ("rate", "ci_low", "ci_high", "coverage"):
            np.testing.assert_allclose(row[col], dims.loc[name, col], rtol=0, atol=1e-12, equal_nan=True)
    # Dimensions not in the summary have no agent rows at all.
    for name in set(dims.index) - set(summary.index):
        assert dims.loc[name, "n"] == 0 and dims.loc[name, "errors"] == 0


def test_pass_k_and_consistency_come_from_repeated_trials():
    card = sk.evaluate(mixed_rows(), policy=MIXED_POLICY)
    tc = card.dimensions.loc["task_completion"]
    # c1, c3: 3/3; c2: 2/3 → pass^2 = (1 + 1 + 1/3) / 3
    assert tc["pass_k"]["2"] == pytest.approx((1 + 1 + 1 / 3) / 3)
    assert tc["consistency"] == pytest.approx(2 / 3)
    assert tc["flaky_cases"] == ["c2"]


def test_coverage_is_measured_over_all_agent_rows_in_scope():
    card = sk.evaluate(mixed_rows(), policy=MIXED_POLICY)
    dims = card.dimensions[card.dimensions["in_scope"].astype(bool)]
    measured = dims["n"].sum()
    total = (dims["n"] + dims["errors"] + dims["abstains"]).sum()
    assert card.coverage == pytest.approx(measured / total)


def test_scorecard_is_deterministic():
    a = sk.evaluate(mixed_rows(), policy=MIXED_POLICY).to_dict()
    b = sk.evaluate(mixed_rows(), policy=MIXED_POLICY).to_dict()
    assert json.dumps(without_generated_at(a), sort_keys=True) == json.dumps(without_generated_at(b), sort_keys=True)


def test_dataframe_list_and_file_inputs_agree(tmp_path):
    rows = mixed_rows()
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    from_list = sk.evaluate(rows, policy=MIXED_POLICY).to_dict()
    from_file = sk.evaluate(str(path), policy=MIXED_POLICY).to_dict()
    for key in ("decision", "dimensions", "controls", "findings", "coverage", "judges", "scope"):
        assert from_list[key] == from_file[key], key


def test_write_produces_scorecard_json_equal_to_to_dict(tmp_path):
    card = sk.evaluate(mixed_rows(), policy=MIXED_POLICY)
    paths = card.write(tmp_path / "out")
    data = json.loads((tmp_path / "out" / "scorecard.json").read_text(encoding="utf-8"))
    assert paths["json"] == tmp_path / "out" / "scorecard.json"
    assert data == card.to_dict()


def test_policy_may_be_a_yaml_file(tmp_path):
    path = tmp_path / "policy.yml"
    path.write_text("purpose: release\ngate:\n  thresholds:\n    helpfulness: 0.5\n", encoding="utf-8")
    assert sk.evaluate([pre("a")], policy=str(path)).decision == "PASS"


def test_bad_policy_is_a_policy_error():
    with pytest.raises(sk.PolicyError):
        sk.evaluate([pre("a")], policy={"gate": {"thresholds": {DIM: 1.5}}})
    with pytest.raises(sk.PolicyError):
        sk.evaluate([pre("a")], policy={"gate": {"thresholds": {DIM: float("nan")}}})
    with pytest.raises(sk.PolicyError):
        sk.evaluate([pre("a")], policy={"purpose": "ship-it"})


def test_bundled_example_keeps_controls_out_of_agent_scores():
    card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    ev = card.evidence
    controls = ev[ev["control"]]
    assert len(card.controls) == len(controls) > 0
    agent = ev[~ev["control"] & ev["included"]]
    counts = agent.groupby("dimension", observed=True)["status"].apply(lambda s: int((s.astype(str) == "PASS").sum()))
    for name, passes in counts.items():
        assert card.dimensions.loc[name, "passes"] == passes
    assert card.decision in ("PASS", "FAIL", "INCOMPLETE")
    assert card.overall_pass is (card.decision == "PASS")


def test_dataframe_accessor_evaluate_is_evaluate():
    frame = pd.DataFrame([pre("a"), pre("b", "FAIL")])
    card = frame.scorekit.evaluate(HELPFUL)
    assert card.decision == "PASS"
    assert card.dimensions.loc[DIM, ["n", "passes"]].tolist() == [2, 1]


def test_the_kernel_s_duplicate_check_matches_the_row_walk() -> None:
    """The kernel's duplicate check (hashes first, then the candidates exactly) finds what
    :func:`duplicate_identities` finds walking the rows (ids twice; a trial twice among valid
    rows), whatever the cut into partitions."""
    import pyarrow as pa
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from scorekit._spool import Spool
    from scorekit._validate import duplicate_identities
    from scorekit.kernel import InProcess, Shard
    from scorekit.kernel._judge import judge
    from scorekit.kernel._repeated import find_repeated
    from scorekit.kernel._shard import identities

    row = st.tuples(st.sampled_from(["a", "b", "c", "d", None]), st.sampled_from(["c1", "c2"]),
                    st.sampled_from(["pii", "cost", None]), st.sampled_from([0, 1, None]),
                    st.sampled_from(["labeled", "unlabeled", "invalid"]))

    def shard(frame: pd.DataFrame) -> Shard:
        definitions = pa.chunked_array([pa.array([None] * len(frame), pa.dictionary(pa.int32(), pa.binary()))])
        return Shard(source="s", strict=True, counting=frame.reset_index(drop=True), definitions=definitions,
                     spool=Spool(), evidence_digests=bytearray(32 * len(frame)))

    @settings(max_examples=200, deadline=None)
    @given(rows=st.lists(row, max_size=8), cut=st.integers(0, 8))
    def check(rows: list[tuple[object, ...]], cut: int) -> None:
        ids, cases, dims, trials, labels = (list(c) for c in zip(*rows, strict=True)) if rows else ([],) * 5
        lines = list(range(1, len(rows) + 1))
        # As the kernel counts them: case and dimension categorical (codes, unsorted categories).
        frame = pd.DataFrame({
            "id": pd.array(ids, dtype="str"), "dimension": pd.Categorical(dims, categories=["pii", "cost"]),
            "case_id": pd.Categorical(cases, categories=["c2", "c1"]), "trial": pd.array(trials, dtype="Int64"),
            "label": pd.Categorical(labels, categories=["labeled", "unlabeled", "invalid"]),
            "line": np.asarray(lines, dtype=np.int64),
        })
        want = duplicate_identities(ids, cases, dims, trials, [label != "invalid" for label in labels], lines, "s")
        shards = [shard(frame.iloc[:cut]), shard(frame.iloc[cut:])]
        runner = InProcess()
        repeated = find_repeated(runner, identities, shards, 3, len(rows))
        marks, problems, _ = judge(runner, shards, repeated, "s")
        found = sorted(p + (min(cut, len(rows)) if i else 0) for i, m in marks.items() for p in m[0])
        assert (found, problems) == want

    check()
