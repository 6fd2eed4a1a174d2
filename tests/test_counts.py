"""Counts per (group, case): the sufficient statistics (scorekit/_counts.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from scorekit._counts import case_counts_from, case_table, count_cases, flat_case_counts


def _evidence() -> pd.DataFrame:
    rows = []
    for case, statuses in {"a": ["PASS", "PASS", "FAIL"], "b": ["ERROR", "PASS"], "c": ["ABSTAIN"]}.items():
        for trial, status in enumerate(statuses):
            rows.append({"id": f"{case}{trial}", "dimension": "d", "case_id": case, "trial": trial,
                         "status": status, "control": False, "included": True})
    rows.append({"id": "ctl", "dimension": "d", "case_id": "z", "trial": 0, "status": "PASS", "control": True,
                 "included": True})
    return pd.DataFrame(rows)


def test_cases_are_counted_per_status_and_n_is_pass_plus_fail():
    table = case_table(_evidence())
    assert list(table.index) == [("d", "a"), ("d", "b"), ("d", "c")]  # the control row leaves
    assert table.loc[("d", "a")].to_dict() == {"passes": 2, "fails": 1, "errors": 0, "abstains": 0, "n": 3}
    assert table.loc[("d", "b"), "n"] == 1 and table.loc[("d", "c"), "n"] == 0


def test_flat_case_counts_are_the_same_counts_as_the_case_table():
    flat = flat_case_counts(count_cases(_evidence()))
    table = case_table(_evidence()).reset_index()
    assert list(flat.columns) == ["dimension", "case_id", "passes", "n"]
    assert flat["dimension"].tolist() == table["dimension"].tolist()
    assert flat["case_id"].tolist() == table["case_id"].tolist()
    assert flat["passes"].tolist() == table["passes"].tolist() and flat["n"].tolist() == table["n"].tolist()


def test_group_totals_are_the_sums_of_their_cases():
    counts = count_cases(_evidence())
    assert int(counts.passes.sum()) == 3 and int(counts.n.sum()) == 4


def test_case_counts_from_summed_counts_are_the_counted_cases():
    counted = count_cases(_evidence())
    dims = counted.groups.index[counted.case_group].astype(str)
    rebuilt = case_counts_from(list(dims), list(counted.case_ids), counted.counts)
    assert rebuilt.groups.index.tolist() == counted.groups.index.tolist()
    assert rebuilt.case_group.tolist() == counted.case_group.tolist()
    assert list(rebuilt.case_ids) == list(counted.case_ids)
    assert (rebuilt.counts == counted.counts).all() and (rebuilt.groups.counts == counted.groups.counts).all()
    empty = case_counts_from([], [], np.zeros((0, 4), dtype=np.int64))
    assert len(empty.groups.index) == 0 and empty.counts.shape == (0, 4)
