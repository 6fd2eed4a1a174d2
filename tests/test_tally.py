"""The reductions the decision reads (``_tally``): one Tally per evaluation, whatever the row order."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit._counts import count_cases, run_variance, variance_table
from scorekit._findings import build_findings
from scorekit._tally import LABELS
from scorekit.kernel import tally_frame

ROWS = [
    {"id": "a0", "dimension": "task_completion", "case_id": "a", "trial": 0, "run": "r0",
     "must_include": ["ok"], "agent_output": "ok"},
    {"id": "a1", "dimension": "task_completion", "case_id": "a", "trial": 1, "run": "r1",
     "must_include": ["ok"], "agent_output": "no"},
    {"id": "b0", "dimension": "task_completion", "case_id": "b", "trial": 0, "run": "r0", "must_include": [],
     "agent_output": "x"},  # unlabeled
    {"id": "k", "dimension": "pii", "case_id": "k", "agent_output": "SSN 123-45-6789", "tags": ["known-bad"]},
    {"id": "bad", "dimension": "pii", "trial": "x", "agent_output": "a"},  # invalid: trial is not a number
]


def _card(purpose: str = "exploratory") -> sk.Scorecard:
    return sk.evaluate(ROWS, policy={"purpose": purpose})


def test_a_tally_holds_what_the_scorecard_shows():
    card = _card()
    tally = tally_frame(card.evidence)
    assert tally.labels == {"labeled": 3, "unlabeled": 1, "invalid": 1}
    assert tally.labels == {k: card.validation.to_dict()[k] for k in LABELS}
    assert [row[:3] for row in tally.unlabeled] == [(3, "b0", "task_completion")]
    assert tally.controls == card.controls and tally.controls[0]["passed"] is True
    assert tally.dimensions == ["task_completion"]  # exploratory: unlabeled and invalid rows are not counted
    assert tally.per_case["case_id"].tolist() == ["a"] and tally.cases.counts.tolist() == [[1, 1, 0, 0]]
    assert tally.per_case[["passes", "n"]].to_numpy().tolist() == [[1, 2]]
    assert build_findings(tally.findings) == build_findings(card.evidence)


def test_release_counts_every_agent_row():
    tally = tally_frame(_card("release").evidence)
    assert tally.dimensions == ["pii", "task_completion"]
    per_case = tally.per_case
    assert dict(zip(per_case["case_id"].tolist(), per_case[["passes", "n"]].to_numpy().tolist(), strict=True)) == {
        "bad": [0, 0], "a": [1, 2], "b": [0, 0]}
    # pii's one case, and task_completion's two: one [1, 1, 0, 0] and one [0, 0, 1, 0]
    assert tally.cases.counts.tolist() == [[0, 0, 1, 0], [0, 0, 1, 0], [1, 1, 0, 0]]
    assert tally.cases.weights.tolist() == [1, 1, 1]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_tally_does_not_depend_on_row_order(seed):
    evidence = _card().evidence
    shuffled = evidence.sample(frac=1.0, random_state=np.random.RandomState(seed)).reset_index(drop=True)
    a, b = tally_frame(evidence), tally_frame(shuffled)
    assert (a.labels, a.controls, a.dimensions, a.findings) == (b.labels, b.controls, b.dimensions, b.findings)
    assert sorted(a.unlabeled) == sorted(b.unlabeled)
    assert a.cases.counts.tolist() == b.cases.counts.tolist() and a.cases.weights.tolist() == b.cases.weights.tolist()
    pd.testing.assert_frame_equal(a.per_case, b.per_case)
    pd.testing.assert_frame_equal(variance_table(a.runs).table, variance_table(b.runs).table)


def test_run_totals_give_run_variance():
    evidence = _card().evidence
    agent = evidence[evidence["included"] & ~evidence["control"]]
    pd.testing.assert_frame_equal(variance_table(tally_frame(evidence).runs).table, run_variance(agent).table)
    assert count_cases(agent).counts.tolist() == tally_frame(evidence).cases.counts.tolist()
