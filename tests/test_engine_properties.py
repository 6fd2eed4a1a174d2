"""Property tests of the evaluation engine (issue 3 acceptance, SPEC §1 fail-closed, §8).

1. No irregular row (ERROR/ABSTAIN, invalid, unlabeled, tie, incomplete panel,
   invalid judge value) is ever PASS in ``card.evidence``; a mock judge's or
   evaluator's votes count as cast, with reason ``mock_judge`` (SPEC §18).
2. Turning any PASS row into FAIL or ERROR never improves the decision
   (PASS > INCOMPLETE > FAIL; TRIAGE and SELF_TEST stay as they are).
3. The decision and ``to_dict()`` (minus ``generated_at`` and validation
   problem line numbers) do not depend on row order.
"""

from __future__ import annotations

import copy
import json
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import scorekit as sk

PANEL = ["a", "b", "c", "d"]
DIMS = ("helpfulness", "tone")
IRREGULAR_REASONS = {
    "invalid_row", "case_definition_mismatch", "panel_tie", "panel_incomplete", "judge_invalid_value",
    "duplicate_judge", "empty_completion_criteria", "missing_tool_contract", "missing_judge_criteria",
    "missing_observed_state", "missing_output",
}
RANK = {"PASS": 2, "INCOMPLETE": 1, "FAIL": 0}


def _votes(verdicts):
    """Votes of the first len(verdicts) panel judges (fewer than the panel: an incomplete panel)."""
    return [{"judge": j, "verdict": v} for j, v in zip(PANEL[: len(verdicts)], verdicts, strict=True)]


# kind -> (builder(rid, case, trial, dim, status), irregular?)
def _prescored(rid, case, trial, dim, status):
    return {"id": rid, "dimension": dim, "case_id": case, "trial": trial, "status": status, "evaluator": "harness"}


def _task(passing):
    def build(rid, case, trial, dim, status):
        return {"id": rid, "dimension": "task_completion", "case_id": f"t-{case}", "trial": trial,
                "must_include": ["refund"], "agent_output": "refund issued" if passing else "no luck"}
    return build


def _task_unlabeled(rid, case, trial, dim, status):
    return {"id": rid, "dimension": "task_completion", "case_id": f"u-{rid}", "must_include": [],
            "agent_output": "refund issued"}


def _invalid(rid, case, trial, dim, status):
    # Claims PASS but is invalid in one of several ways.
    variant = trial % 4
    row = _prescored(rid, case, trial, dim, "PASS")
    if variant == 0:
        row["cost_usd"] = float("nan")
    elif variant == 1:
        row["status"] = "pass"
    elif variant == 2:
        row["trial"] = -1
    else:
        row["input"] = {"n": 2**60}
    row["case_id"] = f"x-{rid}"
    return row


def _judged(verdicts, *, mock=False, extra=None):
    def build(rid, case, trial, dim, status):
        votes = _votes(verdicts)
        if extra is not None:
            votes.append(dict(extra))
        if mock:
            votes[-1]["mock"] = True
        return {"id": rid, "dimension": dim, "case_id": f"j-{rid}", "judge_criteria": "helpful and correct",
                "judge_votes": votes}
    return build


def _judged_unlabeled(rid, case, trial, dim, status):
    return {"id": rid, "dimension": dim, "case_id": f"j-{rid}", "judge_votes": _votes(["PASS"] * 4)}


def _state_missing(rid, case, trial, dim, status):
    return {"id": rid, "dimension": "action_correctness", "case_id": f"s-{rid}", "expected_state": {"ok": True}}


def _state(passing):
    def build(rid, case, trial, dim, status):
        return {"id": rid, "dimension": "action_correctness", "case_id": f"s-{rid}", "expected_state": {"ok": True},
                "observed_state": {"ok": True if passing else 1}}
    return build


KINDS = {
    # regular
    "prescored": (_prescored, None),  # irregular iff status is ERROR/ABSTAIN
    "task_pass": (_task(True), False),
    "task_fail": (_task(False), False),
    "judged_pass": (_judged(["PASS", "PASS", "PASS", "FAIL"]), False),
    "judged_fail": (_judged(["FAIL", "FAIL", "FAIL", "PASS"]), False),
    "state_pass": (_state(True), False),
    "state_fail": (_state(False), False),
    # irregular
    "task_unlabeled": (_task_unlabeled, True),
    "invalid": (_invalid, True),
    "judged_tie": (_judged(["PASS", "PASS", "FAIL", "FAIL"]), True),
    "judged_incomplete": (_judged(["PASS", "PASS", "PASS"]), True),
    "judged_invalid_value": (_judged(["PASS", "PASS", "PASS"], extra={"judge": "d", "score": 99}), True),
    "judged_float_score": (_judged(["PASS", "PASS", "PASS"], extra={"judge": "d", "score": 5.0}), True),
    "judged_duplicate": (_judged(["PASS", "PASS", "PASS", "PASS"], extra={"judge": "a", "verdict": "PASS"}), True),
    # a mock's votes count as cast (SPEC §18): PASS, with reason mock_judge, in a SELF_TEST
    "judged_mock_flag": (_judged(["PASS", "PASS", "PASS", "PASS"], mock=True), False),
    "judged_mock_name": (_judged(["PASS", "PASS", "PASS", "PASS"], extra={"judge": "Mock-x", "verdict": "PASS"}),
                         False),
    "judged_unlabeled": (_judged_unlabeled, True),
    "state_missing": (_state_missing, True),
}
REGULAR_KINDS = [k for k, (_, irregular) in KINDS.items() if irregular is not True and not k.startswith("judged_mock")]
MOCK_KINDS = {"judged_mock_flag", "judged_mock_name"}


@st.composite
def row_sets(draw, kinds=tuple(KINDS), min_size=1, max_size=14, controls=True):
    n = draw(st.integers(min_size, max_size))
    # One clean measured row always, so each evaluation has some agent evidence
    # (the empty case has its own tests in test_evaluate.py).
    rows = [_prescored("anchor", "anchor", 0, draw(st.sampled_from(DIMS)), "PASS")]
    irregular = {"anchor": False}
    for i in range(n):
        kind = draw(st.sampled_from(kinds))
        case = draw(st.sampled_from(["c0", "c1", "c2"]))
        dim = draw(st.sampled_from(DIMS))
        status = draw(st.sampled_from(["PASS", "PASS", "FAIL", "ERROR", "ABSTAIN"]))
        rid = f"r{i}"
        build, flag = KINDS[kind]
        row = build(rid, case, i, dim, status)
        rows.append(row)
        irregular[rid] = flag if flag is not None else status in ("ERROR", "ABSTAIN")
    if controls and draw(st.booleans()):
        caught = draw(st.booleans())
        rows.append({"id": "kb", "dimension": draw(st.sampled_from(DIMS)), "status": "FAIL" if caught else "PASS",
                     "evaluator": "harness", "tags": ["known-bad"]})
    return rows, irregular


@st.composite
def policies(draw, monotone_for_errors=False):
    thresholds = {d: draw(st.sampled_from([0.0, 0.5, 0.8, 1.0])) for d in DIMS if draw(st.booleans())}
    gate = {
        "thresholds": thresholds,
        "threshold_basis": draw(st.sampled_from(["point", "wilson_lower"])),
        "min_samples": draw(st.integers(1, 3)),
        "min_coverage": 1.0 if monotone_for_errors else draw(st.sampled_from([1.0, 0.8, 0.5, 0.0])),
    }
    if draw(st.booleans()):
        gate["required_dimensions"] = sorted(set(draw(st.lists(st.sampled_from(DIMS + ("task_completion",)),
                                                                min_size=1, max_size=3))))
    if not monotone_for_errors and draw(st.booleans()):
        gate["pass_k_thresholds"] = {draw(st.sampled_from(DIMS)): {"k": draw(st.integers(1, 3)),
                                                                   "min": draw(st.sampled_from([0.5, 0.9]))}}
    purpose = draw(st.sampled_from(["release", "release", "release", "exploratory"]))
    return {"purpose": purpose, "gate": gate, "judges": {"panel": PANEL}}


def _evaluate(rows, policy):
    return sk.evaluate(copy.deepcopy(rows), policy=policy)


# =========================================================================== 1. irregular rows are never PASS
@settings(max_examples=80)
@given(data=row_sets(), policy=policies())
def test_no_irregular_row_is_ever_pass(data, policy):
    rows, irregular = data
    card = _evaluate(rows, policy)
    ev = card.evidence.set_index("id")
    for rid, flag in irregular.items():
        if flag:
            assert str(ev.loc[rid, "status"]) != "PASS", (rid, [r for r in rows if r["id"] == rid])
    agent = card.evidence[~card.evidence["control"]]
    passing = agent[agent["status"].astype(str) == "PASS"]
    assert (passing["label"].astype(str) == "labeled").all()
    assert not set(passing["reason"].dropna()) & IRREGULAR_REASONS
    # A mock anywhere makes the whole evaluation a SELF_TEST.
    if any(r.get("judge_votes") and any(v.get("mock") is True or str(v.get("judge", "")).lower().startswith("mock")
                                        for v in r["judge_votes"]) for r in rows):
        assert card.decision == "SELF_TEST"
    # Pass-rate denominators hold PASS and FAIL rows only.
    for _name, d in card.dimensions.iterrows():
        assert d["n"] == d["passes"] + d["fails"]
    assert card.overall_pass is (card.decision == "PASS")


# =========================================================================== 2. monotone in PASS → FAIL/ERROR
def _flip(rows, rid, status):
    out = copy.deepcopy(rows)
    for row in out:
        if row["id"] == rid:
            row["status"] = status
            row["evaluator"] = "harness"
    return out


def _check_not_better(before, after):
    if before.decision in ("TRIAGE", "SELF_TEST"):
        assert after.decision == before.decision
        return
    assert after.decision in RANK
    assert RANK[after.decision] <= RANK[before.decision], (before.decision, after.decision)


def _flippable(card):
    ev = card.evidence
    mask = (ev["status"].astype(str) == "PASS") & ~ev["control"] & (ev["label"].astype(str) == "labeled")
    return ev.loc[mask, "id"].tolist()


@settings(max_examples=60)
@given(data=row_sets(kinds=tuple(REGULAR_KINDS) + ("invalid", "task_unlabeled", "judged_tie")),
       policy=policies(), pick=st.integers(0, 10**6))
def test_turning_a_pass_into_fail_never_improves_the_decision(data, policy, pick):
    rows, _ = data
    before = _evaluate(rows, policy)
    candidates = _flippable(before)
    assume(candidates)
    rid = candidates[pick % len(candidates)]
    after = _evaluate(_flip(rows, rid, "FAIL"), policy)
    _check_not_better(before, after)


@settings(max_examples=60)
@given(data=row_sets(kinds=tuple(REGULAR_KINDS) + ("invalid", "task_unlabeled", "judged_tie")),
       policy=policies(monotone_for_errors=True), pick=st.integers(0, 10**6),
       status=st.sampled_from(["ERROR", "ABSTAIN"]))
def test_turning_a_pass_into_error_never_improves_the_decision(data, policy, pick, status):
    # With min_coverage < 1 or pass^k thresholds SPEC §8 itself is not monotone here:
    # see the two xfail counterexamples in test_decide.py.
    rows, _ = data
    before = _evaluate(rows, policy)
    candidates = _flippable(before)
    assume(candidates)
    rid = candidates[pick % len(candidates)]
    after = _evaluate(_flip(rows, rid, status), policy)
    _check_not_better(before, after)


@st.composite
def single_dimension_cases(draw):
    """Pre-scored trials of one dimension (up to 4 cases x 3 trials) and a policy for it."""
    rows = []
    for c in range(draw(st.integers(1, 4))):
        for t in range(draw(st.integers(1, 3))):
            status = draw(st.sampled_from(["PASS", "PASS", "PASS", "FAIL", "ERROR", "ABSTAIN"]))
            rows.append(_prescored(f"c{c}-t{t}", f"c{c}", t, "helpfulness", status))
    gate = {
        "thresholds": {"helpfulness": draw(st.sampled_from([0.0, 0.5, 0.6, 0.8, 0.9, 1.0]))},
        "threshold_basis": draw(st.sampled_from(["point", "wilson_lower"])),
        "min_samples": draw(st.integers(1, 4)),
        "min_coverage": draw(st.sampled_from([1.0, 1.0, 0.8, 0.5])),
    }
    if draw(st.booleans()):
        gate["pass_k_thresholds"] = {"helpfulness": {"k": draw(st.integers(1, 3)),
                                                     "min": draw(st.sampled_from([0.5, 0.8, 1.0]))}}
    return rows, {"gate": gate}


@settings(max_examples=40)
@given(case=single_dimension_cases())
def test_every_single_flip_of_one_dimension_never_improves(case):
    rows, policy = case
    before = _evaluate(rows, policy)
    # ERROR flips are monotone under SPEC §8 only with full coverage and no pass^k rule
    # (see the xfail counterexamples in test_decide.py).
    error_ok = policy["gate"]["min_coverage"] == 1.0 and "pass_k_thresholds" not in policy["gate"]
    for row in rows:
        if row["status"] != "PASS":
            continue
        for new in ("FAIL", "ERROR", "ABSTAIN") if error_ok else ("FAIL",):
            after = _evaluate(_flip(rows, row["id"], new), policy)
            _check_not_better(before, after)


# =========================================================================== 3. row order
_LINE = re.compile(r"\bline \d+\b")


def _order_free(card):
    d = card.to_dict()
    d.pop("generated_at")
    v = d["validation"]
    v["problems"] = sorted(
        (p["field"], _LINE.sub("line N", p["message"]), p["id"] or "") for p in v["problems"]
    )
    return d


@settings(max_examples=60)
@given(data=row_sets(), policy=policies(), seed=st.randoms(use_true_random=False))
def test_decision_and_scorecard_do_not_depend_on_row_order(data, policy, seed):
    rows, _ = data
    shuffled = list(rows)
    seed.shuffle(shuffled)
    a, b = _evaluate(rows, policy), _evaluate(shuffled, policy)
    assert a.decision == b.decision
    da, db = _order_free(a), _order_free(b)
    assert json.dumps(da, sort_keys=True) == json.dumps(db, sort_keys=True)


def test_controls_order_does_not_depend_on_row_order():
    rows = [
        {"id": "kb-2", "dimension": "pii", "agent_output": "jane@example.com", "tags": ["known-bad"]},
        {"id": "kb-1", "dimension": "pii", "agent_output": "omar@example.com", "tags": ["known-bad"]},
        {"id": "p", "dimension": "pii", "agent_output": "hello"},
    ]
    a = sk.evaluate(rows).to_dict()["controls"]
    b = sk.evaluate(list(reversed(rows))).to_dict()["controls"]
    assert a == b


# ====================================================================== 4. every engine agrees, irregular never PASS
# Issue 25 acceptance: "no irregular row becomes a PASS and every engine agrees with pandas" (SPEC §1, §16).
# A row set mixes regular rows with irregular ones; the pandas engine on its JSON Lines file is the reference,
# the dask engine (a LocalCluster reused across examples) and, when every row is pre-scored (SPEC §16), the
# duckdb engine must give the same scorecard.json (but generated_at) and evidence.
PRESCORED_KEYS = {"id", "dimension", "case_id", "trial", "status", "evaluator", "reason", "run", "agent"}
NAN_LIKE = ("NaN", "nan", "null", "None", "NA", "", " ", "inf", "-Infinity")


def _ps(rid, case, trial, dim, status, **extra):
    return {**_prescored(rid, case, trial, dim, status), **extra}


# kind -> (builder(rid, case, trial, dim, status, draw), irregular?: True, False or None (iff ERROR/ABSTAIN))
PRESCORED_KINDS = {
    "prescored": (lambda r, c, t, d, s, _: _ps(r, c, t, d, s), None),
    "prescored_run": (lambda r, c, t, d, s, _: _ps(r, c, t, d, s, run=f"run-{t % 2}"), None),
    "nan_like_strings": (lambda r, c, t, d, s, draw: _ps(r, draw(st.sampled_from(NAN_LIKE[:5])), t, d, s,
                                                          run=draw(st.sampled_from(NAN_LIKE[:5]))), None),
    "unknown_status": (lambda r, c, t, d, s, draw: _ps(r, c, t, d, draw(st.sampled_from(
        ["MAYBE", "pass", "Pass", "PASSED", "NaN", "", "OK"]))), True),
    "missing_evaluator": (lambda r, c, t, d, s, _: {k: v for k, v in _ps(r, c, t, d, "PASS").items()
                                                    if k != "evaluator"}, True),
    "nan_like_evaluator": (lambda r, c, t, d, s, draw: _ps(r, c, t, d, "PASS", evaluator=draw(st.sampled_from(
        ["", " ", "\t"]))), True),
    "mock_evaluator": (lambda r, c, t, d, s, draw: _ps(r, c, t, d, "PASS", evaluator=draw(st.sampled_from(
        ["mock", "Mock-grader", "MOCK_JUDGE"]))), False),  # counts as given (SPEC §18), reason mock_judge
    "bad_trial": (lambda r, c, t, d, s, draw: _ps(r, c, draw(st.sampled_from([-1, "1", 1.5, 2**60, True])),
                                                  d, "PASS"), True),
    "bad_id": (lambda r, c, t, d, s, draw: _ps(draw(st.sampled_from(["", " ", 7, None])), c, t, d, "PASS"), True),
    "bad_dimension": (lambda r, c, t, d, s, draw: _ps(r, c, t, draw(st.sampled_from(["", 3, None])), "PASS"),
                      True),
}
DUPLICATE = "duplicate_id"  # claims an earlier row's id: both rows invalid (SPEC §2)


def _conflict(rid, case, trial, dim, status, draw):
    """A second definition of a task case (another answer key): its rows invalid (SPEC §2)."""
    row = _task(True)(rid, case, trial, dim, status)
    row["must_include"] = ["refund", "apology"]
    return row


MIXED_KINDS = {
    **{name: ((lambda b: lambda r, c, t, d, s, _: b(r, c, t, d, s))(build), flag) for name, (build, flag) in
       KINDS.items()},
    **PRESCORED_KINDS,
    "definition_conflict": (_conflict, True),
    "score": (lambda r, c, t, d, s, draw: {"id": r, "dimension": d, "case_id": f"g-{r}", "trial": t,
                                           "score": draw(st.sampled_from([0.0, 0.5, 1.0])), "evaluator": "grader"},
              False),
}


@st.composite
def engine_row_sets(draw, max_size=12):
    """(rows, irregular flag per row, every row pre-scored) for the three engines: regular and irregular rows
    mixed; half the sets hold pre-scored rows only (the duckdb engine's input)."""
    prescored_only = draw(st.booleans())
    kinds = dict(PRESCORED_KINDS) if prescored_only else dict(MIXED_KINDS)
    names = [*kinds, DUPLICATE]
    rows = [_prescored("anchor", "anchor", 0, draw(st.sampled_from(DIMS)), "PASS")]
    flags = [False]
    for i in range(draw(st.integers(1, max_size))):
        kind = draw(st.sampled_from(names))
        case, dim = draw(st.sampled_from(["c0", "c1", "c2"])), draw(st.sampled_from(DIMS))
        status = draw(st.sampled_from(["PASS", "PASS", "FAIL", "ERROR", "ABSTAIN"]))
        if kind == DUPLICATE:
            k = draw(st.integers(0, len(rows) - 1))
            if not isinstance(rows[k].get("id"), str):
                continue
            rows.append(_ps(rows[k]["id"], case, 1000 + i, dim, status))
            flags.append(True)
            flags[k] = True
            continue
        build, flag = kinds[kind]
        rows.append(build(f"r{i}", case, i, dim, status, draw))
        flags.append(flag if flag is not None else status in ("ERROR", "ABSTAIN"))
        if kind == "definition_conflict":  # the other definition: its rows are invalid too
            for j, row in enumerate(rows[:-1]):
                if row.get("case_id") == rows[-1]["case_id"] and row.get("dimension") == "task_completion":
                    flags[j] = True
    if not prescored_only and draw(st.booleans()):  # a known-bad control, caught or missed
        rows.append({"id": "kb", "dimension": draw(st.sampled_from(DIMS)),
                     "status": draw(st.sampled_from(["FAIL", "PASS"])), "evaluator": "harness", "tags": ["known-bad"]})
        flags.append(True)
    return rows, flags, all(set(row) <= PRESCORED_KEYS for row in rows)


def _write_rows(rows, directory):
    """``rows`` as ``rows[1].jsonl``, beside the file a glob of that name matches (``rows1.jsonl``,
    every row a PASS): each engine must read the file it is named (SPEC §20)."""
    import pathlib
    import tempfile

    folder = pathlib.Path(tempfile.mkdtemp(dir=directory))
    decoy = [dict(row, status="PASS", evaluator="harness") for row in rows]
    (folder / "rows1.jsonl").write_text("".join(json.dumps(row) + "\n" for row in decoy), encoding="utf-8")
    path = folder / "rows[1].jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _comparable(card):
    """scorecard.json as the JSON writer writes it (keys in their order), but ``generated_at``."""
    from _corpus import comparable

    return comparable(card)


def _assert_irregular_never_pass(card, flags):
    ev = card.evidence
    agent = ev[~ev["control"]]  # a known-bad control that passed is the control failing, not a PASS of the agent
    status = dict(zip(agent["line"].tolist(), agent["status"].astype(str).tolist(), strict=True))
    for line, flag in enumerate(flags, start=1):
        if flag and line in status:
            assert status[line] != "PASS", line
    passing = ev[(ev["status"].astype(str) == "PASS") & ~ev["control"]]
    assert (passing["label"].astype(str) == "labeled").all()


def _check_engines_agree(rows, flags, prescored_only, policy, cluster, directory):
    import pandas as pd

    path = _write_rows(rows, directory)
    want = sk.evaluate(path, policy=policy)
    _assert_irregular_never_pass(want, flags)
    engines = [("dask", {"scheduler": cluster})] + ([("duckdb", {})] if prescored_only else [])
    for engine, options in engines:
        got = sk.evaluate(path, policy=policy, engine=engine, **options)
        assert _comparable(got) == _comparable(want), engine
        pd.testing.assert_frame_equal(got.evidence, want.evidence, check_exact=True, obj=engine)
        assert got.dimensions["judge_agreement"].tolist() == want.dimensions["judge_agreement"].tolist(), engine
    # Adding the irregular rows never makes the decision PASS: the regular rows alone decide at least as well.
    regular = [row for row, flag in zip(rows, flags, strict=True) if not flag]
    assume(regular)
    if want.decision == "PASS":
        alone = sk.evaluate(_write_rows(regular, directory), policy=policy)
        assert alone.decision == "PASS", (alone.decision, want.decision)


_ENGINE_SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow]}


@pytest.mark.timeout(1200)  # three engines per example, the dask cluster's round trips
@settings(max_examples=8, **_ENGINE_SETTINGS)
@given(data=engine_row_sets(), policy=policies())
def test_no_irregular_row_becomes_a_pass_and_every_engine_agrees_with_pandas(data, policy, cluster, tmp_path):
    _check_engines_agree(*data, policy, cluster, tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(6 * 3600)
@settings(max_examples=500, **_ENGINE_SETTINGS)
@given(data=engine_row_sets(), policy=policies())
def test_no_irregular_row_becomes_a_pass_and_every_engine_agrees_with_pandas_500(data, policy, cluster, tmp_path):
    """The issue 25 acceptance run: 500 examples (``pytest -m slow``)."""
    _check_engines_agree(*data, policy, cluster, tmp_path)
